"""The sorted-segments representation that every metric kernel consumes.

Documents are sorted once, by query and then by descending score. A query is
a contiguous *segment* ``query_ptr[q]:query_ptr[q + 1]``; inside it, documents
with equal scores form contiguous *tie blocks*. Under ``ties="average"`` the
documents of a tie block are exchangeable: every ordering of them is equally
likely, so a kernel needs only per-block totals (how many relevant documents,
how much gain) and the block's first position and size - this is how exact
expected values are computed in linear time (McSherry & Najork, ECIR 2008).
Under ``"optimistic"``/``"pessimistic"`` the sort already put tied documents
in label order, and every document is a block of its own.

Nothing here loops over queries in Python: per-query and per-block values are
gathered with ``np.repeat`` of offsets and summed with ``np.bincount``.
"""

from functools import cached_property

import numpy as np

from ._grouping import rank_order


def _run_starts(*sorted_keys):
    """Indices where any of the (already sorted) keys changes, plus 0."""
    n = sorted_keys[0].shape[0]
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for key in sorted_keys:
        change[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(change)


def _with_end(starts, n):
    return np.append(starts, n).astype(np.intp, copy=False)


class RankedQueries:
    """Documents of many queries, grouped by query and ranked by score.

    Parameters
    ----------
    ranking_input : RankingInput
        Validated input from :func:`check_ranking_input`.
    ties : {"average", "optimistic", "pessimistic"}
        How documents with equal scores are ordered.

    Attributes
    ----------
    labels, scores : ndarray of shape (n_documents,)
        Labels and scores in ranked order.
    query_ptr : ndarray of shape (n_queries + 1,)
        Segment offsets: query ``q`` holds ranked documents
        ``query_ptr[q]:query_ptr[q + 1]``. Queries are in ``query_ids`` order.
    query_ids : ndarray of shape (n_queries,)
        Sorted unique query ids.
    query_weights : ndarray of shape (n_queries,) or None
    """

    def __init__(self, ranking_input, ties):
        order = rank_order(ranking_input, ties)
        self.ties = ties
        self.labels = ranking_input.y_true[order]
        self.scores = ranking_input.y_score[order]
        self.query_ids = ranking_input.query_ids
        self.query_weights = ranking_input.query_weights
        sizes = np.bincount(ranking_input.query_codes, minlength=len(self.query_ids))
        self.query_ptr = np.zeros(len(sizes) + 1, dtype=np.intp)
        np.cumsum(sizes, out=self.query_ptr[1:])

    # ----------------------------------------------------------------- queries
    @property
    def n_documents(self):
        return self.labels.shape[0]

    @property
    def n_queries(self):
        return self.query_ptr.shape[0] - 1

    @cached_property
    def query_sizes(self):
        return np.diff(self.query_ptr)

    @cached_property
    def row_query(self):
        """Query index of every ranked document."""
        return np.repeat(np.arange(self.n_queries), self.query_sizes)

    @cached_property
    def position(self):
        """1-based rank of every document inside its query."""
        return np.arange(1, self.n_documents + 1) - np.repeat(self.query_ptr[:-1], self.query_sizes)

    def per_query_sum(self, row_values):
        """Sum a per-document array over each query."""
        return np.bincount(self.row_query, weights=row_values, minlength=self.n_queries)

    def cutoffs(self, k):
        """Cutoff per query: ``k``, or the list length for ``k=None``."""
        if k is None:
            return self.query_sizes.astype(np.int64)
        return np.full(self.n_queries, k, dtype=np.int64)

    # -------------------------------------------------------------- tie blocks
    @cached_property
    def score_tie_ptr(self):
        """Offsets of runs of equal scores inside queries (true ties)."""
        row_query = self.row_query
        return _with_end(_run_starts(row_query, self.scores), self.n_documents)

    @cached_property
    def block_ptr(self):
        """Offsets of the exchangeable blocks the kernels average over."""
        if self.ties == "average":
            return self.score_tie_ptr
        return np.arange(self.n_documents + 1, dtype=np.intp)

    @property
    def n_blocks(self):
        return self.block_ptr.shape[0] - 1

    @cached_property
    def has_ties(self):
        return self.n_blocks < self.n_documents

    @cached_property
    def block_size(self):
        return np.diff(self.block_ptr)

    @cached_property
    def block_query(self):
        """Query index of every block."""
        return self.row_query[self.block_ptr[:-1]]

    @cached_property
    def block_offset(self):
        """Documents ranked before the block inside its query (0-based start)."""
        return self.position[self.block_ptr[:-1]] - 1

    @cached_property
    def row_block(self):
        """Block index of every ranked document."""
        if not self.has_ties:
            return np.arange(self.n_documents)
        return np.repeat(np.arange(self.n_blocks), self.block_size)

    def per_block_sum(self, row_values):
        """Sum a per-document array over each block."""
        if not self.has_ties:
            return np.asarray(row_values, dtype=np.float64)
        return np.add.reduceat(np.asarray(row_values, dtype=np.float64), self.block_ptr[:-1])

    def per_query_sum_of_blocks(self, block_values):
        """Sum a per-block array over each query."""
        return np.bincount(self.block_query, weights=block_values, minlength=self.n_queries)

    def block_positions_within(self, cutoffs):
        """How many positions of each block lie inside its query's cutoff."""
        inside = cutoffs[self.block_query] - self.block_offset
        return np.clip(inside, 0, self.block_size)
