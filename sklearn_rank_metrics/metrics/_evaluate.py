"""Many metrics in one pass: validate, group and sort once, then run each kernel."""

import numpy as np

from ._ranking import score_requests
from .._engine._definitions import resolve_metric

_COMPUTATION = {"hit_rate_item": "hit_rate", "rc": "rank_correlation", "kendall": "rank_correlation"}
DEFAULT_METRICS = ("ndcg@10", "map@100", "mrr@10", "recall@100")


def evaluate(
    y_true,
    y_score,
    *,
    qid=None,
    metrics=DEFAULT_METRICS,
    n_relevant=None,
    average="mean",
    ties="average",
    no_relevant="zero",
    relevance_level=1,
    gain="linear",
    sample_weight=None,
):
    """Compute several ranking metrics in one pass over the data.

    The input is validated, grouped by query and sorted by score once; every
    metric then runs its kernel on the same ranked segments, and
    intermediate results (hits at k, relevance counts) are shared.

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0.
    y_score : array-like of the same shape
        Predicted scores.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (1-D input only).
    metrics : str or sequence of str, default=("ndcg@10", "map@100", "mrr@10", "recall@100")
        Metric names as IR tools write them: ``name@k`` or ``name`` for the
        whole list. Names: ndcg, dcg, cg, mrr, map, precision, recall, f1,
        recall_cap, hit_rate, hit_rate_item, r_precision, rc, kendall (and
        the aliases ap, rr, recip_rank, p, r_cap, rprec, rank_correlation).
    n_relevant : mapping of query id to int, default=None
        Total relevant documents per query (see :func:`map_score`).
    average : {"mean", None}, default="mean"
        None returns per-query arrays, in the order of the sorted query ids
        given under the key ``"qid"``.
    ties, no_relevant, relevance_level, gain, sample_weight
        As in the metric functions, applied to every metric that uses them.

    Returns
    -------
    results : dict
        ``{name: mean}``, or ``{name: per-query array, "qid": query ids}``.

    Examples
    --------
    >>> from sklearn_rank_metrics import evaluate
    >>> y_true = [2, 0, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.7, 0.2, 0.3]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> evaluate(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr", "map"])
    {'ndcg@2': 0.69555..., 'mrr': 0.75, 'map': 0.66666...}
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    resolved = [(name, *resolve_metric(name)) for name in metrics]
    if not resolved:
        raise ValueError("metrics is empty; name at least one metric, e.g. ['ndcg@10'].")
    for name, metric, _ in resolved:
        if not metric.bounded and no_relevant == "one":
            raise ValueError(
                f"no_relevant='one' is not available for {name!r}, which has no upper bound."
            )
    results, rq = score_requests(
        y_true,
        y_score,
        [(name, _COMPUTATION.get(metric.name, metric.name), k, metric.fixed_options) for name, metric, k in resolved],
        qid=qid,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
        n_relevant=n_relevant,
        gain=gain,
        relevance_level=relevance_level,
    )
    if average is None:
        results["qid"] = np.asarray(rq.query_ids)
    return results
