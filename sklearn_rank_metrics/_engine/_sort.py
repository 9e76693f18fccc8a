"""Factorizing query ids and sorting documents into ranked query segments.

This is the one place that sorts. Everything downstream works on the
segments it produces (:class:`~sklearn_rank_metrics._segments.RankedQueries`).
"""

import numpy as np

# Integer query ids spanning at most this many values per document are
# factorized with a bincount table instead of a sort.
_DENSE_RANGE_FACTOR = 4


def factorize_numeric(qid):
    """``(codes, uniques)`` for numeric query ids, uniques sorted ascending."""
    n = qid.shape[0]
    if qid.dtype.kind in "iu" and n:
        low, high = int(qid.min()), int(qid.max())
        span = high - low + 1
        if span <= _DENSE_RANGE_FACTOR * n + 1024:
            shifted = qid - low if low else qid
            present = np.bincount(shifted, minlength=span) > 0
            if low == 0 and present.all():
                # Already the codes 0 .. n_queries - 1.
                return qid.astype(np.intp, copy=False), np.arange(span, dtype=qid.dtype)
            uniques = np.flatnonzero(present)
            code_of_value = np.cumsum(present, dtype=np.intp) - 1
            return code_of_value[shifted], (uniques + low).astype(qid.dtype, copy=False)
    try:
        import pandas as pd
    except ImportError:
        uniques, codes = np.unique(qid, return_inverse=True)
        return codes.reshape(-1), uniques
    codes, uniques = pd.factorize(qid, sort=True)
    return codes.astype(np.intp, copy=False), np.asarray(uniques)


def factorize_strings(qid):
    """``(codes, uniques)`` for a NumPy string array, uniques sorted.

    pandas hashes strings, much faster than NumPy's sort of them.
    """
    try:
        import pandas as pd
    except ImportError:
        uniques, codes = np.unique(qid, return_inverse=True)
        return codes.reshape(-1), uniques
    codes, uniques = pd.factorize(qid, sort=True)
    return codes.astype(np.intp, copy=False), np.asarray(uniques, dtype=qid.dtype)


def factorize_object(qid):
    """``(codes, uniques)`` for an object array of query ids, uniques unsorted.

    Missing values (None, NaN) are returned as uniques so that the caller can
    reject them with a clear message.
    """
    try:
        import pandas as pd
    except ImportError:
        first_index = {}
        codes = np.fromiter(
            (first_index.setdefault(value, len(first_index)) for value in qid.tolist()),
            dtype=np.intp,
            count=qid.shape[0],
        )
        uniques = np.empty(len(first_index), dtype=object)
        uniques[:] = list(first_index)
        return codes, uniques
    codes, uniques = pd.factorize(qid, use_na_sentinel=False)
    uniques = np.asarray(uniques, dtype=object)
    return codes.astype(np.intp, copy=False), uniques


def sort_factorization(codes, uniques):
    """Relabel ``codes`` so that ``uniques`` is sorted (as ``numpy.unique`` does)."""
    if uniques.dtype == object:
        # Same-typed values after validation: str or numbers, both orderable.
        kind = np.asarray(uniques.tolist())
        order = np.argsort(kind, kind="stable")
        uniques = kind[order]
    else:
        order = np.argsort(uniques, kind="stable")
        uniques = uniques[order]
    rank_of_code = np.empty_like(order)
    rank_of_code[order] = np.arange(order.shape[0])
    return rank_of_code[codes], uniques


def _descending_score_key(y_score):
    """int64 keys whose ascending order is the scores' descending order.

    Equal scores get equal keys (``-0.0`` and ``0.0`` included): the IEEE
    bits of a float order like a signed int for positive values and in
    reverse for negative ones, so flipping the magnitude bits of negatives
    makes the map monotone; ``~`` then reverses it.
    """
    key = (y_score + 0.0).view(np.int64)  # + 0.0 turns -0.0 into 0.0
    negative = key < 0
    key[negative] ^= np.int64(0x7FFFFFFFFFFFFFFF)
    np.invert(key, out=key)
    return key


def _bits_for(count):
    """Bits needed to hold the values 0 .. count - 1."""
    return max(1, int(count - 1).bit_length())


_BLOCK = 1 << 20  # rows per block of the blockwise loops below


def _collisions(sorted_keys, shift):
    """``collide[i]``: sorted keys ``i`` and ``i + 1`` agree above bit ``shift``.

    Two keys agree above ``shift`` iff their XOR, read unsigned, is below
    ``2**shift``. Computed block by block so the temporary stays small.
    """
    n_pairs = max(sorted_keys.shape[0] - 1, 0)
    collide = np.empty(n_pairs, dtype=bool)
    xor = np.empty(min(n_pairs, _BLOCK), dtype=np.int64)
    for first in range(0, n_pairs, _BLOCK):
        last = min(first + _BLOCK, n_pairs)
        part = xor[: last - first]
        np.bitwise_xor(sorted_keys[first + 1 : last + 1], sorted_keys[first:last], out=part)
        np.less(part.view(np.uint64), np.uint64(1 << shift), out=collide[first:last])
    return collide


def _add_row_index(keys):
    """``keys += arange(len(keys))``, in blocks to avoid a full temporary."""
    for first in range(0, keys.shape[0], _BLOCK):
        part = keys[first : first + _BLOCK]
        part += np.arange(first, first + part.shape[0], dtype=np.int64)


