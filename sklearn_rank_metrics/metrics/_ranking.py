"""Public ranking metrics, one function per metric: the graded ones here, the binary in ``_binary``.

A metric function is its signature and its docstring: :func:`_metric` binds
it to its definition in the engine's table. Calling it checks its options
against the declared parameter table (:mod:`.._engine._params`), then runs the
package's one evaluation path (validate and factorize the input, sort once,
run the metric's kernels, average). The same table writes the Parameters
entries the functions share; a docstring writes only the entries whose
meaning is its own. Conventions follow trec_eval and scikit-learn unless an
option says otherwise; ``docs/metrics.md`` lists them side by side.

Shared keyword parameters come in one order everywhere: ``k``, ``qid``,
``exclude``, then the options specific to a function (``gain``,
``label_gain``, ``level``, ``method``, ``ap_denominator``), then
``relevance_level``, ``n_relevant``, ``ties``, ``no_relevant``, ``leakage``,
``sample_weight`` and ``average``; scikit-learn's ``log_base`` follows
``label_gain`` and its ``ignore_ties`` follows ``ties``.
"""

import functools
import inspect

import numpy as np

from .._engine._options import Options
from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine.prepare._prepare import Inputs
from .._engine.spec import METRICS, Request, check_bounded
from ._evaluate import evaluate_requests
from ._query_results import warn_left_out

_RETURNS = """
score : float or ndarray of shape (n_queries,)
    Mean over queries, or per-query values with ``average=None``.
"""


# Data arguments, validated with the arrays; every other keyword is an
# option checked against the parameter table.
_DATA_ARGUMENTS = ("qid", "sample_weight", "exclude")


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
    inputs = Inputs(
        y_true, y_score, options.get("qid"), options.get("sample_weight"), options.get("exclude")
    )
    results = evaluate_requests([request], inputs, Options.of(options))
    warn_left_out(results)
    return results.mean(function) if average == "mean" else np.array(results[function])


def _metric(**extra):
    """Bind a metric function, by its name, to its definition and the parameter table.

    The decorated function's body is never run: calling it binds the
    arguments to its signature (defaults applied) and passes them by name to
    :func:`_score`, which checks them and selects the definition. Its
    docstring gets the shared Parameters entries and the Returns section
    (:func:`document_parameters`; ``extra``: sentences added to the
    table's text of an argument).
    """

    def bind(function):
        if not any(definition.function == function.__name__ for definition in METRICS.values()):
            raise AssertionError(f"no metric definition computes {function.__name__}")
        document_parameters(returns=_RETURNS, extra=extra)(function)
        signature = inspect.signature(function)

        @functools.wraps(function)
        def score(*args, **kwargs):
            try:
                arguments = signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{function.__name__}() {error}") from None
            arguments.apply_defaults()
            return _score(function.__name__, **arguments.arguments)

        return score

    return bind


@document_parameters(returns=_RETURNS)
def dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    gain="linear",
    label_gain=None,
    log_base=2,
    ties="average",
    ignore_ties=False,
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Discounted cumulative gain at k (DCG@k).

    .. math:: \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} \frac{g(rel_i)}{\log_b(i + 1)}

    where ``rel_i`` is the label of the document at rank ``i``, ``g`` the
    gain: ``g(rel) = rel`` (linear), ``2**rel - 1`` (exponential) or
    ``label_gain[rel]``, and ``b`` the base of the logarithm, ``log_base``
    (2 by default).

    Parameters
    ----------
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
        exclude=exclude,
        gain=gain,
        label_gain=label_gain,
        ties=ties,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        leakage=leakage,
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


@_metric()
def ndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    gain="linear",
    label_gain=None,
    ties="average",
    ignore_ties=False,
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Normalized discounted cumulative gain at k (NDCG@k).

    .. math:: \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{IDCG@k}}, \qquad
              \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} \frac{g(rel_i)}{\log_2(i + 1)}

    where IDCG@k is the DCG@k of the query's documents sorted by decreasing
    gain (the ideal ranking of the list given), and ``g(rel) = rel``
    (linear), ``2**rel - 1`` (exponential) or ``label_gain[rel]``.

    Parameters
    ----------
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
    documents in row order); LightGBM's with its own ``label_gain`` is
    ``label_gain=`` the same list in place of ``gain``. With gains that do
    not grow with the label the ideal ranking still puts the largest gains
    first (LightGBM's puts the highest labels first). It also equals trec_eval's
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
    >>> ndcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3, label_gain=[0, 1, 3, 7])  # 2**rel - 1
    0.95945...
    >>> ndcg_score([3, 2, 3, 0, 1], [5, 4, 3, 2, 1], k=3, label_gain={0: 0, 1: 1, 2: 2, 3: 10})
    0.93948...
    """


@_metric()
def cg_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    exclude=None,
    gain="linear",
    label_gain=None,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Cumulative gain at k (CG@k): the sum of the gains of the top k.

    .. math:: \mathrm{CG@k} = \sum_{i=1}^{\min(k, n)} g(rel_i)

    with ``g(rel) = rel`` (linear), ``2**rel - 1`` (exponential) or
    ``label_gain[rel]``.

    Parameters
    ----------
    no_relevant : {"zero", "skip"}, default="zero"
        Queries whose labels are all 0 score 0, or are left out of the mean
        with a warning that counts them (NaN with ``average=None``).
        ``"one"`` is an error: CG has no upper bound.

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


@_metric()
def rank_correlation_score(
    y_true,
    y_score,
    *,
    qid=None,
    exclude=None,
    method="rc",
    ties="average",
    leakage="raise",
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
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        For RC, a pair of tied scores and different labels counts 1/2
        (``"average"``, the expected value), 1 (``"optimistic"``), 0
        (``"pessimistic"``), or under ``"first"`` (input order) 1 when the
        earlier row has the higher label. Kendall's tau-b corrects for ties
        itself, so ``ties`` does not change it.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns the (weighted) mean over queries; None the value
        of every query, in the order of ``numpy.unique(qid)`` (row order for
        2-D input), NaN where a query is undefined.

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
