"""Every input path against the flat engine on the same materialized rows, bit for bit per query.

A score matrix with sparse labels and excluded pairs (``evaluate``, the
metric functions), query and item vectors (``evaluate_retrieval``) and
top-k id lists (``evaluate_top_k``) each stand for a flat ranking: one row
per (query, item) pair not excluded, in row-major order. Each query's values
(``average=None``) and weights must be those of ``evaluate`` on those rows,
``np.array_equal``, under every tie mode and option.
"""

import numpy as np
import pytest
from scipy import sparse

import sklearn_rank_metrics as srm

from _reference import query_value
from _retrieval_cases import (
    TIES,
    assert_same_per_query,
    flat_results,
    flat_rows,
    head_metrics,
    power_of_two_vectors,
    random_matrix,
    similarity_matrix,
    top_k_flat,
)

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")

KS = (1, 3, 5, 50)
WHOLE_LIST = ["map", "ndcg", "r_precision", "bpref", "dcg", "mrr", "gm_map"]
SPARSE_KINDS = {
    "csr_matrix": sparse.csr_matrix,
    "csr_array": sparse.csr_array,
    "coo_array": sparse.coo_array,
    "coo_matrix": sparse.coo_matrix,
    "csc_array": sparse.csc_array,
    "dense": np.asarray,
}
SCORE_KINDS = {
    "float64": lambda rng, shape: rng.standard_normal(shape),
    "float32": lambda rng, shape: rng.standard_normal(shape).astype(np.float32),
    "int": lambda rng, shape: rng.integers(-1000, 1000, shape),
    "tied int": lambda rng, shape: rng.integers(0, 3, shape),
}
# (gain, relevance_level, no_relevant, sample_weight): each option away from its default.
OPTIONS = [
    dict(),
    dict(gain="exponential"),
    dict(relevance_level=2),
    dict(no_relevant="skip"),
    dict(gain="exponential", relevance_level=2, no_relevant="skip", weighted=True),
    dict(weighted=True),
]


def _case(seed, n_queries=7, n_items=12, score_kind="tied int"):
    rng = np.random.default_rng(seed)
    y_true, _, exclude = random_matrix(rng, n_queries, n_items, all_excluded_row=seed % 2 == 0)
    y_score = SCORE_KINDS[score_kind](rng, (n_queries, n_items))
    return rng, y_true, y_score, exclude


def _weights(rng, n_queries, weighted):
    return rng.uniform(0.5, 3.0, n_queries) if weighted else None


def _options(entry, rng, n_queries):
    options = dict(entry)
    weights = _weights(rng, n_queries, options.pop("weighted", False))
    return options, weights


def _metrics(ties, options, ks=KS):
    """The head measures; err only under ties other than "average" (where a tied block raises)."""
    return head_metrics(ks, ties=ties)


def _assert_means_agree(results, expected, metrics):
    """The means weigh the same per-query values alike (to rounding of a different sum order)."""
    got, want = results.mean(), expected.mean()
    for name in metrics:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("score_kind", list(SCORE_KINDS))
@pytest.mark.parametrize("y_kind", list(SPARSE_KINDS))
def test_evaluate_matrix_inputs(y_kind, score_kind):
    """Sparse (every scipy kind) or dense y_true with exclude, float32/64, int and tie-heavy scores."""
    rng, y_true, y_score, exclude = _case(len(y_kind) + len(score_kind), score_kind=score_kind)
    mask = sparse.csr_array(exclude) if y_kind == "csc_array" else exclude
    for ties in TIES:
        metrics = _metrics(ties, {})
        results = srm.evaluate(SPARSE_KINDS[y_kind](y_true), y_score, exclude=mask,
                               metrics=metrics, ties=ties, average=None)  # fmt: skip
        expected = flat_results(y_true, y_score, metrics, exclude=exclude, ties=ties)
        assert_same_per_query(results, expected, metrics)


@pytest.mark.parametrize("entry", OPTIONS, ids=str)
def test_evaluate_matrix_options(entry):
    """gain, relevance_level, no_relevant and sample_weight, under every tie mode."""
    rng, y_true, y_score, exclude = _case(3, n_queries=9)
    options, weights = _options(entry, rng, y_true.shape[0])
    for ties in TIES:
        metrics = _metrics(ties, options)
        results = srm.evaluate(sparse.csr_array(y_true), y_score, exclude=exclude,
                               metrics=metrics, ties=ties, sample_weight=weights, average=None,
                               **options)  # fmt: skip
        expected = flat_results(y_true, y_score, metrics, exclude=exclude, ties=ties,
                                sample_weight=weights, **options)  # fmt: skip
        assert_same_per_query(results, expected, metrics)
        _assert_means_agree(results, expected, metrics)


