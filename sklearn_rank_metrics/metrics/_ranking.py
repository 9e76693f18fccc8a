"""Public ranking metrics.

Every function is thin: validate the input, rank it once into query
segments, call the metric's per-query computation, then aggregate.
Conventions follow trec_eval and scikit-learn unless an option says
otherwise; ``docs/metrics.md`` lists them side by side.
"""

from .._engine._results import apply_no_relevant, average_queries, warn_undefined
from .._engine._evaluation import Evaluation, compute_metrics
from .._engine._segments import RankedQueries
from .._engine._validation import (
    AVERAGES,
    GAINS,
    NO_RELEVANT,
    TIES,
    check_k,
    check_n_relevant,
    check_option,
    check_ranking_input,
    check_relevance_level,
)

_PARAMETER_DOCS = {
    "y_true": """y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded; fractional grades
        are fine). 1-D: one label per document, queries given by ``qid``.
        2-D: one query per row, as in :func:`sklearn.metrics.ndcg_score`.""",
    "y_score": """y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher.""",
    "k": """k : int, default=None
        Only the top ``k`` documents of each query count. None (the
        default) evaluates the whole list. A ``k`` larger than a list is
        allowed.""",
    "qid": """qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.""",
    "ties": """ties : {"average", "optimistic", "pessimistic"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings (scikit-learn's
        ``ignore_ties=False``); ``"optimistic"`` and ``"pessimistic"`` rank
        higher labels first and last inside a tie, giving the bounds.""",
    "no_relevant": """no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0 as in trec_eval and scikit-learn, left out of
        the mean with a warning that counts such queries (NaN with
        ``average=None``), or 1.""",
    "relevance_level": """relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``, ranx's ``rel_lvl``).""",
    "n_relevant": """n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for retrieval runs
        whose lists miss some of them (they rank after the whole list).
        Queries absent from the mapping use the count in their list. With
        2-D input the query ids are the row indices.""",
    "sample_weight": """sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.""",
    "average": """average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None returns the
        per-query values, in the order of ``numpy.unique(qid)`` (row order
        for 2-D input), NaN where a query was skipped.""",
    "gain": """gain : {"linear", "exponential"}, default="linear"
        Gain of a document with label ``rel``: ``rel`` or ``2**rel - 1``.""",
    "returns": """score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.""",
}


def _parameter_list(*names, **replaced):
    return "\n    ".join(replaced.get(name, "{" + name + "}") for name in names)


_UNBOUNDED_NO_RELEVANT = """no_relevant : {"zero", "skip"}, default="zero"
        Queries whose labels are all 0 score 0, or are left out of the mean."""
_WHOLE_LIST_K = """k : None
        Must be None; this metric sets its own cutoff per query."""
_COMPOSITE_DOCS = {
    "gain_parameters": _parameter_list(
        "y_true", "y_score", "k", "qid", "gain", "ties", "no_relevant", "sample_weight", "average"
    ),
    "unbounded_parameters": _parameter_list(
        "y_true", "y_score", "k", "qid", "gain", "ties", "no_relevant", "sample_weight", "average",
        no_relevant=_UNBOUNDED_NO_RELEVANT,
    ),
    "binary_parameters": _parameter_list(
        "y_true", "y_score", "k", "qid", "relevance_level", "ties", "no_relevant", "n_relevant",
        "sample_weight", "average",
    ),
    "whole_list_binary_parameters": _parameter_list(
        "y_true", "y_score", "k", "qid", "relevance_level", "ties", "no_relevant", "n_relevant",
        "sample_weight", "average", k=_WHOLE_LIST_K,
    ),
}  # fmt: skip


def _fill_docstring(function):
    """Substitute the shared parameter descriptions into a docstring."""
    doc = function.__doc__
    for name, text in _COMPOSITE_DOCS.items():
        doc = doc.replace("{" + name + "}", text)
    for name, text in _PARAMETER_DOCS.items():
        doc = doc.replace("{" + name + "}", text)
    function.__doc__ = doc
    return function


