"""The computations of graded metrics: NDCG, DCG and CG, trec_eval's gains per level, ERR.

Each says which quantities a request needs (a function of the request and
the call's :class:`~._request.PlanContext`) and how their per-query values
combine, with the relevant documents ``n_relevant`` counts outside the
lists where the ideal ranking needs them. The parameters these measures
declare (``gains`` per relevance level, ERR's ``max_grade``) are here,
next to the computations that read them.
"""

from dataclasses import dataclass

import numpy as np

from ..quantities import (
    CascadeGain,
    ExpectedGain,
    HasGain,
    IdealGain,
    PositiveGain,
    RelevantInList,
    discount_sums,
    level_gain,
)
from ._definition import Computation, Parameter, QueryValues


def ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = denominator > 0
        return np.where(positive, numerator / np.where(positive, denominator, 1), 0.0)


# ------------------------------------- gains per relevance level (trec_eval)
# trec_eval's ndcg, dcg, ndcg_rel, Rndcg and G take a gain per relevance
# level, the parameter ``gains``: ((level, gain), ...), levels not named keep
# their default gain (the level, or 2**level - 1 with gain="exponential").


def _sorted_levels(levels):
    return tuple(sorted((float(level), float(gain)) for level, gain in levels))


def _distinct_whole_levels(levels):
    whole = all(level >= 0 and level == int(level) and np.isfinite(gain) for level, gain in levels)
    return whole and len({level for level, _ in levels}) == len(levels)


GAINS_PER_LEVEL = Parameter(
    "gains",
    "finite gains of distinct relevance levels that are whole numbers >= 0, e.g. "
    "((1, 3.5), (2, 9.0))",
    default=(),
    accepts=lambda value: True,
    convert=_sorted_levels,
    check=_distinct_whole_levels,
)

MAX_GRADE = Parameter(
    "max_grade", "a grade above 0 (default 4)", default=4, check=lambda grade: grade > 0
)


def gain_levels(request, plan):
    """The request's gains per relevance level, checked: a tuple of ``(level, gain)``.

    They are its name's (trec_eval's ``ndcg.1=3.5``), or the call's
    ``label_gain``, which gives every label's gain: never both, nor
    ``label_gain`` with exponential gains.
    """
    levels = request.parameter("gains")
    if plan.label_gain:
        if levels:
            raise ValueError(
                f"{request.name}: the name gives gains per relevance level and label_gain "
                "gives the gain of every label; give the gains in one place."
            )
        if plan.gain != "linear":
            raise ValueError(
                f"{request.name}: label_gain gives the gain of every label, and "
                f"gain={plan.gain!r} another; leave "
                "gain at 'linear' with label_gain (label_gain=[0, 1, 3, 7, 15] is the "
                "exponential gain of labels 0 to 4)."
            )
        return plan.label_gain
    if levels and plan.judged and plan.gain == "linear":
        # trec_eval's gains (the level where not named): where its order can go wrong
        _check_trec_gain_order(levels, plan.judged_top, request.name)
    return levels


def finalized_levels(request, plan, run):
    """:func:`gain_levels`, where ``label_gain`` gives them with every label of the run checked.

    A label ``label_gain`` gives no gain (one it does not cover, or a
    fractional one) raises, naming the label; so does label 1 where
    ``n_relevant`` counts relevant documents outside the lists (their label).
    """
    levels = gain_levels(request, plan)
    if not plan.label_gain:
        return levels
    given = np.array([label for label, _ in levels])
    labels = run.rq.labels.values
    if labels is None:  # too many distinct labels to code: every label is read
        labels = np.unique(run.rq.input.y_true)
    missing = labels[~np.isin(labels, given)]
    covered = _labels_text(given)
    if missing.shape[0]:
        label = _plain(missing[0])
        if not float(label).is_integer():
            raise ValueError(
                f"{request.name}: y_true holds the label {label!r}; label_gain gives gains to "
                f"whole-number labels ({covered}), as LightGBM's label_gain: give y_true "
                "whole-number grades, or leave label_gain at None for the gain of gain=."
            )
        raise ValueError(
            f"{request.name}: y_true holds the label {label!r}, which label_gain gives no "
            f"gain (it gives {covered}); give label_gain a gain for every label of y_true."
        )
    if run.unlisted_relevant().any() and 1.0 not in given:
        raise ValueError(
            f"{request.name}: n_relevant counts relevant documents outside the lists, of "
            f"label 1, which label_gain gives no gain (it gives {covered}); give label 1 a "
            "gain."
        )
    return levels


