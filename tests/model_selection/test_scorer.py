"""Tests for make_rank_scorer and make_rank_scorers."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import cross_validate
from sklearn.tree import DecisionTreeRegressor

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    dcg_score,
    evaluate,
    hit_rate_score,
    make_rank_scorer,
    make_rank_scorers,
    map_score,
    mrr_score,
    ndcg_score,
    rank_correlation_score,
)
from sklearn_rank_metrics.datasets import make_ranking


@pytest.fixture(scope="module")
def data():
    return make_ranking(
        n_queries=20, docs_per_query=(3, 10), n_features=4, interleave=True, random_state=0
    )


@pytest.fixture(scope="module")
def ridge(data):
    X, y, _ = data
    return Ridge().fit(X, y)


# --------------------------------------------------------------------------
# Names, options and the numbers they give
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, metric, options",
    [
        ("ndcg@10", ndcg_score, {"k": 10}),
        ("ndcg", ndcg_score, {}),
        ("map@5", map_score, {"k": 5}),
        ("ap@5", map_score, {"k": 5}),
        ("mrr@3", mrr_score, {"k": 3}),
        ("hit_rate_item@3", hit_rate_score, {"k": 3, "level": "item"}),
        ("kendall", rank_correlation_score, {"method": "kendall"}),
    ],
)
def test_named_scorer_equals_metric_on_predictions(data, ridge, name, metric, options):
    X, y, qid = data
    scored = make_rank_scorer(name)(ridge, X, y, qid=qid)
    assert scored == metric(y, ridge.predict(X), qid=qid, **options)
    assert scored == evaluate(y, ridge.predict(X), qid=qid, metrics=[name])[name]


def test_metric_options_reach_the_metric(data, ridge):
    X, y, qid = data
    scorer = make_rank_scorer("ndcg@5", gain="exponential", ties="pessimistic")
    expected = ndcg_score(
        y, ridge.predict(X), qid=qid, k=5, gain="exponential", ties="pessimistic"
    )
    assert scorer(ridge, X, y, qid=qid) == expected
    assert make_rank_scorer("ndcg", k=5)(ridge, X, y, qid=qid) == make_rank_scorer("ndcg@5")(
        ridge, X, y, qid=qid
    )


@pytest.mark.parametrize("name, metric", [("ndcg@5", ndcg_score), ("map@5", map_score)])
def test_ties_first_reaches_the_metric_through_scorers(data, name, metric):
    X, y, qid = data
    tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)  # few distinct scores
    scores = tree.predict(X)
    first = metric(y, scores, qid=qid, k=5, ties="first")
    assert first != metric(y, scores, qid=qid, k=5, ties="average")  # the ties matter
    assert make_rank_scorer(name, ties="first")(tree, X, y, qid=qid) == first
    assert make_rank_scorers([name], ties="first")[name](tree, X, y, qid=qid) == first
    assert evaluate(y, scores, qid=qid, metrics=[name], ties="first")[name] == first


def test_metric_function_and_greater_is_better(data, ridge):
    X, y, qid = data
    gain = make_rank_scorer(map_score, k=3)
    loss = make_rank_scorer(map_score, k=3, greater_is_better=False)
    expected = map_score(y, ridge.predict(X), qid=qid, k=3)
    assert gain(ridge, X, y, qid=qid) == expected
    assert loss(ridge, X, y, qid=qid) == -expected


@pytest.mark.parametrize("greater_is_better", [None, False])
def test_lower_is_better_metric_scores_its_negated_value(data, ridge, greater_is_better):
    # scikit-learn's sign convention (neg_mean_squared_error): a search maximizes the score.
    X, y, qid = data
    scorer = make_rank_scorer("fallout@3", greater_is_better=greater_is_better)
    expected = evaluate(y, ridge.predict(X), qid=qid, metrics=["fallout@3"])["fallout@3"]
    assert expected > 0
    assert scorer(ridge, X, y, qid=qid) == -expected
    assert repr(scorer) == "make_rank_scorer('fallout@3', greater_is_better=False)"
    assert QueryRanker(Ridge(), metric="fallout@3").fit(X, y, qid=qid).score(X, y, qid=qid) == (
        -expected
    )


@pytest.mark.parametrize(
    "name, greater_is_better, match",
    [
        ("fallout@5", True, "greater_is_better=True for 'fallout@5': fallout is better when lower"),
        ("ndcg@5", False, "greater_is_better=False for 'ndcg@5': ndcg is better when higher"),
    ],
)
def test_contradicting_greater_is_better_names_the_metric_and_its_orientation(
    name, greater_is_better, match
):
    with pytest.raises(ValueError, match=match):
        make_rank_scorer(name, greater_is_better=greater_is_better)


def test_make_rank_scorers_prefixes_a_lower_is_better_metric_neg(data, ridge):
    X, y, qid = data
    scorers = make_rank_scorers(["ndcg@5", "fallout@5"])
    assert list(scorers) == ["ndcg@5", "neg_fallout@5"]
    expected = evaluate(y, ridge.predict(X), qid=qid, metrics=["fallout@5"])["fallout@5"]
    assert scorers["neg_fallout@5"](ridge, X, y, qid=qid) == -expected


def test_sample_weight_weighs_queries(data, ridge):
    X, y, qid = data
    weights = (qid % 3 + 1).astype(float)
    scorer = make_rank_scorer("ndcg@5")
    expected = ndcg_score(y, ridge.predict(X), qid=qid, k=5, sample_weight=weights)
    assert scorer(ridge, X, y, qid=qid, sample_weight=weights) == expected


def test_repr_shows_how_the_scorer_was_made():
    assert repr(make_rank_scorer("ndcg@10")) == "make_rank_scorer('ndcg@10')"
    assert (
        repr(make_rank_scorer(map_score, k=3, qid_column="qid", greater_is_better=False))
        == "make_rank_scorer(map_score, k=3, qid_column='qid', greater_is_better=False)"
    )


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (("ndcg@10",), {"k": 5}, ValueError, "k is already set by the name 'ndcg@10'"),
        (("hit_rate_item@3",), {"level": "query"}, ValueError, "level is already set"),
        (("ndcg@10",), {"qid": [1, 2]}, TypeError, "qid cannot be fixed in a scorer"),
        (("ndcg@10",), {"sample_weight": [1.0]}, TypeError, "sample_weight cannot be fixed"),
        (("ndcg@10",), {"relevance_level": 2}, TypeError, "unexpected option.*'relevance_level'"),
        (("ndcg@10",), {"average": None}, ValueError, "average must be 'mean'"),
        (("map@10",), {"greater_is_better": False}, ValueError, "map is better when higher"),
        (("nDCG@ten",), {}, ValueError, "cutoff in 'nDCG@ten' must be a positive int"),
        (("ndgc@10",), {}, ValueError, "Did you mean 'ndcg'"),
        ((3,), {}, TypeError, "metric must be a metric name such as 'ndcg@10'"),
        ((lambda y_true, y_score: 0.0,), {}, TypeError, "must accept qid="),
    ],
)
def test_invalid_arguments_name_the_problem(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        make_rank_scorer(*args, **kwargs)


# --------------------------------------------------------------------------
# Never one big query
# --------------------------------------------------------------------------


def test_missing_qid_raises_with_both_fixes(data, ridge):
    X, y, _ = data
    with pytest.raises(ValueError) as error:
        make_rank_scorer("ndcg@10")(ridge, X, y)
    message = str(error.value)
    assert "needs the query id of every row" in message
    assert "sklearn.set_config(enable_metadata_routing=True)" in message
    assert "fit(X, y, qid=qid)" in message
    assert "qid_column" in message


def test_missing_qid_with_routing_on_says_qid_did_not_arrive(data, ridge, routing):
    X, y, _ = data
    with pytest.raises(ValueError, match="routing is enabled, but qid did not arrive here"):
        make_rank_scorer("ndcg@10")(ridge, X, y)


def test_qid_of_wrong_length_is_an_error(data, ridge):
    X, y, qid = data
    with pytest.raises(ValueError, match="one query id per row of X"):
        make_rank_scorer("ndcg@10")(ridge, X, y, qid=qid[:-1])


def test_qid_and_qid_column_together_are_an_error(data, ridge):
    X, y, qid = data
    with pytest.raises(ValueError, match="got query ids twice"):
        make_rank_scorer("ndcg@10", qid_column=0)(ridge, X, y, qid=qid)


# --------------------------------------------------------------------------
# The query id as a column of X
# --------------------------------------------------------------------------


@pytest.mark.parametrize("container", ["array", "sparse", "frame_by_name", "frame_by_position"])
def test_qid_column_path(data, container):
    X, y, qid = data
    X_with_qid = np.column_stack([X[:, :2], qid, X[:, 2:]])  # qid at position 2
    qid_column = 2
    if container == "sparse":
        X_with_qid = sp.csr_matrix(X_with_qid)
    elif container.startswith("frame"):
        pd = pytest.importorskip("pandas")
        X_with_qid = pd.DataFrame(X_with_qid, columns=["a", "b", "query", "c", "d"])
        qid_column = "query" if container == "frame_by_name" else 2
    ranker = QueryRanker(Ridge(), qid_column=qid_column).fit(X_with_qid, y)
    assert ranker.estimator_.n_features_in_ == X.shape[1]  # the model never saw qid
    scorer = make_rank_scorer("ndcg@5", qid_column=qid_column)
    expected = make_rank_scorer("ndcg@5")(Ridge().fit(X, y), X, y, qid=qid)
    assert scorer(ranker, X_with_qid, y) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "qid_column, match",
    [(9, "out of range"), ("query", "X has no column names"), (1.5, "must be a column position")],
)
def test_bad_qid_column(data, ridge, qid_column, match):
    X, y, _ = data
    with pytest.raises((ValueError, TypeError), match=match):
        make_rank_scorer("ndcg@10", qid_column=qid_column)(ridge, X, y)


# --------------------------------------------------------------------------
# Metadata routing
# --------------------------------------------------------------------------


def test_scorer_requests_qid_by_default():
    request = make_rank_scorer("ndcg@10").get_metadata_routing()
    assert request.score.requests == {"qid": True, "sample_weight": None}


def test_set_score_request_changes_the_request(routing):
    scorer = make_rank_scorer("ndcg@10").set_score_request(sample_weight=True)
    assert scorer.get_metadata_routing().score.requests == {"qid": True, "sample_weight": True}
    scorer.set_score_request(qid="query_ids")
    assert scorer.get_metadata_routing().score.requests["qid"] == "query_ids"
    with pytest.raises(ValueError, match="alias"):
        scorer.set_score_request(qid="not an identifier")
    assert scorer.get_metadata_routing().score.requests == {
        "qid": "query_ids",
        "sample_weight": True,
    }


def test_set_score_request_needs_routing():
    with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
        make_rank_scorer("ndcg@10").set_score_request(qid=True)


def test_routed_sample_weight_and_qid_reach_each_fold(data, routing):
    X, y, qid = data
    weights = (qid % 3 + 1).astype(float)
    scorer = make_rank_scorer("ndcg@5").set_score_request(sample_weight=True)
    model = LinearRegression().set_fit_request(sample_weight=False)  # weights for scoring only
    results = cross_validate(
        model,
        X,
        y,
        cv=QueryKFold(3),
        scoring=scorer,
        params={"qid": qid, "sample_weight": weights},
        return_estimator=True,
        return_indices=True,
    )
    for fitted, test, score in zip(
        results["estimator"], results["indices"]["test"], results["test_score"]
    ):
        expected = ndcg_score(
            y[test], fitted.predict(X[test]), qid=qid[test], k=5, sample_weight=weights[test]
        )
        assert score == expected


def test_scorer_pickles(data, ridge):
    X, y, qid = data
    scorer = make_rank_scorer("ndcg@5", gain="exponential", qid_column=None)
    restored = pickle.loads(pickle.dumps(scorer))
    assert restored(ridge, X, y, qid=qid) == scorer(ridge, X, y, qid=qid)
    assert restored.get_metadata_routing().score.requests == {"qid": True, "sample_weight": None}


# --------------------------------------------------------------------------
# make_rank_scorers
# --------------------------------------------------------------------------


def test_make_rank_scorers_keeps_order_and_hands_options_to_those_that_take_them(data, ridge):
    X, y, qid = data
    scorers = make_rank_scorers(["ndcg@5", "map@5", "mrr"], gain="exponential", relevance_level=2)
    assert list(scorers) == ["ndcg@5", "map@5", "mrr"]
    y_score = ridge.predict(X)
    assert scorers["ndcg@5"](ridge, X, y, qid=qid) == ndcg_score(
        y, y_score, qid=qid, k=5, gain="exponential"
    )
    assert scorers["map@5"](ridge, X, y, qid=qid) == map_score(
        y, y_score, qid=qid, k=5, relevance_level=2
    )
    assert make_rank_scorers("ndcg@3").keys() == {"ndcg@3"}


@pytest.mark.parametrize(
    "metrics, kwargs, error, match",
    [
        ([], {}, ValueError, "metrics is empty"),
        (["ndcg@5", "ndcg@5"], {}, ValueError, "names a metric twice"),
        ([ndcg_score], {}, TypeError, "takes metric names"),
        (["ndcg@5"], {"k": 3}, TypeError, "give each metric its cutoff in its name"),
        (["ndcg@5", "map@5"], {"colour": "red"}, TypeError, "no metric of .* takes the option"),
    ],
)
def test_make_rank_scorers_errors(metrics, kwargs, error, match):
    with pytest.raises(error, match=match):
        make_rank_scorers(metrics, **kwargs)


@pytest.mark.parametrize(
    "metric, options, error, message",
    [
        ("ndcg@10", dict(ties="bogus"), ValueError, r"make_rank_scorer: ties='bogus' is not valid"),
        ("ndcg", dict(gain="exp"), ValueError, r"make_rank_scorer: gain='exp' is not valid"),
        ("map", dict(relevance_level=-1), ValueError, r"relevance_level=-1 is not valid"),
        ("mrr", dict(no_relevant="drop"), ValueError, r"no_relevant='drop' is not valid"),
        ("dcg", dict(no_relevant="one"), ValueError, r"not available for 'dcg'"),
        ("ndcg", dict(k=0), ValueError, r"make_rank_scorer: k=0 is not valid"),
        ("ndcg", dict(k=2.5), TypeError, r"make_rank_scorer: k=2.5 is not valid"),
        (map_score, dict(ties="bogus"), ValueError, r"map_score: ties='bogus' is not valid"),
        (map_score, dict(k=-3), ValueError, r"map_score: k=-3 is not valid"),
        (dcg_score, dict(no_relevant="one"), ValueError, r"not available for 'dcg_score'"),
        (
            ndcg_score,
            dict(ignore_ties=True, ties="first"),
            ValueError,
            r"ndcg_score: ignore_ties=True and ties='first'",
        ),
    ],
)
def test_options_are_checked_when_the_scorer_is_made(metric, options, error, message):
    # A grid search would otherwise fit every candidate, then score NaN with warnings.
    with pytest.raises(error, match=message):
        make_rank_scorer(metric, **options)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(ties="bogus"), r"make_rank_scorer: ties='bogus' is not valid"),
        (dict(gain="exp"), r"make_rank_scorer: gain='exp' is not valid"),
        (dict(no_relevant="one"), r"not available for 'dcg@5'"),
    ],
)
def test_options_are_checked_when_the_scorers_are_made(options, message):
    with pytest.raises(ValueError, match=message):
        make_rank_scorers(["ndcg@3", "dcg@5", "map@10"], **options)


def test_a_users_metric_function_keeps_its_own_options():
    def ndcg_score(y_true, y_score, *, qid, ties):  # not this package's ndcg_score
        return 0.0

    scorer = make_rank_scorer(ndcg_score, ties="anything")
    assert repr(scorer) == "make_rank_scorer(ndcg_score, ties='anything')"