def check_common_options(ties, no_relevant, average):
    check_option(ties, "ties", TIES)
    check_option(no_relevant, "no_relevant", NO_RELEVANT)
    check_option(average, "average", AVERAGES)


def rank_input(y_true, y_score, *, qid, ties, sample_weight):
    """Validate the input and sort it once into ranked query segments."""
    return RankedQueries(check_ranking_input(y_true, y_score, qid, sample_weight), ties)


def finish(query_values, rq, *, no_relevant, average, metric_name):
    """Apply ``no_relevant``, report skipped or undefined queries, aggregate."""
    values = apply_no_relevant(
        query_values.values, query_values.no_relevant, no_relevant, metric_name
    )
    if query_values.undefined_reason is not None:
        warn_undefined(values, metric_name, query_values.undefined_reason)
    if average is None:
        return values
    return average_queries(values, rq.query_weights, query_values.pool_weights, metric_name)


def score_requests(
    y_true,
    y_score,
    requests,
    *,
    qid,
    ties,
    no_relevant,
    sample_weight,
    average,
    n_relevant=None,
    gain="linear",
    relevance_level=1,
):
    """Validate, rank once, and compute every request ``(name, computation, k, options)``.

    Returns ``({name: result}, ranked_queries)``. The public metrics send one
    request, :func:`~sklearn_rank_metrics.evaluate` many.
    """
    check_common_options(ties, no_relevant, average)
    check_option(gain, "gain", GAINS)
    relevance_level = check_relevance_level(relevance_level)
    rq = rank_input(y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight)
    evaluation = Evaluation(
        rq,
        gain=gain,
        relevance_level=relevance_level,
        n_relevant=check_n_relevant(n_relevant, rq.query_ids),
    )
    all_values = compute_metrics(
        evaluation, [(computation, k, options) for _, computation, k, options in requests]
    )
    results = {
        name: finish(query_values, rq, no_relevant=no_relevant, average=average, metric_name=name)
        for (name, _, _, _), query_values in zip(requests, all_values)
    }
    return results, rq


def _score(computation, metric_name, y_true, y_score, *, k, allow_cutoff=True, **kwargs):
    metric_options = {key: kwargs.pop(key) for key in ("level", "method") if key in kwargs}
    k = check_k(k, allow_cutoff=allow_cutoff, metric=metric_name)
    request = (metric_name, computation, k, metric_options)
    results, _ = score_requests(y_true, y_score, [request], **kwargs)
    return results[metric_name]


def _reject_one_for_unbounded(no_relevant, metric_name):
    if isinstance(no_relevant, str) and no_relevant == "one":
        raise ValueError(
            f"no_relevant='one' is not available for {metric_name}, which has no upper "
            "bound; use 'zero' or 'skip'."
        )


def _gain_metric(name, computation, doc, *, unbounded=False):
    """A public DCG-family metric: labels are gains, no binary relevance."""

    def metric(
        y_true,
        y_score,
        *,
        k=None,
        qid=None,
        gain="linear",
        ties="average",
        no_relevant="zero",
        sample_weight=None,
        average="mean",
    ):
        if unbounded:
            _reject_one_for_unbounded(no_relevant, name)
        return _score(
            computation, name, y_true, y_score, k=k, qid=qid, ties=ties,
            no_relevant=no_relevant, sample_weight=sample_weight, average=average, gain=gain,
        )  # fmt: skip

    parameters = "{unbounded_parameters}" if unbounded else "{gain_parameters}"
    return _public(metric, name, doc, parameters)


def _binary_metric(name, computation, doc, *, allow_cutoff=True):
    """A public metric of binary relevance (label >= relevance_level)."""

    def metric(
        y_true,
        y_score,
        *,
        k=None,
        qid=None,
        relevance_level=1,
        ties="average",
        no_relevant="zero",
        n_relevant=None,
        sample_weight=None,
        average="mean",
    ):
        return _score(
            computation, name, y_true, y_score, k=k, qid=qid, ties=ties,
            no_relevant=no_relevant, n_relevant=n_relevant, sample_weight=sample_weight,
            average=average, relevance_level=relevance_level, allow_cutoff=allow_cutoff,
        )  # fmt: skip

    parameters = "{binary_parameters}" if allow_cutoff else "{whole_list_binary_parameters}"
    return _public(metric, name, doc, parameters)


