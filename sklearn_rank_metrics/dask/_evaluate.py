"""``evaluate`` on a dask DataFrame: shuffle by query, the engine per partition, exact sums."""

import dask
import numpy as np

from .._distributed import (
    combine,
    evaluate_partition,
    make_plan,
    order_column,
    partial_sums,
    task_threads,
)
from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from ..metrics._evaluate import DEFAULT_METRICS

# A row's position in the input: its partition's number times 2**40 plus its
# row in the partition (up to 2**40 rows a partition, 2**23 partitions).
_POSITION_BITS = 40


def _evaluate_partition(frame, plan, order):
    return evaluate_partition(frame, plan, task_threads("dask"), order)


def _with_position(frame, name, partition_info=None):
    number = 0 if partition_info is None else partition_info["number"]
    if len(frame) >= 1 << _POSITION_BITS or number >= 1 << (63 - _POSITION_BITS):
        raise ValueError(
            f"partition {number} of {len(frame)} rows is beyond the row positions that "
            'ties="first" keeps; pass order_by=<column> naming a column that orders the rows.'
        )
    position = np.arange(len(frame), dtype=np.int64) + (number << _POSITION_BITS)
    return frame.assign(**{name: position})


def _values(frame, plan):
    return frame.set_index(plan.qid)[list(plan.metrics)]


