"""The one sort: documents by query, then by descending score.

Its specification is ``np.lexsort((row, label_key, -y_score, query_codes))``
(the tests hold it to that): inside a tie, labels first (``ties="optimistic"``
or ``"pessimistic"``), then the row index. So the order is stable: under
``ties="first"`` (no label key) tied documents keep their input order, as in
LightGBM's and XGBoost's stable sorts, at no extra cost since the packed keys
already end with the row (or its offset inside its query). NumPy's ``sort`` of int64 values is several
times faster than ``argsort`` or ``lexsort``, so the row index is packed into
the low bits of int64 keys whose high bits order the rows, and the
permutation is read back from the sorted keys:

- scores become int64 *score keys* (:func:`score_keys`) whose ascending
  order is the scores' descending order, equal exactly for equal scores:
  IEEE bits for floats, the value itself for integers (so int64 and uint64
  scores are ranked by their exact value, not a rounded float);
- keys are shifted to start at 0 and truncated to the bits left beside the
  row index; rows whose truncated keys collide are re-sorted exactly (none
  when the score range fits, as for small integer scores);
- usually one sort of (query, truncated score, row index); when too few bits
  are left for the score (many rows, many queries), the row's offset inside
  its query replaces the row index if each query's rows are contiguous (2-D
  input, data grouped by query), else a sort by score is followed by a
  stable sort by query.

No sort at all when the rows come ranked already: each query one run of
rows, scores non-increasing along it (a TREC run as trec_eval orders it,
most learning-to-rank files written by rank). Two comparisons of neighbours
find that; the order is then the runs taken in query order
(:func:`rank_ranked_runs`).

Work is in place or block by block: the peak is about two int64 arrays of
the input's length.
"""

import numpy as np

from ._arrays import BLOCK, row_blocks, run_starts

_MAGNITUDE_BITS = np.int64(0x7FFFFFFFFFFFFFFF)

# Below this many bits of score precision (unless the score range fits) a
# single sort of packed keys would collide too often; two sorts are used
# instead. The same when more than one row in this many collides.
_MIN_PACKED_SCORE_BITS = 16
_MAX_COLLIDING_SHARE = 8


def _score_key_block(scores):
    kind = scores.dtype.kind
    if kind == "f":
        key = scores.astype(np.float64)
        key += 0.0  # -0.0 becomes 0.0: equal scores, equal keys
        key = key.view(np.int64)
        # IEEE bits order like a signed int for positive values and in reverse
        # for negative ones: flip the magnitude bits of negatives.
        key ^= (key >> 63) & _MAGNITUDE_BITS
    elif scores.dtype == np.uint64:
        key = (scores ^ np.uint64(1 << 63)).view(np.int64)
    else:
        key = scores.astype(np.int64)
    return np.invert(key, out=key)  # ascending key = descending score


def score_keys(scores):
    """int64 keys whose ascending order is the descending order of ``scores``.

    Equal keys exactly for equal scores (``-0.0`` and ``0.0`` included);
    integer scores keep their exact value.
    """
    keys = np.empty(scores.shape[0], dtype=np.int64)
    for start, stop in row_blocks(scores.shape[0]):
        keys[start:stop] = _score_key_block(scores[start:stop])
    return keys


def _bits_for(count):
    """Bits needed to hold the values 0 .. count - 1."""
    return max(1, int(count - 1).bit_length())


def _normalize(keys, score_bits):
    """Shift keys to start at 0 and keep their top ``score_bits`` bits, in place.

    Returns ``(keys viewed as uint64, shift)``: ``shift`` is 0 when the
    range fits, so that equal truncated keys mean equal scores.
    """
    low, high = int(keys.min()), int(keys.max())
    shift = max(0, (high - low).bit_length() - score_bits)
    unsigned = keys.view(np.uint64)
    unsigned -= np.uint64(low % 2**64)  # modular: exact for the difference < 2**64
    unsigned >>= np.uint64(shift)
    return unsigned, shift


def _collisions(sorted_keys, low_bits):
    """``collide[i]``: sorted keys ``i`` and ``i + 1`` agree above bit ``low_bits``."""
    n_pairs = max(sorted_keys.shape[0] - 1, 0)
    collide = np.empty(n_pairs, dtype=bool)
    for start, stop in row_blocks(n_pairs):
        xor = np.bitwise_xor(sorted_keys[start + 1 : stop + 1], sorted_keys[start:stop])
        np.less(xor.view(np.uint64), np.uint64(1 << low_bits), out=collide[start:stop])
    return collide