@pytest.mark.parametrize("score_kind", ["tied int", "float64"])
@pytest.mark.parametrize("entry", OPTIONS[:4], ids=str)
def test_whole_list_measures_through_the_sparse_path(entry, score_kind):
    """Measures without a cut read every kept item: evaluate's sparse path ranks them all.

    bpref has no closed form under ties="average" (a tied block raises), so
    it is left out there when scores tie.
    """
    rng, y_true, y_score, exclude = _case(5, n_queries=8, n_items=10, score_kind=score_kind)
    options, _ = _options(entry, rng, y_true.shape[0])
    for ties in TIES:
        metrics = [name for name in WHOLE_LIST
                   if not (name == "bpref" and ties == "average" and score_kind == "tied int")]
        results = srm.evaluate(sparse.csr_array(y_true), y_score, exclude=exclude,
                               metrics=metrics, ties=ties, average=None, **options)  # fmt: skip
        expected = flat_results(y_true, y_score, metrics, exclude=exclude, ties=ties,
                                **options)  # fmt: skip
        assert_same_per_query(results, expected, metrics)


# Each metric function, and the options it takes beyond k.
FUNCTIONS = {
    "ndcg_score": {}, "dcg_score": {}, "cg_score": {}, "map_score": {}, "mrr_score": {},
    "precision_at_k_score": {}, "recall_at_k_score": {}, "f1_at_k_score": {},
    "recall_cap_score": {}, "hit_rate_score": {}, "hit_rate_score item": {"level": "item"},
    "r_precision_score": None, "rank_correlation_score": None,
}  # fmt: skip


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_metric_functions(function):
    """Each metric function with a sparse or dense y_true and exclude= equals itself on the flat rows."""
    rng, y_true, y_score, exclude = _case(11, score_kind="tied int")
    extra = FUNCTIONS[function]
    score = getattr(srm, function.split()[0])
    labels, scores, qid = flat_rows(y_true, y_score, exclude)
    kept = np.unique(qid)
    for ties, labelled in zip(TIES, [sparse.csr_array, np.asarray, sparse.coo_array, np.asarray]):
        for k in KS if extra is not None else (None,):
            options = dict(ties=ties, average=None, **(extra or {}))
            if k is not None:
                options["k"] = k
            got = score(labelled(y_true), y_score, exclude=exclude, **options)
            want = score(labels, scores, qid=qid, **options)
            assert np.array_equal(np.asarray(got)[kept], want, equal_nan=True), (ties, k)


def test_metric_functions_float32_and_csr_matrix():
    """float32 scores and a csr_matrix mask, through ndcg_score and map_score."""
    rng, y_true, y_score, exclude = _case(12, score_kind="float32")
    labels, scores, qid = flat_rows(y_true, y_score, exclude)
    kept = np.unique(qid)
    for score in (srm.ndcg_score, srm.map_score):
        for k in KS:
            got = score(sparse.csr_matrix(y_true), y_score, k=k, exclude=sparse.csr_matrix(exclude),
                        average=None)  # fmt: skip
            want = score(labels, scores, qid=qid, k=k, average=None)
            assert np.array_equal(got[kept], want), (score.__name__, k)


# ----------------------------------------------------------------- vectors
RETRIEVAL_CASES = [
    (similarity, batch_size, dtype)
    for similarity in ("dot", "cosine")
    for batch_size in (1, 2, None, 100)
    for dtype in (np.float64, np.float32)
]


def _vectors(rng, similarity, n_queries, n_items):
    if similarity == "cosine":
        return power_of_two_vectors(rng, n_queries), power_of_two_vectors(rng, n_items)
    return (rng.integers(-3, 4, (n_queries, 4)).astype(float),
            rng.integers(-3, 4, (n_items, 4)).astype(float))  # fmt: skip


