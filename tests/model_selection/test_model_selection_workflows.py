"""Model selection workflows: split queries, repeated folds, cross_val_predict, nested CV.

Each test runs the workflow end to end and recomputes its numbers by hand.
"""

import warnings

import numpy as np
import pytest
import sklearn
from _boosters import lgbm_ranker
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    cross_val_predict,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    RepeatedQueryKFold,
    SplitQueryWarning,
    make_rank_scorer,
    make_rank_scorers,
    ndcg_score,
)
from sklearn_rank_metrics.datasets import load_lambdarank_example, make_ranking


@pytest.fixture(scope="module")
def data():
    return make_ranking(
        n_queries=24, docs_per_query=(4, 12), n_features=4, interleave=True, random_state=0
    )


def split_query_warnings(record):
    return [w for w in record if issubclass(w.category, SplitQueryWarning)]


# --------------------------------------------------------------------------
# Folds that split queries
# --------------------------------------------------------------------------


def test_row_folds_that_split_queries_warn(data, routing):
    X, y, qid = data
    with pytest.warns(SplitQueryWarning, match=r"cv=QueryKFold\(\.\.\.\)"):
        cross_val_score(QueryRanker(Ridge()), X, y, cv=KFold(4), params={"qid": qid})


def test_query_folds_do_not_warn_nor_does_scoring_the_training_data(data, routing):
    X, y, qid = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", SplitQueryWarning)
        results = cross_validate(
            QueryRanker(Ridge()), X, y, cv=QueryKFold(4), params={"qid": qid},
            scoring=make_rank_scorers(["ndcg@5", "map@5"]), return_train_score=True,
        )  # fmt: skip
    assert np.all(np.isfinite(results["train_ndcg@5"]))


@pytest.mark.parametrize("where", ["ranker", "pipeline", "search", "search in a search"])
def test_scorers_warn_for_a_ranker_in_a_pipeline_or_search(data, routing, where):
    X, y, qid = data
    ranker = QueryRanker(Ridge())
    search = GridSearchCV(ranker, {"estimator__alpha": [1.0]}, cv=QueryKFold(3))
    estimator = {
        "ranker": ranker,
        "pipeline": make_pipeline(StandardScaler(), ranker),
        "search": search,
        "search in a search": GridSearchCV(search, {"cv": [QueryKFold(3)]}, cv=QueryKFold(2)),
    }[where]
    train = np.isin(qid, np.unique(qid)[:12]) | (np.arange(len(qid)) % 2 == 0)
    estimator.fit(X[train], y[train], qid=qid[train])
    with pytest.warns(SplitQueryWarning):
        make_rank_scorer("ndcg@5")(estimator, X[~train], y[~train], qid=qid[~train])


def test_the_warning_can_be_switched_off(data, routing):
    X, y, qid = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", SplitQueryWarning)
        cross_val_score(
            QueryRanker(Ridge(), warn_split_queries=False), X, y, cv=KFold(4), params={"qid": qid}
        )


def test_other_data_with_the_training_ids_and_sizes_do_not_warn(data):
    X, y, qid = data
    ranker = QueryRanker(Ridge()).fit(X, y, qid=qid)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SplitQueryWarning)
        ranker.score(X + rng.normal(size=X.shape), y, qid=qid)  # same ids, same sizes
        # Ids of another kind (text, not numbers) are other queries, whatever their sizes.
        ranker.score(X[1:], y[1:], qid=qid[1:].astype(str))
        ranker.score(X[1:], y[1:], qid=qid[1:].astype(str).astype(object))
    shorter = qid != qid[0]
    shorter[np.flatnonzero(qid == qid[0])[0]] = True  # one row of the first query
    with pytest.warns(SplitQueryWarning):
        ranker.score(X[shorter], y[shorter], qid=qid[shorter])


def test_split_queries_inflate_the_score_on_the_bundled_data(routing):
    # The numbers the documentation quotes: KFold's split queries look better.
    X, y, qid = load_lambdarank_example(return_X_y=True)[:3]
    ranker = QueryRanker(lgbm_ranker().set_params(n_estimators=50, num_leaves=7))
    row_folds = KFold(5, shuffle=True, random_state=0)  # cuts nearly every query
    with pytest.warns(SplitQueryWarning):
        split = cross_val_score(ranker, X, y, cv=row_folds, params={"qid": qid}).mean()
    whole = cross_val_score(ranker, X, y, cv=QueryKFold(5), params={"qid": qid}).mean()
    assert split > whole + 0.02


def test_misspelt_metric_fails_at_fit_naming_the_closest(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="ndcg"):
        QueryRanker(Ridge(), metric="ndgc@10").fit(X, y, qid=qid)


# --------------------------------------------------------------------------
# RepeatedQueryKFold
# --------------------------------------------------------------------------


def test_repeated_query_kfold_folds(data):
    X, y, qid = data
    cv = RepeatedQueryKFold(n_splits=4, n_repeats=3, random_state=0)
    splits = list(cv.split(X, qid=qid))
    assert len(splits) == cv.get_n_splits() == 12
    repeats = []
    for repeat in range(3):
        tested = np.zeros(len(qid), dtype=int)
        folds = []
        for train, test in splits[4 * repeat : 4 * repeat + 4]:
            assert not np.intersect1d(qid[train], qid[test]).size  # whole queries
            assert len(train) + len(test) == len(qid)
            tested[test] += 1
            folds.append(frozenset(np.unique(qid[test]).tolist()))
        assert np.all(tested == 1)  # every row tested once per repeat
        repeats.append(frozenset(folds))
    assert len(set(repeats)) == 3  # the repeats differ
    again = list(RepeatedQueryKFold(n_splits=4, n_repeats=3, random_state=0).split(X, qid=qid))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))


