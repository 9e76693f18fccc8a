"""scikit-learn's tools beyond the searches: each keeps queries whole, or fails loudly.

The tools that subsample rows (halving searches, learning curves) get a
resource counted in whole queries, ``QueryRanker(max_queries=...)``; the
tools that select or permute columns (RFE, RFECV, SelectFromModel,
SequentialFeatureSelector, permutation importance) get one importance per
column of X and a query id column that is checked to hold query ids. Each
test backs a row of the table in docs/model_selection.md.
"""

import functools
import inspect
import warnings

import numpy as np
import pytest
import sklearn
from _boosters import lgbm_ranker
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.feature_selection import RFE, RFECV, SelectFromModel, SequentialFeatureSelector
from sklearn.inspection import permutation_importance
from sklearn.linear_model import Ridge, RidgeClassifierCV, RidgeCV
from sklearn.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    HalvingRandomSearchCV,
    KFold,
    cross_val_score,
    learning_curve,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils import check_random_state

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    SplitQueryWarning,
    make_rank_scorer,
    ndcg_score,
)
from sklearn_rank_metrics.datasets import make_ranking
from sklearn_rank_metrics.model_selection import _split_queries

ROUTING_MESSAGE = "metadata routing"


def takes_routed_params(function):
    """Whether this scikit-learn release routes metadata through ``function``."""
    parameters = inspect.signature(function).parameters.values()
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


needs_routing_in = {
    tool.__name__: pytest.mark.skipif(
        not takes_routed_params(tool.fit),
        reason=f"{tool.__name__} routes metadata from scikit-learn 1.6 on",
    )
    for tool in (RFECV, SequentialFeatureSelector)
}


# Every fit of GroupRecordingRidge, clones included: (query id, rows) of each
# query it was given. Tests clear it first and run with n_jobs=1.
FITS = []


class GroupRecordingRidge(Ridge):
    """A ranker-like Ridge: takes the query sizes as ``group`` and records them.

    Column 0 of X holds each row's query id as a feature, so the record
    names the queries.
    """

    def fit(self, X, y, group=None, sample_weight=None):
        starts = np.r_[0, np.cumsum(group)[:-1]]
        FITS.append({int(X[start, 0]): int(size) for start, size in zip(starts, group)})
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.fixture
def fits():
    FITS.clear()
    yield FITS
    FITS.clear()


@pytest.fixture(scope="module")
def data():
    """Interleaved queries; column 0 of X is the query id, as a feature."""
    X, y, qid = make_ranking(
        n_queries=30, docs_per_query=(3, 10), n_features=3, interleave=True, random_state=0
    )
    return np.column_stack([qid, X]), y, qid


@pytest.fixture(scope="module")
def sorted_data():
    """Queries stored one after another, so QueryRanker's sort keeps the row order."""
    return make_ranking(n_queries=30, n_features=5, random_state=0)


def query_sizes(qid):
    return dict(zip(*(values.tolist() for values in np.unique(qid, return_counts=True))))


def all_whole(fits, qid):
    sizes = query_sizes(qid)
    return all(sizes[query] == size for fit in fits for query, size in fit.items())


# --------------------------------------------------------------------------
# max_queries: a training resource counted in whole queries
# --------------------------------------------------------------------------


def test_max_queries_draws_whole_queries_by_the_documented_rule(data, fits):
    X, y, qid = data
    weights = np.random.default_rng(0).uniform(1, 2, size=len(y))
    ranker = QueryRanker(GroupRecordingRidge(), max_queries=7, random_state=3)
    ranker.fit(X, y, qid=qid, sample_weight=weights)
    # The rule: queries numbered in sorted id order, drawn by choice(...).
    ids = np.unique(qid)
    drawn = ids[np.sort(check_random_state(3).choice(len(ids), 7, replace=False))]
    assert fits == [{query: query_sizes(qid)[query] for query in drawn.tolist()}]
    rows = np.flatnonzero(np.isin(qid, drawn))
    rows = rows[np.argsort(qid[rows], kind="stable")]
    reference = Ridge().fit(X[rows], y[rows], sample_weight=weights[rows])
    np.testing.assert_allclose(ranker.estimator_.coef_, reference.coef_, rtol=1e-10)
    # The draw does not depend on the order of the rows.
    order = np.random.default_rng(1).permutation(len(y))
    QueryRanker(GroupRecordingRidge(), max_queries=7, random_state=3).fit(
        X[order], y[order], qid=qid[order]
    )
    assert fits[1] == fits[0]
    # As many queries as there are, or more: all of them.
    QueryRanker(GroupRecordingRidge(), max_queries=30).fit(X, y, qid=qid)
    assert fits[2] == query_sizes(qid)


