"""QueryRanker: fit any ranking, regression or classification model with query ids.

The estimator itself: its parameters, ``fit`` (rows and evaluation sets sorted
by query, handed to the model in its form, see ``_fit_arguments``), ``predict``
and ``score`` (see ``_response`` and ``_scorer``), and the fitted model's
attributes. Recognizing scored queries that were split from training queries
is ``_split_queries``'s job.
"""

import numbers

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ._fit_arguments import (
    QUERY_ARGS,
    check_fit_keywords,
    check_fit_params,
    detect_query_arg,
    draw_queries,
    eval_sets,
    final_step,
    fit_preprocessing,
    model_fit_arguments,
    sort_by_query,
)
from ._response import ranking_scores, response_method_for
from ._routing import MOVED_QUERY_COLUMN_FIX, column_position, drop_query_column, resolve_qid
from ._scorer import make_rank_scorer
from ._split_queries import warn_if_queries_were_split


class QueryRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a model on data with query ids, the way learning-to-rank models need it.

    LightGBM's ``LGBMRanker`` wants the rows of each query contiguous and the
    query sizes as ``group``; XGBoost's ``XGBRanker`` wants rows sorted by
    query and the query number of each as ``qid``; CatBoost's
    ``CatBoostRanker`` wants them as ``group_id``. Inside cross-validation the
    folds hold different rows, so these must be recomputed for every fold,
    from the fold's own query ids - which ``QueryRanker`` does. In ``fit`` it
    sorts the rows by query id, stably (each query's rows keep the order they
    came in), and hands the model the queries in its form; evaluation sets
    (``eval_set`` with ``eval_qid``) are sorted and handed over the same way,
    for early stopping. ``predict`` scores rows independently, so predictions
    come in the caller's row order. ``score`` is a ranking metric (NDCG@10 by
    default) computed per query, not R^2.

    Regressors and classifiers are fitted pointwise (no query argument).
    ``predict`` returns ranking scores by the rule of the scorers (see
    :func:`make_rank_scorer`): the model's ``predict`` for rankers and
    regressors; for classifiers with two classes ``decision_function``, else
    the positive-class probability; for graded labels the expected grade
    ``sum_c c * p(c)``; never a classifier's hard labels. Any scikit-learn
    regressor or classifier also works without the wrapper, with the scorers
    of :func:`make_rank_scorer`, which rank it the same way.

    The query ids come through metadata routing (``fit`` requests ``qid``,
    ``eval_set`` and ``eval_qid`` by default, ``score`` requests ``qid``) or
    from a column of X (``qid_column``), which is dropped before the model
    sees X. To keep that column away from preprocessing too, wrap the whole
    pipeline: ``QueryRanker(make_pipeline(StandardScaler(), LGBMRanker()),
    qid_column=0)``. With a pipeline, ``fit`` fits the steps before the model
    on the training rows and transforms every evaluation set through them.

    Parameters
    ----------
    estimator : estimator object
        The model, or a :class:`~sklearn.pipeline.Pipeline` ending in it.
    qid_column : int or str, default=None
        Column of X holding the query ids (position, or DataFrame column
        name); None means ``qid`` is passed to ``fit`` and ``score``. The
        X of every evaluation set then holds the column too.
    query_arg : {"auto", "group", "qid", "group_id"} or None, default="auto"
        How the model's ``fit`` receives the queries: ``"group"``, the query
        sizes in sorted order (LightGBM); ``"qid"``, the query number of every
        sorted row (XGBoost); ``"group_id"``, the same numbers (CatBoost);
        None, not at all (pointwise models). ``"auto"`` picks ``"qid"`` if the
        model's ``fit`` accepts ``qid``, else ``"group_id"``, else ``"group"``,
        else None. With a Pipeline the argument goes to its last step.
    metric : str or callable, default="ndcg@10"
        What ``score`` computes: a metric name or function, as for
        :func:`make_rank_scorer` (a lower-is-better one, such as
        ``"fallout@10"``, negated). A name is checked in ``fit``.
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, \
default="auto"
        What ``predict`` returns: ``"auto"`` for the rule above, or the
        model's method of that name (``"predict"`` on a classifier is an
        error, as is ``"decision_function"`` with more than two classes).
        Checked against the fitted model in ``fit``.
    fit_params : dict, default=None
        More arguments of the model's ``fit``, such as LightGBM's
        ``callbacks=[lightgbm.early_stopping(10)]``, ``categorical_feature``
        or ``eval_at``, or CatBoost's ``cat_features`` and
        ``early_stopping_rounds``. A constructor parameter, so it survives
        ``clone`` and needs no routing; each fit gets a deep copy. The
        arguments the wrapper computes (queries, weights, evaluation sets) and
        other per-row arguments (``init_score``, ``base_margin``,
        ``baseline``, ...) are refused: they would not follow the sorted rows.
    warn_split_queries : bool, default=True
        Whether scoring warns
        (:class:`~sklearn_rank_metrics.SplitQueryWarning`) when a scored query
        id was also a training query id with another number of rows: the mark
        of folds that cut queries in two, whose scores are inflated.
    max_queries : int, default=None
        Fit on at most this many training queries, drawn at random and kept
        whole (evaluation sets are used in full); None fits on all. This
        makes the query the unit of a resource:
        ``HalvingGridSearchCV(..., resource="max_queries",
        max_resources=n_queries)`` and ``validation_curve(...,
        param_name="max_queries")`` grow the training data by whole queries,
        where their subsampling of rows would cut queries in two.
    random_state : int, RandomState instance or None, default=None
        Which queries ``max_queries`` draws: the queries are numbered in
        sorted query id order and ``check_random_state(random_state)
        .choice(n_queries, max_queries, replace=False)`` picks them, so the
        draw does not depend on the order of the rows. Pass an int for the
        same queries on every fit. Ignored without ``max_queries``.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    query_arg_ : {"group", "qid", "group_id"} or None
        How the queries were passed to the model.
    n_features_in_ : int
        Number of columns of X seen in ``fit``, ``qid_column`` included.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of X seen in ``fit``, when they are all strings.
    feature_importances_ : ndarray of shape (``n_features_in_``,)
        The model's ``feature_importances_`` (CatBoost's
        ``get_feature_importance(type="PredictionValuesChange")``), one per
        column of X, aligned with ``feature_names_in_``: with ``qid_column``
        the query id column's entry is 0, so feature selectors (``RFE``,
        ``SelectFromModel``) count the columns of X. Only where the model has
        them, and only where preprocessing kept the number of columns (else
        the model's importances would not line up with the columns of X).
    best_iteration_ : int
        Zero-based index of the iteration the booster reports as best on its
        evaluation sets: XGBoost's ``best_iteration`` and CatBoost's
        ``get_best_iteration()`` as they are, LightGBM's one-based
        ``best_iteration_`` minus one (the iteration of the set and metric
        that stopped training). The model predicts with iterations
        0 .. ``best_iteration_``. Only where the booster recorded one
        (LightGBM and XGBoost: with early stopping; CatBoost: with an
        evaluation set).
    evals_result_ : dict
        The booster's record of its evaluation metrics at every iteration,
        ``{set name: {metric name: [values]}}``, under the booster's own set
        names (LightGBM ``"valid_0"``, XGBoost ``"validation_0"``, CatBoost
        ``"learn"`` and ``"validation"``). Only where one was recorded
        (CatBoost records its training metrics under ``"learn"`` even without
        an evaluation set).
    classes_ : ndarray
        The classes of a classifier.

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

    ``sample_weight`` follows the rows. LightGBM's lambdarank multiplies
    each document's gradient and hessian by its weight, so weights may vary
    within a query, and its ranking metrics weigh each query by the mean
    weight of its rows. XGBoost's rankers take one weight per query and
    CatBoost's pairwise losses (its rankers' default) ignore row weights, so
    for those the wrapper passes one weight per query (XGBoost
    ``sample_weight``, CatBoost ``group_weight``) and refuses weights that
    vary within a query.

    An evaluation set is fixed data: in a search, every fold's model stops
    early on the same evaluation set, so keep it apart from the rows the
    search splits.

    References
    ----------
    .. [1] LightGBM documentation, "LGBMRanker" (the ``group`` and
       ``eval_group`` arguments of ``fit``), https://lightgbm.readthedocs.io
    .. [2] XGBoost documentation, "Learning to Rank" (the ``qid`` argument of
       ``fit``; one weight per query group), https://xgboost.readthedocs.io
    .. [3] CatBoost documentation, "CatBoostRanker" and "Pool" (``group_id``,
       ``group_weight``), https://catboost.ai/docs

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
    ``group``; early stopping on a validation set of whole queries::

        import lightgbm
        ranker = QueryRanker(
            lightgbm.LGBMRanker(n_estimators=500),
            fit_params={"callbacks": [lightgbm.early_stopping(20)]},
        )
        ranker.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
        ranker.query_arg_, ranker.best_iteration_ + 1  # ('group', trees kept)
    """

    # Request qid (and the evaluation sets) by default in fit and score (see
    # _routing.py for why this way).
    __metadata_request__fit = {"qid": True, "eval_set": True, "eval_qid": True}
    __metadata_request__score = {"qid": True}

    def __init__(
        self,
        estimator,
        *,
        qid_column=None,
        query_arg="auto",
        metric="ndcg@10",
        response_method="auto",
        fit_params=None,
        warn_split_queries=True,
        max_queries=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.qid_column = qid_column
        self.query_arg = query_arg
        self.metric = metric
        self.response_method = response_method
        self.fit_params = fit_params
        self.warn_split_queries = warn_split_queries
        self.max_queries = max_queries
        self.random_state = random_state

    def _resolve_query_arg(self, model):
        if not any(
            self.query_arg is allowed or self.query_arg == allowed for allowed in QUERY_ARGS
        ):
            raise ValueError(
                f"query_arg={self.query_arg!r} is not supported; use 'auto', 'group' "
                "(query sizes, LightGBM), 'qid' (sorted query numbers, XGBoost), 'group_id' "
                "(CatBoost) or None (pointwise model)."
            )
        if self.query_arg == "auto":
            return detect_query_arg(model)
        return self.query_arg

    def fit(self, X, y, qid=None, sample_weight=None, eval_set=None, eval_qid=None, **kwargs):
        """Fit the model with the rows, and those of every evaluation set, sorted by query.

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
            Row weights, sorted with the rows; for XGBoost and CatBoost
            rankers they must be equal within each query and become query
            weights (see Notes).
        eval_set : list of (X, y) pairs, default=None
            Evaluation sets for the model's own evaluation and early
            stopping, e.g. ``[(X_val, y_val)]``; requested through metadata
            routing by default. Each X is transformed by the pipeline's
            preprocessing, fitted on the training rows.
        eval_qid : list of array-like, default=None
            The query ids of each evaluation set's rows, in any order, e.g.
            ``[qid_val]``; requested through metadata routing by default.
            Not needed with ``qid_column`` (each X holds its column) or for
            pointwise models.
        **kwargs : dict
            Refused, with the fix: arguments of the model's own ``fit``
            (``categorical_feature``, ``callbacks``, ``cat_features``, ...)
            go in ``fit_params``; the queries and evaluation sets go in
            ``qid``, ``eval_set`` and ``eval_qid`` (``group``,
            ``eval_group``, ... would not follow the sorted rows).

        Returns
        -------
        self : QueryRanker
            The fitted ranker.
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        check_fit_keywords(kwargs)
        max_queries = self._check_max_queries()
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        check_consistent_length(X, y, sample_weight)
        if isinstance(self.metric, str):
            make_rank_scorer(self.metric)  # a misspelt name fails now, not as NaN fold scores
        fit_params = check_fit_params(self.fit_params, X.shape[0])
        evaluation_data = eval_sets(eval_set, eval_qid)
        self.estimator_ = clone(self.estimator)
        model = final_step(self.estimator_)
        self.query_arg_ = self._resolve_query_arg(model)
        caller = f"{type(self).__name__}({type(model).__name__}).fit"
        rows = self._sorted_rows(
            X, y, qid, sample_weight, caller=caller, required=max_queries is not None
        )
        if max_queries is not None:
            rows = draw_queries(rows, max_queries, check_random_state(self.random_state))
        self._remember_features(X)
        self._remember_training_queries(rows)
        eval_rows = [
            self._sorted_eval_rows(X_eval, y_eval, qid_eval, f"{caller}: eval_set[{i}]")
            for i, (X_eval, y_eval, qid_eval) in enumerate(evaluation_data)
        ]
        model = fit_preprocessing(self.estimator_, rows, eval_rows)
        arguments = model_fit_arguments(model, self.query_arg_, rows, eval_rows, fit_params)
        # The wrapper hands the model its arguments itself; with routing on, a
        # model's fit would refuse arguments nobody requested.
        with config_context(enable_metadata_routing=False):
            model.fit(rows.X, rows.y, **arguments, **fit_params)
        # A model that cannot rank (a classifier with hard labels only, a
        # method it lacks) fails here, not in every later predict.
        response_method_for(self.estimator_, self.response_method)
        return self

    def _check_max_queries(self):
        max_queries = self.max_queries
        if max_queries is None:
            return None
        if isinstance(max_queries, (bool, np.bool_)) or not isinstance(
            max_queries, numbers.Integral
        ):
            raise TypeError(f"max_queries must be an int or None, got {max_queries!r}.")
        if max_queries < 1:
            raise ValueError(f"max_queries={max_queries}: set max_queries=1 or more, or None.")
        return int(max_queries)

    def _sorted_rows(self, X, y, qid, sample_weight=None, *, caller, required=False):
        """The rows of X (with a shape), without the query id column, sorted by query."""
        required = required or self.query_arg_ is not None
        qid = resolve_qid(X, qid, self.qid_column, caller=caller, required=required)
        return sort_by_query(drop_query_column(X, self.qid_column), y, qid, sample_weight)

    def _sorted_eval_rows(self, X, y, qid, name):
        """An evaluation set's rows sorted by query, after checking its shape."""
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        n_columns = X.shape[1] if len(X.shape) > 1 else 1
        if n_columns != self.n_features_in_:
            with_qid = "" if self.qid_column is None else ", the query id column included"
            raise ValueError(
                f"{name} has {n_columns} columns, but the training X has "
                f"{self.n_features_in_}{with_qid}; evaluation sets need the training columns."
            )
        if qid is None and self.qid_column is None and self.query_arg_ is not None:
            raise ValueError(
                f"{name}: got eval_set without the query ids of its rows: pass "
                "eval_qid=[qid_val, ...], one array per evaluation set, or keep the "
                "query ids in a column of every X and set qid_column."
            )
        lengths = {"X": X.shape[0], "y": len(y)}
        if qid is not None:
            lengths["qid (eval_qid)"] = len(qid)
        if len(set(lengths.values())) > 1:
            given = ", ".join(f"{key} {length}" for key, length in lengths.items())
            raise ValueError(f"{name}: X, y and its query ids need one entry a row; got {given}.")
        return self._sorted_rows(X, y, qid, caller=name)

    def _remember_features(self, X):
        self.n_features_in_ = X.shape[1] if len(X.shape) > 1 else 1
        if self.qid_column is not None:
            self._qid_position = column_position(X, self.qid_column)
            if self.n_features_in_ == 1:
                raise ValueError(
                    f"qid_column={self.qid_column!r}: X has no column besides the query id "
                    f"column, nothing to fit on. {MOVED_QUERY_COLUMN_FIX}"
                )
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(name, str) for name in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _remember_training_queries(self, rows):
        """Keep the training query ids and sizes, to recognize split queries when scored."""
        if rows.codes is None:
            self._training_queries = None
        else:
            self._training_queries = (rows.query_ids, rows.query_sizes)

    def _warn_if_queries_were_split(self, qid):
        """Warn when a scored query was a training query with another number of rows.

        Called by the package's scorers with the scored rows' query ids.
        """
        training = getattr(self, "_training_queries", None)
        if self.warn_split_queries and training is not None and qid is not None:
            warn_if_queries_were_split(training, qid)

    def _fitted_model(self):
        check_is_fitted(self)
        return final_step(self.estimator_)

    @property
    def feature_importances_(self):
        model = self._fitted_model()
        if hasattr(model, "get_feature_importance"):
            # CatBoost: its rankers' default importance needs a data set and
            # their feature_importances_ is empty; this one needs none.
            importances = model.get_feature_importance(type="PredictionValuesChange")
        else:
            importances = model.feature_importances_
        importances = np.asarray(importances)
        n_features = self.n_features_in_ - (self.qid_column is not None)
        if importances.shape != (n_features,):
            besides = "" if self.qid_column is None else " besides the query id column"
            raise AttributeError(
                f"{type(model).__name__} has {importances.shape[0]} feature importances for "
                f"the {n_features} columns of X{besides}: the preprocessing changed the "
                "number of columns, so they do not line up with the columns of X."
            )
        if self.qid_column is None:
            return importances
        # One entry per column of X: the query id column, never a feature, gets 0.
        return np.insert(importances, self._qid_position, 0)

    @property
    def classes_(self):
        return self._fitted_model().classes_

    @property
    def best_iteration_(self):
        model = self._fitted_model()
        if hasattr(model, "get_best_iteration"):  # CatBoost: zero-based, or None
            best = model.get_best_iteration()
        elif hasattr(model, "best_iteration_"):  # LightGBM: one-based, 0 without early stopping
            best = model.best_iteration_ - 1 if model.best_iteration_ else None
        else:  # XGBoost: zero-based; AttributeError without early stopping
            best = getattr(model, "best_iteration", None)
        if best is None:
            raise AttributeError(
                f"{type(model).__name__} recorded no best iteration: it needs an evaluation "
                "set (eval_set) and, for LightGBM and XGBoost, early stopping."
            )
        return int(best)

    @property
    def evals_result_(self):
        model = self._fitted_model()
        if hasattr(model, "get_evals_result"):  # CatBoost
            result = model.get_evals_result()
        else:  # LightGBM and XGBoost
            result = getattr(model, "evals_result_", None)
        if not result:
            raise AttributeError(
                f"{type(model).__name__} recorded no evaluation results: pass eval_set to fit."
            )
        return result

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
            Mean of the metric over the queries; negated for a
            lower-is-better metric (``metric="fallout@10"``), as its scorer
            (:func:`make_rank_scorer`), so that a search that maximizes
            ``score`` picks the lowest value.
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
