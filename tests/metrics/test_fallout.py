"""fallout@k, the package's lower-is-better metric, through every door.

Its values under every tie mode are checked against the brute-force reference
by the tests parametrized from the definitions table (``tests/_cases.py``);
here: torchmetrics' RetrievalFallOut itself, where it installs, the judged
documents of a TREC run, curves, and a search that must pick the lowest value.
"""

import numpy as np
import pytest
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    RankingCurveDisplay,
    evaluate,
    make_rank_scorer,
    make_rank_scorers,
)
from sklearn_rank_metrics.datasets import make_ranking


def _case(seed, n_queries=30):
    """Tie-free scores, graded labels, some queries with no non-relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    rng.shuffle(qid)
    y_true = rng.integers(0, 4, qid.shape[0])
    y_true[qid % 7 == 3] = 3  # all relevant: no non-relevant document
    return y_true, rng.random(qid.shape[0]), qid


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 3, 5, 50, None])
@pytest.mark.parametrize("relevance_level", [1, 3])
def test_matches_torchmetrics_retrieval_fallout(seed, k, relevance_level):
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    y_true, y_score, qid = _case(seed)
    name = "fallout" if k is None else f"fallout@{k}"
    ours = evaluate(y_true, y_score, qid=qid, metrics=[name], relevance_level=relevance_level)
    metric = retrieval.RetrievalFallOut(top_k=k)  # empty_target_action="pos": 1 without any
    expected = metric(
        torch.tensor(y_score, dtype=torch.float64),
        torch.tensor(y_true >= relevance_level),
        indexes=torch.tensor(qid),
    )
    # torchmetrics divides in float32 (its `.float()`): its precision, 1e-7.
    assert ours[name] == pytest.approx(float(expected), rel=1e-6)


def test_query_without_non_relevant_document_scores_one_whatever_no_relevant():
    y_true, y_score, qid = [1, 2, 0, 1], [0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1]
    for no_relevant in ("zero", "one", "skip"):
        values = evaluate(
            y_true, y_score, qid=qid, metrics=["fallout@1"], no_relevant=no_relevant, average=None
        )["fallout@1"]
        np.testing.assert_array_equal(values, [1.0, 1.0])  # query 1: its one non-relevant on top


def test_run_counts_judged_non_relevant_documents_of_the_qrels():
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.trec import evaluate_run

    qrels = pd.DataFrame(
        [("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d3", 0), ("q1", "d4", 0), ("q1", "d5", -1),
         ("q2", "e1", 1)],
        columns=["query_id", "doc_id", "relevance"],
    )  # fmt: skip
    run = pd.DataFrame(
        [("q1", "d1", 5.0), ("q1", "d2", 4.0), ("q1", "d5", 3.0), ("q1", "x", 2.0),
         ("q1", "d3", 1.0), ("q2", "e1", 1.0), ("q2", "e2", 0.5)],
        columns=["query_id", "doc_id", "score"],
    )  # fmt: skip
    values = evaluate_run(qrels, run, metrics=["fallout@3", "fallout"], average=None)
    # q1: N = 3 judged non-relevant (d4 not retrieved); the unjudged d5 and x are neither.
    # q2: no judged non-relevant document (e2 is unjudged): 1.
    np.testing.assert_array_equal(values["fallout@3"], [1 / 3, 1.0])
    np.testing.assert_array_equal(values["fallout"], [2 / 3, 1.0])


@pytest.mark.parametrize("ties", ["average", "first"])
def test_curve_is_fallout_at_every_cutoff(ties):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(8), 6)
    y_true, y_score = rng.integers(0, 3, qid.shape[0]), rng.integers(0, 3, qid.shape[0])
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, metric="fallout", k_max=10, ties=ties
    )
    expected = [
        evaluate(y_true, y_score, qid=qid, metrics=[f"fallout@{k}"], ties=ties)[f"fallout@{k}"]
        for k in display.k_
    ]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12)
    assert display.values_[-1] == 1.0  # the whole lists: every non-relevant document


def test_grid_search_picks_the_lowest_fallout():
    import sklearn

    X, y, qid = make_ranking(n_queries=40, random_state=0, interleave=True)
    grid = {"estimator": [DummyRegressor(), Ridge()]}  # the dummy ties every document
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            QueryRanker(Ridge()), grid, cv=QueryKFold(4), scoring=make_rank_scorer("fallout@5")
        ).fit(X, y, qid=qid)
        multi = GridSearchCV(
            QueryRanker(Ridge()),
            grid,
            cv=QueryKFold(4),
            scoring=make_rank_scorers(["ndcg@5", "fallout@5"]),
            refit="neg_fallout@5",
        ).fit(X, y, qid=qid)
        by_score = GridSearchCV(
            QueryRanker(Ridge(), metric="fallout@5"), grid, cv=QueryKFold(4)
        ).fit(X, y, qid=qid)
    scores = search.cv_results_["mean_test_score"]
    assert (scores < 0).all() and scores[1] > scores[0]  # Ridge's fallout is the lower
    for fitted in (search, multi, by_score):
        assert isinstance(fitted.best_params_["estimator"], Ridge)
    assert multi.best_score_ == search.best_score_
    np.testing.assert_array_equal(multi.cv_results_["mean_test_neg_fallout@5"], scores)
