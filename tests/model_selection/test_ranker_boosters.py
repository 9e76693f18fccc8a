"""QueryRanker with real boosters: evaluation sets, early stopping, weights, CatBoost.

Every test fits the booster itself on the data sorted by query and compares:
what the wrapper hands a booster must be exactly what the booster's own
documentation asks for.
"""

import inspect

import numpy as np
import pytest
import sklearn
from _boosters import catboost_model, lgbm_ranker, xgb_ranker
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank_metrics import QueryKFold, QueryRanker, make_rank_scorers, ndcg_score
from sklearn_rank_metrics.datasets import make_ranking


@pytest.fixture(scope="module")
def data():
    """Interleaved training and validation queries (validation ids 100 and up)."""
    X, y, qid = make_ranking(
        n_queries=30, docs_per_query=(4, 12), n_features=5, interleave=True, random_state=0
    )
    X_val, y_val, qid_val = make_ranking(
        n_queries=10, docs_per_query=(4, 12), n_features=5, interleave=True, random_state=1
    )
    return X, y, qid, X_val, y_val, qid_val + 100


def by_query(*arrays, qid):
    order = np.argsort(qid, kind="stable")
    return [array[order] for array in arrays] + [qid[order]]


def lightgbm_eval_arguments(model, X_val, y_val, group):
    """LightGBM's own evaluation arguments: eval_X/eval_y from 4.7 on, else eval_set."""
    if "eval_X" in inspect.signature(model.fit).parameters:
        return {"eval_X": (X_val,), "eval_y": (y_val,), "eval_group": [group]}
    return {"eval_set": [(X_val, y_val)], "eval_group": [group]}


def early_stopping_lightgbm(n_estimators=60):
    lightgbm = pytest.importorskip("lightgbm")
    model = lgbm_ranker().set_params(n_estimators=n_estimators, learning_rate=0.3)
    return model, {"callbacks": [lightgbm.early_stopping(3, verbose=False)]}


# --------------------------------------------------------------------------
# Evaluation sets and early stopping
# --------------------------------------------------------------------------


def test_lightgbm_eval_set_is_sorted_and_grouped(data):
    X, y, qid, X_val, y_val, qid_val = data
    model, fit_params = early_stopping_lightgbm()
    ranker = QueryRanker(model, fit_params=fit_params)
    ranker.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])

    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    Xv_s, yv_s, qidv_s = by_query(X_val, y_val, qid=qid_val)
    direct = clone(model).fit(
        X_s, y_s, group=np.unique(qid_s, return_counts=True)[1],
        **lightgbm_eval_arguments(model, Xv_s, yv_s, np.unique(qidv_s, return_counts=True)[1]),
        **clone(ranker).fit_params,
    )  # fmt: skip
    assert ranker.evals_result_ == direct.evals_result_
    assert 0 < direct.best_iteration_ < 60  # early stopping did stop early
    assert ranker.best_iteration_ == direct.best_iteration_ - 1  # zero-based
    np.testing.assert_array_equal(ranker.predict(X_val), direct.predict(X_val))
    np.testing.assert_array_equal(ranker.feature_importances_, direct.feature_importances_)


def test_xgboost_eval_set_with_its_own_early_stopping(data):
    X, y, qid, X_val, y_val, qid_val = data
    model = xgb_ranker().set_params(
        n_estimators=60, learning_rate=0.3, early_stopping_rounds=3, eval_metric="ndcg@5"
    )
    ranker = QueryRanker(model).fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    assert ranker.query_arg_ == "qid"

    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    Xv_s, yv_s, qidv_s = by_query(X_val, y_val, qid=qid_val)
    direct = clone(model).fit(X_s, y_s, qid=qid_s, eval_set=[(Xv_s, yv_s)], eval_qid=[qidv_s])
    assert ranker.evals_result_ == direct.evals_result()
    assert ranker.best_iteration_ == direct.best_iteration < 59
    np.testing.assert_array_equal(ranker.predict(X_val), direct.predict(X_val))


