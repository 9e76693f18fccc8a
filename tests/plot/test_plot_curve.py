"""metric@k curves: RankingCurveDisplay and the engine's prefix kernels (every cutoff in one pass)."""

import statistics
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _cases import PATHS, _through_evaluate, evaluate_requests, function_of
from _reference import random_case, reference
from sklearn_rank_metrics._engine._options import Options
from sklearn_rank_metrics._engine.prepare._prepare import Inputs
from sklearn_rank_metrics._engine.run._curve import curve_results
from sklearn_rank_metrics._engine.spec import METRICS, CurveRequests, Request
from sklearn_rank_metrics.metrics._query_results import query_results
from sklearn_rank_metrics.plot import CURVE_METRICS, RankingCurveDisplay
from sklearn_rank_metrics.plot._curve_values import FALLING_BEYOND_LISTS

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


def stops_early(metric, end, k_max, owner=OWNER):
    """The warning of a precision or f1 curve that stops at ``end``, the longest list."""
    return pytest.warns(
        UserWarning,
        match=rf"^{owner}: the {metric} curve stops at k={end}, the longest list, not at "
        rf"k_max={k_max}; beyond it {metric}@k = .* keeps falling\. The metric gives it at any k",
    )


def curve_warnings(caught):
    """The warnings of ``caught`` that say a curve stops before k_max."""
    return [w for w in caught if "curve stops at k=" in str(w.message)]


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
    longest = y_true.shape[1] if qid is None else np.unique(qid, return_counts=True)[1].max()
    end = longest  # the longest list: 29 or 12; the curve stops there for every metric
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        display = RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, metric=metric, k_max=35, **options
        )
    assert len(curve_warnings(caught)) == (metric in FALLING_BEYOND_LISTS)
    np.testing.assert_array_equal(display.k_, np.arange(1, end + 1))
    expected = [
        function_of(metric)(y_true, y_score, qid=qid, k=int(k), **options) for k in display.k_
    ]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12, atol=1e-12)
    if metric not in FALLING_BEYOND_LISTS:  # beyond the longest list: the curve's last value
        for k in (longest + 1, 35, 10**12):
            beyond = function_of(metric)(y_true, y_score, qid=qid, k=k, **options)
            np.testing.assert_allclose(beyond, display.values_[-1], rtol=1e-12, atol=1e-12)
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
        "sklearn_rank_metrics._engine.run._run.chunk_rows", lambda n_documents, n_threads: 300
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
        "sklearn_rank_metrics._engine.run._run.chunk_rows", lambda n_documents, n_threads: 500
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
    from sklearn_rank_metrics.plot._curve_values import _curve_results

    y_true, y_score, qid = short_lists_and_one_long(n_short=8000, short=2, long=300)
    curve = CurveRequests(METRICS["recall"], 300)
    per_cutoff = curve_results(curve, Inputs(y_true, y_score, qid), Options())
    means, spreads = _curve_results(METRICS["recall"], map(query_results, per_cutoff), band=True)
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
    np.testing.assert_array_equal(display.k_, [1, 2, 3, 4])  # the longest list
    expected = [srm.ndcg_score(y_true, y_score, qid=qid, k=k, gain="exponential") for k in range(1, 5)]
    np.testing.assert_allclose(display.values_, expected, rtol=1e-12)
    assert np.all(np.isfinite(display.values_))


