"""The selection path: each query's head ranked, without sorting the rest of its list.

Where every measure of a call reads only the top ``k`` of each list (with
the whole tie block at the cut) and order-free totals (see
``spec/_heads.py``), the rows below each query's head are never read. So
:func:`rank_heads` bounds each query's ``k``-th largest score from below in
linear time (:func:`head_bounds`), keeps the rows scored at least that
bound, and sorts only those with :func:`~._sort.rank_order`: each query's
head, exactly the start of its full ranking, ties at the cut included. The
order-free totals come from the label histogram, which counts every row
(``_segments.RankedQueries``).
"""

import math

import numpy as np

from ._arrays import BLOCK, row_blocks
from ._sort import rank_order, rank_ranked_runs, sort_rows

# Selecting each query's head pays when the lists hold at least one row in
# this many beyond their cutoff (0: never). A query's cutoff is bounded from
# about this many cells per position of the cut (a power of two, at most one
# cell per row overall: the table stays small enough to be read fast).
_MIN_LEFT_OUT_SHARE = 4
_CELLS_PER_CUT = 1.5


def count_per_query(query_codes, n_queries):
    """Documents per query, counted block by block (no full-size intp copy)."""
    counts = np.zeros(n_queries, dtype=np.int64)
    for start in range(0, query_codes.shape[0], BLOCK):
        counts += np.bincount(query_codes[start : start + BLOCK], minlength=n_queries)
    return counts


def _lowest(dtype):
    """The smallest value of ``dtype``: every score is at least that."""
    if dtype.kind == "f":
        return -np.inf
    return False if dtype.kind == "b" else np.iinfo(dtype).min


def _table_columns(query_codes, n_queries, cutoff):
    """``(column of each query or None, n_columns)`` for :func:`head_bounds`; None: no pay.

    Where the lists average at least twice the cutoff, every query is a
    column (None: the query codes); otherwise only the queries longer than
    the cutoff are (the others share a last column, never read), and None
    when they hold too few rows beyond it for a selection to pay.
    """
    n = query_codes.shape[0]
    if not _MIN_LEFT_OUT_SHARE:
        return None
    if n >= 2 * cutoff * n_queries:
        return None, n_queries
    sizes = count_per_query(query_codes, n_queries)
    long_lists = sizes > cutoff
    n_long = int(np.count_nonzero(long_lists))
    beyond = int(sizes[long_lists].sum()) - n_long * cutoff
    if not n_long or beyond * _MIN_LEFT_OUT_SHARE < n:
        return None
    columns = np.full(n_queries, n_long, dtype=np.int64)
    columns[long_lists] = np.arange(n_long)
    return columns, n_long + 1


def head_bounds(y_score, query_codes, n_queries, cutoff):
    """Per query a score at most its ``cutoff``-th largest, or None where that would not pay.

    A query's rows are dealt into ``m >= cutoff`` cells by row index (row
    modulo ``m``); the ``cutoff`` largest cell maxima are the scores of
    ``cutoff`` different rows, so the ``cutoff``-th largest of them is at
    most the query's ``cutoff``-th largest score (the lowest value where
    fewer than ``cutoff`` cells hold a row, as in a query of fewer rows).
    Linear time: one ``maximum.at`` over the rows and one partition of the
    (cells x queries) table, which holds at most about one cell per row.
    """
    n = y_score.shape[0]
    found = _table_columns(query_codes, n_queries, cutoff)
    if found is None:
        return None
    columns, n_columns = found
    n_cells = 1 << math.ceil(math.log2(_CELLS_PER_CUT * cutoff))
    n_cells = max(cutoff, min(n_cells, n // n_columns))
    # Row r of a block starting at s is in cell (s + r) % n_cells: its table
    # row's offset, read off a pattern at the block's phase.
    pattern = np.arange(BLOCK + n_cells, dtype=np.int64) % n_cells * n_columns
    lowest = _lowest(y_score.dtype)
    table = np.full(n_cells * n_columns, lowest, dtype=y_score.dtype)
    for start, stop in row_blocks(n):
        codes = query_codes[start:stop]
        phase = start % n_cells
        cell = pattern[phase : phase + stop - start] + (codes if columns is None else columns[codes])
        np.maximum.at(table, cell, y_score[start:stop])
    table = table.reshape(n_cells, n_columns).T.copy()  # a query's cells contiguous
    kth = np.partition(table, n_cells - cutoff, axis=1)[:, n_cells - cutoff]
    if columns is None:
        return kth
    bounds = np.full(n_queries, lowest, dtype=y_score.dtype)
    long_lists = columns < n_columns - 1
    bounds[long_lists] = kth[columns[long_lists]]
    return bounds


def _head_rows(y_score, query_codes, bounds):
    """The rows whose score is at least their query's bound, in row order."""
    found = []
    for start, stop in row_blocks(y_score.shape[0]):
        kept = y_score[start:stop] >= bounds[query_codes[start:stop]]
        found.append(np.flatnonzero(kept) + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def rank_heads(
    y_score, y_true, query_codes, n_queries, ties, cutoff, rows_are_queries=False, score_range=None
):
    """:func:`rank_order` of each query's head only, where ``cutoff`` leaves out enough rows.

    The head of a query: its rows scored at least a bound at most its
    ``cutoff``-th largest score (:func:`head_bounds`), so its top ``cutoff``
    with the whole tie block at the cut, and possibly a few rows more. Those
    rows, and only those, are sorted (by :func:`rank_order`, which keeps the
    input order inside ties), so each query's head is exactly the start of
    its full ranking. Returns ``(order, tie_free, head_sizes)``: ``order``
    the heads' rows, query by query, and ``head_sizes`` how many rows each
    query's head holds. Where a selection would not pay (rows ranked
    already, few rows beyond the cutoffs), :func:`rank_order`'s
    ``(order, tie_free)`` of every row.
    """
    ranked = rank_ranked_runs(y_score, query_codes, n_queries, ties)
    if ranked is not None:
        return ranked
    bounds = head_bounds(y_score, query_codes, n_queries, cutoff) if n_queries else None
    if bounds is None:
        return sort_rows(
            y_score, y_true, query_codes, n_queries, ties, rows_are_queries, score_range
        )
    rows = _head_rows(y_score, query_codes, bounds)
    codes = query_codes[rows]
    order, tie_free = rank_order(y_score[rows], y_true[rows], codes, n_queries, ties)
    head_sizes = count_per_query(codes, n_queries)
    return rows if order is None else rows[order], tie_free, head_sizes
