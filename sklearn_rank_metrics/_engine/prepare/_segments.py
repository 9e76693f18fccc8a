"""The sorted-segments representation that every metric kernel consumes.

Documents are sorted once, by query and then by descending score (see
:func:`~._sort.rank_order`). A query is a contiguous *segment*
``query_ptr[q]:query_ptr[q + 1]`` of the ranking; inside it, documents with
equal scores form contiguous *tie blocks*. Under ``ties="average"`` the
documents of a tie block are exchangeable: every ordering of them is equally
likely, so a kernel needs only per-block totals (how many relevant documents,
how much gain), the block's first position and its size - this is how exact
expected values are computed in linear time (McSherry & Najork, ECIR 2008).
Under ``"optimistic"``/``"pessimistic"`` the sort already put tied documents
in label order, under ``"first"`` in input order, and every document is a
block of its own; so it is when no two scores of a query are equal.

Kernels run on :class:`QueryChunk` pieces of whole queries, so temporaries
are sized by the chunk, not the input. Top-k metrics only look at the blocks
that start inside the cutoff, the *head* of the ranking (one class per
representation: :class:`WholeListHead`, :class:`RowHead`, :class:`BlockHead`). Nothing here
loops over queries in Python: per-query and per-block values are gathered
with ``np.repeat`` of offsets and summed over contiguous segments with
``np.add.reduceat`` (several times faster than a weighted ``np.bincount``).
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._arrays import BLOCK, run_starts
from ._select import count_per_query, cut_after_heads, heads_pay
from ._sort import rank_order, score_keys


def segment_ranks(lengths):
    """``0, 1, .., length - 1`` for every segment, concatenated."""
    total = int(lengths.sum())
    return np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def sum_segments(values, starts):
    """Sums of ``values`` over the segments ``starts[i]:starts[i + 1]`` (the last to the end).

    ``starts`` is non-decreasing; an empty segment sums to 0.
    """
    n = values.shape[0]
    sums = np.zeros(starts.shape[0])
    # Segments starting at the end are empty and trailing: leave them out, so
    # that reduceat ends each remaining segment where the next one starts.
    inside = int(np.searchsorted(starts, n))
    if inside:
        sums[:inside] = np.add.reduceat(values, starts[:inside])
        sums[:inside][np.append(starts[1:inside], n) == starts[:inside]] = 0.0
    return sums


def sequential_sum_segments(values, starts):
    """:func:`sum_segments` with each segment added left to right from 0.0, as a C loop adds.

    ``np.add.reduceat`` adds pairwise (and its first element last), which
    may differ from trec_eval's ``sum += x`` in the last bit, and so in the
    4th printed decimal where a value falls on a 5 in the 5th. Here the
    segments of similar length (up to twice as long as one another) are the
    rows of a zero-padded table, and ``np.add.accumulate`` along the rows
    adds each one in order: no loop over the documents, and no table more
    than twice the size of its values.
    """
    n = values.shape[0]
    sums = np.zeros(starts.shape[0])
    if not starts.shape[0] or starts[0] >= n:
        return sums
    values, starts = values[starts[0] :], starts - starts[0]  # values before: in no segment
    lengths = np.diff(np.append(starts, values.shape[0]))
    size_class = np.frexp(np.maximum(lengths, 1) - 1.0)[1]  # lengths in (2**(c - 1), 2**c]
    size_class[lengths == 0] = -1
    classes = np.flatnonzero(np.bincount(size_class + 1)[1:])
    for value in classes:
        chosen = np.flatnonzero(size_class == value)
        length = lengths[chosen]
        width = int(length.max())
        if classes.shape[0] == 1 and length.min() == width:
            table = values.reshape(chosen.shape[0], width)  # one length: the values as they are
        else:
            table = np.zeros((chosen.shape[0], width))
            inside = np.arange(width) < length[:, None]  # row-major: the segments in order
            table[inside] = values if classes.shape[0] == 1 else values[
                np.repeat(size_class == value, lengths)
            ]
        # One segment a column; accumulate adds the rows strictly in order.
        columns = table.T.copy()  # never a view of the caller's values
        np.add.accumulate(columns, axis=0, out=columns)
        sums[chosen] = columns[-1]
    return sums


def sum_by_group(values, groups, n_groups):
    """Per-group sums of ``values`` whose group indices ``groups`` are non-decreasing."""
    return sum_segments(values, np.searchsorted(groups, np.arange(n_groups)))


# A dense (query x label value) histogram is built while it has at most one
# cell per this many documents (plus a small constant): bounded memory.
_ROWS_PER_HISTOGRAM_CELL = 4
_SMALL_HISTOGRAM = 1 << 16
# Totals are read off the histogram this many cells at a time (small temporaries).
_CELLS_PER_BLOCK = 1 << 13


class LabelHistogram:
    """``counts[q, v]``: documents of query ``q`` with the ``v``-th label value.

    Built block by block from the input rows, without the permutation; it
    also gives each query's size. Order-free totals (relevant documents,
    ideal DCG) are read off it.
    """

    def __init__(self, query_codes, label_codes, n_queries, n_values):
        cells = n_queries * n_values
        counts = np.zeros(cells, dtype=np.int64)
        # Blocks of about n/16 rows: few bincount passes over the cells,
        # small cell-index temporaries.
        step = max(BLOCK, query_codes.shape[0] // 16)
        for start in range(0, query_codes.shape[0], step):
            cell = query_codes[start : start + step].astype(np.intp)
            cell *= n_values
            cell += label_codes[start : start + step]
            counts += np.bincount(cell, minlength=cells)
        self.counts = counts.reshape(n_queries, n_values)

    @classmethod
    def if_small(cls, query_codes, n_queries, labels):
        """The histogram, or None when it would be large or the labels have no global codes."""
        if labels.codes is None:
            return None
        n_values = labels.values.shape[0]
        limit = max(query_codes.shape[0] // _ROWS_PER_HISTOGRAM_CELL, _SMALL_HISTOGRAM)
        if n_queries * n_values > limit:
            return None
        return cls(query_codes, labels.codes, n_queries, n_values)

    def count(self, table):
        """Per query: the sum over its documents of a per-label-value quantity."""
        return self.counts @ table.values

    def query_blocks(self):
        """``[(start, stop), ...]``: query ranges of about ``_CELLS_PER_BLOCK`` cells each."""
        n_queries, n_values = self.counts.shape
        step = max(1, _CELLS_PER_BLOCK // n_values)
        return [(start, min(start + step, n_queries)) for start in range(0, n_queries, step)]

    def label_runs(self, start, stop):
        """The documents of queries ``start:stop`` grouped by label value, highest first.

        Returns ``(query, code, count)``, one entry per non-empty group, in
        query order (``query`` counted from ``start``): the order of
        :func:`~..quantities._gains.ideal_gain`'s runs.
        """
        counts = self.counts[start:stop, ::-1]
        query, reversed_code = np.nonzero(counts)
        return query, self.counts.shape[1] - 1 - reversed_code, counts[query, reversed_code]

    def max_codes(self):
        """Per query: the code of its largest label."""
        present = self.counts[:, ::-1] > 0
        return self.counts.shape[1] - 1 - np.argmax(present, axis=1)


class _Head:
    """The blocks of each query that start inside its cutoff (see the three kinds below).

    Every kind has the same attributes, each in one representation:

    query : ndarray
        Query index (in the chunk) of every head block (non-decreasing).
    offset : ndarray
        Documents ranked before the block inside its query.
    size, inside : ndarray or the int 1
        Documents in the block, and how many of its positions lie inside
        the cutoff (>= 1): the int 1 for heads of single documents.
    chunk : QueryChunk
    """

    tied = False
    size = inside = 1

    def __init__(self, chunk):
        self.chunk = chunk

    @cached_property
    def query_starts(self):
        """Index of the first head block of each query (of the next one, where it has none)."""
        return np.searchsorted(self.query, np.arange(self.chunk.n_queries))

    def sum_per_query(self, values):
        """Per-query sums of a value per head block (0 for a query without blocks)."""
        return sum_segments(values, self.query_starts)

    def flagged_per_query(self, flags):
        """``(blocks, starts)``: the head blocks where ``flags`` holds, where each query's begin.

        ``blocks[starts[q]:starts[q + 1]]`` are query ``q``'s flagged blocks.
        """
        blocks = np.flatnonzero(flags)
        return blocks, np.searchsorted(blocks, self.query_starts)

    def offsets_of(self, blocks, queries):
        """``offset[blocks]``, given the blocks' query indices ``queries``."""
        return self.offset[blocks]

    def flagged_offsets(self, blocks, starts):
        """``offset[blocks]`` of flagged blocks grouped by query (see ``flagged_per_query``)."""
        return self.offset[blocks]

    @property
    def discounts(self):
        """``1 / log2(rank + 1)`` for ranks 1, 2, ...: one table per call."""
        return self.chunk.parent.discounts