def _refine_collisions(collide, order, exact_key, label_key):
    """Exactly re-sort rows whose packed keys collided.

    Packing truncates the score to its high bits, so rows whose truncated
    keys collide (``collide`` from :func:`_collisions`) may be out of order
    (or, for optimistic/pessimistic ties, out of label order). Such runs are
    few for continuous scores; runs whose exact scores are all equal need
    nothing under ``ties="average"``.

    Returns ``(order, tie_free)``; ``tie_free`` is True when no two rows of
    a run have equal scores. Equal scores always collide, so then no two
    rows of one query are tied.
    """
    if not collide.any():
        return order, True
    in_run = np.zeros(order.shape[0], dtype=bool)
    in_run[1:] = collide
    in_run[:-1] |= collide
    positions = np.flatnonzero(in_run)
    run_start = np.ones(positions.shape[0], dtype=bool)
    run_start[1:] = ~collide[positions[1:] - 1]
    rows = order[positions]
    exact = exact_key[rows]
    tie_free = None  # not known yet
    if label_key is None:
        starts = np.flatnonzero(run_start)
        spread = np.maximum.reduceat(exact, starts) != np.minimum.reduceat(exact, starts)
        if not spread.all():
            tie_free = False  # a run of equal scores
            if not spread.any():
                return order, tie_free
            keep = np.repeat(spread, np.diff(np.append(starts, positions.shape[0])))
            positions, rows, exact, run_start = (
                positions[keep], rows[keep], exact[keep], run_start[keep]
            )
    run_id = np.cumsum(run_start)
    keys = (exact, run_id) if label_key is None else (label_key[rows], exact, run_id)
    exactly_sorted = np.lexsort(keys)
    order[positions] = rows[exactly_sorted]
    if tie_free is None:
        exact, run_id = exact[exactly_sorted], run_id[exactly_sorted]
        tie_free = not ((exact[1:] == exact[:-1]) & (run_id[1:] == run_id[:-1])).any()
    return order, tie_free


# Below this many bits of score precision, a packed single sort of
# contiguous queries would collide too often; two sorts are used instead.
_MIN_PACKED_SCORE_BITS = 36


def rank_order(ranking_input, ties):
    """Permutation of documents sorted by query, then by descending score.

    Returns ``(order, tie_free)``: ``tie_free`` True guarantees that no two
    documents of one query have equal scores (False means they may).

    Inside a group of tied scores the order is by descending label for
    ``ties="optimistic"`` and ascending label for ``"pessimistic"``; for
    ``"average"`` it is arbitrary (kernels treat tied documents as
    exchangeable, so the order inside a tie never matters there).

    NumPy's ``sort`` of int64 values is several times faster than
    ``argsort`` or ``lexsort``, so row indices are packed into the low bits
    of int64 keys whose high bits order the rows, and the permutation is read
    back from the sorted keys; the few rows whose truncated scores collide
    are re-sorted exactly. Operations are in place where possible: peak
    memory is about three int64 arrays of the input's length.
    """
    codes = ranking_input.query_codes
    n = codes.shape[0]
    exact_key = _descending_score_key(ranking_input.y_score)
    label_key = None
    if ties == "optimistic":
        label_key = -ranking_input.y_true
    elif ties == "pessimistic":
        label_key = ranking_input.y_true

    n_queries = ranking_input.query_ids.shape[0]
    changes = codes[1:] != codes[:-1]
    if np.count_nonzero(changes) + 1 == n_queries:
        run_starts = np.append(0, np.flatnonzero(changes) + 1)
        # Every query's rows are contiguous: one sort by (query, score),
        # packing each row's offset inside its query.
        sizes = np.diff(np.append(run_starts, n))
        local_bits = _bits_for(sizes.max())
        code_bits = _bits_for(n_queries)
        score_bits = 63 - code_bits - local_bits
        if score_bits >= _MIN_PACKED_SCORE_BITS:
            first_row = np.empty(n_queries, dtype=np.int64)
            first_row[codes[run_starts]] = run_starts
            keys = np.left_shift(codes, score_bits + local_bits, dtype=np.int64)
            truncated = np.bitwise_xor(exact_key, np.int64(-(2**63))).view(np.uint64)
            truncated >>= np.uint64(64 - score_bits)
            truncated <<= np.uint64(local_bits)
            keys |= truncated.view(np.int64)
            del truncated
            # The row's offset inside its query: its index minus the query's start.
            _add_row_index(keys)
            keys -= np.repeat(run_starts, sizes)
            keys.sort()
            collide = _collisions(keys, local_bits)
            order = first_row[keys >> (score_bits + local_bits)]
            keys &= (1 << local_bits) - 1
            order += keys
            del keys
            return _refine_collisions(collide, order, exact_key, label_key)

    # Interleaved queries: sort by score, then stably by query. The second
    # sort packs the score rank, so it is exact and stable by construction.
    index_bits = _bits_for(n)
    low_mask = np.int64((1 << index_bits) - 1)
    keys = exact_key & ~low_mask
    _add_row_index(keys)
    keys.sort()
    collide = _collisions(keys, index_bits)
    keys &= low_mask
    # Ties here are global; ties between different queries are harmless but
    # make ``tie_free`` False, which only costs an exact check later.
    by_score, tie_free = _refine_collisions(collide, keys, exact_key, label_key)
    del exact_key, collide, keys
    keys = codes[by_score]
    keys = np.left_shift(keys, index_bits, out=keys if keys.dtype == np.int64 else None)
    _add_row_index(keys)
    keys.sort()
    keys &= low_mask
    return by_score[keys], tie_free
