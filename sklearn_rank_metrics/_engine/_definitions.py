"""One definition per metric: the table every name, option and document derives from.

Each :class:`MetricDefinition` says what a metric is (its one-query formula
and the tools it matches, for the documentation), how it is named
(``"ndcg"``, aliases, ``@k``), which shared options it takes, and how its
per-query values are computed: the ranked quantities it needs from the
kernels and the ``finalize`` step that combines them with order-free totals
(see :mod:`._evaluation`). The public functions, :func:`evaluate`, the
scorers, the metric table of the documentation and the tests' parametrization
all read this table, so adding a metric means adding its definition, its
kernel and its public function.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._kernels import (
    ExpectedGain,
    HasGain,
    HitProbability,
    Hits,
    HitsAtR,
    IdealGain,
    PairCounts,
    PrecisionSum,
    ReciprocalRank,
    RelevantInList,
)
from ._results import QueryValues

# Which shared options a metric takes follows from what its value depends
# on: graded gains, binary relevance (label >= relevance_level) or label
# pairs. Written once here; ``ties`` and ``sample_weight`` apply to all.
FAMILY_OPTIONS = {
    "graded": ("gain", "ties", "no_relevant"),
    "binary": ("relevance_level", "n_relevant", "ties", "no_relevant"),
    "pairs": ("ties",),
}


# ------------------------------------------------------------ computations
# A computation says which named quantities (see ``._kernels``) a metric
# needs for one request (its cutoff ``request.k``) and how it combines their
# per-query values into QueryValues. Quantities equal in value are computed
# once for every metric of a call that needs them.


class Computation:
    """How a metric's per-query values are computed."""

    def needs(self, evaluation, request):
        """The quantities, in the order ``finalize`` reads them."""
        raise NotImplementedError

    def finalize(self, evaluation, request):
        """The per-query :class:`~._results.QueryValues` from the computed quantities."""
        raise NotImplementedError

    def values(self, evaluation, request):
        """The computed values of the quantities ``needs`` names, in its order."""
        return [evaluation.value(quantity) for quantity in self.needs(evaluation, request)]

    @staticmethod
    def level(evaluation, request):
        """The relevance level of this request: its own, or the call's ``relevance_level``."""
        return evaluation.relevance_level if request.level is None else float(request.level)


def _ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = denominator > 0
        return np.where(positive, numerator / np.where(positive, denominator, 1), 0.0)


@dataclass(frozen=True)
class GainRatio(Computation):
    """NDCG: expected DCG over ideal DCG, gains scaled per query where they could overflow."""

    def needs(self, evaluation, request):
        scaled = evaluation.needs_scaled_gains
        return (
            ExpectedGain(request.k, discounted=True, scaled=scaled),
            IdealGain(request.k, scaled=scaled),
        )

    def finalize(self, evaluation, request):
        gain, ideal = self.values(evaluation, request)
        return QueryValues(_ratio(gain, ideal), no_relevant=ideal == 0)


@dataclass(frozen=True)
class GainSum(Computation):
    """DCG or CG: the raw (discounted) gain sum, which must fit in a float64."""

    discounted: bool

    def needs(self, evaluation, request):
        return ExpectedGain(request.k, discounted=self.discounted), HasGain()

    def finalize(self, evaluation, request):
        values, has_gain = self.values(evaluation, request)
        if not np.isfinite(values).all():
            gain = evaluation.gain
            other_gain = " gain='linear'," if gain == "exponential" else ""
            what = "discounted cumulative gain" if self.discounted else "cumulative gain"
            raise ValueError(
                f"the {what} overflows float64: with gain={gain!r}, labels up to "
                f"{evaluation.rq.labels.top:g} have gains too large to add up. Use "
                f"ndcg_score, which is exact for any labels,{other_gain} or smaller labels."
            )
        return QueryValues(values, no_relevant=~has_gain)


