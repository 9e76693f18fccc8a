"""Score strips -> the rows a cut ranking needs: exact top-k selection, ties at the cut included.

A metric cut at ``k`` reads only the documents ranked in the top ``k`` and
two totals that do not depend on the order (how many relevant documents,
the ideal gains). So a query x item score matrix need not be sorted, nor
even held whole: for a *strip* of queries (rows), :func:`head_cells`
selects each row's top ``k`` with one ``argpartition`` (linear time, not a
sort) and completes the block of items tied with the ``k``-th score, so
that the engine sees the tie block at the cut whole: its size and its
relevant items are what ``ties="average"`` needs, and both come from the
same pass. :func:`strip_input` then adds each query's labelled items that
rank below its head (they carry R and the ideal DCG, and their own scores,
which are lower) and makes the strip a flat :class:`RankingInput` that the
engine evaluates as it would the whole matrix, query for query bit for bit.

Excluded cells (a recommender's training interactions) are set to ``-inf``
in the strip, which is the caller's own copy, and never selected.
"""

from dataclasses import dataclass

import numpy as np

from ._arrays import code_dtype
from ._validation import RankingInput, plain

# A strip's scores (and what its selection adds) take at most this many
# bytes: a bounded working set whatever the catalogue, yet blocks of queries
# large enough for matrix products to run near full speed (107 queries of a
# million float32 scores).
STRIP_BYTES = 1 << 29
STRIP_SCORES = 1 << 24  # the cells a strip spreads over the call's threads at least


