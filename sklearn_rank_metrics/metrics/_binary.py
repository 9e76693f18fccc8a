"""Public ranking metrics of binary relevance: a document is relevant iff its label >= relevance_level.

Each function is bound to its definition by :func:`._ranking._metric`, which
also writes the Parameters entries they share from the parameter table;
``extra`` adds what an argument means in one of them.
"""

from ._ranking import _metric

_ONLY_WHETHER_ANY = "Only whether a query has any matters here."
_NONE_IS_THE_LENGTH = "With None, k is the list length."


@_metric(n_relevant=_ONLY_WHETHER_ANY)
def mrr_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Mean reciprocal rank at k (MRR@k).

    .. math:: \mathrm{RR@k} = \begin{cases} 1 / \mathrm{rank}_1 & \text{if }
              \mathrm{rank}_1 \le k \\ 0 & \text{otherwise} \end{cases}

    where ``rank_1`` is the rank of the first relevant document; MRR is the
    mean over queries.

    See Also
    --------
    hit_rate_score : Whether a relevant document is in the top k at all.
    map_score : Precision at every relevant rank.

    Notes
    -----
    Equals trec_eval's ``recip_rank`` (with a cutoff) and ranx's ``mrr``
    when ``y_true`` holds the grade of every retrieved document (0 where
    unjudged) and no scores tie (trec_eval orders a tie by document id);
    for a TREC run use :func:`sklearn_rank_metrics.trec.evaluate_run`.
    A query whose relevant documents all rank below k scores 0; one with no
    relevant document at all follows ``no_relevant``. Under
    ``ties="average"`` this is the exact expectation of ``1/rank_1`` over
    the orderings of tied documents, from the hypergeometric distribution
    of the first relevant document inside its tie block.

    References
    ----------
    .. [1] E. Voorhees, "The TREC-8 Question Answering Track Report",
       TREC 1999.
    .. [2] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.

    Examples
    --------
    Three queries whose first relevant documents rank 2, 1 and 5:

    >>> from sklearn_rank_metrics import mrr_score
    >>> y_true = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    >>> y_score = [[5, 4, 3, 2, 1]] * 3
    >>> mrr_score(y_true, y_score, k=5)   # (1/2 + 1 + 1/5) / 3
    0.56666...
    >>> mrr_score(y_true, y_score, k=4, average=None)
    array([0.5, 1. , 0. ])
    """


@_metric()
def map_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    ap_denominator="R",
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Mean average precision at k (MAP@k); one query's value is AP@k.

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{i=1}^{\min(k, n)} \mathrm{P@i} \cdot rel_i

    where ``rel_i`` is 1 if the document at rank ``i`` is relevant, P@i the
    precision of the top ``i``, and R the query's total number of relevant
    documents (in the list, or ``n_relevant``). With
    ``ap_denominator="min(R,k)"`` the sum is divided by ``min(R, k)``
    instead (R without a cutoff).

    Parameters
    ----------
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some (they rank after the whole list). Every key must be
        a query id (row numbers for 2-D input); queries absent from the
        mapping use the count in their list.

    See Also
    --------
    precision_at_k_score : Precision of the top k.
    r_precision_score : Precision of the top R.

    Notes
    -----
    The denominator is R by default, as in trec_eval's ``map_cut`` and
    ranx's ``map``: a relevant document below rank k lowers AP@k.
    ``ap_denominator="min(R,k)"`` divides by ``min(R, k)``, as LightGBM,
    XGBoost, Spark's ``meanAveragePrecisionAt``, RecBole, implicit and
    Recommenders' ``map_at_k`` do, so that a query with more than ``k``
    relevant documents can reach 1. (Dividing by the hits inside the top k
    instead, as some tutorials and torchmetrics do, rewards cutting a list
    short: no option.) Under ``ties="average"`` this is the exact expected
    AP over the orderings of tied documents, from the probability that two
    documents of a tie block are both relevant; the denominator does not
    depend on the order.

    Equals trec_eval's ``map`` (``map_cut_k`` with ``k``) when every judged
    document of each query is in ``y_true`` or counted by ``n_relevant``,
    and no scores tie (trec_eval orders a tie by document id); for a TREC
    run use :func:`sklearn_rank_metrics.trec.evaluate_run`. LightGBM's
    ``map@k`` is ``ap_denominator="min(R,k)", no_relevant="one",
    ties="first"``; ``docs/conventions.md`` lists the conventions of other
    tools and the options that reproduce them.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, "Introduction to
       Information Retrieval", Cambridge University Press, 2008, ch. 8.
    .. [2] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.

    Examples
    --------
    Relevant documents at ranks 1, 3 and 5:

    >>> from sklearn_rank_metrics import map_score
    >>> map_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1])   # (1 + 2/3 + 3/5) / 3
    0.75555...
    >>> map_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=3)   # (1 + 2/3) / 3
    0.55555...
    >>> map_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=2, ap_denominator="min(R,k)")  # 1 / 2
    0.5
    """


