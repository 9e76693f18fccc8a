"""Scorers for ranking metrics, for ``scoring=`` in scikit-learn's model selection.

A ranking metric needs the query id of every row of the fold it scores.
scikit-learn hands a scorer nothing but ``(estimator, X, y)`` unless the
scorer requests more through metadata routing, so these scorers request
``qid`` by default and refuse to score without it: treating a fold as one
big query is the silent error this module exists to prevent.
"""

import inspect

import numpy as np
import sklearn
from sklearn.metrics import make_scorer
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .. import metrics as _metrics
from .._engine._definitions import resolve_metric
from ._routing import resolve_qid

# scikit-learn calls the first of these methods the estimator has: classifiers
# are scored by their class probabilities, rankers and regressors by predict.
RESPONSE_METHODS = ("predict_proba", "predict")

# Supplied for every fold (qid, sample_weight) or by the scorer itself (y_true,
# y_score), so they cannot be fixed options of a scorer.
_PER_FOLD_ARGUMENTS = ("y_true", "y_score", "qid", "sample_weight")


def scores_from_probabilities(proba, classes):
    """One ranking score per row from a classifier's ``predict_proba`` output.

    With two classes, the probability of the higher one (the positive
    class); with graded labels, the expected grade ``sum_c c * p(c)``, which
    ranks a likely 4 above a likely 1 where the most probable class would tie
    them.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Class probabilities, columns in the order of ``classes``.
    classes : array-like of shape (n_classes,)
        The classifier's ``classes_``: the relevance grades, numbers.

    Returns
    -------
    scores : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics.model_selection._scorer import scores_from_probabilities
    >>> scores_from_probabilities(np.array([[0.2, 0.8], [0.9, 0.1]]), [0, 1])
    array([0.8, 0.1])
    >>> scores_from_probabilities(np.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]]), [0, 1, 4])
    array([2., 1.])
    """
    proba = np.asarray(proba)
    if proba.shape[1] == 2:
        return proba[:, 1]
    try:
        grades = np.asarray(classes, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            "a classifier scored as a ranker needs numeric class labels (relevance "
            f"grades) to compute the expected grade, got classes {list(classes)!r}."
        ) from None
    return proba @ grades


def _metric_of_response(y_true, y_pred, *, metric, classes, **metric_kwargs):
    """The score function handed to make_scorer: reduce probabilities, then score."""
    if np.ndim(y_pred) == 2:  # predict_proba of a classifier with graded labels
        y_pred = scores_from_probabilities(y_pred, classes)
    return metric(y_true, y_pred, **metric_kwargs)


def _accepted_options(function):
    """Names of the keyword options ``function`` takes (None: it takes any)."""
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters} - set(_PER_FOLD_ARGUMENTS)


def _check_options(function_name, accepted, options):
    fixed_per_fold = sorted(set(options) & set(_PER_FOLD_ARGUMENTS))
    if fixed_per_fold:
        raise TypeError(
            f"{', '.join(fixed_per_fold)} cannot be fixed in a scorer: the scorer gets "
            "them for each fold (qid through metadata routing or qid_column, "
            "sample_weight through routing)."
        )
    if accepted is not None:
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise TypeError(
                f"{function_name} got unexpected option(s) {', '.join(map(repr, unknown))}; "
                f"it accepts {', '.join(sorted(accepted))}."
            )
    if options.get("average", "mean") != "mean":
        raise ValueError(
            f"average={options['average']!r}: a scorer must return one number, so "
            "average must be 'mean'."
        )


