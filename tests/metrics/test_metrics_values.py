"""Metric values against independent brute-force references (tests/_reference.py).

Every case is small and tie-heavy (scores drawn from {0, 1, 2}, graded labels
0..3, at most 7 documents a query) so that ``ties="average"`` can be checked
against an explicit enumeration of every ordering of the tied documents.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _cases import MEASURE_OPTIONS, SCANNED
from _cases import BINARY, NAMES, UNBOUNDED, VARIANT_IDS, VARIANTS, WHOLE_LIST, WITH_NO_RELEVANT, function_of
from _cases import IDEAL_OF_BINARY_ONLY, _through_evaluate
from _reference import random_case, rc_literal, rc_pairs, reference

TIES = ["average", "optimistic", "pessimistic", "first"]
NO_RELEVANT_VARIANTS = [v for v in VARIANTS if v[1] in WITH_NO_RELEVANT]
NO_RELEVANT_IDS = [v[0] for v in NO_RELEVANT_VARIANTS]
KS = [None, 1, 3, 10]  # 10 is longer than every list here

TOL = dict(rel=1e-9, abs=1e-12, nan_ok=True)


def approx(expected):
    if np.ndim(expected) == 0:
        return pytest.approx(expected, **TOL)
    return pytest.approx(np.asarray(expected, dtype=float), **TOL)


def levels_for(metric):
    return [1, 2] if metric in BINARY else [None]


def call_both(metric, y_true, y_score, **kwargs):
    """(package value, reference value), UndefinedMetricWarning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        try:
            got = function_of(metric)(y_true, y_score, **kwargs)
        except ValueError as error:
            # No closed form under ties: an error naming the exact tie modes, never a guess.
            assert metric in SCANNED and kwargs.get("ties", "average") == "average", error
            assert "ties='first'" in str(error)
            kwargs = dict(kwargs, ties="pessimistic")  # then check a tie mode that is exact
            got = function_of(metric)(y_true, y_score, **kwargs)
        expected = reference(metric, y_true, y_score, **kwargs, **MEASURE_OPTIONS.get(metric, {}))
    return got, expected


def option_grid(metric, extra):
    """Keyword arguments to try: every cutoff (none for whole-list metrics) and level."""
    for k in [None] if metric in WHOLE_LIST else KS:
        for level in levels_for(metric):
            kwargs = dict(extra) if metric in WHOLE_LIST else dict(extra, k=k)
            if level is not None:
                kwargs["relevance_level"] = level
            yield kwargs


# ------------------------------------------------------------ flat, random
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_flat_random_matches_bruteforce(name, metric, extra, ties, seed):
    y_true, y_score, qid = random_case(seed)
    for i, kwargs in enumerate(option_grid(metric, extra)):
        for average in (None, "mean") if i == 0 else (None,):
            got, expected = call_both(
                metric, y_true, y_score, qid=qid, ties=ties, average=average, **kwargs
            )
            assert got == approx(expected), (kwargs, average)


@pytest.mark.parametrize("seed", range(100, 102))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_flat_fractional_grades_float_scores(name, metric, extra, ties, seed):
    """Fractional grades (allowed) and float scores with ties."""
    y_true, y_score, qid = random_case(
        seed, label_values=(0, 0.5, 1, 1.5, 2.5), score_values=(-0.5, 0.25, 3.75)
    )
    for kwargs in option_grid(metric, extra):
        got, expected = call_both(
            metric, y_true, y_score, qid=qid, ties=ties, average=None, **kwargs
        )
        assert got == approx(expected), kwargs


@pytest.mark.parametrize("seed", range(200, 204))
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_flat_binary_labels_many_ties(name, metric, extra, seed):
    y_true, y_score, qid = random_case(seed, label_values=(0, 1), score_values=(0, 1))
    for kwargs in option_grid(metric, extra):
        got, expected = call_both(metric, y_true, y_score, qid=qid, average=None, **kwargs)
        assert got == approx(expected), kwargs