def test_repeated_query_kfold_first_repeat_is_a_shuffled_query_kfold(data):
    X, y, qid = data
    repeated = list(RepeatedQueryKFold(4, n_repeats=2, random_state=3).split(X, qid=qid))[:4]
    single = list(QueryKFold(4, shuffle=True, random_state=3).split(X, qid=qid))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(repeated, single))


def test_repeated_query_kfold_in_cross_validate(data, routing):
    X, y, qid = data
    cv = RepeatedQueryKFold(n_splits=3, n_repeats=2, random_state=0)
    scores = cross_val_score(
        QueryRanker(Ridge()), X, y, cv=cv, params={"qid": qid}, scoring=make_rank_scorer("ndcg@5")
    )
    expected = [
        ndcg_score(y[test], Ridge().fit(X[train], y[train]).predict(X[test]), qid=qid[test], k=5)
        for train, test in cv.split(X, qid=qid)
    ]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(n_repeats=0), ValueError, "n_repeats=0"),
        (dict(n_repeats=1.5), TypeError, "n_repeats must be an int"),
        (dict(n_splits=1), ValueError, "n_splits=1"),
        (dict(n_splits=30), ValueError, "more than the 24 queries"),
    ],
)
def test_repeated_query_kfold_errors(data, params, error, match):
    X, y, qid = data
    with pytest.raises(error, match=match):
        list(RepeatedQueryKFold(**params).split(X, qid=qid))


# --------------------------------------------------------------------------
# cross_val_predict and nested cross-validation
# --------------------------------------------------------------------------


def test_cross_val_predict_gives_each_fold_models_predictions(data, routing):
    X, y, qid = data
    ranker = QueryRanker(lgbm_ranker())
    predictions = cross_val_predict(ranker, X, y, cv=QueryKFold(4), params={"qid": qid})
    expected = np.empty(len(y))
    for train, test in QueryKFold(4).split(X, qid=qid):
        expected[test] = clone(ranker).fit(X[train], y[train], qid=qid[train]).predict(X[test])
    np.testing.assert_array_equal(predictions, expected)


def test_nested_cross_validation(data, routing):
    X, y, qid = data
    inner = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [0.01, 100.0]},
        cv=QueryKFold(3),
        scoring=make_rank_scorers(["ndcg@5", "map@5"]),
        refit="ndcg@5",
    )
    outer = cross_validate(
        inner, X, y, cv=QueryKFold(3), params={"qid": qid},
        scoring=make_rank_scorer("ndcg@5"), return_estimator=True,
    )  # fmt: skip
    for fold, (train, test) in enumerate(QueryKFold(3).split(X, qid=qid)):
        by_hand = clone(inner).fit(X[train], y[train], qid=qid[train])
        assert outer["estimator"][fold].best_params_ == by_hand.best_params_
        expected = ndcg_score(y[test], by_hand.predict(X[test]), qid=qid[test], k=5)
        assert outer["test_score"][fold] == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------
# Routing off: GroupKFold with groups=qid
# --------------------------------------------------------------------------


def test_group_kfold_without_routing_works_with_a_qid_column(data):
    X, y, qid = data
    assert not sklearn.get_config()["enable_metadata_routing"]
    X_with_qid = np.column_stack([qid, X])
    search = GridSearchCV(
        QueryRanker(Ridge(), qid_column=0),
        {"estimator__alpha": [0.01, 100.0]},
        cv=GroupKFold(3),
        scoring=make_rank_scorers(["ndcg@5"], qid_column=0),
        refit="ndcg@5",
    ).fit(X_with_qid, y, groups=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GridSearchCV(
            QueryRanker(Ridge()),
            {"estimator__alpha": [0.01, 100.0]},
            cv=QueryKFold(3),
            scoring=make_rank_scorers(["ndcg@5"]),
            refit="ndcg@5",
        ).fit(X, y, qid=qid)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_ndcg@5"], routed.cv_results_["mean_test_ndcg@5"], rtol=1e-12
    )


def test_group_kfold_without_routing_or_column_fails_with_the_fix(data):
    X, y, qid = data

    def search(model, **options):
        return GridSearchCV(
            QueryRanker(model), {"estimator__random_state": [0, 1]}, cv=GroupKFold(3),
            scoring=make_rank_scorers(["ndcg@5"]), refit="ndcg@5", **options,
        )  # fmt: skip

    # A pointwise model fits without query ids; every fold's scoring fails,
    # and each warning carries the package's fix.
    with pytest.warns(UserWarning, match=r"(?s)Scoring failed.*qid_column"):
        search(Ridge(solver="sag")).fit(X, y, groups=qid)
    # A ranker cannot even fit: scikit-learn's error carries the fix.
    with pytest.raises(ValueError, match=r"(?s)All the 6 fits failed.*qid_column"):
        search(lgbm_ranker()).fit(X, y, groups=qid)
    # error_score="raise", as the documentation recommends: the first failure stops it.
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        search(Ridge(solver="sag"), error_score="raise").fit(X, y, groups=qid)