def _plain(value):
    """A label as a Python number: an int where whole."""
    value = value.item()
    return int(value) if float(value).is_integer() else value


def _labels_text(labels):
    """``labels 0 to 4`` or ``labels 0, 2, 5`` (``labels``: sorted whole floats)."""
    whole = [int(label) for label in labels]
    if whole == list(range(whole[0], whole[0] + len(whole))) and len(whole) > 2:
        return f"labels {whole[0]} to {whole[-1]}"
    return "label " + str(whole[0]) if len(whole) == 1 else f"labels {', '.join(map(str, whole))}"


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


def _check_finite(request, plan, run, *values):
    """Raise where gains per level (never scaled) add up beyond float64."""
    if not all(np.isfinite(v).all() for v in values):
        raise ValueError(
            f"{request.name}: the gains add up beyond float64 with gain={plan.gain!r} "
            f"(labels up to {run.rq.labels.top:g}); use gain='linear', smaller labels, "
            "or name the gains of the large levels."
        )


def _scaled_gains(plan):
    """Whether NDCG scales its gains; an error where judged documents' gains could overflow.

    With judged documents the ideal DCG is theirs, scaled per query by their
    own largest label: a ratio to it would be wrong, so gains that large are
    an error there.
    """
    if plan.judged and plan.scaled_gains:
        raise ValueError(
            f"relevance grades up to {plan.judged_top:g} have gains too large "
            f"to add up in float64 with gain={plan.gain!r}; use gain='linear' or "
            "smaller grades."
        )
    return plan.scaled_gains


@dataclass(frozen=True)
class GainRatio(Computation):
    """NDCG: expected DCG over ideal DCG, gains scaled per query where they could overflow."""

    reads_scaled_gains = True

    def needs(self, request, plan):
        levels = gain_levels(request, plan)
        if levels:
            return (
                ExpectedGain(request.k, discounted=True, levels=levels),
                IdealGain(request.k, levels=levels),
                *plan.relevant_set_quantities(ideal=True),
            )
        scaled = _scaled_gains(plan)
        return (
            ExpectedGain(request.k, discounted=True, scaled=scaled),
            IdealGain(request.k, scaled=scaled),
            *plan.relevant_set_quantities(ideal=True),
        )

    def finalize(self, request, plan, values, run):
        gain, ideal, *_ = values
        levels = finalized_levels(request, plan, run)
        if levels:  # unscaled gains
            _check_finite(request, plan, run, gain, ideal)
        ideal = _ideal_with_unlisted(request, plan, run, levels, ideal)
        return QueryValues(ratio(gain, ideal), no_relevant=ideal == 0)


def _first_unlisted(run, unlisted):
    """``n_relevant[id] = R``, for the first query of the mask ``unlisted``."""
    q = int(np.flatnonzero(unlisted)[0])
    return f"n_relevant[{run.rq.input.query_name(q)!r}] = {int(run.n_relevant[q])}"


# How to give what the relevant documents outside the lists are, for the errors.
_FULL_RELEVANCE = (
    "Evaluate a run against its qrels with evaluate_run (they give every grade), or pass "
    "the full relevance of every item: each relevant document the list left out in y_true "
    "too, scored below the list."
)


def _ideal_with_unlisted(request, plan, run, levels, ideal):
    """NDCG's ideal DCG where ``n_relevant`` counts relevant documents the list does not hold.

    In a query of labels 0 and 1 (relevant at the call's level), those
    documents have label 1: the ideal of ``R`` documents of gain ``g(1)``,
    ``g(1) sum_{i < min(R, k)} 1 / log2(i + 2)``. In a query of graded labels
    their grades are unknown: a ValueError. Each query on its own labels.
    """
    unlisted = run.unlisted_relevant()
    if not unlisted.any():
        return ideal
    gain = _unlisted_gain(request, plan, run, levels)
    total = run.total_relevant(plan.relevance_level)
    cut = total if request.k is None else np.minimum(total, request.k)
    sums = discount_sums(cut, run.rq.discount_cumsum, "n_relevant")
    return np.where(unlisted, gain * sums, ideal)


