"""The computations of metrics of binary relevance, label pairs and counts.

Precision, recall, MAP and the other metrics of one ranked quantity
combined with the relevant totals (:class:`Binary` and its combiners),
rank correlations from pair counts, trec_eval's counts, set utility,
R-precision at a multiple of R, rank-biased precision and interpolated
precision. Each says which quantities a request needs (a function of the
request and the call's :class:`~._request.PlanContext`) and how their
per-query values combine. The parameters these measures declare (RBP's
``p``, the recall level, ...) are here, next to the computations that read
them.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..quantities import (
    Counted,
    CountInList,
    GeometricGain,
    Hits,
    HitsAtR,
    InterpolatedPrecision,
    MaxLabel,
    PairCounts,
    RelevantInList,
    multiple_of_r,
    repeated_powers,
)
from ._definition import Computation, Parameter, QueryValues
from ._gains import ratio

# ------------------------------------------------------ declared parameters
# RBP's persistence: 0.9 (Moffat and Zobel's example, trec_eval's rbp);
# ir_measures' RBP takes 0.8 where its name does not say, so that syntax's
# names keep ir_measures' numbers.
PERSISTENCE = Parameter(
    "p",
    "a persistence in (0, 1)",
    default=0.9,
    check=lambda p: 0 < p < 1,
    syntax_defaults=(("ir_measures", 0.8),),
)
RBP_GAINS = Parameter(
    "gains",
    "'binary' or 'trec_eval'",
    default="binary",
    accepts=lambda value: isinstance(value, str),
    convert=str,
    check=lambda gains: gains in ("binary", "trec_eval"),
)
RECALL = Parameter("recall", "a recall level in [0, 1]", check=lambda r: 0 <= r <= 1)
MULTIPLIER = Parameter("multiplier", "a number above 0", default=1.0, check=lambda m: m > 0)
COEFFICIENTS = Parameter(
    "coefficients",
    "4 numbers (retrieved relevant, retrieved non-relevant, missed relevant, rest)",
    default=(1.0, -1.0, 0.0, 0.0),
    accepts=lambda value: True,
    convert=lambda weights: tuple(float(w) for w in weights),
    check=lambda weights: len(weights) == 4,
)
NUM_DOCS = Parameter(
    "num_docs", "a number of documents >= 0", default=0, check=lambda n: n >= 0
)
BETA = Parameter(
    "beta",
    "F is the harmonic mean of precision and recall (beta=1)",
    default=1,
    check=lambda beta: beta == 1,
    fixed=True,
)


def _no_totals(level):
    return ()


@dataclass(frozen=True)
class Binary(Computation):
    """A metric of binary relevance: one ranked quantity combined with the relevant totals.

    ``ranked(k, level)`` makes the ranked quantity; ``combine(value, total,
    cutoffs, query_sizes)`` returns the per-query values, and
    ``pool_weights(cutoffs, query_sizes)``, where given, the weights of a
    pooled mean. ``totals(level)`` names further
    order-free totals the ranked quantity reads (bpref's judged non-relevant
    documents), so that they are counted over the judged documents.
    ``ap_denominator`` (AP): ``combine`` receives the total the call's
    ``ap_denominator`` divides by (:func:`ap_total`) in place of R.
    """

    ranked: Callable
    combine: Callable
    totals: Callable = _no_totals
    about_relevant: bool = True  # False: defined without relevant documents (judged@k)
    pool_weights: Callable | None = None
    ap_denominator: bool = False

    def needs(self, request, plan):
        level = self.level(request, plan)
        return self.ranked(request.k, level), RelevantInList(level), *self.totals(level)

    def finalize(self, request, plan, values, run):
        total = run.total_relevant(self.level(request, plan))
        cutoffs = run.cutoffs(request.k)
        sizes = run.rq.query_sizes
        divisor = ap_total(total, request.k, plan) if self.ap_denominator else total
        values = self.combine(values[0], divisor, cutoffs, sizes)
        pool_weights = None if self.pool_weights is None else self.pool_weights(cutoffs, sizes)
        no_relevant = total == 0 if self.about_relevant else None
        return QueryValues(values, no_relevant=no_relevant, pool_weights=pool_weights)


def ap_total(total, k, plan):
    """What AP@k divides by: R, or ``min(R, k)`` under ``ap_denominator="min(R,k)"``.

    R is the query's relevant documents (``n_relevant``'s where given), not
    the list's length: without a cutoff both are R. Under ``ties="average"``
    the divisor does not depend on the order, so the expected AP is the
    expected precision sum over it.
    """
    if plan.ap_denominator == "R" or k is None:
        return total
    return np.minimum(total, k)


@dataclass(frozen=True)
class PairAgreement(Computation):
    """Rank correlation from pair counts: RC, or Kendall's tau-b (``kendall``)."""

    kendall: bool

    def needs(self, request, plan):
        return (PairCounts(self.kendall),)

    def finalize(self, request, plan, values, run):
        (counts,) = values
        pairs, discordant = counts["pairs"], counts["discordant"]
        tied_score, tied_label = counts["tied_score"], counts["tied_label"]
        tied_both = counts["tied_both"]
        concordant = pairs - discordant - tied_score - tied_label + tied_both
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.kendall:
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


