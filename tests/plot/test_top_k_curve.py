"""RankingCurveDisplay.from_top_k: each cutoff's value is evaluate_top_k's at that cutoff."""

import warnings

import numpy as np
import pytest
from scipy.sparse import csr_array

from sklearn_rank_metrics import RankingCurveDisplay, evaluate_top_k

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def _lists(seed=0, n_queries=25, n_items=30, width=6):
    rng = np.random.default_rng(seed)
    top = np.array([rng.permutation(n_items)[:width] for _ in range(n_queries)])
    top[3, 2:] = -1
    y_true = csr_array((rng.random((n_queries, n_items)) < 0.2).astype(int))
    options = dict(item_popularity=rng.integers(1, 50, n_items), item_vectors=rng.normal(size=(n_items, 3)))
    return y_true, top, options


@pytest.mark.parametrize("metric", ["ndcg", "recall", "arp", "aplt", "novelty", "ild", "coverage", "gini", "entropy"])
def test_each_cutoff_is_evaluate_top_k(metric):
    y_true, top, options = _lists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        display = RankingCurveDisplay.from_top_k(y_true, top, metric=metric, name="m", **options)
        expected = [
            evaluate_top_k(y_true, top, metrics=[f"{metric}@{k}"], **options)[f"{metric}@{k}"]
            for k in range(1, 7)
        ]
    first = 2 if metric == "ild" else 1  # a list of one item has no pair
    np.testing.assert_array_equal(display.k_, np.arange(first, 7))
    np.testing.assert_allclose(display.values_, expected[first - 1 :], rtol=1e-12)
    assert display.ax_.get_ylabel() == f"{metric}@k"


def test_band_of_a_per_query_measure_and_none_for_the_catalogue():
    y_true, top, options = _lists()
    display = RankingCurveDisplay.from_top_k(
        y_true, top, metric="arp", k_max=4, confidence_band=0.9,
        item_popularity=options["item_popularity"],
    )
    assert (display.lower_ <= display.values_).all() and (display.values_ <= display.upper_).all()
    with pytest.raises(ValueError, match="whole catalogue"):
        RankingCurveDisplay.from_top_k(y_true, top, metric="gini", confidence_band=0.9)


def test_one_warning_for_the_queries_left_out():
    y_true, top, options = _lists()
    top[5, 1:] = -1  # a list of one item: no pair at any cutoff
    with pytest.warns(Warning) as caught:
        RankingCurveDisplay.from_top_k(y_true, top, metric="ild", item_vectors=options["item_vectors"])
    left_out = [str(w.message) for w in caught if "left out" in str(w.message)]
    assert len(left_out) == 1 and "ild@k (every k)" in left_out[0]


@pytest.mark.parametrize(
    "metric, k_max, message",
    [("arp@3", None, "without its cutoff"), ("arp", 9, "top_items holds 6")],
)
def test_errors(metric, k_max, message):
    y_true, top, options = _lists()
    with pytest.raises(ValueError, match=message):
        RankingCurveDisplay.from_top_k(y_true, top, metric=metric, k_max=k_max, **options)


def test_ild_curve_starts_at_two_with_a_band():
    y_true, top, options = _lists()
    display = RankingCurveDisplay.from_top_k(
        y_true, top, metric="ild", item_vectors=options["item_vectors"], confidence_band=0.9
    )
    np.testing.assert_array_equal(display.k_, np.arange(2, 7))
    assert np.isfinite(display.lower_).all()
