"""What the Dask and Spark front ends share: options, one partition's evaluation, the means.

Both front ends do the same three things and differ only in how their engine
moves data:

1. :func:`make_plan` checks the arguments on the client, before any work is
   sent out (``average`` and ``n_relevant`` against the parameter table, by
   the front end): the columns exist, and the metric names and options are accepted by
   :func:`~sklearn_rank_metrics.evaluate` itself (it is called once on a
   one-document input, so the messages are its own).
2. :func:`evaluate_partition` runs the in-memory
   :func:`~sklearn_rank_metrics.evaluate` on one pandas partition holding
   whole queries and returns one row per query: the query id, each metric's
   value, its weight in the mean (:meth:`QueryResults.weights`, as a
   fraction and a power of two, so that no weight overflows) and whether
   the query was skipped (``no_relevant="skip"``) or undefined. The engine
   runs on the threads the task owns (``config_context(n_threads=...)``),
   and its warnings are counted instead of raised on the worker.
3. :func:`partial_sums` reduces such rows to one row of exact partial sums
   (:func:`math.fsum`) per partition, and :func:`combine` adds the partial
   sums of all partitions (again with :func:`math.fsum`) on the client into
   the means, with the warnings :meth:`QueryResults.mean` would give, counted
   over all partitions. ``fsum`` is correctly rounded whatever the order of
   its terms, so the means do not depend on how the queries are partitioned
   and agree with the in-memory means to a few units in the last place; only
   one small row per partition reaches the client, never a row of the input.

A shuffle does not keep the order of a query's rows, and ``ties="first"``
ranks tied documents in that order. Under it (and only there: the other tie
modes give the same numbers in any row order) the rows carry a column that
orders them, the user's ``order_by`` column or their position in the input
(see :func:`order_column`), and :func:`evaluate_partition` sorts each
partition by it before the engine sees it.
"""

import math
from dataclasses import dataclass, replace

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._engine._options import Options
from ._engine._warnings import warn_caller
from ._engine.prepare._prepare import Inputs
from ._engine.prepare._validation import plain
from .metrics._evaluate import evaluate_requests, requests_for
from .metrics._means import aggregated, aggregation_terms
from .metrics._query_results import skipped_message

WEIGHT, SKIPPED, UNDEFINED = "weight", "skipped", "undefined"
# A query's weight is ``weight * 2**weight_exponent`` (see scaled_by_power_of_two).
EXPONENT = "weight_exponent"
# Columns of the partial sums, per metric: sum of value * weight, sum of weights
# (both with the weights divided by 2**weight_exponent), that exponent,
# queries, queries skipped, queries undefined.
_SUMS = ("weighted_sum", "weight_sum")
_COUNTS = (EXPONENT, "queries", SKIPPED, UNDEFINED)
N_RELEVANT_FOUND = "n_relevant_found"


def require(extra, modules):
    """Import ``modules`` (names), or raise an ImportError naming the extra that installs them."""
    import importlib

    try:
        return [importlib.import_module(name) for name in modules]
    except ImportError as error:
        raise ImportError(
            f"sklearn_rank_metrics.{extra} needs {', '.join(modules)} ({error}); install them "
            f'with: pip install "sklearn-rank-metrics[{extra}]"'
        ) from error


def column(kind, metric):
    """Name of the ``kind`` column (weight, skipped, undefined, a partial sum) of ``metric``."""
    return f"{kind}[{metric}]"


@dataclass(frozen=True)
class Plan:
    """The checked arguments of one distributed evaluation (sent to the workers)."""

    label: str
    score: str
    qid: str
    sample_weight: str | None
    metrics: tuple
    n_relevant: dict | None
    options: Options  # without n_relevant, which each partition takes its part of
    aggregates: dict  # metric name -> "mean", "sum" or "geometric" (QueryResults.aggregate)

    @property
    def columns(self):
        """The input columns the evaluation reads."""
        weight = [] if self.sample_weight is None else [self.sample_weight]
        return [self.qid, self.label, self.score, *weight]