@pytest.mark.parametrize("similarity, batch_size, dtype", RETRIEVAL_CASES)
def test_evaluate_retrieval(similarity, batch_size, dtype):
    """Integer vectors: the similarity matrix is exact, and its flat rows give the same values."""
    rng = np.random.default_rng(len(similarity) + (batch_size or 0))
    queries, items = _vectors(rng, similarity, 7, 14)
    queries, items = queries.astype(dtype), items.astype(dtype)
    y_true, _, exclude = random_matrix(rng, 7, 14, all_excluded_row=True)
    reference = similarity_matrix(queries, items, similarity)
    entry = OPTIONS[(batch_size or 3) % len(OPTIONS)]
    options, weights = _options(entry, rng, 7)
    for ties in TIES:
        metrics = _metrics(ties, options)
        results = srm.evaluate_retrieval(
            queries, items, sparse.csr_array(y_true), similarity=similarity, exclude=exclude,
            metrics=metrics, batch_size=batch_size, ties=ties, sample_weight=weights,
            average=None, **options,
        )  # fmt: skip
        expected = flat_results(y_true, reference, metrics, exclude=exclude, ties=ties,
                                sample_weight=weights, **options)  # fmt: skip
        assert_same_per_query(results, expected, metrics)


def test_evaluate_retrieval_equals_evaluate_on_the_matrix():
    """The vectors' path and the score-matrix path agree on the same similarity matrix."""
    rng = np.random.default_rng(4)
    queries, items = _vectors(rng, "dot", 9, 20)
    y_true, _, exclude = random_matrix(rng, 9, 20)
    for ties in TIES:
        metrics = _metrics(ties, {})
        got = srm.evaluate_retrieval(queries, items, y_true, exclude=exclude, metrics=metrics,
                                     ties=ties, batch_size=4, average=None)  # fmt: skip
        want = srm.evaluate(sparse.csr_array(y_true), queries @ items.T, exclude=exclude,
                            metrics=metrics, ties=ties, average=None)  # fmt: skip
        assert_same_per_query(got, want, metrics, queries=np.arange(9))


# ------------------------------------------------------------ top-k lists
def _lists(rng, y_true, width, *, tied, exclude=None):
    """Random top-k lists (some short, one empty) of items not excluded, and their scores."""
    n_queries, n_items = y_true.shape
    items = np.full((n_queries, width), -1)
    for row in range(n_queries):
        allowed = np.flatnonzero(~exclude[row]) if exclude is not None else np.arange(n_items)
        length = 0 if row == 1 else min(len(allowed), rng.choice([width, width, width - 1, 2]))
        items[row, :length] = rng.choice(allowed, length, replace=False)
    values = rng.integers(0, 3, items.shape) if tied else rng.standard_normal(items.shape)
    scores = -np.sort(-values.astype(float), axis=1)
    return items, np.where(items >= 0, scores, np.nan)


@pytest.mark.parametrize("width, ks", [(6, (1, 3, 5)), (50, KS)])
@pytest.mark.parametrize("scored", ["tied top_scores", "float top_scores", "list order"])
@pytest.mark.parametrize("entry", OPTIONS[::2], ids=str)
def test_evaluate_top_k(width, ks, scored, entry):
    """Listed items, then padding positions as label-0 rows, then the unlisted labelled items.

    Lists of 50 over 60 items, some excluded: padding positions past a
    query's items left are none an item could fill.
    """
    rng = np.random.default_rng(width + len(scored))
    y_true, _, exclude = random_matrix(rng, 8, 60, density=0.1)
    items, scores = _lists(rng, y_true, width, tied=scored == "tied top_scores", exclude=exclude)
    top_scores = None if scored == "list order" else scores
    options, weights = _options(entry, rng, 8)
    for ties in TIES:
        metrics = _metrics(ties, options, ks)
        results = srm.evaluate_top_k(
            sparse.csr_array(y_true), items, top_scores=top_scores, exclude=exclude,
            metrics=metrics, ties=ties, sample_weight=weights, average=None, **options,
        )  # fmt: skip
        labels, values, qid = top_k_flat(y_true, items, top_scores, exclude)
        extra = {} if weights is None else {"sample_weight": weights[qid]}
        expected = srm.evaluate(labels, values, qid=qid, metrics=metrics, ties=ties,
                                average=None, **options, **extra)  # fmt: skip
        assert_same_per_query(results, expected, metrics)


