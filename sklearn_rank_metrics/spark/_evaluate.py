"""``evaluate`` on a Spark DataFrame: repartition by query, the engine per partition via Arrow."""

from functools import partial

import pandas as pd
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .._distributed import (
    combine,
    evaluate_partition,
    make_plan,
    order_column,
    partial_sums,
    partial_sums_schema,
    per_query_schema,
    task_threads,
)
from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from ..metrics._evaluate import DEFAULT_METRICS

_TYPES = {"float": T.DoubleType(), "int": T.LongType(), "bool": T.BooleanType()}


def _evaluate_batches(batches, plan, order):
    # mapInPandas cuts a partition into Arrow batches wherever; a query may span two.
    batches = list(batches)
    if batches:
        frame = pd.concat(batches, ignore_index=True)
        yield evaluate_partition(frame, plan, task_threads("spark"), order)


def _sum_batches(batches, plan):
    yield partial_sums(batches, plan)


def _schema(first, kinds):
    return T.StructType([*first, *[T.StructField(name, _TYPES[kind]) for name, kind in kinds]])


@document_parameters(extra={"n_relevant": "Shipped with the task closure."})
def evaluate(
    sdf,
    *,
    label="label",
    score="score",
    qid="qid",
    metrics=DEFAULT_METRICS,
    average="mean",
    sample_weight=None,
    n_relevant=None,
    partitioned_by_query=False,
    order_by=None,
    **options,
):
    """Compute ranking metrics of a Spark DataFrame with one row per document.

    The rows are repartitioned by query id (hash partitioning into
    ``spark.sql.shuffle.partitions`` partitions), so all rows of a query
    meet in one partition; ``mapInPandas`` hands each partition to the
    in-memory :func:`sklearn_rank_metrics.evaluate` through Arrow; a second
    ``mapInPandas`` reduces each partition's per-query values to exact
    partial sums (:func:`math.fsum`), and the driver adds those (one row per
    partition) into the means. Per-query values are those of the in-memory
    ``evaluate`` on the same rows, bit for bit; the means agree with it to a
    few units in the last place.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per document, queries in any partitions and any order.
    label, score, qid : str, default="label", "score", "qid"
        The columns of relevance labels, predicted scores and query ids
        (integer or string columns).
    metrics : str or sequence of str, default=("ndcg@10", "map@100", "mrr@10", "recall@100")
        Metric names, as in :func:`sklearn_rank_metrics.evaluate`.
    average : {"mean", None}, default="mean"
        "mean": run the job now and return ``{metric: mean}``. None: return
        a Spark DataFrame (lazy) with the query-id column (named as in
        ``qid``) and one double column per metric, one row per query, NaN
        where a query is left out; it is not sorted.
    sample_weight : str, default=None
        The column of query weights (equal on the rows of a query), or None.
    partitioned_by_query : bool, default=False
        True declares that each partition of ``sdf`` already holds all the
        rows of its queries - e.g. ``sdf`` comes out of
        ``repartition("qid")`` (kept with ``cache()``), or out of a table
        bucketed by query id and read with bucketing on: the repartition is
        skipped. Partitions of a plain Parquet read are cut by size and may
        cut a query; don't declare it there. With ``average="mean"`` the
        declaration is checked (a query found in two partitions raises a
        ValueError, at the cost of evaluating twice unless cached); with
        ``average=None`` a query cut in two shows as two rows of its id.
    order_by : str, default=None
        Needed by ``ties="first"`` only, which ranks tied documents in row
        order: the column whose values order the rows of each query (e.g. a
        row number or the rank in a retrieval run; they must differ within
        a query). A Spark DataFrame has no row order of its own (a shuffle,
        a read in parallel or a retried task may deliver its rows in
        another order), so ``ties="first"`` without ``order_by`` raises a
        ValueError. The other tie modes give the same numbers in any row
        order and ignore it.
    **options
        Every other option of :func:`sklearn_rank_metrics.evaluate`:
        ``ties``, ``gain``, ``label_gain``, ``ap_denominator``,
        ``relevance_level``, ``no_relevant``.

    Returns
    -------
    means : dict of {str: float} or pyspark.sql.DataFrame
        The means, in the order of ``metrics``; with ``average=None`` the
        per-query values.

    Raises
    ------
    ValueError
        If a column, metric or option is wrong (checked on the driver
        before any job runs), ``ties="first"`` comes without ``order_by``,
        an ``n_relevant`` key is no query id of the data, or
        ``partitioned_by_query=True`` is not true of the data. Where
        ``order_by`` has a missing value or one value on two rows of a
        query, the job fails with that message.

    See Also
    --------
    sklearn_rank_metrics.evaluate : The same metrics in memory.
    sklearn_rank_metrics.dask.evaluate : The same on a dask DataFrame.

    Notes
    -----
    Costs: one shuffle of the columns used (skipped with
    ``partitioned_by_query=True``); each task holds one partition in pandas
    and runs the engine on ``spark.task.cpus`` threads (1 by default), so the
    executor's task slots are not oversubscribed. Under ``ties="first"`` the
    ``order_by`` column travels too and each partition is sorted by it, so
    the numbers are those of the in-memory ``evaluate`` of the rows ordered
    by it (``sdf.orderBy(order_by).toPandas()``). Spark's own
    ``RankingMetrics`` takes lists per query already ranked and has
    conventions of its own; ``docs/scaling_out.md`` says which options of
    this package reproduce each of its numbers.

    References
    ----------
    .. [1] M. Zaharia et al., "Apache Spark: A Unified Engine for Big Data
       Processing", Communications of the ACM 59(11), 2016.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from sklearn_rank_metrics.spark import evaluate  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> sdf = spark.createDataFrame(
    ...     [(1, 2, 0.9), (2, 0, 0.7), (1, 0, 0.8), (2, 0, 0.2), (1, 1, 0.1), (2, 1, 0.3)],
    ...     ["qid", "label", "score"])  # doctest: +SKIP
    >>> evaluate(sdf, metrics=["ndcg@2", "mrr"])  # doctest: +SKIP
    {'ndcg@2': 0.69555..., 'mrr': 0.75}
    """
    check_parameters("spark.evaluate", average=average, n_relevant=n_relevant)
    plan = make_plan(
        sdf.columns, label=label, score=score, qid=qid, metrics=metrics,
        sample_weight=sample_weight, n_relevant=n_relevant, options=options,
    )  # fmt: skip
    order = order_column(plan, sdf.columns, order_by, position=None)
    selected = plan.columns if order in (None, *plan.columns) else [*plan.columns, order]
    data = sdf.select(*[F.col(f"`{name}`") for name in selected])
    if not partitioned_by_query:
        data = data.repartition(F.col(f"`{plan.qid}`"))
    qid_field = T.StructField(plan.qid, sdf.schema[plan.qid].dataType)
    per_query = data.mapInPandas(
        partial(_evaluate_batches, plan=plan, order=order), _schema([qid_field], per_query_schema(plan))
    )
    if average is None:
        return per_query.select(*[F.col(f"`{name}`") for name in [plan.qid, *plan.metrics]])
    if partitioned_by_query:
        per_query = per_query.cache()
        repeated = per_query.groupBy(F.col(f"`{plan.qid}`")).count().where("count > 1").count()
        if repeated:
            per_query.unpersist()
            raise ValueError(
                f"partitioned_by_query=True, but {repeated} query id(s) occur in more than "
                "one partition; pass partitioned_by_query=False to repartition the rows by "
                "query first."
            )
    partials = per_query.mapInPandas(
        partial(_sum_batches, plan=plan), _schema([], partial_sums_schema(plan))
    ).toPandas()
    if partitioned_by_query:
        per_query.unpersist()
    return combine(partials, plan)