# The options of the in-memory evaluate that a distributed evaluate passes on.
_OPTIONS = ("gain", "label_gain", "relevance_level", "ties", "no_relevant", "ap_denominator")


def make_plan(columns, *, label, score, qid, metrics, sample_weight, n_relevant, options):
    """Check the arguments of a distributed ``evaluate`` against the frame's ``columns``.

    The caller has checked ``average`` and ``n_relevant`` against the parameter table.
    """
    for argument, name in [("label", label), ("score", score), ("qid", qid),
                           ("sample_weight", sample_weight)]:  # fmt: skip
        if name is not None and name not in columns:
            raise ValueError(
                f"{argument}={name!r} is not a column of the DataFrame (columns: "
                f"{list(columns)}); pass the name of the column that holds it."
            )
    if n_relevant is not None:
        n_relevant = dict(n_relevant)
    unknown = [name for name in options if name not in _OPTIONS]
    if unknown:
        raise TypeError(f"evaluate() got an unexpected keyword argument {unknown[0]!r}")
    options = Options.checked("evaluate", **options)
    requests = requests_for(metrics)
    # The engine's own checks of names and options, on one document (of a label that
    # label_gain gives a gain, where it gives them).
    probe_label = options.gain_levels[0][0] if options.gain_levels else 1
    probe = evaluate_requests(requests, Inputs([probe_label], [0.0], [0]), options)
    aggregates = {name: probe.aggregate(name) for name in probe.metrics}
    return Plan(label, score, qid, sample_weight, probe.metrics, n_relevant, options, aggregates)


def order_column(plan, columns, order_by, *, position):
    """The column that orders each query's rows for the engine, or None when order is free.

    Only ``ties="first"`` ranks tied documents by row order. Then the rows
    are ordered by ``order_by`` (a column of ``columns``) or, where it is
    None and ``position`` is a name, by their position in the input, which
    the front end attaches under that name before its shuffle (a name not
    among the columns evaluated). With neither, raises: the front end has
    no order of the rows to keep.
    """
    if order_by is not None and order_by not in columns:
        raise ValueError(
            f"order_by={order_by!r} is not a column of the DataFrame (columns: "
            f"{list(columns)}); pass the name of the column that orders each query's rows."
        )
    if plan.options.ties != "first":
        return None
    if order_by is None:
        if position is None:
            raise ValueError(
                'ties="first" ranks tied documents in row order, and a Spark DataFrame has no '
                "row order; pass order_by=<column> naming a column whose values order the "
                "rows of each query (e.g. a rank or row number), or use another tie mode "
                '(ties="average" gives the exact value over all orders).'
            )
        while position in plan.columns:
            position = f"_{position}"
        return position
    return order_by


def in_row_order(frame, plan, order):
    """``frame`` sorted by the column ``order``; raises where it leaves a query's order open."""
    keys = frame[order]
    if keys.isna().any():
        raise ValueError(
            f"order_by={order!r} has missing values; ties=\"first\" needs a value on every "
            "row to order the rows of each query."
        )
    repeated = frame.duplicated([plan.qid, order])
    if repeated.any():
        query = frame[plan.qid][repeated].iloc[0]
        value = keys[repeated].iloc[0]
        raise ValueError(
            f"order_by={order!r} has the value {plain(value)!r} on more than one row of "
            f"query {plain(query)!r}, so those rows have no order for ties=\"first\"; pass a "
            "column whose values differ within each query."
        )
    return frame.sort_values(order, kind="stable")


