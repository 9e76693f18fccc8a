"""``evaluate_retrieval(..., return_top_k=k)``: each query's top items and scores, and their reuse.

The lists are those of a full sort of the score matrix (score descending,
ties by item id, excluded items left out), padded with -1 and NaN where a
query has fewer than k items left; fed back to ``evaluate_top_k`` with
their scores they give evaluate_retrieval's own numbers wherever no tie
straddles the returned k.
"""

import warnings

import numpy as np
import pytest
from scipy import sparse

import sklearn_rank_metrics as srm

from _retrieval_cases import TIES, head_metrics, power_of_two_vectors, random_matrix, similarity_matrix

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


def brute_force_top_k(scores, exclude, k):
    """Items and scores of each row's top k by np.lexsort of the whole matrix; -1 / NaN padding."""
    n_rows, n_items = scores.shape
    items = np.full((n_rows, k), -1)
    values = np.full((n_rows, k), np.nan, dtype=scores.dtype)
    for row in range(n_rows):
        kept = np.flatnonzero(~exclude[row])
        order = kept[np.lexsort((kept, -scores[row, kept]))][:k]
        items[row, : len(order)] = order
        values[row, : len(order)] = scores[row, order]
    return items, values


def _case(seed, similarity, dtype, n_queries=9, n_items=15, integer=True, spread=2):
    rng = np.random.default_rng(seed)
    if similarity == "cosine":
        queries, items = power_of_two_vectors(rng, n_queries), power_of_two_vectors(rng, n_items)
    elif integer:
        queries = rng.integers(-spread, spread + 1, (n_queries, 3)).astype(float)
        items = rng.integers(-spread, spread + 1, (n_items, 3)).astype(float)
    else:
        queries = rng.standard_normal((n_queries, 5))
        items = rng.standard_normal((n_items, 5))
    y_true, _, exclude = random_matrix(rng, n_queries, n_items, exclude_density=0.3,
                                       all_excluded_row=True)  # fmt: skip
    exclude[2, 3:] = True  # a query with 3 items left: shorter than most k
    y_true[2, 3:] = 0
    return queries.astype(dtype), items.astype(dtype), sparse.csr_array(y_true), exclude


@pytest.mark.parametrize("batch_size", [1, 4, None])
@pytest.mark.parametrize("k", [1, 4, 15, 20])
@pytest.mark.parametrize("similarity", ["dot", "cosine"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lists_are_those_of_a_full_sort(dtype, similarity, k, batch_size):
    """Score descending, ties by item id, excluded items never listed; dtype kept."""
    queries, items, y_true, exclude = _case(k, similarity, dtype)
    _, top_items, top_scores = srm.evaluate_retrieval(
        queries, items, y_true, similarity=similarity, exclude=exclude, return_top_k=k,
        batch_size=batch_size, metrics=["ndcg@3"],
    )  # fmt: skip
    want_items, want_scores = brute_force_top_k(similarity_matrix(queries, items, similarity), exclude, k)
    assert top_items.shape == top_scores.shape == (queries.shape[0], k)
    assert np.issubdtype(top_items.dtype, np.integer)
    assert top_scores.dtype == dtype
    assert np.array_equal(top_items, want_items)
    assert np.array_equal(top_scores, want_scores, equal_nan=True)
    assert (top_items[0] == -1).all()  # every item excluded
    assert (top_items[2, 3:] == -1).all() and np.isnan(top_scores[2, 3:]).all()


@pytest.mark.parametrize("k, metric_ks", [(5, (1, 3, 5)), (3, (1, 2, 3, 8)), (10, (1, 2))])
def test_lists_with_measures_cut_elsewhere(k, metric_ks):
    """return_top_k above, at and below the measures' cutoffs: the lists do not depend on them."""
    queries, items, y_true, exclude = _case(7, "dot", np.float64)
    _, got_items, got_scores = srm.evaluate_retrieval(
        queries, items, y_true, exclude=exclude, return_top_k=k,
        metrics=[f"recall@{c}" for c in metric_ks],
    )  # fmt: skip
    want_items, want_scores = brute_force_top_k(queries @ items.T, exclude, k)
    assert np.array_equal(got_items, want_items)
    assert np.array_equal(got_scores, want_scores, equal_nan=True)


def _straddles(scores, exclude, k):
    """Whether, in some row, the k-th and (k+1)-th kept scores tie."""
    for row in range(scores.shape[0]):
        kept = np.sort(scores[row, ~exclude[row]])[::-1]
        if len(kept) > k and kept[k - 1] == kept[k]:
            return True
    return False


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [3, 6])
def test_lists_fed_back_to_evaluate_top_k(k, dtype, integer):
    """evaluate_top_k(y_true, items, top_scores=scores) gives evaluate_retrieval's numbers.

    The measures are cut at or below k and no tie straddles the returned k;
    ties inside the lists are kept by top_scores, so every tie mode agrees.
    """
    rng_seed = {3: 0, 6: 5}[k]
    for seed in range(rng_seed, rng_seed + 50):
        queries, items, y_true, exclude = _case(seed, "dot", dtype, integer=integer, spread=6)
        if not _straddles(queries.astype(float) @ items.astype(float).T, exclude, k):
            break
    else:
        pytest.fail("no case without a tie at the cut")
    for ties in TIES:
        metrics = head_metrics(sorted({1, 2, k}), ties=ties)
        own, top_items, top_scores = srm.evaluate_retrieval(
            queries, items, y_true, exclude=exclude, return_top_k=k, metrics=metrics, ties=ties,
            average=None,
        )  # fmt: skip
        again = srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, exclude=exclude,
                                   metrics=metrics, ties=ties, average=None)  # fmt: skip
        for name in metrics:
            assert np.array_equal(again[name], own[name], equal_nan=True), (name, ties)
            assert np.array_equal(again.weights(name), own.weights(name)), (name, ties)