def test_max_queries_leaves_evaluation_sets_whole(sorted_data):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, qid = sorted_data
    train, valid = qid < 20, qid >= 20
    ranker = QueryRanker(lgbm_ranker(), max_queries=6, random_state=0)
    ranker.fit(X[train], y[train], qid=qid[train], eval_set=[(X[valid], y[valid])],
               eval_qid=[qid[valid]])  # fmt: skip
    drawn = np.unique(qid[train])[np.sort(check_random_state(0).choice(20, 6, replace=False))]
    rows = np.isin(qid, drawn)
    if "eval_X" in inspect.signature(lightgbm.LGBMRanker.fit).parameters:  # LightGBM >= 4.7
        evaluation = {"eval_X": (X[valid],), "eval_y": (y[valid],)}
    else:
        evaluation = {"eval_set": [(X[valid], y[valid])]}
    reference = lgbm_ranker().fit(
        X[rows], y[rows], group=np.unique(qid[rows], return_counts=True)[1],
        eval_group=[np.unique(qid[valid], return_counts=True)[1]], **evaluation,
    )  # fmt: skip
    assert ranker.evals_result_ == reference.evals_result_
    np.testing.assert_array_equal(ranker.predict(X), reference.predict(X))


@pytest.mark.parametrize(
    "max_queries, error, match",
    [(0, ValueError, "max_queries=0"), (2.5, TypeError, "int"), (True, TypeError, "int")],
)
def test_bad_max_queries(data, max_queries, error, match):
    X, y, qid = data
    with pytest.raises(error, match=match):
        QueryRanker(Ridge(), max_queries=max_queries).fit(X, y, qid=qid)


def test_max_queries_needs_the_query_ids_even_for_a_pointwise_model(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="qid"):
        QueryRanker(Ridge(), max_queries=5).fit(X, y)


@pytest.mark.parametrize("search", [HalvingGridSearchCV, HalvingRandomSearchCV])
def test_halving_search_on_max_queries_keeps_queries_whole(data, fits, routing, search):
    X, y, qid = data
    grid = {"estimator__alpha": [0.1, 1.0, 10.0, 100.0]}
    extra = {"n_candidates": 4} if search is HalvingRandomSearchCV else {}
    by_queries = search(
        QueryRanker(GroupRecordingRidge(), random_state=0), grid, cv=QueryKFold(3),
        resource="max_queries", min_resources=7, max_resources=30, factor=2, random_state=0,
        **extra,
    ).fit(X, y, qid=qid)  # fmt: skip
    assert by_queries.n_resources_ == [7, 14, 28]
    assert [len(fit) for fit in fits[:12]] == [7] * 12  # each fit: its resource in queries
    assert all_whole(fits, qid)
    # The default resource, rows, cuts queries in every fit on a subsample.
    fits.clear()
    search(QueryRanker(GroupRecordingRidge()), grid, cv=QueryKFold(3), factor=2,
           random_state=0, **extra).fit(X, y, qid=qid)  # fmt: skip
    assert not all_whole(fits[:12], qid)


def test_validation_curve_on_max_queries_keeps_queries_whole(data, fits):
    X, y, qid = data
    # The query id column path works on every release (validation_curve routes
    # metadata from scikit-learn 1.6 on).
    ranker = QueryRanker(GroupRecordingRidge(), qid_column=0, random_state=0)
    X_with_qid = np.column_stack([qid, X])
    train_scores, test_scores = validation_curve(
        ranker, X_with_qid, y, param_name="max_queries", param_range=[5, 10, 20],
        cv=QueryKFold(3, qid_column=0),
    )  # fmt: skip
    assert [len(fit) for fit in fits] == [5, 10, 20] * 3
    assert all_whole(fits, qid)
    # The scores are QueryRanker.score, NDCG@10, on the test fold's queries.
    train, test = next(QueryKFold(3).split(X, qid=qid))
    fitted = QueryRanker(Ridge(), max_queries=5, random_state=0)
    fitted.fit(X[train], y[train], qid=qid[train])
    expected = ndcg_score(y[test], fitted.predict(X[test]), qid=qid[test], k=10)
    assert test_scores[0, 0] == pytest.approx(expected, rel=1e-12)
    assert train_scores.shape == test_scores.shape == (3, 3)
    # learning_curve's training sizes, in rows, cut queries.
    fits.clear()
    learning_curve(ranker, X_with_qid, y, train_sizes=[0.3, 0.6, 1.0],
                   cv=QueryKFold(3, qid_column=0))  # fmt: skip
    assert not all_whole(fits, qid)
    assert all_whole(fits[2::3], qid)  # only the full training folds are whole