def _resolve_metric(metric, metric_kwargs, greater_is_better):
    """``(function, options)`` for a metric name or function and its options."""
    if callable(metric):
        name = getattr(metric, "__name__", repr(metric))
        accepted = _accepted_options(metric)
        if accepted is not None and "qid" not in inspect.signature(metric).parameters:
            raise TypeError(
                f"the metric function {name} must accept qid=, the query id of every "
                "row, as sklearn_rank_metrics' metrics do."
            )
        _check_options(name, accepted, metric_kwargs)
        return metric, dict(metric_kwargs)
    if not isinstance(metric, str):
        raise TypeError(
            "metric must be a metric name such as 'ndcg@10' or a metric function "
            f"f(y_true, y_score, *, qid, ...), got {metric!r}."
        )
    registered, k = resolve_metric(metric)
    if not greater_is_better:
        raise ValueError(
            f"greater_is_better=False for {metric!r}: every named ranking metric is "
            "better when higher, and a search would pick the worst model. Leave "
            "greater_is_better at True."
        )
    options = dict(registered.fixed_options)
    if k is not None:
        options["k"] = k
    repeated = sorted(set(options) & set(metric_kwargs))
    if repeated:
        raise ValueError(
            f"{', '.join(repeated)} is already set by the name {metric!r}; give it once."
        )
    function = getattr(_metrics, registered.function)
    accepted = _accepted_options(function)
    if accepted is not None:
        accepted -= set(options)
    _check_options(function.__name__, accepted, metric_kwargs)
    options.update(metric_kwargs)
    return function, options


def _describe(metric, metric_kwargs, qid_column, greater_is_better):
    """The call that makes the scorer, as its repr (also shown in error messages)."""
    arguments = [
        repr(metric) if isinstance(metric, str) else getattr(metric, "__name__", repr(metric))
    ]
    arguments += [f"{key}={value!r}" for key, value in metric_kwargs.items()]
    if qid_column is not None:
        arguments.append(f"qid_column={qid_column!r}")
    if not greater_is_better:
        arguments.append("greater_is_better=False")
    return f"make_rank_scorer({', '.join(arguments)})"


class _RankScorer:
    """A scorer ``scorer(estimator, X, y_true, *, qid=None, sample_weight=None)``.

    Built by :func:`make_rank_scorer`; see there. For every call it builds a
    :func:`sklearn.metrics.make_scorer` scorer with the fold's query ids bound
    as a metric argument, so that scikit-learn chooses the response method as
    for any of its scorers, with or without metadata routing.
    """

    def __init__(self, metric, options, *, greater_is_better, qid_column, description):
        self._metric = metric
        self._options = options
        self._greater_is_better = greater_is_better
        self.qid_column = qid_column
        self._description = description
        # qid is requested by default, as GroupKFold requests groups;
        # sample_weight, as for scikit-learn's scorers, only on request.
        self._requests = {"qid": True, "sample_weight": None}

    def __call__(self, estimator, X, y_true, sample_weight=None, qid=None):
        """Score ``estimator`` on ``X`` against ``y_true``, query by query.

        Parameters
        ----------
        estimator : fitted estimator
            A ranker or regressor (scored by ``predict``) or a classifier
            (scored by its positive-class probability, or its expected grade
            for graded labels).
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score, with the query id column if ``qid_column``.
        y_true : array-like of shape (n_samples,)
            Relevance labels of the rows.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights, equal within a query.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row; routed by scikit-learn when metadata
            routing is on. Required unless ``qid_column`` is set.

        Returns
        -------
        score : float
        """
        qid = resolve_qid(X, qid, self.qid_column, caller=f"The scorer {self!r}")
        metric_kwargs = dict(self._options, qid=qid)
        if sample_weight is not None:
            metric_kwargs["sample_weight"] = sample_weight
        scorer = make_scorer(
            _metric_of_response,
            response_method=RESPONSE_METHODS,
            greater_is_better=self._greater_is_better,
            metric=self._metric,
            # Graded labels need the grade of each probability column.
            classes=getattr(estimator, "classes_", None),
            **metric_kwargs,
        )
        return scorer(estimator, X, y_true)

    def __repr__(self):
        return self._description

    def set_score_request(self, *, qid=UNCHANGED, sample_weight=UNCHANGED):
        """Change which metadata this scorer requests (metadata routing only).

        Parameters
        ----------
        qid : bool, None or str, default=UNCHANGED
            True (the default request) to receive ``qid``, False not to, or
            the name under which the caller passes it (an alias).
        sample_weight : bool, None or str, default=UNCHANGED
            Not requested by default; True to weigh queries by it.

        Returns
        -------
        self : the scorer
        """
        if not sklearn.get_config()["enable_metadata_routing"]:
            raise RuntimeError(
                "set_score_request is only available when metadata routing is enabled: "
                "call sklearn.set_config(enable_metadata_routing=True) first."
            )
        requests = dict(self._requests)
        for param, alias in (("qid", qid), ("sample_weight", sample_weight)):
            if alias is not UNCHANGED:
                requests[param] = alias
        self._build_request(requests)  # raises a ValueError for an invalid alias
        self._requests = requests
        return self

    def _build_request(self, requests):
        # The owner is a string: scikit-learn 1.4 prints it in routing errors.
        request = MetadataRequest(owner=repr(self))
        for param, alias in requests.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def get_metadata_routing(self):
        """The scorer's metadata request: ``qid`` requested unless changed.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRequest
        """
        return self._build_request(self._requests)

    def _accept_sample_weight(self):
        # scikit-learn >= 1.7 asks scorers this to forward sample_weight when
        # metadata routing is off.
        return True


