"""Comparing models: paired tests, corrections, intervals and the result's table and chart.

The tests are checked against scipy (t, Wilcoxon, exact permutation test,
BCa bootstrap), statsmodels (corrections) and slow loop-based references
(randomization test, studentized bootstrap test, randomized Tukey HSD),
within Monte-Carlo error where they are random.
"""

import inspect
import re
import runpy
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine.spec import QueryValues
from sklearn_rank_metrics._engine.run._finalize import finish
from sklearn_rank_metrics.metrics._query_results import QueryResults
from sklearn_rank_metrics.comparison import ComparisonResults, compare, compare_results
from sklearn_rank_metrics.comparison._corrections import adjust
from sklearn_rank_metrics.comparison._resampling import bca_interval, bootstrap_means

COLUMNS = [
    "model", "metric", "mean", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high",
    "effect_size", "p_value", "p_adjusted", "reject", "wins", "ties", "losses", "n_queries",
]  # fmt: skip


def _results(query_ids=None, weights=None, **values):
    """QueryResults holding the given per-query values (one array per metric)."""
    first = next(iter(values.values()))
    query_ids = np.arange(len(first)) if query_ids is None else np.asarray(query_ids)
    finished = {name: finish(QueryValues(np.asarray(v, dtype=float)), "zero") for name, v in values.items()}
    return QueryResults(query_ids, finished, weights)


def _paired(n=30, shift=0.0, seed=0, discrete=False):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + shift + 0.2 * rng.standard_normal(n)
    if discrete:
        a, b = np.round(a * 4) / 4, np.round(b * 4) / 4
    return a, b


def _compare_two(a, b, **options):
    options.setdefault("random_state", 0)
    return compare_results({"a": _results(m=a), "b": _results(m=b)}, **options)


def _row(result, model="b", metric="m"):
    c = result.columns
    (index,) = np.flatnonzero((c["model"] == model) & (c["metric"] == metric) & ~np.isnan(c["diff"]))
    return {key: column[index] for key, column in c.items()}


# ------------------------------------------------------------- known answers
@pytest.mark.parametrize("test", ["permutation", "t", "bootstrap", "wilcoxon"])
def test_identical_systems_have_difference_zero_p_one_and_only_ties(test):
    a, _ = _paired()
    row = _row(_compare_two(a, a.copy(), test=test, n_resamples=500))
    assert row["diff"] == 0 and row["diff_ci_low"] == 0 and row["diff_ci_high"] == 0
    assert row["p_value"] == 1 and row["p_adjusted"] == 1 and row["reject"] == 0
    assert (row["wins"], row["ties"], row["losses"]) == (0, 30, 0)
    assert row["effect_size"] == 0


@pytest.mark.parametrize("test", ["permutation", "t", "bootstrap", "wilcoxon"])
def test_a_dominated_system_is_significantly_worse(test):
    a, b = _paired(n=40, shift=0.3)
    row = _row(_compare_two(a, b, test=test, n_resamples=2000))
    assert row["diff"] == pytest.approx(np.mean(b - a))
    assert row["p_value"] < 1e-3 and row["reject"] == 1
    assert 0 < row["diff_ci_low"] < row["diff"] < row["diff_ci_high"]
    assert row["wins"] > 30


def test_wins_of_a_lower_is_better_metric_are_the_queries_where_it_is_lower():
    a, b = _paired(n=40, shift=0.3)  # b above a on most queries
    frames = {
        name: compare_results(
            {"a": _results(**{name: a}), "b": _results(**{name: b})}, random_state=0
        ).columns
        for name in ("precision@5", "fallout@5")
    }
    above, below = int(np.sum(b - a > 1e-12)), int(np.sum(b - a < -1e-12))
    assert (frames["precision@5"]["wins"][1], frames["precision@5"]["losses"][1]) == (above, below)
    assert (frames["fallout@5"]["wins"][1], frames["fallout@5"]["losses"][1]) == (below, above)
    np.testing.assert_array_equal(frames["fallout@5"]["diff"], frames["precision@5"]["diff"])
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = compare_results({"a": _results(fallout=a), "b": _results(fallout=b)}, random_state=0)
    ax = result.plot_differences("fallout")
    heights = np.array([bar.get_height() for bar in ax.patches])
    np.testing.assert_allclose(heights, np.sort(b - a), atol=1e-15)  # wins (lower) first
    assert f"{below} wins" in ax.get_title()
    plt.close("all")


