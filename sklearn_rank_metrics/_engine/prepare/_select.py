"""Each query's head ranked, the rest of its list left out: when every measure is cut at k.

Where every measure of a call reads only the top ``k`` of each list (with
the whole tie block at the cut) and order-free totals (see
``spec/_heads.py``), the rows below each query's head are never read, and
the chunk pass need not read them either. :func:`rank_heads` returns each
query's head only, exactly the start of its full ranking, ties at the cut
included; the order-free totals come from the label histogram, which
counts every row (``_segments.RankedQueries``). Two ways, by the layout:

- rows grouped by query: a *selection*. Each query's ``k``-th largest
  score is bounded from below in linear time (:func:`head_bounds`), and
  only the rows scored at least that bound are sorted;
- rows of queries interleaved: there the bound's two passes of scattered
  reads cost more than the packed-key sort of every row, which is kept;
  the ranking is then cut after each head (:func:`cut_after_heads`, by
  ``RankedQueries``, which knows the query sizes).
"""

import math
from typing import NamedTuple

import numpy as np

from ._arrays import BLOCK, row_blocks, run_starts
from ._sort import rank_order, rank_ranked_runs, sort_rows

# Leaving the rows below the heads out pays when the lists hold at least one
# row in this many beyond their cutoff (0: never). A query's k-th score is
# bounded from about this many cells per position of the cut (a power of
# two, at most one cell per row overall: the table stays small to read fast).
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


class RankedHeads(NamedTuple):
    """What :func:`rank_heads` returns: a ranking, of the heads or to be cut after them.

    ``order`` and ``tie_free`` as :func:`~._sort.rank_order` returns them;
    ``head_sizes``: how many rows each query's head holds, where ``order``
    holds the heads only (a selection), else None: ``order`` ranks every
    row, and may be cut after each head (:func:`cut_after_heads`, where
    :func:`heads_pay`) by the caller, who knows the query sizes.
    """

    order: object
    tie_free: bool
    head_sizes: object
    cutoff: int


def heads_pay(sizes, cutoff):
    """Whether lists of ``sizes`` hold enough rows beyond ``cutoff`` to leave them out."""
    beyond = int(np.maximum(sizes - cutoff, 0).sum())
    return bool(_MIN_LEFT_OUT_SHARE) and 0 < beyond * _MIN_LEFT_OUT_SHARE >= int(sizes.sum())


def _table_columns(sizes, cutoff):
    """``(column of each query, n_columns)`` for :func:`head_bounds`.

    Where the lists average at least twice the cutoff, every query is a
    column (None: the query codes); otherwise only the queries longer than
    the cutoff are, the others sharing a last column, never read.
    """
    n_queries = sizes.shape[0]
    if sizes.sum() >= 2 * cutoff * n_queries:
        return None, n_queries
    long_lists = sizes > cutoff
    n_long = int(np.count_nonzero(long_lists))
    columns = np.full(n_queries, n_long, dtype=np.int64)
    columns[long_lists] = np.arange(n_long)
    return columns, n_long + 1


def head_bounds(y_score, query_codes, sizes, cutoff):
    """Per query a score at most its ``cutoff``-th largest (``sizes``: rows per query).

    A query's rows are dealt into ``m >= cutoff`` cells by row index (row
    modulo ``m``); the ``cutoff`` largest cell maxima are the scores of
    ``cutoff`` different rows, so the ``cutoff``-th largest of them is at
    most the query's ``cutoff``-th largest score (the lowest value where
    fewer than ``cutoff`` cells hold a row, as in a query of fewer rows).
    Linear time: one ``maximum.at`` over the rows and one partition of the
    (cells x queries) table, which holds at most about one cell per row.
    """
    n, n_queries = y_score.shape[0], sizes.shape[0]
    columns, n_columns = _table_columns(sizes, cutoff)
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


