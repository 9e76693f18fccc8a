"""evaluate() and QueryResults: many metrics from one sort equal the metric functions one by one."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _cases import MEASURE_OPTIONS, NAMES, SCANNED, WHOLE_LIST, function_of, interleaving
from sklearn_rank_metrics._engine import _threads
from sklearn_rank_metrics._engine.run import _run

# Every registered name (but those that need a measure parameter), with a cutoff where it
# takes one, plus a few aliases.
NAMED = {(name if name in WHOLE_LIST else f"{name}@3"): (name, {} if name in WHOLE_LIST else {"k": 3})
         for name in NAMES if name not in MEASURE_OPTIONS}  # fmt: skip
NAMED.update({"ap@5": ("map", {"k": 5}), "p@20": ("precision", {"k": 20}), "map": ("map", {})})


def _data(seed, n=300, tied=True):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, 25, n)
    y_true = rng.integers(0, 4, n).astype(float)
    y_score = rng.integers(0, 5, n).astype(float) if tied else rng.random(n)
    return y_true, y_score, qid


def _assert_same(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
@pytest.mark.parametrize("tied", [True, False])
def test_evaluate_equals_each_function(ties, tied):
    y_true, y_score, qid = _data(0, tied=tied)
    # Measures without a closed form under ties raise for ties="average" on tied scores.
    named = {name: call for name, call in NAMED.items()
             if not (tied and ties == "average" and call[0] in SCANNED)}  # fmt: skip
    names = list(named)
    means = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, ties=ties)
    results = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, ties=ties, average=None)
    assert list(means) == names and list(results) == names
    for name, (metric, kwargs) in named.items():
        function = function_of(metric)
        expected = _quiet(function, y_true, y_score, qid=qid, ties=ties, **kwargs)
        assert means[name] == pytest.approx(expected, rel=1e-12, abs=1e-12), name
        per_query = _quiet(function, y_true, y_score, qid=qid, ties=ties, average=None, **kwargs)
        _assert_same(results[name], per_query)
    np.testing.assert_array_equal(results.query_ids, np.unique(qid))
    assert _quiet(results.mean) == means


def test_the_mean_of_results_is_the_mean_of_evaluate_with_weights_and_pooling():
    y_true, y_score, qid = _data(4)
    weights = (qid % 4).astype(float)  # some queries weigh 0
    names = ["hit_rate_item@4", "ndcg@3", "kendall"]
    means = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, sample_weight=weights)
    results = _quiet(
        srm.evaluate, y_true, y_score, qid=qid, metrics=names, sample_weight=weights, average=None
    )
    np.testing.assert_array_equal(results.query_weights, np.arange(25) % 4)
    for name in names:
        values, query_weights = results[name], results.weights(name)
        defined = ~np.isnan(values)
        assert means[name] == pytest.approx(
            np.sum(values[defined] * query_weights[defined]) / np.sum(query_weights[defined])
        )
    # item hit rate pools its items: the weight is the query weight times min(k, n_q)
    sizes = np.bincount(qid)
    np.testing.assert_allclose(results.weights("hit_rate_item@4"), (np.arange(25) % 4) * np.minimum(4, sizes))


def test_results_say_which_queries_were_left_out_and_why():
    y_true = [1, 0, 0, 0, 2, 1, 1]
    y_score = [3, 2, 1, 5, 4, 3, 9]
    qid = ["a", "a", "b", "b", "c", "c", "d"]  # b: no relevant document; d: one document
    with pytest.warns(UndefinedMetricWarning) as caught:
        results = srm.evaluate(
            y_true, y_score, qid=qid, metrics=["map", "kendall"], no_relevant="skip", average=None
        )
    assert {str(w.message).split(":")[0] for w in caught} == {"map", "kendall"}
    np.testing.assert_array_equal(results.skipped("map"), [False, True, False, False])
    mask, reason = results.undefined("kendall")
    np.testing.assert_array_equal(mask, [False, True, False, True])  # b: constant labels
    assert "single document" in reason
    assert np.isnan(results["map"][1]) and results.weights("map")[1] == 0
    assert repr(results) == (
        "QueryResults(4 queries: map mean 1, kendall mean 1, 1 query left out of map, "
        "2 queries left out of kendall)"
    )


def test_results_are_a_read_only_mapping_and_a_frame():
    pd = pytest.importorskip("pandas")
    y_true, y_score, qid = _data(5)
    qid = np.array([f"q{q:02d}" for q in qid])
    results = srm.evaluate(y_true, y_score, qid=qid, metrics=["ndcg@3", "mrr"], average=None)
    assert dict(results).keys() == {"ndcg@3", "mrr"} and len(results) == 2
    with pytest.raises(ValueError):
        results["mrr"][0] = 2.0
    with pytest.raises(KeyError, match="ndcg@3"):
        results["ndcg@5"]
    wide = results.to_frame()
    assert list(wide.columns) == ["ndcg@3", "mrr"] and wide.index.name == "qid"
    np.testing.assert_array_equal(wide.index, np.unique(qid))
    np.testing.assert_array_equal(wide["mrr"], results["mrr"])
    long = results.to_frame(long=True)
    assert list(long.columns) == ["qid", "metric", "value"] and len(long) == 2 * results.n_queries
    pivoted = long.pivot(index="qid", columns="metric", values="value")[["ndcg@3", "mrr"]]
    pd.testing.assert_frame_equal(pivoted, wide, check_names=False)


def test_results_pair_up_across_models_by_query_id():
    """Two models on the same queries give results aligned query by query."""
    y_true, y_score, qid = _data(6)
    other = np.random.default_rng(1).random(y_score.shape[0])
    a = srm.evaluate(y_true, y_score, qid=qid, metrics=["ndcg@3"], average=None)
    b = srm.evaluate(y_true[::-1], other[::-1], qid=qid[::-1], metrics=["ndcg@3"], average=None)
    np.testing.assert_array_equal(a.query_ids, b.query_ids)
    np.testing.assert_allclose(
        b["ndcg@3"], srm.ndcg_score(y_true, other, qid=qid, k=3, average=None), rtol=1e-12
    )


@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("n_threads", [1, 3])
def test_chunked_and_threaded_equals_one_pass(monkeypatch, tied, n_threads):
    """Large inputs run in chunks of queries on several threads; force both on small data."""
    y_true, y_score, qid = _data(1, n=2000, tied=tied)
    names = [name for name, (metric, _) in NAMED.items() if not (tied and metric in SCANNED)]
    one_pass = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, average=None)
    monkeypatch.setattr(_run, "chunk_rows", lambda n_documents, n_threads: 37)
    monkeypatch.setattr(_threads, "MIN_ROWS_FOR_THREADS", 0)
    with srm.config_context(n_threads=n_threads):
        chunked = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, average=None)
    for name in names:
        _assert_same(chunked[name], one_pass[name])


def test_evaluate_options_reach_every_metric():
    y_true, y_score, qid = _data(2)
    results = srm.evaluate(
        y_true, y_score, qid=qid, metrics=["dcg@3", "recall@3"], gain="exponential",
        relevance_level=2, n_relevant={int(qid[0]): 40},
    )  # fmt: skip
    assert results["dcg@3"] == pytest.approx(
        srm.dcg_score(y_true, y_score, qid=qid, k=3, gain="exponential")
    )
    assert results["recall@3"] == pytest.approx(
        srm.recall_at_k_score(
            y_true, y_score, qid=qid, k=3, relevance_level=2, n_relevant={int(qid[0]): 40}
        )
    )


def test_evaluate_single_name_and_default_metrics():
    y_true, y_score, qid = _data(3, tied=False)
    assert list(srm.evaluate(y_true, y_score, qid=qid)) == [
        "ndcg@10", "map@100", "mrr@10", "recall@100"
    ]  # fmt: skip
    assert list(srm.evaluate(y_true, y_score, qid=qid, metrics="mrr")) == ["mrr"]


@pytest.mark.parametrize(
    "metrics, match",
    [
        (["ndgc@10"], "Did you mean 'ndcg'"),
        (["precission@5"], "Did you mean 'precision'"),
        (["zzz"], "Valid names: .*ndcg"),
        (["ndcg@0"], "positive int"),
        (["ndcg@x"], "positive int"),
        (["r_precision@5"], "takes no @k"),
        ([], "metrics is empty"),
        (["map@5", "ndcg", "map@5"], "'map@5' more than once"),
    ],
)
def test_unknown_malformed_or_repeated_names(metrics, match):
    with pytest.raises(ValueError, match=match):
        srm.evaluate([1, 0], [0.5, 0.2], metrics=metrics)


def test_unbounded_metrics_refuse_no_relevant_one():
    with pytest.raises(ValueError, match="no_relevant='one'.*'dcg@3'"):
        srm.evaluate([1, 0], [0.5, 0.2], metrics=["ndcg", "dcg@3"], no_relevant="one")


# ------------------------------------ a query's values are its own, bit for bit
def _subjects():
    """Queries whose values are checked: without ties, with ties, graded, fractional."""
    rng = np.random.default_rng(7)
    subjects = []
    for index in range(6):
        n = int(rng.integers(20, 300))
        labels = rng.integers(0, 4, n) + (0.5 if index == 4 else 0.0)
        scores = rng.integers(0, 4, n).astype(float) if index % 2 else rng.random(n)
        labels[0] = 2  # a relevant document in every query
        subjects.append((f"s{index}", labels, scores))
    return subjects


def _companions(seed, n_queries):
    """Other queries of a call: tied scores, other label values, long lists."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 200, n_queries)
    n = int(sizes.sum())
    qid = np.repeat([f"c{q}" for q in range(n_queries)], sizes)
    labels = rng.choice([0.0, 1.0, 2.0, 3.0, 7.25, 40.0], n)
    return qid, labels, rng.integers(0, 3, n).astype(float)


