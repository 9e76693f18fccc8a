"""``evaluate``: many metrics from one pass over the data, as means or per-query results."""

from dataclasses import replace

from .._engine._options import Options
from .._engine._param_docs import document_parameters
from .._engine.prepare._prepare import Inputs
from .._engine.run._run import evaluate_plain
from .._engine.spec import call_gain, name_requests
from ._query_results import query_results, warn_left_out
from ._score_matrix import evaluate_score_matrix, is_score_matrix

DEFAULT_METRICS = ("ndcg@10", "map@100", "mrr@10", "recall@100")


def requests_for(metrics, owner="evaluate"):
    """One :class:`Request` per measure the names give (trec_eval's sets expanded), in order.

    ``owner`` names the caller in errors.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError(f"{owner}: metrics is empty; name at least one metric, e.g. ['ndcg@10'].")
    requests = name_requests(metrics)
    names = [request.name for request in requests]
    repeated = sorted({name for name in names if names.count(name) > 1}, key=str)
    if repeated:
        raise ValueError(
            f"{owner}: metrics names {', '.join(map(repr, repeated))} more than once."
        )
    return requests


def call_options(requests, options):
    """The call's :class:`Options` with the gain the requests' names set (:func:`call_gain`)."""
    return replace(options, gain=call_gain(requests, options.gain))


def evaluate_requests(requests, inputs, options):
    """The :class:`QueryResults` of ``requests`` on ``inputs`` (:class:`Inputs`), without warning.

    ``options``: the call's checked :class:`Options`, whose gain the
    requests' names may set (:func:`call_gain`). The caller warns about
    what was left out (:func:`warn_left_out`), once.
    """
    options = call_options(requests, options)
    if is_score_matrix(inputs):
        return query_results(evaluate_score_matrix(requests, inputs, options))
    return query_results(evaluate_plain(requests, inputs, options))


@document_parameters(
    extra={
        "gain": "It applies to ndcg, dcg and cg.",
        "label_gain": "It applies to ndcg, dcg, cg and trec_eval's ndcg_rel, rndcg and g.",
        "ap_denominator": "It applies to map and gm_map.",
        "relevance_level": "It applies to the metrics of binary relevance (all but ndcg, "
        "dcg, cg, rc, kendall).",
        "no_relevant": "It applies to every metric but rc and kendall; ``\"one\"`` is an "
        "error with the unbounded dcg and cg.",
    }
)
def evaluate(
    y_true,
    y_score,
    *,
    metrics=DEFAULT_METRICS,
    qid=None,
    exclude=None,
    gain="linear",
    label_gain=None,
    ap_denominator="R",
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    """Compute several ranking metrics in one pass over the data.

    The input is validated, its query ids factorized and its documents
    sorted once; every metric then runs its kernel on the same ranked
    segments, sharing intermediate results (heads of the ranking, hits,
    relevant counts). Each metric gives the value its function gives
    (``evaluate(..., metrics=["ndcg@10"])["ndcg@10"] == ndcg_score(..., k=10)``).

    Parameters
    ----------
    metrics : str or sequence of str, default=("ndcg@10", "map@100", "mrr@10", "recall@100")
        Metric names as IR tools write them: ``name@k`` for a cutoff, or
        ``name`` for the whole list. Names: ndcg, dcg, cg, mrr, map,
        precision, recall, f1, recall_cap, hit_rate, hit_rate_item,
        r_precision, rc, kendall; aliases: ap, rr, recip_rank, p, f1_score,
        r_cap, hr, hit_rate_query, rprec, r-precision, rank_correlation,
        kendall_tau. r_precision, rc and kendall take no ``@k``. Also the
        IR measures without a function of their own (``docs/metrics.md``):
        err, rbp, judged, unjudged (``@k``), gm_map, and whole-list
        measures num_q, num_ret, num_rel, num_rel_ret,
        num_nonrel_judged_ret, bpref, gm_bpref, infap, iprec_11pt_avg,
        rprec_mult, set_map, bing, utility, rbp_resid; counts are summed
        over queries and gm_map, gm_bpref averaged geometrically.
        ir_measures' syntax (``"nDCG@10"``, ``"P(rel=2)@5"``) and trec_eval's
        names (``"ndcg_cut_10"``, ``"P_5"``, lists ``"P.5,10"`` and sets
        ``"official"``) are read too; ``docs/metrics.md`` lists them.
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, relevant at
        ``relevance_level``, listed or not (see :func:`map_score`): R of the
        metrics of binary relevance, and in a query of labels 0 and 1 the
        ideal ranking of ndcg, ndcg_rel, rndcg and g (R documents of label
        1). In a query of graded labels the grades of the documents its list
        left out are unknown: those raise where ``n_relevant`` exceeds the
        relevant documents of that query's list; use ``evaluate_run`` with
        the qrels, or pass every relevant document in ``y_true``. Each query
        is decided on its own labels.
    sample_weight : array-like, default=None
        Weights of the queries in the means: one per row for 2-D input; for
        1-D input one per document, equal within each query.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean of each metric over queries;
        None returns a :class:`~sklearn_rank_metrics.QueryResults` with the
        value of every query.

    Returns
    -------
    results : dict or QueryResults
        ``{name: mean}`` in the order of ``metrics``, or with
        ``average=None`` the per-query results: ``results[name]`` is the
        array of values in the order of ``results.query_ids`` (the sorted
        query ids), ``results.to_frame()`` a pandas DataFrame,
        ``results.mean()`` the same means as ``average="mean"``.

    See Also
    --------
    QueryResults : The per-query results.
    ndcg_score, map_score, mrr_score : The metric functions, one at a time.
    make_rank_scorers : The same names as scorers for model selection.

    Notes
    -----
    The options apply to every metric that uses them and are ignored by
    the others (``gain`` by map, ``relevance_level`` by ndcg). Each metric
    follows the conventions of its function; ``docs/metrics.md`` lists them
    and the reference tool each one matches.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.

    Examples
    --------
    >>> from sklearn_rank_metrics import evaluate
    >>> y_true = [2, 0, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.8, 0.1, 0.7, 0.2, 0.3]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> evaluate(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr", "map"])
    {'ndcg@2': 0.69555..., 'mrr': 0.75, 'map': 0.66666...}
    >>> results = evaluate(y_true, y_score, qid=qid, metrics=["ndcg@2", "mrr"], average=None)
    >>> results["mrr"]
    array([1. , 0.5])
    >>> results.to_frame()
           ndcg@2  mrr
    qid
    1    0.760188  1.0
    2    0.630930  0.5
    """
    options = Options.checked(
        "evaluate", gain=gain, label_gain=label_gain, relevance_level=relevance_level,
        n_relevant=n_relevant, ties=ties, no_relevant=no_relevant, ap_denominator=ap_denominator,
        leakage=leakage, average=average,
    )  # fmt: skip
    requests = requests_for(metrics)
    inputs = Inputs(y_true, y_score, qid, sample_weight, exclude)
    results = evaluate_requests(requests, inputs, options)
    warn_left_out(results)
    return results.mean() if average == "mean" else results
