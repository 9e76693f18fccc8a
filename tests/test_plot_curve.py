"""metric@k curves: RankingCurveDisplay and the engine's prefix kernels (every cutoff in one pass)."""

import statistics
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _cases import _through_evaluate, function_of
from _reference import random_case, reference
from sklearn_rank_metrics._engine._definitions import METRICS
from sklearn_rank_metrics._engine._pipeline import Request, evaluate_requests
from sklearn_rank_metrics.plot import CURVE_METRICS, RankingCurveDisplay
from test_metrics_exactness import PATHS

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

GRADED = [name for name in CURVE_METRICS if METRICS[name].family == "graded"]
OWNER = "RankingCurveDisplay.from_predictions"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def tied_flat_case(seed, n_queries=25, max_docs=30):
    """Flat input with interleaved query ids, graded labels, heavy ties and some queries without a
    relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs, n_queries)
    qid = rng.permutation(np.repeat(np.arange(n_queries) * 7 + 3, sizes))
    y_true = rng.choice([0, 0, 0, 1, 2, 3], qid.shape[0]).astype(float)
    y_true[np.isin(qid, qid[:2])] = 0.0
    y_score = rng.integers(0, 6, qid.shape[0]).astype(float)
    return y_true, y_score, qid


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


def per_query_curve(metric, k_max, y_true, y_score, **options):
    """The engine's per-query values at every cutoff, shape (n_queries, k_max)."""
    definition = METRICS[metric]
    requests = [Request(f"{metric}@{k}", definition, k) for k in range(1, k_max + 1)]
    results = _quiet(evaluate_requests, requests, y_true, y_score, curve=k_max, **options)
    return np.column_stack([results[request.name] for request in requests])


# ------------------------------------------------ the metric at every cutoff
@pytest.mark.parametrize("ties", ["average", "first", "optimistic"])
@pytest.mark.parametrize("layout", ["flat", "2-D"])
@pytest.mark.parametrize("metric", CURVE_METRICS)
def test_values_are_the_metric_function_at_every_cutoff(metric, layout, ties):
    y_true, y_score, qid = tied_flat_case(0)
    if layout == "2-D":
        y_true = y_true[:240].reshape(20, 12)
        y_score = y_score[:240].reshape(20, 12)
        qid = None
    options = {"ties": ties}
    if metric in GRADED:
        options["gain"] = "exponential"
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, metric=metric, k_max=35, **options
    )
    np.testing.assert_array_equal(display.k_, np.arange(1, 36))
    expected = [
        function_of(metric)(y_true, y_score, qid=qid, k=int(k), **options) for k in display.k_
    ]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(display.line_.get_xdata(), display.k_)
    np.testing.assert_array_equal(display.line_.get_ydata(), display.values_)


@pytest.mark.parametrize("alias, metric", [("ap", "map"), ("rr", "mrr"), ("p", "precision")])
def test_aliases_draw_their_metric(alias, metric):
    y_true, y_score, qid = tied_flat_case(1)
    display = RankingCurveDisplay.from_predictions(y_true, y_score, qid=qid, metric=alias, k_max=5)
    expected = [function_of(metric)(y_true, y_score, qid=qid, k=k) for k in range(1, 6)]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12, atol=1e-12)
    assert display.ax_.get_ylabel() == f"{metric}@k"


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", CURVE_METRICS)
def test_prefix_kernels_match_every_ordering_of_tied_documents(monkeypatch, metric, seed, path):
    """Per query and cutoff, against the brute force that enumerates every ordering of each tie."""
    for (module, attribute), value in PATHS[path].items():
        monkeypatch.setattr(module, attribute, value)
    y_true, y_score, qid = random_case(
        seed, max_queries=6, label_values=(0, 0.5, 1, 2, 2.5, 3, 4), score_values=(0, 1, 2, 2.5)
    )
    k_max = 9  # beyond the longest list (7): the curve goes on at the whole list's value
    for ties in ("average", "pessimistic", "first"):
        options = {"ties": ties, "gain": "exponential" if metric in GRADED else "linear"}
        got = per_query_curve(metric, k_max, y_true, y_score, qid=qid, **options)
        expected = np.column_stack([
            reference(metric, y_true, y_score, qid=qid, k=k, average=None, **options)
            for k in range(1, k_max + 1)
        ])  # fmt: skip
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("metric", ["ndcg", "map", "mrr", "hit_rate", "recall"])
def test_large_tie_blocks_across_chunks_match_the_functions(monkeypatch, metric):
    """Many queries in several chunks, tie blocks straddling many cutoffs, n_relevant given."""
    monkeypatch.setattr(
        "sklearn_rank_metrics._engine._pipeline.chunk_rows", lambda n_documents, n_threads: 300
    )
    rng = np.random.default_rng(5)
    qid = rng.integers(0, 60, 6000)
    y_true = rng.choice([0, 0, 0, 0, 1, 2], qid.shape[0])
    y_score = rng.integers(0, 4, qid.shape[0])
    n_relevant = {q: 200 for q in range(0, 60, 3)}
    options = {"relevance_level": 2, "n_relevant": n_relevant}
    score = function_of(metric)
    if metric == "ndcg":  # n_relevant in the ideal DCG: labels 0 and 1
        y_true, options = (y_true >= 2).astype(int), {"n_relevant": n_relevant}
        score = _through_evaluate("ndcg")
    got = per_query_curve(metric, 120, y_true, y_score, qid=qid, **options)
    for k in (1, 2, 17, 50, 99, 120):
        expected = score(y_true, y_score, qid=qid, k=k, average=None, **options)
        np.testing.assert_allclose(got[:, k - 1], expected, rtol=1e-12, atol=1e-14)


