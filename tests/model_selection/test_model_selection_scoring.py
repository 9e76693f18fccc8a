"""Multi-metric scoring: one prediction per fold, and per-metric failures."""

import numpy as np
import pytest
from _boosters import RecordingLogisticRegression, RecordingRidge
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.multiclass import OutputCodeClassifier

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    make_rank_scorer,
    make_rank_scorers,
    map_score,
    ndcg_score,
)
from sklearn_rank_metrics.datasets import make_ranking

N_SPLITS = 3
RANK_METRICS = ["ndcg@5", "map@5", "mrr@5"]


@pytest.fixture(scope="module")
def data():
    return make_ranking(
        n_queries=24, docs_per_query=(4, 12), n_features=5, interleave=True, random_state=0
    )


def cross_validate_by_query(estimator, X, y, qid, scoring, **kwargs):
    """cross_validate on QueryKFold folds, qid routed to splitter, model and scorers."""
    return cross_validate(
        estimator, X, y, cv=QueryKFold(N_SPLITS), scoring=scoring, params={"qid": qid}, **kwargs
    )


def fold_sizes(qid, return_train_score):
    """Rows of every set scored, fold by fold: the test set, then the training set."""
    sizes = []
    for train, test in QueryKFold(N_SPLITS).split(np.zeros((len(qid), 1)), qid=qid):
        sizes += [len(test), len(train)] if return_train_score else [len(test)]
    return sizes


MODELS = {
    # (estimator, its grid, the method scoring should call once per set)
    "regressor": (RecordingRidge, {"alpha": [0.1, 10.0]}, "predict"),
    "wrapped regressor": (
        lambda: QueryRanker(RecordingRidge()),
        {"estimator__alpha": [0.1, 10.0]},
        "predict",
    ),
    "graded classifier": (
        lambda: RecordingLogisticRegression(max_iter=300),
        {"C": [0.1, 1.0]},
        "predict_proba",
    ),
}
SCORINGS = {
    "rank scorers": lambda: make_rank_scorers(RANK_METRICS),
    "rank scorers and r2": lambda: {**make_rank_scorers(RANK_METRICS), "r2": "r2"},
}


# r2 is a regression metric: not scored on the classifier.
CASES = [
    (model_name, scoring_name)
    for model_name in MODELS
    for scoring_name in SCORINGS
    if not (model_name == "graded classifier" and "r2" in scoring_name)
]


@pytest.mark.parametrize("return_train_score", [False, True])
@pytest.mark.parametrize("tool", ["GridSearchCV", "cross_validate"])
@pytest.mark.parametrize("model_name, scoring_name", CASES)
def test_one_prediction_per_fold_and_set(
    data, routing, prediction_calls, model_name, scoring_name, tool, return_train_score
):
    make_model, grid, method = MODELS[model_name]
    X, y, qid = data
    scoring = SCORINGS[scoring_name]()
    if tool == "GridSearchCV":
        search = GridSearchCV(
            make_model(),
            grid,
            cv=QueryKFold(N_SPLITS),
            scoring=scoring,
            refit="ndcg@5",
            return_train_score=return_train_score,
        ).fit(X, y, qid=qid)
        results = search.cv_results_
        # The refit fits only: every prediction was made to score a fold.
        prefix, n_candidates = "split0_", len(results["params"])
    else:
        results = cross_validate_by_query(
            make_model(), X, y, qid, scoring, return_train_score=return_train_score
        )
        prefix, n_candidates = "", 1
    assert [called for called, _ in prediction_calls] == [method] * len(prediction_calls)
    assert [n_rows for _, n_rows in prediction_calls] == n_candidates * fold_sizes(
        qid, return_train_score
    )
    for name in scoring:
        assert np.all(np.isfinite(results[f"{prefix}test_{name}"]))


def test_shared_prediction_gives_each_metric_its_own_value(data, routing):
    X, y, qid = data
    scoring = {**make_rank_scorers(RANK_METRICS), "r2": "r2"}
    results = cross_validate_by_query(
        Ridge(), X, y, qid, scoring, return_estimator=True, return_indices=True
    )
    for fold, (model, test) in enumerate(zip(results["estimator"], results["indices"]["test"])):
        y_score = model.predict(X[test])
        assert results["test_r2"][fold] == r2_score(y[test], y_score)
        assert results["test_map@5"][fold] == map_score(y[test], y_score, qid=qid[test], k=5)
        assert results["test_ndcg@5"][fold] == ndcg_score(y[test], y_score, qid=qid[test], k=5)