def _label_order_key(y_true, rows, ties):
    """Inside a tie: higher labels first (optimistic) or last (pessimistic); None for average, first."""
    if ties in ("average", "first"):
        return None
    labels = y_true[rows].astype(np.float64)
    return -labels if ties == "optimistic" else labels


def _run_blocks(collide):
    """``(start, stop)`` blocks of about :data:`BLOCK` positions that split no collision run.

    A block ends where two neighbours do not collide; one run longer than a
    block is a block of its own.
    """
    n = collide.shape[0] + 1
    start = 0
    while start < n:
        stop = min(start + BLOCK, n)
        while stop < n and collide[stop - 1]:  # rows stop - 1 and stop are one run
            window = collide[stop - 1 : stop - 1 + BLOCK]
            ends = np.flatnonzero(~window)
            stop = stop + int(ends[0]) if ends.shape[0] else min(stop + BLOCK, n)
        yield start, stop
        start = stop


def _unequal_neighbours(collide, order, y_score, start, stop):
    """Colliding neighbours in positions ``start:stop`` whose scores differ (block by block)."""
    count = 0
    for low in range(start, stop - 1, BLOCK):
        high = min(low + BLOCK, stop - 1)
        pairs = collide[low:high]
        if not pairs.any():
            continue
        first = np.flatnonzero(pairs) + low
        count += np.count_nonzero(y_score[order[first]] != y_score[order[first + 1]])
    return count


def _refine_run_block(collide, order, y_score, y_true, ties):
    """:func:`_refine_collisions` on one block of whole runs (``order`` a view, changed in place)."""
    in_run = np.zeros(order.shape[0], dtype=bool)
    in_run[1:] = collide
    in_run[:-1] |= collide
    positions = np.flatnonzero(in_run)
    run_start = np.ones(positions.shape[0], dtype=bool)
    run_start[1:] = ~collide[positions[1:] - 1]
    rows = order[positions]
    exact = score_keys(y_score[rows])
    run_id = np.cumsum(run_start)
    label_key = _label_order_key(y_true, rows, ties)
    keys = (exact, run_id) if label_key is None else (label_key, exact, run_id)
    exactly_sorted = np.lexsort(keys)
    order[positions] = rows[exactly_sorted]
    exact, run_id = exact[exactly_sorted], run_id[exactly_sorted]
    return not ((exact[1:] == exact[:-1]) & (run_id[1:] == run_id[:-1])).any()


def _refine_collisions(collide, order, y_score, y_true, ties, exact_ties):
    """Exactly re-sort the rows whose packed keys collided.

    ``exact_ties`` says that keys were not truncated, so colliding rows have
    equal scores and, under ``ties="average"`` or ``"first"`` (already in
    row order), need nothing. The re-sort is stable: rows of equal scores
    stay in the order of their packed keys, the row order. Returns
    ``(order, tie_free)``: ``tie_free`` is True when no two rows of a
    collision run have equal scores.

    Runs are re-sorted block by block (:func:`_run_blocks`), so the
    temporaries are those of one block, not of every colliding row; under
    ``"average"`` and ``"first"`` a block whose colliding rows all have
    equal scores (ties, not truncation) is left as it is.
    """
    if not collide.any():
        return order, True
    if exact_ties and ties in ("average", "first"):
        return order, False
    tie_free = True
    for start, stop in _run_blocks(collide):
        pairs = collide[start : stop - 1]
        if not pairs.any():
            continue
        if ties in ("average", "first") and not _unequal_neighbours(
            collide, order, y_score, start, stop
        ):
            tie_free = False  # equal scores only: in row order already
            continue
        tie_free &= _refine_run_block(pairs, order[start:stop], y_score, y_true, ties)
    return order, tie_free


def _add_row_index(keys, start_row=0):
    """``keys += arange(len(keys))``, block by block."""
    for start, stop in row_blocks(keys.shape[0]):
        keys[start:stop] += np.arange(start_row + start, start_row + stop, dtype=keys.dtype)