def short_lists_and_one_long(n_short=3000, short=4, long=400, seed=3):
    """Many short queries and one long one, in interleaved rows, with ties."""
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.append(np.repeat(np.arange(n_short), short), np.full(long, n_short)))
    y_true = rng.choice([0, 0, 1, 2, 3], qid.shape[0]).astype(float)
    y_score = rng.integers(0, 8, qid.shape[0]).astype(float)
    return y_true, y_score, qid


@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("metric", CURVE_METRICS)
def test_short_lists_and_one_long_list_match_the_functions(monkeypatch, metric, ties):
    """k_max beyond the short lists: each query's values stop changing at its own list's end."""
    monkeypatch.setattr(
        "sklearn_rank_metrics._engine._pipeline.chunk_rows", lambda n_documents, n_threads: 500
    )
    y_true, y_score, qid = short_lists_and_one_long()
    options = {"ties": ties}
    if metric in GRADED:
        options["gain"] = "exponential"
    got = per_query_curve(metric, 450, y_true, y_score, qid=qid, **options)
    for k in (1, 3, 4, 5, 100, 399, 400, 450):
        expected = _quiet(function_of(metric), y_true, y_score, qid=qid, k=k, average=None,
                          **options)
        np.testing.assert_allclose(got[:, k - 1], expected, rtol=1e-12, atol=1e-14)


def test_curve_of_short_lists_and_one_long_list_at_the_long_cutoff():
    """Ragged curves (memory is measured by bench_curve.py --shape skewed): the value at a
    cutoff beyond every short list is each short list's whole-list value."""
    y_true, y_score, qid = short_lists_and_one_long(n_short=8000, short=2, long=300)
    requests = [Request("ndcg@300", METRICS["ndcg"], 300)]
    results = evaluate_requests(requests, y_true, y_score, qid=qid, curve=300)
    expected = srm.ndcg_score(y_true, y_score, qid=qid, k=300, average=None)
    np.testing.assert_allclose(results["ndcg@300"], expected, rtol=1e-12)


def test_display_reduces_cutoff_by_cutoff_to_the_functions_means_and_spreads():
    """Means and the band's spreads per cutoff, as the function's per-query values give them."""
    from sklearn_rank_metrics.plot._curve import _curve_results

    y_true, y_score, qid = short_lists_and_one_long(n_short=8000, short=2, long=300)
    arguments = (METRICS["recall"], 300, y_true, y_score)
    means, spreads = _curve_results(*arguments, band=True, qid=qid)
    for k in (1, 2, 300):
        per_query = srm.recall_at_k_score(y_true, y_score, qid=qid, k=k, average=None)
        np.testing.assert_allclose(means[k - 1], np.nanmean(per_query), rtol=1e-12)
        assert spreads[k - 1][2] == np.count_nonzero(~np.isnan(per_query))
        np.testing.assert_allclose(
            spreads[k - 1][3], np.nanstd(per_query, ddof=1), rtol=1e-9
        )


def test_huge_exponential_labels_give_exact_ndcg_at_every_cutoff():
    """Gains scaled per query where 2**label would overflow: NDCG stays exact."""
    y_true = np.array([1100.0, 3, 1090, 0, 2, 1, 0, 1])
    y_score = np.array([0.1, 0.9, 0.5, 0.5, 0.8, 0.7, 0.6, 0.2])
    qid = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, k_max=5, gain="exponential"
    )
    expected = [srm.ndcg_score(y_true, y_score, qid=qid, k=k, gain="exponential") for k in range(1, 6)]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12)
    assert np.all(np.isfinite(display.values_))