def test_randomized_p_value_is_never_zero():
    a, b = _paired(n=60, shift=1.0)  # b wins every query by far: no flip reaches it
    row = _row(_compare_two(a, b, n_resamples=999))
    assert row["p_value"] == 1 / 1000


def test_effect_size_is_mean_difference_over_sd_of_differences():
    a, b = _paired(n=35, shift=0.05)
    row = _row(_compare_two(a, b, n_resamples=100))
    assert row["effect_size"] == pytest.approx(np.mean(b - a) / np.std(b - a, ddof=1), rel=1e-12)


@pytest.mark.parametrize("shift", [0.1, -0.3, 0.0])
def test_a_constant_difference_up_to_rounding_is_infinite_effect(shift):
    # b - a is `shift` for every query, but varies in its last bits (x + 0.1 - x): the ratio
    # of the mean to that rounding noise used to be a huge finite effect size.
    a = np.random.default_rng(3).random(40) * 7
    b = a + shift
    assert np.std(b - a, ddof=1) > 0 or shift == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = _row(_compare_two(a, b, n_resamples=100))
    assert row["effect_size"] == (np.sign(shift) * np.inf if shift else 0.0)


# -------------------------------------------------------- equality with scipy
def test_t_test_equals_scipy_ttest_rel():
    a, b = _paired(n=30, shift=0.05)
    assert _row(_compare_two(a, b, test="t", n_resamples=100))["p_value"] == pytest.approx(
        stats.ttest_rel(b, a).pvalue, rel=1e-12
    )