def _offsets_in_runs(starts, n, start, stop):
    """For rows ``start:stop``: the row minus the start of its run (runs start at ``starts``)."""
    first = int(np.searchsorted(starts, start, side="right")) - 1
    last = int(np.searchsorted(starts, stop - 1, side="right"))
    begins = np.maximum(starts[first:last], start)
    ends = np.minimum(np.append(starts[first + 1 : last], n), stop)
    return np.arange(start, stop) - np.repeat(starts[first:last], ends - begins)


def key_range(y_score):
    """``(lowest, highest)`` score key: the keys of the largest and of the smallest score."""
    ends = np.array([y_score.max(), y_score.min()], dtype=y_score.dtype)
    low, high = _score_key_block(ends).tolist()
    return low, high


def _rank_in_one_sort(y_score, y_true, codes, n_queries, starts, ties, keys_from_to):
    """One sort of packed (query, truncated score key, low part) keys, or None.

    The low part is the row index, or with ``starts`` (every query one run
    of rows starting there) the row's offset inside its query. The keys are
    built block by block straight from the scores, shifted to start at the
    lowest key ``keys_from_to[0]``. None when too few bits are left for the
    score, or when truncation made so many rows collide that sorting by
    score first (:func:`_rank_in_two_sorts`) is cheaper than re-sorting them
    all exactly.
    """
    n = y_score.shape[0]
    if starts is not None:
        low_bits = _bits_for(np.diff(np.append(starts, n)).max())
    else:
        low_bits = _bits_for(n)
    code_bits = _bits_for(n_queries)
    score_bits = 63 - code_bits - low_bits
    low, high = keys_from_to
    span_bits = (high - low).bit_length()
    if score_bits < _MIN_PACKED_SCORE_BITS and span_bits > score_bits:
        return None
    shift = max(0, span_bits - score_bits)
    dropped = np.uint64((1 << shift) - 1)
    lossless = True  # no key lost a set bit to the shift: equal packed scores are equal
    packed = np.empty(n, dtype=np.int64)
    for start, stop in row_blocks(n):
        key = _score_key_block(y_score[start:stop]).view(np.uint64)
        key -= np.uint64(low % 2**64)  # modular: exact for differences < 2**64
        if shift and lossless:  # e.g. few round values (whole numbers as floats)
            lossless = not np.bitwise_and(key, dropped).any()
        key >>= np.uint64(shift)
        key <<= np.uint64(low_bits)
        key = key.view(np.int64)
        key |= np.left_shift(codes[start:stop], score_bits + low_bits, dtype=np.int64)
        if starts is not None:
            key += _offsets_in_runs(starts, n, start, stop)
        else:
            key += np.arange(start, stop, dtype=np.int64)
        packed[start:stop] = key
    packed.sort()
    collide = _collisions(packed, low_bits)
    exact = not shift or lossless
    many = not exact and np.count_nonzero(collide) > n // _MAX_COLLIDING_SHARE
    low_mask = np.int64((1 << low_bits) - 1)
    if starts is None:
        packed &= low_mask
    else:
        first_row = np.empty(n_queries, dtype=np.int64)
        first_row[codes[starts]] = starts
        for start, stop in row_blocks(n):
            block = packed[start:stop]
            offset = block & low_mask
            block >>= score_bits + low_bits
            np.take(first_row, block, out=block)
            block += offset
    # Rows of equal scores collide too (under "average" and "first" they need
    # no re-sort): too many collisions are those of different scores.
    if many and _unequal_neighbours(collide, packed, y_score, 0, n) > n // _MAX_COLLIDING_SHARE:
        return None
    return _refine_collisions(collide, packed, y_score, y_true, ties, exact)


def _rank_in_two_sorts(keys, y_score, y_true, codes, ties):
    """Sort by score, then stably by query (the second sort packs the score rank)."""
    n = keys.shape[0]
    index_bits = _bits_for(n)
    unsigned, shift = _normalize(keys, 63 - index_bits)
    unsigned <<= np.uint64(index_bits)
    _add_row_index(keys)
    keys.sort()
    collide = _collisions(keys, index_bits)
    keys &= np.int64((1 << index_bits) - 1)
    # Ties here are global: ties between different queries are harmless but
    # make ``tie_free`` False, which only costs an exact check later.
    by_score, tie_free = _refine_collisions(collide, keys, y_score, y_true, ties, shift == 0)
    del collide
    by_query = np.empty(n, dtype=np.int64)
    for start, stop in row_blocks(n):
        block = by_query[start:stop]
        block[:] = codes[by_score[start:stop]]
        block <<= index_bits
        block += np.arange(start, stop, dtype=np.int64)
    by_query.sort()
    by_query &= np.int64((1 << index_bits) - 1)
    for start, stop in row_blocks(n):
        np.take(by_score, by_query[start:stop], out=by_query[start:stop])
    return by_query, tie_free


