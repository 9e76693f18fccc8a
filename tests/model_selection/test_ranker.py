"""Tests for QueryRanker."""

import numpy as np
import pytest
import sklearn
from _boosters import lgbm_ranker, xgb_ranker
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    make_rank_scorer,
    map_score,
    ndcg_score,
)
from sklearn_rank_metrics.datasets import make_ranking


@pytest.fixture(scope="module")
def data():
    return make_ranking(
        n_queries=20, docs_per_query=(3, 12), n_features=4, interleave=True, random_state=0
    )


def sorted_by_query(X, y, qid):
    order = np.argsort(qid, kind="stable")
    return X[order], y[order], qid[order]


# --------------------------------------------------------------------------
# What the boosters receive
# --------------------------------------------------------------------------


def test_lightgbm_gets_group_sizes_of_stably_sorted_rows(data):
    X, y, qid = data
    ranker = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    assert ranker.query_arg_ == "group"
    X_sorted, y_sorted, qid_sorted = sorted_by_query(X, y, qid)
    direct = lgbm_ranker().fit(X_sorted, y_sorted, group=np.bincount(qid_sorted))
    # Predictions in the caller's (interleaved) row order, equal to LightGBM's own.
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))


def test_xgboost_gets_sorted_qid(data):
    X, y, qid = data
    ranker = QueryRanker(xgb_ranker()).fit(X, y, qid=qid)
    assert ranker.query_arg_ == "qid"
    X_sorted, y_sorted, qid_sorted = sorted_by_query(X, y, qid)
    direct = xgb_ranker().fit(X_sorted, y_sorted, qid=qid_sorted)
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))


def test_already_sorted_data_gives_the_boosters_own_model(data):
    X, y, qid = sorted_by_query(*data)
    ranker = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    direct = lgbm_ranker().fit(X, y, group=np.bincount(qid))
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))


def test_text_query_ids_and_sample_weight_are_sorted_with_the_rows(data):
    X, y, qid = data
    text_qid = np.char.add("query-", qid.astype(str))  # sorts differently from the ints
    weights = 1.0 + (qid % 4)  # equal within a query
    ranker = QueryRanker(lgbm_ranker()).fit(X, y, qid=text_qid, sample_weight=weights)
    order = np.argsort(text_qid, kind="stable")
    _, sizes = np.unique(text_qid[order], return_counts=True)
    direct = lgbm_ranker().fit(X[order], y[order], group=sizes, sample_weight=weights[order])
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))


@pytest.mark.parametrize(
    "make_model, query_arg, expected",
    [
        (xgb_ranker, "auto", "qid"),
        (xgb_ranker, "group", "group"),
        (xgb_ranker, "qid", "qid"),
        (lgbm_ranker, "auto", "group"),
        (Ridge, "auto", None),
        (Ridge, None, None),
    ],
)
def test_query_arg_detected_or_forced(data, make_model, query_arg, expected):
    X, y, qid = data
    ranker = QueryRanker(make_model(), query_arg=query_arg).fit(X, y, qid=qid)
    assert ranker.query_arg_ == expected


def test_invalid_query_arg(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="query_arg='sizes' is not supported"):
        QueryRanker(Ridge(), query_arg="sizes").fit(X, y, qid=qid)


def test_ranker_fit_without_qid_is_an_error(data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"QueryRanker\(LGBMRanker\).fit needs the query id"):
        QueryRanker(lgbm_ranker()).fit(X, y)


def test_pointwise_models_fit_without_qid(data):
    X, y, _ = data
    ranker = QueryRanker(LinearRegression()).fit(X, y)
    assert ranker.query_arg_ is None
    np.testing.assert_allclose(ranker.predict(X), LinearRegression().fit(X, y).predict(X))


def test_y_is_required(data):
    X, _, qid = data
    with pytest.raises(ValueError, match="requires y to be passed"):
        QueryRanker(Ridge()).fit(X, None, qid=qid)


# --------------------------------------------------------------------------
# Pipelines and the query id column
# --------------------------------------------------------------------------


def test_whole_pipeline_wrapped_so_no_step_sees_the_qid_column(data):
    X, y, qid = data
    X_with_qid = np.column_stack([qid, X])
    pipeline = make_pipeline(StandardScaler(), lgbm_ranker())
    ranker = QueryRanker(pipeline, qid_column=0).fit(X_with_qid, y)
    assert ranker.estimator_[0].n_features_in_ == X.shape[1]  # the scaler never saw qid
    assert ranker.n_features_in_ == X.shape[1] + 1
    X_sorted, y_sorted, qid_sorted = sorted_by_query(X, y, qid)
    direct = make_pipeline(StandardScaler(), lgbm_ranker()).fit(
        X_sorted, y_sorted, lgbmranker__group=np.bincount(qid_sorted)
    )
    np.testing.assert_array_equal(ranker.predict(X_with_qid), direct.predict(X))
    assert ranker.score(X_with_qid, y) == ndcg_score(y, direct.predict(X), qid=qid, k=10)


def test_nested_pipeline_with_routing_on(data):
    X, y, qid = data
    inner = Pipeline([("scale", StandardScaler()), ("model", lgbm_ranker())])
    ranker = QueryRanker(Pipeline([("prep", "passthrough"), ("inner", inner)]))
    # With routing on, a Pipeline refuses "step__group"; QueryRanker passes it anyway.
    with sklearn.config_context(enable_metadata_routing=True):
        ranker.fit(X, y, qid=qid)
    assert ranker.query_arg_ == "group"
    X_sorted, y_sorted, qid_sorted = sorted_by_query(X, y, qid)
    direct = make_pipeline(StandardScaler(), lgbm_ranker()).fit(
        X_sorted, y_sorted, lgbmranker__group=np.bincount(qid_sorted)
    )
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))


SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


@pytest.mark.parametrize("scoring", [None, "ndcg@10"])
def test_ranker_as_last_step_of_a_pipeline_with_routing(data, routing, scoring):
    # With routing, the query ids skip the preprocessing and reach the ranker's
    # fit and score, in a search too.
    if scoring is None and (1, 5) <= SKLEARN_VERSION < (1, 8):
        pytest.skip(
            "scikit-learn 1.5-1.7 route no metadata to a Pipeline's score when scoring=None "
            "(fixed in 1.8)"
        )
    X, y, qid = data
    pipeline = make_pipeline(StandardScaler(), QueryRanker(lgbm_ranker()))
    search = GridSearchCV(
        pipeline,
        {"queryranker__estimator__learning_rate": [0.1, 0.3]},
        cv=QueryKFold(3),
        scoring=scoring and make_rank_scorer(scoring),
    ).fit(X, y, qid=qid)
    assert search.best_estimator_[-1].query_arg_ == "group"
    assert search.score(X, y, qid=qid) == ndcg_score(y, search.predict(X), qid=qid, k=10)


def test_qid_column_by_name_in_a_dataframe(data):
    pd = pytest.importorskip("pandas")
    X, y, qid = data
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame.insert(2, "qid", qid)
    ranker = QueryRanker(lgbm_ranker(), qid_column="qid").fit(frame, y)
    assert list(ranker.feature_names_in_) == list(frame.columns)
    assert "qid" not in list(ranker.estimator_.feature_name_)
    with_qid_given = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    np.testing.assert_allclose(ranker.predict(frame), with_qid_given.predict(X))


def test_predict_checks_the_column_count(data):
    X, y, qid = data
    ranker = QueryRanker(Ridge(), qid_column=0).fit(np.column_stack([qid, X]), y)
    with pytest.raises(
        ValueError, match="X has 4 features, but QueryRanker is expecting 5 .*query id column"
    ):
        ranker.predict(X)


# --------------------------------------------------------------------------
# score and predict
# --------------------------------------------------------------------------


def test_score_is_ndcg_at_10_per_query(data):
    X, y, qid = data
    ranker = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    assert ranker.score(X, y, qid=qid) == ndcg_score(y, ranker.predict(X), qid=qid, k=10)
    ranker.set_params(metric="map@3")
    assert ranker.score(X, y, qid=qid) == map_score(y, ranker.predict(X), qid=qid, k=3)


def test_score_without_qid_is_an_error(data):
    X, y, qid = data
    ranker = QueryRanker(Ridge()).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="needs the query id of every row"):
        ranker.score(X, y)


# --------------------------------------------------------------------------
# Metadata routing
# --------------------------------------------------------------------------


def test_fit_and_score_request_qid_by_default():
    request = QueryRanker(Ridge()).get_metadata_routing()
    assert request.fit.requests == {
        "qid": True, "sample_weight": None, "eval_set": True, "eval_qid": True
    }  # fmt: skip
    assert request.score.requests == {"qid": True, "sample_weight": None}


def test_requests_can_be_changed(routing):
    ranker = QueryRanker(Ridge()).set_fit_request(qid=False, sample_weight=True)
    request = ranker.get_metadata_routing()
    assert request.fit.requests == {
        "qid": False, "sample_weight": True, "eval_set": True, "eval_qid": True
    }  # fmt: skip
    assert request.score.requests["qid"] is True
    assert sklearn.clone(ranker).get_metadata_routing().fit.requests["qid"] is False


# --------------------------------------------------------------------------
# scikit-learn's estimator checks
# --------------------------------------------------------------------------

# The checks call score(X, y) without query ids; QueryRanker.score refuses,
# since a score computed as if all rows were one query would be meaningless.
SKIPPED_CHECKS = {
    "check_fit_score_takes_y": "calls score(X, y) without qid, which QueryRanker refuses",
    "check_pipeline_consistency": "compares score(X, y) without qid, which QueryRanker refuses",
}


# Wrapped rankers (LGBMRanker, XGBRanker) need qid in fit, which no generic
# check passes: the checks run on pointwise models, a regressor and a classifier.
# The (estimator, check) pairs are taken from parametrize_with_checks's mark as a
# list: scikit-learn 1.4 hands pytest a generator, which pytest deprecates.
ESTIMATOR_CHECKS = list(
    parametrize_with_checks([QueryRanker(Ridge()), QueryRanker(LogisticRegression())]).args[1]
)


def _check_id(estimator_and_check):
    estimator, check = estimator_and_check
    return f"{type(estimator.estimator).__name__}-{getattr(check, 'func', check).__name__}"


@pytest.mark.parametrize(
    "estimator, check", ESTIMATOR_CHECKS, ids=[_check_id(pair) for pair in ESTIMATOR_CHECKS]
)
def test_sklearn_estimator_checks(estimator, check):
    check_name = getattr(check, "func", check).__name__
    if check_name in SKIPPED_CHECKS:
        pytest.skip(SKIPPED_CHECKS[check_name])
    check(estimator)
