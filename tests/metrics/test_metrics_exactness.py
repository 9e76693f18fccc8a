"""Exact values where floating point or the fast paths could silently go wrong.

Overflowing exponential gains, integer scores beyond float precision, and
the engine's alternative paths (pair counts by radix partition for many label
values, ideal DCG and label codes computed chunk by chunk) checked against the
brute-force reference.
"""

import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _cases import (
    MEASURE_OPTIONS,
    PATHS,
    SCANNED,
    VARIANT_IDS,
    VARIANTS,
    WHOLE_LIST,
    function_of,
)
from _reference import random_case, rc_pairs, reference
from sklearn_rank_metrics._engine.quantities import _pair_counts
from sklearn_rank_metrics._engine.run import _run
from sklearn_rank_metrics._engine.spec import METRICS


# ------------------------------------------------------ exponential overflow
def exact_ndcg(labels_in_ranked_order, k=None):
    """NDCG with exponential gains in exact rational arithmetic (any label size)."""
    def dcg(labels):
        top = labels[: len(labels) if k is None else k]
        return sum(
            Fraction(2**label - 1) * Fraction(1.0 / math.log2(i + 2)) for i, label in enumerate(top)
        )

    ideal = dcg(sorted(labels_in_ranked_order, reverse=True))
    return float(dcg(labels_in_ranked_order) / ideal) if ideal else 0.0


@pytest.mark.parametrize("k", [None, 2])
def test_ndcg_with_overflowing_exponential_gains_is_exact_beside_a_normal_query(k):
    # Query "big": one label of 1100 (2**1100 overflows float64). Query "many":
    # a hundred labels of 1020 and 1019, each gain finite, their sum not.
    # Query "normal": ordinary grades, which must keep their ordinary value.
    big = ([1100, 1000, 0, 3], [1.0, 2.0, 3.0, 0.5])
    many = ([1020, 1019] * 50, list(range(100)))
    normal = ([2, 1, 0, 1], [3.0, 1.0, 2.0, 0.0])
    y_true, y_score, qid = [], [], []
    for name, (labels, scores) in (("big", big), ("many", many), ("normal", normal)):
        y_true += labels
        y_score += scores
        qid += [name] * len(labels)
    got = srm.ndcg_score(y_true, y_score, qid=qid, k=k, gain="exponential", average=None)
    expected = [
        exact_ndcg([labels[i] for i in np.argsort(scores)[::-1]], k)
        for labels, scores in (big, many, normal)
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)  # sorted ids: big, many, normal
    assert 0.0 < got[0] < 1.0 and 0.0 < got[1] < 1.0
    assert got[2] == pytest.approx(reference("ndcg", *normal, k=k, gain="exponential"), rel=1e-12)


@pytest.mark.parametrize("function", [srm.dcg_score, srm.cg_score])
def test_unbounded_gains_that_overflow_raise_naming_the_fix(function):
    with pytest.raises(ValueError, match="overflows float64.*ndcg_score.*gain='linear'"):
        function([1100, 0, 2], [0.1, 0.2, 0.3], qid=[1, 1, 2], gain="exponential")
    # a finite total is fine, however large
    assert function([1000, 0], [0.2, 0.1], gain="exponential") == pytest.approx(2.0**1000)


def test_ndcg_with_huge_linear_labels_is_exact():
    # 1e302 times three documents is beyond what an unscaled sum may reach.
    assert srm.ndcg_score([[1e302, 0.0, 5.0]], [[0.1, 0.3, 0.2]]) == pytest.approx(
        (1e-302 * 5 / math.log2(3) + 1 / 2) / (1 + 1e-302 * 5 / math.log2(3)), rel=1e-12
    )
    assert srm.ndcg_score([[1e302, 0.0, 5.0]], [[0.3, 0.2, 0.1]]) == 1.0


def test_a_first_chunk_without_hits_does_not_truncate_later_chunks(monkeypatch):
    """Merged per-chunk results keep their floats when the first chunk adds up nothing."""
    monkeypatch.setattr(_run, "chunk_rows", lambda n_documents, n_threads: 1)
    y_true, y_score, qid = [0, 0, 0, 1, 0, 1], [1, 1, 1, 1, 1, 0], [0, 0, 0, 1, 1, 1]
    got = srm.map_score(y_true, y_score, qid=qid, average=None)
    np.testing.assert_allclose(got, reference("map", y_true, y_score, qid=qid, average=None))
    assert got[1] == pytest.approx(0.708333333333333)