class WholeListHead(_Head):
    """Every ranked document of the chunk, each a block of its own (cutoffs cover every list).

    It is the chunk's ranking itself: ``query`` and ``offset`` are the
    chunk's per-document arrays, made only when a kernel asks for them.
    """

    @property
    def query(self):
        return self.chunk.row_query

    @property
    def offset(self):
        return self.chunk.row_offset

    @property
    def query_starts(self):
        return self.chunk.query_ptr[:-1]

    def offsets_of(self, blocks, queries):
        """Offsets from the blocks' positions: a whole-list head needs no offset array."""
        return blocks - self.query_starts[queries]

    def flagged_offsets(self, blocks, starts):
        """Offsets of flagged blocks grouped by query, from their positions."""
        counts = np.diff(np.append(starts, blocks.shape[0]))
        return blocks - np.repeat(self.query_starts, counts)

    def codes(self):
        """Label codes of the head's documents."""
        return self.chunk.ranked_codes

    def block_sum(self, per_document):
        """Sum over each head block (one document) of a LabelTable or RankedValues."""
        if isinstance(per_document, LabelTable):
            # take: twice as fast as indexing by uint8
            return per_document.values.take(self.codes())
        return per_document.values


class RowHead(_Head):
    """The top documents of each query, each a block of its own.

    ``positions`` are the head documents' positions in the chunk's ranking.
    """

    def __init__(self, chunk, positions, query, offset, query_starts):
        super().__init__(chunk)
        self.positions, self.query, self.offset = positions, query, offset
        self.query_starts = query_starts

    def codes(self):
        """Label codes of the head's documents."""
        return self.chunk.ranked_codes[self.positions]

    def block_sum(self, per_document):
        """Sum over each head block (one document) of a LabelTable or RankedValues."""
        if isinstance(per_document, LabelTable):
            return per_document.values.take(self.codes())
        return per_document.values[self.positions]


