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

from ._options import exact_level
from ._kernels import (
    CascadeGain,
    Counted,
    CountInList,
    ExpectedGain,
    GeometricGain,
    MaxLabel,
    HasGain,
    HitProbability,
    Hits,
    HitsAtR,
    IdealGain,
    InferredPrecisionSum,
    InterpolatedPrecision,
    NonrelevantDiscountSum,
    NormalizedGainSum,
    PairCounts,
    PositiveGain,
    PrecisionSum,
    PreferenceSum,
    ReciprocalRank,
    RelevantInList,
    RelevantNdcgMean,
    repeated_powers,
    RNdcgMean,
    discount_sums,
    level_gain,
    multiple_of_r,
)
from ._values import QueryValues

# Which shared options a metric takes follows from what its value depends
# on: graded gains, binary relevance (label >= relevance_level) or label
# pairs. Written once here; ``ties`` and ``sample_weight`` apply to all.
FAMILY_OPTIONS = {
    "graded": ("gain", "ties", "no_relevant"),
    "binary": ("relevance_level", "n_relevant", "ties", "no_relevant"),
    "pairs": ("ties",),
    # Counts and shares defined for every query (num_rel, judged@k, utility): no no_relevant.
    "counts": ("relevance_level", "n_relevant", "ties"),
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
        return evaluation.relevance_level if request.level is None else exact_level(request.level)


def _ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = denominator > 0
        return np.where(positive, numerator / np.where(positive, denominator, 1), 0.0)


@dataclass(frozen=True)
class GainRatio(Computation):
    """NDCG: expected DCG over ideal DCG, gains scaled per query where they could overflow."""

    def needs(self, evaluation, request):
        levels = gain_levels(evaluation, request)
        if levels:
            return (
                ExpectedGain(request.k, discounted=True, levels=levels),
                IdealGain(request.k, levels=levels),
                *evaluation.relevant_set_quantities(ideal=True),
            )
        scaled = evaluation.needs_scaled_gains
        return (
            ExpectedGain(request.k, discounted=True, scaled=scaled),
            IdealGain(request.k, scaled=scaled),
            *evaluation.relevant_set_quantities(ideal=True),
        )

    def finalize(self, evaluation, request):
        gain, ideal, *_ = self.values(evaluation, request)
        levels = gain_levels(evaluation, request)
        if levels:  # unscaled gains
            _check_finite(evaluation, request, gain, ideal)
        ideal = _ideal_with_unlisted(evaluation, request, levels, ideal)
        return QueryValues(_ratio(gain, ideal), no_relevant=ideal == 0)


def _first_unlisted(evaluation, unlisted):
    """``n_relevant[id] = R``, for the first query of the mask ``unlisted``."""
    q = int(np.flatnonzero(unlisted)[0])
    return f"n_relevant[{evaluation.rq.input.query_name(q)!r}] = {int(evaluation.n_relevant[q])}"


# How to give what the relevant documents outside the lists are, for the errors.
_FULL_RELEVANCE = (
    "Evaluate a run against its qrels with evaluate_run (they give every grade), or pass "
    "the full relevance of every item: each relevant document the list left out in y_true "
    "too, scored below the list."
)


def _ideal_with_unlisted(evaluation, request, levels, ideal):
    """NDCG's ideal DCG where ``n_relevant`` counts relevant documents the list does not hold.

    In a query of labels 0 and 1 (relevant at the call's level), those
    documents have label 1: the ideal of ``R`` documents of gain ``g(1)``,
    ``g(1) sum_{i < min(R, k)} 1 / log2(i + 2)``. In a query of graded labels
    their grades are unknown: a ValueError. Each query on its own labels.
    """
    unlisted = evaluation.unlisted_relevant()
    if not unlisted.any():
        return ideal
    gain = _unlisted_gain(evaluation, request, levels)
    total = evaluation.total_relevant(evaluation.relevance_level)
    cut = total if request.k is None else np.minimum(total, request.k)
    sums = discount_sums(cut, evaluation.rq.discount_cumsum, "n_relevant")
    return np.where(unlisted, gain * sums, ideal)


def _unlisted_gain(evaluation, request, levels):
    """The gain of the relevant documents outside the lists (label 1), or a ValueError.

    The error names the first query with such documents whose own labels
    are graded: each query is decided on its own labels.
    """
    function = level_gain(evaluation, levels)
    unknown = evaluation.unknown_grades(function)
    if unknown.any():
        raise ValueError(
            f"{request.name}: {_first_unlisted(evaluation, unknown)} counts relevant documents "
            "that are not in the list, and that query's labels are graded (not only 0 and 1, "
            "relevant at relevance_level <= 1), so the ideal ranking needs their grades, which "
            f"n_relevant does not give. {_FULL_RELEVANCE}"
        )
    return evaluation.unlisted_gain(function)


@dataclass(frozen=True)
class GainSum(Computation):
    """DCG or CG: the raw (discounted) gain sum, which must fit in a float64."""

    discounted: bool

    def needs(self, evaluation, request):
        levels = gain_levels(evaluation, request)
        has_gain = PositiveGain(levels) if levels else HasGain()
        return (
            ExpectedGain(request.k, discounted=self.discounted, levels=levels),
            has_gain,
            *evaluation.relevant_set_quantities(),
        )

    def finalize(self, evaluation, request):
        values, has_gain, *_ = self.values(evaluation, request)
        # Relevant documents outside the list (n_relevant): the query has some.
        has_gain = (has_gain > 0) | evaluation.unlisted_relevant()
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


# ------------------------------------- gains per relevance level (trec_eval)
# trec_eval's ndcg, dcg, ndcg_rel, Rndcg and G take a gain per relevance
# level, the option ``gains``: ((level, gain), ...), levels not named keep
# their default gain (the level, or 2**level - 1 with gain="exponential").


def gain_levels(evaluation, request):
    """The request's gains per relevance level, checked: a tuple of ``(level, gain)``."""
    levels = request.option("gains", ())
    try:
        levels = tuple(sorted((float(level), float(gain)) for level, gain in levels))
        ok = all(level >= 0 and level == int(level) and np.isfinite(gain) for level, gain in levels)
    except (TypeError, ValueError):
        ok = False
    if not ok or len({level for level, _ in levels}) < len(levels):
        raise ValueError(
            f"{request.name}: gains must give finite gains to distinct relevance levels that "
            f"are whole numbers >= 0, e.g. ((1, 3.5), (2, 9.0)), got {request.option('gains')!r}."
        )
    if levels and evaluation.judged is not None and evaluation.gain == "linear":
        # trec_eval's gains (the level where not named): where its order can go wrong
        _check_trec_gain_order(levels, evaluation.judged.rq.labels.top, request.name)
    return levels


def _check_trec_gain_order(levels, top, name):
    """Refuse gains trec_eval may sort wrongly: it compares two by the whole part of their difference.

    Its ideal ranking sorts the relevance levels by gain with a comparison
    that truncates the difference to an int, so gains less than 1 apart
    (3.5 and level 3's default 3) compare equal and may come in the wrong
    order; its value then depends on the C library's sort.
    """
    named = dict(levels)
    gains = sorted(set(named.values()))
    close = [(a, b) for a, b in zip(gains, gains[1:]) if b - a < 1]
    for gain in gains:
        for level in (np.floor(gain), np.ceil(gain)):
            if 0 <= level <= top and level not in named and 0 < abs(gain - level) < 1:
                close.append((level, gain))
    if close:
        a, b = close[0]
        raise ValueError(
            f"{name}: gains {a:g} and {b:g} are less than 1 apart; trec_eval compares gains "
            "by the whole part of their difference when it sorts the relevance levels for "
            "its ideal ranking, so it may rank them in the wrong order and give another "
            "value. Give the levels gains 1 or more apart (or equal gains), or scale them all."
        )


def _check_finite(evaluation, request, *values):
    """Raise where gains per level (never scaled) add up beyond float64."""
    if not all(np.isfinite(v).all() for v in values):
        raise ValueError(
            f"{request.name}: the gains add up beyond float64 with gain={evaluation.gain!r} "
            f"(labels up to {evaluation.rq.labels.top:g}); use gain='linear', smaller labels, "
            "or name the gains of the large levels."
        )


@dataclass(frozen=True)
class LevelGainMean(Computation):
    """trec_eval's G, ndcg_rel or Rndcg: one ranked quantity of the gains per level.

    ``r_levels`` (Rndcg): 0 for a query without relevant documents (label >=
    the relevance level), undefined for one with relevant documents of no
    positive gain (trec_eval prints nan); else a query without a document of
    positive gain has no relevant document.
    """

    ranked: type
    r_levels: bool = False
    # G adds each query's gains to 2 inside a logarithm: beyond 2**52 the 2 is lost.
    max_total: float = np.inf

    def needs(self, evaluation, request):
        levels = gain_levels(evaluation, request)
        relevant = (RelevantInList(self.level(evaluation, request)),) if self.r_levels else ()
        return (
            self.ranked(levels),
            PositiveGain(levels),
            *relevant,
            *evaluation.relevant_set_quantities(ideal=True),
        )

    def finalize(self, evaluation, request):
        value, positive, *_ = self.values(evaluation, request)
        unlisted = evaluation.unlisted_relevant()
        if unlisted.any():
            # Labels 0 and 1: the documents of positive gain are the R relevant ones.
            gain = _unlisted_gain(evaluation, request, gain_levels(evaluation, request))
            total = evaluation.total_relevant(evaluation.relevance_level)
            positive = np.where(unlisted, gain * total, positive)
        _check_finite(evaluation, request, value, positive)
        if (positive >= self.max_total).any():
            raise ValueError(
                f"{request.name}: a query's gains add up to {positive.max():g}, where "
                f"log2(2 + ...) loses the 2 in float64 (from {self.max_total:g}); use "
                "gain='linear', smaller labels, or smaller gains per level."
            )
        if not self.r_levels:
            return QueryValues(value, no_relevant=positive == 0)
        total = evaluation.total_relevant(self.level(evaluation, request))
        undefined = (positive == 0) & (total > 0)
        return QueryValues(
            np.where(undefined, np.nan, value),
            no_relevant=total == 0,
            undefined_reason="relevant documents, none of positive gain",
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
    """

    ranked: Callable
    combine: Callable
    totals: Callable = _no_totals
    about_relevant: bool = True  # False: defined without relevant documents (judged@k)
    pool_weights: Callable | None = None

    def needs(self, evaluation, request):
        level = self.level(evaluation, request)
        return self.ranked(request.k, level), RelevantInList(level), *self.totals(level)

    def finalize(self, evaluation, request):
        value = self.values(evaluation, request)[0]
        total = evaluation.total_relevant(self.level(evaluation, request))
        cutoffs = evaluation.cutoffs(request.k)
        sizes = evaluation.rq.query_sizes
        values = self.combine(value, total, cutoffs, sizes)
        pool_weights = None if self.pool_weights is None else self.pool_weights(cutoffs, sizes)
        no_relevant = total == 0 if self.about_relevant else None
        return QueryValues(values, no_relevant=no_relevant, pool_weights=pool_weights)


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


def _option(request, name, default, valid, what):
    """A measure parameter of the request, checked: a ValueError naming it and its range."""
    value = request.option(name, default)
    try:
        ok = valid(float(value))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{request.name}: {name} must be {what}, got {value!r}.")
    return float(value)


@dataclass(frozen=True)
class Count(Computation):
    """A count per query, as trec_eval's ``num_*`` measures (summed over queries).

    ``what``: "queries" (1 each), "retrieved" (the list's documents),
    "relevant" (R), or a ranked quantity of the whole list made by
    ``ranked(level)`` (relevant or judged non-relevant documents retrieved).
    """

    what: object

    def needs(self, evaluation, request):
        level = self.level(evaluation, request)
        ranked = (self.what(level),) if callable(self.what) else ()
        return (*ranked, RelevantInList(level))

    def finalize(self, evaluation, request):
        sizes = evaluation.rq.query_sizes
        if self.what == "queries":
            values = np.ones(sizes.shape[0])
        elif self.what == "retrieved":
            values = sizes.astype(np.float64)
        elif self.what == "relevant":
            values = evaluation.total_relevant(self.level(evaluation, request)).astype(np.float64)
        else:
            values = self.values(evaluation, request)[0]
        return QueryValues(values)


@dataclass(frozen=True)
class AtMultipleOfR(Computation):
    """Precision at ``c = floor(multiplier R + 0.9)`` documents (trec_eval ``Rprec_mult``)."""

    def needs(self, evaluation, request):
        level = self.level(evaluation, request)
        multiplier = _option(request, "multiplier", 1.0, lambda m: m > 0, "a number above 0")
        return HitsAtR(level, multiplier), RelevantInList(level)

    def finalize(self, evaluation, request):
        hits, total = self.values(evaluation, request)
        total = evaluation.total_relevant(self.level(evaluation, request))
        cutoffs = multiple_of_r(total, self.needs(evaluation, request)[0].multiplier)
        return QueryValues(_ratio(hits, cutoffs), no_relevant=total == 0)


@dataclass(frozen=True)
class Utility(Computation):
    """trec_eval's set utility ``u1 a + u2 b + u3 c + u4 d`` of the retrieved set.

    a: relevant retrieved, b: non-relevant retrieved, c: relevant not
    retrieved, d: ``num_docs`` (the collection's size) minus the others.
    """

    def needs(self, evaluation, request):
        level = self.level(evaluation, request)
        return Hits(None, level), RelevantInList(level)

    def finalize(self, evaluation, request):
        hits, _ = self.values(evaluation, request)
        total = evaluation.total_relevant(self.level(evaluation, request))
        retrieved = evaluation.rq.query_sizes
        weights = request.option("coefficients", (1.0, -1.0, 0.0, 0.0))
        if len(weights) != 4:
            raise ValueError(
                f"{request.name}: coefficients must be 4 numbers (retrieved relevant, retrieved "
                f"non-relevant, missed relevant, rest), got {weights!r}."
            )
        n_docs = _option(request, "num_docs", 0, lambda n: n >= 0, "a number of documents >= 0")
        u1, u2, u3, u4 = (float(w) for w in weights)
        values = (
            u1 * hits
            + u2 * (retrieved - hits)
            + u3 * (total - hits)
            + u4 * (n_docs + hits - retrieved - total)
        )
        return QueryValues(values)


@dataclass(frozen=True)
class RankBiased(Computation):
    """RBP ``(1 - p) sum_i rel_i p**(i - 1)``, or its residual (``residual``).

    ``rel_i`` is 1 for a relevant document (Moffat and Zobel's binary RBP),
    or with the option ``gains="trec_eval"`` (trec_eval 10's ``rbp``) the
    document's grade over the query's largest judged grade where that is
    above 1, whatever the relevance level: trec_eval scales its gains into
    [0, 1] by ``(g - min) / (max - min)``, min and max starting at 0.
    """

    residual: bool

    def _persistence(self, request):
        return _option(request, "p", 0.9, lambda p: 0 < p < 1, "a persistence in (0, 1)")

    @staticmethod
    def _graded(request):
        gains = request.option("gains", "binary")
        if gains not in ("binary", "trec_eval"):
            raise ValueError(f"{request.name}: gains must be 'binary' or 'trec_eval', got {gains!r}.")
        return gains == "trec_eval"

    def needs(self, evaluation, request):
        p = self._persistence(request)
        level = self.level(evaluation, request)
        if self.residual:
            return GeometricGain(None, p, -np.inf, 0.0), Counted(None, -np.inf, 0.0)
        if self._graded(request):
            return GeometricGain(request.k, p, -np.inf, np.inf, graded=True), MaxLabel()
        return GeometricGain(request.k, p, level, np.inf), RelevantInList(level)

    def finalize(self, evaluation, request):
        p = self._persistence(request)
        weighted, other = self.values(evaluation, request)
        if self.residual:
            # The unjudged documents' weight and all of the weight below the list.
            tail = repeated_powers(p, evaluation.rq.query_sizes)
            return QueryValues(np.where(other > 0, tail + (1.0 - p) * weighted, 0.0))
        if self._graded(request):
            return QueryValues((1.0 - p) * weighted, no_relevant=other <= 0)
        total = evaluation.total_relevant(self.level(evaluation, request))
        return QueryValues((1.0 - p) * weighted, no_relevant=total == 0)


@dataclass(frozen=True)
class Cascade(Computation):
    """ERR@k (Chapelle et al. 2009), grades up to the option ``max_grade`` (default 4)."""

    def needs(self, evaluation, request):
        max_grade = _option(request, "max_grade", 4, lambda g: g > 0, "a grade above 0")
        return CascadeGain(request.k, max_grade), HasGain(), *evaluation.relevant_set_quantities()

    def finalize(self, evaluation, request):
        value, has_gain, *_ = self.values(evaluation, request)
        return QueryValues(value, no_relevant=~(has_gain | evaluation.unlisted_relevant()))


def _recall_level(request):
    return _option(request, "recall", None, lambda r: 0 <= r <= 1, "a recall level in [0, 1]")


# trec_eval's recall levels of 11pt_avg and iprec_at_recall.
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class Interpolated(Computation):
    """Interpolated precision at the option ``recall``, or averaged over 11 levels (``eleven``)."""

    eleven: bool

    def needs(self, evaluation, request):
        level = self.level(evaluation, request)
        recalls = ELEVEN_POINTS if self.eleven else (_recall_level(request),)
        legacy = evaluation.trec_eval_version == "9"
        return (
            *(InterpolatedPrecision(r, level, legacy) for r in recalls),
            RelevantInList(level),
        )

    def finalize(self, evaluation, request):
        *precisions, _ = self.values(evaluation, request)
        total = evaluation.total_relevant(self.level(evaluation, request))
        if not self.eleven:
            return QueryValues(precisions[0], no_relevant=total == 0)
        # Summed from the highest recall level down, as trec_eval adds them.
        values = np.zeros(total.shape[0])
        for precision in precisions[::-1]:
            values = values + precision
        return QueryValues(values / len(precisions), no_relevant=total == 0)


# How each binary metric combines its ranked quantity with the relevant totals.
def _as_is(value, total, cutoffs, query_sizes):
    return value


def _over_total(value, total, cutoffs, query_sizes):
    return _ratio(value, total)


def _over_cutoff(hits, total, cutoffs, query_sizes):
    # An empty ranking (a whole list cut at 0) has precision 0, as trec_eval's set_P.
    return _ratio(hits, cutoffs)


def _f1(hits, total, cutoffs, query_sizes):
    # F1 = 2PR / (P + R) with P = hits/k and R = hits/total is 2 hits / (k + total):
    # linear in the hits, so the expectation under ties stays exact.
    return 2.0 * hits / (cutoffs + total)


def _over_capped_total(hits, total, cutoffs, query_sizes):
    return _ratio(hits, np.minimum(cutoffs, total))


def _recommended(cutoffs, query_sizes):
    return np.minimum(cutoffs, query_sizes).astype(np.float64)


def _items_hit(hits, total, cutoffs, query_sizes):
    return hits / _recommended(cutoffs, query_sizes)


def _hits_at_r(k, level):
    return HitsAtR(level)


def _over_list(counted, total, cutoffs, query_sizes):
    return _ratio(counted, np.minimum(cutoffs, query_sizes))


def _set_map(hits, total, cutoffs, query_sizes):
    # Whole lists: the hits are a count, whatever the order, so the square is exact.
    return _ratio(hits * hits, query_sizes * total)


def _judged(k, level):
    return Counted(k, 0.0, np.inf)


def _unjudged(k, level):
    return Counted(k, -np.inf, 0.0)


def _judged_nonrelevant(level):
    return (CountInList(0.0, level),)


def _tied(what):
    """The documentation's tie note of a measure without a closed form under ties."""
    return f"all; `average` only where no tie block mixes {what} (else an error)"


def _relevant_retrieved(level):
    return Hits(None, level)


def _judged_nonrelevant_retrieved(level):
    return Counted(None, 0.0, level)


def _whole_list(quantity):
    """A ranked quantity of the whole list (the set measures), made from its level."""
    return lambda k, level: quantity(level)


@dataclass(frozen=True)
class MetricDefinition:
    """A named ranking metric.

    Attributes
    ----------
    name : str
        Name in :func:`evaluate` and the scorers, e.g. ``"ndcg"``.
    family : {"graded", "binary", "pairs", "counts"}
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
    aggregate : {"mean", "sum", "geometric"}
        How :meth:`QueryResults.mean` combines the queries: the mean, the sum
        (counts, as trec_eval's summary line), or the geometric mean
        ``exp(mean(log(max(v, 1e-5))))`` (trec_eval's ``gm_map``).
    integer : bool
        Whether the value is a count (printed as an integer).
    ties : str
        The tie modes that are exact, for the documentation: "all", or a
        sentence saying when ``ties="average"`` is (the measures that have no
        closed form for their expectation over tied orderings).
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
    aggregate: str = "mean"
    integer: bool = False
    ties: str = "all"

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
        matches=(
            "`sklearn.metrics.ndcg_score`; trec_eval `ndcg_cut` when the list holds every "
            "judged document (a run: `evaluate_run`)"
        ),
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
        matches=(
            "trec_eval `map` / `map_cut` (R from the qrels: `n_relevant` or `evaluate_run`), "
            "ranx `map`"
        ),
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
        matches=(
            "trec_eval `recall_k` (R from the qrels: `n_relevant` or `evaluate_run`), ranx "
            "`recall`"
        ),
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
        Binary(Hits, _items_hit, pool_weights=_recommended),
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
        matches="trec_eval `Rprec` (R from the qrels: `n_relevant` or `evaluate_run`)",
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
    # ------------------------------------------------ trec_eval's measures
    MetricDefinition(
        "num_q",
        "counts",
        Count("queries"),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="1 per query; summed over queries",
        matches="trec_eval `num_q`",
    ),
    MetricDefinition(
        "num_ret",
        "counts",
        Count("retrieved"),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="documents retrieved; summed over queries",
        matches="trec_eval `num_ret`",
    ),
    MetricDefinition(
        "num_rel",
        "counts",
        Count("relevant"),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="`R`, relevant documents (judged, retrieved or not); summed over queries",
        matches="trec_eval `num_rel`",
    ),
    MetricDefinition(
        "num_rel_ret",
        "counts",
        Count(_relevant_retrieved),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="relevant documents retrieved; summed over queries",
        matches="trec_eval `num_rel_ret`",
    ),
    MetricDefinition(
        "num_nonrel_judged_ret",
        "counts",
        Count(_judged_nonrelevant_retrieved),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="judged non-relevant documents (0 <= label < level) retrieved; summed",
        matches="trec_eval `num_nonrel_judged_ret`",
    ),
    MetricDefinition(
        "gm_map",
        "binary",
        Binary(PrecisionSum, _over_total),
        aliases=("gm_ap",),
        aggregate="geometric",
        formula="AP per query; mean `exp(mean(log(max(AP, 1e-5))))`",
        matches="trec_eval `gm_map`",
    ),
    MetricDefinition(
        "bpref",
        "binary",
        Binary(_whole_list(PreferenceSum), _over_total, _judged_nonrelevant),
        takes_cutoff=False,
        formula="`(1 / R) sum_{judged relevant r} (1 - min(n_r, R) / min(N, R))`, `n_r` judged "
        "non-relevant documents above `r` (the term is 1 where `n_r = 0`), N all judged "
        "non-relevant ones; unjudged documents skipped",
        matches="trec_eval `bpref`",
        ties=_tied("relevant and judged non-relevant documents"),
    ),
    MetricDefinition(
        "gm_bpref",
        "binary",
        Binary(_whole_list(PreferenceSum), _over_total, _judged_nonrelevant),
        takes_cutoff=False,
        aggregate="geometric",
        formula="bpref per query; mean `exp(mean(log(max(bpref, 1e-5))))`",
        matches="trec_eval `gm_bpref`",
        ties=_tied("relevant and judged non-relevant documents"),
    ),
    MetricDefinition(
        "infap",
        "binary",
        Binary(_whole_list(InferredPrecisionSum), _over_total),
        takes_cutoff=False,
        formula="`(1 / R) sum_{judged relevant at 0-based rank j}` (1 at `j = 0`, else "
        "`1/(j+1) + j/(j+1) (r+n+u)/j (r+eps)/(r+n+2eps)`), `r, n, u` the relevant, judged "
        "non-relevant and pooled unjudged (label -2) documents above, `eps = 1e-5`",
        matches="trec_eval `infAP`",
        ties=_tied("a relevant document with any other"),
    ),
    MetricDefinition(
        "iprec_at_recall",
        "binary",
        Interpolated(eleven=False),
        takes_cutoff=False,
        formula="highest precision at the rank of the `round(recall R)`-th relevant document or below "
        "(option `recall` in [0, 1]); 0 where the run holds fewer relevant documents",
        matches="trec_eval `iprec_at_recall` (10; 9 with `trec_eval_version='9'`)",
        ties=_tied("relevant and non-relevant documents"),
    ),
    MetricDefinition(
        "iprec_11pt_avg",
        "binary",
        Interpolated(eleven=True),
        takes_cutoff=False,
        aliases=("eleven_point_average",),
        formula="mean of iprec_at_recall at recall 0, 0.1, ..., 1",
        matches="trec_eval `11pt_avg` (10; 9 with `trec_eval_version='9'`)",
        ties=_tied("relevant and non-relevant documents"),
    ),
    MetricDefinition(
        "rprec_mult",
        "binary",
        AtMultipleOfR(),
        takes_cutoff=False,
        formula="`hits@c / c`, `c = floor(multiplier R + 0.9)` (option `multiplier`, default 1)",
        matches="trec_eval `Rprec_mult`",
    ),
    MetricDefinition(
        "set_map",
        "binary",
        Binary(Hits, _set_map),
        takes_cutoff=False,
        formula="`hits^2 / (n R)`, `n` documents retrieved (recall times precision of the set)",
        matches="trec_eval `set_map`",
    ),
    MetricDefinition(
        "bing",
        "binary",
        Binary(_whole_list(NonrelevantDiscountSum), _over_total),
        takes_cutoff=False,
        formula="`(1 / R) sum_{relevant r} 1 / log2(2 + non-relevant documents above r)`",
        matches="trec_eval `binG`",
        ties=_tied("relevant and non-relevant documents"),
    ),
    # trec_eval's measures of gains per relevance level (option gains)
    MetricDefinition(
        "ndcg_rel",
        "graded",
        LevelGainMean(RelevantNdcgMean),
        takes_cutoff=False,
        formula="mean over the `P` documents of positive gain of nDCG where each is ranked "
        "(`DCG@i / IDCG@min(i, P)`, i its rank), `DCG / IDCG` for those not ranked",
        matches="trec_eval `ndcg_rel`",
        ties=_tied("different gains"),
    ),
    MetricDefinition(
        "rndcg",
        "graded",
        LevelGainMean(RNdcgMean, r_levels=True),
        takes_cutoff=False,
        formula="mean of `DCG@min(t, n) / IDCG@t` over the R levels `t` (documents of the "
        "highest 1, 2, .. positive gains), and of `DCG / IDCG` where `n >= P + 2`; 0 without "
        "relevant documents",
        matches="trec_eval `Rndcg`",
    ),
    MetricDefinition(
        "g",
        "graded",
        LevelGainMean(NormalizedGainSum, max_total=2.0**52),
        takes_cutoff=False,
        aliases=("normalized_gain",),
        formula="`sum_i g_i / log2(2 + C_i - S_i)` over the ideal's total gain: `S_i` the gains "
        "at ranks up to i, `C_i` the ideal's, each at least 1",
        matches="trec_eval `G`",
        ties=_tied("different gains"),
    ),
    MetricDefinition(
        "utility",
        "counts",
        Utility(),
        takes_cutoff=False,
        bounded=False,
        formula="`u1 a + u2 b + u3 c + u4 d` (option `coefficients`, default (1, -1, 0, 0); "
        "`num_docs`, default 0): a, b relevant / non-relevant retrieved, c relevant missed, "
        "d the rest of `num_docs`",
        matches="trec_eval `utility`",
    ),
    MetricDefinition(
        "err",
        "graded",
        Cascade(),
        formula="`sum_{r <= k} (1/r) R_r prod_{i<r} (1 - R_i)`, "
        "`R = (2^label - 1) / 2^max_grade` (option `max_grade`, default 4)",
        matches="gdeval / ir_measures `ERR@k`",
        ties=_tied("different grades"),
    ),
    MetricDefinition(
        "rbp",
        "binary",
        RankBiased(residual=False),
        formula="`(1 - p) sum_{i <= k} rel_i p^(i - 1)` (option `p`, default 0.9), `rel_i` 1 "
        "for a relevant document; trec_eval's `rbp` (`-m rbp` in rank-eval, `rbp_p=0.9` in "
        "`evaluate_run`): `rel_i` the grade over the query's largest judged grade where that "
        "is above 1, whatever the relevance level",
        matches="ir_measures `RBP(rel=level)`; trec_eval 10 `rbp` under its names",
    ),
    MetricDefinition(
        "rbp_resid",
        "counts",
        RankBiased(residual=True),
        takes_cutoff=False,
        formula="`p^n + (1 - p) sum_{unjudged i} p^(i - 1)` where the list of `n` has an "
        "unjudged document, else 0: what RBP could still gain",
        matches="trec_eval `rbp_resid`",
    ),
    MetricDefinition(
        "judged",
        "counts",
        Binary(_judged, _over_list, about_relevant=False),
        formula="judged documents (label >= 0) in the top `k` over `min(k, n)`",
        matches="ir_measures `Judged@k` (a negative judgment counts as unjudged here)",
    ),
    MetricDefinition(
        "unjudged",
        "counts",
        Binary(_unjudged, _over_cutoff, about_relevant=False),
        aliases=("unj",),
        formula="unjudged documents (label < 0) in the top `k`, over `k`",
        matches="trec_eval `unj`",
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