@pytest.mark.parametrize("n", [15, 80])  # exact and normal approximation
def test_wilcoxon_equals_scipy_wilcoxon(n):
    a, b = _paired(n=n, shift=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 15 queries: too few, it warns
        row = _row(_compare_two(a, b, test="wilcoxon", n_resamples=100))
    assert row["p_value"] == pytest.approx(stats.wilcoxon(b - a).pvalue, rel=1e-12)


def test_wilcoxon_p_value_of_each_column_equals_scipy_on_that_column_alone():
    # scipy's automatic method is exact for a small column without zeros or ties and the normal
    # approximation otherwise (and beyond 50 queries): each (model, metric) must get its own.
    rng = np.random.default_rng(3)
    n = 40
    base = {"smooth": rng.random(n), "coarse": np.round(rng.random(n) * 4) / 4, "sparse": rng.random(n)}
    shifted = {
        "b": {"smooth": base["smooth"] + 0.05 + 0.2 * rng.standard_normal(n),  # exact
              "coarse": np.round((base["coarse"] + 0.3 * rng.standard_normal(n)) * 4) / 4,  # ties, zeros
              "sparse": base["sparse"] + 0.1 * rng.standard_normal(n)},
        "c": {"smooth": np.where(np.arange(n) < 5, base["smooth"], base["smooth"] + rng.random(n)),  # zeros
              "coarse": base["coarse"] + rng.random(n) - 0.4,  # no ties: exact
              "sparse": base["sparse"] + 0.2 * rng.standard_normal(n)},
    }  # fmt: skip
    skipped = np.arange(n) % 3 == 0  # "sparse" is compared on fewer queries, a group of its own

    def results(values):
        return QueryResults(np.arange(n), {
            name: finish(QueryValues(v, skipped if name == "sparse" else None), "skip")
            for name, v in values.items()
        }, None)  # fmt: skip

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = compare_results(
            {"a": results(base), "b": results(shifted["b"]), "c": results(shifted["c"])},
            test="wilcoxon", random_state=0,
        )  # fmt: skip
        methods = set()
        for model in ("b", "c"):
            for metric in base:
                kept = ~skipped if metric == "sparse" else np.ones(n, dtype=bool)
                column = (shifted[model][metric] - base[metric])[kept]
                expected = stats.wilcoxon(column).pvalue
                # exact or not: older scipy's "exact" itself falls back to the normal
                # approximation where a column has zeros, so compare with "approx".
                methods.add(expected != stats.wilcoxon(column, method="approx").pvalue)
                assert _row(result, model, metric)["p_value"] == expected, (model, metric)
    assert methods == {True, False}  # the columns do differ in scipy's method


@pytest.mark.parametrize("discrete", [False, True], ids=["continuous", "tied differences"])
def test_exact_permutation_test_equals_scipy_permutation_test(discrete):
    a, b = _paired(n=12, shift=0.1, discrete=discrete)
    with pytest.warns(UserWarning, match="Only 12 queries"):
        row = _row(_compare_two(a, b, n_resamples=2**12))
    expected = stats.permutation_test(
        (b, a), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        n_resamples=np.inf, vectorized=True,
    ).pvalue  # fmt: skip
    assert row["p_value"] == pytest.approx(expected, rel=1e-12)
    assert round(row["p_value"] * 2**12) == pytest.approx(row["p_value"] * 2**12)  # b / 2**n


def test_bca_interval_equals_scipy_bootstrap_bca():
    x = np.random.default_rng(3).gamma(2.0, size=(50, 1))
    means = bootstrap_means(x, 2000, np.random.default_rng(7))
    low, high = bca_interval(x, means, 0.9)
    # scipy >= 1.15 names the generator rng, older versions random_state
    keyword = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
    expected = stats.bootstrap(
        (x[:, 0],), np.mean, n_resamples=2000, confidence_level=0.9, method="BCa",
        **{keyword: np.random.default_rng(7)},
    ).confidence_interval  # fmt: skip
    assert (low[0], high[0]) == pytest.approx((expected.low, expected.high), rel=1e-10)


# ------------------------------------------------ slow references, Monte Carlo
def _within_monte_carlo(p, reference, n_resamples):
    assert abs(p - reference) < 5 * np.sqrt(reference * (1 - reference) / n_resamples) + 2 / n_resamples


def test_randomized_permutation_test_agrees_with_a_loop():
    a, b = _paired(n=40, shift=0.04, seed=1)
    d = b - a
    rng = np.random.default_rng(11)
    n_loop = 4000
    hits = sum(abs(np.sum(rng.choice([-1, 1], size=d.size) * d)) >= abs(d.sum()) for _ in range(n_loop))
    reference = (hits + 1) / (n_loop + 1)
    assert 0.01 < reference < 0.9  # a p-value where the check has power
    _within_monte_carlo(_row(_compare_two(a, b, n_resamples=20000))["p_value"], reference, n_loop)


def test_bootstrap_test_agrees_with_a_loop():
    a, b = _paired(n=40, shift=0.04, seed=1)
    d = b - a
    t_observed = abs(d.mean() / (d.std(ddof=1) / np.sqrt(d.size)))
    z = d - d.mean()
    rng = np.random.default_rng(5)
    n_loop = 4000
    hits = 0
    for _ in range(n_loop):
        sample = z[rng.integers(0, d.size, d.size)]
        hits += abs(sample.mean() / (sample.std(ddof=1) / np.sqrt(d.size))) >= t_observed
    reference = (hits + 1) / (n_loop + 1)
    assert 0.01 < reference < 0.9
    _within_monte_carlo(_row(_compare_two(a, b, test="bootstrap", n_resamples=20000))["p_value"], reference, n_loop)


def test_tukey_hsd_agrees_with_a_loop():
    rng = np.random.default_rng(2)
    base = rng.random(30)
    systems = {name: base + shift + 0.15 * rng.standard_normal(30) for name, shift in
               zip("abcd", (0.0, 0.02, 0.05, 0.12))}  # fmt: skip
    result = compare_results({k: _results(m=v) for k, v in systems.items()}, pairs="all",
                             n_resamples=20000, random_state=0)  # fmt: skip
    values = np.column_stack(list(systems.values()))
    n_loop = 3000
    spreads = np.empty(n_loop)
    for r in range(n_loop):
        shuffled = np.array([row[rng.permutation(4)] for row in values])
        means = shuffled.mean(axis=0)
        spreads[r] = means.max() - means.min()
    checked = 0
    for model, baseline in result.pairs:
        row = [i for i in range(len(result.columns["model"])) if result.columns["model"][i] == model
               and result.columns["baseline"][i] == baseline][0]  # fmt: skip
        observed = abs(systems[model].mean() - systems[baseline].mean())
        reference = (np.sum(spreads >= observed) + 1) / (n_loop + 1)
        _within_monte_carlo(result.columns["p_adjusted"][row], reference, n_loop)
        checked += 0.01 < reference < 0.9
    assert checked >= 2
    # the pairwise, unadjusted p-values are the paired randomization test of each pair
    assert result.columns["p_value"][~np.isnan(result.columns["diff"])].min() < 0.05


@pytest.mark.parametrize("n_systems", [2, 3, 4, 5, 13, 40])  # beyond 12 systems, several draws per permutation
def test_shuffles_within_a_query_are_uniform_permutations(n_systems):
    from sklearn_rank_metrics.comparison._resampling import random_permutations

    order = random_permutations(n_systems, 120_000, np.random.default_rng(0)).T.astype(np.int64)
    assert np.array_equal(np.sort(order, axis=1), np.broadcast_to(np.arange(n_systems), order.shape))
    if n_systems <= 5:  # every permutation equally often
        _, counts = np.unique(order @ n_systems ** np.arange(n_systems), return_counts=True)
        assert counts.size == np.prod(np.arange(1, n_systems + 1))
        assert stats.chisquare(counts).pvalue > 1e-4
    # every system in every place equally often, and every ordered pair of systems in places 0 and 1
    places = np.array([np.bincount(order[:, j], minlength=n_systems) for j in range(n_systems)])
    assert stats.chisquare(places.ravel()).pvalue > 1e-4
    pairs = np.bincount(order[:, 0] * n_systems + order[:, 1], minlength=n_systems**2)
    assert stats.chisquare(pairs[pairs > 0]).pvalue > 1e-4
    assert np.count_nonzero(pairs) == n_systems * (n_systems - 1)


def test_tukey_hsd_of_identical_systems_is_one():
    a, _ = _paired()
    result = compare_results({k: _results(m=a) for k in "abc"}, pairs="all", n_resamples=200, random_state=0)
    assert np.all(result.columns["p_adjusted"][~np.isnan(result.columns["diff"])] == 1)


def _tukey_loop(values, n_loop, rng):
    """Ranges (max - min) of the systems' means, per metric, of ``n_loop`` shuffles of every query."""
    n, n_systems, _ = values.shape
    spreads = np.empty((n_loop, values.shape[2]))
    for r in range(n_loop):
        shuffled = np.array([values[i, rng.permutation(n_systems)] for i in range(n)])  # one per query
        means = shuffled.mean(axis=0)  # (n_systems, n_metrics)
        spreads[r] = means.max(axis=0) - means.min(axis=0)
    return spreads


def test_tukey_hsd_of_ten_systems_and_several_metrics_agrees_with_a_loop():
    from sklearn_rank_metrics.comparison._resampling import tukey_hsd_pvalues

    rng = np.random.default_rng(8)
    n, n_systems = 32, 10  # 28 queries that differ, in groups of three, the last one padded
    base = rng.random((n, 1, 2))
    values = base + np.linspace(0, 0.2, n_systems)[None, :, None] + 0.25 * rng.standard_normal((n, n_systems, 2))
    values = np.concatenate([values, values[:, :, :1]], axis=2)  # a third metric, a copy of the first
    values[:4] = values[:4, :1]  # queries where every system is equal
    pairs = [(a, b) for a in range(n_systems) for b in range(a + 1, n_systems)]
    p_values = tukey_hsd_pvalues(values, pairs, 20000, np.random.default_rng(0))
    np.testing.assert_array_equal(p_values[2], p_values[0])  # the metrics share every shuffle
    n_loop = 2000
    spreads = _tukey_loop(values, n_loop, rng)
    checked = 0
    for metric in range(2):
        for number, (a, b) in enumerate(pairs):
            observed = abs(values[:, a, metric].mean() - values[:, b, metric].mean())
            reference = (np.sum(spreads[:, metric] >= observed) + 1) / (n_loop + 1)
            p = p_values[metric, number]
            spread = np.sqrt(reference * (1 - reference) / n_loop + p * (1 - p) / 20000)  # both are estimates
            assert abs(p - reference) < 5 * spread + 2 / n_loop
            checked += 0.01 < reference < 0.9
    assert checked >= 10


@pytest.mark.parametrize(("n_systems", "n_metrics", "n_queries"), [(10, 4, 7), (2, 1, 23), (3, 2, 11), (40, 3, 5)])
def test_permuted_sums_of_query_groups_equal_a_loop(n_systems, n_metrics, n_queries):
    from sklearn_rank_metrics.comparison import _resampling

    rng = np.random.default_rng(n_systems)
    size = _resampling._group_size(n_systems, 8 * n_metrics)
    n_groups = -(-n_queries // size)
    values = np.zeros((n_groups * size, n_systems, n_metrics))
    values[:n_queries] = rng.random((n_queries, n_systems, n_metrics))
    values = values.reshape(n_groups, size, n_systems, n_metrics)
    count = 6
    order = _resampling.random_permutations(n_systems, size * n_groups * count, rng)
    order = order.reshape(n_systems, size, n_groups, count)
    sums = _resampling._permuted_sums(_resampling._group_tables(values), order, n_systems)
    expected = np.zeros((n_systems, count, n_metrics))
    for place in range(n_systems):
        for member in range(size):
            for group in range(n_groups):
                for resample in range(count):
                    expected[place, resample] += values[group, member, order[place, member, group, resample]]
    np.testing.assert_allclose(sums.reshape(n_systems, count, n_metrics), expected, rtol=1e-13)


def test_tukey_hsd_leaves_out_equal_queries_and_is_the_same_on_any_number_of_threads():
    from sklearn_rank_metrics.comparison._resampling import tukey_hsd_pvalues

    rng = np.random.default_rng(3)
    values = rng.random((300, 5, 2)) + np.linspace(0, 0.1, 5)[None, :, None]
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    with srm.config_context(n_threads=1):
        alone = tukey_hsd_pvalues(values, pairs, 2100, np.random.default_rng(0))
    with srm.config_context(n_threads=2):  # 300 queries x 2100 resamples: enough for threads
        threaded = tukey_hsd_pvalues(values, pairs, 2100, np.random.default_rng(0))
    np.testing.assert_array_equal(threaded, alone)
    equal = np.concatenate([values, np.repeat(rng.random((50, 1, 2)), 5, axis=1)])  # the same for every system
    np.testing.assert_array_equal(tukey_hsd_pvalues(equal, pairs, 2100, np.random.default_rng(0)), alone)


# ----------------------------------------------------------------- corrections
@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_equal_statsmodels_multipletests(method):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(0)
    for p_values in (rng.random(7) * 0.1, np.array([0.01, 0.04, 0.04, 0.2, 0.01, 0.9]), np.array([0.3])):
        expected = multitest.multipletests(p_values, alpha=0.05, method=method)[1]
        np.testing.assert_allclose(adjust(p_values, method), expected, rtol=1e-12)


def test_the_family_is_each_metric_without_the_baseline():
    rng = np.random.default_rng(4)
    base = {"x": rng.random(40), "y": rng.random(40)}
    models = {name: _results(**{m: v + shift + 0.1 * rng.standard_normal(40) for m, v in base.items()})
              for name, shift in (("a", 0.0), ("b", 0.03), ("c", 0.06), ("d", -0.02))}  # fmt: skip
    for correction in ("holm", "bonferroni", "fdr_bh", None):
        result = compare_results(models, baseline="c", test="t", correction=correction, n_resamples=100)
        c = result.columns
        for metric in ("x", "y"):
            rows = (c["metric"] == metric) & ~np.isnan(c["diff"])
            assert list(c["model"][rows]) == ["a", "b", "d"]
            assert np.all(np.isnan(c["p_value"][(c["metric"] == metric) & (c["model"] == "c")]))
            np.testing.assert_allclose(c["p_adjusted"][rows], adjust(c["p_value"][rows], correction))
            assert list(c["reject"][rows]) == list((c["p_adjusted"][rows] <= 0.05).astype(int))


# --------------------------------------------------------------- reproducible
def test_seeded_runs_are_reproducible():
    a, b = _paired(n=40, shift=0.03)
    models = {"a": _results(m=a), "b": _results(m=b), "c": _results(m=(a + b) / 2)}
    for options in ({"test": "permutation"}, {"test": "bootstrap"}, {"pairs": "all"}):
        first = compare_results(models, n_resamples=300, random_state=42, **options).columns
        again = compare_results(models, n_resamples=300, random_state=42, **options).columns
        other = compare_results(models, n_resamples=300, random_state=43, **options).columns
        for key in ("ci_low", "diff_ci_high", "p_value", "p_adjusted"):
            np.testing.assert_array_equal(first[key], again[key])
        assert not np.array_equal(first["ci_low"], other["ci_low"])
    generator = compare_results(models, n_resamples=300, random_state=np.random.default_rng(42)).columns
    np.testing.assert_array_equal(generator["ci_low"],
                                  compare_results(models, n_resamples=300, random_state=42).columns["ci_low"])  # fmt: skip


# ------------------------------------------------------------ compare, errors
def test_compare_evaluates_each_model_once_and_equals_compare_results():
    from sklearn_rank_metrics.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=30, random_state=0)
    scores = {"f0": X[:, 0], "f1": X[:, 1], "f2": X[:, 2]}
    metrics = ["ndcg@5", "map"]
    direct = compare(y, scores, qid=qid, metrics=metrics, n_resamples=300, random_state=1)
    results = {k: srm.evaluate(y, s, qid=qid, metrics=metrics, average=None) for k, s in scores.items()}
    via = compare_results(results, n_resamples=300, random_state=1)
    for key in COLUMNS[2:]:
        np.testing.assert_array_equal(direct.columns[key], via.columns[key])
    means = direct.columns["mean"][direct.columns["metric"] == "map"]
    np.testing.assert_allclose(means, [results[k].mean("map") for k in scores], rtol=1e-12)


def test_missing_queries_are_named():
    a, b = _paired(n=30)
    with pytest.raises(ValueError, match=r"'b' lacks 2 queries of 'a': \[3, 7\]"):
        compare_results({"a": _results(m=a), "b": _results(np.delete(np.arange(30), [3, 7]), m=b[:28])})
    with pytest.raises(ValueError, match=r"'b' has 1 queries that 'a' lacks: \[99\]"):
        compare_results({"a": _results(m=a), "b": _results([*range(29), 99], m=b)})


def test_trec_runs_missing_topics_are_told_of_missing_queries_zero():
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.trec import UnevaluatedQueriesWarning, evaluate_run

    topics = [f"t{i}" for i in range(30)]
    qrels = pd.DataFrame({"query_id": topics, "doc_id": "d1", "relevance": 1})
    run_a = pd.DataFrame({"query_id": topics, "doc_id": "d1", "score": 1.0})
    run_b = run_a.iloc[1:]  # retrieved nothing for t0
    with pytest.warns(UnevaluatedQueriesWarning):
        results = {"a": evaluate_run(qrels, run_a, metrics=["map"], average=None),
                   "b": evaluate_run(qrels, run_b, metrics=["map"], average=None)}  # fmt: skip
    told = (r"'b' lacks 1 queries of 'a': \['t0'\]"
            r".*missing_queries='zero'.* scores 0, as trec_eval -c")
    with pytest.raises(ValueError, match=told):
        compare_results(results)
    results["b"] = evaluate_run(qrels, run_b, metrics=["map"], average=None,
                                missing_queries="zero")  # fmt: skip
    comparison = compare_results(results, n_resamples=100, random_state=0).to_frame()
    assert comparison.set_index("model").loc["b", "mean"] == pytest.approx(29 / 30)


def test_queries_in_another_order_are_paired_by_id():
    a, b = _paired(n=30)
    order = np.random.default_rng(0).permutation(30)
    shuffled = compare_results({"a": _results(m=a), "b": _results(order, m=b[order])}, n_resamples=200, random_state=0)
    straight = _compare_two(a, b, n_resamples=200)
    np.testing.assert_array_equal(shuffled.columns["p_value"], straight.columns["p_value"])


def test_unequal_query_weights_are_refused_naming_sample_weight():
    a, b = _paired(n=30)
    weights = np.linspace(1, 2, 30)
    with pytest.raises(ValueError, match="sample_weight"):
        compare_results({"a": _results(m=a, weights=weights), "b": _results(m=b, weights=weights)})
    qid = np.repeat(np.arange(30), [1, 3] * 15)  # 1 or 2 items recommended at k=2: unequal pooling
    y_true = np.random.default_rng(0).integers(0, 2, qid.size)
    pooled = {k: np.random.default_rng(seed).random(qid.size) for seed, k in enumerate("ab")}
    with pytest.raises(ValueError, match="pooled over items such as hit_rate_item"):
        compare(y_true, pooled, qid=qid, metrics=["hit_rate_item@2"])
    equal = compare_results({"a": _results(m=a, weights=np.full(30, 2.0)), "b": _results(m=b)},
                            n_resamples=100, random_state=0)  # fmt: skip
    assert _row(equal)["diff"] == pytest.approx(np.mean(b - a))


def test_queries_nan_in_some_model_are_left_out_of_that_metric_with_a_warning():
    qid = np.repeat(np.arange(32), 2)
    y_true = np.array([0, 0] + [1, 0] * 31)  # query 0 has no relevant document
    scores = {"a": np.tile([1.0, 2.0], 32), "b": np.tile([2.0, 1.0], 32)}
    with pytest.warns(UserWarning) as caught:
        result = compare(y_true, scores, qid=qid, metrics=["mrr", "ndcg"], no_relevant="skip",
                         n_resamples=200, random_state=0)  # fmt: skip
    messages = [str(w.message) for w in caught]
    assert any("1 of 32 queries are left out of the comparison" in m for m in messages)
    assert sum("no relevant document and were left out" in m for m in messages) == 2  # once per metric, not per model
    assert set(result.columns["n_queries"]) == {31}
    np.testing.assert_array_equal(result.per_query("mrr")[0], np.arange(1, 32))


def test_fewer_than_25_queries_warn():
    a, b = _paired(n=24)
    with pytest.warns(UserWarning, match="Only 24 queries are compared"):
        _compare_two(a, b, n_resamples=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _compare_two(*_paired(n=25), n_resamples=100)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"test": "fisher"}, "test must be one of"),
        ({"correction": "sidak"}, "correction must be one of"),
        ({"pairs": "every"}, "pairs must be 'baseline' or 'all'"),
        ({"pairs": "all", "baseline": "a"}, "all pairs have no baseline"),
        ({"pairs": "all", "correction": "bonferroni"}, "randomized Tukey HSD"),
        ({"baseline": "z"}, "baseline must be one of the models"),
        ({"n_resamples": 0}, "n_resamples must be a positive int"),
        ({"confidence_level": 95}, "confidence_level must be a number strictly between 0 and 1"),
        ({"alpha": 0}, "alpha must be"),
        ({"random_state": "x"}, "random_state must be"),
        ({"metrics": ["ndcg"]}, r"has no values of \['ndcg'\]"),
        ({"metrics": ["m", "m"]}, "'m' more than once"),
    ],
)
def test_wrong_options_raise_naming_the_argument(options, message):
    a, b = _paired()
    with pytest.raises(ValueError, match=message):
        _compare_two(a, b, **options)