class BlockHead(_Head):
    """The tie blocks of each query that start inside its cutoff.

    ``blocks`` are their indices among the chunk's tie blocks.
    """

    tied = True

    def __init__(self, chunk, blocks, query, offset, size, inside):
        super().__init__(chunk)
        self.blocks, self.query, self.offset = blocks, query, offset
        self.size, self.inside = size, inside

    def block_sum(self, per_document):
        """Sum over each head block of a :class:`LabelTable` or :class:`RankedValues`."""
        return self.chunk.sum_over_tie_blocks(per_document)[self.blocks]


@dataclass(frozen=True)
class LabelTable:
    """A quantity per label value (relevance, gain), in the order of the label codes.

    ``function`` names it: the :class:`LabelFunction` that made it.
    """

    function: object
    values: np.ndarray


@dataclass(frozen=True)
class RankedValues:
    """A named quantity per document, in ranked order (e.g. gains scaled per query)."""

    name: str
    values: np.ndarray


class RankedQueries:
    """Documents of many queries, grouped by query and ranked by score.

    Holds the one permutation (possibly still being computed in a worker
    thread) and the per-query sizes; :meth:`chunks` cuts the ranking into
    :class:`QueryChunk` pieces of whole queries for the kernels.

    The ranking may hold each query's *head* only (``rank_heads``: where
    every measure reads no more than the top ``k`` of a list): its first
    documents, in the order of the full ranking, through the whole tie
    block at the cut. The order-free totals then come from the label
    histogram, which counts every document; without one (too many label
    values) or where a run calls :meth:`rank_whole_lists`, the whole lists
    are ranked after all.

    Parameters
    ----------
    ranking_input : RankingInput
    labels : LabelCodes
        The labels' codes into their distinct values (or None: per chunk).
    ranking : concurrent.futures.Future
        Resolves to ``(order, tie_free)`` from :func:`~._sort.rank_order`
        (``order`` None: the rows in their order), or to the
        :class:`~._select.RankedHeads` of :func:`~._select.rank_heads`.
    ties : {"average", "optimistic", "pessimistic", "first"}

    Attributes
    ----------
    label_histogram : LabelHistogram or None
        Per-query label counts, when small enough.
    query_sizes : ndarray of shape (n_queries,)
        Documents per query, ranked or not.
    ranked_sizes : ndarray of shape (n_queries,)
        Documents per query in the ranking: ``query_sizes``, or the heads' sizes.
    query_ptr : ndarray of shape (n_queries + 1,)
        Segment offsets: query ``q`` holds ranked documents
        ``order[query_ptr[q]:query_ptr[q + 1]]`` (rows ``query_ptr[q]`` to
        ``query_ptr[q + 1]`` when ``order`` is None), queries in ``query_ids`` order.
    """

    def __init__(self, ranking_input, labels, ranking, ties):
        self.input = ranking_input
        self.labels = labels
        self.ties = ties
        self._ranking = ranking
        self._whole_lists = False
        codes, n_queries = ranking_input.query_codes, ranking_input.n_queries
        self.label_histogram = LabelHistogram.if_small(codes, n_queries, labels)
        if self.label_histogram is None:
            self.query_sizes = count_per_query(codes, n_queries)
        else:
            self.query_sizes = self.label_histogram.counts.sum(axis=1)
        self._label_tables = {}

    def rank_whole_lists(self):
        """Rank every document, not only the heads (before the chunks read the ranking)."""
        self._whole_lists = True
        self.__dict__.pop("_ranked", None)

    @cached_property
    def _ranked(self):
        """``(order, tie_free, ranked_sizes, query_ptr)``, once the sort is done."""
        ranked = self._ranking.result()
        order, tie_free = ranked[:2]
        sizes = self.query_sizes
        if len(ranked) > 2:  # rank_heads: the heads, or every row to be cut after them
            whole = self._whole_lists or self.label_histogram is None
            if ranked.head_sizes is not None and whole:
                data = self.input
                order, tie_free = rank_order(
                    data.y_score, data.y_true, data.query_codes, data.n_queries, self.ties,
                    data.rows_are_queries, data.score_range,
                )  # fmt: skip
            elif ranked.head_sizes is not None:
                sizes = ranked.head_sizes
            elif not whole and heads_pay(sizes, ranked.cutoff):
                order, sizes = cut_after_heads(order, self.input.y_score, sizes, ranked.cutoff)
        query_ptr = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=query_ptr[1:])
        return order, tie_free, sizes, query_ptr

    @property
    def order(self):
        return self._ranked[0]

    @property
    def tie_free(self):
        return self._ranked[1]

    @property
    def ranked_sizes(self):
        return self._ranked[2]

    @property
    def query_ptr(self):
        return self._ranked[3]

    @property
    def n_documents(self):
        """Documents in the ranking."""
        return int(self.query_ptr[-1])

    @property
    def n_queries(self):
        return self.query_sizes.shape[0]

    @cached_property
    def discounts(self):
        """``discounts[i] = 1 / log2(i + 2)``: the DCG discount of rank ``i + 1``.

        One logarithm per rank of the longest list, looked up by the kernels
        (a logarithm per document costs several times a lookup).
        """
        return 1.0 / np.log2(np.arange(2.0, self.query_sizes.max() + 2.0))

    @cached_property
    def discount_cumsum(self):
        """``C[j] = sum of the discounts of ranks 1 .. j``, ``C[0] = 0``."""
        return np.concatenate(([0.0], np.cumsum(self.discounts)))

    def label_table(self, function, values):
        """``function(values)`` as a :class:`LabelTable`, memoized for the global label values.

        ``function`` is a hashable :class:`LabelFunction`: equal functions share a table.
        """
        if values is not self.labels.values:
            return LabelTable(function, function(values))
        if function not in self._label_tables:
            self._label_tables[function] = LabelTable(function, function(values))
        return self._label_tables[function]

    def chunk_bounds(self, max_rows):
        """``[(start, stop), ...]``: query ranges of about ``max_rows`` documents each.

        A query longer than ``max_rows`` is a chunk of its own. Chunks are
        made from their bounds only when processed (:class:`QueryChunk`), so
        that the arrays each one caches are freed with it.
        """
        targets = np.arange(0, self.n_documents, max_rows)
        first_query = np.unique(np.searchsorted(self.query_ptr, targets, side="right") - 1)
        # Queries with nothing ranked (judged queries a run missed) come last
        # and are in no chunk: their ranked quantities are those of an empty list.
        ranked = np.flatnonzero(self.query_sizes)
        n_ranked = int(ranked[-1]) + 1 if ranked.shape[0] else 0
        bounds = np.append(first_query, n_ranked).tolist()
        return list(zip(bounds[:-1], bounds[1:]))