@_metric(k=_NONE_IS_THE_LENGTH, n_relevant=_ONLY_WHETHER_ANY)
def precision_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Precision at k (P@k): the share of the top k that is relevant.

    .. math:: \mathrm{P@k} = \frac{\#\{\text{relevant documents in the top } k\}}{k}

    See Also
    --------
    recall_at_k_score : The share of the relevant documents in the top k.
    f1_at_k_score : Their harmonic mean.
    r_precision_score : Precision at rank R.

    Notes
    -----
    The denominator is k even when the list is shorter (trec_eval's
    ``P_k``, ranx): a list of 2 relevant documents has P@5 = 0.4. Under
    ``ties="average"`` a tie block straddling rank k contributes its share
    of relevant documents per position inside the top k (the exact
    expectation). The name avoids :func:`sklearn.metrics.precision_score`,
    a classification metric. Equals trec_eval's ``P_k`` when ``y_true``
    holds the grade of every retrieved document (0 where unjudged) and no
    scores tie (trec_eval orders a tie by document id); for a TREC run use
    :func:`sklearn_rank_metrics.trec.evaluate_run`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, "Introduction to
       Information Retrieval", Cambridge University Press, 2008, ch. 8.

    Examples
    --------
    >>> from sklearn_rank_metrics import precision_at_k_score
    >>> precision_at_k_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=2)
    0.5
    >>> precision_at_k_score([1, 1], [2, 1], k=5)   # k, not the list length
    0.4
    """


@_metric()
def recall_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Recall at k: the share of a query's relevant documents in the top k.

    .. math:: \mathrm{Recall@k} = \frac{\#\{\text{relevant documents in the top } k\}}{R}

    where R is the query's total number of relevant documents (in the
    list, or ``n_relevant``).

    See Also
    --------
    recall_cap_score : Recall whose denominator is ``min(k, R)``.
    precision_at_k_score : The share of the top k that is relevant.

    Notes
    -----
    A query with more than k relevant documents cannot reach 1 (see
    :func:`recall_cap_score`). The name avoids
    :func:`sklearn.metrics.recall_score`, a classification metric. Equals
    trec_eval's ``recall_k`` when every judged document of each query is in
    ``y_true`` or counted by ``n_relevant``, and no scores tie (trec_eval
    orders a tie by document id); for a TREC run use
    :func:`sklearn_rank_metrics.trec.evaluate_run`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, "Introduction to
       Information Retrieval", Cambridge University Press, 2008, ch. 8.

    Examples
    --------
    >>> from sklearn_rank_metrics import recall_at_k_score
    >>> recall_at_k_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=3)
    0.66666...
    """


