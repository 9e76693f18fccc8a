"""scikit-learn's model selection with ranking scorers, query splitters and QueryRanker.

Real LightGBM and XGBoost models (skipped where not installed), small enough
for two cores: a handful of trees, one thread, n_jobs=1 except in the
pickling test.
"""

import numpy as np
import pytest
import sklearn
from _boosters import lgbm_ranker, xgb_ranker
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    make_rank_scorer,
    make_rank_scorers,
    map_score,
    mrr_score,
    ndcg_score,
)
from sklearn_rank_metrics.datasets import make_ranking

N_SPLITS = 3
METRICS = {
    "ndcg@5": lambda y, s, qid: ndcg_score(y, s, qid=qid, k=5),
    "map@5": lambda y, s, qid: map_score(y, s, qid=qid, k=5),
    "mrr@5": lambda y, s, qid: mrr_score(y, s, qid=qid, k=5),
}
TOOLS = ["GridSearchCV", "RandomizedSearchCV", "cross_val_score", "cross_validate"]


def lightgbm_ranker():
    return QueryRanker(lgbm_ranker())


def xgboost_ranker():
    return QueryRanker(xgb_ranker())


ESTIMATORS = {
    "lightgbm": (lightgbm_ranker, {"estimator__learning_rate": [0.1, 0.3]}),
    "xgboost": (xgboost_ranker, {"estimator__learning_rate": [0.1, 0.3]}),
    "ridge": (Ridge, {"alpha": [0.1, 10.0]}),
    "classifier": (lambda: LogisticRegression(max_iter=300), {"C": [0.1, 1.0]}),
}


@pytest.fixture(scope="module")
def data():
    return make_ranking(
        n_queries=24, docs_per_query=(4, 12), n_features=5, interleave=True, random_state=0
    )


def ranking_scores(model, X):
    """What the scorers rank by, computed independently of the library.

    The classifier here is fitted on graded labels: its expected grade.
    """
    if is_classifier(model):
        return model.predict_proba(X) @ model.classes_
    return model.predict(X)


def fit_model(estimator, params, X, y, qid):
    model = clone(estimator).set_params(**params)
    if isinstance(model, QueryRanker):
        return model.fit(X, y, qid=qid)
    return model.fit(X, y)


def run_tool(tool, estimator, grid, X, y, qid):
    """Run a model selection tool on query-grouped folds, with routed qid.

    Returns ``[(params, {metric: [score of each fold]})]``, one per candidate.
    """
    cv = QueryKFold(N_SPLITS)
    scoring = make_rank_scorers(list(METRICS))
    if tool in ("GridSearchCV", "RandomizedSearchCV"):
        if tool == "GridSearchCV":
            search = GridSearchCV(estimator, grid, cv=cv, scoring=scoring, refit="ndcg@5")
        else:
            search = RandomizedSearchCV(
                estimator, grid, n_iter=2, cv=cv, scoring=scoring, refit="ndcg@5", random_state=0
            )
        search.fit(X, y, qid=qid)
        results = search.cv_results_
        return [
            (
                params,
                {
                    name: [
                        results[f"split{fold}_test_{name}"][candidate] for fold in range(N_SPLITS)
                    ]
                    for name in METRICS
                },
            )
            for candidate, params in enumerate(results["params"])
        ]
    if tool == "cross_val_score":
        scores = cross_val_score(
            estimator, X, y, cv=cv, scoring=scoring["ndcg@5"], params={"qid": qid}
        )
        return [({}, {"ndcg@5": list(scores)})]
    results = cross_validate(estimator, X, y, cv=cv, scoring=scoring, params={"qid": qid})
    return [({}, {name: list(results[f"test_{name}"]) for name in METRICS})]


@pytest.mark.parametrize("estimator_name", ESTIMATORS)
@pytest.mark.parametrize("tool", TOOLS)
def test_every_fold_score_is_the_metric_on_that_folds_rows(tool, estimator_name, data, routing):
    make_estimator, grid = ESTIMATORS[estimator_name]
    estimator = make_estimator()
    X, y, qid = data
    folds = list(QueryKFold(N_SPLITS).split(X, qid=qid))
    for train, test in folds:
        assert not set(qid[train]) & set(qid[test])

    for params, fold_scores in run_tool(tool, estimator, grid, X, y, qid):
        for fold, (train, test) in enumerate(folds):
            model = fit_model(estimator, params, X[train], y[train], qid[train])
            y_score = ranking_scores(model, X[test])
            for name, scores in fold_scores.items():
                expected = METRICS[name](y[test], y_score, qid[test])
                assert scores[fold] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def interleave_keeping_query_order(qid, seed):
    """A random row order in which each query's rows keep their relative order.

    Boosters break score ties by row position, so their models depend on the
    order inside a query (QueryRanker sorts stably and keeps it); everything
    else - the order of the queries, how they interleave, the row numbers that
    reach each fold - is shuffled.
    """
    order = np.random.RandomState(seed).permutation(len(qid))
    shuffled_qid = qid[order]
    for query in np.unique(qid):
        order[shuffled_qid == query] = np.flatnonzero(qid == query)
    return order


