"""Corrected sampled metrics: the sampling model, the weights and the estimates against brute force.

The exact ``P(sampled rank | full rank)`` is enumerated over every sample of
negatives on tiny catalogues; the weights are solved from the dense matrix
it gives and compared with the streamed ones; the estimators are checked
against their definitions, and a simulation with known full ranks shows the
correction's benefit.
"""

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_rank_metrics as srm
from sklearn_rank_metrics.retrieval import _sampled_model as _sampled

SAMPLINGS = ["with_replacement", "without_replacement"]
METRICS = ["recall@3", "precision@2", "ap@3", "ndcg@4", "map@2", "hit_rate@1", "mrr@5"]


def definition(metric, rank):
    """The metric of one relevant item at 1-based ``rank``, written from its definition."""
    name, k = metric.split("@")
    k = int(k)
    if rank > k:
        return 0.0
    return {
        "recall": 1.0, "hit_rate": 1.0, "precision": 1.0 / k, "ap": 1.0 / rank,
        "map": 1.0 / rank, "mrr": 1.0 / rank, "ndcg": 1.0 / math.log2(rank + 1),
    }[name]  # fmt: skip


def enumerated_pmf(n_items, n_samples, sampling):
    """Exact ``P(r~ = j | r)`` as Fractions, rows r = 1..n, columns j = 1..m+1, by enumeration.

    The held-out item at full rank r has r - 1 of the n - 1 other items above it;
    every sample of negatives (ordered tuples with replacement, subsets without)
    is equally likely, and r~ is 1 + the negatives above.
    """
    others = range(n_items - 1)
    if sampling == "with_replacement":
        samples = list(itertools.product(others, repeat=n_samples))
    else:
        samples = list(itertools.combinations(others, n_samples))
    table = []
    for rank in range(1, n_items + 1):
        counts = [0] * (n_samples + 1)
        for sample in samples:
            counts[sum(item < rank - 1 for item in sample)] += 1
        table.append([Fraction(count, len(samples)) for count in counts])
    return table


TINY = [(6, 2), (7, 3), (8, 4), (9, 2)]


@pytest.fixture(scope="module", params=[(n, m, s) for n, m in TINY for s in SAMPLINGS], ids=str)
def tiny(request):
    n_items, n_samples, sampling = request.param
    exact = enumerated_pmf(n_items, n_samples, sampling)
    return n_items, n_samples, sampling, np.array([[float(x) for x in row] for row in exact])


