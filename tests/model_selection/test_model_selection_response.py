"""What the scorers and QueryRanker rank a model by: the response rule and response_method."""

import numpy as np
import pytest
from _boosters import (
    RecordingGaussianNB,
    RecordingLinearSVC,
    RecordingLogisticRegression,
    RecordingRidge,
)
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.multiclass import OutputCodeClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sklearn_rank_metrics import QueryRanker, make_rank_scorer, map_score, ndcg_score
from sklearn_rank_metrics.datasets import make_ranking

_X, _GRADES, _QID = make_ranking(
    n_queries=20, docs_per_query=(3, 10), n_features=4, interleave=True, random_state=0
)
DATA = {
    "graded": (_X, _GRADES, _QID),  # five relevance grades, 0 to 4
    "binary": (_X, (_GRADES >= 3).astype(int), _QID),  # relevant or not
}


def expected_grade(classifier, X):
    return classifier.predict_proba(X) @ classifier.classes_


# --------------------------------------------------------------------------
# Which method, and the scores made of it
# --------------------------------------------------------------------------

# (model, labels, response_method, the one method called, the ranking scores)
RESPONSE_CASES = {
    "regressor": (
        RecordingRidge, "graded", "auto", "predict", lambda model, X: model.predict(X)
    ),
    "regressor, predict asked": (
        RecordingRidge, "graded", "predict", "predict", lambda model, X: model.predict(X)
    ),
    "binary classifier with both methods": (
        RecordingLogisticRegression, "binary", "auto", "decision_function",
        lambda model, X: model.decision_function(X),
    ),
    "binary classifier without decision_function": (
        RecordingGaussianNB, "binary", "auto", "predict_proba",
        lambda model, X: model.predict_proba(X)[:, 1],
    ),
    "binary classifier, predict_proba asked": (
        RecordingLogisticRegression, "binary", "predict_proba", "predict_proba",
        lambda model, X: model.predict_proba(X)[:, 1],
    ),
    "binary classifier, decision_function asked": (
        lambda: RecordingLinearSVC(dual="auto"), "binary", "decision_function",
        "decision_function", lambda model, X: model.decision_function(X),
    ),
    "graded classifier": (
        lambda: RecordingLogisticRegression(max_iter=1000), "graded", "auto", "predict_proba",
        expected_grade,
    ),
    "graded classifier, predict_proba asked": (
        lambda: RecordingLogisticRegression(max_iter=1000), "graded", "predict_proba",
        "predict_proba", expected_grade,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", RESPONSE_CASES)
def test_scorer_and_query_ranker_rank_by_the_same_response(case, prediction_calls):
    make_model, labels, response_method, method, ranking_scores = RESPONSE_CASES[case]
    X, y, qid = DATA[labels]
    model = make_model().fit(X, y)
    scored = make_rank_scorer("ndcg@5", response_method=response_method)(model, X, y, qid=qid)
    ranker = QueryRanker(make_model(), response_method=response_method).fit(X, y, qid=qid)
    predicted = ranker.predict(X)
    assert prediction_calls == [(method, len(y))] * 2  # one call each, of that method

    expected = ranking_scores(model, X)
    assert scored == pytest.approx(ndcg_score(y, expected, qid=qid, k=5), rel=1e-12)
    # The ranker fits on rows sorted by query: the same model up to rounding.
    np.testing.assert_allclose(predicted, expected, rtol=1e-9, atol=1e-12)


def test_linear_svc_is_scored_by_its_decision_function_not_its_hard_labels():
    X, y, qid = DATA["binary"]
    svc = LinearSVC(dual="auto").fit(X, y)
    scored = make_rank_scorer("map@10")(svc, X, y, qid=qid)
    assert scored == map_score(y, svc.decision_function(X), qid=qid, k=10)
    # Hard 0/1 labels tie most documents of a query, and score much lower.
    assert scored > map_score(y, svc.predict(X), qid=qid, k=10) + 0.1


def test_positive_class_is_the_higher_one():
    X, y, qid = DATA["binary"]
    labels = np.array(["irrelevant", "relevant"])[y]  # classes_[1] is "relevant"
    classifier = GaussianNB().fit(X, labels)
    positive = classifier.predict_proba(X)[:, 1]
    assert make_rank_scorer("ndcg@5")(classifier, X, y, qid=qid) == ndcg_score(
        y, positive, qid=qid, k=5
    )


@pytest.mark.parametrize("labels", ["binary", "graded"])
def test_pipeline_ending_in_a_classifier_is_ranked_as_the_classifier(labels):
    X, y, qid = DATA[labels]
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    if labels == "binary":
        expected = pipeline.decision_function(X)
    else:
        expected = expected_grade(pipeline, X)
    scorer = make_rank_scorer("ndcg@5")
    assert scorer(pipeline, X, y, qid=qid) == pytest.approx(
        ndcg_score(y, expected, qid=qid, k=5), rel=1e-12
    )
    ranker = QueryRanker(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)))
    np.testing.assert_allclose(ranker.fit(X, y, qid=qid).predict(X), expected, rtol=1e-9)


