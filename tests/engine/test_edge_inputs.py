"""Edge inputs: each gives the exact number or a clear error naming the argument, never a
slightly wrong number or an error from deep inside NumPy."""

import warnings
from fractions import Fraction

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from _cases import MEASURE_OPTIONS, NAMES, SCANNED
from sklearn_rank_metrics._engine.prepare._factorize import factorize_query_ids
from sklearn_rank_metrics._engine.spec import METRICS

# Every metric named without parameters, exact under ties="average" on any input.
ALL_METRICS = [
    f"{name}@3" if METRICS[name].takes_cutoff else name
    for name in NAMES
    if name not in MEASURE_OPTIONS and name not in SCANNED
]


def _evaluate(*args, **kwargs):
    return srm.evaluate(*args, metrics=ALL_METRICS, average=None, **kwargs)


# ------------------------------------------------------------ QueryResults
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_query_results_compare_by_ids_values_and_weights():
    y_true, y_score, qid = [1, 0, 0, 0, 2, 1], [0.3, 0.2, 0.1, 0.5, 0.4, 0.4], [1, 1, 2, 2, 3, 3]
    results = _evaluate(y_true, y_score, qid=qid, no_relevant="skip")  # query 2: no relevant
    same = _evaluate(list(y_true), np.array(y_score), qid=np.array(qid), no_relevant="skip")
    assert np.isnan(results["map@3"][1])  # NaN equal to NaN at the same place
    assert results == same and not results != same
    assert results != _evaluate(y_true, y_score, qid=qid)  # no query left out
    assert results != _evaluate(y_true, y_score, qid=[5, 5, 2, 2, 3, 3], no_relevant="zero")
    assert results != _evaluate(y_true, y_score, qid=["1", "1", "2", "2", "3", "3"])
    weighted = _evaluate(y_true, y_score, qid=qid, sample_weight=[1, 1, 1, 1, 2, 2])
    assert weighted != _evaluate(y_true, y_score, qid=qid)
    # equal weights, given or not, weigh the same
    assert _evaluate(y_true, y_score, qid=qid, sample_weight=[3] * 6) != weighted
    assert _evaluate(y_true, y_score, qid=qid, sample_weight=[1] * 6) == _evaluate(
        y_true, y_score, qid=qid
    )
    fewer = srm.evaluate(y_true, y_score, qid=qid, metrics=["ndcg@3"], average=None)
    assert fewer != _evaluate(y_true, y_score, qid=qid)
    assert results != dict(results) and results != 1


def test_query_results_arrays_are_read_only_and_their_own():
    sample_weight = np.array([1.0, 1.0, 2.0, 2.0])
    results = srm.evaluate(
        [1, 0, 0, 1], [0.3, 0.2, 0.1, 0.5], qid=[1, 1, 2, 2], sample_weight=sample_weight,
        metrics=["mrr"], average=None,
    )  # fmt: skip
    for array in (results.query_ids, results.query_weights, results["mrr"]):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 7
    sample_weight[:] = 5.0  # the caller's array stays writable and is not shared
    np.testing.assert_array_equal(results.query_weights, [1.0, 2.0])
    with pytest.raises(AttributeError):
        results.query_ids = np.array([3, 4])


@pytest.mark.parametrize(
    "key, attribute", [("qid", "query_ids"), ("sample_weight", "query_weights")]
)
def test_query_results_key_that_is_an_attribute(key, attribute):
    results = srm.evaluate([1, 0], [0.3, 0.2], metrics=["mrr"], average=None)
    with pytest.raises(KeyError, match=f"results.{attribute}"):
        results[key]


# ----------------------------------------------------------------- cutoffs
@pytest.mark.parametrize("k", [2**63, 2**70, np.uint64(2**64 - 1)])
def test_cutoff_beyond_int64(k):
    with pytest.raises(ValueError, match=r"k must be a positive int \(at most 2\*\*63 - 1\)"):
        srm.ndcg_score([1, 0], [0.3, 0.2], k=k)
    # the largest cutoff covers every list; precision still divides by it
    y_true, y_score, qid = [1, 0, 2, 0, 1], [0.5, 0.1, 0.3, 0.3, 0.9], [1, 1, 1, 2, 2]
    largest = 2**63 - 1
    assert srm.ndcg_score(y_true, y_score, qid=qid, k=largest) == srm.ndcg_score(
        y_true, y_score, qid=qid
    )
    np.testing.assert_array_equal(
        srm.precision_at_k_score(y_true, y_score, qid=qid, k=largest, average=None),
        np.array([2, 1]) / float(largest),
    )