def test_scorers_and_evaluate_see_the_same_overflow_error():
    with pytest.raises(ValueError, match="overflows float64"):
        srm.evaluate([1100, 0], [0.2, 0.1], metrics=["ndcg", "dcg"], gain="exponential")
    ndcg = srm.evaluate([1100, 0], [0.2, 0.1], metrics=["ndcg"], gain="exponential")["ndcg"]
    assert ndcg == 1.0


# ----------------------------------------------------------- integer scores
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_integer_scores_are_ranked_by_their_exact_value(dtype):
    # 1700000000000000001 and ...002 are one float64: as floats they would tie.
    assert srm.mrr_score([0, 1], np.array([1700000000000000001, 1700000000000000002], dtype)) == 1.0
    assert srm.mrr_score([0, 1], [1700000000000000001, 1700000000000000002]) == 1.0
    rng = np.random.default_rng(0)
    base = 2**62 if dtype == np.int64 else 2**63 + 2**62
    offsets = rng.integers(0, 6, 60)
    scores = np.array([base + int(o) for o in offsets], dtype=dtype)
    y_true, qid = rng.integers(0, 3, 60), rng.integers(0, 4, 60)
    for name in ("ndcg", "map", "mrr", "rc"):
        expected = function_of(name)(y_true, offsets.astype(float), qid=qid, average=None)
        got = function_of(name)(y_true, scores, qid=qid, average=None)
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------- the engine's alternative paths
def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_every_path_matches_the_bruteforce_reference(monkeypatch, name, metric, extra, seed, path):
    for (module, attribute), value in PATHS[path].items():
        monkeypatch.setattr(module, attribute, value)
    y_true, y_score, qid = random_case(
        seed, max_queries=6, label_values=(0, 0.5, 1, 2, 2.5, 3, 4), score_values=(0, 1, 2, 2.5)
    )
    for ties in ("average", "optimistic", "pessimistic", "first"):
        for k in [None] if metric in WHOLE_LIST else [None, 1, 3]:
            kwargs = dict(extra, ties=ties) if metric in WHOLE_LIST else dict(extra, ties=ties, k=k)
            try:
                got = _quiet(function_of(metric), y_true, y_score, qid=qid, average=None, **kwargs)
            except ValueError as error:
                # No closed form under ties: an error naming the exact tie modes, never a guess.
                assert metric in SCANNED and ties == "average", error
                assert "ties='first'" in str(error) and "'optimistic'" in str(error)
                continue
            options = MEASURE_OPTIONS.get(metric, {})
            expected = reference(metric, y_true, y_score, qid=qid, average=None, **kwargs, **options)
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("method", ["rc", "kendall"])
def test_many_label_values_take_the_radix_path_and_match_scipy(method):
    """More than 16 label values: pairs are counted by radix partition."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(3)
    n = 400
    y_true = rng.integers(0, 40, n)  # 40 label values
    y_score = rng.integers(0, 30, n)  # ties
    qid = rng.integers(0, 5, n)
    assert len(np.unique(y_true)) > _pair_counts._MAX_VALUES_FOR_COUNTS
    got = srm.rank_correlation_score(y_true, y_score, qid=qid, method=method, average=None)
    if method == "kendall":
        expected = [kendalltau(y_true[qid == q], y_score[qid == q]).statistic for q in range(5)]
    else:
        expected = [rc_pairs(y_true[qid == q].tolist(), y_score[qid == q].tolist()) for q in range(5)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_segment_sums_with_empty_segments_anywhere():
    from sklearn_rank_metrics._engine.prepare._segments import sum_segments

    values = np.array([1.0, 2.0, 4.0, 8.0])
    # segments: [] [1, 2] [] [4] [8] [] []
    starts = np.array([0, 0, 2, 2, 3, 4, 4])
    np.testing.assert_array_equal(sum_segments(values, starts), [0, 3, 0, 4, 8, 0, 0])
    np.testing.assert_array_equal(sum_segments(values[:0], np.array([0, 0])), [0, 0])


# ------------------------------------------------ labels of lower precision
LEVELS = [round(0.05 * i, 2) for i in range(1, 40)]  # 0.05 .. 1.95


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", ["map", "mrr", "precision", "recall", "hit_rate", "r_precision"])
def test_a_label_written_as_the_relevance_level_is_relevant_in_its_own_dtype(dtype, name):
    """0.7 as a float32 is below 0.7 as a float64: compared in float32 it equals the level."""
    function = function_of(name)
    for level in LEVELS:
        label = dtype(level)
        below = np.nextafter(label, dtype(0))
        assert function(np.array([label], dtype), [1.0], relevance_level=level) == 1.0, level
        assert function(np.array([below], dtype), [1.0], relevance_level=level) == 0.0, level


def test_labels_of_lower_precision_are_counted_alike_in_evaluate():
    y_true = np.array([0.7, 0.3, 0.7, 0.0], np.float32)
    results = srm.evaluate(
        y_true, [4, 3, 2, 1], metrics=["map", "recall@1", "r_precision"], relevance_level=0.7
    )
    assert results == {"map": pytest.approx((1 + 2 / 3) / 2), "recall@1": 0.5, "r_precision": 0.5}


# ------------------------------------------------ large blocks of tied scores
def test_hit_rate_and_mrr_in_a_huge_tie_block_are_exact():
    """4e6 tied documents, 2 relevant: the first relevant rank has a closed form."""
    m, k = 4_000_000, 10
    y_true = np.zeros(m, np.int8)
    y_true[[5, 3_000_000]] = 1
    y_score = np.zeros(m)
    # P(no relevant document in the top k) = C(m - 2, k) / C(m, k)
    miss = Fraction((m - k) * (m - k - 1), m * (m - 1))
    # P(first relevant at rank j) = C(m - j, 1) / C(m, 2)
    rr = sum(Fraction(2 * (m - j), m * (m - 1)) / j for j in range(1, k + 1))
    results = srm.evaluate(y_true, y_score, metrics=["hit_rate@10", "mrr@10"])
    assert results["hit_rate@10"] == pytest.approx(float(1 - miss), rel=1e-12, abs=0)
    assert str(results["hit_rate@10"]).startswith("4.99999")
    assert results["mrr@10"] == pytest.approx(float(rr), rel=1e-12, abs=0)


@pytest.mark.parametrize("m, r, k", [(50, 3, 7), (1000, 40, 999), (9, 9, 4), (30, 1, 30)])
def test_tie_block_probabilities_match_exact_fractions(m, r, k):
    """The log1p products against exact rational sums, over small and large shares."""
    y_true = np.r_[np.ones(r), np.zeros(m - r)]
    y_score = np.zeros(m)
    miss = Fraction(math.comb(m - r, k), math.comb(m, k)) if k <= m - r else Fraction(0)
    rr = sum(
        Fraction(math.comb(m - j, r - 1), math.comb(m, r)) / j for j in range(1, min(k, m - r + 1) + 1)
    )
    results = srm.evaluate(y_true, y_score, metrics=[f"hit_rate@{k}", f"mrr@{k}"])
    assert results[f"hit_rate@{k}"] == pytest.approx(float(1 - miss), rel=1e-13, abs=0)
    assert results[f"mrr@{k}"] == pytest.approx(float(rr), rel=1e-13, abs=0)


# ------------------------------------------ integer labels float64 cannot hold
# From 2**53 on, float64 merges neighbouring integers: relevance is compared in the
# labels' own integers, and gains are computed from them exactly where they can be.
BEYOND_FLOAT = {
    "int64 from 2**53": (np.int64, 2**53),
    "int64 near 2**62": (np.int64, 2**62),
    "int64 near 2**63": (np.int64, 2**63 - 8),
    "uint64 near 2**64": (np.uint64, 2**64 - 8),
}
EXPONENTIAL_BEYOND_INT64 = "y_true holds labels beyond 2\\*\\*63 - 1"


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("labels", list(BEYOND_FLOAT))
@pytest.mark.parametrize("name, metric, extra", VARIANTS, ids=VARIANT_IDS)
def test_integer_labels_beyond_float64_are_compared_exactly(
    monkeypatch, name, metric, extra, labels, path
):
    """A metric of labels ``base + d`` at level ``base + 1``: that of labels ``d`` at level 1.

    Gains: linear ones are the labels in float64 (the reference's too); the
    exponential gains ``2**(base + d) - 1`` are ``2**base`` times ``2**d`` (the
    ``- 1`` is below float64's precision), so that NDCG is that of linear gains
    ``2**d``; DCG, CG and the other sums of such gains overflow (an error).
    """
    for (module, attribute), value in PATHS[path].items():
        monkeypatch.setattr(module, attribute, value)
    dtype, base = BEYOND_FLOAT[labels]
    offsets, y_score, qid = random_case(3, max_queries=6, label_values=(0, 0, 1, 2, 3, 7),
                                        score_values=(0, 1, 2))  # fmt: skip
    offsets = np.array(offsets)
    y_true = dtype(base) + offsets.astype(dtype)
    exponential = extra.get("gain") == "exponential"
    score = function_of(metric)
    options = MEASURE_OPTIONS.get(metric, {})
    for ties in ("first", "pessimistic"):
        kwargs = dict(extra, ties=ties, qid=qid, average=None)
        if metric not in WHOLE_LIST:
            kwargs["k"] = 3
        if "relevance_level" in METRICS[metric].options:
            got = _quiet(score, y_true, y_score, relevance_level=base + 1, **kwargs)
            expected = _quiet(score, offsets, y_score, relevance_level=1, **kwargs)
            np.testing.assert_array_equal(got, expected)
            continue
        if metric in ("rc", "kendall"):
            np.testing.assert_array_equal(
                _quiet(score, y_true, y_score, **kwargs), _quiet(score, offsets, y_score, **kwargs)
            )
            continue
        try:
            got = _quiet(score, y_true, y_score, **kwargs)
        except ValueError as error:
            # Gains too large to add up, or beyond float64 even scaled: an error, never inf.
            assert exponential or metric in ("err", "g"), error
            expected = rf"overflow|beyond float64|max_grade|loses the 2|{EXPONENTIAL_BEYOND_INT64}"
            assert re.search(expected, str(error)), error
            continue
        assert np.isfinite(got).all(), (metric, got)
        if exponential:
            assert metric == "ndcg", metric
            kwargs.pop("gain")
            expected = reference(metric, 2.0**offsets, y_score, **kwargs, **options)
        else:
            expected = reference(metric, y_true.astype(float), y_score, **kwargs, **options)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_relevance_level_beyond_2_53_is_exact(dtype):
    # 2**53 + 1 is 2**53 in float64: compared there, every document was relevant.
    big = 2**53
    y_true = np.array([big, big + 1, big, big + 1], dtype=dtype)
    assert srm.map_score(y_true, [4, 3, 2, 1], relevance_level=big + 1) == (1 / 2 + 2 / 4) / 2
    assert srm.map_score(y_true, [4, 3, 2, 1], relevance_level=np.int64(big + 1)) == 0.5
    assert srm.precision_at_k_score(y_true, [4, 3, 2, 1], k=4, relevance_level=big + 2) == 0.0
    # A float level: the labels at or above it, whatever float64 makes of the labels.
    assert srm.precision_at_k_score(y_true, [4, 3, 2, 1], k=4, relevance_level=float(big)) == 1.0
    assert srm.precision_at_k_score(y_true, [4, 3, 2, 1], k=4, relevance_level=big + 2.0) == 0.0
    # Labels float64 holds, a level it does not: the level is not rounded down to them.
    small = np.array([0, 2**60], dtype=dtype)
    assert srm.precision_at_k_score(small, [2, 1], k=2, relevance_level=2**60 + 1) == 0.0
    assert srm.precision_at_k_score(small, [2, 1], k=2, relevance_level=2**60 - 1) == 0.5
    # A level beyond every integer of the dtype: nothing is relevant.
    assert srm.recall_at_k_score(y_true, [4, 3, 2, 1], relevance_level=2**70) == 0.0


@pytest.mark.parametrize("metric", ["ndcg", "dcg", "g", "ndcg_rel"])
def test_exponential_gains_of_huge_labels_are_exact_or_an_error(metric):
    # Float labels beyond int64 too: two labels 2**18 apart near 2**70, gains 2**(2**18) apart.
    y_true = [2.0**70 - 2**18, 2.0**70, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning on the way
        try:
            value = srm.evaluate(y_true, [3, 2, 1], metrics=[metric], gain="exponential")[metric]
        except ValueError as error:
            assert metric != "ndcg" and re.search("overflow|beyond float64", str(error)), error
            return
    # Ranked gains 2**-(2**18) (0 in float64) and 1, over the ideal's 1 and 2**-(2**18).
    assert metric == "ndcg" and value == pytest.approx(1 / np.log2(3), rel=1e-15)