@pytest.mark.parametrize("estimator_name", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("tool", TOOLS)
def test_shuffling_rows_changes_no_score(tool, estimator_name, data, routing):
    make_estimator, grid = ESTIMATORS[estimator_name]
    X, y, qid = data
    order = interleave_keeping_query_order(qid, seed=1)
    assert not np.array_equal(order, np.arange(len(qid)))
    original = run_tool(tool, make_estimator(), grid, X, y, qid)
    shuffled = run_tool(tool, make_estimator(), grid, X[order], y[order], qid[order])
    assert shuffled == original  # exactly: the models see the same sorted rows


@pytest.mark.parametrize("tool", TOOLS)
def test_fully_shuffled_rows_change_no_score_of_order_free_models(tool, data, routing):
    X, y, qid = data
    order = np.random.RandomState(2).permutation(len(qid))
    original = run_tool(tool, Ridge(), ESTIMATORS["ridge"][1], X, y, qid)
    shuffled = run_tool(tool, Ridge(), ESTIMATORS["ridge"][1], X[order], y[order], qid[order])
    for (params, scores), (shuffled_params, shuffled_scores) in zip(original, shuffled):
        assert params == shuffled_params
        for name in scores:  # Ridge's solution moves only by rounding
            np.testing.assert_allclose(shuffled_scores[name], scores[name], rtol=1e-9)


class RecordingMetric:
    """NDCG@5 that remembers the query ids of every call."""

    def __init__(self):
        self.seen_qid = []

    def __call__(self, y_true, y_score, *, qid):
        self.seen_qid.append(np.asarray(qid))
        return ndcg_score(y_true, y_score, qid=qid, k=5)


def test_each_fold_scorer_sees_exactly_its_rows_qids(data, routing):
    X, y, qid = data
    metric = RecordingMetric()
    results = cross_validate(
        lightgbm_ranker(),
        X,
        y,
        cv=QueryKFold(N_SPLITS),
        scoring=make_rank_scorer(metric),
        params={"qid": qid},
        return_indices=True,
    )
    assert len(metric.seen_qid) == N_SPLITS
    for seen, train, test in zip(
        metric.seen_qid, results["indices"]["train"], results["indices"]["test"]
    ):
        np.testing.assert_array_equal(seen, qid[test])
        assert not set(seen) & set(qid[train])


def test_multi_metric_search_refits_on_ndcg(data, routing):
    X, y, qid = data
    X_test, y_test, qid_test = make_ranking(
        n_queries=8, docs_per_query=(4, 12), n_features=5, random_state=1
    )
    qid_test = qid_test + 1000  # other queries, other ids (reused ids would warn as split)
    search = GridSearchCV(
        lightgbm_ranker(),
        {"estimator__learning_rate": [0.01, 0.3], "estimator__n_estimators": [2, 8]},
        cv=QueryKFold(N_SPLITS),
        scoring=make_rank_scorers(["ndcg@10", "map@10", "mrr@10"]),
        refit="ndcg@10",
    ).fit(X, y, qid=qid)
    # The refit got the query ids too: it is the best candidate fitted on all rows.
    refit = clone(lightgbm_ranker()).set_params(**search.best_params_).fit(X, y, qid=qid)
    y_score = search.best_estimator_.predict(X_test)
    np.testing.assert_array_equal(y_score, refit.predict(X_test))
    # search.score is the refit metric, with the test query ids routed to it.
    expected = ndcg_score(y_test, y_score, qid=qid_test, k=10)
    assert search.score(X_test, y_test, qid=qid_test) == expected


def test_default_scoring_is_the_rankers_ndcg_at_10(data, routing):
    X, y, qid = data
    search = GridSearchCV(
        lightgbm_ranker(), {"estimator__learning_rate": [0.1, 0.3]}, cv=QueryKFold(N_SPLITS)
    ).fit(X, y, qid=qid)
    explicit = GridSearchCV(
        lightgbm_ranker(),
        {"estimator__learning_rate": [0.1, 0.3]},
        cv=QueryKFold(N_SPLITS),
        scoring=make_rank_scorer("ndcg@10"),
    ).fit(X, y, qid=qid)
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_score"], explicit.cv_results_["mean_test_score"]
    )