# --------------------------------------------------------------------------
# feature_importances_ and the query id column
# --------------------------------------------------------------------------


def test_feature_importances_have_one_entry_per_column_of_X(sorted_data):
    pd = pytest.importorskip("pandas")
    X, y, qid = sorted_data
    names = [f"f{i}" for i in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=names)
    frame.insert(2, "qid", qid)
    ranker = QueryRanker(lgbm_ranker(), qid_column="qid").fit(frame, y)
    reference = lgbm_ranker().fit(X, y, group=np.unique(qid, return_counts=True)[1])
    assert ranker.feature_importances_.shape == (X.shape[1] + 1,)
    assert list(ranker.feature_names_in_) == ["f0", "f1", "qid", "f2", "f3", "f4"]
    by_name = dict(zip(ranker.feature_names_in_, ranker.feature_importances_))
    assert by_name == {"qid": 0, **dict(zip(names, reference.feature_importances_))}


@pytest.mark.parametrize("qid_column", [None, 0])
def test_importances_that_cannot_line_up_with_X_are_absent(sorted_data, qid_column):
    X, y, qid = sorted_data
    model = make_pipeline(PolynomialFeatures(2), DecisionTreeRegressor(random_state=0))
    if qid_column is None:
        ranker = QueryRanker(model).fit(X, y, qid=qid)
    else:
        ranker = QueryRanker(model, qid_column=0).fit(np.column_stack([qid, X]), y)
    assert len(ranker.estimator_[-1].feature_importances_) == 21  # 1 + 5 + 15 products
    assert not hasattr(ranker, "feature_importances_")
    with pytest.raises(AttributeError, match="do not line up with the columns of X"):
        ranker.feature_importances_


@pytest.mark.parametrize(
    "column, problem",
    [("feature", "non-integral values"), ("row number", "a different value in each of its")],
)
def test_a_column_that_cannot_hold_query_ids_is_an_error_naming_routing(
    sorted_data, column, problem
):
    X, y, _ = sorted_data
    ids = X[:, 0] if column == "feature" else np.arange(len(y)) * 10.0
    X_with_ids = np.column_stack([ids, X])
    for step in (
        lambda: QueryRanker(Ridge(), qid_column=0).fit(X_with_ids, y),
        lambda: next(QueryKFold(3, qid_column=0).split(X_with_ids)),
        lambda: make_rank_scorer("ndcg@5", qid_column=0)(Ridge().fit(X, y), X_with_ids, y),
    ):
        with pytest.raises(ValueError, match=f"(?s){problem}.*{ROUTING_MESSAGE}"):
            step()


# --------------------------------------------------------------------------
# Feature selectors
# --------------------------------------------------------------------------


def tree():
    return DecisionTreeRegressor(max_depth=3, random_state=0)


def test_rfe_selects_as_on_the_model_alone_and_refuses_a_query_column(sorted_data):
    X, y, qid = sorted_data
    expected = RFE(tree(), n_features_to_select=3).fit(X, y).support_
    # Query ids passed to fit: scikit-learn hands them to QueryRanker.fit
    # (routed from scikit-learn 1.6 on, as fit parameters before).
    selected = RFE(QueryRanker(tree()), n_features_to_select=3).fit(X, y, qid=qid).support_
    np.testing.assert_array_equal(selected, expected)
    if takes_routed_params(RFECV.fit):
        with sklearn.config_context(enable_metadata_routing=True):
            routed = RFE(QueryRanker(tree()), n_features_to_select=3).fit(X, y, qid=qid)
        np.testing.assert_array_equal(routed.support_, expected)
    # With a query id column: its importance is 0, RFE drops it first, and the
    # next fit finds a feature where the query ids were.
    with pytest.raises(ValueError, match=f"(?s)non-integral.*{ROUTING_MESSAGE}"):
        RFE(QueryRanker(tree(), qid_column=0), n_features_to_select=3).fit(
            np.column_stack([qid, X]), y
        )


