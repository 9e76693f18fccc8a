"""The values of a metric@k curve: checked arguments, means per cutoff, the confidence band."""

import warnings

import numpy as np
from scipy.special import ndtri
from sklearn.exceptions import UndefinedMetricWarning

from .._engine._params import check_parameters
from .._engine._warnings import warn_caller
from .._engine.spec import ALIASES, METRICS
from ..metrics._query_results import left_out_messages

# The metrics with a cutoff that have a function of their own, and fallout (evaluate's
# only): each has a metric@k curve, its cutoff quantities having values at every cutoff.
_CURVES_WITHOUT_FUNCTION = ("fallout",)
CURVE_METRICS = tuple(
    name
    for name, d in METRICS.items()
    if d.takes_cutoff and (d.function is not None or name in _CURVES_WITHOUT_FUNCTION)
)

# The curve metrics that divide by k, with their value beyond the lists: they go on falling
# beyond the longest list, where every other curve metric keeps its value. Every curve stops
# at that end (so a huge k_max costs what the lists cost); for these, a k_max beyond it warns.
FALLING_BEYOND_LISTS = {"precision": "hits / k", "f1": "2 hits / (k + R)"}


def _offered():
    aliases = sorted(alias for alias, name in ALIASES.items() if name in CURVE_METRICS)
    return f"{', '.join(CURVE_METRICS)} (aliases {', '.join(aliases)})"


def _check_metric(metric, owner):
    """The definition of a metric that has a metric@k curve, or a ValueError naming those that do."""
    name = ALIASES.get(metric, metric) if isinstance(metric, str) else None
    if name in CURVE_METRICS:
        return METRICS[name]
    if name in METRICS:
        reason = (
            f"{name!r} has no cutoff k, so it has no metric@k curve"
            if not METRICS[name].takes_cutoff
            else f"{name!r} has no metric@k curve here"
        )
    elif isinstance(metric, str) and "@" in metric:
        reason = f"metric={metric!r} names a cutoff; the curve's cutoffs are k = 1 .. k_max"
    else:
        reason = f"metric={metric!r} is not a metric name"
    raise ValueError(f"{owner}: {reason}. Use one of {_offered()}, and k_max for the cutoffs.")


def _check_curve(k_max, confidence_band, owner):
    """``k_max`` as an int and the band's confidence level as a float (or None), checked."""
    check_parameters(owner, k_max=k_max, confidence_band=confidence_band)
    return int(k_max), None if confidence_band is None else float(confidence_band)


def _curve_results(definition, per_cutoff, band=False):
    """Means of ``name@k`` for each cutoff, one warning per kind of query left out.

    ``per_cutoff`` yields each cutoff's per-query :class:`QueryResults`
    (from one pass: :func:`~.._engine.run._curve.curve_results`, whose
    cutoffs stop at the curve's end). Each is reduced as soon as it comes
    (to its mean and, for a ``band``, what :func:`_normal_band` needs), so
    that the values of every query at every cutoff are never held at once.
    What was left out is said once for the curve (the same queries at every
    cutoff). Returns ``(means, spreads)``, ``spreads`` None without a band.
    """
    summaries, messages = [], {}
    label = f"{definition.name}@k (every k)"
    for results in per_cutoff:
        (name,) = results.metrics
        messages.update(dict.fromkeys(left_out_messages(results, label=label)))
        summaries.append((results.mean(name), _spread(results, name) if band else None))
    for message in messages:
        warn_caller(message, UndefinedMetricWarning)
    means = np.array([mean for mean, _ in summaries])
    return means, [spread for _, spread in summaries] if band else None


def _spread(results, name):
    """What the band needs of one cutoff's per-query values.

    ``(unequal query weights, pooled over items, queries counted, standard
    deviation with ddof=1)``; queries left out (NaN) do not count.
    """
    values = results[name]
    kept = ~np.isnan(values)
    unequal = results.query_weights is not None and np.ptp(results.query_weights) > 0
    weights = results.weights(name)[kept]
    pooled = bool(weights.size and np.ptp(weights) > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cutoff without variation
        deviation = np.std(values[kept], ddof=1) if kept.sum() > 1 else np.nan
    return unequal, pooled, int(kept.sum()), deviation


def _normal_band(means, spreads, metric, confidence_level, owner):
    """``means -/+ z se`` at every cutoff: the normal-approximation interval of the mean over queries.

    ``se`` is the standard deviation of the per-query values (``ddof=1``)
    over the square root of the number of queries (those left out of the
    mean, NaN, do not count); ``z`` the standard normal quantile of
    ``(1 + confidence_level) / 2``. ``spreads``: per cutoff, :func:`_spread`;
    ``metric``: the metric's name, for the messages.
    """
    unequal, pooled, counted, deviation = (np.array(column) for column in zip(*spreads))
    if unequal.any():
        raise ValueError(
            f"{owner}: confidence_band needs queries of equal weight; sample_weight weighs "
            "them unequally. Draw the weighted curve without a band (confidence_band=None)."
        )
    if pooled.any():
        raise ValueError(
            f"{owner}: confidence_band is a band around a mean over queries of equal "
            f"weight; {metric!r} is pooled over items. Use confidence_band=None."
        )
    if counted.min() < 2:
        raise ValueError(
            f"{owner}: confidence_band needs at least 2 queries with a value at every cutoff; "
            f"{int(counted.min())} has one. Use confidence_band=None, or evaluate more queries."
        )
    half_width = ndtri(0.5 + confidence_level / 2.0) * deviation / np.sqrt(counted)
    return means - half_width, means + half_width


def _warn_if_falling_beyond_the_end(metric, end, k_max, owner, example):
    """Say that a precision or f1 curve stops at ``end``, the longest list, before ``k_max``.

    Beyond the longest list these metrics go on falling (``hits / k``),
    which the curve does not draw; the metric's function gives any cutoff.
    """
    if metric not in FALLING_BEYOND_LISTS or end >= k_max:
        return
    warn_caller(
        f"{owner}: the {metric} curve stops at k={end}, the longest list, not at "
        f"k_max={k_max}; beyond it {metric}@k = {FALLING_BEYOND_LISTS[metric]} keeps falling. "
        f"The metric gives it at any k, e.g. {example}.",
        UserWarning,
    )


def _pyplot(owner):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            f"{owner} needs matplotlib, the 'plot' extra: "
            "pip install 'sklearn-rank-metrics[plot]' (or pip install matplotlib)."
        ) from None
    return plt