def ranked_runs(y_score, query_codes, n_queries, starts=None):
    """``(starts, n_ties)`` when the rows come ranked already, else None.

    Ranked already: each of the ``n_queries`` queries the rows hold is one
    run of rows (starting at ``starts``), along which the scores never rise.
    ``n_ties`` counts the neighbours inside a run with equal scores.
    Neighbours are compared block by block, rises and ties counted; those
    at the first row of a query are not inside it and are subtracted.
    ``starts``: the runs of ``query_codes`` where the caller found them.
    """
    n = y_score.shape[0]
    if starts is None:
        starts = run_starts(query_codes, max_runs=n_queries)
    if starts is None or starts.shape[0] != n_queries:
        return None  # some query in more than one run of rows
    rises = ties = 0
    compared = np.empty(min(BLOCK, max(n - 1, 0)), dtype=bool)
    for start, stop in row_blocks(n - 1):
        later, earlier = y_score[start + 1 : stop + 1], y_score[start:stop]
        out = compared[: stop - start]
        rises += np.count_nonzero(np.greater(later, earlier, out=out))
        ties += np.count_nonzero(np.equal(later, earlier, out=out))
    firsts = starts[1:]
    if rises != np.count_nonzero(y_score[firsts] > y_score[firsts - 1]):
        return None
    return starts, ties - np.count_nonzero(y_score[firsts] == y_score[firsts - 1])


def tied_neighbours(y_score, query_codes):
    """The rows whose score equals that of the row before, in the same query (sorted)."""
    found = [np.zeros(0, dtype=np.intp)]
    for start, stop in row_blocks(y_score.shape[0] - 1):
        same = np.equal(y_score[start + 1 : stop + 1], y_score[start:stop])
        same &= query_codes[start + 1 : stop + 1] == query_codes[start:stop]
        found.append(np.flatnonzero(same) + (start + 1))
    return np.concatenate(found)


def rank_ranked_runs(y_score, query_codes, n_queries, ties, starts=None):
    """``(order, tie_free)`` without a sort when the rows come ranked already, else None.

    The order is then the runs (:func:`ranked_runs`) in query-code order,
    each as it is (None when the runs are in that order: the rows as they
    are), which is what the stable sort gives under ``ties="first"`` and
    ``"average"``; under ``"optimistic"`` and ``"pessimistic"`` only when no
    two documents of a query tie (labels would reorder a tie). ``starts``:
    as :func:`ranked_runs` takes them.
    """
    ranked = ranked_runs(y_score, query_codes, n_queries, starts)
    if ranked is None:
        return None
    starts, n_ties = ranked
    if n_ties and ties not in ("average", "first"):
        return None
    n = y_score.shape[0]
    run_codes = query_codes[starts]
    if (run_codes[1:] > run_codes[:-1]).all():
        return None, not n_ties  # the rows as they are
    by_code = np.argsort(run_codes)
    lengths = np.diff(np.append(starts, n))[by_code]
    placed = np.cumsum(lengths) - lengths  # where each run starts in the order
    order = np.repeat(starts[by_code] - placed, lengths)
    order += np.arange(n, dtype=np.int64)
    return order, not n_ties


def rank_order(
    y_score, y_true, query_codes, n_queries, ties, rows_are_queries=False, score_range=None
):
    """Permutation of documents sorted by query, then by descending score.

    Parameters
    ----------
    y_score, y_true : ndarray of shape (n_documents,)
    query_codes : ndarray of shape (n_documents,)
        Query number of each document, ``0 .. n_queries - 1``.
    n_queries : int
    ties : {"average", "optimistic", "pessimistic", "first"}
        Inside a group of tied scores the order is by descending label for
        ``"optimistic"``, ascending for ``"pessimistic"``, then by row:
        ``"first"`` and ``"average"`` keep the input order (under
        ``"average"`` the kernels treat tied documents as exchangeable).
    rows_are_queries : bool, default=False
        True when query ``q`` is known to be the ``q``-th block of rows.
    score_range : tuple, default=None
        ``(min, max)`` of ``y_score`` when known (validation computes them).

    Returns
    -------
    order : ndarray of shape (n_documents,), int64, or None
        None when the rows are in that order already (the identity, not
        allocated).
    tie_free : bool
        True guarantees that no two documents of one query have equal
        scores (False means they may).
    """
    ranked = rank_ranked_runs(y_score, query_codes, n_queries, ties)
    if ranked is not None:
        return ranked
    return sort_rows(y_score, y_true, query_codes, n_queries, ties, rows_are_queries, score_range)