def make_rank_scorer(metric, *, greater_is_better=True, qid_column=None, **metric_kwargs):
    """Make a scorer from a ranking metric, for ``scoring=`` in model selection.

    The scorer computes ``metric(y_true, y_score, qid=qid, **metric_kwargs)`` on
    the rows it is given, query by query. ``y_score`` is the estimator's
    ``predict`` for rankers and regressors; for classifiers used pointwise it
    is the positive-class probability (two labels) or the expected grade
    ``sum_c c * p(c)`` (graded labels). The scorer is built on
    :func:`sklearn.metrics.make_scorer`, which chooses between
    ``predict_proba`` and ``predict``.

    The query ids reach the scorer in one of two ways:

    - **metadata routing**: after ``sklearn.set_config(enable_metadata_routing=True)``,
      pass ``qid`` where the data enter (``GridSearchCV(...).fit(X, y, qid=qid)``,
      ``cross_validate(..., params={"qid": qid})``); the scorer requests it by
      default and gets the ids of exactly the rows it scores;
    - **a column of X**: ``qid_column`` names it, with routing on or off.

    Without either, calling the scorer raises a ValueError that says how to
    pass ``qid``: it never scores a fold as one query.

    Parameters
    ----------
    metric : str or callable
        A metric name as :func:`~sklearn_rank_metrics.evaluate` takes it,
        such as ``"ndcg@10"``, ``"map@100"`` or ``"mrr@10"``, or a function
        ``f(y_true, y_score, *, qid, ...)`` returning a float.
    greater_is_better : bool, default=True
        Whether a higher value is better. Every named metric is; set False
        only for a loss given as a function, whose scores are then negated
        (as :func:`~sklearn.metrics.make_scorer` does).
    qid_column : int or str, default=None
        Column of X holding the query ids (position, or DataFrame column
        name). The estimator must expect that column too: wrap it in
        :class:`~sklearn_rank_metrics.QueryRanker` with the same
        ``qid_column``, which drops it before the model sees X.
    **metric_kwargs
        Options of the metric, e.g. ``gain="exponential"``, ``ties``,
        ``relevance_level``; ``k`` if the name has no ``@k``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, *, qid=None, sample_weight=None)``, a
        scorer for ``scoring=``. It requests ``qid`` through metadata routing;
        ``scorer.set_score_request(qid=False, sample_weight=True)`` changes
        that. It pickles, so ``n_jobs`` works.

    See Also
    --------
    make_rank_scorers : Several scorers at once, as a dict for ``scoring=``.
    QueryRanker : Fit learning-to-rank models with query ids.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank_metrics import make_rank_scorer
    >>> X = np.array([[3.0], [2.0], [1.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([2, 1, 0, 0, 1, 2])
    >>> qid = np.array([7, 7, 7, 8, 8, 8])
    >>> model = Ridge().fit(X, y)
    >>> scorer = make_rank_scorer("ndcg@2")
    >>> scorer(model, X, y, qid=qid)
    1.0

    Without query ids the scorer refuses rather than score one big query:

    >>> scorer(model, X, y)
    Traceback (most recent call last):
    ...
    ValueError: The scorer make_rank_scorer('ndcg@2') needs the query id of every row (qid) ...

    The query id as a column of X instead (position 0 here), which
    :class:`~sklearn_rank_metrics.QueryRanker` drops before the model sees X:

    >>> from sklearn_rank_metrics import QueryRanker
    >>> X_with_qid = np.column_stack([qid, X])
    >>> ranker = QueryRanker(Ridge(), qid_column=0).fit(X_with_qid, y)
    >>> make_rank_scorer("ndcg@2", qid_column=0)(ranker, X_with_qid, y)
    1.0
    """
    function, options = _resolve_metric(metric, metric_kwargs, greater_is_better)
    return _RankScorer(
        function,
        options,
        greater_is_better=bool(greater_is_better),
        qid_column=qid_column,
        description=_describe(metric, metric_kwargs, qid_column, greater_is_better),
    )