@pytest.mark.parametrize("estimator_name", ["lightgbm", "xgboost"])
def test_qid_column_path_without_routing_gives_the_routed_scores(estimator_name, data):
    make_estimator, grid = ESTIMATORS[estimator_name]
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        routed = run_tool("GridSearchCV", make_estimator(), grid, X, y, qid)
    assert not sklearn.get_config()["enable_metadata_routing"]
    X_with_qid = np.column_stack([qid, X])
    search = GridSearchCV(
        make_estimator().set_params(qid_column=0),
        grid,
        cv=QueryKFold(N_SPLITS, qid_column=0),
        scoring=make_rank_scorers(list(METRICS), qid_column=0),
        refit="ndcg@5",
    ).fit(X_with_qid, y)
    for candidate, (params, fold_scores) in enumerate(routed):
        assert search.cv_results_["params"][candidate] == params
        for name, scores in fold_scores.items():
            for fold in range(N_SPLITS):
                assert search.cv_results_[f"split{fold}_test_{name}"][candidate] == scores[fold]


def test_group_kfold_with_groups_qid_scores_as_query_kfold(data, routing):
    # GroupKFold gets the query ids as groups, the scorer as qid: the same
    # folds, so the same scores, as QueryKFold reading qid itself.
    X, y, qid = data
    scores = {
        type(cv).__name__: cross_validate(
            Ridge(), X, y, cv=cv, scoring=make_rank_scorer("ndcg@5"), params=params
        )["test_score"]
        for cv, params in [
            (GroupKFold(N_SPLITS), {"qid": qid, "groups": qid}),
            (QueryKFold(N_SPLITS), {"qid": qid}),
        ]
    }
    np.testing.assert_array_equal(scores["GroupKFold"], scores["QueryKFold"])
    assert len(set(scores["QueryKFold"])) == N_SPLITS  # three different folds


# --------------------------------------------------------------------------
# Missing query ids
# --------------------------------------------------------------------------


def test_missing_qid_error_fires_without_routing(data):
    X, y, qid = data
    scorer = make_rank_scorer("ndcg@5")
    # The splitter gets the queries as groups, the scorer gets nothing.
    with pytest.raises(ValueError, match="needs the query id of every row"):
        cross_val_score(
            Ridge(), X, y, groups=qid, cv=QueryKFold(N_SPLITS), scoring=scorer, error_score="raise"
        )
    # scikit-learn's default error_score turns the error into NaN and a warning
    # carrying the message: a failed score, never a plausible wrong one.
    with pytest.warns(UserWarning, match="sklearn.set_config\\(enable_metadata_routing=True\\)"):
        scores = cross_val_score(
            Ridge(), X, y, groups=qid, cv=QueryKFold(N_SPLITS), scoring=scorer
        )
    assert np.isnan(scores).all()


def test_missing_qid_with_routing_on_stops_the_search(data, routing):
    X, y, _ = data
    search = GridSearchCV(
        lightgbm_ranker(),
        {"estimator__learning_rate": [0.1]},
        cv=QueryKFold(N_SPLITS),
        scoring=make_rank_scorers(["ndcg@10"]),
        refit="ndcg@10",
    )
    with pytest.raises(ValueError, match="QueryKFold needs the query id of every row"):
        search.fit(X, y)


def test_ranker_without_qid_fails_its_fits(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="needs the query id"):
        cross_validate(
            lightgbm_ranker(),
            X,
            y,
            groups=qid,
            cv=QueryKFold(N_SPLITS),
            scoring=make_rank_scorer("ndcg@5"),
            error_score="raise",
        )


# --------------------------------------------------------------------------
# Parallel search: everything pickles
# --------------------------------------------------------------------------


def test_parallel_search_pickles_and_matches_sequential(data, routing):
    X, y, qid = data
    estimator, grid = lightgbm_ranker(), ESTIMATORS["lightgbm"][1]
    results = {}
    for n_jobs in (1, 2):
        search = GridSearchCV(
            estimator,
            grid,
            cv=QueryKFold(N_SPLITS),
            scoring=make_rank_scorers(list(METRICS)),
            refit="ndcg@5",
            n_jobs=n_jobs,
        ).fit(X, y, qid=qid)
        results[n_jobs] = {name: search.cv_results_[f"mean_test_{name}"] for name in METRICS}
    for name in METRICS:
        np.testing.assert_array_equal(results[2][name], results[1][name])
