"""Scorers for ranking metrics, for ``scoring=`` in scikit-learn's model selection.

A ranking metric needs the query id of every row of the fold it scores.
scikit-learn hands a scorer nothing but ``(estimator, X, y)`` unless the
scorer requests more through metadata routing, so these scorers request
``qid`` by default and refuse to score without it: treating a fold as one
big query is the silent error this module exists to prevent.

The scorers are scikit-learn scorer objects (subclasses of its
``_BaseScorer``), so that its multi-metric scoring treats them as its own:
it predicts once per fold and hands every scorer the cached output, and it
turns a scorer's failure into ``error_score`` for that metric alone.
"""

import inspect

import sklearn
from sklearn.metrics._scorer import _BaseScorer
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .. import metrics as _metrics
from .._engine._params import check_parameters
from .._engine.spec import parse_name, resolve_request
from ..metrics._ranking import check_options
from ._fit_arguments import final_step
from ._response import call_method, ranking_scores
from ._routing import resolve_qid

# Supplied for every fold (qid, sample_weight) or by the scorer itself (y_true,
# y_score), so they cannot be fixed options of a scorer.
_PER_FOLD_ARGUMENTS = ("y_true", "y_score", "qid", "sample_weight")

# scikit-learn's multi-metric scoring caches the estimator's output, per
# method name, only when two of its scorers resolve their ``_response_method``
# to the same method of the estimator. Which method a rank scorer calls is
# decided per estimator (see _response.py); these resolve to that method for
# rankers, regressors and binary classifiers, so rank scorers share one
# prediction with each other and with scikit-learn's scorers of the same
# method ("r2": predict; "roc_auc": decision_function, else predict_proba).
# For a classifier on graded labels "auto" resolves to decision_function where
# the rule calls predict_proba: rank scorers still share their prediction,
# but a single one beside a scikit-learn predict_proba scorer does not.
# "predict" comes last so that the check, which runs before any scorer, never
# fails where the scorer would raise its own, clearer error.
_CACHE_METHODS = {
    "auto": ("decision_function", "predict_proba", "predict"),
    "predict": ("predict",),
    "decision_function": ("decision_function", "predict"),
    "predict_proba": ("predict_proba", "predict"),
}


def _evaluate_metric(y_true, y_score, *, metric, **options):
    """One named metric through :func:`~sklearn_rank_metrics.evaluate`."""
    return _metrics.evaluate(y_true, y_score, metrics=[metric], **options)[metric]


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


def _named_options(name):
    """``(definition, fixed, accepted)`` for a metric name.

    ``fixed`` holds the options the name sets (``k`` from ``@k``, ``level`` of
    ``hit_rate_item``); ``accepted`` the options a scorer of it may still
    take: the metric's shared options, ``k`` where a cutoff applies, and
    ``average`` (which must stay "mean").
    """
    request = resolve_request(parse_name(name))
    definition = request.definition
    fixed = dict(definition.fixed_options)
    if request.k is not None:
        fixed["k"] = request.k
    accepted = {*definition.options, "average"}
    if definition.takes_cutoff:
        accepted.add("k")
    return definition, fixed, accepted - set(fixed)


def _check_orientation(metric, definition, greater_is_better):
    """Refuse a ``greater_is_better`` that contradicts the named metric's orientation."""
    if greater_is_better is None or bool(greater_is_better) == definition.higher_is_better:
        return
    better, given = ("higher", "True") if definition.higher_is_better else ("lower", "False")
    raise ValueError(
        f"greater_is_better={greater_is_better!r} for {metric!r}: {definition.name} is better "
        f"when {better}, and a search would pick the worst model. Leave greater_is_better "
        f"at None (the metric's own orientation) or set it to {given}."
    )


def greater_is_better_of(metric, greater_is_better=None):
    """Whether the scorer of ``metric`` keeps its values (True) or negates them (False).

    A metric name has its definition's orientation; a metric function is
    better when higher unless ``greater_is_better`` says otherwise.
    """
    if greater_is_better is not None:
        return bool(greater_is_better)
    if isinstance(metric, str):
        return _named_options(metric)[0].higher_is_better
    return True