def test_the_sampling_model_is_the_enumerated_one(tiny):
    n_items, n_samples, sampling, dense = tiny
    pmf = _sampled.sampled_rank_pmf(np.arange(1, n_items + 1), n_items, n_samples, sampling)
    np.testing.assert_allclose(pmf, dense, rtol=0, atol=1e-14)
    gram, mass = _sampled.sums(n_items, n_samples, sampling)
    np.testing.assert_allclose(gram, dense.T @ dense, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(mass, dense.sum(axis=0), rtol=1e-13)


def _objective(dense, f, weights, gamma):
    """sum_r (E[w | r] - f(r))^2 + gamma Var[w | r], from the definition."""
    mean = dense @ weights
    variance = dense @ weights**2 - mean**2
    return float(np.sum((mean - f) ** 2 + gamma * variance))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("gamma", [0.0, 0.01, 0.1, 0.5, 1.0])
def test_weights_solve_the_dense_problem(tiny, metric, gamma):
    n_items, n_samples, sampling, dense = tiny
    f = np.array([definition(metric, r) for r in range(1, n_items + 1)])
    chosen = dict(method="least_squares") if gamma == 0 else dict(method="bv", gamma=gamma)
    weights = srm.sampled_metric_weights(
        n_items=n_items, n_samples=n_samples, metric=metric, sampling=sampling, **chosen
    )
    if gamma == 0:  # least squares is bv with gamma = 0
        np.testing.assert_allclose(weights, srm.sampled_metric_weights(
            n_items=n_items, n_samples=n_samples, metric=metric, sampling=sampling, gamma=0.0
        ), rtol=0, atol=1e-12)  # fmt: skip
    if gamma == 0:
        expected = np.linalg.lstsq(dense, f, rcond=None)[0]
    else:
        system = (1 - gamma) * dense.T @ dense + gamma * np.diag(dense.sum(axis=0))
        expected = np.linalg.solve(system, dense.T @ f)
    np.testing.assert_allclose(weights, expected, rtol=1e-10, atol=1e-10)
    # The closed form is the minimum of the definition's objective.
    best = _objective(dense, f, weights, gamma)
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert best <= _objective(dense, f, weights + 1e-3 * rng.standard_normal(weights.shape), gamma)


def test_gamma_one_is_the_mean_of_the_metric_given_the_sampled_rank(tiny):
    n_items, n_samples, sampling, dense = tiny
    f = np.array([definition("ndcg@3", r) for r in range(1, n_items + 1)])
    weights = srm.sampled_metric_weights(
        n_items=n_items, n_samples=n_samples, metric="ndcg@3", gamma=1.0, sampling=sampling
    )
    np.testing.assert_allclose(weights, dense.T @ f / dense.sum(axis=0), rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    n_items=st.integers(3, 60), n_samples=st.integers(1, 8), k=st.integers(1, 12),
    kind=st.sampled_from(["recall", "precision", "ap", "ndcg"]), gamma=st.floats(0.001, 1.0),
    sampling=st.sampled_from(SAMPLINGS),
)  # fmt: skip
def test_streamed_weights_equal_the_dense_solution(n_items, n_samples, k, kind, gamma, sampling):
    n_samples = min(n_samples, n_items - 1)
    metric = f"{kind}@{k}"
    dense = _sampled.sampled_rank_pmf(np.arange(1, n_items + 1), n_items, n_samples, sampling)
    np.testing.assert_allclose(dense.sum(axis=1), 1.0, rtol=1e-12)
    f = np.array([definition(metric, r) for r in range(1, n_items + 1)])
    system = (1 - gamma) * dense.T @ dense + gamma * np.diag(dense.sum(axis=0))
    weights = srm.sampled_metric_weights(
        n_items=n_items, n_samples=n_samples, metric=metric, gamma=gamma, sampling=sampling
    )
    np.testing.assert_allclose(system @ weights, dense.T @ f, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_blocks_of_ranks_add_up_to_the_whole(sampling):
    """Over 2.5 blocks of full ranks, the streamed sums equal one dense product."""
    n_items, n_samples = 2 * _sampled._BLOCK_ROWS + 4000, 6
    dense = _sampled.sampled_rank_pmf(np.arange(1, n_items + 1), n_items, n_samples, sampling)
    gram, mass = _sampled.sums(n_items, n_samples, sampling)
    np.testing.assert_allclose(gram, dense.T @ dense, rtol=1e-12)
    np.testing.assert_allclose(mass, dense.sum(axis=0), rtol=1e-12)
    assert not gram.flags.writeable


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("method", ["bv", "cls"])
def test_streamed_weights_equal_a_dense_solve_over_many_blocks(sampling, method):
    """50,000 items (7 blocks of full ranks), 20 samples: the weights of the dense matrix."""
    n_items, n_samples = 50_000, 20
    dense = _sampled.sampled_rank_pmf(np.arange(1, n_items + 1), n_items, n_samples, sampling)
    f = np.array([definition("ndcg@10", r) for r in range(1, 11)] + [0.0] * (n_items - 10))
    weights = srm.sampled_metric_weights(
        n_items=n_items, n_samples=n_samples, metric="ndcg@10", method=method, sampling=sampling
    )
    if method == "bv":
        system = 0.9 * dense.T @ dense + 0.1 * np.diag(dense.sum(axis=0))
        np.testing.assert_allclose(weights, np.linalg.solve(system, dense.T @ f), rtol=1e-9, atol=1e-12)
    else:  # the same bias as the dense problem's monotone least squares, found by BVLS
        from scipy.optimize import lsq_linear

        steps = np.triu(np.ones((n_samples + 1, n_samples + 1)))
        lower = np.r_[np.zeros(n_samples), -np.inf]
        z = lsq_linear(dense @ steps, f, bounds=(lower, np.inf), method="bvls", tol=1e-14).x
        bias = np.sum((dense @ weights - f) ** 2)
        assert bias == pytest.approx(np.sum((dense @ steps @ z - f) ** 2), rel=1e-6)
        assert np.all(np.diff(weights) <= 1e-15)


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_tiny_probabilities_are_exact_at_a_million_items(sampling):
    """Against exact rational arithmetic: no underflow, no cancellation at n = 10**6, m = 100."""
    n_items, n_samples = 10**6, 100
    ranks = np.array([2, 3, 11, 1000, 123_457, 500_000, 999_999])
    pmf = _sampled.sampled_rank_pmf(ranks, n_items, n_samples, sampling)
    for row, rank in zip(pmf, ranks.tolist()):
        for j in (0, 1, 5, 50, 99, 100):
            if sampling == "with_replacement":
                exact = math.comb(n_samples, j) * Fraction(rank - 1, n_items - 1) ** j * Fraction(
                    n_items - rank, n_items - 1
                ) ** (n_samples - j)
            else:
                exact = Fraction(
                    math.comb(rank - 1, j) * math.comb(n_items - rank, n_samples - j),
                    math.comb(n_items - 1, n_samples),
                )
            if exact.numerator == 0:
                assert row[j] == 0
                continue
            log_exact = math.log(exact.numerator) - math.log(exact.denominator)
            if log_exact < -700:  # below the smallest normal double: 0 or a subnormal
                assert row[j] < 1e-290
            else:
                assert math.log(row[j]) == pytest.approx(log_exact, abs=1e-11)


@pytest.mark.parametrize("metric", METRICS)
def test_naive_is_the_metric_of_the_sampled_rank(metric):
    ranks = np.array([1, 2, 3, 4, 5, 6, 1, 3])
    per_user = srm.correct_sampled_metric(
        ranks, n_items=50, n_samples=5, metric=metric, method="naive", average=None
    )
    np.testing.assert_array_equal(per_user, [definition(metric, r) for r in ranks])
    mean = srm.correct_sampled_metric(ranks, n_items=50, n_samples=5, metric=metric, method="naive")
    assert mean == pytest.approx(np.mean(per_user), rel=1e-15)


@pytest.mark.parametrize("method", ["bv", "cls", "least_squares", "rank_estimate", "naive"])
def test_per_user_estimates_are_the_weights_of_their_ranks(method):
    ranks = np.array([3, 1, 7, 7, 2])
    weights = srm.sampled_metric_weights(n_items=40, n_samples=6, metric="ndcg@5", method=method)
    per_user = srm.correct_sampled_metric(
        ranks, n_items=40, n_samples=6, metric="ndcg@5", method=method, average=None
    )
    np.testing.assert_array_equal(per_user, weights[ranks - 1])


@pytest.mark.parametrize("spelling", ["NDCG@10", " ndcg @ 10", "Recall@10", "MAP@10", "hr@10"])
def test_spellings_of_the_metric_names(spelling):
    kind, k = _sampled.parse_metric("f", spelling)
    assert k == 10 and kind in {"ndcg", "recall", "ap"}


def test_least_squares_with_many_samples_warns_and_counts_the_directions_left_out():
    with pytest.warns(RuntimeWarning, match=r"least_squares system .* singular to working precision: \d+ of its 101"):
        srm.sampled_metric_weights(n_items=100_000, n_samples=100, method="least_squares")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        srm.sampled_metric_weights(n_items=100_000, n_samples=100, method="bv")
        weights = srm.sampled_metric_weights(n_items=100_000, n_samples=100, method="cls")
    assert np.all(np.diff(weights) <= 1e-12)


def brute_force_constrained(dense, f):
    """min ||A w - f|| over non-increasing w: the best feasible block-constant least squares.

    The optimum ties some neighbouring weights (its active constraints); for
    each of the 2**m ways to tie neighbours, the least squares over weights
    constant on the tied blocks, kept if non-increasing.
    """
    width = dense.shape[1]
    best, best_value = None, np.inf
    for cuts in itertools.product([False, True], repeat=width - 1):
        block = np.concatenate([[0], np.cumsum(cuts)])
        pooled = np.zeros((width, block[-1] + 1))
        pooled[np.arange(width), block] = 1.0
        values = np.linalg.lstsq(dense @ pooled, f, rcond=None)[0]
        weights = pooled @ values
        if np.all(np.diff(weights) <= 1e-12):
            value = np.sum((dense @ weights - f) ** 2)
            if value < best_value - 1e-15:
                best, best_value = weights, value
    return best


@pytest.mark.parametrize("metric", METRICS)
def test_cls_is_the_monotone_least_squares_of_the_brute_force(tiny, metric):
    n_items, n_samples, sampling, dense = tiny
    f = np.array([definition(metric, r) for r in range(1, n_items + 1)])
    weights = srm.sampled_metric_weights(
        n_items=n_items, n_samples=n_samples, metric=metric, method="cls", sampling=sampling
    )
    np.testing.assert_allclose(weights, brute_force_constrained(dense, f), atol=1e-9)


@pytest.mark.parametrize("metric", METRICS)
def test_rank_estimate_is_the_metric_of_the_scaled_rank(metric):
    weights = srm.sampled_metric_weights(
        n_items=1001, n_samples=10, metric=metric, method="rank_estimate"
    )
    np.testing.assert_array_equal(weights, [definition(metric, 1 + 100 * j) for j in range(11)])


def _simulated_rmse(n_items, n_samples, full_ranks, repetitions, seed):
    """RMSE against the exact recall@10 of each method over independent samplings."""
    rng = np.random.default_rng(seed)
    exact = np.mean(full_ranks <= 10)
    p = (full_ranks - 1) / (n_items - 1)
    errors = {"naive": [], "rank_estimate": [], "least_squares": [], "cls": [], "bv": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # least squares' left-out directions
        for _ in range(repetitions):
            ranks = rng.binomial(n_samples, p) + 1
            for method, found in errors.items():
                found.append(
                    srm.correct_sampled_metric(ranks, n_items=n_items, n_samples=n_samples, method=method)
                    - exact
                )
    return {method: float(np.sqrt(np.mean(np.square(e)))) for method, e in errors.items()}


@pytest.mark.parametrize(
    ("n_items", "n_samples", "better"),
    [(100, 10, {"bv": 5, "cls": 5, "least_squares": 2, "rank_estimate": 2}), (1000, 100, {"bv": 5, "cls": 5})],
)
def test_the_correction_is_closer_to_the_exact_metric_than_naive(n_items, n_samples, better):
    """Full ranks known (a heavy-tailed model): each correction's RMSE a fifth or half of naive's.

    The unconstrained least squares only with few samples: with many, its
    weights swing so widely (a high variance) that its RMSE exceeds naive's.
    """
    rng = np.random.default_rng(7)
    full_ranks = np.minimum(np.ceil(rng.pareto(0.7, 3000) * 5), n_items).astype(np.int64)
    rmse = _simulated_rmse(n_items, n_samples, full_ranks, repetitions=40, seed=1)
    assert rmse["naive"] > 0.3
    for method, factor in better.items():
        assert rmse[method] < rmse["naive"] / factor, (method, rmse)


def test_the_correction_is_unbiased_where_the_metric_is_in_reach():
    """Every other item drawn: the least squares is exactly unbiased, E[w[r~] | r] = f(r) for every full rank."""
    n_items, n_samples = 8, 7
    dense = _sampled.sampled_rank_pmf(np.arange(1, n_items + 1), n_items, n_samples, "without_replacement")
    weights = srm.sampled_metric_weights(
        n_items=n_items, n_samples=n_samples, metric="ap@4", method="least_squares", sampling="without_replacement"
    )
    f = [definition("ap@4", r) for r in range(1, n_items + 1)]
    np.testing.assert_allclose(dense @ weights, f, atol=1e-12)


BAD_RANKS = [
    ([1, 0, 2], "user \\(row\\) 1 is 0"),
    ([1, 2, 7], "user \\(row\\) 2 is 7"),
    ([1.5, 2], "user \\(row\\) 0 is 1.5"),
    ([1, np.nan], "user \\(row\\) 1 is nan"),
]


@pytest.mark.parametrize(("ranks", "message"), BAD_RANKS)
def test_bad_ranks_name_the_user_and_the_value(ranks, message):
    with pytest.raises(ValueError, match=message + ", not a rank from 1 to n_samples \\+ 1 = 6"):
        srm.correct_sampled_metric(ranks, n_items=100, n_samples=5)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(n_samples=100), ValueError, "n_samples=100 is not less than n_items=100"),
        (dict(n_samples=0), ValueError, "n_samples=0 is not valid"),
        (dict(n_items=1.5), TypeError, "n_items=1.5 is not valid"),
        (dict(metric="auc"), ValueError, "metric='auc' is not valid; metric must be recall@k"),
        (dict(metric="ndcg"), ValueError, "metric='ndcg' is not valid"),
        (dict(metric="recall@0"), ValueError, "metric='recall@0' is not valid"),
        (dict(metric=10), TypeError, "metric=10 is not valid"),
        (dict(method="mse"), ValueError, "method='mse' is not valid; method must be one of 'bv'"),
        (dict(gamma=1.5), ValueError, "gamma=1.5 is not valid; gamma must be None or a number from 0 to 1"),
        (dict(gamma="0.1"), TypeError, "gamma='0.1' is not valid"),
        (dict(gamma=0.1, method="cls"), ValueError,
         "gamma=0.1 is only used by method='bv', got method='cls'; leave gamma out"),
        (dict(gamma=0, method="least_squares"), ValueError, "gamma=0 is only used by method='bv'"),
        (dict(gamma=np.float64(0.5), method="naive"), ValueError, "gamma=0.5 is only used by method='bv', got method='naive'"),
        (dict(sampling="poisson"), ValueError, "sampling='poisson' is not valid"),
        (dict(average="median"), ValueError, "average='median' is not valid"),
    ],
)  # fmt: skip
def test_bad_parameters_raise_naming_the_argument(kwargs, error, message):
    arguments = {**dict(n_items=100, n_samples=5), **kwargs}
    with pytest.raises(error, match=message.replace("(", "\\(").replace("+", "\\+")):
        srm.correct_sampled_metric([1, 2], **arguments)


