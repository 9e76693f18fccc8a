"""Huge, subnormal and mixed ``sample_weight``: every mean is the exact weighted mean.

Weights are scaled by a power of two before they are added up (exact), so
1e308 weights do not overflow and subnormal ones keep their ratios. The
reference is the weighted mean in rational arithmetic (fractions.Fraction).
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest
import sklearn
from _distributed_data import (
    EXTREME_WEIGHT_METRICS,
    EXTREME_WEIGHTS,
    assert_exact_means,
    exact_weighted_means,
    extreme_weight_frame,
    in_memory,
)
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LinearRegression

from sklearn_rank_metrics import evaluate, make_rank_scorer
from sklearn_rank_metrics.comparison import compare_results
from sklearn_rank_metrics.metrics import dcg_score, mrr_score, ndcg_score

pytestmark = pytest.mark.parametrize("kind", list(EXTREME_WEIGHTS))


def _frame_and_expected(kind):
    frame = extreme_weight_frame(EXTREME_WEIGHTS[kind])
    return frame, exact_weighted_means(frame)


def _arrays(frame):
    return (frame["label"].to_numpy(), frame["score"].to_numpy(), frame["qid"].to_numpy(),
            frame["w"].to_numpy())  # fmt: skip


def test_metric_functions(kind):
    frame, expected = _frame_and_expected(kind)
    y_true, y_score, qid, weights = _arrays(frame)
    means = {
        "dcg@3": dcg_score(y_true, y_score, k=3, qid=qid, sample_weight=weights),
        "ndcg": ndcg_score(y_true, y_score, qid=qid, sample_weight=weights),
        "mrr": mrr_score(y_true, y_score, qid=qid, sample_weight=weights),
    }
    assert_exact_means(means, {name: expected[name] for name in means})


def test_evaluate_and_query_results_mean(kind):
    frame, expected = _frame_and_expected(kind)
    y_true, y_score, qid, weights = _arrays(frame)
    metrics = EXTREME_WEIGHT_METRICS
    means = evaluate(y_true, y_score, qid=qid, sample_weight=weights, metrics=metrics)
    assert_exact_means(means, expected)
    results = in_memory(frame, metrics=EXTREME_WEIGHT_METRICS, sample_weight="w")
    assert_exact_means(results.mean(), expected)
    # The weights are given back as given (no overflow for the pooled metric either).
    np.testing.assert_array_equal(results.weights("ndcg"), EXTREME_WEIGHTS[kind])


def test_sum_is_exact_or_an_error(kind):
    frame, _ = _frame_and_expected(kind)
    y_true, y_score, qid, weights = _arrays(frame)
    relevant = in_memory(frame, metrics=["num_rel"])["num_rel"]
    exact = sum(int(n) * Fraction(float(w))
                for n, w in zip(relevant, EXTREME_WEIGHTS[kind]))  # fmt: skip
    if exact > np.finfo(np.float64).max:
        with pytest.raises(ValueError, match="sample_weight"):
            evaluate(y_true, y_score, qid=qid, sample_weight=weights, metrics=["num_rel"])
    else:
        total = evaluate(y_true, y_score, qid=qid, sample_weight=weights, metrics=["num_rel"])
        assert total["num_rel"] == pytest.approx(float(exact), rel=1e-13, abs=0)


def test_scorer(kind):
    frame, expected = _frame_and_expected(kind)
    y_true, y_score, qid, weights = _arrays(frame)
    X = y_score.reshape(-1, 1)
    model = LinearRegression().fit(X, y_score)  # ranks as y_score does
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_rank_scorer("ndcg").set_score_request(sample_weight=True)
        score = scorer(model, X, y_true, qid=qid, sample_weight=weights)
    assert score == pytest.approx(expected["ndcg"], rel=1e-13, abs=0)


def test_compare_with_equal_extreme_weights(kind):
    # compare takes queries of equal weight: equal extreme weights are equal weights.
    frame, _ = _frame_and_expected(kind)
    weight = EXTREME_WEIGHTS[kind][0]
    frame = frame.assign(w=weight)
    other = frame.assign(score=frame["score"].to_numpy()[::-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        results = {name: in_memory(data, metrics=["ndcg", "mrr"], sample_weight="w")
                   for name, data in {"a": frame, "b": other}.items()}  # fmt: skip
        unweighted = {name: in_memory(data, metrics=["ndcg", "mrr"])
                      for name, data in {"a": frame, "b": other}.items()}  # fmt: skip
        weighted = compare_results(results, test="t", random_state=0).to_frame()
        reference = compare_results(unweighted, test="t", random_state=0).to_frame()
    assert weighted.equals(reference)