def test_catboost_ranker_gets_group_id_and_a_pool_per_eval_set(data):
    catboost = pytest.importorskip("catboost")
    X, y, qid, X_val, y_val, qid_val = data
    model = catboost_model(iterations=40, learning_rate=0.3)
    ranker = QueryRanker(model).fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    assert ranker.query_arg_ == "group_id"

    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    Xv_s, yv_s, qidv_s = by_query(X_val, y_val, qid=qid_val)
    direct = clone(model).fit(
        X_s, y_s, group_id=qid_s, eval_set=catboost.Pool(Xv_s, yv_s, group_id=qidv_s)
    )
    assert ranker.evals_result_ == direct.get_evals_result()
    assert ranker.best_iteration_ == direct.get_best_iteration()
    np.testing.assert_allclose(ranker.predict(X_val), direct.predict(X_val), rtol=1e-12)
    importances = direct.get_feature_importance(type="PredictionValuesChange")
    np.testing.assert_allclose(ranker.feature_importances_, importances)
    assert ranker.feature_importances_.shape == (X.shape[1],)


def test_eval_set_query_order_does_not_matter(data):
    # Queries in another order, each query's rows in the same order (LightGBM
    # breaks ties in its metrics by row position, as in training).
    X, y, qid, X_val, y_val, qid_val = data
    model, fit_params = early_stopping_lightgbm()
    query_key = np.random.default_rng(0).permutation(qid_val.max() + 1)
    shuffled = np.argsort(query_key[qid_val], kind="stable")
    results = [
        QueryRanker(model, fit_params=fit_params)
        .fit(X, y, qid=qid, eval_set=[(X_val[rows], y_val[rows])], eval_qid=[qid_val[rows]])
        .evals_result_
        for rows in (np.arange(len(y_val)), shuffled)
    ]
    assert results[0] == results[1]


def test_pipeline_preprocessing_is_fitted_on_training_rows_and_applied_to_eval_sets(data):
    X, y, qid, X_val, y_val, qid_val = data
    X_val = X_val * 100.0 + 5.0  # unscaled evaluation data: only the scaler makes it usable
    model, fit_params = early_stopping_lightgbm()
    ranker = QueryRanker(make_pipeline(StandardScaler(), model), fit_params=fit_params)
    ranker.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])

    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    Xv_s, yv_s, qidv_s = by_query(X_val, y_val, qid=qid_val)
    scaler = StandardScaler().fit(X_s)
    direct = clone(model).fit(
        scaler.transform(X_s), y_s, group=np.unique(qid_s, return_counts=True)[1],
        **lightgbm_eval_arguments(
            model, scaler.transform(Xv_s), yv_s, np.unique(qidv_s, return_counts=True)[1]
        ),
        **clone(ranker).fit_params,
    )  # fmt: skip
    assert ranker.evals_result_ == direct.evals_result_
    fitted_scaler = ranker.estimator_[0]
    np.testing.assert_array_equal(fitted_scaler.mean_, scaler.mean_)
    np.testing.assert_array_equal(ranker.predict(X_val), direct.predict(scaler.transform(X_val)))


def test_eval_sets_carry_their_own_qid_column(data):
    X, y, qid, X_val, y_val, qid_val = data
    model, fit_params = early_stopping_lightgbm()
    by_routing = QueryRanker(model, fit_params=fit_params).fit(
        X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val]
    )
    by_column = QueryRanker(model, fit_params=fit_params, qid_column=0).fit(
        np.column_stack([qid, X]), y, eval_set=[(np.column_stack([qid_val, X_val]), y_val)]
    )
    assert by_column.evals_result_ == by_routing.evals_result_
    with pytest.raises(ValueError, match="query ids twice"):
        QueryRanker(model, qid_column=0).fit(
            np.column_stack([qid, X]), y,
            eval_set=[(np.column_stack([qid_val, X_val]), y_val)], eval_qid=[qid_val],
        )  # fmt: skip


def test_search_routes_eval_sets_to_every_fit(data, routing):
    X, y, qid, X_val, y_val, qid_val = data
    model, fit_params = early_stopping_lightgbm()
    search = GridSearchCV(
        QueryRanker(model, fit_params=fit_params),
        {"estimator__num_leaves": [3, 7]},
        cv=QueryKFold(3),
        scoring=make_rank_scorers(["ndcg@5", "map@5"]),
        refit="ndcg@5",
    )
    search.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])
    refit = search.best_estimator_
    assert "valid_0" in refit.evals_result_ and refit.best_iteration_ < 59

    # Each fold's model stopped early on the same evaluation set: the fold
    # scores are those of models fitted by hand that way.
    candidate = search.best_index_
    for fold, (train, test) in enumerate(QueryKFold(3).split(X, qid=qid)):
        by_hand = clone(search.best_estimator_).fit(
            X[train], y[train], qid=qid[train], eval_set=[(X_val, y_val)], eval_qid=[qid_val]
        )
        expected = ndcg_score(y[test], by_hand.predict(X[test]), qid=qid[test], k=5)
        assert search.cv_results_[f"split{fold}_test_ndcg@5"][candidate] == pytest.approx(
            expected, abs=1e-12
        )