def test_scores_must_be_a_mapping_of_models():
    y, qid = [1, 0, 0, 1], [1, 1, 2, 2]
    with pytest.raises(ValueError, match="mapping of at least two model names"):
        compare(y, np.array([[1, 2], [2, 1], [1, 2], [2, 1]]), qid=qid)
    with pytest.raises(TypeError, match="not a QueryResults"):
        compare_results({"a": {"ndcg": [1.0]}, "b": {"ndcg": [1.0]}})


def test_a_dataframe_of_scores_is_one_model_per_column():
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=30, random_state=0)
    frame = pd.DataFrame({"f0": X[:, 0], "f1": X[:, 1]})
    result = compare(y, frame, qid=qid, n_resamples=100, random_state=0)
    assert result.models == ("f0", "f1") and result.baseline == "f0"


# --------------------------------------------------------------------- output
def test_to_frame_is_tidy_with_nan_differences_for_the_baseline():
    pytest.importorskip("pandas")
    a, b = _paired(n=30, shift=0.1)
    frame = _compare_two(a, b, n_resamples=200).to_frame()
    assert list(frame.columns) == COLUMNS
    assert list(frame["model"]) == ["a", "b"]
    assert frame.loc[0, COLUMNS[5:11]].isna().all() and frame.loc[0, COLUMNS[11:15]].isna().all()
    assert frame.loc[1, "diff"] == pytest.approx(np.mean(b - a))
    assert frame.loc[1, "wins"] + frame.loc[1, "ties"] + frame.loc[1, "losses"] == 30
    assert frame.loc[0, "mean"] == pytest.approx(a.mean()) and frame.loc[0, "n_queries"] == 30
    all_pairs = compare_results({k: _results(m=v) for k, v in zip("abc", (a, b, a + 0.01))},
                                pairs="all", n_resamples=100, random_state=0).to_frame()  # fmt: skip
    assert list(all_pairs.columns) == [COLUMNS[0], "baseline", *COLUMNS[1:]]
    assert list(all_pairs["model"][3:]) == ["b", "c", "c"] and list(all_pairs["baseline"][3:]) == ["a", "a", "b"]