def sort_rows(y_score, y_true, query_codes, n_queries, ties, rows_are_queries, score_range):
    """:func:`rank_order` of rows not ranked already: packed-key sorts (see the module)."""
    n = y_score.shape[0]
    keys_from_to = key_range(y_score if score_range is None else np.array(score_range, y_score.dtype))
    ranked = _rank_in_one_sort(y_score, y_true, query_codes, n_queries, None, ties, keys_from_to)
    if ranked is None:
        # Offsets inside contiguous queries need fewer bits than row indices.
        if rows_are_queries:
            starts = np.arange(0, n, n // n_queries, dtype=np.int64)
        else:
            starts = run_starts(query_codes, max_runs=n_queries)
        if starts is not None and starts.shape[0] == n_queries:
            ranked = _rank_in_one_sort(
                y_score, y_true, query_codes, n_queries, starts, ties, keys_from_to
            )
    if ranked is not None:
        return ranked
    return _rank_in_two_sorts(score_keys(y_score), y_score, y_true, query_codes, ties)


def argsort_scores(y_score, ranking_input):
    """Tie-free int64 scores that rank each query as scikit-learn's ``ignore_ties=True``.

    scikit-learn ranks each row by ``np.argsort(y_score)[:, ::-1]``: NumPy's
    default sort, which is not stable (the order of tied scores depends on
    the algorithm NumPy picks for the dtype and length), reversed. That
    exact order is reproduced: the scores as scikit-learn reads them
    (``check_array``) are argsorted with the same call, one 2-D array of
    the queries of each length (a query's scores in row order, as the row
    of a 2-D input), and the documents get the scores ``n, n - 1, .., 1``
    in that order. One NumPy call per distinct query length, not per query.

    Parameters
    ----------
    y_score : array-like
        The scores as given (1-D or 2-D).
    ranking_input : RankingInput
        The validated input: its query codes, and whether rows are queries.
    """
    from sklearn.utils import check_array

    raw = check_array(y_score, ensure_2d=False).reshape(-1)
    codes = ranking_input.query_codes
    if ranking_input.rows_are_queries:
        grouped = np.arange(raw.shape[0])
    else:  # each query's rows, in row order
        grouped = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=ranking_input.n_queries)
    starts = np.cumsum(sizes) - sizes
    scores = np.empty(raw.shape[0], dtype=np.int64)
    for length in np.unique(sizes).tolist():
        rows = grouped[starts[sizes == length][:, np.newaxis] + np.arange(length)]
        ranking = np.argsort(raw[rows])[:, ::-1]
        scores[np.take_along_axis(rows, ranking, axis=1)] = np.arange(length, 0, -1)
    return scores


def descending(scores):
    """Keys that sort as ``scores`` in descending order (integers: ``~s``, no overflow)."""
    return ~scores if scores.dtype.kind in "iu" else -scores


def merged_by_rounding(scores, query_codes, float_type):
    """``(row, other)``: two rows of one query whose different integer scores round together.

    ``float_type`` (float64, or float32 for trec_eval 9) is the type a tool
    reads the scores as: where it merges two different scores of a query,
    that tool ties documents that these scores rank apart. None where it
    merges none (float scores, or integers it holds exactly, included).
    """
    if scores.dtype.kind not in "iu" or not scores.shape[0]:
        return None
    exact = 2 ** (np.finfo(float_type).nmant + 1)
    if max(-int(scores.min()), int(scores.max())) <= exact:
        return None
    rounded = scores.astype(float_type)
    order = np.lexsort((scores, query_codes))
    merged = (query_codes[order][1:] == query_codes[order][:-1]) & (
        scores[order][1:] != scores[order][:-1]
    )
    merged &= rounded[order][1:] == rounded[order][:-1]
    if not merged.any():
        return None
    first = int(np.argmax(merged))
    return int(order[first]), int(order[first + 1])
