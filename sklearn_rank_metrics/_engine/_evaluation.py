"""Per-query quantities of one ranking, computed in one pass over chunks of queries.

A metric (see :mod:`._definitions`) combines *quantities*, named by tuples
such as ``("hits", 10)``:

- *ranked* quantities depend on the order of the documents: expected
  (discounted) gain or hits in the top k, the reciprocal rank, the precision
  sum of AP, the hit probability, the pair counts of rank correlation. Their
  kernels (:mod:`._kernels`) run chunk by chunk over the ranking, all
  requested quantities in one pass per chunk, sharing heads and block sums;
- *order-free* totals do not: the relevant documents in each list, whether
  a query has any gain, the ideal DCG. When the (query x label value)
  histogram is small (see :class:`~._segments.LabelHistogram`), they come from
  it, while the sort may still run in another thread; otherwise each chunk
  computes them from its own ranked labels.

Chunks are independent, so they run on the call's thread pool when there is
one; results do not depend on the number of threads or the chunk size.
"""

import numpy as np

from . import _kernels
from ._factorize import BLOCK
from ._segments import QueryChunk
from ._validation import plain

# NDCG is computed with per-query scaled gains when an unscaled DCG could
# exceed this (float64 overflows at about 2**1024).
_MAX_UNSCALED_GAIN_TOTAL = 2.0**1000


def gain_function(gain):
    """The gain of a label value: itself, or ``2**label - 1``."""
    if gain == "linear":
        return lambda values: values.astype(np.float64, copy=True)

    def exponential(values):
        with np.errstate(over="ignore"):
            return np.exp2(values) - 1.0

    return exponential


class _ChunkWork:
    """One chunk's computations, sharing heads, block sums and totals among quantities."""

    def __init__(self, chunk, evaluation):
        self.chunk = chunk
        self.evaluation = evaluation
        self.cache = {}

    def cached(self, key, compute):
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def cutoffs(self, k):
        return self.evaluation.cutoffs(k)[self.chunk.start : self.chunk.stop]

    def _head_key(self, k):
        """None when ``k`` covers every list of the chunk, so such heads are shared."""
        return None if k is None or k >= self.chunk.query_sizes.max() else k

    def head(self, k):
        key = self._head_key(k)
        return self.cached(("head", key), lambda: self.chunk.head(self.cutoffs(key)))

    def table(self, name):
        return self.chunk.label_table(name, self.evaluation.label_functions[name])

    def block_sum(self, k, quantity):
        """``(sum of quantity over each head block, head)``, shared in the chunk."""
        head = self.head(k)
        name = getattr(quantity, "name", id(quantity))
        key = ("block_sum", self._head_key(k), name)
        return self.cached(key, lambda: head.block_sum(quantity)), head

    def relevant_positions(self, k):
        """``(relevant, starts)`` of a head of single documents: where its relevant ones are.

        Codes are ordered as the labels, so relevance (label >= level) is a
        comparison of the ranked codes with the first relevant code.
        """
        key = self._head_key(k)

        def compute():
            head = self.head(key)
            first_relevant = np.searchsorted(self.chunk.label_values, self.evaluation.relevance_level)
            return head.flagged_per_query(head.codes() >= first_relevant)

        return self.cached(("relevant_positions", key), compute)

    def total(self, kind):
        """An order-free total of this chunk's queries: global if known, else from the chunk."""
        known = self.evaluation.known_totals.get(kind)
        if known is not None:
            return known[self.chunk.start : self.chunk.stop]
        return self.cached(("total", kind), lambda: _KERNELS[kind[0]](self, *kind[1:]))

    def total_relevant(self):
        """Relevant documents per query: in the list, or ``n_relevant`` where given."""
        in_list = self.total(("relevant",))
        given = self.evaluation.n_relevant
        if given is None:
            return in_list
        given = given[self.chunk.start : self.chunk.stop]
        return np.where(given >= 0, given, in_list)

    def scaled_gains(self):
        """Per-document gains divided by a power of two per query, in ranked order.

        The power is that of the query's largest gain, so no sum overflows;
        scaling by a power of two is exact, so NDCG is unchanged.
        """
        return self.cached("scaled_gains", lambda: self._scaled(self.chunk.ranked_codes))

    def _scaled(self, codes):
        chunk = self.chunk
        values = chunk.label_values
        exponent = self.cached(
            "gain_exponent",
            lambda: self.evaluation.gain_exponent(values[chunk.per_query_max(chunk.ranked_codes)]),
        )[chunk.row_query]
        labels = values[codes]
        if self.evaluation.gain == "exponential":
            return np.exp2(labels - exponent) - np.exp2(-exponent.astype(np.float64))
        return np.ldexp(labels, -exponent)


# ---------------------------------------------------------------- kernels
# Each maps (work, *parameters) to per-query values of the chunk (an array,
# or a dict of arrays for the pair counts).


