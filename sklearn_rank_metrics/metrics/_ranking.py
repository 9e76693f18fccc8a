"""Public ranking metrics, one function per metric.

Every function checks its options against the declared parameter table at
its top, then runs the package's one evaluation path (validate and factorize the
input, sort once, run the metric's kernels, average). Conventions follow
trec_eval and scikit-learn unless an option says otherwise;
``docs/metrics.md`` lists them side by side.

Shared keyword parameters come in one order everywhere: ``k``, ``qid``, then
the options specific to a function (``gain``, ``level``, ``method``), then
``relevance_level``, ``n_relevant``, ``ties``, ``no_relevant``,
``sample_weight`` and ``average``; scikit-learn's ``log_base`` follows
``gain`` and its ``ignore_ties`` follows ``ties``.
"""

import numpy as np

from .._engine._definitions import METRICS, check_bounded
from .._engine._options import Options
from .._engine._params import check_parameters
from .._engine._pipeline import Request
from .._engine.prepare._prepare import Inputs
from ._evaluate import evaluate_requests
from ._query_results import warn_left_out


# Data arguments, validated with the arrays; every other keyword is an
# option checked against the parameter table.
_DATA_ARGUMENTS = ("qid", "sample_weight")


def _definition(function, options):
    """The metric ``function`` computes with these options (they hold its fixed options)."""
    for definition in METRICS.values():
        fixed = definition.fixed_options.items()
        if definition.function == function and all(options[n] == v for n, v in fixed):
            return definition
    raise AssertionError(f"no metric definition for {function} with {options}")


def check_options(function, options, *, owner=None, definition=None):
    """Check the options of the public ``function`` (by name) as it checks them when called.

    ``options`` are keyword arguments of the function; the data arguments
    among them (``qid``, ``sample_weight``) are left to the data checks.
    ``owner`` names the caller in the parameter errors (default:
    ``function``). A metric name (``"ndcg@10"``) passes its ``definition``.
    """
    checked = {name: value for name, value in options.items() if name not in _DATA_ARGUMENTS}
    check_parameters(function if owner is None else owner, **checked)
    ties = options.get("ties", "average")
    if options.get("ignore_ties") and ties != "average":
        raise ValueError(
            f"{function}: ignore_ties=True and ties={ties!r} both say how to rank "
            "tied documents; pass ignore_ties=True alone for scikit-learn's order (that of "
            "numpy.argsort, reversed), or ties= alone."
        )
    if definition is None:
        definitions = [d for d in METRICS.values() if d.function == function]
    else:
        definitions = [definition]
    for checked_definition in definitions:
        check_bounded(checked_definition, options.get("no_relevant", "zero"), function)


def _score(function, y_true, y_score, *, average, **options):
    """Check the options, run one metric through the evaluation path; its mean or per-query values.

    ``options`` are the public function's keyword arguments, by name; those
    its definition fixes (``level``, ``method``) select the metric.
    """
    check_options(function, dict(options, average=average))
    definition = _definition(function, options)
    request = Request(function, definition, options.get("k"))
    inputs = Inputs(y_true, y_score, options.get("qid"), options.get("sample_weight"))
    results = evaluate_requests([request], inputs, Options.of(options))
    warn_left_out(results)
    return results.mean(function) if average == "mean" else np.array(results[function])


def dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    gain="linear",
    log_base=2,
    ties="average",
    ignore_ties=False,
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Discounted cumulative gain at k (DCG@k).

    .. math:: \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} \frac{g(rel_i)}{\log_b(i + 1)}

    where ``rel_i`` is the label of the document at rank ``i``, ``g`` the
    gain: ``g(rel) = rel`` (linear) or ``2**rel - 1`` (exponential), and
    ``b`` the base of the logarithm, ``log_base`` (2 by default).

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded; fractional grades
        are fine). 1-D: one label per document, queries given by ``qid``.
        2-D: one query per row, as in :func:`sklearn.metrics.dcg_score`.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    gain : {"linear", "exponential"}, default="linear"
        Gain of a document with label ``rel``: ``rel`` (scikit-learn,
        trec_eval) or ``2**rel - 1`` (Burges et al.; LightGBM, XGBoost).
    log_base : float, default=2
        Base of the logarithm of the discount ``1 / log_base(i + 1)``, > 1:
        scikit-learn's option. DCG in base ``b`` is DCG in base 2 times
        ``log2(b)``; NDCG does not depend on the base.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings (scikit-learn's
        ``ignore_ties=False``); ``"optimistic"`` and ``"pessimistic"`` rank
        higher labels first and last inside a tie, giving the bounds;
        ``"first"`` ranks them in input order (row order inside the query),
        as the stable sorts of LightGBM and XGBoost do.
    ignore_ties : bool, default=False
        scikit-learn's option: True ranks each query as
        :func:`sklearn.metrics.dcg_score` with ``ignore_ties=True`` does, in the
        order of ``numpy.argsort(y_score)`` reversed. That sort is not
        stable: tied documents come in an order that depends on NumPy's
        sorting algorithm for the scores' dtype and the list's length (for
        short lists, reversed input order). The numbers are scikit-learn's;
        for a defined order of tied documents use ``ties="first"``, for the
        exact value over all their orders the default. False leaves the
        ranking to ``ties``; True with ``ties`` other than ``"average"`` is
        an error.
    no_relevant : {"zero", "skip"}, default="zero"
        Queries whose labels are all 0 score 0, or are left out of the mean
        with a warning that counts them (NaN with ``average=None``).
        ``"one"`` is an error: DCG has no upper bound.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

    Raises
    ------
    ValueError
        If a DCG overflows float64 (``gain="exponential"`` with labels near
        1000 or above, or a huge DCG times ``log2(log_base)``);
        :func:`ndcg_score` is exact for any labels.

    See Also
    --------
    ndcg_score : DCG normalized by the DCG of the ideal ordering.
    cg_score : The gains of the top k without discount.
    sklearn.metrics.dcg_score : The same on 2-D input.

    Notes
    -----
    With 2-D input this equals :func:`sklearn.metrics.dcg_score` with the
    same ``k``, ``log_base``, ``sample_weight`` and ``ignore_ties``
    (``ties="average"`` is its ``ignore_ties=False``); 1-D input with
    ``qid`` gives the numbers it gives with each query a row. Under ``ties="average"`` a tie block
    straddling rank k contributes its mean gain times the discounts of its
    positions inside the top k: the exact expectation over the orderings of
    the tie. A query with no relevant document is one whose labels are all 0.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation
       of IR techniques", ACM Transactions on Information Systems 20(4),
       2002.
    .. [2] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.

    Examples
    --------
    >>> from sklearn_rank_metrics import dcg_score
    >>> dcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3)   # 3 + 2/log2(3) + 3/2
    5.76185...
    >>> dcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3, log_base=10)  # times log2(10)
    19.14048...
    """
    check_parameters("dcg_score", log_base=log_base)
    dcg = _score(
        "dcg_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        gain=gain,
        ties=ties,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )
    return _in_base(dcg, log_base)


def _in_base(dcg, log_base):
    """DCG with the discount ``1 / log_base(i + 1)``: ``log2(log_base)`` times DCG in base 2."""
    if log_base == 2:
        return dcg
    scaled = np.multiply(dcg, np.log2(float(log_base)))
    if np.isinf(scaled).any():
        raise ValueError(
            f"dcg_score: the DCG in base log_base={log_base!r} overflows float64; use "
            "ndcg_score, which does not depend on the base, or a smaller log_base."
        )
    return float(scaled) if np.ndim(scaled) == 0 else scaled


def ndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    gain="linear",
    ties="average",
    ignore_ties=False,
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Normalized discounted cumulative gain at k (NDCG@k).

    .. math:: \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{IDCG@k}}, \qquad
              \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} \frac{g(rel_i)}{\log_2(i + 1)}

    where IDCG@k is the DCG@k of the query's documents sorted by decreasing
    label (the ideal ranking of the list given), and ``g(rel) = rel``
    (linear) or ``2**rel - 1`` (exponential).

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded; fractional grades
        are fine). 1-D: one label per document, queries given by ``qid``.
        2-D: one query per row, as in :func:`sklearn.metrics.ndcg_score`.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    gain : {"linear", "exponential"}, default="linear"
        Gain of a document with label ``rel``: ``rel`` (scikit-learn,
        trec_eval) or ``2**rel - 1`` (Burges et al.; LightGBM, XGBoost).
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings (scikit-learn's
        ``ignore_ties=False``); ``"optimistic"`` and ``"pessimistic"`` rank
        higher labels first and last inside a tie, giving the bounds;
        ``"first"`` ranks them in input order (row order inside the query),
        as the stable sorts of LightGBM and XGBoost do.
    ignore_ties : bool, default=False
        True gives the numbers of :func:`sklearn.metrics.ndcg_score` with
        ``ignore_ties=True``: each query in the order of
        ``numpy.argsort(y_score)`` reversed, whose unstable sort puts tied
        documents in no defined order (see :func:`dcg_score`). False leaves
        the ranking to ``ties``; True with ``ties`` other than
        ``"average"`` is an error.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query whose labels are all 0 (IDCG = 0): 0 as in
        scikit-learn and trec_eval, left out of the mean with a warning that
        counts such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

    See Also
    --------
    dcg_score : The unnormalized DCG.
    evaluate : Several metrics from one sort.
    sklearn.metrics.ndcg_score : The same on 2-D input.

    Notes
    -----
    With 2-D input this equals :func:`sklearn.metrics.ndcg_score` with the
    same ``k``, ``sample_weight`` and ``ignore_ties`` (``ties="average"`` is
    its ``ignore_ties=False``); 1-D input with ``qid`` gives the numbers it
    gives with each query a row. It takes no ``log_base``, as scikit-learn's
    does not: the base of the discount cancels in the ratio, so NDCG is the
    same in every base. LightGBM's and XGBoost's reported NDCG is
    ``gain="exponential", no_relevant="one", ties="first"`` (their queries
    without a relevant document score 1, and their stable sorts keep tied
    documents in row order). It also equals trec_eval's
    ``ndcg_cut`` when the qrels hold the list's labels. ``k`` beyond a list
    cuts nothing. Exponential gains of labels near 1000 and above would
    overflow float64; each query's gains are then divided by a power of two
    (which leaves NDCG exactly unchanged), so NDCG is exact for any labels.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation
       of IR techniques", ACM Transactions on Information Systems 20(4),
       2002.
    .. [2] C. Burges et al., "Learning to Rank using Gradient Descent",
       ICML 2005 (the exponential gain).
    .. [3] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.

    Examples
    --------
    >>> from sklearn_rank_metrics import ndcg_score
    >>> ndcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3)   # 5.762 / 5.893
    0.97778...
    >>> ndcg_score([1, 0, 2, 0], [0.2, 0.9, 0.9, 0.1], qid=["a", "a", "b", "b"], average=None)
    array([0.63092975, 1.        ])
    """
    return _score(
        "ndcg_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        gain=gain,
        ties=ties,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def cg_score(
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
    r"""Cumulative gain at k (CG@k): the sum of the gains of the top k.

    .. math:: \mathrm{CG@k} = \sum_{i=1}^{\min(k, n)} g(rel_i)

    with ``g(rel) = rel`` (linear) or ``2**rel - 1`` (exponential).

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded; fractional grades
        are fine). 1-D: one label per document, queries given by ``qid``.
        2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    gain : {"linear", "exponential"}, default="linear"
        Gain of a document with label ``rel``: ``rel`` or ``2**rel - 1``.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip"}, default="zero"
        Queries whose labels are all 0 score 0, or are left out of the mean
        with a warning that counts them (NaN with ``average=None``).
        ``"one"`` is an error: CG has no upper bound.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

    Raises
    ------
    ValueError
        If a CG overflows float64 (``gain="exponential"`` with labels near
        1000 or above).

    See Also
    --------
    dcg_score : The same gains, discounted by rank.
    ndcg_score : DCG normalized to [0, 1].

    Notes
    -----
    Position inside the top k does not matter. Under ``ties="average"`` a
    tie block straddling rank k contributes its mean gain per position
    inside the top k.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation
       of IR techniques", ACM Transactions on Information Systems 20(4),
       2002.

    Examples
    --------
    >>> from sklearn_rank_metrics import cg_score
    >>> cg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=2)
    5.0
    >>> cg_score([5, 2, 0], [2, 1, 1], k=2)   # 5 + the mean of the tied 2 and 0
    6.0
    """
    return _score(
        "cg_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        gain=gain,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def mrr_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Mean reciprocal rank at k (MRR@k).

    .. math:: \mathrm{RR@k} = \begin{cases} 1 / \mathrm{rank}_1 & \text{if }
              \mathrm{rank}_1 \le k \\ 0 & \text{otherwise} \end{cases}

    where ``rank_1`` is the rank of the first relevant document; MRR is the
    mean over queries.

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``, ranx's ``rel_lvl``).
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some. Only whether a query has any matters here. Every
        key must be a query id (row numbers for 2-D input); queries absent
        from the mapping use the count in their list.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0 as in trec_eval, left out of the mean with a
        warning that counts such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "mrr_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def map_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Mean average precision at k (MAP@k); one query's value is AP@k.

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{i=1}^{\min(k, n)} \mathrm{P@i} \cdot rel_i

    where ``rel_i`` is 1 if the document at rank ``i`` is relevant, P@i the
    precision of the top ``i``, and R the query's total number of relevant
    documents (in the list, or ``n_relevant``).

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``, ranx's ``rel_lvl``).
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some (they rank after the whole list). Every key must be
        a query id (row numbers for 2-D input); queries absent from the
        mapping use the count in their list.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0 as in trec_eval, left out of the mean with a
        warning that counts such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

    See Also
    --------
    precision_at_k_score : Precision of the top k.
    r_precision_score : Precision of the top R.

    Notes
    -----
    The denominator is R, as in trec_eval's ``map_cut`` and ranx's ``map``:
    a relevant document below rank k lowers AP@k. (Dividing by the hits
    inside the top k instead, as some tutorials do, rewards cutting a list
    short.) Under ``ties="average"`` this is the exact expected AP over the
    orderings of tied documents, from the probability that two documents
    of a tie block are both relevant.

    Equals trec_eval's ``map`` (``map_cut_k`` with ``k``) when every judged
    document of each query is in ``y_true`` or counted by ``n_relevant``,
    and no scores tie (trec_eval orders a tie by document id); for a TREC
    run use :func:`sklearn_rank_metrics.trec.evaluate_run`. LightGBM and
    XGBoost divide AP@k by ``min(R, k)``: ``docs/conventions.md`` lists
    such conventions of other tools and the options that reproduce them.

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
    """
    return _score(
        "map_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def precision_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Precision at k (P@k): the share of the top k that is relevant.

    .. math:: \mathrm{P@k} = \frac{\#\{\text{relevant documents in the top } k\}}{k}

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list (k is then the list length); a ``k`` larger than a list
        is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``, ranx's ``rel_lvl``).
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query. Only whether a
        query has any matters here. Every key must be a query id (row
        numbers for 2-D input).
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0 as in trec_eval, left out of the mean with a
        warning that counts such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "precision_at_k_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def recall_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Recall at k: the share of a query's relevant documents in the top k.

    .. math:: \mathrm{Recall@k} = \frac{\#\{\text{relevant documents in the top } k\}}{R}

    where R is the query's total number of relevant documents (in the
    list, or ``n_relevant``).

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``, ranx's ``rel_lvl``).
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some. Every key must be a query id (row numbers for 2-D
        input); queries absent from the mapping use the count in their list.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0 as in trec_eval, left out of the mean with a
        warning that counts such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "recall_at_k_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def f1_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""F1 at k: the harmonic mean of P@k and Recall@k.

    .. math:: \mathrm{F1@k} = \frac{2\, \mathrm{P@k}\, \mathrm{Recall@k}}
              {\mathrm{P@k} + \mathrm{Recall@k}} = \frac{2\, \mathrm{hits@k}}{k + R}

    with P@k dividing by k even for shorter lists (as
    :func:`precision_at_k_score`) and R the total number of relevant
    documents.

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``, ranx's ``rel_lvl``).
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some. Every key must be a query id (row numbers for 2-D
        input); queries absent from the mapping use the count in their list.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0, left out of the mean with a warning that counts
        such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "f1_at_k_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def recall_cap_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""Capped recall at k (R_cap@k), as in BEIR and MTEB.

    .. math:: \mathrm{R\_cap@k} = \frac{\#\{\text{relevant documents in the top } k\}}{\min(k, R)}

    where R is the query's total number of relevant documents (in the
    list, or ``n_relevant``).

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list (k is then the list length); a ``k`` larger than a list
        is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``.
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some. Every key must be a query id (row numbers for 2-D
        input); queries absent from the mapping use the count in their list.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0, left out of the mean with a warning that counts
        such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "recall_cap_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def hit_rate_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    level="query",
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
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

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    k : int, default=None
        Only the top ``k`` documents of each query count. None evaluates the
        whole list; a ``k`` larger than a list is allowed.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    level : {"query", "item"}, default="query"
        Whether to count queries with a hit, or relevant recommended items.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``.
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query. Only whether a
        query has any matters here. Every key must be a query id (row
        numbers for 2-D input).
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings (the probability of a hit);
        ``"optimistic"`` and ``"pessimistic"`` rank higher labels first and
        last inside a tie, giving the bounds; ``"first"`` ranks them in input
        order (row order inside the query), as the stable sorts of LightGBM
        and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0, left out of the mean with a warning that counts
        such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "hit_rate_score",
        y_true,
        y_score,
        k=k,
        qid=qid,
        level=level,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def r_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    average="mean",
):
    r"""R-precision: precision at rank R, the query's number of relevant documents.

    .. math:: \mathrm{R\text{-}prec} = \frac{\#\{\text{relevant documents in the top } R\}}{R}

    where R is the query's total number of relevant documents (in the
    list, or ``n_relevant``). It compares whole lists, so it takes no ``k``.

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0 (binary or graded). 1-D: one label per
        document, queries given by ``qid``. 2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    relevance_level : float, default=1
        A document is relevant iff its label >= ``relevance_level``
        (trec_eval's ``-l``).
    n_relevant : mapping of query id to int, default=None
        Total number of relevant documents of each query, for runs whose
        lists miss some (R counts them). Every key must be a query id (row
        numbers for 2-D input); queries absent from the mapping use the
        count in their list.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        Documents with equal scores: ``"average"`` gives the exact expected
        value over all their orderings; ``"optimistic"`` and
        ``"pessimistic"`` rank higher labels first and last inside a tie,
        giving the bounds; ``"first"`` ranks them in input order (row order
        inside the query), as the stable sorts of LightGBM and XGBoost do.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        Value of a query with no relevant document (counting
        ``n_relevant``): 0 as in trec_eval, left out of the mean with a
        warning that counts such queries (NaN with ``average=None``), or 1.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query was left out.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

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
    return _score(
        "r_precision_score",
        y_true,
        y_score,
        qid=qid,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


def rank_correlation_score(
    y_true,
    y_score,
    *,
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
    labels, pairs of equal label always agreeing. ``method="kendall"`` is
    Kendall's tau-b between labels and scores of each query.

    Parameters
    ----------
    y_true : array-like of shape (n_documents,) or (n_queries, n_documents_per_query)
        True relevance labels, >= 0, compared as they are (graded labels
        are ordered). 1-D: one label per document, queries given by ``qid``.
        2-D: one query per row.
    y_score : array-like of the same shape as y_true
        Predicted scores; a higher score ranks a document higher. Integer
        scores are ranked by their exact value.
    qid : array-like of shape (n_documents,), default=None
        Query id of every document (ints or strings, rows in any order).
        Only with 1-D input; None means all documents form one query.
    method : {"rc", "kendall"}, default="rc"
        The agreement share RC, or Kendall's tau-b.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        For RC, a pair of tied scores and different labels counts 1/2
        (``"average"``, the expected value), 1 (``"optimistic"``), 0
        (``"pessimistic"``), or under ``"first"`` (input order) 1 when the
        earlier row has the higher label. Kendall's tau-b corrects for ties
        itself, so ``ties`` does not change it.
    sample_weight : array-like, default=None
        Weights of the queries in the mean: one per row for 2-D input; for
        1-D input one per document, equal within each query. Ignored with
        ``average=None``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query is undefined.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Mean over queries, or per-query values with ``average=None``.

    See Also
    --------
    scipy.stats.kendalltau : Kendall's tau-b of one query.
    ndcg_score : A rank-weighted measure of the same agreement.

    Notes
    -----
    Pairs are counted in O(n log n) per query (no loop over pairs). A query
    whose value is undefined (a single document; for tau-b also constant
    labels or scores) is left out of the mean with a warning that counts
    such queries. Kendall's tau-b equals :func:`scipy.stats.kendalltau`.
    There is no relevance threshold, so ``no_relevant`` does not apply.

    References
    ----------
    .. [1] T.-Y. Liu, "Learning to Rank for Information Retrieval",
       Springer, 2011.
    .. [2] M. G. Kendall, "The treatment of ties in ranking problems",
       Biometrika 33(3), 1945.

    Examples
    --------
    >>> from sklearn_rank_metrics import rank_correlation_score
    >>> rank_correlation_score([1, 0, 1], [3, 2, 1])   # pairs (1,2) and (1,3) agree
    0.66666...
    >>> rank_correlation_score([1, 0, 1], [3, 2, 1], method="kendall")
    0.0
    """
    return _score(
        "rank_correlation_score",
        y_true,
        y_score,
        qid=qid,
        method=method,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
    )