@needs_routing_in["RFECV"]
def test_rfecv_selects_as_on_the_model_alone_and_refuses_a_query_column(sorted_data, routing):
    X, y, qid = sorted_data
    scorer = make_rank_scorer("ndcg@5")
    expected = RFECV(tree(), cv=QueryKFold(3), scoring=scorer).fit(X, y, qid=qid)
    selected = RFECV(QueryRanker(tree()), cv=QueryKFold(3), scoring=scorer).fit(X, y, qid=qid)
    np.testing.assert_array_equal(selected.support_, expected.support_)
    np.testing.assert_array_equal(
        selected.cv_results_["mean_test_score"], expected.cv_results_["mean_test_score"]
    )
    with pytest.raises(ValueError, match=f"(?s)non-integral.*{ROUTING_MESSAGE}"):
        RFECV(
            QueryRanker(tree(), qid_column=0), cv=QueryKFold(3, qid_column=0),
            scoring=make_rank_scorer("ndcg@5", qid_column=0),
        ).fit(np.column_stack([qid, X]), y)  # fmt: skip


def test_select_from_model_counts_the_columns_of_X(sorted_data):
    X, y, qid = sorted_data
    expected = SelectFromModel(tree(), threshold=0.05).fit(X, y).get_support()
    X_with_qid = np.column_stack([X[:, :2], qid, X[:, 2:]])
    selector = SelectFromModel(QueryRanker(tree(), qid_column=2), threshold=0.05)
    selected = selector.fit(X_with_qid, y).get_support()
    np.testing.assert_array_equal(selected, np.insert(expected, 2, False))
    np.testing.assert_array_equal(selector.transform(X_with_qid), X[:, expected])
    # With the query ids passed to fit, the mean threshold is the model's own.
    expected_mean = SelectFromModel(tree()).fit(X, y).get_support()
    for routing in (False, True):
        with sklearn.config_context(enable_metadata_routing=routing):
            selected = SelectFromModel(QueryRanker(tree())).fit(X, y, qid=qid).get_support()
        np.testing.assert_array_equal(selected, expected_mean)


@needs_routing_in["SequentialFeatureSelector"]
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_sequential_selection_selects_as_on_the_model_alone_and_refuses_a_query_column(
    sorted_data, routing, direction
):
    X, y, qid = sorted_data
    scorer = make_rank_scorer("ndcg@5")

    def selector(estimator, scoring, cv):
        return SequentialFeatureSelector(
            estimator, n_features_to_select=2, direction=direction, cv=cv, scoring=scoring
        )

    expected = selector(tree(), scorer, QueryKFold(3)).fit(X, y, qid=qid).get_support()
    selected = selector(QueryRanker(tree()), scorer, QueryKFold(3)).fit(X, y, qid=qid)
    np.testing.assert_array_equal(selected.get_support(), expected)
    # With a query id column, a candidate without it reads a feature as query
    # ids (backward), and one with nothing else leaves no feature (forward):
    # an error naming routing, or every fit of the candidate failing with it.
    by_column = selector(
        QueryRanker(tree(), qid_column=0),
        make_rank_scorer("ndcg@5", qid_column=0),
        QueryKFold(3, qid_column=0),
    )
    problem = "non-integral" if direction == "backward" else "no column besides the query id"
    with pytest.raises(ValueError, match=f"(?s){problem}.*{ROUTING_MESSAGE}"):
        by_column.fit(np.column_stack([qid, X]), y)


# --------------------------------------------------------------------------
# Permutation importance
# --------------------------------------------------------------------------


def test_permutation_importance_with_a_fixed_qid_scorer(sorted_data):
    X, y, qid = sorted_data
    X_with_qid = np.column_stack([qid, X])
    ranker = QueryRanker(tree(), qid_column=0).fit(X_with_qid, y)
    fixed = functools.partial(make_rank_scorer("ndcg@5"), qid=qid)
    result = permutation_importance(ranker, X_with_qid, y, scoring=fixed, random_state=0)
    # The query column is no feature: permuting it changes nothing, and both
    # importances give it 0, column by column of X.
    np.testing.assert_array_equal(result.importances[0], 0.0)
    assert ranker.feature_importances_.shape == result.importances_mean.shape
    assert ranker.feature_importances_[0] == 0
    # The features: as for the model without the column (the same permutations).
    plain = permutation_importance(
        QueryRanker(tree()).fit(X, y, qid=qid), X, y, scoring=fixed, random_state=0
    )
    np.testing.assert_array_equal(result.importances[1:], plain.importances)
    assert (plain.importances_mean > 0).any()
    # The scorer reading the column instead scores the permuted column's
    # queries: the query column's "importance" is the damage of scrambling them.
    by_column = permutation_importance(
        ranker, X_with_qid, y, scoring=make_rank_scorer("ndcg@5", qid_column=0), random_state=0
    )
    np.testing.assert_array_equal(by_column.importances[1:], plain.importances)
    assert by_column.importances_mean[0] > 0.01
    # Subsampled rows no longer match the fixed query ids: an error.
    with pytest.raises(ValueError, match="one query id per row"):
        permutation_importance(ranker, X_with_qid, y, scoring=fixed, max_samples=0.5)


