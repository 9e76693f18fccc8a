"""Finalize: each request's per-query values, with what was left out, as data.

A computation yields :class:`~..spec.QueryValues`; :func:`finish` applies
the ``no_relevant`` convention and marks the queries left out (skipped: no
relevant document under ``no_relevant="skip"``; undefined: a NaN value, and
why) in a :class:`MetricResult`. Nothing here warns: the public layer reads
those marks and warns once, at its boundary (see
:mod:`sklearn_rank_metrics.metrics._query_results`).
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MetricResult:
    """One metric's per-query results: values and what was left out of them."""

    values: np.ndarray  # NaN where skipped or undefined
    skipped: np.ndarray  # no relevant document, left out (no_relevant="skip")
    undefined: np.ndarray  # the value is undefined (reason below)
    undefined_reason: str | None
    pool_weights: np.ndarray | None
    aggregate: str = "mean"


@dataclass(frozen=True)
class RunResults:
    """What a run returns: per-metric results of its queries, in sorted query-id order.

    The public layer wraps them into a
    :class:`~sklearn_rank_metrics.QueryResults` (``QueryResults(query_ids,
    metrics, query_weights)``).
    """

    query_ids: np.ndarray
    metrics: dict  # request name -> MetricResult
    query_weights: np.ndarray | None = None


def finalized(evaluation, request, needs, context, order=None):
    """The :class:`MetricResult` of ``request``, whose quantities ``evaluation`` computed.

    ``needs``: the quantities the request's plan asked for; ``context``: the
    plan's :class:`~..spec.PlanContext`. The one place the run layer asks a
    computation to finalize: it receives the values of what it needed, and
    reads cutoffs and totals from the evaluation (a :class:`~..spec._request.RunView`).
    """
    computation = request.definition.computation
    values = [evaluation.value(quantity) for quantity in needs]
    query_values = computation.finalize(request, context, values, evaluation)
    no_relevant = evaluation.options.no_relevant
    return finish(query_values, no_relevant, order, request.definition.aggregate)


def finish(query_values, no_relevant, order=None, aggregate="mean"):
    """Apply ``no_relevant``, mark what is left out; a :class:`MetricResult`.

    ``order`` puts the queries in sorted-id order (None: they are already);
    ``aggregate`` is how :meth:`QueryResults.mean` combines the queries.
    """
    pool_weights = query_values.pool_weights
    values = np.array(query_values.values, dtype=np.float64)
    mask = query_values.no_relevant
    if order is not None:
        values = values[order]
        mask = None if mask is None else mask[order]
        pool_weights = None if pool_weights is None else pool_weights[order]
    skipped = np.zeros(values.shape[0], dtype=bool)
    if mask is not None and mask.any():
        if no_relevant == "skip":
            skipped = mask.copy()
            values[skipped] = np.nan
        else:
            values[mask] = 1.0 if no_relevant == "one" else 0.0
    undefined = np.isnan(values) & ~skipped
    values.flags.writeable = False
    return MetricResult(
        values, skipped, undefined, query_values.undefined_reason, pool_weights, aggregate
    )


def _joined(parts):
    """One array of the arrays ``parts`` (None where they are None)."""
    return None if parts[0] is None else np.concatenate(parts)


def concatenated(results):
    """One :class:`RunResults` of runs on consecutive queries (strips of a matrix), in order.

    Each query's values are its own (they never depend on the other queries
    of a run), so the runs' values are those one run of every query gives.
    """
    if len(results) == 1:
        return results[0]
    metrics = {}
    for name, first in results[0].metrics.items():
        parts = [result.metrics[name] for result in results]
        reasons = [part.undefined_reason for part in parts if part.undefined_reason]
        values = np.concatenate([part.values for part in parts])
        values.flags.writeable = False
        metrics[name] = MetricResult(
            values,
            np.concatenate([part.skipped for part in parts]),
            np.concatenate([part.undefined for part in parts]),
            reasons[0] if reasons else None,
            _joined([part.pool_weights for part in parts]),
            first.aggregate,
        )
    return RunResults(
        np.concatenate([result.query_ids for result in results]),
        metrics,
        _joined([result.query_weights for result in results]),
    )


def first_queries(results, n_queries):
    """The :class:`RunResults` of the first ``n_queries`` queries of ``results`` (the rest dropped)."""
    if results.query_ids.shape[0] == n_queries:
        return results
    metrics = {
        name: MetricResult(
            result.values[:n_queries], result.skipped[:n_queries],
            result.undefined[:n_queries], result.undefined_reason,
            None if result.pool_weights is None else result.pool_weights[:n_queries],
            result.aggregate,
        )  # fmt: skip
        for name, result in results.metrics.items()
    }
    weights = results.query_weights
    return RunResults(
        results.query_ids[:n_queries], metrics, None if weights is None else weights[:n_queries]
    )