def test_a_tie_straddling_k_is_the_lists_limit():
    """Where a tie straddles k, the list (cut by item id) and the exact values differ; the bounds hold.

    Items 0-3 tie for query 0 and k = 2: the list keeps items 0 and 1, the
    exact ties="average" value counts the whole block.
    """
    queries = np.array([[1.0]])
    items = np.array([[1.0], [1.0], [1.0], [1.0], [0.5]])
    y_true = sparse.csr_array(np.array([[0, 0, 1, 1, 0]]))
    own, top_items, top_scores = srm.evaluate_retrieval(queries, items, y_true, return_top_k=2,
                                                        metrics=["recall@2"], average=None)  # fmt: skip
    assert np.array_equal(top_items, [[0, 1]])
    assert own["recall@2"][0] == 0.5  # expected value: 2 of 4 places in the top 2, over 2 relevant
    listed = srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, metrics=["recall@2"],
                                average=None)  # fmt: skip
    assert listed["recall@2"][0] == 0.0
    for ties, bound in (("pessimistic", 0.0), ("optimistic", 1.0)):
        assert srm.evaluate_retrieval(queries, items, y_true, metrics=["recall@2"], ties=ties) == {
            "recall@2": bound
        }


def test_padding_beyond_the_items_left_is_not_pooled():
    """A query with 2 items left (exclude) and k = 4: hit_rate_item@4 is hits / min(4, 2).

    evaluate_top_k on evaluate_retrieval's own list [0, 1, -1, -1] gives
    evaluate_retrieval's value and weight: the two -1 are no positions an
    item could fill.
    """
    y_true = sparse.csr_array(np.array([[1, 0, 0, 0], [0, 0, 0, 0]]))
    exclude = np.array([[False, False, True, True], [True, True, True, True]])
    queries, items = np.array([[1.0], [1.0]]), np.array([[3.0], [2.0], [1.0], [0.5]])
    metrics = ["hit_rate_item@4", "precision@4"]
    own, top_items, top_scores = srm.evaluate_retrieval(queries, items, y_true, exclude=exclude,
                                                        return_top_k=4, metrics=metrics,
                                                        average=None)  # fmt: skip
    assert np.array_equal(top_items, [[0, 1, -1, -1], [-1, -1, -1, -1]])
    assert np.array_equal(own["hit_rate_item@4"], [0.5, 0.0])
    assert np.array_equal(own.weights("hit_rate_item@4"), [2.0, 0.0])
    again = srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, exclude=exclude,
                               metrics=metrics, average=None)  # fmt: skip
    for name in metrics:
        assert np.array_equal(again[name], own[name]), name
        assert np.array_equal(again.weights(name), own.weights(name)), name


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic"])
def test_a_list_ending_inside_the_tie_at_a_cut_warns_counting_the_queries(ties):
    """The block tied at the cut reaches the end of a full list: its size beyond is unknown."""
    y_true = sparse.csr_array(np.array([[1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0]]))
    top_items = [[0, 1, 2, 3], [0, 1, 2, 3]]
    top_scores = [[3.0, 2.0, 2.0, 2.0], [3.0, 2.0, 1.0, 0.0]]  # row 0 only: tied from 2 to the end
    with pytest.warns(UserWarning, match=r"the lists of 1 queries \(e\.g\. row 0\) end inside"):
        srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, metrics=["recall@2"],
                           ties=ties)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # list order decides under "first"; a cut at the end too
        srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, metrics=["recall@2"],
                           ties="first")  # fmt: skip
        srm.evaluate_top_k(y_true, top_items, top_scores=top_scores, metrics=["recall@4"],
                           ties=ties)  # fmt: skip