def test_search_without_routing_takes_eval_sets_with_a_qid_column(data):
    X, y, qid, X_val, y_val, qid_val = data
    model, fit_params = early_stopping_lightgbm()
    search = GridSearchCV(
        QueryRanker(model, fit_params=fit_params, qid_column=0),
        {"estimator__num_leaves": [3, 7]},
        cv=QueryKFold(3, qid_column=0),
        scoring=make_rank_scorers(["ndcg@5"], qid_column=0),
        refit="ndcg@5",
    )
    assert not sklearn.get_config()["enable_metadata_routing"]
    search.fit(np.column_stack([qid, X]), y, eval_set=[(np.column_stack([qid_val, X_val]), y_val)])
    assert search.best_estimator_.best_iteration_ < 59


class CountingCallback:
    """A LightGBM callback that counts its calls: state a fit must not leave behind."""

    def __init__(self):
        self.calls = 0

    def __call__(self, env):
        self.calls += 1


def test_fit_params_survive_clone_and_each_fit_gets_its_own_copy(data):
    X, y, qid, *_ = data
    callback = CountingCallback()
    ranker = QueryRanker(lgbm_ranker(), fit_params={"callbacks": [callback]})
    assert isinstance(clone(ranker).fit_params["callbacks"][0], CountingCallback)
    ranker.fit(X, y, qid=qid)
    ranker.fit(X, y, qid=qid)
    assert callback.calls == 0  # the fits called copies, not the parameter's object
    assert ranker.fit_params["callbacks"][0] is callback


@pytest.mark.parametrize(
    "key", ["group", "qid", "group_id", "sample_weight", "group_weight", "eval_set", "eval_X",
            "eval_group", "eval_qid", "eval_sample_weight", "init_score", "base_margin",
            "baseline", "pairs"],
)  # fmt: skip
def test_fit_params_refuse_what_the_wrapper_computes(data, key):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match=f"fit_params must not set '{key}'"):
        QueryRanker(Ridge(), fit_params={key: None}).fit(X, y, qid=qid)


def test_fit_params_refuse_any_array_with_a_value_per_row(data):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match="fit_params must not set 'my_margin'"):
        QueryRanker(Ridge(), fit_params={"my_margin": np.zeros(len(y))}).fit(X, y, qid=qid)


def test_fit_params_must_be_a_dict(data):
    X, y, qid, *_ = data
    with pytest.raises(TypeError, match="fit_params must be a dict"):
        QueryRanker(Ridge(), fit_params=[("callbacks", [])]).fit(X, y, qid=qid)


def test_eval_set_errors(data):
    X, y, qid, X_val, y_val, qid_val = data
    with pytest.raises(ValueError, match="eval_qid was given without eval_set"):
        QueryRanker(lgbm_ranker()).fit(X, y, qid=qid, eval_qid=[qid_val])
    with pytest.raises(TypeError, match=r"list of \(X, y\) pairs"):
        QueryRanker(lgbm_ranker()).fit(X, y, qid=qid, eval_set=(X_val, y_val))
    with pytest.raises(ValueError, match="eval_qid must be a list"):
        QueryRanker(lgbm_ranker()).fit(
            X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val, qid_val]
        )
    with pytest.raises(ValueError, match="got eval_set without the query ids"):
        QueryRanker(lgbm_ranker()).fit(X, y, qid=qid, eval_set=[(X_val, y_val)])
    with pytest.raises(ValueError, match=r"eval_set\[0\] has 4 columns, but the training X has 5"):
        QueryRanker(lgbm_ranker()).fit(
            X, y, qid=qid, eval_set=[(X_val[:, 1:], y_val)], eval_qid=[qid_val]
        )
    with pytest.raises(ValueError, match=r"eval_set\[0\] has 5 columns.*query id column included"):
        QueryRanker(lgbm_ranker(), qid_column=0).fit(  # the eval X lacks its qid column
            np.column_stack([qid, X]), y, eval_set=[(X_val, y_val)]
        )
    with pytest.raises(ValueError, match=r"eval_set\[0\]: X, y and its query ids .* y \d+"):
        QueryRanker(lgbm_ranker()).fit(
            X, y, qid=qid, eval_set=[(X_val, y_val[:-1])], eval_qid=[qid_val]
        )
    with pytest.raises(TypeError, match="Ridge.fit takes no evaluation sets"):
        QueryRanker(Ridge()).fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val])