def _public(function, name, doc, parameters):
    """Name a metric made by a factory and give it its docstring."""
    function.__name__ = function.__qualname__ = name
    head, examples = doc.split("    Examples\n    --------\n")
    function.__doc__ = (
        f"{head}    Parameters\n    ----------\n    {parameters}\n\n"
        "    Returns\n    -------\n    {returns}\n\n"
        f"    Examples\n    --------\n{examples}"
    )
    return _fill_docstring(function)


dcg_score = _gain_metric(
    "dcg_score",
    "dcg",
    r"""Discounted cumulative gain at k (DCG@k).

    .. math:: \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} \frac{g(rel_i)}{\log_2(i + 1)}

    with ``g(rel) = rel`` (linear) or ``2**rel - 1`` (exponential).
    With 2-D input and base-2 discount this equals
    :func:`sklearn.metrics.dcg_score`. A query with no relevant document is
    one whose labels are all 0; ``no_relevant="one"`` is an error, since DCG
    is unbounded.

    Examples
    --------
    >>> from sklearn_rank_metrics import dcg_score
    >>> dcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3)   # 3 + 2/log2(3) + 3/2
    5.76185...
    """,
    unbounded=True,
)


ndcg_score = _gain_metric(
    "ndcg_score",
    "ndcg",
    r"""Normalized discounted cumulative gain at k (NDCG@k).

    .. math:: \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{IDCG@k}}

    where IDCG@k is the DCG@k of the query's documents sorted by
    decreasing label (the ideal ranking of the list given). Discount
    ``1/log2(rank + 1)``. With 2-D input this equals
    :func:`sklearn.metrics.ndcg_score` (``ties="average"`` is its
    ``ignore_ties=False``). A query whose labels are all 0 has IDCG = 0: it
    scores 0 by default (as scikit-learn and trec_eval), see ``no_relevant``.

    Examples
    --------
    >>> from sklearn_rank_metrics import ndcg_score
    >>> ndcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3)   # 5.762 / 5.893
    0.97778...
    >>> ndcg_score([1, 0, 2, 0], [0.2, 0.9, 0.9, 0.1], qid=["a", "a", "b", "b"], average=None)
    array([0.63092975, 1.        ])
    """,
)


cg_score = _gain_metric(
    "cg_score",
    "cg",
    r"""Cumulative gain at k (CG@k): the sum of the gains of the top k.

    .. math:: \mathrm{CG@k} = \sum_{i=1}^{\min(k, n)} g(rel_i)

    Position inside the top k does not matter; under ``ties="average"`` a
    tie block straddling rank k contributes its mean gain per position
    inside. ``no_relevant="one"`` is an error, since CG is unbounded.

    Examples
    --------
    >>> from sklearn_rank_metrics import cg_score
    >>> cg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=2)
    5.0
    """,
    unbounded=True,
)


mrr_score = _binary_metric(
    "mrr_score",
    "mrr",
    r"""Mean reciprocal rank at k (MRR@k).

    .. math:: \mathrm{RR@k} = \frac{1}{\mathrm{rank}_1} \text{ if } \mathrm{rank}_1 \le k
              \text{ else } 0

    where ``rank_1`` is the rank of the first relevant document; MRR is the
    mean over queries (trec_eval's ``recip_rank``, ranx's ``mrr``). A query
    whose relevant documents all rank below k scores 0; one with no relevant
    document at all follows ``no_relevant``. Under ``ties="average"`` this
    is the exact expectation of ``1/rank_1`` over the orderings of ties.

    Examples
    --------
    Three queries whose first relevant documents rank 2, 1 and 5:

    >>> from sklearn_rank_metrics import mrr_score
    >>> y_true = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    >>> y_score = [[5, 4, 3, 2, 1]] * 3
    >>> mrr_score(y_true, y_score, k=5)   # (1/2 + 1 + 1/5) / 3
    0.56666...
    """,
)