@dataclass(frozen=True)
class Count(Computation):
    """A count per query, as trec_eval's ``num_*`` measures (summed over queries).

    ``what``: "queries" (1 each), "retrieved" (the list's documents),
    "relevant" (R), or a ranked quantity of the whole list made by
    ``ranked(level)`` (relevant or judged non-relevant documents retrieved).
    """

    what: object

    def needs(self, request, plan):
        level = self.level(request, plan)
        ranked = (self.what(level),) if callable(self.what) else ()
        return (*ranked, RelevantInList(level))

    def finalize(self, request, plan, values, run):
        sizes = run.rq.query_sizes
        if self.what == "queries":
            counts = np.ones(sizes.shape[0])
        elif self.what == "retrieved":
            counts = sizes.astype(np.float64)
        elif self.what == "relevant":
            counts = run.total_relevant(self.level(request, plan)).astype(np.float64)
        else:
            counts = values[0]
        return QueryValues(counts)


@dataclass(frozen=True)
class Fallout(Computation):
    """Fallout: non-relevant documents in the top ``k`` over all non-relevant documents.

    Non-relevant: a judged label below the level (``[0, level)``), so a run's
    unjudged documents (negative labels) are neither counted nor counted
    against; against judgments (``evaluate_run``) the total is the query's
    judged non-relevant documents, retrieved or not, as R is for recall.
    """

    def needs(self, request, plan):
        level = self.level(request, plan)
        return Counted(request.k, 0.0, level), CountInList(0.0, level)

    def finalize(self, request, plan, values, run):
        retrieved, total = values
        # A query without a non-relevant document scores 1, the worst value, as
        # torchmetrics' RetrievalFallOut (empty_target_action="pos") and as
        # no_relevant="zero" scores a query without a relevant one elsewhere.
        return QueryValues(np.where(total > 0, ratio(retrieved, total), 1.0))


@dataclass(frozen=True)
class AtMultipleOfR(Computation):
    """Precision at ``c = floor(multiplier R + 0.9)`` documents (trec_eval ``Rprec_mult``)."""

    def needs(self, request, plan):
        level = self.level(request, plan)
        return HitsAtR(level, request.parameter("multiplier")), RelevantInList(level)

    def finalize(self, request, plan, values, run):
        hits, _ = values
        total = run.total_relevant(self.level(request, plan))
        cutoffs = multiple_of_r(total, request.parameter("multiplier"))
        return QueryValues(ratio(hits, cutoffs), no_relevant=total == 0)


@dataclass(frozen=True)
class Utility(Computation):
    """trec_eval's set utility ``u1 a + u2 b + u3 c + u4 d`` of the retrieved set.

    a: relevant retrieved, b: non-relevant retrieved, c: relevant not
    retrieved, d: ``num_docs`` (the collection's size) minus the others.
    """

    def needs(self, request, plan):
        level = self.level(request, plan)
        return Hits(None, level), RelevantInList(level)

    def finalize(self, request, plan, values, run):
        hits, _ = values
        total = run.total_relevant(self.level(request, plan))
        retrieved = run.rq.query_sizes
        u1, u2, u3, u4 = request.parameter("coefficients")
        n_docs = request.parameter("num_docs")
        utility = (
            u1 * hits
            + u2 * (retrieved - hits)
            + u3 * (total - hits)
            + u4 * (n_docs + hits - retrieved - total)
        )
        return QueryValues(utility)