def test_attributes_absent_where_the_model_has_none(data):
    X, y, qid, *_ = data
    ranker = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    assert not hasattr(ranker, "best_iteration_")  # no early stopping
    assert not hasattr(ranker, "evals_result_")  # no evaluation set
    assert not hasattr(ranker, "classes_")  # not a classifier
    assert ranker.feature_importances_.shape == (X.shape[1],)
    ridge = QueryRanker(Ridge()).fit(X, y, qid=qid)
    assert not hasattr(ridge, "feature_importances_")
    assert not hasattr(QueryRanker(lgbm_ranker()), "feature_importances_")  # not fitted


# --------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------


def query_weights(qid):
    return 1.0 + (qid % 3)  # equal within each query


def test_xgboost_gets_one_weight_per_query(data):
    X, y, qid, *_ = data
    ranker = QueryRanker(xgb_ranker()).fit(X, y, qid=qid, sample_weight=query_weights(qid))
    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    direct = xgb_ranker().fit(X_s, y_s, qid=qid_s, sample_weight=query_weights(np.unique(qid_s)))
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))
    unweighted = QueryRanker(xgb_ranker()).fit(X, y, qid=qid)
    assert not np.array_equal(ranker.predict(X), unweighted.predict(X))


def test_catboost_gets_group_weights(data):
    X, y, qid, *_ = data
    ranker = QueryRanker(catboost_model()).fit(X, y, qid=qid, sample_weight=query_weights(qid))
    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    direct = catboost_model().fit(X_s, y_s, group_id=qid_s, group_weight=query_weights(qid_s))
    np.testing.assert_allclose(ranker.predict(X), direct.predict(X), rtol=1e-12)
    unweighted = QueryRanker(catboost_model()).fit(X, y, qid=qid)
    assert not np.allclose(ranker.predict(X), unweighted.predict(X))


@pytest.mark.parametrize("make_model", [xgb_ranker, catboost_model], ids=["xgboost", "catboost"])
def test_weights_varying_within_a_query_are_an_error(data, make_model):
    X, y, qid, *_ = data
    weights = query_weights(qid)
    first_row_of_query_7 = np.flatnonzero(qid == 7)[0]
    weights[first_row_of_query_7] = 9.0
    with pytest.raises(ValueError, match="sample_weight varies within query 7"):
        QueryRanker(make_model()).fit(X, y, qid=qid, sample_weight=weights)


def test_lightgbm_takes_row_weights_sorted_with_the_rows(data):
    X, y, qid, *_ = data
    weights = 0.5 + np.random.default_rng(0).random(len(y))  # varying within queries
    ranker = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid, sample_weight=weights)
    X_s, y_s, w_s, qid_s = by_query(X, y, weights, qid=qid)
    group = np.unique(qid_s, return_counts=True)[1]
    direct = lgbm_ranker().fit(X_s, y_s, group=group, sample_weight=w_s)
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))
    unweighted = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    assert not np.array_equal(ranker.predict(X), unweighted.predict(X))


