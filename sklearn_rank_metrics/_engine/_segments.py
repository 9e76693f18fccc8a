"""The sorted-segments representation that every metric kernel consumes.

Documents are sorted once, by query and then by descending score (see
:func:`~sklearn_rank_metrics._grouping.rank_order`). A query is a contiguous
*segment* ``query_ptr[q]:query_ptr[q + 1]`` of the ranking; inside it,
documents with equal scores form contiguous *tie blocks*. Under
``ties="average"`` the documents of a tie block are exchangeable: every
ordering of them is equally likely, so a kernel needs only per-block totals
(how many relevant documents, how much gain), the block's first position and
its size - this is how exact expected values are computed in linear time
(McSherry & Najork, ECIR 2008). Under ``"optimistic"``/``"pessimistic"`` the
sort already put tied documents in label order, and every document is a
block of its own; so it is when no two scores of a query are equal.

Top-k metrics only look at the blocks that start inside the cutoff, the
:class:`Head` of the ranking. Totals that do not depend on the order (the
number of relevant documents, the label histogram behind the ideal DCG) are
summed over the input rows as they came, without the permutation.

Nothing here loops over queries in Python: per-query and per-block values
are gathered with ``np.repeat`` of offsets and summed with ``np.bincount``.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import _threads as _parallel
from ._sort import rank_order

# Labels that are whole numbers up to this value are their own histogram
# bins; others are factorized.
_MAX_DIRECT_LABEL = 4096


def run_starts(*sorted_keys):
    """Indices where any of the (already sorted) keys changes, plus 0."""
    n = sorted_keys[0].shape[0]
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for key in sorted_keys:
        change[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(change)


def segment_ranks(lengths):
    """``0, 1, .., length - 1`` for every segment, concatenated."""
    total = int(lengths.sum())
    return np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)


@dataclass
class Head:
    """The blocks of each query that start inside its cutoff.

    ``size`` and ``inside`` are the scalar 1 when every block is a single
    document (NumPy broadcasts them), which saves two arrays on the common
    tie-free path.

    Attributes
    ----------
    query : ndarray
        Query index of every head block (non-decreasing).
    offset : ndarray
        Documents ranked before the block inside its query.
    size : ndarray or 1
        Documents in the block.
    inside : ndarray or 1
        How many of the block's positions lie inside the cutoff (>= 1).
    """

    query: np.ndarray
    offset: np.ndarray
    size: object
    inside: object
    _positions: np.ndarray | None  # blocks are rows: ranked position, None for all
    _blocks: np.ndarray | None  # tie blocks: index of every head block
    _rq: object
    _query_starts: np.ndarray | None = None

    def query_starts(self):
        """Index of the first head block of every query that has one."""
        if self._query_starts is None:
            self._query_starts = np.flatnonzero(np.diff(self.query, prepend=-1))
        return self._query_starts

    def block_sum(self, per_label):
        """Sum over each head block of a per-label-value quantity.

        ``per_label[v]`` is the quantity (relevance, gain) of label value
        ``v`` of ``label_histogram_codes``; looking it up from the ranked
        label codes replaces a random gather from an input-length array.
        """
        if self._blocks is not None:
            return self._rq.sum_over_tie_blocks(per_label)[self._blocks]
        codes = self._rq.ranked_codes
        if self._positions is not None:
            codes = codes[self._positions]
        return per_label[codes]


# Kernels run on chunks of whole queries of about this many documents, so
# their temporaries stay small (memory linear in the rows, with a small
# constant) and fit the allocator's reusable heap instead of fresh pages.
CHUNK_ROWS = 1 << 17


class RankedQueries:
    """Documents of many queries, grouped by query and ranked by score.

    Holds the one permutation and what does not depend on it (per-query
    totals over the input rows); :meth:`chunks` cuts the ranking into
    :class:`QueryChunk` pieces of whole queries for the kernels.

    Parameters
    ----------
    ranking_input : RankingInput
        Validated input from :func:`check_ranking_input`.
    ties : {"average", "optimistic", "pessimistic"}
        How documents with equal scores are ordered.

    Attributes
    ----------
    order : ndarray of shape (n_documents,)
        The ranking: input rows sorted by query, then by descending score.
    query_ptr : ndarray of shape (n_queries + 1,)
        Segment offsets: query ``q`` holds ranked documents
        ``order[query_ptr[q]:query_ptr[q + 1]]``, queries in ``query_ids`` order.
    query_ids : ndarray of shape (n_queries,)
        Sorted unique query ids.
    query_weights : ndarray of shape (n_queries,) or None
    """

    def __init__(self, ranking_input, ties):
        self.ties = ties
        # The sort runs in the background for large inputs; totals that do
        # not depend on the order can be summed meanwhile.
        self.parallel = _parallel.use_threads(ranking_input.y_true.shape[0])
        self._ranking = _parallel.submit(
            rank_order, ranking_input, ties, parallel=self.parallel
        )
        self.y_true = ranking_input.y_true
        self.y_score = ranking_input.y_score
        self.query_codes = ranking_input.query_codes
        self.query_ids = ranking_input.query_ids
        self.query_weights = ranking_input.query_weights
        self.query_sizes = np.bincount(self.query_codes, minlength=len(self.query_ids))
        self.query_ptr = np.zeros(len(self.query_sizes) + 1, dtype=np.int64)
        np.cumsum(self.query_sizes, out=self.query_ptr[1:])

    @property
    def order(self):
        return self._ranking.result()[0]

    @property
    def tie_free(self):
        return self._ranking.result()[1]

    @property
    def n_documents(self):
        return self.y_true.shape[0]

    @property
    def n_queries(self):
        return self.query_sizes.shape[0]

    def cutoffs(self, k):
        """Cutoff per query: ``k``, or the list length for ``k=None``."""
        if k is None:
            return self.query_sizes.astype(np.int64)
        return np.full(self.n_queries, k, dtype=np.int64)

    @cached_property
    def label_histogram_codes(self):
        """``(codes, values)``: ``values[codes] == y_true``, values ascending."""
        labels = self.y_true
        top = labels.max()
        if top <= _MAX_DIRECT_LABEL and (labels == np.floor(labels)).all():
            codes = labels.astype(np.uint8 if top < 256 else np.int16)
            return codes, np.arange(int(top) + 1, dtype=np.float64)
        values, codes = np.unique(labels, return_inverse=True)
        return codes.reshape(-1), values

    @cached_property
    def label_histogram(self):
        """``counts[q, v]``: documents of query ``q`` with label ``values[v]``.

        None when there are too many distinct labels for a dense table
        (more cells than a few times the documents).
        """
        codes, values = self.label_histogram_codes
        n_values = values.shape[0]
        if self.n_queries * n_values > 4 * self.n_documents + (1 << 20):
            return None
        cell = self.query_codes * n_values
        cell += codes
        counts = np.bincount(cell, minlength=self.n_queries * n_values)
        return counts.reshape(self.n_queries, n_values)

    def count_labels(self, select):
        """Documents per query whose label satisfies ``select(label)``."""
        histogram = self.label_histogram
        if histogram is not None:
            values = self.label_histogram_codes[1]
            return histogram[:, select(values)].sum(axis=1).astype(np.float64)
        return np.bincount(self.query_codes, weights=select(self.y_true), minlength=self.n_queries)

    def chunks(self, max_rows=None):
        """Cut the ranking into :class:`QueryChunk` pieces of whole queries.

        Each chunk holds about ``max_rows`` (default ``CHUNK_ROWS``)
        documents, or one query where a query is longer.
        """
        targets = np.arange(0, self.n_documents, max_rows or CHUNK_ROWS)
        first_query = np.unique(np.searchsorted(self.query_ptr, targets, side="right") - 1)
        bounds = np.append(first_query, self.n_queries)
        for start, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            yield QueryChunk(self, start, stop)


class QueryChunk:
    """The ranked documents of the queries ``start:stop`` of a :class:`RankedQueries`.

    Attributes
    ----------
    start, stop : int
        Query range in the parent.
    order : ndarray
        The chunk's slice of the parent's ranking (input row indices).
    query_ptr : ndarray of shape (n_queries + 1,)
        Segment offsets inside ``order``.
    """

    def __init__(self, parent, start, stop):
        self.parent = parent
        self.start, self.stop = start, stop
        row_start, row_stop = parent.query_ptr[start], parent.query_ptr[stop]
        self.order = parent.order[row_start:row_stop]
        self.query_sizes = parent.query_sizes[start:stop]
        self.query_ptr = parent.query_ptr[start : stop + 1] - row_start
        self.ties = parent.ties
        self._tie_sums = {}

    @property
    def n_documents(self):
        return self.order.shape[0]

    @property
    def n_queries(self):
        return self.query_sizes.shape[0]

    @property
    def label_histogram_codes(self):
        return self.parent.label_histogram_codes

    # ------------------------------------------------------ the ranked arrays
    @cached_property
    def ranked_codes(self):
        """Label codes (see ``label_histogram_codes``) in ranked order."""
        return self.parent.label_histogram_codes[0][self.order]

    @cached_property
    def row_query(self):
        """Query index (within the chunk) of every ranked document."""
        return np.repeat(np.arange(self.n_queries), self.query_sizes)

    @cached_property
    def row_offset(self):
        """Documents ranked before each document inside its query (0-based rank)."""
        return segment_ranks(self.query_sizes)

    def per_query_sum(self, ranked_values):
        """Sum per query of ``ranked_values`` given in ranked order."""
        return np.bincount(self.row_query, weights=ranked_values, minlength=self.n_queries)

    # -------------------------------------------------------------- tie blocks
    @cached_property
    def score_tie_ptr(self):
        """Offsets of the runs of equal scores inside queries (true ties)."""
        scores = self.parent.y_score[self.order]
        starts = np.zeros(self.n_documents, dtype=bool)
        starts[0] = True
        starts[1:] = scores[1:] != scores[:-1]
        starts[self.query_ptr[:-1]] = True
        return np.append(np.flatnonzero(starts), self.n_documents)

    @cached_property
    def blocks_are_rows(self):
        """True when every exchangeable block is a single document."""
        if self.ties != "average" or self.parent.tie_free:
            return True
        return self.score_tie_ptr.shape[0] - 1 == self.n_documents

    def sum_over_tie_blocks(self, per_label):
        """Sum of a per-label-value quantity over each tie block (memoized)."""
        key = id(per_label)
        if key not in self._tie_sums:
            ranked = per_label[self.ranked_codes]
            self._tie_sums[key] = (per_label, np.add.reduceat(ranked, self.score_tie_ptr[:-1]))
        return self._tie_sums[key][1]

    def head(self, cutoffs):
        """The :class:`Head`: blocks starting inside each query's cutoff."""
        if self.blocks_are_rows:
            if (cutoffs >= self.query_sizes).all():
                return Head(
                    self.row_query, self.row_offset, 1, 1, None, None, self, self.query_ptr[:-1]
                )  # fmt: skip
            lengths = np.minimum(cutoffs, self.query_sizes)
            query = np.repeat(np.arange(self.n_queries), lengths)
            offset = segment_ranks(lengths)
            positions = self.query_ptr[query] + offset
            starts = (np.cumsum(lengths) - lengths)[lengths > 0]
            return Head(query, offset, 1, 1, positions, None, self, starts)
        block_start = self.score_tie_ptr[:-1]
        block_query = self.row_query[block_start]
        offset = block_start - self.query_ptr[block_query]
        blocks = np.flatnonzero(offset < cutoffs[block_query])
        query, offset = block_query[blocks], offset[blocks]
        size = np.diff(self.score_tie_ptr)[blocks]
        inside = np.minimum(size, cutoffs[query] - offset)
        return Head(query, offset, size, inside, None, blocks, self)