def test_the_fix_the_errors_name_works():
    X, y, qid = DATA["graded"]
    calibrated = CalibratedClassifierCV(LinearSVC(dual="auto")).fit(X, y)
    assert make_rank_scorer("ndcg@5")(calibrated, X, y, qid=qid) == pytest.approx(
        ndcg_score(y, expected_grade(calibrated, X), qid=qid, k=5), rel=1e-12
    )


# --------------------------------------------------------------------------
# Models that cannot rank, and response methods they cannot give
# --------------------------------------------------------------------------

ERROR_CASES = {
    "classifier with only predict": (
        lambda: OutputCodeClassifier(LogisticRegression(), random_state=0), "binary", "auto",
        AttributeError, "OutputCodeClassifier has no decision_function or predict_proba",
    ),
    "pipeline ending in a classifier with only predict": (
        lambda: make_pipeline(
            StandardScaler(), OutputCodeClassifier(LogisticRegression(), random_state=0)
        ),
        "binary", "auto", AttributeError, "Pipeline has no decision_function or predict_proba",
    ),
    "graded classifier without predict_proba": (
        lambda: LinearSVC(dual="auto"), "graded", "auto", AttributeError,
        "LinearSVC on 5 classes .*has no predict_proba",
    ),
    "predict asked for a classifier": (
        LogisticRegression, "binary", "predict", ValueError, "hard class labels",
    ),
    "decision_function asked for a graded classifier": (
        lambda: LogisticRegression(max_iter=1000), "graded", "decision_function", ValueError,
        "needs a classifier with two classes, but LogisticRegression has 5",
    ),
    "decision_function asked for a classifier without it": (
        GaussianNB, "binary", "decision_function", AttributeError,
        "GaussianNB has no decision_function",
    ),
    "predict_proba asked for a regressor": (
        Ridge, "graded", "predict_proba", ValueError, "needs a classifier, but Ridge",
    ),
}  # fmt: skip
# The errors for models that cannot rank name the way out.
FIX = {AttributeError: "CalibratedClassifierCV", ValueError: "use (response_method=)?'auto'"}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_model_that_cannot_give_the_response_is_an_error_naming_the_fix(case):
    make_model, labels, response_method, error, match = ERROR_CASES[case]
    X, y, qid = DATA[labels]
    scorer = make_rank_scorer("ndcg@5", response_method=response_method)
    with pytest.raises(error, match=match) as raised:
        scorer(make_model().fit(X, y), X, y, qid=qid)
    assert raised.match(FIX[error])
    # QueryRanker checks in fit, before any predict.
    with pytest.raises(error, match=match):
        QueryRanker(make_model(), response_method=response_method).fit(X, y, qid=qid)


def test_graded_classifier_with_text_labels_is_a_type_error():
    X, y, qid = DATA["graded"]
    labels = np.array(["bad", "fair", "good", "great", "perfect"])[y]
    classifier = LogisticRegression(max_iter=1000).fit(X, labels)
    with pytest.raises(TypeError, match="needs numeric class labels.*fit a regressor"):
        make_rank_scorer("ndcg@5")(classifier, X, y, qid=qid)


@pytest.mark.parametrize("response_method", ["proba", None, "predict_log_proba"])
def test_unknown_response_method_is_an_error(response_method):
    X, y, qid = DATA["graded"]
    with pytest.raises(ValueError, match="response_method=.* is not valid.*one of 'auto'"):
        make_rank_scorer("ndcg@5", response_method=response_method)
    with pytest.raises(ValueError, match="response_method=.* is not valid.*one of 'auto'"):
        QueryRanker(Ridge(), response_method=response_method).fit(X, y, qid=qid)


def test_response_method_is_in_the_repr():
    scorer = make_rank_scorer("ndcg@5", response_method="predict_proba")
    assert repr(scorer) == "make_rank_scorer('ndcg@5', response_method='predict_proba')"
