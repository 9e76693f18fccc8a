"""Per-query values of every metric, from ranked segments and per-query totals.

A metric is split in two:

- *ranked quantities*: what depends on the order of the documents - the
  expected (discounted) gain or hits in the top k, the reciprocal rank, the
  precision sum of AP, the hit probability, the pair counts of rank
  correlation. Kernels compute them chunk by chunk over the ranking
  (:meth:`Evaluation.compute`), all requested quantities in one pass per
  chunk, sharing heads and block sums;
- *totals* that do not: the number of relevant documents, the ideal DCG, the
  list lengths. They are summed once over the input rows.

A metric's ``finalize`` function then combines the two into a
:class:`QueryValues`. :func:`~sklearn_rank_metrics.evaluate` and the public
functions share all of this, so one sort serves any number of metrics.
"""

from dataclasses import dataclass

import numpy as np

from . import _kernels
from . import _threads as _parallel


@dataclass
class QueryValues:
    """Per-query values, which queries have no relevant document, pooling weights."""

    values: np.ndarray
    no_relevant: np.ndarray | None = None
    pool_weights: np.ndarray | None = None
    undefined_reason: str | None = None


# ------------------------------------------------------ ranked quantities
# A quantity is a tuple (kind, k, parameter); its kernel maps
# (chunk, evaluation, chunk_cache, k, parameter) to per-query values of the
# chunk (an array, or a dict of arrays).


def _cached(cache, key, compute):
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _chunk_head(chunk, cache, k):
    return _cached(cache, ("head", k), lambda: chunk.head(_chunk_cutoffs(chunk, k)))


def _whole_list_key(chunk, k):
    """None when ``k`` covers every list of the chunk, so such heads are shared."""
    return None if k is None or k >= chunk.query_sizes.max() else k


def _chunk_cutoffs(chunk, k):
    if k is None:
        return chunk.query_sizes.astype(np.int64)
    return np.full(chunk.n_queries, k, dtype=np.int64)


def _chunk_block_sum(chunk, cache, k, name, per_label):
    """Sum of a per-label quantity over the head blocks (shared in the chunk)."""
    k = _whole_list_key(chunk, k)
    head = _chunk_head(chunk, cache, k)
    return _cached(cache, ("block_sum", k, name), lambda: head.block_sum(per_label)), head


def _chunk_block_relevant(chunk, evaluation, cache, k):
    return _chunk_block_sum(chunk, cache, k, "relevant", evaluation.relevant_labels)


def _gain_at_k(chunk, evaluation, cache, k, discounted):
    block_gain, head = _chunk_block_sum(chunk, cache, k, "gain", evaluation.label_gain)
    return _kernels.expected_gain_at_k(head, block_gain, discounted=discounted)


def _hits_at_k(chunk, evaluation, cache, k, _):
    block_relevant, head = _chunk_block_relevant(chunk, evaluation, cache, k)
    return _kernels.expected_gain_at_k(head, block_relevant, discounted=False)


def _reciprocal_rank(chunk, evaluation, cache, k, _):
    block_relevant, head = _chunk_block_relevant(chunk, evaluation, cache, k)
    return _kernels.expected_reciprocal_rank(head, block_relevant, _chunk_cutoffs(chunk, k))


def _hit(chunk, evaluation, cache, k, _):
    block_relevant, head = _chunk_block_relevant(chunk, evaluation, cache, k)
    return _kernels.hit_probability(head, block_relevant)


def _precision_sum(chunk, evaluation, cache, k, _):
    block_relevant, head = _chunk_block_relevant(chunk, evaluation, cache, k)
    return _kernels.expected_precision_sum(head, block_relevant)


def _hits_at_r(chunk, evaluation, cache, k, _):
    # R-precision's cutoff is each query's number of relevant documents.
    cutoffs = evaluation.total_relevant[chunk.start : chunk.stop].astype(np.int64)
    if chunk.blocks_are_rows:
        # Single-document blocks: count relevant documents ranked above R
        # in the whole-list head that other metrics share.
        block_relevant, head = _chunk_block_relevant(chunk, evaluation, cache, None)
        inside = head.offset < cutoffs[head.query]
        return np.bincount(head.query, weights=block_relevant * inside, minlength=chunk.n_queries)
    head = chunk.head(cutoffs)
    return _kernels.expected_gain_at_k(
        head, head.block_sum(evaluation.relevant_labels), discounted=False
    )


def _pair_counts(chunk, evaluation, cache, k, kendall):
    # Kendall's tau-b corrects for true score ties itself, whatever ``ties`` says.
    if kendall:
        tied = not chunk.parent.tie_free and chunk.score_tie_ptr.shape[0] <= chunk.n_documents
    else:
        tied = not chunk.blocks_are_rows
    return _kernels.pairwise_counts(chunk, chunk.score_tie_ptr if tied else None)