@dataclass(frozen=True)
class Binary(Computation):
    """A metric of binary relevance: one ranked quantity combined with the relevant totals.

    ``ranked(k, level)`` makes the ranked quantity; ``combine(value, total,
    cutoffs, query_sizes)`` returns the per-query values, or ``(values,
    pool_weights)`` for a pooled mean.
    """

    ranked: Callable
    combine: Callable

    def needs(self, evaluation, request):
        level = self.level(evaluation, request)
        return self.ranked(request.k, level), RelevantInList(level)

    def finalize(self, evaluation, request):
        value, _ = self.values(evaluation, request)
        total = evaluation.total_relevant(self.level(evaluation, request))
        cutoffs = evaluation.cutoffs(request.k)
        combined = self.combine(value, total, cutoffs, evaluation.rq.query_sizes)
        values, pool_weights = combined if isinstance(combined, tuple) else (combined, None)
        return QueryValues(values, no_relevant=total == 0, pool_weights=pool_weights)


@dataclass(frozen=True)
class PairAgreement(Computation):
    """Rank correlation from pair counts: RC, or Kendall's tau-b (``kendall``)."""

    kendall: bool

    def needs(self, evaluation, request):
        return (PairCounts(self.kendall),)

    def finalize(self, evaluation, request):
        (counts,) = self.values(evaluation, request)
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


# How each binary metric combines its ranked quantity with the relevant totals.
def _as_is(value, total, cutoffs, query_sizes):
    return value


def _over_total(value, total, cutoffs, query_sizes):
    return _ratio(value, total)


def _over_cutoff(hits, total, cutoffs, query_sizes):
    return hits / cutoffs


def _f1(hits, total, cutoffs, query_sizes):
    # F1 = 2PR / (P + R) with P = hits/k and R = hits/total is 2 hits / (k + total):
    # linear in the hits, so the expectation under ties stays exact.
    return 2.0 * hits / (cutoffs + total)


def _over_capped_total(hits, total, cutoffs, query_sizes):
    return _ratio(hits, np.minimum(cutoffs, total))


def _items_hit(hits, total, cutoffs, query_sizes):
    recommended = np.minimum(cutoffs, query_sizes).astype(np.float64)
    return hits / recommended, recommended


def _hits_at_r(k, level):
    return HitsAtR(level)


@dataclass(frozen=True)
class MetricDefinition:
    """A named ranking metric.

    Attributes
    ----------
    name : str
        Name in :func:`evaluate` and the scorers, e.g. ``"ndcg"``.
    family : {"graded", "binary", "pairs"}
        What the value depends on; decides the options it takes.
    computation : Computation
        The quantities it needs and how it combines them.
    function : str or None
        The public function computing it, e.g. ``"ndcg_score"``; None for a
        metric computed by :func:`evaluate` and the scorers only.
    takes_cutoff : bool
        Whether ``@k`` / ``k=`` applies (False: whole lists only).
    bounded : bool
        Whether values lie in [0, 1], so ``no_relevant="one"`` makes sense.
    aliases : tuple of str
        Other names accepted for it.
    fixed_options : dict
        Options of that function the name fixes (``level="item"``).
    formula : str
        One query's value, for the documentation's metric table.
    matches : str
        Reference tools giving the same numbers.
    """

    name: str
    family: str
    computation: Computation
    function: str | None = None
    takes_cutoff: bool = True
    bounded: bool = True
    aliases: tuple = ()
    fixed_options: dict = field(default_factory=dict)
    formula: str = ""
    matches: str = ""

    @property
    def options(self):
        """The shared options this metric takes (besides ``k``, ``qid``, ``sample_weight``)."""
        return FAMILY_OPTIONS[self.family]