@dataclass(frozen=True)
class RankBiased(Computation):
    """RBP ``(1 - p) sum_i rel_i p**(i - 1)``, or its residual (``residual``).

    ``rel_i`` is 1 for a relevant document (Moffat and Zobel's binary RBP),
    or with the parameter ``gains="trec_eval"`` (trec_eval 10's ``rbp``) the
    document's grade over the query's largest judged grade where that is
    above 1, whatever the relevance level: trec_eval scales its gains into
    [0, 1] by ``(g - min) / (max - min)``, min and max starting at 0.
    """

    residual: bool

    @staticmethod
    def _graded(request):
        return request.parameter("gains") == "trec_eval"

    def needs(self, request, plan):
        p = request.parameter("p")
        level = self.level(request, plan)
        if self.residual:
            return GeometricGain(None, p, -np.inf, 0.0), Counted(None, -np.inf, 0.0)
        if self._graded(request):
            return GeometricGain(request.k, p, -np.inf, np.inf, graded=True), MaxLabel()
        return GeometricGain(request.k, p, level, np.inf), RelevantInList(level)

    def finalize(self, request, plan, values, run):
        p = request.parameter("p")
        weighted, other = values
        if self.residual:
            # The unjudged documents' weight and all of the weight below the list.
            tail = repeated_powers(p, run.rq.query_sizes)
            return QueryValues(np.where(other > 0, tail + (1.0 - p) * weighted, 0.0))
        if self._graded(request):
            return QueryValues((1.0 - p) * weighted, no_relevant=other <= 0)
        total = run.total_relevant(self.level(request, plan))
        return QueryValues((1.0 - p) * weighted, no_relevant=total == 0)


# trec_eval's recall levels of 11pt_avg and iprec_at_recall.
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class Interpolated(Computation):
    """Interpolated precision at the parameter ``recall``, or the mean of 11 levels (``eleven``)."""

    eleven: bool

    def needs(self, request, plan):
        level = self.level(request, plan)
        recalls = ELEVEN_POINTS if self.eleven else (request.parameter("recall"),)
        legacy = plan.trec_eval_version == "9"
        return (
            *(InterpolatedPrecision(r, level, legacy) for r in recalls),
            RelevantInList(level),
        )

    def finalize(self, request, plan, values, run):
        *precisions, _ = values
        total = run.total_relevant(self.level(request, plan))
        if not self.eleven:
            return QueryValues(precisions[0], no_relevant=total == 0)
        # Summed from the highest recall level down, as trec_eval adds them.
        summed = np.zeros(total.shape[0])
        for precision in precisions[::-1]:
            summed = summed + precision
        return QueryValues(summed / len(precisions), no_relevant=total == 0)


# ------------------------------------------------------------ combiners
# How each binary metric combines its ranked quantity with the relevant totals.
def as_is(value, total, cutoffs, query_sizes):
    return value


def over_total(value, total, cutoffs, query_sizes):
    return ratio(value, total)


def over_cutoff(hits, total, cutoffs, query_sizes):
    # An empty ranking (a whole list cut at 0) has precision 0, as trec_eval's set_P.
    return ratio(hits, cutoffs)


def f1(hits, total, cutoffs, query_sizes):
    # F1 = 2PR / (P + R) with P = hits/k and R = hits/total is 2 hits / (k + total):
    # linear in the hits, so the expectation under ties stays exact.
    return 2.0 * hits / (cutoffs + total)


def over_capped_total(hits, total, cutoffs, query_sizes):
    return ratio(hits, np.minimum(cutoffs, total))


def recommended(cutoffs, query_sizes):
    """Documents recommended per query: ``min(k, n)``, the pool of hit_rate_item's mean."""
    return np.minimum(cutoffs, query_sizes).astype(np.float64)


def items_hit(hits, total, cutoffs, query_sizes):
    return ratio(hits, recommended(cutoffs, query_sizes))  # an empty list: 0 items, pooled 0


def over_list(counted, total, cutoffs, query_sizes):
    return ratio(counted, np.minimum(cutoffs, query_sizes))


def set_map(hits, total, cutoffs, query_sizes):
    # Whole lists: the hits are a count, whatever the order, so the square is exact.
    return ratio(hits * hits, query_sizes * total)


# ------------------------------------------------------ ranked quantities
# Makers of a metric's ranked quantity from its cutoff and level.
def hits_at_r(k, level):
    return HitsAtR(level)


def judged(k, level):
    return Counted(k, 0.0, np.inf)


def unjudged(k, level):
    return Counted(k, -np.inf, 0.0)


def judged_nonrelevant(level):
    return (CountInList(0.0, level),)


def relevant_retrieved(level):
    return Hits(None, level)


def judged_nonrelevant_retrieved(level):
    return Counted(None, 0.0, level)


def whole_list(quantity):
    """A ranked quantity of the whole list (the set measures), made from its level."""
    return lambda k, level: quantity(level)