def _gain_at_k(work, k, discounted, scaled):
    quantity = work.scaled_gains() if scaled else work.table("gain")
    # Unscaled gains may overflow: DCG and CG raise an error for a non-finite value.
    with np.errstate(over="ignore", invalid="ignore"):
        block_gain, head = work.block_sum(k, quantity)
        return _kernels.expected_gain_at_k(head, block_gain, discounted=discounted)


def _hits(work, k):
    if not work.head(k).tied:
        return _kernels.relevant_counts(*work.relevant_positions(k))
    block_relevant, head = work.block_sum(k, work.table("relevant"))
    return _kernels.expected_gain_at_k(head, block_relevant, discounted=False)


def _reciprocal_rank(work, k):
    head = work.head(k)
    if not head.tied:
        return _kernels.first_relevant_reciprocal_rank(head, *work.relevant_positions(k))
    block_relevant, head = work.block_sum(k, work.table("relevant"))
    return _kernels.expected_reciprocal_rank(head, block_relevant, work.cutoffs(k))


def _hit(work, k):
    if not work.head(k).tied:
        return (_kernels.relevant_counts(*work.relevant_positions(k)) > 0).astype(np.float64)
    block_relevant, head = work.block_sum(k, work.table("relevant"))
    return _kernels.hit_probability(head, block_relevant)


def _precision_sum(work, k):
    head = work.head(k)
    if not head.tied:
        return _kernels.relevant_precision_sum(head, *work.relevant_positions(k))
    block_relevant, head = work.block_sum(k, work.table("relevant"))
    return _kernels.expected_precision_sum(head, block_relevant)


def _hits_at_r(work):
    # R-precision's cutoff is each query's number of relevant documents.
    cutoffs = work.total_relevant().astype(np.int64)
    chunk = work.chunk
    if chunk.blocks_are_rows:
        # Single documents: count the relevant ones ranked above R, from the
        # relevant positions of the whole lists that other metrics share.
        head = work.head(None)
        return _kernels.relevant_ranked_before(head, *work.relevant_positions(None), cutoffs)
    head = chunk.head(cutoffs)
    return _kernels.expected_gain_at_k(
        head, head.block_sum(work.table("relevant")), discounted=False
    )


def _pair_counts(work, kendall):
    chunk = work.chunk
    # Kendall's tau-b corrects for true score ties itself, whatever ``ties`` says.
    if kendall:
        tied = not chunk.parent.tie_free and chunk.score_tie_ptr.shape[0] <= chunk.n_documents
    else:
        tied = not chunk.blocks_are_rows
    return _kernels.pairwise_counts(chunk, chunk.score_tie_ptr if tied else None)


def _relevant_in_list(work):
    return work.chunk.per_query_sum(work.table("relevant").values.take(work.chunk.ranked_codes))


def _has_gain(work):
    chunk = work.chunk
    return chunk.label_values[chunk.per_query_max(chunk.ranked_codes)] > 0


def _ideal_gain(work, k, scaled):
    """DCG@k of each query's documents sorted by decreasing label, from the chunk."""
    chunk = work.chunk
    codes = chunk.ranked_codes.astype(np.int64)
    n_codes = int(codes.max()) + 1
    # Sorting (query, reversed code) keeps each query's segment in place.
    key = chunk.row_query * n_codes + (n_codes - 1 - codes)
    key.sort()
    best = n_codes - 1 - key % n_codes
    gains = work._scaled(best) if scaled else work.table("gain").values[best]
    inside = chunk.row_offset < work.cutoffs(k)[chunk.row_query]
    discounts = chunk.parent.discounts[chunk.row_offset]
    return chunk.per_query_sum(np.where(inside, gains * discounts, 0.0))


_KERNELS = {
    "gain": _gain_at_k,
    "hits": _hits,
    "reciprocal_rank": _reciprocal_rank,
    "hit": _hit,
    "precision_sum": _precision_sum,
    "hits_at_r": _hits_at_r,
    "pairs": _pair_counts,
    "relevant": _relevant_in_list,
    "has_gain": _has_gain,
    "ideal": _ideal_gain,
}


ORDER_FREE = ("relevant", "has_gain", "ideal")


def _compute_quantity(quantity, work):
    if quantity[0] in ORDER_FREE:
        return work.total(quantity)  # shared with kernels that need it in the chunk
    kind, *parameters = quantity
    return _KERNELS[kind](work, *parameters)