def evaluate_partition(frame, plan, n_threads, order=None):
    """Evaluate one pandas partition of whole queries: one row per query.

    Columns: the query id (``plan.qid``, the input's dtype), then per metric
    its value (named as the metric), ``weight[metric]`` and
    ``weight_exponent[metric]`` (its weight in the mean is
    ``weight * 2**weight_exponent``), ``skipped[metric]`` and
    ``undefined[metric]``; plus ``n_relevant_found``, the number of
    ``n_relevant`` keys that are queries of this partition (on the first
    row only; 0 elsewhere). ``order``: the column that orders each query's
    rows (see :func:`order_column`), or None to keep the rows as they are.
    """
    import pandas as pd

    from . import config_context

    if order is not None and len(frame):
        frame = in_row_order(frame, plan, order)
    ids = frame[plan.qid]
    if len(frame) == 0:
        return _frame(pd, ids.iloc[:0], plan, None, 0)
    qid = ids.to_numpy()
    n_relevant = None
    if plan.n_relevant is not None:
        present = set(pd.unique(qid).tolist())
        n_relevant = {key: value for key, value in plan.n_relevant.items() if key in present}
    weights = None if plan.sample_weight is None else frame[plan.sample_weight].to_numpy()
    options = replace(plan.options, n_relevant=n_relevant or None)
    inputs = Inputs(frame[plan.label].to_numpy(), frame[plan.score].to_numpy(), qid, weights)
    with config_context(n_threads=n_threads):
        # No warning here: what was left out is counted by combine.
        results = evaluate_requests(requests_for(list(plan.metrics)), inputs, options)
    query_ids = pd.Series(results.query_ids, dtype=ids.dtype)
    return _frame(pd, query_ids, plan, results, len(n_relevant or ()))


def _frame(pd, query_ids, plan, results, n_relevant_found):
    n = len(query_ids)
    data = {plan.qid: query_ids.reset_index(drop=True)}
    for name in plan.metrics:
        if results is None:
            data[name] = np.zeros(0)
            data[column(WEIGHT, name)] = np.zeros(0)
            data[column(EXPONENT, name)] = np.zeros(0, dtype=np.int64)
            data[column(SKIPPED, name)] = np.zeros(0, dtype=bool)
            data[column(UNDEFINED, name)] = np.zeros(0, dtype=bool)
        else:
            data[name] = np.array(results[name])
            weights, exponent = results._scaled_weights(name)
            data[column(WEIGHT, name)] = weights
            data[column(EXPONENT, name)] = np.full(n, exponent, dtype=np.int64)
            data[column(SKIPPED, name)] = results.skipped(name)
            data[column(UNDEFINED, name)] = results.undefined(name)[0]
    found = np.zeros(n, dtype=np.int64)
    found[:1] = n_relevant_found
    data[N_RELEVANT_FOUND] = found
    return pd.DataFrame(data)


def partial_sums(frames, plan):
    """Reduce per-query rows (a pandas frame or an iterator of them) to one row of partial sums."""
    import pandas as pd

    if isinstance(frames, pd.DataFrame):
        frames = [frames]
    frames = list(frames)
    frame = pd.concat(frames, ignore_index=True) if len(frames) != 1 else frames[0]
    row = {}
    for name in plan.metrics:
        weights = frame[column(WEIGHT, name)].to_numpy(dtype=np.float64)
        valid = weights > 0
        values = frame[name].to_numpy(dtype=np.float64)[valid]
        values = aggregation_terms(values, plan.aggregates[name])
        # The rows' weights, each over its own partition's power of two, over
        # the largest of those powers (exact: their shares of the mean stay).
        exponents = frame[column(EXPONENT, name)].to_numpy(dtype=np.int64)[valid]
        exponent = int(exponents.max()) if exponents.size else 0
        weights = np.ldexp(weights[valid], exponents - exponent)
        row[column("weighted_sum", name)] = [math.fsum(values * weights)]
        row[column("weight_sum", name)] = [math.fsum(weights)]
        row[column("weight_exponent", name)] = [exponent]
        row[column("queries", name)] = [len(frame)]
        row[column(SKIPPED, name)] = [int(frame[column(SKIPPED, name)].sum())]
        row[column(UNDEFINED, name)] = [int(frame[column(UNDEFINED, name)].sum())]
    row[N_RELEVANT_FOUND] = [int(frame[N_RELEVANT_FOUND].sum())]
    return pd.DataFrame(row)


