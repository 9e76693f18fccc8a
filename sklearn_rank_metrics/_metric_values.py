"""Per-query values of every metric, computed from ranked segments.

Each ``*_values`` function takes the shared :class:`RankedQueries`, the
cutoff ``k`` and the :class:`MetricOptions`, and returns a
:class:`QueryValues`: the per-query values, which queries have no relevant
document (for the ``no_relevant`` convention) and, for pooled means, the
per-query pooling weights. The public functions and
:func:`~sklearn_rank_metrics.evaluate` share these, so one sort serves any
number of metrics.
"""

from dataclasses import dataclass, field

import numpy as np

from . import _kernels


@dataclass(frozen=True)
class MetricOptions:
    gain: str = "linear"
    relevance_level: float = 1.0
    n_relevant: np.ndarray | None = None  # per query, -1 = use the count in the list
    level: str = "query"
    method: str = "rc"


@dataclass
class QueryValues:
    values: np.ndarray
    no_relevant: np.ndarray | None = None
    pool_weights: np.ndarray | None = None
    undefined_reason: str | None = None


@dataclass
class _Relevance:
    block_relevant: np.ndarray
    total: np.ndarray


@dataclass
class Memo:
    """Intermediate arrays shared by the metrics computed on one ranking."""

    store: dict = field(default_factory=dict)

    def get(self, key, compute):
        if key not in self.store:
            self.store[key] = compute()
        return self.store[key]


def _relevance(rq, options, memo):
    def compute():
        relevant_rows = (rq.labels >= options.relevance_level).astype(np.float64)
        in_list = rq.per_query_sum(relevant_rows)
        total = in_list
        if options.n_relevant is not None:
            given = options.n_relevant >= 0
            too_few = given & (options.n_relevant < in_list)
            if too_few.any():
                q = int(np.flatnonzero(too_few)[0])
                raise ValueError(
                    f"n_relevant[{rq.query_ids[q]!r}] = {int(options.n_relevant[q])} is "
                    f"below the {int(in_list[q])} relevant documents (label >= "
                    f"{options.relevance_level:g}) in that query's list; n_relevant counts "
                    "all relevant documents, listed or not."
                )
            total = np.where(given, options.n_relevant, in_list)
        return _Relevance(rq.per_block_sum(relevant_rows), total)

    return memo.get(("relevance", options.relevance_level, id(options.n_relevant)), compute)


def _row_gain(rq, options, memo):
    def compute():
        if options.gain == "exponential":
            return np.exp2(rq.labels) - 1.0
        return rq.labels

    return memo.get(("gain", options.gain), compute)


def _no_gain(rq, memo):
    return memo.get("no_gain", lambda: rq.per_query_sum(rq.labels > 0) == 0)


def _expected_hits(rq, k, options, memo):
    relevance = _relevance(rq, options, memo)

    def compute():
        return _kernels.expected_gain_at_k(
            rq, relevance.block_relevant, rq.cutoffs(k), discounted=False
        )

    # Hits depend on the block sums, i.e. on relevance_level, not on n_relevant.
    return memo.get(("hits", k, options.relevance_level), compute), relevance


def _safe_ratio(numerator, denominator):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


def dcg_values(rq, k, options, memo):
    gain = _row_gain(rq, options, memo)
    dcg = memo.get(
        ("dcg", k, options.gain),
        lambda: _kernels.expected_gain_at_k(rq, gain, rq.cutoffs(k), discounted=True),
    )
    return QueryValues(dcg, no_relevant=_no_gain(rq, memo))


def ndcg_values(rq, k, options, memo):
    dcg = dcg_values(rq, k, options, memo).values
    gain = _row_gain(rq, options, memo)
    ideal = _kernels.ideal_gain_at_k(rq, gain, rq.cutoffs(k), discounted=True)
    return QueryValues(_safe_ratio(dcg, ideal), no_relevant=ideal == 0)


def cg_values(rq, k, options, memo):
    gain = _row_gain(rq, options, memo)
    cg = _kernels.expected_gain_at_k(rq, gain, rq.cutoffs(k), discounted=False)
    return QueryValues(cg, no_relevant=_no_gain(rq, memo))


def mrr_values(rq, k, options, memo):
    relevance = _relevance(rq, options, memo)
    rr = _kernels.expected_reciprocal_rank(rq, relevance.block_relevant, rq.cutoffs(k))
    return QueryValues(rr, no_relevant=relevance.total == 0)


def map_values(rq, k, options, memo):
    relevance = _relevance(rq, options, memo)
    precision_sum = _kernels.expected_precision_sum(rq, relevance.block_relevant, rq.cutoffs(k))
    return QueryValues(_safe_ratio(precision_sum, relevance.total), relevance.total == 0)


def precision_values(rq, k, options, memo):
    hits, relevance = _expected_hits(rq, k, options, memo)
    return QueryValues(hits / rq.cutoffs(k), no_relevant=relevance.total == 0)


def recall_values(rq, k, options, memo):
    hits, relevance = _expected_hits(rq, k, options, memo)
    return QueryValues(_safe_ratio(hits, relevance.total), no_relevant=relevance.total == 0)


def f1_values(rq, k, options, memo):
    # F1 = 2PR / (P + R) with P = hits/k and R = hits/total is 2 hits / (k + total):
    # linear in hits, so the expectation under ties stays exact.
    hits, relevance = _expected_hits(rq, k, options, memo)
    return QueryValues(
        2.0 * hits / (rq.cutoffs(k) + relevance.total), no_relevant=relevance.total == 0
    )


def recall_cap_values(rq, k, options, memo):
    hits, relevance = _expected_hits(rq, k, options, memo)
    capped = np.minimum(rq.cutoffs(k), relevance.total)
    return QueryValues(_safe_ratio(hits, capped), no_relevant=relevance.total == 0)


def hit_rate_values(rq, k, options, memo):
    if options.level == "item":
        hits, relevance = _expected_hits(rq, k, options, memo)
        recommended = np.minimum(rq.cutoffs(k), rq.query_sizes).astype(np.float64)
        return QueryValues(hits / recommended, relevance.total == 0, pool_weights=recommended)
    relevance = _relevance(rq, options, memo)
    hit = _kernels.hit_probability(rq, relevance.block_relevant, rq.cutoffs(k))
    return QueryValues(hit, no_relevant=relevance.total == 0)


def r_precision_values(rq, k, options, memo):
    relevance = _relevance(rq, options, memo)
    cutoffs = relevance.total.astype(np.int64)
    hits = _kernels.expected_gain_at_k(rq, relevance.block_relevant, cutoffs, discounted=False)
    return QueryValues(_safe_ratio(hits, relevance.total), no_relevant=relevance.total == 0)


def rank_correlation_values(rq, k, options, memo):
    kendall = options.method == "kendall"
    # Kendall's tau-b corrects for true score ties itself, whatever ``ties`` says.
    block_ptr = rq.score_tie_ptr if kendall else rq.block_ptr
    counts = memo.get(("pairs", kendall), lambda: _kernels.pairwise_counts(rq, block_ptr))
    pairs, discordant = counts["pairs"], counts["discordant"]
    tied_score, tied_label, tied_both = (
        counts["tied_score"],
        counts["tied_label"],
        counts["tied_both"],
    )
    concordant = pairs - discordant - tied_score - tied_label + tied_both
    with np.errstate(divide="ignore", invalid="ignore"):
        if kendall:
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