@pytest.mark.parametrize("seed", range(300, 302))
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_flat_distinct_scores(name, metric, extra, seed):
    """No ties at all: every ties mode gives the plain deterministic value."""
    y_true, y_score, qid = random_case(seed)
    y_score = [s + i * 1e-3 for i, s in enumerate(y_score)]  # break every tie
    for kwargs in option_grid(metric, extra):
        values = []
        for ties in TIES:
            got, expected = call_both(
                metric, y_true, y_score, qid=qid, ties=ties, average=None, **kwargs
            )
            assert got == approx(expected), (ties, kwargs)
            values.append(got)
        assert values[0] == approx(values[1])
        assert values[0] == approx(values[2])


@pytest.mark.parametrize("seed", range(400, 402))
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_one_query_without_qid(name, metric, extra, seed):
    y_true, y_score, _ = random_case(seed, max_queries=1)
    for kwargs in option_grid(metric, extra):
        got, expected = call_both(metric, y_true, y_score, average=None, **kwargs)
        assert got.shape == (1,)
        assert got == approx(expected), kwargs
        got, expected = call_both(metric, y_true, y_score, **kwargs)
        assert got == approx(expected), kwargs


# -------------------------------------------------------------- 2-D, random
def random_2d(seed, n_rows=None, n_cols=None, label_values=(0, 0, 1, 2, 3)):
    rng = np.random.default_rng(seed)
    n_rows = n_rows or int(rng.integers(1, 5))
    n_cols = n_cols or int(rng.integers(1, 8))
    y_true = rng.choice(label_values, size=(n_rows, n_cols)).astype(float)
    if n_rows > 1:
        y_true[0] = 0.0  # a query without relevant documents
    y_score = rng.choice([0.0, 1.0, 2.0], size=(n_rows, n_cols))
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], size=n_rows)
    weights[-1] = 1.0
    return y_true, y_score, weights


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_2d_random_matches_bruteforce(name, metric, extra, ties, seed):
    y_true, y_score, weights = random_2d(seed)
    for i, kwargs in enumerate(option_grid(metric, extra)):
        got, expected = call_both(metric, y_true, y_score, ties=ties, average=None, **kwargs)
        assert got.shape == (y_true.shape[0],)
        assert got == approx(expected), kwargs
        for sample_weight in (None, weights) if i < 2 else ():
            got, expected = call_both(
                metric, y_true, y_score, ties=ties, sample_weight=sample_weight, **kwargs
            )
            assert got == approx(expected), (kwargs, sample_weight)


# ------------------------------------------------------------- no_relevant
@pytest.mark.parametrize("no_relevant", ["zero", "skip", "one"])
@pytest.mark.parametrize("name, metric, extra", NO_RELEVANT_VARIANTS, ids=NO_RELEVANT_IDS)
def test_no_relevant_modes(name, metric, extra, no_relevant):
    if no_relevant == "one" and metric in UNBOUNDED:
        pytest.skip("no_relevant='one' is an error for DCG and CG (test_metrics_errors)")
    # query 1 and "x" have relevant documents; 2 has none (labels 0).
    y_true = [2, 0, 0, 0, 1, 0, 3, 1]
    y_score = [1, 1, 2, 0, 0, 1, 1, 2]
    qid = [1, 1, 2, 2, 1, 2, 3, 3]
    for kwargs in option_grid(metric, extra):
        got, expected = call_both(
            metric, y_true, y_score, qid=qid, no_relevant=no_relevant, average=None, **kwargs
        )
        assert got == approx(expected), kwargs
        if no_relevant == "skip":
            assert np.isnan(got[1]) and not np.isnan(got[[0, 2]]).any()
        else:
            assert got[1] == {"zero": 0.0, "one": 1.0}[no_relevant]
        got, expected = call_both(
            metric, y_true, y_score, qid=qid, no_relevant=no_relevant, **kwargs
        )
        assert got == approx(expected), kwargs