def strip_rows(n_items, itemsize=4, k=None):
    """How many queries a strip of ``n_items`` scores each holds (at least one).

    ``itemsize``: the bytes of a score. Where rows are selected by a
    partition (narrow rows, ``k`` beyond a threshold's reach, or none), the
    partition's int64 indices count too.
    """
    n_items = max(int(n_items), 1)
    per_cell = itemsize + (1 if k is not None and _sample_step(k, n_items) > 1 else 8)
    return max(1, STRIP_BYTES // (n_items * per_cell))


@dataclass(frozen=True)
class Heads:
    """The selected cells of one strip, sorted by row and then column.

    ``rows`` are local to the strip. ``valid`` counts the items of each row
    that were not excluded (the ranked list's length).
    """

    rows: np.ndarray
    columns: np.ndarray
    valid: np.ndarray


def _finite_or_raise(values, first_row, rows, owner):
    """Raise, naming the query, where a selected score is NaN or infinite."""
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(rows[np.argmax(bad)])
        raise ValueError(
            f"{owner}: the scores of query (row) {plain(first_row + row)} include NaN or "
            "infinite values (an overflow of the similarity, or NaN in the vectors); make "
            "them finite."
        )


def head_cells(scores, k, n_excluded=None, *, first_row=0, owner="evaluate"):
    """Each row's top ``k`` cells with the whole tie block at the cut: :class:`Heads`.

    ``scores``: a (rows, n_items) float strip without NaN (the callers
    check), ``-inf`` at excluded cells (``n_excluded`` per row; None: none).
    ``k`` None: every cell not excluded. A row's head holds every cell whose
    score is at least its ``k``-th largest, so a tie block straddling
    position ``k`` is there entirely. Wide rows are cut by a threshold
    (:func:`_sampled_heads`), the others, and the rows a threshold does not
    settle, by a partition (:func:`_partitioned_heads`). ``first_row``
    numbers the queries in errors.
    """
    n_rows, n_items = scores.shape
    valid = np.full(n_rows, n_items, dtype=np.int64)
    if n_excluded is not None:
        valid -= n_excluded
    if k is None or k >= n_items:
        keep = scores > -np.inf if n_excluded is not None else np.ones(scores.shape, bool)
        rows, columns = np.nonzero(keep)
        _finite_or_raise(scores[rows, columns], first_row, rows, owner)
        return Heads(rows, columns, valid)
    step = _sample_step(k, n_items)
    if step == 1:
        rows, columns = _partitioned_heads(scores, k, valid, first_row, owner)
        return Heads(rows, columns, valid)
    rows, columns, unsettled = _sampled_heads(scores, k, step)
    _finite_or_raise(scores[rows, columns], first_row, rows, owner)
    if unsettled.shape[0]:
        more_rows, more_columns = _partitioned_heads(
            scores[unsettled], k, valid[unsettled], first_row, owner, row_numbers=unsettled
        )
        rows = np.concatenate([rows, unsettled[more_rows]])
        columns = np.concatenate([columns, more_columns])
        order = np.argsort(rows, kind="stable")  # each part is sorted by row, then column
        rows, columns = rows[order], columns[order]
    return Heads(rows, columns, valid)


# A threshold from every STEP-th score is used where rows hold at least this
# many times k items: below, a partition of the row costs about as much.
_SAMPLED_WIDTH = 32
_MAX_STEP = 16
_OVERSHOOT = 3  # the threshold aims at about 3 (k + 1) candidates per row


def _sample_step(k, n_items):
    """The stride of the sample a threshold is taken from (1: no threshold, partition)."""
    if n_items < _SAMPLED_WIDTH * (k + 1):
        return 1
    # Small k: a denser sample, so that the threshold's rank in it is >= 8 (a stable estimate).
    return int(max(1, min(_MAX_STEP, _OVERSHOOT * (k + 1) // 8)))


def _sampled_heads(scores, k, step):
    """``(rows, columns, unsettled)``: the heads a threshold settles, and the rows it does not.

    The ``j``-th largest of every ``step``-th score is about the ``j * step``-th
    largest of the row; every cell at or above it is a candidate (one
    comparison pass, no partition of the row). Where a row has at least
    ``k`` candidates, its ``k``-th largest score is among them, and so is
    every cell scoring at least that: the head, tie block included. A row
    with fewer (a threshold too high, or excluded cells) is unsettled.
    """
    n_rows = scores.shape[0]
    sample = scores[:, ::step]
    rank = min(sample.shape[1], -(-_OVERSHOOT * (k + 1) // step))
    threshold = np.partition(sample, sample.shape[1] - rank, axis=1)[:, sample.shape[1] - rank]
    threshold = np.maximum(threshold, np.nextafter(-np.inf, 0, dtype=scores.dtype))  # not -inf
    rows, columns = marked_cells(scores >= threshold[:, None])
    values = scores[rows, columns]
    counts = np.bincount(rows, minlength=n_rows)
    # Settled: k candidates or more, and not so many (a wide tie) that the table below grows.
    settled = (counts >= k) & (counts <= _MAX_CANDIDATES * _OVERSHOOT * (k + 1))
    kth = np.full(n_rows, np.inf, dtype=scores.dtype)
    kth[settled] = kth_largest(values, rows, counts, settled, k)
    keep = values >= kth[rows]
    return rows[keep], columns[keep], np.flatnonzero(~settled)


_MAX_CANDIDATES = 8  # times the aimed-at number: beyond, a row is left to the partition


def marked_cells(mask):
    """``(rows, columns)`` of the True cells of a 2-D boolean ``mask`` that holds few, in order.

    ``np.nonzero`` looks at every cell; here the mask is read 8 cells to a
    64-bit word, and only the words holding a True cell are opened: about a
    fifth of the time where one cell in thousands is marked.
    """
    flat = mask.reshape(-1)
    whole = flat.shape[0] - flat.shape[0] % 8
    words = np.flatnonzero(flat[:whole].view(np.uint64))
    cells = (words[:, None] * 8 + np.arange(8)).reshape(-1)
    cells = np.concatenate([cells[flat[cells]], whole + np.flatnonzero(flat[whole:])])
    return np.divmod(cells, mask.shape[1])


def kth_largest(values, rows, counts, chosen, k):
    """The ``k``-th largest of the ``values`` of each ``chosen`` row (``rows`` non-decreasing).

    One table of the chosen rows' values, padded with ``-inf`` to the
    longest, partitioned along its rows: no sort of all the values.
    """
    width = int(counts[chosen].max()) if chosen.any() else k
    table = np.full((int(chosen.sum()), width), -np.inf, dtype=values.dtype)
    taken = chosen[rows]
    first = np.cumsum(counts) - counts
    position = np.arange(rows.shape[0]) - first[rows]
    slot = np.cumsum(chosen) - 1  # the table row of each chosen row
    table[slot[rows[taken]], position[taken]] = values[taken]
    return np.partition(table, width - k, axis=1)[:, width - k]


def _partitioned_heads(scores, k, valid, first_row, owner, row_numbers=None):
    """``(rows, columns)`` of the heads by a partition of each row (``argpartition``).

    ``row_numbers``: the strip's row of each of these rows (errors name the
    query), where they are a selection of its rows.
    """
    n_rows, n_items = scores.shape
    numbers = np.arange(n_rows) if row_numbers is None else row_numbers
    # Ascending partition: the top k at the end, the (k+1)-th largest just before.
    part = np.argpartition(scores, n_items - k - 1, axis=1)
    top = part[:, n_items - k :]
    top_values = np.take_along_axis(scores, top, axis=1)
    next_value = scores[np.arange(n_rows), part[:, n_items - k - 1]]
    del part
    short = valid <= k  # fewer items left than k: the whole (unexcluded) row
    checked = top_values[~short]
    _finite_or_raise(checked, first_row, numbers[~short].repeat(k), owner)
    kth = top_values.min(axis=1)
    whole = short | (next_value == kth)  # short rows, and ties straddling the cut
    plain_rows = np.flatnonzero(~whole)
    columns = np.sort(top[plain_rows], axis=1).ravel()
    rows = np.repeat(plain_rows, k)
    if whole.any():
        tied = np.flatnonzero(whole)
        block = scores[tied]
        keep = (block >= kth[tied, None]) & (block > -np.inf)
        tied_rows, tied_columns = np.nonzero(keep)
        _finite_or_raise(block[tied_rows, tied_columns], first_row, numbers[tied[tied_rows]], owner)
        rows = np.concatenate([rows, tied[tied_rows]])
        columns = np.concatenate([columns, tied_columns])
        order = np.argsort(rows, kind="stable")  # each part is sorted by row, then column
        rows, columns = rows[order], columns[order]
    return rows, columns


def merged_keys(head_keys, label_keys):
    """The sorted union of two sorted int64 key arrays (a merge: a stable sort of two runs)."""
    keys = np.sort(np.concatenate([head_keys, label_keys]), kind="stable")
    if keys.shape[0] > 1:
        keys = keys[np.append(True, keys[1:] != keys[:-1])]
    return keys


@dataclass(frozen=True)
class StripRows:
    """One strip's flat rows: query (local row), score and label of every kept cell."""

    queries: np.ndarray
    scores: np.ndarray
    labels: np.ndarray


def strip_input(rows, first_row, n_queries, query_weights=None):
    """The :class:`RankingInput` of a strip's :class:`StripRows` (queries ``first_row ..``).

    A query the strip leaves without a row (every item excluded) ranks
    nothing: it has the value of an empty list (that of a query without a
    relevant document), and pools no document. Where no query of the strip
    has a row, one row of a query after them (``first_row + n_queries``)
    gives the engine something to rank; the caller drops that query.
    """
    queries, scores, labels = rows.queries, rows.scores, rows.labels
    ids = np.arange(first_row, first_row + n_queries)
    if not scores.shape[0]:
        queries, scores, labels = np.array([n_queries]), np.zeros(1), np.zeros(1)
        ids = np.arange(first_row, first_row + n_queries + 1)
        if query_weights is not None:
            query_weights = np.append(query_weights, 1.0)
    return RankingInput(
        y_true=labels,
        y_score=scores,
        query_codes=queries.astype(code_dtype(ids.shape[0])),
        query_ids=ids,
        query_weights=query_weights,
        rows_are_queries=False,
        score_range=(scores.min(), scores.max()),
        label_range=(labels.min(), labels.max()),
    )


def scored_strip_rows(scores, heads, labels, first_row):
    """:class:`StripRows` of a score strip: its heads and, below them, its labelled items.

    ``labels``: the :class:`~._sparse.Pairs` of y_true (excluded cells
    already dropped). Labelled items outside a head keep their own (lower)
    scores, so they rank below it as in the whole matrix; every row keeps
    the input order of the matrix (by column), which ``ties="first"`` reads.
    """
    n_rows, n_items = scores.shape
    head_keys = (heads.rows.astype(np.int64) + first_row) * n_items + heads.columns
    start, end = labels.row_bounds(first_row, first_row + n_rows)
    keys = merged_keys(head_keys, labels.keys[start:end])
    local = keys // n_items - first_row
    columns = keys % n_items
    return StripRows(local, scores[local, columns], labels.lookup(keys, 0))