def scorer_key(metric):
    """The key of a named metric's scorer in :func:`make_rank_scorers`' dict.

    scikit-learn names a scorer whose values are negated ``neg_...``
    (``neg_mean_squared_error``); a lower-is-better metric's key is so
    prefixed (``neg_fallout@5``), as are the ``cv_results_`` columns and the
    ``refit`` name that come from it.
    """
    return metric if greater_is_better_of(metric) else f"neg_{metric}"


def _resolve_metric(metric, metric_kwargs, greater_is_better):
    """``(score_func, options, accepts_sample_weight)`` for a metric name or function.

    A name is computed by :func:`_evaluate_metric`, with its options and the
    name to hand :func:`evaluate`; a function is called with its options.
    """
    if callable(metric):
        name = getattr(metric, "__name__", repr(metric))
        accepted = _accepted_options(metric)
        parameters = inspect.signature(metric).parameters
        if accepted is not None and "qid" not in parameters:
            raise TypeError(
                f"the metric function {name} must accept qid=, the query id of every "
                "row, as sklearn_rank_metrics' metrics do."
            )
        _check_options(name, accepted, metric_kwargs)
        if getattr(_metrics, name, None) is metric:
            check_options(name, metric_kwargs)  # one of this package's metric functions
        return metric, dict(metric_kwargs), accepted is None or "sample_weight" in parameters
    if not isinstance(metric, str):
        raise TypeError(
            "metric must be a metric name such as 'ndcg@10' or a metric function "
            f"f(y_true, y_score, *, qid, ...), got {metric!r}."
        )
    definition, fixed, accepted = _named_options(metric)
    _check_orientation(metric, definition, greater_is_better)
    repeated = sorted(set(fixed) & set(metric_kwargs))
    if repeated:
        raise ValueError(
            f"{', '.join(repeated)} is already set by the name {metric!r}; give it once."
        )
    _check_options(repr(metric), accepted, metric_kwargs)
    # Every value is checked here, as the metric checks it, not in the first fold.
    check_options(metric, metric_kwargs, owner="make_rank_scorer", definition=definition)
    options = dict(metric_kwargs)
    k = options.pop("k", None)
    name = metric if k is None else f"{metric}@{k}"
    return _evaluate_metric, dict(options, metric=name), True


def _describe(metric, metric_kwargs, qid_column, response_method, greater_is_better):
    """The call that makes the scorer, as its repr (also shown in error messages)."""
    arguments = [
        repr(metric) if isinstance(metric, str) else getattr(metric, "__name__", repr(metric))
    ]
    arguments += [f"{key}={value!r}" for key, value in metric_kwargs.items()]
    if qid_column is not None:
        arguments.append(f"qid_column={qid_column!r}")
    if response_method != "auto":
        arguments.append(f"response_method={response_method!r}")
    if not greater_is_better:
        arguments.append("greater_is_better=False")
    return f"make_rank_scorer({', '.join(arguments)})"


def _refuse_leave_one_row_out(estimator):
    """Refuse the leave-one-out predictions of ``RidgeCV`` and ``RidgeClassifierCV``.

    With their default ``cv=None`` they score each row's prediction by a model
    fitted on all the other rows, its own query's included; they hand a
    scorer those predictions through a stand-in estimator of theirs.
    """
    kind = type(estimator)
    if kind.__module__.startswith("sklearn.linear_model") and kind.__name__ in (
        "_IdentityRegressor",
        "_IdentityClassifier",
    ):
        raise ValueError(
            "RidgeCV and RidgeClassifierCV with cv=None score leave-one-out predictions: "
            "each row is predicted by a model fitted on the other rows of its own query, "
            "which inflates ranking scores. Pass cv=QueryKFold(...) (scikit-learn >= 1.5 "
            "routes qid to it), or tune the model's alpha with "
            "GridSearchCV(QueryRanker(Ridge()), {'estimator__alpha': [...]}, cv=QueryKFold())."
        )