@pytest.mark.parametrize(
    "cutoff", ["99999999999999999999", "9223372036854775808", "²", "٣", "9" * 5000]
)
def test_cutoff_in_a_metric_name(cutoff):
    with pytest.raises(ValueError, match="the cutoff in .* must be a positive int of ASCII digits"):
        srm.evaluate([1, 0], [0.3, 0.2], metrics=[f"ndcg@{cutoff}"])
    got = srm.evaluate([1, 0], [0.3, 0.2], metrics=["ndcg@9223372036854775807"])
    assert got == {"ndcg@9223372036854775807": 1.0}


# ----------------------------------------------------------------- threads
@pytest.mark.parametrize("value", ["²", "abc", "0", "-2", "1.5", "٣"])
def test_bad_thread_variable_is_an_error_naming_it(monkeypatch, value):
    monkeypatch.setenv("SKLEARN_RANK_METRICS_N_THREADS", value)
    with pytest.raises(ValueError, match="SKLEARN_RANK_METRICS_N_THREADS"):
        srm.ndcg_score([1, 0], [0.3, 0.2])  # small inputs too, not only threaded ones
    for good in ("", "-1", " 2 "):
        monkeypatch.setenv("SKLEARN_RANK_METRICS_N_THREADS", good)
        assert srm.ndcg_score([1, 0], [0.3, 0.2]) == 1.0


def test_an_omp_value_openmp_ignores_is_ignored(monkeypatch):
    from sklearn_rank_metrics._engine._threads import thread_limit

    monkeypatch.delenv("SKLEARN_RANK_METRICS_N_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert thread_limit() <= 2
    monkeypatch.setenv("OMP_NUM_THREADS", "²")
    assert thread_limit() >= 1


# ------------------------------------------------------ not array-likes
NOT_ARRAYS = [
    (None, "is None"),
    (3, "must be an array-like"),
    (np.float64(0.5), "must be an array-like"),
    ((x for x in [1, 0]), "is a generator"),
    (iter([1, 0]), "not an array"),
    ({1, 0}, "unordered set"),
    ({0: 1, 1: 0}, "mapping"),
    ("10", "is a string"),
]


@pytest.mark.parametrize(
    "argument, values, match",
    [
        (argument, values, match)
        for argument in ("y_true", "y_score", "qid", "sample_weight")
        for values, match in NOT_ARRAYS
        if values is not None or argument in ("y_true", "y_score")  # None: one query, equal weights
    ],
    ids=lambda value: repr(value)[:20],
)
def test_not_array_like(argument, values, match):
    arguments = {"y_true": [1, 0], "y_score": [0.3, 0.2], "qid": [1, 1], "sample_weight": [1, 1]}
    arguments[argument] = values
    with pytest.raises(TypeError, match=f"^{argument} .*{match}"):
        srm.ndcg_score(**arguments)


def test_qid_of_two_dimensions():
    for qid in ([[1, 1]], [[1, 1], [2, 2]], np.ones((4, 1)), [(1,), (1,), (2,), (2,)]):
        with pytest.raises(ValueError, match="qid must be 1-D"):
            srm.ndcg_score([1, 0, 1, 0], [0.3, 0.2, 0.1, 0.4], qid=qid)


def test_qid_dataframe_of_one_column():
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match="qid must be 1-D.*qid\\['name'\\]"):
        srm.ndcg_score([1, 0], [0.3, 0.2], qid=pd.DataFrame({"q": [1, 1]}))