def make_rank_scorers(metrics, *, qid_column=None, **metric_kwargs):
    """Make a dict of ranking scorers, the multi-metric form of ``scoring=``.

    scikit-learn's own name lookup does not know ranking metric names, so
    ``scoring=["ndcg@10", "map@10"]`` fails; pass
    ``scoring=make_rank_scorers(["ndcg@10", "map@10"])`` instead, and
    ``refit="ndcg@10"`` to pick the model by one of them.

    Parameters
    ----------
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, each with its own cutoff.
    qid_column : int or str, default=None
        Column of X holding the query ids, for every scorer (see
        :func:`make_rank_scorer`).
    **metric_kwargs
        Options handed to each metric that takes them (``gain`` reaches the
        NDCG and DCG scorers, ``relevance_level`` the binary metrics), as
        :func:`~sklearn_rank_metrics.evaluate` does. An option no metric
        takes is an error.

    Returns
    -------
    scorers : dict
        ``{name: scorer}``, in the order given.

    Examples
    --------
    >>> from sklearn_rank_metrics import make_rank_scorers
    >>> scoring = make_rank_scorers(["ndcg@10", "map@10", "mrr@10"])
    >>> list(scoring)
    ['ndcg@10', 'map@10', 'mrr@10']
    >>> scoring["map@10"]
    make_rank_scorer('map@10')
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics is empty; name at least one metric, e.g. ['ndcg@10'].")
    for name in metrics:
        if not isinstance(name, str):
            raise TypeError(
                f"make_rank_scorers takes metric names, got {name!r}; for a metric "
                "function, build its scorer with make_rank_scorer and add it to the dict."
            )
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"metrics names a metric twice: {metrics!r}.")
    if "k" in metric_kwargs:
        raise TypeError(
            "make_rank_scorers takes no k: give each metric its cutoff in its name, "
            "e.g. ['ndcg@5', 'map@10']."
        )

    def takes(name, option):
        registered, _ = resolve_metric(name)
        accepted = _accepted_options(getattr(_metrics, registered.function))
        return accepted is None or option in accepted - set(registered.fixed_options)

    unused = [option for option in metric_kwargs if not any(takes(n, option) for n in metrics)]
    if unused:
        raise TypeError(
            f"no metric of {metrics!r} takes the option(s) {', '.join(map(repr, unused))}."
        )
    return {
        name: make_rank_scorer(
            name,
            qid_column=qid_column,
            **{option: value for option, value in metric_kwargs.items() if takes(name, option)},
        )
        for name in metrics
    }