def _warn_if_queries_were_split(estimator, qid):
    """Let a QueryRanker being scored (or ending a pipeline, or chosen by a search) check qid.

    It warns when scored queries were training queries with other rows: folds
    that split queries, whose scores are inflated.
    """
    model = final_step(estimator)
    while hasattr(model, "best_estimator_"):  # searches, possibly nested or in pipelines
        model = final_step(model.best_estimator_)
    check = getattr(model, "_warn_if_queries_were_split", None)
    if check is not None:
        check(qid)


class _RankScorer(_BaseScorer):
    """A scikit-learn scorer for a ranking metric; built by :func:`make_rank_scorer`.

    Called as ``scorer(estimator, X, y_true, *, qid=None, sample_weight=None)``.
    scikit-learn's multi-metric scoring calls ``_score`` instead, with a
    ``method_caller`` that caches the estimator's output across scorers.
    """

    def __init__(
        self,
        score_func,
        sign,
        kwargs,
        response_method,
        *,
        qid_column,
        accepts_sample_weight,
        description,
    ):
        super().__init__(score_func, sign, kwargs, _CACHE_METHODS[response_method])
        self._ranking_response_method = response_method
        self.qid_column = qid_column
        self._accepts_sample_weight = accepts_sample_weight
        self._description = description
        # qid is requested by default, as GroupKFold requests groups;
        # sample_weight, as for scikit-learn's scorers, only on request. Every
        # scikit-learn release from 1.4 on reads a scorer's request from
        # _metadata_request, where its own set_score_request stores it.
        self._metadata_request = self._build_request({"qid": True, "sample_weight": None})

    def _score(self, method_caller, estimator, X, y_true, qid=None, sample_weight=None):
        """The metric of ``estimator``'s ranking scores on X, query by query.

        ``method_caller(estimator, method_name, X, pos_label=None)`` returns
        the output of the estimator's method (cached by scikit-learn when
        several scorers run on the same fold).
        """
        _refuse_leave_one_row_out(estimator)
        qid = resolve_qid(X, qid, self.qid_column, caller=f"The scorer {self!r}")
        _warn_if_queries_were_split(estimator, qid)
        y_score = ranking_scores(estimator, X, self._ranking_response_method, method_caller)
        kwargs = dict(self._kwargs, qid=qid)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return self._sign * self._score_func(y_true, y_score, **kwargs)

    def __call__(self, estimator, X, y_true, *, qid=None, sample_weight=None):
        """Score ``estimator`` on ``X`` against ``y_true``, query by query.

        Parameters
        ----------
        estimator : fitted estimator
            A ranker or regressor (scored by ``predict``) or a classifier
            (scored by ``decision_function`` or ``predict_proba``, see
            :func:`make_rank_scorer`).
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score, with the query id column if ``qid_column``.
        y_true : array-like of shape (n_samples,)
            Relevance labels of the rows.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row; routed by scikit-learn when metadata
            routing is on. Required unless ``qid_column`` is set.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights, equal within a query.

        Returns
        -------
        score : float
        """
        return self._score(call_method, estimator, X, y_true, qid=qid, sample_weight=sample_weight)

    def __repr__(self):
        return self._description

    def set_score_request(self, *, qid=UNCHANGED, sample_weight=UNCHANGED):
        """Change which metadata this scorer requests (metadata routing only).

        Unlike scikit-learn's scorers, whose ``set_score_request`` replaces
        the whole request, a parameter not given keeps its request.

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
        requests = self.get_metadata_routing().score.requests
        for param, alias in (("qid", qid), ("sample_weight", sample_weight)):
            if alias is not UNCHANGED:
                requests[param] = alias
        # Built before it replaces the request: an invalid alias raises a
        # ValueError and leaves the scorer as it was.
        self._metadata_request = self._build_request(requests)
        return self

    def _build_request(self, requests):
        # The owner is a string: scikit-learn 1.4 prints it in routing errors.
        request = MetadataRequest(owner=repr(self))
        for param, alias in requests.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def _accept_sample_weight(self):
        # scikit-learn >= 1.7 asks this to forward sample_weight when metadata
        # routing is off.
        return self._accepts_sample_weight


def make_rank_scorer(
    metric, *, greater_is_better=None, qid_column=None, response_method="auto", **metric_kwargs
):
    """Make a scorer from a ranking metric, for ``scoring=`` in model selection.

    The scorer computes the metric of the estimator's ranking scores on the
    rows it is given, query by query: a metric name through
    :func:`~sklearn_rank_metrics.evaluate`, a metric function by calling
    ``metric(y_true, y_score, qid=qid, **metric_kwargs)``.

    What the estimator is ranked by (``response_method="auto"``):

    - rankers and regressors (anything not a classifier): ``predict``;
    - classifiers with two classes: ``decision_function`` if they have it,
      else the positive-class (``classes_[1]``) probability of
      ``predict_proba``, as scikit-learn's ``"roc_auc"`` scorer does;
    - classifiers on graded labels (more than two classes): the expected
      grade ``sum_c c * p(c)`` from ``predict_proba``.

    A classifier is never ranked by ``predict``, whose hard labels tie most
    documents: one without the method it needs is an error that says how to
    fix it.

    The scorer is a scikit-learn scorer object: in multi-metric scoring
    (``scoring={...}``) scikit-learn predicts once per fold and shares the
    output among the scorers, and a scorer that fails scores
    ``error_score`` for its metric alone (with a warning carrying the error),
    as scikit-learn's own scorers do.

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
    greater_is_better : bool or None, default=None
        Whether a higher value is better. None: the named metric's own
        orientation (True for a function). A lower-is-better metric
        (``"fallout@5"``) or a function given with ``greater_is_better=False``
        has its scores negated, as :func:`~sklearn.metrics.make_scorer` and
        scikit-learn's ``neg_mean_squared_error`` do, so that a search, which
        maximizes the score, picks the lowest value. A value that contradicts
        a named metric's orientation (False for ``"ndcg@10"``, True for
        ``"fallout@5"``) is an error naming the metric.
    qid_column : int or str, default=None
        Column of X holding the query ids (position, or DataFrame column
        name). The estimator must expect that column too: wrap it in
        :class:`~sklearn_rank_metrics.QueryRanker` with the same
        ``qid_column``, which drops it before the model sees X.
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, \
default="auto"
        What to rank the estimator by: ``"auto"`` for the rule above, or a
        method. ``"predict"`` on a classifier is an error (hard labels), and
        so is ``"decision_function"`` on one with more than two classes; on
        graded labels ``"predict_proba"`` ranks by the expected grade.
    **metric_kwargs
        Options of the metric, e.g. ``gain="exponential"``, ``ties``,
        ``relevance_level``; ``k`` if the name has no ``@k``. They are
        checked here, as the metric checks them (for a metric name or one
        of this package's metric functions): a wrong value raises before a
        search fits any model.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, *, qid=None, sample_weight=None)``, a
        scikit-learn scorer object for ``scoring=``, returning the metric's
        mean (negated for a lower-is-better one). It requests ``qid``
        through metadata routing; ``scorer.set_score_request(qid=False,
        sample_weight=True)`` changes that. It pickles, so ``n_jobs`` works.

    See Also
    --------
    make_rank_scorers : Several scorers at once, as a dict for ``scoring=``.
    QueryRanker : Fit learning-to-rank models with query ids.

    References
    ----------
    .. [1] scikit-learn User Guide, "The scoring parameter: defining model
       evaluation rules", https://scikit-learn.org/stable/modules/model_evaluation.html
    .. [2] scikit-learn User Guide, "Metadata Routing",
       https://scikit-learn.org/stable/metadata_routing.html

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

    A lower-is-better metric scores its negated value, as scikit-learn's
    ``neg_mean_squared_error``. fallout@1 (the share of a query's
    non-relevant documents, label 0, ranked first) is 0 for the model and 1
    for the reversed ranking, which puts the one of each query on top:

    >>> fallout = make_rank_scorer("fallout@1")
    >>> fallout
    make_rank_scorer('fallout@1', greater_is_better=False)
    >>> fallout(model, X, y, qid=qid), fallout(model, -X, y, qid=qid)
    (-0.0, -1.0)
    """
    check_parameters("make_rank_scorer", response_method=response_method)
    score_func, options, accepts_sample_weight = _resolve_metric(
        metric, metric_kwargs, greater_is_better
    )
    greater_is_better = greater_is_better_of(metric, greater_is_better)
    return _RankScorer(
        score_func,
        1 if greater_is_better else -1,
        options,
        response_method,
        qid_column=qid_column,
        accepts_sample_weight=accepts_sample_weight,
        description=_describe(
            metric, metric_kwargs, qid_column, response_method, greater_is_better
        ),
    )


def make_rank_scorers(metrics, *, qid_column=None, response_method="auto", **metric_kwargs):
    """Make a dict of ranking scorers, the multi-metric form of ``scoring=``.

    scikit-learn's own name lookup does not know ranking metric names, so
    ``scoring=["ndcg@10", "map@10"]`` fails; pass
    ``scoring=make_rank_scorers(["ndcg@10", "map@10"])`` instead, and
    ``refit="ndcg@10"`` to pick the model by one of them.

    A lower-is-better metric (``"fallout@5"``) scores its negated value and
    its key is the name prefixed ``neg_`` (``"neg_fallout@5"``), as
    scikit-learn names its negated scorers (``"neg_mean_squared_error"``):
    so are its ``cv_results_`` columns (``mean_test_neg_fallout@5``) and
    ``refit="neg_fallout@5"``, which picks the lowest fallout.

    Parameters
    ----------
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, each with its own cutoff.
    qid_column : int or str, default=None
        Column of X holding the query ids, for every scorer (see
        :func:`make_rank_scorer`).
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, \
default="auto"
        What to rank the estimator by, for every scorer (see
        :func:`make_rank_scorer`).
    **metric_kwargs
        Options handed to each metric that takes them (``gain`` reaches the
        NDCG and DCG scorers, ``relevance_level`` the binary metrics), as
        :func:`~sklearn_rank_metrics.evaluate` does. An option no metric
        takes is an error, and so is a wrong value, here rather than in
        the first fold.

    Returns
    -------
    scorers : dict
        ``{name: scorer}``, in the order given; the name prefixed ``neg_``
        for a lower-is-better metric (see above). scikit-learn's multi-metric
        scoring predicts once per fold for all of them, also beside its own
        scorers of the same method (``{**scorers, "r2": "r2"}``).

    See Also
    --------
    make_rank_scorer : One scorer, from a metric name or function.
    evaluate : The same metric names on predictions at hand.

    References
    ----------
    .. [1] scikit-learn User Guide, "Using multiple metric evaluation",
       https://scikit-learn.org/stable/modules/grid_search.html

    Examples
    --------
    >>> from sklearn_rank_metrics import make_rank_scorers
    >>> scoring = make_rank_scorers(["ndcg@10", "map@10", "mrr@10"])
    >>> list(scoring)
    ['ndcg@10', 'map@10', 'mrr@10']
    >>> scoring["map@10"]
    make_rank_scorer('map@10')
    >>> list(make_rank_scorers(["ndcg@10", "fallout@10"]))
    ['ndcg@10', 'neg_fallout@10']
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
        return option in _named_options(name)[2]

    unused = [option for option in metric_kwargs if not any(takes(n, option) for n in metrics)]
    if unused:
        raise TypeError(
            f"no metric of {metrics!r} takes the option(s) {', '.join(map(repr, unused))}."
        )
    return {
        scorer_key(name): make_rank_scorer(
            name,
            qid_column=qid_column,
            response_method=response_method,
            **{option: value for option, value in metric_kwargs.items() if takes(name, option)},
        )
        for name in metrics
    }