def test_skipped_queries_warn_once_for_the_curve():
    y_true, y_score, qid = tied_flat_case(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        display = RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, metric="map", k_max=10, no_relevant="skip"
        )
    found = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert len(found) == 1
    assert "map@k (every k)" in str(found[0].message) and "left out" in str(found[0].message)
    assert found[0].filename == __file__
    expected = [_quiet(srm.map_score, y_true, y_score, qid=qid, k=k, no_relevant="skip")
                for k in range(1, 11)]  # fmt: skip
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12)


def test_sample_weight_weighs_the_queries_of_every_cutoff():
    y_true, y_score, qid = tied_flat_case(3)
    weight_of = {q: 1.0 + (q % 5) for q in np.unique(qid)}
    sample_weight = np.array([weight_of[q] for q in qid])
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, metric="recall", k_max=8, sample_weight=sample_weight
    )
    expected = [
        srm.recall_at_k_score(y_true, y_score, qid=qid, k=k, sample_weight=sample_weight)
        for k in range(1, 9)
    ]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12)


# ------------------------------------------------------------ several models
def test_several_models_share_one_axes_and_its_legend():
    y_true, y_score, qid = tied_flat_case(4)
    noisy = y_score + np.random.default_rng(0).normal(size=y_score.shape)
    first = RankingCurveDisplay.from_predictions(y_true, y_score, qid=qid, k_max=10, name="a")
    second = RankingCurveDisplay.from_predictions(
        y_true, noisy, qid=qid, k_max=10, name="b", ax=first.ax_, linestyle="--"
    )
    assert second.ax_ is first.ax_ and second.figure_ is first.figure_
    assert [line.get_label() for line in first.ax_.get_lines()] == ["a", "b"]
    assert [t.get_text() for t in first.ax_.get_legend().get_texts()] == ["a", "b"]
    assert second.line_.get_linestyle() == "--"
    np.testing.assert_array_equal(first.ax_.get_lines()[0].get_ydata(), first.values_)
    expected = [srm.ndcg_score(y_true, noisy, qid=qid, k=k) for k in range(1, 11)]
    np.testing.assert_allclose(second.values_, expected, rtol=1e-12)


def test_from_estimator_with_ridge_and_query_ids():
    from sklearn.linear_model import Ridge

    from sklearn_rank_metrics.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=30, random_state=0)
    model = Ridge(alpha=1.0).fit(X, y)
    display = RankingCurveDisplay.from_estimator(model, X, y, qid=qid, metric="map", k_max=12)
    assert display.line_.get_label() == "Ridge"
    expected = [srm.map_score(y, model.predict(X), qid=qid, k=k) for k in range(1, 13)]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12)
    named = RankingCurveDisplay.from_estimator(
        model, X, y, qid=qid, k_max=12, name="ridge", ax=display.ax_, confidence_band=0.9
    )
    assert named.ax_ is display.ax_ and named.band_ is not None
    assert [t.get_text() for t in display.ax_.get_legend().get_texts()] == ["Ridge", "ridge"]


# ------------------------------------------------------------------ the band
def slow_band(function, y_true, y_score, qid, k_max, level, **options):
    """Per cutoff: mean -/+ z stdev / sqrt(n) of the per-query values, in plain Python."""
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2)
    lower, upper = [], []
    for k in range(1, k_max + 1):
        values = _quiet(function, y_true, y_score, qid=qid, k=k, average=None, **options)
        values = [float(v) for v in values if not np.isnan(v)]
        half = z * statistics.stdev(values) / len(values) ** 0.5
        lower.append(statistics.fmean(values) - half)
        upper.append(statistics.fmean(values) + half)
    return np.array(lower), np.array(upper)