def partial_sums_schema(plan):
    """The columns of :func:`partial_sums` and their kinds ("float" or "int"), in order."""
    kinds = [(column(kind, name), "float" if kind in _SUMS else "int")
             for name in plan.metrics for kind in _SUMS + _COUNTS]  # fmt: skip
    return [*kinds, (N_RELEVANT_FOUND, "int")]


def per_query_schema(plan):
    """The columns after the query id in :func:`evaluate_partition`, with kinds."""
    kinds = []
    for name in plan.metrics:
        kinds += [(name, "float"), (column(WEIGHT, name), "float"),
                  (column(EXPONENT, name), "int"), (column(SKIPPED, name), "bool"),
                  (column(UNDEFINED, name), "bool")]  # fmt: skip
    return [*kinds, (N_RELEVANT_FOUND, "int")]


def combine(partials, plan):
    """The means ``{metric: mean}`` from the partial sums of every partition (a pandas frame).

    Warns as :meth:`QueryResults.mean` and ``evaluate`` do, with counts over
    all partitions; raises if an ``n_relevant`` key is no query of the input.
    """
    if plan.n_relevant is not None:
        found = int(partials[N_RELEVANT_FOUND].sum())
        if found < len(plan.n_relevant):
            raise ValueError(
                f"n_relevant has {len(plan.n_relevant) - found} key(s) that are no query id of "
                "the input (same type and value needed); remove them or correct them."
            )
    means = {}
    for name in plan.metrics:
        n_queries = int(partials[column("queries", name)].sum())
        skipped = int(partials[column(SKIPPED, name)].sum())
        undefined = int(partials[column(UNDEFINED, name)].sum())
        if skipped:
            warn_caller(skipped_message(name, skipped, n_queries), UndefinedMetricWarning)
        if undefined:
            warn_caller(
                f"{name}: {undefined} of {n_queries} queries are undefined and were left out "
                "of the mean; their per-query value is NaN.",
                UndefinedMetricWarning,
            )
        weight_sums = partials[column("weight_sum", name)].to_numpy(dtype=np.float64)
        if not (weight_sums > 0).any():
            warn_caller(
                f"{name} is undefined: no query has a defined value with a positive weight; "
                "returning NaN.",
                UndefinedMetricWarning,
            )
            means[name] = float("nan")
            continue
        # Each partition's sums are over its weights divided by its own power
        # of two: bring them to the largest one (exact), then add them up.
        kept = weight_sums > 0
        exponents = partials[column("weight_exponent", name)].to_numpy(dtype=np.int64)[kept]
        largest = int(exponents.max())
        weighted_sums = partials[column("weighted_sum", name)].to_numpy(dtype=np.float64)[kept]
        weight_sum = math.fsum(np.ldexp(weight_sums[kept], exponents - largest))
        total = math.fsum(np.ldexp(weighted_sums, exponents - largest))
        aggregate = plan.aggregates[name]
        if aggregate == "sum":
            with np.errstate(over="ignore"):
                total = float(np.ldexp(total, largest))
            if math.isinf(total):
                raise ValueError(
                    f"the sum of {name} overflows float64: the weights are too large to add "
                    "up; use a smaller sample_weight."
                )
        means[name] = aggregated(total if aggregate == "sum" else total / weight_sum, aggregate)
    return means


def task_threads(extra):
    """Threads the engine may use in the current task: the CPUs of one task slot.

    Dask (``extra="dask"``): 1. A Dask worker runs as many tasks at once as
    it has threads, and Dask sizes workers so that threads x workers = cores
    (its nanny also sets ``OMP_NUM_THREADS=1``), so each task owns one core.
    Spark: the CPUs of a task, ``spark.task.cpus`` (1 by default).
    """
    if extra == "spark":
        from pyspark import TaskContext

        context = TaskContext.get()
        return max(1, int(context.cpus())) if context is not None else 1
    return 1