def test_printed_markdown_and_latex_tables_show_the_numbers():
    a, b = _paired(n=30, shift=0.1)
    result = _compare_two(a, b, n_resamples=200)
    row = _row(result)
    text, markdown, latex = str(result), result.to_markdown(), result.to_latex()
    for output in (text, markdown, latex):
        assert f"{row['diff']:+.4f}" in output and f"{a.mean():.4f}" in output
        assert f"{row['wins']}/{row['ties']}/{row['losses']}" in output
    assert "Holm" in text and "BCa" in text and repr(result) == text
    assert markdown.splitlines()[3].startswith("| --- |")
    assert latex.count(r"\\") == 3 and r"95\% CI" in latex and latex.startswith(r"\begin{table}")
    assert isinstance(result, ComparisonResults)


def test_plot_differences_draws_the_sorted_per_query_differences():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, b = _paired(n=30, shift=0.05, discrete=True)
    result = compare_results({"a": _results(m=a), "b": _results(m=b), "c": _results(m=a + 0.5)},
                             n_resamples=100, random_state=0)  # fmt: skip
    fig, ax = plt.subplots()
    assert result.plot_differences("m", ax=ax) is ax
    heights = np.array([bar.get_height() for bar in ax.patches])
    np.testing.assert_allclose(heights, np.sort(b - a)[::-1], atol=1e-15)
    assert "b - a" in ax.get_ylabel()
    assert f"{int(np.sum(b - a > 0))} wins" in ax.get_title()
    other = result.plot_differences("m", model="c")
    np.testing.assert_allclose([bar.get_height() for bar in other.patches], np.full(30, 0.5))
    plt.close("all")