@pytest.mark.parametrize("no_relevant", ["zero", "skip"])
@pytest.mark.parametrize("metric", ["ndcg", "precision", "mrr"])
def test_confidence_band_is_the_normal_interval_of_the_mean(metric, no_relevant):
    y_true, y_score, qid = tied_flat_case(6)
    display = _quiet(
        RankingCurveDisplay.from_predictions, y_true, y_score, qid=qid, metric=metric,
        k_max=15, confidence_band=0.9, no_relevant=no_relevant,
    )  # fmt: skip
    lower, upper = slow_band(
        function_of(metric), y_true, y_score, qid, 15, 0.9, no_relevant=no_relevant
    )
    np.testing.assert_allclose(display.lower_, lower, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(display.upper_, upper, rtol=1e-9, atol=1e-12)
    assert display.confidence_level == 0.9
    # The drawn band spans exactly [lower, upper] at every cutoff.
    vertices = display.band_.get_paths()[0].vertices
    for k, low, high in zip(display.k_, display.lower_, display.upper_):
        at_k = vertices[vertices[:, 0] == k, 1]
        np.testing.assert_allclose([at_k.min(), at_k.max()], [low, high], rtol=1e-12)
    assert display.band_.get_facecolor()[0][:3] == pytest.approx(
        matplotlib.colors.to_rgb(display.line_.get_color())
    )


def test_no_band_unless_asked():
    y_true, y_score, qid = tied_flat_case(7)
    display = RankingCurveDisplay.from_predictions(y_true, y_score, qid=qid, k_max=4)
    assert display.band_ is None and display.lower_ is None and display.upper_ is None
    assert len(display.ax_.collections) == 0


# ----------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"k_max": 0}, ValueError, "k_max=0 is not valid; k_max must be a positive int"),
        ({"k_max": -3}, ValueError, "k_max=-3"),
        ({"k_max": 2.5}, TypeError, "k_max=2.5"),
        ({"k_max": None}, TypeError, "k_max=None"),
        ({"metric": "ndgc"}, ValueError, "'ndgc' is not a metric name.*ndcg, dcg, cg, mrr, map"),
        ({"metric": "r_precision"}, ValueError, "'r_precision' has no cutoff k.*Use one of ndcg"),
        ({"metric": "kendall"}, ValueError, "'kendall' has no cutoff k"),
        ({"metric": "rbp"}, ValueError, "'rbp' has no metric@k curve here.*Use one of"),
        ({"metric": "ndcg@10"}, ValueError, "names a cutoff; the curve's cutoffs are k = 1"),
        ({"confidence_band": 1.5}, ValueError, "confidence_band=1.5 is not valid"),
        ({"confidence_band": True}, ValueError, "confidence_band=True is not valid"),
        ({"ties": "random"}, ValueError, "ties='random' is not valid"),
        ({"metric": "dcg", "no_relevant": "one"}, ValueError, "no_relevant='one' is not available"),
    ],
)
def test_wrong_arguments_raise_naming_them_and_the_fix(kwargs, error, match):
    y_true, y_score, qid = tied_flat_case(8)
    options = {"k_max": 5, **kwargs}
    with pytest.raises(error, match=match) as raised:
        RankingCurveDisplay.from_predictions(y_true, y_score, qid=qid, **options)
    if "confidence_band" not in kwargs and "ties" not in kwargs and "no_relevant" not in kwargs:
        assert OWNER in str(raised.value)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sample_weight": "unequal"}, "confidence_band needs queries of equal weight"),
        ({"metric": "hit_rate_item"}, "'hit_rate_item' is pooled over items"),
        ({"one_query": True}, "at least 2 queries"),
    ],
)
def test_a_band_that_would_not_be_a_normal_interval_of_a_mean_is_refused(kwargs, match):
    y_true, y_score, qid = tied_flat_case(9)
    options = dict(kwargs)
    if options.pop("one_query", False):
        qid = np.zeros_like(qid)
    if options.get("sample_weight") == "unequal":
        options["sample_weight"] = qid.astype(float) + 1.0
    with pytest.raises(ValueError, match=match):
        RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, k_max=5, confidence_band=0.95, **options
        )


def test_equal_sample_weights_keep_the_band():
    y_true, y_score, qid = tied_flat_case(10)
    weighted = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, k_max=5, confidence_band=0.95, sample_weight=np.full(qid.shape, 2.0)
    )
    plain = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, k_max=5, confidence_band=0.95
    )
    np.testing.assert_allclose(weighted.lower_, plain.lower_, rtol=1e-12)


def test_without_matplotlib_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    display = RankingCurveDisplay(k=[1, 2], values=[0.5, 0.6], metric="ndcg")
    with pytest.raises(ImportError, match=r"pip install 'sklearn-rank-metrics\[plot\]'"):
        display.plot()
    y_true, y_score, qid = tied_flat_case(11)
    with pytest.raises(ImportError, match=r"RankingCurveDisplay.plot needs matplotlib"):
        RankingCurveDisplay.from_predictions(y_true, y_score, qid=qid, k_max=3)


def test_the_display_is_exported_where_users_look():
    assert srm.RankingCurveDisplay is RankingCurveDisplay
    assert "RankingCurveDisplay" in srm.__all__
    assert set(CURVE_METRICS) >= {
        "ndcg", "dcg", "cg", "map", "precision", "recall", "mrr", "hit_rate", "f1"
    }  # fmt: skip
    assert all(METRICS[name].takes_cutoff for name in CURVE_METRICS)