class QueryChunk:
    """The ranked documents of the queries ``start:stop`` of a :class:`RankedQueries`.

    Attributes
    ----------
    start, stop : int
        Query range in the parent.
    order : ndarray
        The chunk's slice of the parent's ranking (input row indices).
    query_sizes : ndarray of shape (n_queries,)
        Ranked documents of each query: its list, or its head where only
        heads are ranked (the same top ``k`` either way).
    query_ptr : ndarray of shape (n_queries + 1,)
        Segment offsets inside ``order``.
    """

    def __init__(self, parent, start, stop):
        self.parent = parent
        self.start, self.stop = start, stop
        row_start, row_stop = parent.query_ptr[start], parent.query_ptr[stop]
        order = parent.order  # None: the rows are ranked as they are
        self.order = np.arange(row_start, row_stop) if order is None else order[row_start:row_stop]
        self.query_sizes = parent.ranked_sizes[start:stop]
        self.query_ptr = parent.query_ptr[start : stop + 1] - row_start
        self.ties = parent.ties
        self._tie_sums = {}

    @property
    def n_documents(self):
        return self.order.shape[0]

    @property
    def n_queries(self):
        return self.query_sizes.shape[0]

    # ------------------------------------------------------ the ranked arrays
    @cached_property
    def _coded_labels(self):
        """``(ranked codes, values)``: global codes, or this chunk's own."""
        labels = self.parent.labels
        if labels.codes is not None:
            return labels.codes[self.order], labels.values
        values, codes = np.unique(self.parent.input.y_true[self.order], return_inverse=True)
        return codes.reshape(-1), values.astype(labels.value_dtype)

    @property
    def ranked_codes(self):
        """Label codes in ranked order; ``label_values[code]`` is the label."""
        return self._coded_labels[0]

    @property
    def label_values(self):
        """The sorted distinct label values the codes index."""
        return self._coded_labels[1]

    def label_table(self, function):
        """A per-label-value quantity ``function(label_values)`` as a :class:`LabelTable`."""
        return self.parent.label_table(function, self.label_values)

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
        return np.add.reduceat(np.asarray(ranked_values, dtype=np.float64), self.query_ptr[:-1])

    def per_query_max(self, ranked_values):
        """Maximum per query of ``ranked_values`` given in ranked order."""
        return np.maximum.reduceat(ranked_values, self.query_ptr[:-1])

    # -------------------------------------------------------------- tie blocks
    @cached_property
    def score_tie_ptr(self):
        """Offsets of the runs of equal scores inside queries (true ties)."""
        keys = score_keys(self.parent.input.y_score[self.order])
        return np.append(run_starts(self.row_query, keys), self.n_documents)

    @cached_property
    def blocks_are_rows(self):
        """True when every exchangeable block is a single document."""
        if self.ties != "average" or self.parent.tie_free:
            return True
        return self.score_tie_ptr.shape[0] - 1 == self.n_documents

    def sum_over_tie_blocks(self, per_document):
        """Sum over each tie block of a LabelTable or RankedValues, cached by its name."""
        is_table = isinstance(per_document, LabelTable)
        key = per_document.function if is_table else per_document.name
        if key not in self._tie_sums:
            ranked = (
                per_document.values.take(self.ranked_codes) if is_table else per_document.values
            )
            self._tie_sums[key] = np.add.reduceat(ranked, self.score_tie_ptr[:-1])
        return self._tie_sums[key]

    def head(self, cutoffs):
        """The head: blocks starting inside each query's cutoff.

        A :class:`WholeListHead` or a :class:`RowHead` when every block is a
        single document, else a :class:`BlockHead`.
        """
        if self.blocks_are_rows:
            if (cutoffs >= self.query_sizes).all():
                return WholeListHead(self)
            lengths = np.minimum(cutoffs, self.query_sizes)
            query = np.repeat(np.arange(self.n_queries), lengths)
            offset = segment_ranks(lengths)
            positions = self.query_ptr[query] + offset
            return RowHead(self, positions, query, offset, np.cumsum(lengths) - lengths)
        block_start = self.score_tie_ptr[:-1]
        block_query = self.row_query[block_start]
        offset = block_start - self.query_ptr[block_query]
        blocks = np.flatnonzero(offset < cutoffs[block_query])
        query, offset = block_query[blocks], offset[blocks]
        size = np.diff(self.score_tie_ptr)[blocks]
        inside = np.minimum(size, cutoffs[query] - offset)
        return BlockHead(self, blocks, query, offset, size, inside)