_QUANTITY_KERNELS = {
    "gain_at_k": _gain_at_k,
    "hits": _hits_at_k,
    "reciprocal_rank": _reciprocal_rank,
    "hit": _hit,
    "precision_sum": _precision_sum,
    "hits_at_r": _hits_at_r,
    "pairs": _pair_counts,
}


class Evaluation:
    """One ranking and the options shared by every metric computed on it.

    Parameters
    ----------
    rq : RankedQueries
    gain : {"linear", "exponential"}
    relevance_level : float
    n_relevant : ndarray of shape (n_queries,) or None
        Given totals of relevant documents, -1 where not given.
    """

    def __init__(self, rq, *, gain="linear", relevance_level=1.0, n_relevant=None):
        self.rq = rq
        self.gain = gain
        self.relevance_level = relevance_level
        self.n_relevant = n_relevant
        self._totals = {}
        self._ranked = {}

    def _total(self, key, compute):
        return _cached(self._totals, key, compute)

    # ------------------------------------------------------- order-free totals
    @property
    def relevant_labels(self):
        """1.0 for each label value that is relevant (>= relevance_level), else 0.0."""
        values = self.rq.label_histogram_codes[1]
        return self._total(
            "relevant_labels", lambda: (values >= self.relevance_level).astype(np.float64)
        )

    @property
    def label_gain(self):
        """Gain of each label value."""
        values = self.rq.label_histogram_codes[1]
        if self.gain == "exponential":
            return self._total("label_gain", lambda: np.exp2(values) - 1.0)
        return values

    @property
    def total_relevant(self):
        """Relevant documents per query: in the list, or ``n_relevant`` where given."""
        return self._total("total_relevant", self._count_total_relevant)

    def _count_total_relevant(self):
        rq = self.rq
        level = self.relevance_level
        in_list = rq.count_labels(lambda labels: labels >= level)
        if self.n_relevant is None:
            return in_list
        given = self.n_relevant >= 0
        too_few = given & (self.n_relevant < in_list)
        if too_few.any():
            q = int(np.flatnonzero(too_few)[0])
            raise ValueError(
                f"n_relevant[{rq.query_ids[q]!r}] = {int(self.n_relevant[q])} is below the "
                f"{int(in_list[q])} relevant documents (label >= {self.relevance_level:g}) "
                "in that query's list; n_relevant counts all relevant documents, listed "
                "or not."
            )
        return np.where(given, self.n_relevant, in_list)

    @property
    def no_gain(self):
        """Queries whose labels are all 0 (ideal DCG and CG are 0)."""
        return self._total("no_gain", lambda: self.rq.count_labels(lambda labels: labels > 0) == 0)

    def ideal_gain(self, k):
        """Ideal DCG@k of every query."""

        def compute():
            return _kernels.ideal_gain_at_k(
                self.rq, self.label_gain, self.rq.cutoffs(k), discounted=True
            )

        return self._total(("ideal", k), compute)

    # --------------------------------------------------- ranked quantities
    def compute(self, quantities):
        """Compute the ranked quantities not yet known, all in one pass over chunks."""
        todo = [q for q in dict.fromkeys(quantities) if q not in self._ranked]
        if not todo:
            return
        # Order-free inputs of the kernels, computed once before chunks share them.
        _ = self.relevant_labels, self.label_gain, self.total_relevant

        def compute_chunk(chunk):
            cache = {}
            return {
                quantity: _QUANTITY_KERNELS[quantity[0]](chunk, self, cache, *quantity[1:])
                for quantity in todo
            }

        chunks = list(self.rq.chunks())
        per_chunk = _parallel.map_ordered(compute_chunk, chunks, parallel=self.rq.parallel)
        n_queries = self.rq.n_queries
        for quantity in todo:
            parts = {}
            for chunk, values in zip(chunks, per_chunk):
                value = values[quantity]
                for name, part in (value.items() if isinstance(value, dict) else [(None, value)]):
                    if name not in parts:
                        parts[name] = np.empty(n_queries)
                    parts[name][chunk.start : chunk.stop] = part
            self._ranked[quantity] = parts[None] if None in parts else parts

    def ranked(self, quantity):
        return self._ranked[quantity]


# --------------------------------------------------------------- metrics
# Each metric: ``needs(k, **options)`` lists its ranked quantities and
# ``finalize(evaluation, k, **options)`` turns them into QueryValues.


def _safe_ratio(numerator, denominator):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


@dataclass(frozen=True)
class MetricComputation:
    needs: object
    finalize: object
    uses_ideal_gain: bool = False


def _dcg(ev, k):
    return QueryValues(ev.ranked(("gain_at_k", k, True)), no_relevant=ev.no_gain)


def _ndcg(ev, k):
    ideal = ev.ideal_gain(k)
    return QueryValues(_safe_ratio(ev.ranked(("gain_at_k", k, True)), ideal), ideal == 0)