@pytest.mark.parametrize("method", ["cls", "least_squares", "rank_estimate", "naive"])
def test_gamma_with_another_method_than_bv_is_an_error_in_both_functions(method):
    with pytest.raises(ValueError, match=f"gamma=0.3 is only used by method='bv', got method='{method}'"):
        srm.sampled_metric_weights(n_items=50, n_samples=5, method=method, gamma=0.3)
    srm.sampled_metric_weights(n_items=50, n_samples=5, method=method)  # gamma=None: fine


def test_gamma_none_is_bv_with_gamma_one_tenth():
    ranks = [1, 2, 5, 6]
    default = srm.correct_sampled_metric(ranks, n_items=50, n_samples=5, average=None)
    np.testing.assert_array_equal(
        default, srm.correct_sampled_metric(ranks, n_items=50, n_samples=5, gamma=0.1, average=None)
    )
    assert not np.array_equal(
        default, srm.correct_sampled_metric(ranks, n_items=50, n_samples=5, gamma=0.5, average=None)
    )


def test_ranks_must_be_one_dimensional_whole_numbers():
    with pytest.raises(ValueError, match="must be 1-D"):
        srm.correct_sampled_metric([[1, 2]], n_items=10, n_samples=2)
    with pytest.raises(TypeError, match="whole numbers"):
        srm.correct_sampled_metric([True, False], n_items=10, n_samples=2)
    with pytest.raises(ValueError, match="empty"):
        srm.correct_sampled_metric([], n_items=10, n_samples=2)
    assert srm.correct_sampled_metric(
        [1.0, 3.0], n_items=10, n_samples=2, metric="recall@2", method="naive"
    ) == 0.5


def test_a_cutoff_beyond_the_sample_is_allowed():
    """k > n_samples + 1: naive counts every user a hit; the correction still estimates recall@k."""
    assert srm.correct_sampled_metric([1, 3], n_items=100, n_samples=2, metric="recall@5", method="naive") == 1.0
    estimate = srm.correct_sampled_metric([1, 3], n_items=100, n_samples=2, metric="recall@5")
    assert estimate < 1.0