@document_parameters(extra={"n_relevant": "Sent to every worker."})
def evaluate(
    ddf,
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
    """Compute ranking metrics of a dask DataFrame with one row per document.

    The rows are shuffled by query id once, so the rows of a query meet in one
    partition wherever they started; each partition is evaluated by the
    in-memory :func:`sklearn_rank_metrics.evaluate`, and the means are
    added up from exact per-partition sums (:func:`math.fsum`) of the
    per-query values and weights. The per-query values are those of the
    in-memory ``evaluate`` on the same rows, bit for bit, and the means agree
    with it to a few units in the last place, however the data are
    partitioned.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per document, queries in any partitions and any order.
    label, score, qid : str, default="label", "score", "qid"
        The columns of relevance labels, predicted scores and query ids
        (ints or strings).
    metrics : str or sequence of str, default=("ndcg@10", "map@100", "mrr@10", "recall@100")
        Metric names, as in :func:`sklearn_rank_metrics.evaluate`.
    average : {"mean", None}, default="mean"
        "mean": compute now and return ``{metric: mean}``. None: return a
        lazy dask DataFrame of per-query values, indexed by query id (the
        index is not sorted across partitions: ``.compute().sort_index()``
        gives the order of the in-memory ``QueryResults``), one float column
        per metric, NaN where a query is left out.
    sample_weight : str, default=None
        The column of query weights (equal on the rows of a query), or None
        for equal weights.
    partitioned_by_query : bool, default=False
        True declares that every partition already holds all the rows of
        its queries (e.g. after ``ddf.shuffle(on="qid")``, or
        ``dd.read_parquet(path, split_row_groups=False)`` on files that each
        hold whole queries): the shuffle is skipped. With
        ``average="mean"`` the declaration is checked (a query found in two
        partitions raises a ValueError); with ``average=None`` it is not,
        and a query cut in two shows up as two rows of its id.
    order_by : str, default=None
        Used by ``ties="first"`` only, which ranks tied documents in row
        order: the column whose values order the rows of each query (they
        must differ within a query). None: the order of the rows in ``ddf``
        (partition by partition, then row by row), the order of
        ``ddf.compute()``, kept through the shuffle.
    **options
        Every other option of :func:`sklearn_rank_metrics.evaluate`:
        ``ties``, ``gain``, ``label_gain``, ``ap_denominator``,
        ``relevance_level``, ``no_relevant``.

    Returns
    -------
    means : dict of {str: float} or dask.dataframe.DataFrame
        The means, in the order of ``metrics``; with ``average=None`` the
        lazy per-query values.

    Raises
    ------
    ValueError
        If a column, metric or option is wrong (checked before any work is
        sent out), an ``n_relevant`` key is no query id of the data, or
        ``partitioned_by_query=True`` is not true of the data.

    See Also
    --------
    sklearn_rank_metrics.evaluate : The same metrics in memory.
    sklearn_rank_metrics.spark.evaluate : The same on a Spark DataFrame.
    sklearn_rank_metrics.QueryResults.concat : Combine in-memory results of disjoint queries.

    Notes
    -----
    Costs: one shuffle of the input columns used (skipped with
    ``partitioned_by_query=True``), then work and memory per partition as
    the in-memory ``evaluate`` on that partition. Under ``ties="first"`` an
    8-byte column of row positions (or ``order_by``) travels too, and each
    partition is sorted by it, so that every query's rows reach the engine
    in their order in ``ddf``: the numbers are those of the in-memory
    ``evaluate`` of ``ddf.compute()``, however ``ddf`` is partitioned. Each task runs the engine
    on one thread: a Dask worker runs as many tasks at once as it has
    threads, one per core, so nothing is oversubscribed; this holds under the
    threaded scheduler too. Queries with no relevant document under
    ``no_relevant="skip"`` and undefined values are counted over all
    partitions and reported in one warning per metric, as in memory.

    References
    ----------
    .. [1] M. Rocklin, "Dask: Parallel Computation with Blocked algorithms
       and Task Scheduling", Proceedings of the 14th Python in Science
       Conference, 2015.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from sklearn_rank_metrics.dask import evaluate
    >>> frame = pd.DataFrame({"qid": [1, 2, 1, 2, 1, 2],
    ...                       "label": [2, 0, 0, 0, 1, 1],
    ...                       "score": [0.9, 0.7, 0.8, 0.2, 0.1, 0.3]})
    >>> ddf = dd.from_pandas(frame, npartitions=2)  # both queries cut in two
    >>> evaluate(ddf, metrics=["ndcg@2", "mrr"])
    {'ndcg@2': 0.69555..., 'mrr': 0.75}
    >>> evaluate(ddf, metrics=["mrr"], average=None).compute().sort_index()
         mrr
    qid
    1    1.0
    2    0.5
    """
    check_parameters("dask.evaluate", average=average, n_relevant=n_relevant)
    plan = make_plan(
        list(ddf.columns), label=label, score=score, qid=qid, metrics=metrics,
        sample_weight=sample_weight, n_relevant=n_relevant, options=options,
    )  # fmt: skip
    order = order_column(plan, list(ddf.columns), order_by, position="row_position")
    data = ddf[plan.columns]
    if order is not None and order_by is None:
        if partitioned_by_query:
            order = None  # no shuffle: each partition keeps its rows' order
        else:  # the rows' positions in ddf, which the shuffle does not keep
            data = data.map_partitions(_with_position, order)
    elif order is not None and order not in plan.columns:
        data = ddf[[*plan.columns, order]]
    if not partitioned_by_query:
        data = data.shuffle(on=plan.qid)
    per_query = data.map_partitions(
        _evaluate_partition, plan, order, meta=evaluate_partition(data._meta, plan, 1)
    )
    if average is None:
        return per_query.map_partitions(_values, plan, meta=_values(per_query._meta, plan))
    partials = per_query.map_partitions(
        partial_sums, plan, meta=partial_sums(per_query._meta, plan)
    )
    if partitioned_by_query:
        ids = per_query[plan.qid]
        partials, n_unique, n_rows = dask.compute(partials, ids.nunique(), ids.size)
        if n_unique != n_rows:
            raise ValueError(
                f"partitioned_by_query=True, but {n_rows - n_unique} query id(s) occur in more "
                "than one partition; pass partitioned_by_query=False to shuffle the rows by "
                "query first."
            )
    else:
        partials = partials.compute()
    return combine(partials, plan)