def _cg(ev, k):
    return QueryValues(ev.ranked(("gain_at_k", k, False)), no_relevant=ev.no_gain)


def _binary(kind, combine):
    """A metric that combines one binary ranked quantity with the relevant totals."""

    def finalize(ev, k, **options):
        total = ev.total_relevant
        values = combine(ev.ranked((kind, k, None)), total, ev.rq.cutoffs(k), ev.rq)
        if isinstance(values, QueryValues):
            values.no_relevant = total == 0
            return values
        return QueryValues(values, no_relevant=total == 0)

    return MetricComputation(lambda k, **options: [(kind, k, None)], finalize)


def _hit_rate_item(hits, total, cutoffs, rq):
    recommended = np.minimum(cutoffs, rq.query_sizes).astype(np.float64)
    return QueryValues(hits / recommended, pool_weights=recommended)


def _hit_rate_needs(k, level="query", **options):
    return [("hits" if level == "item" else "hit", k, None)]


def _hit_rate(ev, k, level="query", **options):
    computation = _HIT_RATE_ITEM if level == "item" else _HIT_RATE_QUERY
    return computation.finalize(ev, k)


def _rank_correlation(ev, k, method="rc", **options):
    counts = ev.ranked(("pairs", None, method == "kendall"))
    pairs, discordant = counts["pairs"], counts["discordant"]
    tied_score, tied_label, tied_both = (
        counts["tied_score"],
        counts["tied_label"],
        counts["tied_both"],
    )
    concordant = pairs - discordant - tied_score - tied_label + tied_both
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "kendall":
            denominator = np.sqrt((pairs - tied_score) * (pairs - tied_label))
            values = np.where(denominator > 0, (concordant - discordant) / denominator, np.nan)
            reason = "a single document, or constant labels or scores"
        else:
            # Pairs of equal label agree with every ideal ordering; pairs of
            # tied score and different label count 1/2 (the expected value).
            agreeing = tied_label + concordant + 0.5 * (tied_score - tied_both)
            values = np.where(pairs > 0, agreeing / pairs, np.nan)
            reason = "a single document"
    return QueryValues(values, undefined_reason=reason)


_HIT_RATE_QUERY = _binary("hit", lambda hit, total, cutoffs, rq: hit)
_HIT_RATE_ITEM = _binary("hits", _hit_rate_item)

COMPUTATIONS = {
    "dcg": MetricComputation(lambda k, **o: [("gain_at_k", k, True)], lambda ev, k, **o: _dcg(ev, k)),
    "ndcg": MetricComputation(
        lambda k, **o: [("gain_at_k", k, True)], lambda ev, k, **o: _ndcg(ev, k), True
    ),
    "cg": MetricComputation(lambda k, **o: [("gain_at_k", k, False)], lambda ev, k, **o: _cg(ev, k)),
    "mrr": _binary("reciprocal_rank", lambda rr, total, cutoffs, rq: rr),
    "map": _binary("precision_sum", lambda ps, total, cutoffs, rq: _safe_ratio(ps, total)),
    "precision": _binary("hits", lambda hits, total, cutoffs, rq: hits / cutoffs),
    "recall": _binary("hits", lambda hits, total, cutoffs, rq: _safe_ratio(hits, total)),
    # F1 = 2PR / (P + R) with P = hits/k and R = hits/total is 2 hits / (k + total):
    # linear in the hits, so the expectation under ties stays exact.
    "f1": _binary("hits", lambda hits, total, cutoffs, rq: 2.0 * hits / (cutoffs + total)),
    "recall_cap": _binary(
        "hits", lambda hits, total, cutoffs, rq: _safe_ratio(hits, np.minimum(cutoffs, total))
    ),
    "hit_rate": MetricComputation(_hit_rate_needs, _hit_rate),
    "r_precision": _binary("hits_at_r", lambda hits, total, cutoffs, rq: _safe_ratio(hits, total)),
    "rank_correlation": MetricComputation(
        lambda k, method="rc", **o: [("pairs", None, method == "kendall")], _rank_correlation
    ),
}  # fmt: skip


def compute_metrics(evaluation, requests):
    """Per-query values of several metrics on one evaluation.

    ``requests`` is a list of ``(computation_name, k, options)``; all ranked
    quantities they need are computed in one pass over the ranking. Ideal
    DCGs, which do not depend on the order, are summed first: for large
    inputs that overlaps with the sort running in the background.
    """
    needed = []
    for name, k, options in requests:
        needed.extend(COMPUTATIONS[name].needs(k, **options))
        if COMPUTATIONS[name].uses_ideal_gain:
            evaluation.ideal_gain(k)
    evaluation.compute(needed)
    return [COMPUTATIONS[name].finalize(evaluation, k, **options) for name, k, options in requests]