class Evaluation:
    """One ranking and the options shared by every metric computed on it.

    Parameters
    ----------
    ranked_queries : RankedQueries
    gain : {"linear", "exponential"}
    relevance_level : float
    n_relevant : ndarray of shape (n_queries,) or None
        Given totals of relevant documents, -1 where not given.
    pool : concurrent.futures.Executor or None
        The call's threads for the chunk pass.
    chunk_rows : int
        About how many documents a chunk of queries holds.
    """

    def __init__(self, ranked_queries, *, gain, relevance_level, n_relevant, pool, chunk_rows):
        self.rq = ranked_queries
        self.gain = gain
        self.relevance_level = relevance_level
        self.n_relevant = n_relevant
        self.pool = pool
        self.chunk_rows = chunk_rows
        self.label_functions = {
            "gain": gain_function(gain),
            "relevant": lambda values: (values >= relevance_level).astype(np.float64),
            "positive": lambda values: (values > 0).astype(np.float64),
        }
        self.known_totals = {}
        self._values = {}
        self._cutoffs = {}

    def cutoffs(self, k):
        """Cutoff per query: ``k``, or the list length for ``k=None`` (one array per ``k``)."""
        if k is None:
            return self.rq.query_sizes
        if k not in self._cutoffs:
            self._cutoffs[k] = np.full(self.rq.n_queries, k, dtype=np.int64)
        return self._cutoffs[k]

    @property
    def needs_scaled_gains(self):
        """Whether an unscaled DCG could overflow float64 (so NDCG scales per query)."""
        top = self.rq.labels.top
        largest_gain = self.label_functions["gain"](np.array([top]))[0]
        with np.errstate(over="ignore"):
            return not largest_gain * self.rq.query_sizes.max() < _MAX_UNSCALED_GAIN_TOTAL

    def gain_exponent(self, max_labels):
        """Per query: the exponent of a power of two at least its largest gain (0 for no gain)."""
        if self.gain == "exponential":
            return np.ceil(max_labels).astype(np.int64)
        return np.frexp(max_labels)[1].astype(np.int64)

    def precompute_order_free(self, quantities):
        """Sum the order-free totals the quantities need from the label histogram, if small.

        Runs before the chunk pass, while the sort may still be running.
        """
        # Scaled ideal gains need each query's largest label: left to the chunks.
        wanted = [q for q in quantities if q[0] in ORDER_FREE and q[-1:] != (True,)]
        if not wanted:
            return
        histogram = self.rq.label_histogram
        if histogram is None:
            return
        values = self.rq.labels.values
        for quantity in dict.fromkeys(wanted):
            kind = quantity[0]
            if kind == "relevant":
                total = histogram.count(self.rq.label_table("relevant", self.label_functions["relevant"], values))
            elif kind == "has_gain":
                total = histogram.count(self.rq.label_table("positive", self.label_functions["positive"], values)) > 0
            else:
                table = self.rq.label_table("gain", self.label_functions["gain"], values)
                total = histogram.ideal_gain(table, self.cutoffs(quantity[1]), self.rq.discount_cumsum)
            self.known_totals[quantity] = total

    def compute(self, quantities):
        """Compute the quantities not yet known, all in one pass over the chunks."""
        todo = []
        for quantity in dict.fromkeys(quantities):
            if quantity in self.known_totals:
                self._values[quantity] = self.known_totals[quantity]
            elif quantity not in self._values:
                todo.append(quantity)
        if not todo:
            return

        def compute_chunk(bounds):
            work = _ChunkWork(QueryChunk(self.rq, *bounds), self)
            return {quantity: _compute_quantity(quantity, work) for quantity in todo}

        bounds = self.rq.chunk_bounds(self.chunk_rows)
        if self.pool is None:
            per_chunk = [compute_chunk(chunk) for chunk in bounds]
        else:
            per_chunk = list(self.pool.map(compute_chunk, bounds))
        n_queries = self.rq.n_queries
        for quantity in todo:
            parts = {}
            # Every quantity is a float per query but "has_gain", a bool. The
            # dtype is not taken from a chunk's part: a kernel may return ints
            # for a chunk where it had nothing to add up.
            dtype = bool if quantity[0] == "has_gain" else np.float64
            for (start, stop), values in zip(bounds, per_chunk):
                value = values[quantity]
                for name, part in value.items() if isinstance(value, dict) else [(None, value)]:
                    if name not in parts:
                        parts[name] = np.empty(n_queries, dtype=dtype)
                    parts[name][start:stop] = part
            self._values[quantity] = parts[None] if None in parts else parts

    def value(self, quantity):
        """The per-query values of a computed quantity."""
        return self._values[quantity]

    def total_relevant(self):
        """Relevant documents per query: in the list, or ``n_relevant`` where given.

        Raises a ValueError when ``n_relevant`` is below what the list holds.
        """
        in_list = self.value(("relevant",))
        if self.n_relevant is None:
            return in_list
        given = self.n_relevant >= 0
        too_few = given & (self.n_relevant < in_list)
        if too_few.any():
            q = int(np.flatnonzero(too_few)[0])
            raise ValueError(
                f"n_relevant[{plain(self.rq.input.query_ids[q])!r}] = {int(self.n_relevant[q])} is "
                f"below the {int(in_list[q])} relevant documents (label >= "
                f"{self.relevance_level:g}) in that query's list; n_relevant counts all "
                "relevant documents, listed or not."
            )
        return np.where(given, self.n_relevant, in_list)