def test_plot_differences_without_matplotlib_names_the_extra(monkeypatch):
    import sys

    a, b = _paired()
    result = _compare_two(a, b, n_resamples=100)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"sklearn-rank-metrics\[plot\]"):
        result.plot_differences("m")


# ------------------------------------------------------------ docs, example
ROOT = Path(__file__).resolve().parents[2]


def test_docs_blocks_run_and_print_the_table_shown():
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    text = (ROOT / "docs" / "comparing_models.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    namespace = {}
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"docs/comparing_models.md, python block {number}", "exec"), namespace)
    shown = re.search(r"```\n(Paired comparison.*?)```", text, flags=re.S).group(1).strip()
    assert str(namespace["result"]) == shown
    _, differences = namespace["result"].differences("ndcg@10", model="better")
    np.testing.assert_allclose(namespace["heights"], np.sort(differences)[::-1])


def test_compare_models_example(tmp_path, capsys):
    pytest.importorskip("lightgbm")
    pytest.importorskip("matplotlib")
    chart = tmp_path / "chart.png"
    namespace = runpy.run_path(str(ROOT / "examples" / "compare_models.py"), run_name="example")
    result = namespace["main"](str(chart))
    output = capsys.readouterr().out
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    curves = tmp_path / "chart_ndcg_at_k.png"
    assert curves.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.models == ("LGBMRanker", "Ridge", "RandomForest")
    assert set(result.columns["n_queries"]) == {50}
    assert "ndcg@10  LGBMRanker" in output and str(chart) in output and str(curves) in output
    import matplotlib.pyplot as plt

    plt.close("all")  # the example leaves its two figures open for the docs' gallery


def test_compare_names_itself_in_the_errors_of_the_metric_options():
    y_true, qid = [1, 0, 1, 0], [1, 1, 2, 2]
    scores = {"a": [0.1, 0.2, 0.3, 0.4], "b": [0.4, 0.3, 0.2, 0.1]}
    with pytest.raises(ValueError, match=r"^compare: ties='random' is not valid"):
        compare(y_true, scores, qid=qid, ties="random")
