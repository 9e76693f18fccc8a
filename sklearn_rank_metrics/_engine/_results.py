"""From per-query values to what the caller asked for.

Applies the ``no_relevant`` convention, counts and reports skipped or
undefined queries, and averages with query weights.
"""

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning


def apply_no_relevant(values, no_relevant_mask, no_relevant, metric_name):
    """Set the value of queries without relevant documents per ``no_relevant``.

    Returns a new array; skipped queries are NaN and counted in a warning.
    """
    values = np.array(values, dtype=np.float64)
    if no_relevant_mask is None or not no_relevant_mask.any():
        return values
    if no_relevant == "zero":
        values[no_relevant_mask] = 0.0
    elif no_relevant == "one":
        values[no_relevant_mask] = 1.0
    else:
        values[no_relevant_mask] = np.nan
        n_skipped = int(no_relevant_mask.sum())
        warnings.warn(
            f"{metric_name}: {n_skipped} of {values.shape[0]} queries have no relevant "
            "document and were left out (no_relevant='skip'); their per-query value is NaN.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    return values


def warn_undefined(values, metric_name, reason):
    """Warn about queries whose value is NaN because the metric is undefined."""
    n_undefined = int(np.isnan(values).sum())
    if n_undefined:
        warnings.warn(
            f"{metric_name}: {n_undefined} of {values.shape[0]} queries are undefined "
            f"({reason}) and were left out of the mean; their per-query value is NaN.",
            UndefinedMetricWarning,
            stacklevel=4,
        )


def average_queries(values, query_weights=None, pool_weights=None, metric_name="metric"):
    """Weighted mean over the queries whose value is not NaN."""
    valid = ~np.isnan(values)
    weights = None
    if query_weights is not None or pool_weights is not None:
        weights = np.ones(values.shape[0])
        if query_weights is not None:
            weights = weights * query_weights
        if pool_weights is not None:
            weights = weights * pool_weights
        valid &= weights > 0
    if not valid.any():
        warnings.warn(
            f"{metric_name} is undefined: no query has a defined value with a positive "
            "weight; returning NaN.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return float("nan")
    if weights is None:
        return float(np.mean(values[valid]))
    return float(np.average(values[valid], weights=weights[valid]))
