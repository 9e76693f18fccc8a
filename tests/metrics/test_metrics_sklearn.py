"""Cross-checks against scikit-learn (NDCG, DCG) and SciPy (Kendall's tau-b)."""

import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import dcg_score as sk_dcg
from sklearn.metrics import ndcg_score as sk_ndcg

import sklearn_rank_metrics as srm

KS = [None, 1, 3, 10]
TOL = dict(rel=1e-9, abs=1e-12)


def tied_case(seed, n_rows=5, n_cols=6, fractional=False):
    rng = np.random.default_rng(seed)
    if fractional:
        y_true = rng.choice([0.0, 0.5, 1.25, 3.0], size=(n_rows, n_cols))
    else:
        y_true = rng.integers(0, 4, size=(n_rows, n_cols)).astype(float)
    y_true[0] = 0.0  # a query with no relevant document: 0 in both
    y_score = rng.integers(0, 3, size=(n_rows, n_cols)).astype(float)  # heavy ties
    weights = rng.uniform(0.1, 3.0, size=n_rows)
    return y_true, y_score, weights


def distinct_case(seed, n_rows=5, n_cols=6):
    y_true, _, weights = tied_case(seed, n_rows, n_cols)
    rng = np.random.default_rng(seed + 1000)
    y_score = np.stack([rng.permutation(n_cols) for _ in range(n_rows)]).astype(float)
    y_score += rng.normal(size=y_score.shape) * 0.01  # still distinct within rows
    return y_true, y_score, weights


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "ours, theirs", [(srm.ndcg_score, sk_ndcg), (srm.dcg_score, sk_dcg)], ids=["ndcg", "dcg"]
)
def test_ties_average_equals_sklearn_ignore_ties_false(ours, theirs, k, seed, weighted):
    y_true, y_score, weights = tied_case(seed, fractional=seed % 2 == 1)
    sample_weight = weights if weighted else None
    expected = theirs(y_true, y_score, k=k, ignore_ties=False, sample_weight=sample_weight)
    assert ours(y_true, y_score, k=k, sample_weight=sample_weight) == pytest.approx(expected, **TOL)
    assert ours(y_true, y_score, k=k, ties="average", sample_weight=sample_weight) == pytest.approx(
        expected, **TOL
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
@pytest.mark.parametrize(
    "ours, theirs", [(srm.ndcg_score, sk_ndcg), (srm.dcg_score, sk_dcg)], ids=["ndcg", "dcg"]
)
def test_no_ties_any_mode_equals_sklearn_ignore_ties_true(ours, theirs, ties, k, seed):
    y_true, y_score, weights = distinct_case(seed)
    expected = theirs(y_true, y_score, k=k, ignore_ties=True)
    assert ours(y_true, y_score, k=k, ties=ties) == pytest.approx(expected, **TOL)
    expected_w = theirs(y_true, y_score, k=k, ignore_ties=True, sample_weight=weights)
    assert ours(y_true, y_score, k=k, ties=ties, sample_weight=weights) == pytest.approx(expected_w, **TOL)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize(
    "ours, theirs", [(srm.ndcg_score, sk_ndcg), (srm.dcg_score, sk_dcg)], ids=["ndcg", "dcg"]
)
def test_per_row_values_equal_sklearn_row_by_row(ours, theirs, k, seed):
    y_true, y_score, _ = tied_case(seed, n_rows=4, n_cols=7)
    expected = [theirs(y_true[[i]], y_score[[i]], k=k, ignore_ties=False) for i in range(4)]
    assert ours(y_true, y_score, k=k, average=None) == pytest.approx(np.array(expected), **TOL)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize(
    "ours, theirs", [(srm.ndcg_score, sk_ndcg), (srm.dcg_score, sk_dcg)], ids=["ndcg", "dcg"]
)
def test_exponential_gain_equals_sklearn_on_transformed_labels(ours, theirs, k, seed):
    """scikit-learn uses the labels as gains: 2**rel - 1 gives exponential gain."""
    y_true, y_score, weights = tied_case(seed)
    expected = theirs(2.0**y_true - 1.0, y_score, k=k, ignore_ties=False, sample_weight=weights)
    assert ours(y_true, y_score, k=k, gain="exponential", sample_weight=weights) == pytest.approx(
        expected, **TOL
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", KS)
def test_flat_interleaved_input_equals_sklearn_2d(k, seed):
    y_true, y_score, weights = tied_case(seed)
    n_rows, n_cols = y_true.shape
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n_rows * n_cols)
    qid = np.repeat([f"query-{i}" for i in range(n_rows)], n_cols)
    flat_weights = np.repeat(weights, n_cols)
    got = srm.ndcg_score(
        y_true.ravel()[perm], y_score.ravel()[perm], qid=qid[perm], k=k,
        sample_weight=flat_weights[perm],
    )  # fmt: skip
    assert got == pytest.approx(sk_ndcg(y_true, y_score, k=k, sample_weight=weights), **TOL)


def test_sklearn_docstring_example():
    """The example of sklearn.metrics.ndcg_score's docstring."""
    true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    scores = np.asarray([[0.1, 0.2, 0.3, 4, 70]])
    assert srm.ndcg_score(true_relevance, scores) == pytest.approx(0.6956940443813076, **TOL)
    scores = np.asarray([[0.05, 1.1, 1.0, 0.5, 0.0]])
    assert srm.ndcg_score(true_relevance, scores) == pytest.approx(0.493680191377376, **TOL)
    # documents 1 and 5 (labels 10 and 5) tie for the top: NDCG@1 is 0.75 on
    # average, 1 or 0.5 at the bounds
    scores = np.asarray([[1, 0, 0, 0, 1]])
    assert srm.ndcg_score(true_relevance, scores, k=1) == pytest.approx(0.75, **TOL)
    assert srm.ndcg_score(true_relevance, scores, k=1, ties="optimistic") == pytest.approx(1.0)
    assert srm.ndcg_score(true_relevance, scores, k=1, ties="pessimistic") == pytest.approx(0.5)


# ------------------------------------------- scikit-learn's ignore_ties and log_base
SCORE_DTYPES = [np.float64, np.float32, np.int64, np.uint8]


def long_tied_case(seed, n_rows, n_cols, dtype):
    """Rows long enough that NumPy's default argsort is not an insertion sort, heavy ties."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n_rows, n_cols)).astype(float)
    y_score = rng.integers(0, 4, size=(n_rows, n_cols)).astype(dtype)
    return y_true, y_score, rng.uniform(0.1, 3.0, size=n_rows)


@pytest.mark.parametrize("dtype", SCORE_DTYPES)
@pytest.mark.parametrize("n_cols", [2, 7, 16, 17, 40, 300])
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize(
    "ours, theirs", [(srm.ndcg_score, sk_ndcg), (srm.dcg_score, sk_dcg)], ids=["ndcg", "dcg"]
)
def test_ignore_ties_true_gives_sklearns_numbers_on_tied_scores(ours, theirs, k, n_cols, dtype):
    y_true, y_score, weights = long_tied_case(n_cols, 6, n_cols, dtype)
    for sample_weight in (None, weights):
        expected = theirs(y_true, y_score, k=k, ignore_ties=True, sample_weight=sample_weight)
        got = ours(y_true, y_score, k=k, ignore_ties=True, sample_weight=sample_weight)
        assert got == pytest.approx(expected, **TOL)
    expected_rows = [theirs(y_true[[i]], y_score[[i]], k=k, ignore_ties=True) for i in range(6)]
    got_rows = ours(y_true, y_score, k=k, ignore_ties=True, average=None)
    assert got_rows == pytest.approx(np.array(expected_rows), **TOL)


def test_ignore_ties_true_is_numpys_unstable_order_not_a_stable_one():
    """On long tied rows NumPy's argsort is not stable: the order is reproduced, not "first"."""
    y_true, y_score, _ = long_tied_case(0, 20, 300, np.float64)
    expected = sk_ndcg(y_true, y_score, k=10, ignore_ties=True)
    assert srm.ndcg_score(y_true, y_score, k=10, ignore_ties=True) == pytest.approx(expected, **TOL)
    stable_reversed = y_score + np.arange(300) * 1e-9  # later rows first, as a stable argsort reversed
    assert expected != pytest.approx(srm.ndcg_score(y_true, y_score, k=10, ties="first"), **TOL)
    assert expected != pytest.approx(srm.ndcg_score(y_true, stable_reversed, k=10), **TOL)


@pytest.mark.parametrize("dtype", SCORE_DTYPES)
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize(
    "ours, theirs", [(srm.ndcg_score, sk_ndcg), (srm.dcg_score, sk_dcg)], ids=["ndcg", "dcg"]
)
def test_ignore_ties_true_on_flat_input_gives_sklearns_numbers_per_query(ours, theirs, k, dtype):
    """Each query, its rows in input order, is ranked as scikit-learn ranks it as a row."""
    rng = np.random.default_rng(5)
    sizes = [2, 3, 17, 17, 40, 40, 40, 120, 5, 17]  # several queries of one length
    qid = rng.permutation(np.repeat([f"q{i:02d}" for i in range(len(sizes))], sizes))
    y_true = rng.integers(0, 4, qid.shape[0]).astype(float)
    y_score = rng.integers(0, 3, qid.shape[0]).astype(dtype)
    y_true[qid == "q03"] = 0  # no relevant document
    doc_weights = {q: w for q, w in zip(np.unique(qid), rng.uniform(0.5, 2, len(sizes)))}
    sample_weight = np.array([doc_weights[q] for q in qid])
    expected = [
        theirs(y_true[qid == q][np.newaxis], y_score[qid == q][np.newaxis], k=k, ignore_ties=True)
        for q in np.unique(qid)
    ]
    got = ours(y_true, y_score, qid=qid, k=k, ignore_ties=True, average=None)
    assert got == pytest.approx(np.array(expected), **TOL)
    mean = ours(y_true, y_score, qid=qid, k=k, ignore_ties=True, sample_weight=sample_weight)
    assert mean == pytest.approx(np.average(expected, weights=list(doc_weights.values())), **TOL)


@pytest.mark.parametrize("log_base", [1.5, np.e, 10, 2])
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", KS)
def test_log_base_gives_sklearns_dcg(log_base, ignore_ties, k):
    y_true, y_score, weights = long_tied_case(1, 8, 20, np.float64)
    for sample_weight in (None, weights):
        expected = sk_dcg(
            y_true, y_score, k=k, log_base=log_base, ignore_ties=ignore_ties,
            sample_weight=sample_weight,
        )  # fmt: skip
        got = srm.dcg_score(
            y_true, y_score, k=k, log_base=log_base, ignore_ties=ignore_ties,
            sample_weight=sample_weight,
        )  # fmt: skip
        assert got == pytest.approx(expected, **TOL)
    expected_rows = [
        sk_dcg(y_true[[i]], y_score[[i]], k=k, log_base=log_base, ignore_ties=ignore_ties)
        for i in range(8)
    ]
    got_rows = srm.dcg_score(
        y_true, y_score, k=k, log_base=log_base, ignore_ties=ignore_ties, average=None
    )
    assert got_rows == pytest.approx(np.array(expected_rows), **TOL)


def test_ignore_ties_with_another_ties_mode_is_an_error_naming_both():
    for function in (srm.ndcg_score, srm.dcg_score):
        with pytest.raises(ValueError, match="ignore_ties=True and ties='first'.*alone"):
            function([[1, 0]], [[1, 1]], ignore_ties=True, ties="first")
        # ignore_ties=False leaves the ranking to ties
        assert function([[1, 0]], [[1, 1]], ignore_ties=False, ties="first") == function(
            [[1, 0]], [[2, 1]]
        )
    with pytest.raises(TypeError, match="ignore_ties must be True or False"):
        srm.ndcg_score([[1, 0]], [[1, 1]], ignore_ties="yes")


@pytest.mark.parametrize("log_base", [1, 0.5, -2, np.inf, np.nan])
def test_log_base_of_one_or_below_is_an_error(log_base):
    with pytest.raises(ValueError, match=r"log_base=.* is not valid; log_base must be a finite number > 1"):
        srm.dcg_score([[1, 0]], [[2, 1]], log_base=log_base)
    with pytest.raises(TypeError, match="log_base"):
        srm.dcg_score([[1, 0]], [[2, 1]], log_base="10")


def test_ndcg_takes_no_log_base_as_in_sklearn():
    with pytest.raises(TypeError, match="log_base"):
        srm.ndcg_score([[1, 0]], [[2, 1]], log_base=10)
    with pytest.raises(TypeError, match="log_base"):
        sk_ndcg([[1, 0]], [[2, 1]], log_base=10)


# ---------------------------------------------------------------- kendall
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
def test_kendall_2d_equals_scipy_per_row(seed, ties):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(6, 9)).astype(float)
    y_score = rng.integers(0, 5, size=(6, 9)).astype(float)
    y_true[1] = 2.0  # constant labels: undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.array([kendalltau(t, s).statistic for t, s in zip(y_true, y_score)])
    with pytest.warns(UndefinedMetricWarning):
        got = srm.rank_correlation_score(y_true, y_score, method="kendall", ties=ties, average=None)
    assert got == pytest.approx(expected, nan_ok=True, **TOL)
    with pytest.warns(UndefinedMetricWarning):
        mean = srm.rank_correlation_score(y_true, y_score, method="kendall", ties=ties)
    assert mean == pytest.approx(np.nanmean(expected), **TOL)


@pytest.mark.parametrize("seed", range(6))
def test_kendall_flat_continuous_scores_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    n = 200
    y_true = rng.integers(0, 5, size=n).astype(float)
    y_score = np.round(rng.normal(size=n), 1)  # some ties
    qid = rng.integers(0, 7, size=n)
    got = srm.rank_correlation_score(y_true, y_score, qid=qid, method="kendall", average=None)
    expected = [kendalltau(y_true[qid == q], y_score[qid == q]).statistic for q in np.unique(qid)]
    assert got == pytest.approx(np.array(expected), **TOL)