@pytest.mark.parametrize("name, metric, extra", NO_RELEVANT_VARIANTS, ids=NO_RELEVANT_IDS)
def test_skip_warns_with_count(name, metric, extra):
    y_true = [[0, 0, 0], [1, 0, 2], [0, 0, 0]]
    y_score = [[3, 2, 1], [3, 2, 1], [1, 2, 3]]
    func = function_of(metric)
    with pytest.warns(UndefinedMetricWarning, match="2 of 3"):
        values = func(y_true, y_score, no_relevant="skip", average=None, **extra)
    assert np.isnan(values[[0, 2]]).all() and not np.isnan(values[1])
    with pytest.warns(UndefinedMetricWarning):
        mean = func(y_true, y_score, no_relevant="skip", **extra)
    assert mean == pytest.approx(values[1])


@pytest.mark.parametrize("name, metric, extra", NO_RELEVANT_VARIANTS, ids=NO_RELEVANT_IDS)
def test_every_query_skipped_gives_nan_with_warning(name, metric, extra):
    with pytest.warns(UndefinedMetricWarning):
        value = function_of(metric)([[0, 0, 0], [0, 0, 0]], [[1, 2, 3], [3, 2, 1]], no_relevant="skip", **extra)
    assert math.isnan(value)


@pytest.mark.parametrize("no_relevant", ["zero", "skip", "one"])
@pytest.mark.parametrize("metric", BINARY)
def test_no_hit_with_relevant_elsewhere_is_ordinary_zero(metric, no_relevant):
    """R > 0 (through n_relevant) but nothing relevant listed: 0, never skipped."""
    extra = {} if metric in WHOLE_LIST else {"k": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        value = function_of(metric)(
            [0, 0, 0], [3, 2, 1], qid=["a"] * 3, n_relevant={"a": 2},
            no_relevant=no_relevant, average=None, **extra,
        )  # fmt: skip
    assert value.tolist() == [0.0]


# -------------------------------------------------------------- n_relevant
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("metric", BINARY)
def test_n_relevant_mapping(metric, ties, seed):
    y_true, y_score, qid = random_case(seed)
    rng = np.random.default_rng(seed)
    for level in (1, 2):
        counts = {}
        for q, label in zip(qid, y_true):
            counts[q] = counts.get(q, 0) + (label >= level)
        # about half of the queries get extra unlisted relevant documents
        n_relevant = {
            q: c + int(rng.integers(0, 4)) for q, c in counts.items() if rng.random() < 0.6
        }
        if not n_relevant:
            n_relevant = {q: c + 3 for q, c in counts.items()}
        for kwargs in option_grid(metric, {}):
            for average in (None, "mean"):
                got, expected = call_both(
                    metric, y_true, y_score, qid=qid, ties=ties, n_relevant=n_relevant,
                    average=average, **dict(kwargs, relevance_level=level),
                )  # fmt: skip
                assert got == approx(expected), (level, kwargs, n_relevant)


def test_n_relevant_string_ids_use_their_own_keys():
    got = srm.recall_at_k_score(
        [1, 0, 1, 1], [4, 3, 2, 1], qid=["1", "1", "2", "2"], k=1,
        n_relevant={"1": 4, "2": 2}, average=None,
    )  # fmt: skip
    assert got.tolist() == pytest.approx([0.25, 0.5])


# ------------------------------------------------------------ sample_weight
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_flat_sample_weight_per_document(name, metric, extra, seed):
    y_true, y_score, qid = random_case(seed, max_queries=5)
    rng = np.random.default_rng(seed)
    per_query = {q: float(rng.choice([0.0, 0.5, 1.0, 4.0])) for q in sorted(set(qid))}
    per_query[qid[0]] = 2.0  # at least one positive weight
    sample_weight = [per_query[q] for q in qid]
    for kwargs in option_grid(metric, extra):
        got, expected = call_both(
            metric, y_true, y_score, qid=qid, sample_weight=sample_weight, **kwargs
        )
        assert got == approx(expected), kwargs
        # average=None ignores the weights
        got, unweighted = (
            call_both(metric, y_true, y_score, qid=qid, sample_weight=w, average=None, **kwargs)[0]
            for w in (sample_weight, None)
        )
        assert got == approx(unweighted)


def test_sample_weight_integer_weights_equal_repeated_queries():
    """Weight 2 on a query is the same as listing the query twice."""
    y_true = np.array([[1, 0, 2, 0], [0, 1, 0, 0], [3, 0, 0, 1]])
    y_score = np.array([[1, 2, 3, 0], [4, 3, 2, 1], [0, 1, 2, 3]])
    weights = [2, 1, 3]
    repeated = np.repeat(np.arange(3), weights)
    for name in NAMES:
        func = function_of(name)
        assert func(y_true, y_score, sample_weight=weights) == pytest.approx(
            func(y_true[repeated], y_score[repeated]), rel=1e-12
        )


# ---------------------------------------------------- small, by-hand cases
@pytest.mark.parametrize(
    "func, kwargs, expected",
    [
        # one relevant among 3 tied documents at the top, k=1: P@1 = 1/3
        (srm.precision_at_k_score, {"k": 1}, 1 / 3),
        # recall@1: E[hits@1] / R = (1/3) / 1
        (srm.recall_at_k_score, {"k": 1}, 1 / 3),
        # F1@1 = 2 E[hits] / (k + R) = 2/3 / 2
        (srm.f1_at_k_score, {"k": 1}, 1 / 3),
        (srm.recall_cap_score, {"k": 1}, 1 / 3),
        (srm.hit_rate_score, {"k": 1, "level": "item"}, 1 / 3),
        (srm.hit_rate_score, {"k": 1}, 1 / 3),
        # R = 1: R-precision = P@1
        (srm.r_precision_score, {}, 1 / 3),
        # RR: 1/3 (1 + 1/2 + 1/3)
        (srm.mrr_score, {}, (1 + 1 / 2 + 1 / 3) / 3),
        (srm.map_score, {}, (1 + 1 / 2 + 1 / 3) / 3),
    ],
)
def test_tie_block_of_three_then_one(func, kwargs, expected):
    """Labels [1, 0, 0 | 0]: a tie of three documents ranked above a fourth.

    Minimal reproducer for the hits-based metrics under ties="average"."""
    assert func([1, 0, 0, 0], [1, 1, 1, 0], **kwargs) == pytest.approx(expected, rel=1e-12)


def test_tie_straddling_cutoff_cg():
    """CG@2 of [5 | 2, 0 tied]: 5 + mean(2, 0) = 6 (cg_score docstring)."""
    assert srm.cg_score([5, 2, 0], [2, 1, 1], k=2) == pytest.approx(6.0)
    assert srm.cg_score([5, 2, 0], [2, 1, 1], k=2, ties="optimistic") == pytest.approx(7.0)
    assert srm.cg_score([5, 2, 0], [2, 1, 1], k=2, ties="pessimistic") == pytest.approx(5.0)


def test_precision_divides_by_k_for_short_lists():
    assert srm.precision_at_k_score([1, 1], [2, 1], k=5) == pytest.approx(0.4)
    assert srm.f1_at_k_score([1, 1], [2, 1], k=5) == pytest.approx(2 * 2 / (5 + 2))
    assert srm.precision_at_k_score([1, 1, 0], [2, 1, 0]) == pytest.approx(2 / 3)


def test_hit_rate_item_is_pooled_not_mean_of_ratios():
    # query a: 1 hit in min(3, 2) = 2 items; query b: 3 hits in 3 items
    y_true = [1, 0, 1, 1, 1, 0]
    y_score = [2, 1, 6, 5, 4, 3]
    qid = ["a", "a", "b", "b", "b", "b"]
    per_query = srm.hit_rate_score(y_true, y_score, qid=qid, k=3, level="item", average=None)
    assert per_query.tolist() == pytest.approx([0.5, 1.0])
    assert srm.hit_rate_score(y_true, y_score, qid=qid, k=3, level="item") == pytest.approx(4 / 5)
    weighted = srm.hit_rate_score(
        y_true, y_score, qid=qid, k=3, level="item", sample_weight=[3, 3, 1, 1, 1, 1]
    )
    assert weighted == pytest.approx((3 * 1 + 1 * 3) / (3 * 2 + 1 * 3))


def test_recall_cap_uses_min_of_k_and_r():
    y_true = [1] * 6 + [0] * 4
    y_score = list(range(10, 0, -1))
    assert srm.recall_cap_score(y_true, y_score, k=3) == pytest.approx(1.0)
    assert srm.recall_at_k_score(y_true, y_score, k=3) == pytest.approx(0.5)
    assert srm.recall_cap_score(y_true, y_score, k=8) == pytest.approx(1.0)
    assert srm.recall_cap_score(y_true[::-1], y_score, k=8) == pytest.approx(4 / 6)


def test_r_precision_with_n_relevant_longer_than_list():
    # R = 5 but only 3 documents listed, 2 relevant: hits@5 / 5
    got = srm.r_precision_score([1, 0, 1], [3, 2, 1], qid=[7, 7, 7], n_relevant={7: 5})
    assert got == pytest.approx(2 / 5)


def test_map_missing_relevant_documents_rank_after_the_list():
    got = srm.map_score([1, 0, 1], [3, 2, 1], qid=[7, 7, 7], n_relevant={7: 4})
    assert got == pytest.approx((1 + 2 / 3) / 4)


# ---------------------------------------------------------- rank correlation
@pytest.mark.parametrize("seed", range(40))
def test_rc_three_references_agree_with_package(seed):
    """The pair rule, enumeration of orderings, and the tutorial's literal
    max over ideal orderings all give the package's RC."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    labels = rng.choice([0, 1, 2], size=n).tolist()
    scores = rng.choice([0, 1, 2], size=n).tolist()
    for ties in TIES:
        got = srm.rank_correlation_score(labels, scores, ties=ties)
        assert got == pytest.approx(rc_pairs(labels, scores, ties), rel=1e-12)
        assert got == pytest.approx(reference("rc", labels, scores, ties=ties), rel=1e-12)
    # literal definition needs a strict order: break ties by position
    ranked = [labels[i] for i in sorted(range(n), key=lambda i: -scores[i] * n + i)]
    distinct_scores = list(range(n, 0, -1))
    assert srm.rank_correlation_score(ranked, distinct_scores) == pytest.approx(
        rc_literal(ranked), rel=1e-12
    )


@pytest.mark.parametrize("seed", range(30))
def test_kendall_matches_scipy_per_query(seed):
    from scipy.stats import kendalltau

    y_true, y_score, qid = random_case(seed, max_docs=12, score_values=(0, 1, 2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = srm.rank_correlation_score(y_true, y_score, qid=qid, method="kendall", average=None)
        expected = []
        for q in sorted(set(qid)):
            t = [a for a, b in zip(y_true, qid) if b == q]
            s = [a for a, b in zip(y_score, qid) if b == q]
            expected.append(kendalltau(t, s).statistic if len(t) > 1 else np.nan)
    assert got == approx(expected)
    assert got == approx(reference("kendall", y_true, y_score, qid=qid, average=None))


@pytest.mark.parametrize(
    "y_true, y_score",
    [([1], [1]), ([1, 1, 1], [3, 2, 1]), ([0, 1, 2], [5, 5, 5])],
    ids=["one-document", "constant-labels", "constant-scores"],
)
def test_kendall_undefined_is_nan_and_warns(y_true, y_score):
    with pytest.warns(UndefinedMetricWarning, match="1 of 2"):
        got = srm.rank_correlation_score(
            y_true + [1, 0], y_score + [1, 0], qid=[0] * len(y_true) + [1, 1],
            method="kendall", average=None,
        )  # fmt: skip
    assert np.isnan(got[0]) and got[1] == pytest.approx(1.0)


def test_rc_single_document_is_undefined():
    with pytest.warns(UndefinedMetricWarning, match="1 of 2"):
        got = srm.rank_correlation_score([1, 1, 0], [0, 1, 0], qid=[0, 1, 1], average=None)
    assert np.isnan(got[0]) and got[1] == pytest.approx(1.0)
    with pytest.warns(UndefinedMetricWarning):
        assert srm.rank_correlation_score([1, 1, 0], [0, 1, 0], qid=[0, 1, 1]) == pytest.approx(1.0)


def test_rc_constant_labels_is_one():
    assert srm.rank_correlation_score([2, 2, 2], [1, 3, 2]) == pytest.approx(1.0)


# ------------------------------------------------------ layouts and outputs
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_return_types(name, metric, extra):
    y_true, y_score, qid = [1, 0, 2, 0, 1], [3, 1, 2, 2.5, 0], ["b", "a", "b", "a", "c"]

    def func(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)  # query "c": one document
            return function_of(metric)(*args, **kwargs)

    mean = func(y_true, y_score, qid=qid, **extra)
    assert isinstance(mean, float)
    values = func(y_true, y_score, qid=qid, average=None, **extra)
    assert isinstance(values, np.ndarray) and values.shape == (3,)
    assert func(y_true, y_score, average=None, **extra).shape == (1,)
    assert func([y_true, y_true], [y_score, y_score], average=None, **extra).shape == (2,)


def test_average_none_follows_numpy_unique_order():
    y_true = [1, 0, 0, 1, 1, 0]
    y_score = [1, 2, 1, 2, 3, 4]
    qid = ["b", "b", "a", "a", "c10", "c10"]
    got = srm.mrr_score(y_true, y_score, qid=qid, average=None)
    assert got.tolist() == pytest.approx([1.0, 0.5, 0.5])  # order a, b, c10
    got = srm.mrr_score(y_true, y_score, qid=[10, 10, 9, 9, 100, 100], average=None)
    assert got.tolist() == pytest.approx([1.0, 0.5, 0.5])  # order 9, 10, 100


@pytest.mark.parametrize("kind", ["list", "numpy", "pandas"])
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_input_containers(name, metric, extra, kind):
    pd = pytest.importorskip("pandas")
    y_true, y_score, qid = random_case(7, string_qids=True)
    convert = {
        "list": list,
        "numpy": np.asarray,
        "pandas": lambda values: pd.Series(values, index=np.arange(len(values))[::-1]),
    }[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = function_of(metric)(convert(y_true), convert(y_score), qid=convert(qid), average=None, **extra)
        expected = function_of(metric)(np.array(y_true), np.array(y_score), qid=np.array(qid), average=None, **extra)
    assert got == approx(expected)
    assert got == approx(reference(metric, y_true, y_score, qid=qid, average=None, **extra))


def test_pandas_categorical_and_object_qids():
    pd = pytest.importorskip("pandas")
    y_true, y_score = [1, 0, 0, 1], [1, 2, 1, 2]
    expected = [0.5, 1.0]
    for qid in (
        pd.Series(["x", "x", "y", "y"], dtype=object),
        pd.Series(["x", "x", "y", "y"], dtype="string"),
        pd.Series([5, 5, 6, 6], dtype="int32"),
    ):
        assert srm.mrr_score(y_true, y_score, qid=qid, average=None).tolist() == expected


@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_boolean_labels_are_binary_grades(name, metric, extra):
    y_true = [True, False, True, False, False, True]
    y_score = [0.3, 0.9, 0.3, 0.1, 0.5, 0.2]
    qid = [1, 1, 1, 2, 2, 2]
    got, expected = call_both(metric, y_true, y_score, qid=qid, average=None, **extra)
    assert got == approx(expected)
    ints = function_of(metric)([int(x) for x in y_true], y_score, qid=qid, average=None, **extra)
    assert got == approx(ints)


# ------------------------------------- n_relevant in every measure of the table
def _unlisted_case(seed, labels, level):
    """A random case and an n_relevant with relevant documents outside about half the lists."""
    y_true, y_score, qid = random_case(seed, label_values=labels)
    rng = np.random.default_rng(seed)
    counts = {}
    for q, label in zip(qid, y_true):
        counts[q] = counts.get(q, 0) + (label >= level)
    n_relevant = {q: c + int(rng.integers(0, 3)) * (rng.random() < 0.6) for q, c in counts.items()}
    n_relevant[qid[0]] += 1  # at least one query with one
    return y_true, y_score, qid, n_relevant


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("labels, level", [((0, 0, 1), 1), ((0, 1), 0.5), ((0, 0, 1, 2, 3), 1),
                                           ((0, 0, 1, 2, 3), 2), ((0, 1), 2)])  # fmt: skip
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_n_relevant_in_every_measure_equals_the_materialized_ranking(
    name, metric, extra, labels, level, seed
):
    """Each measure with n_relevant, as on the full materialized ranking (the reference's).

    The relevant documents a list left out are appended below it: they count in
    R and in the ideal, never as ranked. Where their grades matter and are not
    known (graded labels in an ideal ranking), an error names evaluate_run and
    the full relevance.
    """
    y_true, y_score, qid, n_relevant = _unlisted_case(seed, labels, level)
    binary = set(labels) <= {0, 1} and level <= 1
    score = _through_evaluate(metric)
    for kwargs, ties in itertools.product(option_grid(metric, extra), TIES):
        kwargs = dict(kwargs, qid=qid, relevance_level=level, n_relevant=n_relevant,
                      ties=ties, average=None)  # fmt: skip
        if metric in IDEAL_OF_BINARY_ONLY and not binary:
            tie_error = metric in SCANNED and ties == "average"  # may come first
            expected = "evaluate_run .*full relevance of every item" + "|ties='first'" * tie_error
            with pytest.raises(ValueError, match=expected):
                score(y_true, y_score, **kwargs)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            try:
                got = score(y_true, y_score, **kwargs)
            except ValueError as error:  # no closed form under ties: an error, never a guess
                assert metric in SCANNED and ties == "average" and "ties='first'" in str(error)
                continue
        expected = reference(metric, y_true, y_score, **kwargs, **MEASURE_OPTIONS.get(metric, {}))
        assert got == approx(expected), (kwargs, n_relevant)


@pytest.mark.parametrize("no_relevant", ["zero", "skip"])
@pytest.mark.parametrize("metric", ["ndcg", "dcg", "cg", "err"])
def test_graded_measures_count_relevant_documents_outside_the_list(metric, no_relevant):
    # No gain listed, relevant documents elsewhere: 0, never skipped as "no relevant".
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        values = srm.evaluate([0, 0, 0, 1], [4, 3, 2, 1], qid=["a", "a", "b", "b"],
                              metrics=[f"{metric}@1"], n_relevant={"a": 2},
                              no_relevant=no_relevant, average=None)  # fmt: skip
    assert values[f"{metric}@1"].tolist() == [0.0, 0.0]


def test_ndcg_of_top_k_lists_uses_n_relevant():
    # A recommender's top-3 lists, 5 and 1 relevant items in all: the ideal DCG has R of them.
    y_true = [1, 0, 1, 0, 0, 1]
    values = srm.evaluate(y_true, [3, 2, 1] * 2, qid=[1, 1, 1, 2, 2, 2], n_relevant={1: 5, 2: 1},
                          metrics=["ndcg@3", "ndcg@10", "ndcg"], average=None)  # fmt: skip
    discount = 1 / np.log2(np.arange(2, 12))
    dcg = 1 + discount[2]
    assert values["ndcg@3"] == approx([dcg / discount[:3].sum(), discount[2]])
    assert values["ndcg@10"] == approx([dcg / discount[:5].sum(), discount[2]])
    assert values["ndcg"] == approx(values["ndcg@10"])
    with pytest.raises(ValueError, match=r"ndcg@3: n_relevant\[1\] = 5 counts relevant documents"):
        srm.evaluate([2, 0, 1], [3, 2, 1], qid=[1, 1, 1], n_relevant={1: 5}, metrics=["ndcg@3"])
    # A list that holds every relevant document: graded labels are fine.
    graded = srm.evaluate([2, 0, 1], [3, 2, 1], qid=[1, 1, 1], n_relevant={1: 2}, metrics=["ndcg"])
    assert graded["ndcg"] == approx(srm.ndcg_score([2, 0, 1], [3, 2, 1]))


@pytest.mark.parametrize("metric", IDEAL_OF_BINARY_ONLY)
@pytest.mark.parametrize("order", [["bin", "grd"], ["grd", "bin"]])
def test_n_relevant_labels_0_and_1_are_decided_per_query(metric, order):
    """A query's value with n_relevant is the one it gets alone, whatever the other queries' labels.

    Query "bin" (labels 0 and 1) has 2 relevant documents outside its list;
    query "grd" (graded) has all of its relevant documents listed: neither
    needs unknown grades. Only a graded query with unlisted relevant ones raises.
    """
    cases = {"bin": ([1, 0, 1, 0], [4, 3, 2, 1], 4), "grd": ([2, 0, 1], [3, 1, 2], 2)}
    score = _through_evaluate(metric)
    for k in [None] if metric in WHOLE_LIST else [None, 2, 5]:
        kwargs = {} if k is None else {"k": k}
        alone = {
            q: score(y, s, qid=[q] * len(y), n_relevant={q: r}, average=None, **kwargs)[0]
            for q, (y, s, r) in cases.items()
        }
        y_true = [label for q in order for label in cases[q][0]]
        y_score = [value for q in order for value in cases[q][1]]
        qid = [q for q in order for _ in cases[q][0]]
        n_relevant = {q: cases[q][2] for q in order}
        got = score(y_true, y_score, qid=qid, n_relevant=n_relevant, average=None, **kwargs)
        # average=None: the queries in sorted id order ("bin", "grd").
        assert got == approx([alone["bin"], alone["grd"]]), k
        assert alone["bin"] == approx(reference(
            metric, cases["bin"][0], cases["bin"][1], qid=["bin"] * 4, n_relevant={"bin": 4},
            average=None, **kwargs, **MEASURE_OPTIONS.get(metric, {}))[0])  # fmt: skip
        # The graded query with a relevant document outside its list: an error naming it.
        with pytest.raises(ValueError, match=r"n_relevant\['grd'\] = 3 counts relevant .* graded"):
            score(y_true, y_score, qid=qid, n_relevant=dict(n_relevant, grd=3), **kwargs)


def test_a_measure_at_its_own_level_refuses_n_relevant():
    # n_relevant counts the documents relevant at relevance_level, not at rel=2.
    with pytest.raises(ValueError, match=r"relevant at relevance_level=1.*another level \(2"):
        srm.evaluate([1, 0, 2], [3, 2, 1], metrics=["R(rel=2)@2"], n_relevant={0: 4})
    same = srm.evaluate([1, 0, 2], [3, 2, 1], metrics=["R(rel=2)@2"], relevance_level=2,
                        n_relevant={0: 4})  # fmt: skip
    assert same["R(rel=2)@2"] == 0.0


def test_n_relevant_without_cutoff_beyond_what_can_be_summed():
    ok = srm.evaluate([1, 0], [2, 1], metrics=["ndcg", "ndcg@5"], n_relevant={0: 10**6})
    assert ok["ndcg"] == approx(1 / (1 / np.log2(np.arange(2, 10**6 + 2))).sum())
    with pytest.raises(ValueError, match=r"n_relevant gives a query 10{12} relevant .*ndcg@k"):
        srm.evaluate([1, 0], [2, 1], metrics=["ndcg"], n_relevant={0: 10**12})


@pytest.mark.parametrize("metric", IDEAL_OF_BINARY_ONLY)
def test_ideal_rankings_longer_than_every_list(metric):
    # R = 50 relevant documents, lists of 3: the ideal ranking goes beyond the discounts' table.
    y_true, y_score, qid = [1, 0, 1, 0, 0, 0], [3, 2, 1, 3, 2, 1], [1, 1, 1, 2, 2, 2]
    n_relevant = {1: 50, 2: 7}
    score = _through_evaluate(metric)
    for k in [None] if metric in WHOLE_LIST else [None, 2, 60]:
        kwargs = dict(qid=qid, n_relevant=n_relevant, average=None, ties="first")
        if metric not in WHOLE_LIST:
            kwargs["k"] = k
        got = score(y_true, y_score, **kwargs)
        assert got == approx(reference(metric, y_true, y_score, **kwargs)), k