# --------------------------------------------------------------------------
# Splitters, the split-query warning, booster habits, leave-one-out
# --------------------------------------------------------------------------


def test_query_kfold_takes_groups_under_routing(data, routing):
    X, y, qid = data
    grid = {"estimator__alpha": [1.0, 10.0]}
    expected = GridSearchCV(QueryRanker(Ridge()), grid, cv=QueryKFold(3)).fit(X, y, qid=qid)
    # scikit-optimize's BayesSearchCV passes groups=None to fit.
    search = GridSearchCV(QueryRanker(Ridge()), grid, cv=QueryKFold(3))
    search.fit(X, y, qid=qid, groups=None)
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_score"], expected.cv_results_["mean_test_score"]
    )
    folds = list(QueryKFold(3).split(X, groups=qid))
    assert [test.tolist() for _, test in folds] == [
        test.tolist() for _, test in QueryKFold(3).split(X, qid=qid)
    ]


def test_split_query_warning_once_per_search_at_the_callers_line(data, routing, monkeypatch):
    X, y, qid = data
    monkeypatch.setattr(_split_queries, "_WARNED_AT", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default", SplitQueryWarning)
        line = inspect.currentframe().f_lineno + 1
        cross_val_score(QueryRanker(Ridge()), X, y, cv=KFold(20), params={"qid": qid})
        search = GridSearchCV(QueryRanker(Ridge()), {"estimator__alpha": [1.0, 2.0]}, cv=KFold(10))
        search.fit(X, y, qid=qid)
    split = [w for w in caught if issubclass(w.category, SplitQueryWarning)]
    assert [(w.filename, w.lineno) for w in split] == [(__file__, line), (__file__, line + 2)]
    # Under an "always" filter, every time.
    with pytest.warns(SplitQueryWarning) as caught:
        cross_val_score(QueryRanker(Ridge()), X, y, cv=KFold(5), params={"qid": qid})
    assert len(caught) == 5


@pytest.mark.parametrize(
    "argument, fix",
    [
        ("categorical_feature", r"fit_params=\{'categorical_feature': \.\.\.\}"),
        ("callbacks", r"fit_params=\{'callbacks'"),
        ("eval_group", "eval_set and eval_qid"),
        ("group", "Pass qid"),
    ],
)
def test_booster_fit_arguments_given_to_fit_name_the_fix(data, argument, fix):
    X, y, qid = data
    with pytest.raises(TypeError, match=fix):
        QueryRanker(Ridge()).fit(X, y, qid=qid, **{argument: [0]})


@pytest.mark.parametrize("model", [RidgeCV, RidgeClassifierCV])
def test_leave_one_out_of_ridge_cv_is_refused_and_query_folds_tune(data, model):
    X, y, qid = data
    labels = y if model is RidgeCV else (y > 0).astype(int)
    with pytest.raises(ValueError, match=r"(?s)leave-one-out.*QueryKFold"):
        model(scoring=make_rank_scorer("ndcg@5", qid_column=0)).fit(X, labels)
    if model is RidgeClassifierCV or not takes_routed_params(model.fit):
        return  # RidgeCV routes qid to its folds from scikit-learn 1.5 on
    # With query folds: the choice of a grid search over the same alphas.
    scorer, alphas = make_rank_scorer("ndcg@5"), [0.1, 10.0, 1000.0]
    with sklearn.config_context(enable_metadata_routing=True):
        tuned = model(alphas=alphas, cv=QueryKFold(3), scoring=scorer).fit(X, labels, qid=qid)
        grid = GridSearchCV(Ridge(), {"alpha": alphas}, cv=QueryKFold(3), scoring=scorer)
        grid.fit(X, labels, qid=qid)
    assert tuned.alpha_ == grid.best_params_["alpha"]
    assert tuned.best_score_ == pytest.approx(grid.best_score_, rel=1e-12)

