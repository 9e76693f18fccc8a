"""QueryRanker: fit any ranking, regression or classification model with query ids."""

import inspect

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ._response import ranking_scores, response_method_for
from ._routing import drop_query_column, query_codes, resolve_qid
from ._scorer import make_rank_scorer

QUERY_ARGS = ("auto", "group", "qid", None)


def _final_step(estimator):
    """The model at the end of (possibly nested) pipelines, and its fit-parameter prefix."""
    prefix = ""
    while isinstance(estimator, Pipeline):
        name, estimator = estimator.steps[-1]
        prefix += f"{name}__"
    return estimator, prefix


def _detect_query_arg(model):
    """How ``model.fit`` takes queries: ``"qid"`` (XGBoost), ``"group"`` (LightGBM) or None."""
    try:
        parameters = inspect.signature(model.fit).parameters
    except (AttributeError, TypeError, ValueError):
        return None
    # qid first: XGBRanker.fit takes both, and sorted qid is its documented input.
    for query_arg in ("qid", "group"):
        if query_arg in parameters:
            return query_arg
    return None


class QueryRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a model on data with query ids, the way learning-to-rank models need it.

    LightGBM's ``LGBMRanker`` wants the rows of each query contiguous and the
    query sizes as ``group``; XGBoost's ``XGBRanker`` wants rows sorted by
    query and the query id of each as ``qid``. Inside cross-validation the
    folds hold different rows, so these must be recomputed for every fold,
    from the fold's own query ids - which ``QueryRanker`` does. In ``fit`` it
    sorts the rows by query id, stably (each query's rows keep the order they
    came in), and hands the model the ``group`` sizes or the sorted ``qid``;
    ``predict`` scores rows independently, so predictions come in the caller's
    row order. ``score`` is a ranking metric (NDCG@10 by default) computed
    per query, not R^2.

    Regressors and classifiers are fitted pointwise (no query argument).
    ``predict`` returns ranking scores by the rule of the scorers (see
    :func:`make_rank_scorer`): the model's ``predict`` for rankers and
    regressors; for classifiers with two classes ``decision_function``, else
    the positive-class probability; for graded labels the expected grade
    ``sum_c c * p(c)``; never a classifier's hard labels. Any scikit-learn
    regressor or classifier also works without the wrapper, with the scorers
    of :func:`make_rank_scorer`, which rank it the same way.

    The query ids come through metadata routing (``fit`` and ``score``
    request ``qid`` by default) or from a column of X (``qid_column``),
    which is dropped before the model sees X. To keep that column away from
    preprocessing too, wrap the whole pipeline:
    ``QueryRanker(make_pipeline(StandardScaler(), LGBMRanker()), qid_column=0)``.

    Parameters
    ----------
    estimator : estimator object
        The model, or a :class:`~sklearn.pipeline.Pipeline` ending in it.
    qid_column : int or str, default=None
        Column of X holding the query ids (position, or DataFrame column
        name); None means ``qid`` is passed to ``fit`` and ``score``.
    query_arg : {"auto", "group", "qid"} or None, default="auto"
        How the model's ``fit`` receives the queries: ``"group"``, the query
        sizes in sorted order (LightGBM); ``"qid"``, the query number of every
        sorted row (XGBoost); None, not at all (pointwise models). ``"auto"``
        picks ``"qid"`` if the model's ``fit`` accepts ``qid``, else
        ``"group"`` if it accepts ``group``, else None. With a Pipeline the
        argument goes to its last step.
    metric : str or callable, default="ndcg@10"
        What ``score`` computes: a metric name or function, as for
        :func:`make_rank_scorer`.
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, \
default="auto"
        What ``predict`` returns: ``"auto"`` for the rule above, or the
        model's method of that name (``"predict"`` on a classifier is an
        error, as is ``"decision_function"`` with more than two classes).
        Checked against the fitted model in ``fit``.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    query_arg_ : {"group", "qid"} or None
        How the queries were passed to the model.
    n_features_in_ : int
        Number of columns of X seen in ``fit``, ``qid_column`` included.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of X seen in ``fit``, when they are all strings.

    See Also
    --------
    make_rank_scorer : Score rankings in model selection.
    sklearn_rank_metrics.model_selection.QueryKFold : Folds that keep queries whole.

    Notes
    -----
    LightGBM and XGBoost break ties among equal scores by row position (at
    the first boosting round every document scores the same), so their
    models depend on the order of the rows inside each query. The stable
    sort keeps that order as given: the model equals the one the booster fits
    on the data sorted by query, whatever the order of the queries and
    however they were interleaved.

    References
    ----------
    .. [1] LightGBM documentation, "LGBMRanker" (the ``group`` argument of
       ``fit``), https://lightgbm.readthedocs.io
    .. [2] XGBoost documentation, "Learning to Rank" (the ``qid`` argument of
       ``fit``), https://xgboost.readthedocs.io

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank_metrics import QueryRanker
    >>> from sklearn_rank_metrics.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=20, random_state=0, interleave=True)
    >>> ranker = QueryRanker(Ridge()).fit(X, y, qid=qid)
    >>> ranker.query_arg_ is None  # Ridge is fitted pointwise
    True
    >>> round(ranker.score(X, y, qid=qid), 3)  # NDCG@10, query by query
    0.864

    In a search, with metadata routing on, ``qid`` reaches the folds, the
    ranker and its ``score`` from one ``fit`` call:

    >>> import sklearn
    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_rank_metrics import QueryKFold
    >>> grid = {"estimator": [Ridge(), DummyRegressor()]}
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = GridSearchCV(QueryRanker(Ridge()), grid, cv=QueryKFold(4)).fit(X, y, qid=qid)
    >>> search.best_params_
    {'estimator': Ridge()}

    With LightGBM (``pip install lightgbm``) the query sizes are passed as
    ``group``::

        from lightgbm import LGBMRanker
        ranker = QueryRanker(LGBMRanker(n_estimators=50)).fit(X, y, qid=qid)
        ranker.query_arg_  # 'group'
    """

    # Request qid by default in fit and score (see _routing.py for why this way).
    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    def __init__(
        self,
        estimator,
        *,
        qid_column=None,
        query_arg="auto",
        metric="ndcg@10",
        response_method="auto",
    ):
        self.estimator = estimator
        self.qid_column = qid_column
        self.query_arg = query_arg
        self.metric = metric
        self.response_method = response_method

    def _resolve_query_arg(self, model):
        if not any(
            self.query_arg is allowed or self.query_arg == allowed for allowed in QUERY_ARGS
        ):
            raise ValueError(
                f"query_arg={self.query_arg!r} is not supported; use 'auto', 'group' "
                "(query sizes, LightGBM), 'qid' (sorted query ids, XGBoost) or None "
                "(pointwise model)."
            )
        if self.query_arg == "auto":
            return _detect_query_arg(model)
        return self.query_arg

    def fit(self, X, y, qid=None, sample_weight=None):
        """Fit the model with the rows sorted by query.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Training data, with the query id column if ``qid_column`` is set.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row, in any order; requested through metadata
            routing by default. Required for models that take queries (see
            ``query_arg``) unless ``qid_column`` is set.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the model's ``fit``, sorted with the rows.

        Returns
        -------
        self : QueryRanker
            The fitted ranker.
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        check_consistent_length(X, y, sample_weight)
        self.estimator_ = clone(self.estimator)
        model, prefix = _final_step(self.estimator_)
        self.query_arg_ = self._resolve_query_arg(model)
        qid = resolve_qid(
            X,
            qid,
            self.qid_column,
            caller=f"{type(self).__name__}({type(model).__name__}).fit",
            required=self.query_arg_ is not None,
        )
        self._remember_features(X)
        X = drop_query_column(X, self.qid_column)

        fit_params = {}
        if qid is not None:
            codes, _ = query_codes(qid)
            order = np.argsort(codes, kind="stable")
            if (np.diff(codes) < 0).any():  # not yet grouped in query id order
                X, y = _safe_indexing(X, order), _safe_indexing(y, order)
                if sample_weight is not None:
                    sample_weight = _safe_indexing(sample_weight, order)
            sorted_codes = codes[order]
            if self.query_arg_ == "group":
                fit_params[prefix + "group"] = np.bincount(sorted_codes)
            elif self.query_arg_ == "qid":
                fit_params[prefix + "qid"] = sorted_codes
        if sample_weight is not None:
            fit_params[prefix + "sample_weight"] = sample_weight
        # The wrapper hands the model its arguments itself; with routing on, a
        # Pipeline would refuse "step__group" and ask for set_fit_request.
        with config_context(enable_metadata_routing=False):
            self.estimator_.fit(X, y, **fit_params)
        # A model that cannot rank (a classifier with hard labels only, a
        # method it lacks) fails here, not in every later predict.
        response_method_for(self.estimator_, self.response_method)
        return self

    def _remember_features(self, X):
        self.n_features_in_ = X.shape[1] if len(X.shape) > 1 else 1
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(name, str) for name in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def predict(self, X):
        """Ranking scores of the rows of X, in their order: higher ranks first.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            With the query id column if ``qid_column`` is set.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            The model's ``predict`` for rankers and regressors; for a
            classifier, its ``decision_function``, positive-class probability
            or expected grade (see ``response_method``).
        """
        X = self._check_fitted_input(X)
        X = drop_query_column(X, self.qid_column)
        return ranking_scores(self.estimator_, X, self.response_method)

    def score(self, X, y, qid=None, sample_weight=None):
        """The ranking metric ``metric`` (NDCG@10 by default) of the predictions.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            With the query id column if ``qid_column`` is set.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row; required unless ``qid_column`` is set.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights, equal within a query.

        Returns
        -------
        score : float
            Mean of the metric over the queries.
        """
        X = self._check_fitted_input(X)
        scorer = make_rank_scorer(self.metric, qid_column=self.qid_column)
        return scorer(self, X, y, qid=qid, sample_weight=sample_weight)

    def _check_fitted_input(self, X):
        """X as an array-like with a shape, after checking the fit and the column count."""
        check_is_fitted(self)
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        if len(X.shape) == 2 and X.shape[1] != self.n_features_in_:
            with_qid = "" if self.qid_column is None else ", the query id column included"
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input{with_qid}."
            )
        return X

    # Estimator tags: scikit-learn >= 1.6 reads __sklearn_tags__, older
    # releases _more_tags. Input support is the wrapped estimator's.
    def __sklearn_tags__(self):
        from sklearn.utils import get_tags  # scikit-learn >= 1.6

        tags = super().__sklearn_tags__()
        model_tags = get_tags(self.estimator)
        tags.input_tags.sparse = model_tags.input_tags.sparse
        tags.input_tags.allow_nan = model_tags.input_tags.allow_nan
        tags.target_tags.required = True
        return tags

    def _more_tags(self):
        get_model_tags = getattr(self.estimator, "_get_tags", dict)
        model_tags = get_model_tags()
        return {
            "requires_y": True,
            "allow_nan": model_tags.get("allow_nan", False),
            "X_types": model_tags.get("X_types", ["2darray"]),
        }
