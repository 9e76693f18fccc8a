"""evaluate(): many metrics from one sort must equal the metric functions one by one."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _segments
from sklearn_rank_metrics._engine import _threads as _parallel

# name in evaluate -> (function, keyword arguments)
NAMED = {
    "ndcg@3": (srm.ndcg_score, {"k": 3}),
    "dcg@5": (srm.dcg_score, {"k": 5}),
    "cg@2": (srm.cg_score, {"k": 2}),
    "mrr@4": (srm.mrr_score, {"k": 4}),
    "map": (srm.map_score, {}),
    "ap@5": (srm.map_score, {"k": 5}),
    "precision@3": (srm.precision_at_k_score, {"k": 3}),
    "p@20": (srm.precision_at_k_score, {"k": 20}),
    "recall@2": (srm.recall_at_k_score, {"k": 2}),
    "f1@3": (srm.f1_at_k_score, {"k": 3}),
    "recall_cap@2": (srm.recall_cap_score, {"k": 2}),
    "hit_rate@2": (srm.hit_rate_score, {"k": 2}),
    "hit_rate_item@3": (srm.hit_rate_score, {"k": 3, "level": "item"}),
    "r_precision": (srm.r_precision_score, {}),
    "rc": (srm.rank_correlation_score, {}),
    "kendall": (srm.rank_correlation_score, {"method": "kendall"}),
}


def _data(seed, n=300, tied=True):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, 25, n)
    y_true = rng.integers(0, 4, n).astype(float)
    y_score = rng.integers(0, 5, n).astype(float) if tied else rng.random(n)
    return y_true, y_score, qid


def _assert_same(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic"])
@pytest.mark.parametrize("tied", [True, False])
def test_evaluate_equals_each_function(ties, tied):
    y_true, y_score, qid = _data(0, tied=tied)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        results = srm.evaluate(y_true, y_score, qid=qid, metrics=list(NAMED), ties=ties)
        per_query = srm.evaluate(
            y_true, y_score, qid=qid, metrics=list(NAMED), ties=ties, average=None
        )
        for name, (function, kwargs) in NAMED.items():
            expected = function(y_true, y_score, qid=qid, ties=ties, **kwargs)
            assert results[name] == pytest.approx(expected, rel=1e-12, abs=1e-12), name
            _assert_same(
                per_query[name], function(y_true, y_score, qid=qid, ties=ties, average=None, **kwargs)
            )
    np.testing.assert_array_equal(per_query["qid"], np.unique(qid))


@pytest.mark.parametrize("tied", [True, False])
def test_chunked_and_threaded_equals_one_pass(monkeypatch, tied):
    # Large inputs run in query chunks on two threads; force both on small data.
    y_true, y_score, qid = _data(1, n=2000, tied=tied)
    names = list(NAMED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        one_pass = srm.evaluate(y_true, y_score, qid=qid, metrics=names, average=None)
        monkeypatch.setattr(_segments, "CHUNK_ROWS", 37)
        monkeypatch.setattr(_parallel, "MIN_ROWS_FOR_THREADS", 0)
        chunked = srm.evaluate(y_true, y_score, qid=qid, metrics=names, average=None)
    for name in names:
        _assert_same(chunked[name], one_pass[name])


def test_evaluate_options_reach_every_metric():
    y_true, y_score, qid = _data(2)
    results = srm.evaluate(
        y_true, y_score, qid=qid, metrics=["ndcg@3", "recall@3"], gain="exponential",
        relevance_level=2, n_relevant={int(qid[0]): 40},
    )  # fmt: skip
    assert results["ndcg@3"] == pytest.approx(
        srm.ndcg_score(y_true, y_score, qid=qid, k=3, gain="exponential")
    )
    assert results["recall@3"] == pytest.approx(
        srm.recall_at_k_score(
            y_true, y_score, qid=qid, k=3, relevance_level=2, n_relevant={int(qid[0]): 40}
        )
    )


def test_evaluate_single_name_and_default_metrics():
    y_true, y_score, qid = _data(3, tied=False)
    assert set(srm.evaluate(y_true, y_score, qid=qid)) == {
        "ndcg@10", "map@100", "mrr@10", "recall@100"
    }  # fmt: skip
    assert list(srm.evaluate(y_true, y_score, qid=qid, metrics="mrr")) == ["mrr"]


@pytest.mark.parametrize(
    "name, match",
    [
        ("ndgc@10", "Did you mean 'ndcg'"),
        ("precission@5", "Did you mean 'precision'"),
        ("zzz", "Valid names: .*ndcg"),
        ("ndcg@0", "positive int"),
        ("ndcg@x", "positive int"),
        ("r_precision@5", "takes no @k"),
    ],
)
def test_unknown_or_malformed_names(name, match):
    with pytest.raises(ValueError, match=match):
        srm.evaluate([1, 0], [0.5, 0.2], metrics=[name])


def test_empty_metrics_and_unbounded_one():
    with pytest.raises(ValueError, match="metrics is empty"):
        srm.evaluate([1, 0], [0.5, 0.2], metrics=[])
    with pytest.raises(ValueError, match="no_relevant='one'.*'dcg@3'"):
        srm.evaluate([1, 0], [0.5, 0.2], metrics=["dcg@3"], no_relevant="one")