def test_dcg_score_takes_exclude_and_leakage():
    """dcg_score reads exclude= and leakage= as the other metric functions do."""
    y_true = sparse.csr_array(np.array([[0, 1, 0]]))
    scores = np.array([[3.0, 2.0, 1.0]])
    assert srm.dcg_score(y_true, scores, k=1, exclude=np.array([[True, False, False]])) == 1.0
    with pytest.raises(ValueError, match="both labelled in y_true and excluded"):
        srm.dcg_score(y_true, scores, k=1, exclude=np.array([[False, True, False]]))


# ------------------------------------------ excluded items, from the definitions
def _reference_values(name, y_true, y_score, exclude, **options):
    """Per query, the brute-force value of ``name`` on its row with the excluded items removed."""
    metric, _, k = name.partition("@")
    values = []
    for row in range(y_true.shape[0]):
        kept = ~exclude[row]
        values.append(query_value(metric, y_true[row, kept], y_score[row, kept],
                                  k=int(k) if k else None, **options))  # fmt: skip
    return np.array(values)


@pytest.mark.parametrize("path", ["evaluate", "evaluate_retrieval"])
@pytest.mark.parametrize("entry", OPTIONS[:5], ids=str)
def test_excluded_items_against_the_definitions(path, entry):
    """Removing the excluded items from each row, then ranking by the definitions, gives each value.

    Rows of 7 items with scores drawn from 4 values: every tie block is small
    enough for the reference to enumerate its orderings. Query 0 has every
    item excluded: it ranks nothing, the no_relevant value.
    """
    rng = np.random.default_rng(21)
    queries = rng.integers(-2, 3, (8, 3)).astype(float)
    items = rng.integers(-2, 3, (7, 3)).astype(float)
    y_score = np.clip(queries @ items.T, -1, 2)  # 4 values: heavy ties
    items_scores = y_score if path == "evaluate" else queries @ items.T
    y_true, _, exclude = random_matrix(rng, 8, 7, density=0.4, exclude_density=0.3,
                                       all_excluded_row=True)  # fmt: skip
    options, _ = _options(entry, rng, 8)
    for ties in TIES:
        metrics = head_metrics((1, 3, 5), ties=ties) + ["map", "ndcg", "r_precision"]
        if ties != "average":
            metrics.append("bpref")
        if path == "evaluate":
            results = srm.evaluate(sparse.csr_array(y_true), y_score, exclude=exclude,
                                   metrics=metrics, ties=ties, average=None, **options)  # fmt: skip
        else:
            metrics = [name for name in metrics if "@" in name]
            results = srm.evaluate_retrieval(queries, items, y_true, exclude=exclude,
                                             metrics=metrics, ties=ties, average=None,
                                             batch_size=3, **options)  # fmt: skip
        for name in metrics:
            want = _reference_values(name, y_true, items_scores, exclude, ties=ties, **options)
            np.testing.assert_allclose(results[name], want, rtol=1e-12, atol=1e-15,
                                       err_msg=f"{name} ties={ties}")  # fmt: skip


@pytest.mark.parametrize(
    "options",
    [
        {"ap_denominator": "min(R,k)", "metrics": ["map@5", "gm_map@3"]},
        {"label_gain": [0, 1, 5, 9], "metrics": ["ndcg@5", "dcg@3"]},
        {"metrics": ["ndcg_cut_5", "nDCG@3"]},  # trec_eval's names set exponential gains
    ],
    ids=["ap_denominator", "label_gain", "gain from the names"],
)
def test_the_options_of_evaluate_reach_the_top_k_front_ends(options):
    """evaluate_retrieval and evaluate_top_k apply the call's options as evaluate does."""
    rng = np.random.default_rng(3)
    queries, items = rng.integers(-3, 4, (12, 3)).astype(float), rng.integers(-3, 4, (80, 3))
    scores = queries @ items.T
    y_true = sparse.csr_array((rng.random((12, 80)) < 0.1) * rng.integers(1, 4, (12, 80)))
    expected = srm.evaluate(y_true, scores, average=None, **options)
    vectors = srm.evaluate_retrieval(queries, items.astype(float), y_true, average=None, **options)
    top_items = np.argsort(-scores, axis=1, kind="stable")
    top_scores = np.take_along_axis(scores, top_items, axis=1)
    lists = srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, average=None, **options)
    for name in expected.metrics:
        assert np.array_equal(vectors[name], expected[name]), name
        assert np.array_equal(lists[name], expected[name]), name