map_score = _binary_metric(
    "map_score",
    "map",
    r"""Mean average precision at k (MAP@k); one query's value is AP@k.

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{i=1}^{\min(k, n)} \mathrm{P@i} \cdot rel_i

    where R is the query's total number of relevant documents (in the list,
    or ``n_relevant``), as trec_eval's ``map_cut`` and ranx's ``map``: a
    relevant document below rank k lowers AP@k. (Dividing by the hits inside
    the top k instead, as some tutorials do, rewards cutting a list short.)
    Under ``ties="average"`` this is the exact expected AP.

    Examples
    --------
    Relevant documents at ranks 1, 3 and 5:

    >>> from sklearn_rank_metrics import map_score
    >>> map_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1])   # (1 + 2/3 + 3/5) / 3
    0.75555...
    """,
)


precision_at_k_score = _binary_metric(
    "precision_at_k_score",
    "precision",
    r"""Precision at k (P@k): the share of the top k that is relevant.

    .. math:: \mathrm{P@k} = \frac{\#\{\text{relevant in the top } k\}}{k}

    The denominator is k even when the list is shorter (trec_eval's
    ``P_k``, ranx); with ``k=None`` it is the list length.

    Examples
    --------
    >>> from sklearn_rank_metrics import precision_at_k_score
    >>> precision_at_k_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=2)
    0.5
    """,
)


recall_at_k_score = _binary_metric(
    "recall_at_k_score",
    "recall",
    r"""Recall at k: the share of a query's relevant documents in the top k.

    .. math:: \mathrm{Recall@k} = \frac{\#\{\text{relevant in the top } k\}}{R}

    R is the query's total number of relevant documents (in the list, or
    ``n_relevant``), as trec_eval's ``recall_k``.

    Examples
    --------
    >>> from sklearn_rank_metrics import recall_at_k_score
    >>> recall_at_k_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=3)
    0.66666...
    """,
)


f1_at_k_score = _binary_metric(
    "f1_at_k_score",
    "f1",
    r"""F1 at k: the harmonic mean of P@k and Recall@k.

    .. math:: \mathrm{F1@k} = \frac{2\, \mathrm{P@k}\, \mathrm{Recall@k}}
              {\mathrm{P@k} + \mathrm{Recall@k}} = \frac{2\, \mathrm{hits@k}}{k + R}

    with P@k dividing by k even for shorter lists (as
    :func:`precision_at_k_score`) and R the total number of relevant
    documents; 0 when no relevant document is in the top k. Linear in the
    hits, so the tie-averaged value is exact.

    Examples
    --------
    >>> from sklearn_rank_metrics import f1_at_k_score
    >>> f1_at_k_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=3)   # 2 * 2 / (3 + 3)
    0.66666...
    """,
)


recall_cap_score = _binary_metric(
    "recall_cap_score",
    "recall_cap",
    r"""Capped recall at k (R_cap@k), as in BEIR and MTEB.

    .. math:: \mathrm{R\_cap@k} = \frac{\#\{\text{relevant in the top } k\}}{\min(k, R)}

    Unlike recall, a query with more than k relevant documents can reach 1.
    With ``k=None``, k is the list length.

    Examples
    --------
    Ten relevant documents in the top 10 of a query that has 20:

    >>> from sklearn_rank_metrics import recall_cap_score
    >>> recall_cap_score([1] * 20, list(range(20, 0, -1)), k=10)
    1.0
    """,
)