def _per_query(y_true, y_score, qid, names, **options):
    results = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, average=None, **options)
    ids = list(results.query_ids)
    return {name: dict(zip(ids, results[name].tolist())) for name in names}


def _same_bits(a, b):
    return a == b or (np.isnan(a) and np.isnan(b))


BITWISE_NAMES = [
    name
    for name in (
        *[f"{name}@{k}" for name in NAMES if name not in WHOLE_LIST for k in (1, 3, 10)],
        *[name for name in NAMES if name not in WHOLE_LIST],
        *WHOLE_LIST,
    )
    # (ERR's grades stop at its max_grade, 4 by default: these labels go up to 40.)
    if name.split("@")[0] not in (*MEASURE_OPTIONS, "err")
]


@pytest.mark.parametrize("ties", ["average", "pessimistic", "first"])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_a_query_value_does_not_depend_on_threads_chunks_or_other_queries(monkeypatch, ties, gain):
    """Per-query values are bitwise those of the query alone, whatever else the call holds."""
    # Under ties="average", measures without a closed form raise on tied scores.
    names = [n for n in BITWISE_NAMES if ties != "average" or n.split("@")[0] not in SCANNED]
    alone = {}
    for query, labels, scores in _subjects():
        alone[query] = _per_query(labels, scores, [query] * len(labels), names, ties=ties, gain=gain)
    monkeypatch.setattr(_threads, "MIN_ROWS_FOR_THREADS", 0)
    checked = 0
    for seed, n_companions in enumerate([1, 5, 40]):
        qid, y_true, y_score = _companions(seed, n_companions)
        for query, labels, scores in _subjects():
            qid = np.r_[qid, [query] * len(labels)]
            y_true, y_score = np.r_[y_true, labels], np.r_[y_score, scores]
        # Queries interleaved; each query's rows in their order (which "first" follows).
        order = interleaving(qid, np.random.default_rng(seed))
        qid, y_true, y_score = qid[order], y_true[order], y_score[order]
        for chunk_rows in (None, 1, 37):
            if chunk_rows is not None:
                monkeypatch.setattr(_run, "chunk_rows", lambda n, threads, rows=chunk_rows: rows)
            for n_threads in (1, 3):
                with srm.config_context(n_threads=n_threads):
                    got = _per_query(y_true, y_score, qid, names, ties=ties, gain=gain)
                for query in alone:
                    for name in names:
                        assert _same_bits(got[name][query], alone[query][name][query]), (
                            name, query, seed, chunk_rows, n_threads
                        )
                        checked += 1
    assert checked == 3 * 3 * 2 * 6 * len(names)


def test_ndcg_of_a_query_is_its_own_beside_a_query_of_huge_gains(monkeypatch):
    """A companion whose gains need scaling leaves the other queries' NDCG bit for bit."""
    names = ["ndcg@3", "ndcg"]
    huge_labels, huge_scores = np.array([1100.0, 0.0, 3.0]), np.array([0.1, 0.3, 0.2])
    for query, labels, scores in _subjects():
        alone = _per_query(labels, scores, [query] * len(labels), names, gain="exponential")
        qid = np.r_[["big"] * 3, [query] * len(labels)]
        y_true, y_score = np.r_[huge_labels, labels], np.r_[huge_scores, scores]
        beside = _per_query(y_true, y_score, qid, names, gain="exponential")
        for name in names:
            assert beside[name][query] == alone[name][query], (name, query)


def test_the_documented_case_of_a_tie_free_query_beside_a_tied_one():
    y_true, y_score = [3, 2, 3, 0, 1, 2], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    alone = srm.ndcg_score(y_true, y_score, average=None)[0]
    beside = srm.ndcg_score(
        y_true + [1, 0], y_score + [1.0, 1.0], qid=[1] * 6 + [2, 2], average=None
    )[0]
    assert beside == alone