def test_lightgbm_ranking_metrics_weigh_a_query_by_its_mean_row_weight(data):
    # What the documentation states about LightGBM: its NDCG on a weighted
    # evaluation set is the mean over queries weighted by the mean row weight.
    X, y, qid, X_val, y_val, qid_val = data
    model = lgbm_ranker().set_params(n_estimators=40, num_leaves=15, min_child_samples=1)
    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    Xv_s, yv_s, qidv_s = by_query(X_val, y_val, qid=qid_val)
    row_weights = 0.5 + np.random.default_rng(1).random(len(yv_s))
    arguments = lightgbm_eval_arguments(model, Xv_s, yv_s, np.unique(qidv_s, return_counts=True)[1])
    model.fit(
        X_s, y_s, group=np.unique(qid_s, return_counts=True)[1], eval_at=[5],
        eval_sample_weight=[row_weights], **arguments,
    )  # fmt: skip
    scores = model.predict(Xv_s)
    # LightGBM breaks ties by row position and scores a query without a
    # relevant document 1: the comparison holds on data with neither.
    for query in np.unique(qidv_s):
        assert len(np.unique(scores[qidv_s == query])) == np.sum(qidv_s == query)
        assert y_val[qid_val == query].max() > 0
    codes = np.unique(qidv_s, return_inverse=True)[1]
    mean_weight = np.bincount(codes, row_weights) / np.bincount(codes)
    expected = ndcg_score(
        yv_s, scores, qid=qidv_s, k=5, gain="exponential", sample_weight=mean_weight[codes]
    )
    assert model.evals_result_["valid_0"]["ndcg@5"][-1] == pytest.approx(expected, rel=1e-6)


# --------------------------------------------------------------------------
# CatBoost
# --------------------------------------------------------------------------


def test_catboost_ranker_in_a_search(data, routing):
    X, y, qid, X_val, y_val, qid_val = data
    search = GridSearchCV(
        QueryRanker(catboost_model()),
        {"estimator__depth": [2, 4]},
        cv=QueryKFold(3),
        scoring=make_rank_scorers(["ndcg@5", "mrr@5"]),
        refit="ndcg@5",
    ).fit(X, y, qid=qid)
    assert np.all(np.isfinite(search.cv_results_["mean_test_ndcg@5"]))
    assert search.score(X_val, y_val, qid=qid_val) == pytest.approx(
        ndcg_score(y_val, search.predict(X_val), qid=qid_val, k=5)
    )


@pytest.mark.parametrize("kind", ["CatBoostRegressor", "CatBoostClassifier"])
def test_catboost_pointwise_models(data, kind):
    X, y, qid, X_val, y_val, qid_val = data
    labels = y if kind == "CatBoostRegressor" else (y >= 2).astype(int)
    ranker = QueryRanker(catboost_model(kind)).fit(X, labels, qid=qid)
    assert ranker.query_arg_ is None
    direct = catboost_model(kind).fit(*by_query(X, labels, qid=qid)[:2])
    expected = (
        direct.predict(X_val) if kind == "CatBoostRegressor" else direct.predict_proba(X_val)[:, 1]
    )
    np.testing.assert_allclose(ranker.predict(X_val), expected, rtol=1e-12)
    if kind == "CatBoostClassifier":
        np.testing.assert_array_equal(ranker.classes_, [0, 1])


def test_pipeline_given_as_a_tuple_of_steps_and_a_passthrough_model(data):
    X, y, qid, *_ = data
    steps = (("scale", StandardScaler()), ("model", Ridge()))
    ranker = QueryRanker(Pipeline(steps)).fit(X, y, qid=qid)
    expected = make_pipeline(StandardScaler(), Ridge()).fit(*by_query(X, y, qid=qid)[:2])
    np.testing.assert_allclose(ranker.predict(X), expected.predict(X), rtol=1e-12)
    with pytest.raises(ValueError, match="last step is 'passthrough'"):
        QueryRanker(Pipeline([("scale", StandardScaler()), ("model", "passthrough")])).fit(
            X, y, qid=qid
        )


def test_catboost_eval_pools_know_the_categorical_columns(data):
    pandas = pytest.importorskip("pandas")
    catboost = pytest.importorskip("catboost")
    X, y, qid, X_val, y_val, qid_val = data

    def frame(X):
        df = pandas.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
        df["colour"] = np.where(X[:, 0] > 0, "red", "blue")
        return df

    model = catboost_model(iterations=20)
    ranker = QueryRanker(model, fit_params={"cat_features": ["colour"]})
    ranker.fit(frame(X), y, qid=qid, eval_set=[(frame(X_val), y_val)], eval_qid=[qid_val])
    X_s, y_s, qid_s = by_query(X, y, qid=qid)
    Xv_s, yv_s, qidv_s = by_query(X_val, y_val, qid=qid_val)
    pool = catboost.Pool(frame(Xv_s), yv_s, group_id=qidv_s, cat_features=["colour"])
    direct = clone(model).fit(frame(X_s), y_s, group_id=qid_s, cat_features=["colour"], eval_set=pool)
    assert ranker.evals_result_ == direct.get_evals_result()