# --------------------------------------------------------------------------
# A metric that fails fails alone, as scikit-learn's scorers do
# --------------------------------------------------------------------------


class QueriesWithoutRelevantDocuments(ValueError):
    pass


def ndcg_of_judged_queries(y_true, y_score, *, qid):
    """NDCG@5 that refuses a fold holding a query without any relevant document."""
    unjudged = sorted(set(qid.tolist()) - set(qid[y_true > 0].tolist()))
    if unjudged:
        raise QueriesWithoutRelevantDocuments(f"queries {unjudged} have no relevant document")
    return ndcg_score(y_true, y_score, qid=qid, k=5)


@pytest.fixture(scope="module")
def data_with_an_unjudged_query(data):
    """The data with every label of one query set to 0, and the fold testing that query."""
    X, y, qid = data
    y = np.where(qid == qid[0], 0, y)
    folds = QueryKFold(N_SPLITS).split(X, qid=qid)
    (failing,) = [fold for fold, (_, test) in enumerate(folds) if qid[0] in qid[test]]
    return X, y, qid, failing


def test_metric_failing_on_some_folds_scores_error_score_there_alone(
    data_with_an_unjudged_query, routing
):
    X, y, qid, failing = data_with_an_unjudged_query
    scoring = {
        **make_rank_scorers(["ndcg@5", "map@5"]),
        "judged": make_rank_scorer(ndcg_of_judged_queries),
    }
    with pytest.warns(UserWarning, match="Scoring failed") as warnings:
        results = cross_validate_by_query(Ridge(), X, y, qid, scoring, error_score=-1.0)
    assert any("have no relevant document" in str(w.message) for w in warnings)
    for fold in range(N_SPLITS):
        if fold == failing:
            assert results["test_judged"][fold] == -1.0
        else:  # NDCG@5 as the named scorer computes it
            assert results["test_judged"][fold] == results["test_ndcg@5"][fold]
    # The named metrics score every fold, the failing one included.
    assert np.all(results["test_ndcg@5"] >= 0) and np.all(results["test_map@5"] >= 0)


def test_metric_failing_with_error_score_raise_stops_the_search(
    data_with_an_unjudged_query, routing
):
    X, y, qid, _ = data_with_an_unjudged_query
    search = GridSearchCV(
        Ridge(),
        {"alpha": [0.1, 10.0]},
        cv=QueryKFold(N_SPLITS),
        scoring={
            **make_rank_scorers(["ndcg@5"]),
            "judged": make_rank_scorer(ndcg_of_judged_queries),
        },
        refit="ndcg@5",
        error_score="raise",
    )
    with pytest.raises(QueriesWithoutRelevantDocuments):
        search.fit(X, y, qid=qid)


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_package_error_in_one_scorer_names_the_fix_and_spares_the_others(data, routing):
    X, y, qid = data
    scoring = {
        "ndcg@5": make_rank_scorer("ndcg@5"),
        "map@5 by proba": make_rank_scorer("map@5", response_method="predict_proba"),
    }
    with pytest.warns(UserWarning, match="needs a classifier, but Ridge.*use response_method="):
        search = GridSearchCV(
            Ridge(),
            {"alpha": [0.1, 10.0]},
            cv=QueryKFold(N_SPLITS),
            scoring=scoring,
            refit="ndcg@5",
        ).fit(X, y, qid=qid)
    assert np.all(np.isnan(search.cv_results_["mean_test_map@5 by proba"]))
    assert np.all(np.isfinite(search.cv_results_["mean_test_ndcg@5"]))
    with pytest.raises(ValueError, match="needs a classifier, but Ridge"):
        search.set_params(error_score="raise").fit(X, y, qid=qid)


def test_classifier_with_hard_labels_only_fails_every_metric_with_the_fix(data, routing):
    X, y, qid = data
    with pytest.warns(UserWarning, match="CalibratedClassifierCV"):
        results = cross_validate_by_query(
            OutputCodeClassifier(LogisticRegression(max_iter=300), random_state=0),
            X,
            y,
            qid,
            make_rank_scorers(RANK_METRICS),
        )
    for name in RANK_METRICS:
        assert np.all(np.isnan(results[f"test_{name}"]))