# ------------------------------------------------------------ small floats
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_float16_and_float32_labels_and_scores_warn_nothing(dtype):
    rng = np.random.default_rng(0)
    y_true, y_score, qid = rng.integers(0, 4, 60) * 0.5, rng.random(60), rng.integers(0, 6, 60)
    expected = _evaluate(y_true, y_score.astype(dtype).astype(np.float64), qid=qid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _evaluate(y_true.astype(dtype), y_score.astype(dtype), qid=qid)
        assert srm.ndcg_score(np.array([65504.0, 0.0], dtype), np.array([1.0, 2.0], dtype)) > 0
    assert got == expected


# ---------------------------------------------------------- means overflow
@pytest.mark.parametrize("metric", ["dcg", "cg"])
@pytest.mark.parametrize("sample_weight", [None, [1.0, 1.0, 3.0, 3.0]])
def test_mean_overflowing_float64_is_an_error(metric, sample_weight):
    y_true, y_score, qid = [1e308, 1e308, 1e308, 0.0], [2.0, 1.0, 2.0, 1.0], [1, 1, 2, 2]
    function = getattr(srm, f"{metric}_score")
    if metric == "cg":  # one query's CG is finite only with one document
        y_true, y_score, qid = [1.5e308, 1.5e308], [1.0, 2.0], [1, 2]
        sample_weight = None if sample_weight is None else [1.0, 3.0]
    per_query = function(y_true, y_score, qid=qid, average=None, sample_weight=sample_weight)
    assert np.isfinite(per_query).all()  # each query is fine ...
    if sample_weight is not None:
        # ... and so is their weighted mean, exactly: the weights are scaled to sum
        # to about 1 before they multiply the values.
        weights = [Fraction(w) for w in sample_weight[:: len(sample_weight) // 2]]
        exact = sum(Fraction(float(v)) * w for v, w in zip(per_query, weights)) / sum(weights)
        mean = function(y_true, y_score, qid=qid, sample_weight=sample_weight)
        assert mean == pytest.approx(float(exact), rel=1e-15)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=f"the mean of {metric}_score overflows float64"):
            function(y_true, y_score, qid=qid, sample_weight=sample_weight)  # ... their mean not
    results = srm.evaluate(y_true, y_score, qid=qid, metrics=[metric], average=None)
    assert repr(results) == f"QueryResults(2 queries: {metric} mean overflows)"


# ------------------------------------------------------ exact big numbers
LONGDOUBLE_IS_WIDER = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="long double is float64 on this platform")
def test_long_double_scores_are_ranked_exactly():
    rng = np.random.default_rng(1)
    order = rng.permutation(40)
    y_true, qid = rng.integers(0, 3, 40), np.repeat([1, 2, 3, 4], 10)
    # distinct long doubles that all round to 1.0 in float64
    y_score = np.longdouble(1) + order * np.finfo(np.longdouble).eps
    assert np.unique(y_score.astype(np.float64)).shape[0] == 1
    assert _evaluate(y_true, y_score, qid=qid) == _evaluate(y_true, order, qid=qid)
    # scores float64 holds exactly take the float64 path
    exact = order.astype(np.longdouble)
    assert _evaluate(y_true, exact, qid=qid) == _evaluate(y_true, order, qid=qid)


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="long double is float64 on this platform")
def test_long_double_labels_float64_cannot_hold():
    labels = np.array([1, 0], dtype=np.longdouble) - np.finfo(np.longdouble).eps
    with pytest.raises(ValueError, match="y_true holds values that float64"):
        srm.map_score(labels, [0.3, 0.2])
    exact = np.array([2.5, 0.0], dtype=np.longdouble)
    assert srm.ndcg_score(exact, [0.2, 0.3]) == srm.ndcg_score([2.5, 0.0], [0.2, 0.3])


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="long double is float64 on this platform")
def test_long_double_query_ids_stay_apart():
    qid = np.longdouble(1) + np.array([0, 1, 0]) * np.finfo(np.longdouble).eps
    codes, uniques = factorize_query_ids(qid)
    np.testing.assert_array_equal(codes, [0, 1, 0])
    assert uniques.dtype == np.longdouble and uniques.shape == (2,)


BIG = 2**63  # NumPy makes a list mixing this with negatives (or small ints) float64


@pytest.mark.parametrize(
    "y_score",
    [
        [BIG + 1, BIG, -1, BIG + 1024, 0],
        [BIG + 1, BIG, 1, BIG + 1024, 0],  # uint64 holds these
        [2**64 + 1, 2**64, -1, 2**64 + 1024, 0],  # no integer dtype does
        [2**60 + 1, 2**60, 0.5, 2**60 + 1024, 0.25],  # ints and floats
    ],
)
def test_large_integer_scores_are_ranked_exactly(y_score):
    y_true = [0, 1, 2, 0, 1]
    ranks = [sorted(y_score).index(score) for score in y_score]
    assert _evaluate(y_true, y_score) == _evaluate(y_true, ranks)
    assert _evaluate(y_true, np.array(y_score, dtype=object)) == _evaluate(y_true, ranks)