@_fill_docstring
def hit_rate_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    level="query",
    relevance_level=1,
    ties="average",
    no_relevant="zero",
    n_relevant=None,
    sample_weight=None,
    average="mean",
):
    r"""Hit rate at k, per query (user) or per recommended item.

    ``level="query"``: the share of queries with at least one relevant
    document in the top k (binary hit rate; under ties, the probability of
    a hit). ``level="item"``: the share of recommended items that are
    relevant, pooled over queries,

    .. math:: \frac{\sum_q \mathrm{hits@k}_q}{\sum_q \min(k, n_q)},

    so ``average=None`` gives each query's ``hits / min(k, n_q)`` and the
    mean weighs them by ``min(k, n_q)`` (times ``sample_weight``).

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {qid}
    level : {"query", "item"}, default="query"
        Whether to count queries with a hit or relevant recommended items.
    {relevance_level}
    {ties}
    {no_relevant}
    {n_relevant}
    {sample_weight}
    {average}

    Returns
    -------
    {returns}

    Examples
    --------
    >>> from sklearn_rank_metrics import hit_rate_score
    >>> y_true = [[0, 1, 0], [0, 0, 1]]
    >>> y_score = [[3, 2, 1], [3, 2, 1]]
    >>> hit_rate_score(y_true, y_score, k=2)
    0.5
    >>> hit_rate_score(y_true, y_score, k=2, level="item")   # 1 hit in 4 items
    0.25
    """
    check_option(level, "level", ("query", "item"))
    return _score(
        "hit_rate", "hit_rate_score", y_true, y_score, k=k, qid=qid, ties=ties,
        no_relevant=no_relevant, n_relevant=n_relevant, sample_weight=sample_weight,
        average=average, relevance_level=relevance_level, level=level,
    )  # fmt: skip


r_precision_score = _binary_metric(
    "r_precision_score",
    "r_precision",
    r"""R-precision: precision at rank R, the query's number of relevant documents.

    .. math:: \mathrm{R\text{-}prec} = \frac{\#\{\text{relevant in the top } R\}}{R}

    as trec_eval's ``Rprec``. R counts ``n_relevant`` where given; it
    compares whole lists, so only ``k=None`` is accepted.

    Examples
    --------
    >>> from sklearn_rank_metrics import r_precision_score
    >>> r_precision_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1])   # 2 of the top 3
    0.66666...
    """,
    allow_cutoff=False,
)


@_fill_docstring
def rank_correlation_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    method="rc",
    ties="average",
    sample_weight=None,
    average="mean",
):
    r"""Rank correlation between the predicted order and the labels.

    ``method="rc"`` (default) is the rank correlation (RC) of Liu's
    *Learning to Rank for Information Retrieval*: the weighted Kendall
    agreement with the best of the ideal orderings,

    .. math:: \mathrm{RC} = \max_{\pi_l}
              \frac{\sum_{u<v} (1 + \mathrm{sgn}((\pi(u) - \pi(v))(\pi_l(u) - \pi_l(v))))}
              {2\binom{n}{2}},

    which equals the share of document pairs whose order agrees with the
    labels, pairs of equal label always agreeing. A pair of tied scores and
    different labels counts 1/2 under ``ties="average"``, 1 under
    ``"optimistic"`` and 0 under ``"pessimistic"``.

    ``method="kendall"`` is Kendall's tau-b between labels and scores per
    query, equal to :func:`scipy.stats.kendalltau`; tau-b corrects for ties
    itself, so ``ties`` does not apply to it.

    Both count pairs in O(n log n) per query. A query whose value is
    undefined (a single document; for tau-b also constant labels or scores)
    is left out of the mean with a warning that counts such queries (NaN
    with ``average=None``). Graded labels are compared as they are.

    Parameters
    ----------
    {y_true}
    {y_score}
    k : None
        Must be None; rank correlation compares whole lists.
    {qid}
    method : {"rc", "kendall"}, default="rc"
        The agreement share RC, or Kendall's tau-b.
    {ties}
    {sample_weight}
    {average}

    Returns
    -------
    {returns}

    Examples
    --------
    >>> from sklearn_rank_metrics import rank_correlation_score
    >>> rank_correlation_score([1, 0, 1], [3, 2, 1])   # pairs (1,2) and (1,3) agree
    0.66666...
    >>> rank_correlation_score([1, 0, 1], [3, 2, 1], method="kendall")
    0.0
    """
    check_option(method, "method", ("rc", "kendall"))
    return _score(
        "rank_correlation", "rank_correlation_score", y_true, y_score, k=k, qid=qid,
        ties=ties, no_relevant="zero", sample_weight=sample_weight, average=average,
        allow_cutoff=False, method=method,
    )  # fmt: skip