def _unlisted_gain(request, plan, run, levels):
    """The gain of the relevant documents outside the lists (label 1), or a ValueError.

    The error names the first query with such documents whose own labels
    are graded: each query is decided on its own labels.
    """
    function = level_gain(plan.gain, levels)
    unknown = run.unknown_grades(function)
    if unknown.any():
        raise ValueError(
            f"{request.name}: {_first_unlisted(run, unknown)} counts relevant documents "
            "that are not in the list, and that query's labels are graded (not only 0 and 1, "
            "relevant at relevance_level <= 1), so the ideal ranking needs their grades, which "
            f"n_relevant does not give. {_FULL_RELEVANCE}"
        )
    return run.unlisted_gain(function)


@dataclass(frozen=True)
class GainSum(Computation):
    """DCG or CG: the raw (discounted) gain sum, which must fit in a float64."""

    discounted: bool

    def needs(self, request, plan):
        levels = gain_levels(request, plan)
        has_gain = PositiveGain(levels) if levels else HasGain()
        return (
            ExpectedGain(request.k, discounted=self.discounted, levels=levels),
            has_gain,
            *plan.relevant_set_quantities(),
        )

    def finalize(self, request, plan, values, run):
        sums, has_gain, *_ = values
        finalized_levels(request, plan, run)
        # Relevant documents outside the list (n_relevant): the query has some.
        has_gain = (has_gain > 0) | run.unlisted_relevant()
        if not np.isfinite(sums).all():
            gain = plan.gain
            other_gain = " gain='linear'," if gain == "exponential" else ""
            what = "discounted cumulative gain" if self.discounted else "cumulative gain"
            raise ValueError(
                f"the {what} overflows float64: with gain={gain!r}, labels up to "
                f"{run.rq.labels.top:g} have gains too large to add up. Use "
                f"ndcg_score, which is exact for any labels,{other_gain} or smaller labels."
            )
        return QueryValues(sums, no_relevant=~has_gain)


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

    def needs(self, request, plan):
        levels = gain_levels(request, plan)
        relevant = (RelevantInList(self.level(request, plan)),) if self.r_levels else ()
        return (
            self.ranked(levels),
            PositiveGain(levels),
            *relevant,
            *plan.relevant_set_quantities(ideal=True),
        )

    def finalize(self, request, plan, values, run):
        value, positive, *_ = values
        levels = finalized_levels(request, plan, run)
        unlisted = run.unlisted_relevant()
        if unlisted.any():
            # Labels 0 and 1: the documents of positive gain are the R relevant ones.
            gain = _unlisted_gain(request, plan, run, levels)
            total = run.total_relevant(plan.relevance_level)
            positive = np.where(unlisted, gain * total, positive)
        _check_finite(request, plan, run, value, positive)
        if (positive >= self.max_total).any():
            raise ValueError(
                f"{request.name}: a query's gains add up to {positive.max():g}, where "
                f"log2(2 + ...) loses the 2 in float64 (from {self.max_total:g}); use "
                "gain='linear', smaller labels, or smaller gains per level."
            )
        if not self.r_levels:
            return QueryValues(value, no_relevant=positive == 0)
        total = run.total_relevant(self.level(request, plan))
        undefined = (positive == 0) & (total > 0)
        return QueryValues(
            np.where(undefined, np.nan, value),
            no_relevant=total == 0,
            undefined_reason="relevant documents, none of positive gain",
        )


@dataclass(frozen=True)
class Cascade(Computation):
    """ERR@k (Chapelle et al. 2009), grades up to the parameter ``max_grade``."""

    def needs(self, request, plan):
        max_grade = request.parameter("max_grade")
        return CascadeGain(request.k, max_grade), HasGain(), *plan.relevant_set_quantities()

    def finalize(self, request, plan, values, run):
        value, has_gain, *_ = values
        return QueryValues(value, no_relevant=~(has_gain | run.unlisted_relevant()))

