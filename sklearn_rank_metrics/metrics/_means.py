"""Means over queries: the aggregates, and trec_eval's own order of adding them up.

Every mean of :class:`~._query_results.QueryResults` is a weighted mean of
per-query values (or of their logs, for a geometric mean), so results of
disjoint sets of queries combine exactly (the distributed ``evaluate``
adds partial sums of these terms).
"""

import numpy as np


# trec_eval's floor under a value before its logarithm in a geometric mean (MIN_GEO_MEAN).
GEOMETRIC_FLOOR = 1e-5


def aggregation_terms(values, aggregate):
    """The per-query terms an aggregate adds up: ``log(max(v, 1e-5))`` for a geometric mean."""
    return np.log(np.maximum(values, GEOMETRIC_FLOOR)) if aggregate == "geometric" else values


def aggregated(mean_or_sum, aggregate):
    """The aggregate from the (weighted) mean of its terms, or their sum for ``"sum"``."""
    return float(np.exp(mean_or_sum)) if aggregate == "geometric" else float(mean_or_sum)


def trec_aggregate(results, name, values):
    """The aggregate of ``name`` as trec_eval computes it: terms added left to right.

    trec_eval adds the queries' values (or their logs for a geometric mean)
    one by one in double precision, in its query order, and divides by the
    number of queries; a NaN value makes the aggregate NaN. ``values`` are
    ``results[name]`` in that order (or values standing for them); the
    aggregate (mean, sum or geometric mean) is the result's.
    """
    aggregate = results.aggregate(name)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        terms = aggregation_terms(np.asarray(values, dtype=np.float64), aggregate)
        total = float(np.add.accumulate(terms)[-1]) if terms.shape[0] else 0.0
        if aggregate != "sum":
            total = total / terms.shape[0] if terms.shape[0] else float("nan")
        return aggregated(total, aggregate)


def trec_order(query_ids):
    """The positions of ``query_ids`` in trec_eval's query order: ids as text, sorted as bytes."""
    ids = [str(query) for query in query_ids]
    return np.array(sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8")), dtype=np.intp)


def trec_means(results):
    """``{name: mean}`` of each metric of ``results``, as trec_eval computes it.

    NaN where a query's value is NaN (0 / 0), as trec_eval's mean of a -nan.
    """
    order = trec_order(results.query_ids)
    return {
        name: float("nan") if np.isnan(results[name]).any() else trec_mean(results, name, order)
        for name in results.metrics
    }


def trec_mean(results, name, order=None):
    """The mean of ``name`` as trec_eval and ``rank-eval`` compute it (:func:`trec_aggregate`).

    The defined values are added left to right in trec_eval's query order
    (:func:`trec_order`), then divided by their number: ``%.4f`` of it is
    the ``all`` line trec_eval prints, where :meth:`QueryResults.mean`'s
    pairwise sum can round the other way (0.50625 as 0.5063). Queries left
    out (NaN) do not count, as in :meth:`QueryResults.mean`; a pooled
    measure (weighted by the items each query pools) is that weighted
    mean, and a metric with no value left, or whose sum overflows, warns
    or raises as there. ``order``: :func:`trec_order` of the query ids,
    if known.
    """
    order = trec_order(results.query_ids) if order is None else order
    values = results[name][order]
    values = values[~np.isnan(values)]
    weighted = results.query_weights is not None or results._results[name].pool_weights is not None
    if weighted or not values.shape[0]:
        return results.mean(name)
    mean = trec_aggregate(results, name, values)
    return mean if np.isfinite(mean) else results.mean(name)


def scaled_by_power_of_two(weights):
    """``(weights / 2**e, e)``: the largest scaled weight in [0.5, 1) (``e = 0`` if none is > 0).

    A weighted mean is the same with the weights divided by a power of two,
    and the division is exact: weights of 1e308 then add up without
    overflowing, and subnormal weights (5e-324) times a value are not
    rounded to a few bits. Only weights below about 2**-1074 of the largest
    become 0, whose share of a mean float64 cannot hold anyway.
    """
    largest = weights.max(initial=0.0)
    if not largest > 0:
        return weights, 0
    exponent = int(np.frexp(largest)[1])
    return np.ldexp(weights, -exponent), exponent