@pytest.mark.parametrize("metric", CURVE_METRICS)
def test_a_huge_k_max_stops_at_the_longest_list(metric):
    """k_max=10**12 over lists of at most 29 documents: the curve of k_max=29, at once; the
    metric beyond the longest list is the curve's last value, but for precision and f1, which
    keep falling there: their curves stop at the longest list too, and say so."""
    import time

    y_true, y_score, qid = tied_flat_case(4)
    longest = int(np.unique(qid, return_counts=True)[1].max())
    options = {"gain": "exponential"} if metric in GRADED else {}
    falling = metric in FALLING_BEYOND_LISTS
    start = time.perf_counter()
    with stops_early(metric, longest, 10**12) if falling else warnings.catch_warnings():
        huge = RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, metric=metric, k_max=10**12, **options
        )
    assert time.perf_counter() - start < 5  # k_max=10**6 took minutes, 10**12 never ended
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, metric=metric, k_max=longest, **options
        )
    assert curve_warnings(caught) == []  # k_max <= longest: the curve is all it asks for
    np.testing.assert_array_equal(huge.k_, np.arange(1, longest + 1))
    np.testing.assert_array_equal(huge.values_, exact.values_)
    for k in (longest + 1, 10**6, 10**12):
        beyond = function_of(metric)(y_true, y_score, qid=qid, k=k, **options)
        if not falling:
            np.testing.assert_allclose(beyond, huge.values_[-1], rtol=1e-12, atol=1e-12)
        elif metric == "precision":  # every query's hits are final: the mean falls as 1 / k
            np.testing.assert_allclose(beyond, huge.values_[-1] * longest / k, rtol=1e-12)
        else:
            assert beyond < huge.values_[-1]


@pytest.mark.parametrize("metric", sorted(FALLING_BEYOND_LISTS))
def test_the_stop_of_a_falling_curve_warns_once_at_the_callers_line_with_the_function(metric):
    y_true, y_score, qid = tied_flat_case(4)
    longest = int(np.unique(qid, return_counts=True)[1].max())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, metric=metric, k_max=longest + 1
        )
    (found,) = curve_warnings(caught)
    assert issubclass(found.category, UserWarning) and found.filename == __file__
    assert f"e.g. {metric}_at_k_score(y_true, y_score, qid=qid, k={longest + 1})" in str(
        found.message
    )
    for k_max in (1, longest - 1, longest):  # no warning where the curve reaches k_max
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            display = RankingCurveDisplay.from_predictions(
                y_true, y_score, qid=qid, metric=metric, k_max=k_max
            )
        assert curve_warnings(caught) == [] and display.k_.shape == (k_max,)
        plt.close("all")


def test_the_curve_goes_on_while_n_relevant_exceeds_the_lists():
    """recall_cap = hits / min(k, R) changes until k reaches R, beyond the lists."""
    y_true, y_score, qid = tied_flat_case(5)
    n_relevant = {q: 60 for q in np.unique(qid)}
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, qid=qid, metric="recall_cap", k_max=10**12, n_relevant=n_relevant
    )
    np.testing.assert_array_equal(display.k_, np.arange(1, 61))
    for k in (1, 30, 45, 60, 61, 10**9):
        expected = srm.recall_cap_score(y_true, y_score, qid=qid, k=k, n_relevant=n_relevant)
        np.testing.assert_allclose(display.values_[min(k, 60) - 1], expected, rtol=1e-12)


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