_DEFINITIONS = (
    MetricDefinition(
        "ndcg",
        "graded",
        GainRatio(),
        function="ndcg_score",
        formula="`DCG@k / IDCG@k`, IDCG@k the DCG@k of the list sorted by decreasing label",
        matches="`sklearn.metrics.ndcg_score`, trec_eval `ndcg_cut` (with the list's own grades)",
    ),
    MetricDefinition(
        "dcg",
        "graded",
        GainSum(discounted=True),
        function="dcg_score",
        bounded=False,
        formula="`sum_{i <= min(k, n)} g(rel_i) / log2(i + 1)`",
        matches="`sklearn.metrics.dcg_score` (log_base=2)",
    ),
    MetricDefinition(
        "cg",
        "graded",
        GainSum(discounted=False),
        function="cg_score",
        bounded=False,
        formula="`sum_{i <= min(k, n)} g(rel_i)`",
    ),
    MetricDefinition(
        "mrr",
        "binary",
        Binary(ReciprocalRank, _as_is),
        function="mrr_score",
        aliases=("rr", "recip_rank"),
        formula="`1 / rank` of the first relevant document if it is in the top `k`, else 0",
        matches="trec_eval `recip_rank`, ranx `mrr`",
    ),
    MetricDefinition(
        "map",
        "binary",
        Binary(PrecisionSum, _over_total),
        function="map_score",
        aliases=("ap",),
        formula="`(1 / R) sum_{i <= k, rel_i relevant} P@i`",
        matches="trec_eval `map` / `map_cut`, ranx `map`",
    ),
    MetricDefinition(
        "precision",
        "binary",
        Binary(Hits, _over_cutoff),
        function="precision_at_k_score",
        aliases=("p",),
        formula="`hits@k / k` (k even for shorter lists)",
        matches="trec_eval `P_k`, ranx `precision`",
    ),
    MetricDefinition(
        "recall",
        "binary",
        Binary(Hits, _over_total),
        function="recall_at_k_score",
        formula="`hits@k / R`",
        matches="trec_eval `recall_k`, ranx `recall`",
    ),
    MetricDefinition(
        "f1",
        "binary",
        Binary(Hits, _f1),
        function="f1_at_k_score",
        aliases=("f1_score",),
        formula="`2 P@k Recall@k / (P@k + Recall@k) = 2 hits@k / (k + R)`",
        matches="ranx `f1`",
    ),
    MetricDefinition(
        "recall_cap",
        "binary",
        Binary(Hits, _over_capped_total),
        function="recall_cap_score",
        aliases=("r_cap",),
        formula="`hits@k / min(k, R)`",
        matches="BEIR / MTEB `R_cap@k`",
    ),
    MetricDefinition(
        "hit_rate",
        "binary",
        Binary(HitProbability, _as_is),
        function="hit_rate_score",
        aliases=("hr", "hit_rate_query"),
        fixed_options={"level": "query"},
        formula="1 if `hits@k > 0` else 0",
        matches="ranx `hit_rate`",
    ),
    MetricDefinition(
        "hit_rate_item",
        "binary",
        Binary(Hits, _items_hit),
        function="hit_rate_score",
        fixed_options={"level": "item"},
        formula="`hits@k / min(k, n)`; the mean is pooled: `sum hits@k / sum min(k, n)`",
    ),
    MetricDefinition(
        "r_precision",
        "binary",
        Binary(_hits_at_r, _over_total),
        function="r_precision_score",
        takes_cutoff=False,
        aliases=("rprec", "r-precision"),
        formula="`hits@R / R`",
        matches="trec_eval `Rprec`",
    ),
    MetricDefinition(
        "rc",
        "pairs",
        PairAgreement(kendall=False),
        function="rank_correlation_score",
        takes_cutoff=False,
        aliases=("rank_correlation",),
        fixed_options={"method": "rc"},
        formula="share of document pairs ordered as the labels; pairs of equal label agree",
        matches="Liu, *Learning to Rank for IR* (RC)",
    ),
    MetricDefinition(
        "kendall",
        "pairs",
        PairAgreement(kendall=True),
        function="rank_correlation_score",
        takes_cutoff=False,
        aliases=("kendall_tau",),
        fixed_options={"method": "kendall"},
        formula="Kendall's tau-b between labels and scores",
        matches="`scipy.stats.kendalltau`",
    ),
)

METRICS = {definition.name: definition for definition in _DEFINITIONS}

ALIASES = {
    alias: definition.name for definition in METRICS.values() for alias in definition.aliases
}


def check_bounded(definition, no_relevant, name):
    """Reject ``no_relevant="one"`` for a metric without an upper bound (DCG, CG)."""
    if not definition.bounded and isinstance(no_relevant, str) and no_relevant == "one":
        raise ValueError(
            f"no_relevant='one' is not available for {name!r}, which has no upper bound; "
            "use 'zero' or 'skip'."
        )