@_metric()
def f1_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""F1 at k: the harmonic mean of P@k and Recall@k.

    .. math:: \mathrm{F1@k} = \frac{2\, \mathrm{P@k}\, \mathrm{Recall@k}}
              {\mathrm{P@k} + \mathrm{Recall@k}} = \frac{2\, \mathrm{hits@k}}{k + R}

    with P@k dividing by k even for shorter lists (as
    :func:`precision_at_k_score`) and R the total number of relevant
    documents.

    See Also
    --------
    precision_at_k_score, recall_at_k_score : Its two parts.

    Notes
    -----
    0 when no relevant document is in the top k, as ranx's ``f1``. Linear
    in the hits, so the tie-averaged value is the exact expectation. The
    name avoids :func:`sklearn.metrics.f1_score`, a classification metric.
    With ``k=None`` it equals trec_eval's ``set_F`` when every judged
    document of each query is in ``y_true`` or counted by ``n_relevant``;
    for a TREC run use :func:`sklearn_rank_metrics.trec.evaluate_run`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, "Introduction to
       Information Retrieval", Cambridge University Press, 2008, ch. 8.

    Examples
    --------
    >>> from sklearn_rank_metrics import f1_at_k_score
    >>> f1_at_k_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1], k=3)   # 2 * 2 / (3 + 3)
    0.66666...
    """


@_metric(k=_NONE_IS_THE_LENGTH)
def recall_cap_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Capped recall at k (R_cap@k), as in BEIR and MTEB.

    .. math:: \mathrm{R\_cap@k} = \frac{\#\{\text{relevant documents in the top } k\}}{\min(k, R)}

    where R is the query's total number of relevant documents (in the
    list, or ``n_relevant``).

    See Also
    --------
    recall_at_k_score : Recall with denominator R.

    Notes
    -----
    Unlike recall, a query with more than k relevant documents can reach 1.
    Equals trec_eval's ``relative_P_k`` when every judged document of each
    query is in ``y_true`` or counted by ``n_relevant``, and no scores tie
    (trec_eval orders a tie by document id); for a TREC run use
    :func:`sklearn_rank_metrics.trec.evaluate_run`.

    References
    ----------
    .. [1] N. Thakur et al., "BEIR: A Heterogeneous Benchmark for Zero-shot
       Evaluation of Information Retrieval Models", NeurIPS Datasets and
       Benchmarks 2021.

    Examples
    --------
    Ten relevant documents in the top 10 of a query that has 20:

    >>> from sklearn_rank_metrics import recall_cap_score
    >>> recall_cap_score([1] * 20, list(range(20, 0, -1)), k=10)
    1.0
    """


@_metric(
    n_relevant=_ONLY_WHETHER_ANY,
    ties='Under ``"average"`` the value of a query is the probability of a hit.',
)
def hit_rate_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    level="query",
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Hit rate at k, per query (user) or per recommended item.

    ``level="query"``: the share of queries with at least one relevant
    document in the top k. ``level="item"``: the share of recommended items
    that are relevant, pooled over queries,

    .. math:: \frac{\sum_q \mathrm{hits@k}_q}{\sum_q \min(k, n_q)},

    so ``average=None`` gives each query's ``hits / min(k, n_q)`` and the
    mean weighs them by ``min(k, n_q)`` (times ``sample_weight``).

    See Also
    --------
    mrr_score : Where the first hit ranks.
    precision_at_k_score : Relevant share of the top k, dividing by k.

    Notes
    -----
    The query level is ranx's ``hit_rate``, and trec_eval's ``success_k``
    when ``y_true`` holds the grade of every retrieved document (0 where
    unjudged) and no scores tie (trec_eval orders a tie by document id);
    for a TREC run use :func:`sklearn_rank_metrics.trec.evaluate_run`.
    The item level divides by the items actually recommended,
    ``min(k, n_q)``, unlike P@k, which divides by k; its per-query values
    (``average=None``), averaged, are XGBoost's ``pre@k``.

    References
    ----------
    .. [1] M. Deshpande and G. Karypis, "Item-based top-N recommendation
       algorithms", ACM Transactions on Information Systems 22(1), 2004.

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


@_metric()
def r_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    exclude=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""R-precision: precision at rank R, the query's number of relevant documents.

    .. math:: \mathrm{R\text{-}prec} = \frac{\#\{\text{relevant documents in the top } R\}}{R}

    where R is the query's total number of relevant documents (in the
    list, or ``n_relevant``). It compares whole lists, so it takes no ``k``.

    Parameters
    ----------
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some (R counts them). Every key must be a query id (row
        numbers for 2-D input); queries absent from the mapping use the
        count in their list.

    See Also
    --------
    precision_at_k_score : Precision at a fixed k.
    map_score : Precision at every relevant rank.

    Notes
    -----
    When R exceeds the list, the missing ranks hold no relevant document
    (hits@R / R with the list's hits). Equals trec_eval's ``Rprec`` when
    every judged document of each query is in ``y_true`` or counted by
    ``n_relevant``, and no scores tie (trec_eval orders a tie by document
    id); for a TREC run use :func:`sklearn_rank_metrics.trec.evaluate_run`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schütze, "Introduction to
       Information Retrieval", Cambridge University Press, 2008, ch. 8.

    Examples
    --------
    >>> from sklearn_rank_metrics import r_precision_score
    >>> r_precision_score([1, 0, 1, 0, 1], [5, 4, 3, 2, 1])   # 2 of the top 3
    0.66666...
    """