# ------------------------------------------------------ from a TREC run
def _run_curve_case(seed):
    """Random qrels and run DataFrames: graded and negative judgments, unjudged and unretrieved
    documents, ties, a query of the run without judgments and a judged query without a run."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(12):
        docs = [f"d{d}" for d in rng.choice(60, rng.integers(1, 40), replace=False)]
        judged = rng.random(len(docs)) < 0.7
        if q != 10:  # query 10: judged, not retrieved
            scores = rng.integers(0, 5, len(docs)) / 4
            run += [(f"q{q}", d, s) for d, s in zip(docs, scores) if rng.random() < 0.8]
        if q != 11:  # query 11: retrieved, not judged
            grades = rng.choice([-1, 0, 0, 1, 2, 3], len(docs))
            qrels += [(f"q{q}", d, g) for d, g, j in zip(docs, grades, judged) if j]
            qrels.append((f"q{q}", "unretrieved", int(rng.integers(0, 3))))
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


def _evaluate_run_at(qrels, run, metric, k_max, **options):
    """``evaluate_run``'s ``metric@k`` for k = 1 .. k_max (one call: each measure is its own)."""
    names = [f"{metric}@{k}" for k in range(1, k_max + 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srm.trec.UnevaluatedQueriesWarning)
        means = srm.trec.evaluate_run(qrels, run, metrics=names, **options)
    return [means[name] for name in names]


RUN_METRICS = ["ndcg", "dcg", "map", "precision", "recall", "mrr", "recall_cap", "f1", "hit_rate"]


@pytest.mark.parametrize("ties", [None, "average", "trec_eval", "first", "pessimistic"])
@pytest.mark.parametrize("metric", RUN_METRICS)
def test_from_run_is_evaluate_run_at_every_cutoff_on_the_example(metric, ties):
    from sklearn_rank_metrics.datasets import load_trec_example

    qrels, run = load_trec_example()  # runs of 10 documents, pools of up to 17
    given = {} if ties is None else {"ties": ties}  # None: evaluate_run's default
    end = 17  # the longest judged list; the curve stops there for every metric
    falling = metric in FALLING_BEYOND_LISTS
    owner = "RankingCurveDisplay.from_run"
    with stops_early(metric, end, 25, owner) if falling else warnings.catch_warnings():
        display = RankingCurveDisplay.from_run(qrels, run, metric=metric, k_max=25, ties=ties)
    np.testing.assert_array_equal(display.k_, np.arange(1, end + 1))
    expected = _evaluate_run_at(qrels, run, metric, 25, **given)
    np.testing.assert_allclose(display.values_, expected[:end], rtol=1e-12, atol=1e-15)
    if falling:  # beyond the lists precision and f1 keep falling, as the warning says
        assert np.all(np.diff(expected[end - 1 :]) < 0)
    else:
        np.testing.assert_allclose(expected[end:], display.values_[-1], rtol=1e-12, atol=1e-15)
    assert display.line_.get_label() == "linear"  # the run's name


def test_from_run_ndcg_at_10_counts_the_judged_documents_the_run_missed():
    from sklearn_rank_metrics.datasets import load_trec_example

    qrels, run = load_trec_example()
    display = RankingCurveDisplay.from_run(qrels, run, k_max=10, ties="trec_eval")
    expected = srm.trec.evaluate_run(qrels, run, metrics=["ndcg@10"], ties="trec_eval")
    assert display.values_[9] == pytest.approx(expected["ndcg@10"], rel=1e-12)
    merged = srm.trec.read_trec_run(run).merge(
        srm.trec.read_trec_qrels(qrels), on=["query_id", "doc_id"], how="left"
    )  # the run merged by hand: the ideal DCG of the retrieved documents only
    by_hand = srm.ndcg_score(
        merged["relevance"].fillna(0).clip(lower=0), merged["score"], qid=merged["query_id"], k=10
    )
    assert by_hand > display.values_[9] + 0.01


@pytest.mark.parametrize(
    "options",
    [{}, {"ties": "trec_eval"}, {"ties": "first", "missing_queries": "zero"},
     {"ties": "optimistic", "relevance_level": 2}, {"ties": "trec_eval", "max_docs": 7},
     {"ties": "average", "judged_only": True}, {"ties": "trec_eval", "trec_eval_version": "9"}],
)  # fmt: skip
@pytest.mark.parametrize("seed", range(3))
def test_from_run_is_evaluate_run_at_every_cutoff_on_random_runs(seed, options):
    qrels, run = _run_curve_case(seed)
    for metric in ("ndcg", "map", "precision", "recall", "mrr", "recall_cap"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            display = RankingCurveDisplay.from_run(qrels, run, metric=metric, k_max=50, **options)
        expected = _evaluate_run_at(qrels, run, metric, 50, **options)
        n = display.k_.shape[0]
        assert len(curve_warnings(caught)) == (metric == "precision" and n < 50)
        np.testing.assert_array_equal(display.k_, np.arange(1, n + 1))
        np.testing.assert_allclose(display.values_, expected[:n], rtol=1e-12, atol=1e-15)
        if metric != "precision":
            np.testing.assert_allclose(expected[n:], display.values_[-1], rtol=1e-12, atol=1e-15)
        plt.close("all")


def test_from_run_reads_files_and_takes_a_huge_k_max(tmp_path):
    qrels, run = _run_curve_case(7)
    run.assign(q0="Q0", rank=1, name="bm25")[["query_id", "q0", "doc_id", "rank", "score", "name"]].to_csv(
        tmp_path / "run.txt", sep=" ", header=False, index=False
    )
    qrels.assign(iteration=0)[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        tmp_path / "qrels.txt", sep=" ", header=False, index=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srm.trec.UnevaluatedQueriesWarning)
        from_files = RankingCurveDisplay.from_run(
            tmp_path / "qrels.txt", str(tmp_path / "run.txt"), k_max=10**12, ties="trec_eval"
        )
        from_frames = RankingCurveDisplay.from_run(qrels, run, k_max=41, ties="trec_eval")
    np.testing.assert_array_equal(from_files.values_, from_frames.values_)
    assert from_files.line_.get_label() == "bm25"


@pytest.mark.parametrize("metric", sorted(FALLING_BEYOND_LISTS))
def test_from_run_precision_and_f1_stop_at_the_longest_list_with_a_huge_k_max(metric):
    """The run's curve stops at its longest ranked or judged list (17) for precision and f1
    too: k_max=10**12 is the curve of k_max=17, fast, with the warning naming evaluate_run."""
    import time

    from sklearn_rank_metrics.datasets import load_trec_example

    qrels, run = load_trec_example()
    owner = "RankingCurveDisplay.from_run"
    start = time.perf_counter()
    with stops_early(metric, 17, 10**12, owner) as caught:
        huge = RankingCurveDisplay.from_run(qrels, run, metric=metric, k_max=10**12)
    assert time.perf_counter() - start < 5
    (found,) = curve_warnings(caught)
    assert f"evaluate_run(qrels, run, metrics=['{metric}@{10**12}'])" in str(found.message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = RankingCurveDisplay.from_run(qrels, run, metric=metric, k_max=17)
    assert curve_warnings(caught) == []
    np.testing.assert_array_equal(huge.k_, np.arange(1, 18))
    np.testing.assert_array_equal(huge.values_, exact.values_)
    beyond = srm.trec.evaluate_run(qrels, run, metrics=[f"{metric}@{10**12}"])  # as it says
    assert beyond[f"{metric}@{10**12}"] < huge.values_[-1]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [({"metric": "bpref"}, ValueError, "'bpref' has no cutoff"),
     ({"k_max": 0}, ValueError, "k_max=0"),
     ({"ties": "random"}, ValueError, "ties='random'"),
     ({"missing_queries": "drop"}, ValueError, "missing_queries='drop'")],
)  # fmt: skip
def test_from_run_wrong_arguments_raise_naming_them(kwargs, error, match):
    from sklearn_rank_metrics.datasets import load_trec_example

    with pytest.raises(error, match=match) as raised:
        RankingCurveDisplay.from_run(*load_trec_example(), **kwargs)
    assert str(raised.value).startswith("RankingCurveDisplay.from_run: ")


def test_from_run_of_rankings_emptied_by_judged_only_raises():
    # evaluate_run ranks a placeholder document of no one's query when no
    # document is left; a curve's means could not leave it out again.
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["c"], "score": [1.0]})
    assert srm.trec.evaluate_run(qrels, run, metrics=["ndcg@5"], judged_only=True) == {"ndcg@5": 0.0}
    with pytest.raises(ValueError, match="from_run: no document of the run is left"):
        RankingCurveDisplay.from_run(qrels, run, metric="ndcg", k_max=5, judged_only=True)


@pytest.mark.parametrize("trec_eval_version, first", [("10", 1.0), ("9", 0.0)])
def test_from_run_cuts_at_max_docs_before_checking_repeats_as_evaluate_run(
    trec_eval_version, first
):
    # "a" is repeated below the -M cut, which trec_eval does not check; in
    # single precision (trec_eval 9) "a" and "b" tie and "b" comes first by id.
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame(
        {"query_id": ["1"] * 3, "doc_id": ["a", "b", "a"], "score": [1.00000001, 1.0, 0.5]}
    )
    options = dict(max_docs=2, trec_eval_version=trec_eval_version)
    display = RankingCurveDisplay.from_run(qrels, run, metric="ndcg", k_max=2, **options)
    expected = [
        srm.trec.evaluate_run(qrels, run, metrics=[f"ndcg@{k}"], **options)[f"ndcg@{k}"]
        for k in (1, 2)
    ]
    assert expected[0] == first
    np.testing.assert_array_equal(display.values_, expected)