@pytest.mark.parametrize(
    "qid, ids",
    [
        ([BIG + 1, BIG, BIG + 1, 5], [5, BIG, BIG + 1]),  # uint64 holds them
        ([BIG + 1, BIG, BIG + 1, -5], [-5, BIG, BIG + 1]),  # no integer dtype does
        ([2**60 + 1, 2**60, 2**60 + 1, 0.5], [0.5, 2**60, 2**60 + 1]),  # ints and floats
    ],
)
def test_large_integer_query_ids_stay_apart(qid, ids):
    y_true, y_score = [1, 0, 1, 0], [0.3, 0.2, 0.1, 0.4]
    expected = [0.0, 0.0, 1.0]
    for given in (qid, np.array(qid, dtype=object)):
        results = srm.evaluate(y_true, y_score, qid=given, metrics=["mrr"], average=None)
        assert results.query_ids.tolist() == ids
        np.testing.assert_array_equal(results["mrr"], expected)
        got = srm.map_score(y_true, y_score, qid=given, n_relevant={ids[2]: 4})
        assert got == pytest.approx((0 + 0 + (1 / 1 + 2 / 2) / 4) / 3)


def test_large_integer_labels_are_exact_or_raise():
    y_score = [0.1, 0.3, 0.2]
    exact = srm.evaluate([BIG + 1, BIG, 0], y_score, metrics=["cg@1"])
    assert exact == {"cg@1": float(BIG)}
    with pytest.raises(ValueError, match="y_true holds values that float64"):
        srm.ndcg_score([2**64 + 1, 2**64, 0], y_score)


def test_integers_beyond_float64_range():
    for y_true, y_score in (([10**400, 0], [0.2, 0.1]), ([1, 0], [10**400, 1])):
        name = "y_true" if len(str(y_true[0])) > 1 else "y_score"
        with pytest.raises(ValueError, match=f"{name} holds integers beyond the range of float64"):
            srm.ndcg_score(y_true, y_score)


@pytest.mark.parametrize("total", [2**63, 2**64 + 1, 1e300])
def test_n_relevant_beyond_int64(total):
    with pytest.raises(ValueError, match=r"n_relevant values must be counts from 0 to 2\*\*63 - 1"):
        srm.map_score([1, 0], [0.3, 0.2], qid=[1, 1], n_relevant={1: total})


# -------------------------------------------------- pandas index alignment
def _shuffled_frame(pd):
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame({"qid": np.repeat(np.arange(6), 10), "label": rng.integers(0, 3, n)})
    frame["score"] = frame["label"] + rng.random(n)  # a good model: ranks by label
    return frame.sample(frac=1.0, random_state=1)  # shuffled rows, index kept


def test_pandas_arguments_with_different_indexes_are_matched_by_position():
    pd = pytest.importorskip("pandas")
    frame = _shuffled_frame(pd)
    y_true = frame["label"]
    y_score = frame["score"].sort_index()  # the same scores, in another row order
    qid = frame["qid"].to_numpy()
    positional = srm.ndcg_score(y_true.to_numpy(), y_score.to_numpy(), qid=qid)
    by_label = srm.ndcg_score(y_true.to_numpy(), frame["score"].to_numpy(), qid=qid)
    assert by_label > 0.9 and positional < 0.8
    fixes = r"y_score has an index .*\.reindex\(y_true\.index\).*\.to_numpy\(\)"
    with pytest.warns(UserWarning, match=fixes):
        got = srm.ndcg_score(y_true, y_score, qid=qid)
    assert got == positional


def test_pandas_qid_and_weights_with_different_indexes_warn():
    pd = pytest.importorskip("pandas")
    frame = _shuffled_frame(pd)
    y_true, y_score = frame["label"], frame["score"]
    weight = pd.Series(1.0, index=frame.index)
    with pytest.warns(UserWarning, match="qid and sample_weight have indexes"):
        srm.ndcg_score(
            y_true, y_score, qid=frame["qid"].reset_index(drop=True),
            sample_weight=weight.reset_index(drop=True),
        )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the same index (or arrays beside a Series): nothing to warn about
        srm.ndcg_score(y_true, y_score, qid=frame["qid"], sample_weight=weight)
        srm.ndcg_score(y_true, y_score.to_numpy(), qid=frame["qid"])
        srm.ndcg_score(y_true.reset_index(drop=True), y_score.reset_index(drop=True).to_list())