def cut_after_heads(order, y_score, sizes, cutoff):
    """``(order, head_sizes)``: a full ranking cut after each query's head.

    ``order``: every row, query by query in code order (None: the rows as
    they are), each query's rows ranked; ``sizes``: rows per query. A head
    is the first ``cutoff`` rows and the rest of the block tied with the
    ``cutoff``-th, whose end a look past the cut, then a binary search
    where the block goes on, finds in every long list at once (a few
    gathers of one value per query).
    """
    starts = np.cumsum(sizes) - sizes
    heads = np.minimum(sizes, cutoff)
    long_lists = np.flatnonzero(sizes > cutoff)

    def ranked_scores(positions):
        return y_score[positions if order is None else order[positions]]

    first = starts[long_lists]
    kth = ranked_scores(first + cutoff - 1)
    low, high = np.full(long_lists.shape[0], cutoff), sizes[long_lists]
    # Most blocks end at the cut: one look past it, then a search where they do not.
    searching = np.flatnonzero(ranked_scores(first + cutoff) == kth)
    low[searching] += 1
    searching = searching[low[searching] < high[searching]]
    while searching.shape[0]:  # the first position not tied with the k-th (scores never rise)
        middle = (low[searching] + high[searching]) // 2
        tied = ranked_scores(first[searching] + middle) == kth[searching]
        low[searching] = np.where(tied, middle + 1, low[searching])
        high[searching] = np.where(tied, high[searching], middle)
        searching = searching[low[searching] < high[searching]]
    heads[long_lists] = low
    kept = np.arange(int(heads.sum()), dtype=np.int64)
    kept += np.repeat(starts - (np.cumsum(heads) - heads), heads)
    return (kept if order is None else order[kept]), heads


def _select_heads(y_score, y_true, query_codes, sizes, ties, cutoff):
    """``(order, tie_free, head_sizes)`` of the rows scored at least :func:`head_bounds`."""
    bounds = head_bounds(y_score, query_codes, sizes, cutoff)
    rows = _head_rows(y_score, query_codes, bounds)
    codes = query_codes[rows]
    order, tie_free = rank_order(y_score[rows], y_true[rows], codes, sizes.shape[0], ties)
    head_sizes = count_per_query(codes, sizes.shape[0])
    return rows if order is None else rows[order], tie_free, head_sizes


def rank_heads(
    y_score, y_true, query_codes, n_queries, ties, cutoff, rows_are_queries=False, score_range=None
):
    """:func:`~._sort.rank_order` of each query's head only, or of every row: :class:`RankedHeads`.

    The head of a query: its top ``cutoff`` rows with the whole tie block at
    the cut, in the order of the full ranking. Rows grouped by query, where
    the lists hold enough rows beyond the cutoff (:func:`heads_pay`), are
    selected: only the rows scored at least a bound at most the
    ``cutoff``-th largest score (:func:`head_bounds`) are sorted, which
    makes each query's head and possibly a few rows more. Otherwise every
    row is ranked (the packed-key sort, or none where the rows come ranked
    already), for the caller to cut after the heads.
    """
    n = y_score.shape[0]
    if rows_are_queries:
        starts = np.arange(0, n, max(n // max(n_queries, 1), 1), dtype=np.int64)
    else:
        starts = run_starts(query_codes, max_runs=n_queries)
    grouped = starts is not None and starts.shape[0] == n_queries
    # Rows ranked already are grouped: interleaved ones need no second look.
    ranked = rank_ranked_runs(y_score, query_codes, n_queries, ties, starts) if grouped else None
    if ranked is None and grouped:
        sizes = np.zeros(n_queries, dtype=np.int64)
        sizes[query_codes[starts]] = np.diff(np.append(starts, n))
        if heads_pay(sizes, cutoff):
            return RankedHeads(*_select_heads(y_score, y_true, query_codes, sizes, ties, cutoff),
                               cutoff)  # fmt: skip
    if ranked is None:
        ranked = sort_rows(
            y_score, y_true, query_codes, n_queries, ties, rows_are_queries, score_range
        )
    return RankedHeads(*ranked, None, cutoff)
