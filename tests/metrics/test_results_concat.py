"""QueryResults.concat: results of disjoint queries combine into those of one evaluation."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import QueryResults, evaluate

METRICS = ["ndcg@3", "map", "mrr", "hit_rate_item@2", "kendall"]


def _data(seed=0, n_queries=40, string_ids=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    if string_ids:
        qid = np.array([f"q{q}" for q in qid])
    y_true = rng.integers(0, 3, size=qid.size) * (rng.random(qid.size) < 0.6)
    y_score = rng.integers(0, 4, size=qid.size).astype(float)  # many ties
    weight_of = dict(zip(np.unique(qid).tolist(), rng.random(n_queries) + 0.5))
    weights = np.array([weight_of[q] for q in qid.tolist()])
    return y_true, y_score, qid, weights


def _evaluate(y_true, y_score, qid, weights, rows, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return evaluate(
            y_true[rows], y_score[rows], qid=qid[rows],
            sample_weight=None if weights is None else weights[rows],
            metrics=METRICS, average=None, **options,
        )  # fmt: skip


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("no_relevant", ["skip", "zero"])
def test_concat_of_disjoint_parts_equals_one_evaluation(string_ids, weighted, no_relevant):
    y_true, y_score, qid, weights = _data(string_ids=string_ids)
    weights = weights if weighted else None
    whole = _evaluate(y_true, y_score, qid, weights, slice(None), no_relevant=no_relevant)
    # three parts of whole queries, rows shuffled, parts given out of order
    ids = np.unique(qid)
    part_of = dict(zip(ids.tolist(), np.random.default_rng(1).integers(0, 3, ids.size)))
    part = np.array([part_of[q] for q in qid.tolist()])
    parts = [
        _evaluate(y_true, y_score, qid, weights, np.flatnonzero(part == p)[::-1],
                  no_relevant=no_relevant)
        for p in (2, 0, 1)
    ]  # fmt: skip
    combined = QueryResults.concat(parts)
    np.testing.assert_array_equal(combined.query_ids, whole.query_ids)
    assert combined.metrics == whole.metrics
    if weighted:
        np.testing.assert_array_equal(combined.query_weights, whole.query_weights)
    else:
        assert combined.query_weights is None
    for name in METRICS:
        np.testing.assert_array_equal(combined[name], whole[name])
        np.testing.assert_array_equal(combined.weights(name), whole.weights(name))
        np.testing.assert_array_equal(combined.skipped(name), whole.skipped(name))
        mask, reason = combined.undefined(name)
        np.testing.assert_array_equal(mask, whole.undefined(name)[0])
        assert reason == whole.undefined(name)[1]
    assert combined.mean() == pytest.approx(whole.mean(), rel=1e-12, abs=0)
    if no_relevant == "skip":
        assert combined.skipped("map").sum() == whole.skipped("map").sum() > 0


def test_concat_refuses_overlapping_queries():
    y_true, y_score, qid, _ = _data()
    first = _evaluate(y_true, y_score, qid, None, qid <= 52)
    second = _evaluate(y_true, y_score, qid, None, qid >= 52)
    with pytest.raises(ValueError, match=r"1 query id\(s\) occur in more than one.*52"):
        QueryResults.concat([first, second])


def test_concat_refuses_different_metrics_and_id_kinds():
    first = evaluate([1, 0], [0.2, 0.1], qid=[1, 1], metrics=["mrr", "map"], average=None)
    second = evaluate([1, 0], [0.2, 0.1], qid=[2, 2], metrics=["map", "mrr"], average=None)
    with pytest.raises(ValueError, match=r"same metrics.*\['mrr', 'map'\].*\['map', 'mrr'\]"):
        QueryResults.concat([first, second])
    text = evaluate([1, 0], [0.2, 0.1], qid=["x", "x"], metrics=["mrr", "map"], average=None)
    with pytest.raises(ValueError, match="different kinds"):
        QueryResults.concat([first, text])
    with pytest.raises(ValueError, match="at least one"):
        QueryResults.concat([])


def test_concat_keeps_weights_of_weighted_parts_only():
    weighted = evaluate([1, 0], [0.2, 0.1], qid=[1, 1], sample_weight=[3.0, 3.0],
                        metrics=["mrr"], average=None)  # fmt: skip
    plain = evaluate([0, 1], [0.2, 0.1], qid=[2, 2], metrics=["mrr"], average=None)
    combined = QueryResults.concat([plain, weighted])
    np.testing.assert_array_equal(combined.query_weights, [3.0, 1.0])
    assert combined.mean("mrr") == pytest.approx((3 * 1.0 + 1 * 0.5) / 4, rel=1e-15)
