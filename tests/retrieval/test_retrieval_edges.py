"""Queries at the edges: every item excluded, no relevant item, empty lists.

A query whose every item is excluded ranks nothing: its value is that of a
query without a relevant item (the no_relevant convention), and in a pooled
mean (hit_rate_item: ``sum hits@k / sum min(k, n)``) it pools no item.
"""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm

from _retrieval_cases import HEAD_MEASURES, head_metrics

# Query 0: every item excluded; query 1: one relevant item (1), ranked first of 3;
# query 2: no relevant item.
QUERY_VECTORS = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
ITEM_VECTORS = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
Y_TRUE = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]])
EXCLUDE = np.array([[True, True, True], [False, False, False], [False, False, False]])


def _matrix_path(path, metrics, **options):
    """The results of one input (``path``) on the case above."""
    scores = QUERY_VECTORS @ ITEM_VECTORS.T
    if path == "evaluate":
        return srm.evaluate(sparse.csr_array(Y_TRUE), scores, exclude=EXCLUDE, metrics=metrics,
                            **options)  # fmt: skip
    if path == "evaluate_retrieval":
        return srm.evaluate_retrieval(QUERY_VECTORS, ITEM_VECTORS, Y_TRUE, exclude=EXCLUDE,
                                      metrics=metrics, **options)  # fmt: skip
    top_items = np.array([[-1, -1, -1], [1, 2, 0], [2, 1, 0]])
    top_scores = np.take_along_axis(scores, np.maximum(top_items, 0), axis=1)
    top_scores[top_items < 0] = np.nan
    return srm.evaluate_top_k(Y_TRUE, top_items, top_scores=top_scores, exclude=EXCLUDE,
                              metrics=metrics, **options)  # fmt: skip


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("no_relevant", ["zero", "skip"])
@pytest.mark.parametrize("path", ["evaluate", "evaluate_retrieval"])
def test_all_excluded_query_has_the_no_relevant_value(path, no_relevant):
    metrics = head_metrics((1, 2), ties="first")
    results = _matrix_path(path, metrics, ties="first", no_relevant=no_relevant, average=None)
    assert list(results.query_ids) == [0, 1, 2]
    expected = 0.0 if no_relevant == "zero" else np.nan
    for name in metrics:
        assert np.array_equal(results[name][[0]], [expected], equal_nan=True), name


@pytest.mark.parametrize("path", ["evaluate", "evaluate_retrieval"])
def test_all_excluded_query_pools_no_item(path):
    """hit_rate_item's mean is sum hits@k / sum min(k, n): a query ranking nothing adds 0 to both.

    Query 1 hits 1 of its top 2, query 2 none of its top 2, query 0 ranks no
    item: the pooled mean is 1 / (0 + 2 + 2) = 0.25, its weights (0, 2, 2).
    """
    results = _matrix_path(path, ["hit_rate_item@2"], average=None)
    assert np.array_equal(results["hit_rate_item@2"], [0.0, 0.5, 0.0])
    assert np.array_equal(results.weights("hit_rate_item@2"), [0.0, 2.0, 2.0])
    assert results.mean()["hit_rate_item@2"] == 0.25


def test_empty_list_counts_its_k_empty_positions():
    """An empty list (all -1) pools k empty positions: hit_rate_item's weight is k, P@k is 0."""
    y_true = sparse.csr_array(np.array([[1, 0, 0], [0, 1, 0]]))
    results = srm.evaluate_top_k(y_true, [[-1, -1], [1, -1]], metrics=["hit_rate_item@2",
                                 "precision@2", "recall@2", "ndcg@2", "mrr@2"], average=None)  # fmt: skip
    assert np.array_equal(results["hit_rate_item@2"], [0.0, 0.5])
    assert np.array_equal(results.weights("hit_rate_item@2"), [2.0, 2.0])
    assert np.array_equal(results["precision@2"], [0.0, 0.5])
    for name in ("recall@2", "ndcg@2", "mrr@2"):
        assert np.array_equal(results[name], [0.0, 1.0]), name


@pytest.mark.parametrize("no_relevant", ["zero", "skip"])
def test_empty_lists_only(no_relevant):
    """Every list empty: every query ranks nothing relevant (0), or has none to rank (skip)."""
    y_true = sparse.csr_array(np.array([[1, 0, 0], [0, 0, 0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        results = srm.evaluate_top_k(y_true, np.full((2, 2), -1), metrics=head_metrics((1, 2)),
                                     no_relevant=no_relevant, average=None)  # fmt: skip
    second = 0.0 if no_relevant == "zero" else np.nan
    for name in head_metrics((1, 2)):
        assert np.array_equal(results[name], [0.0, second], equal_nan=True), name


@pytest.mark.parametrize("path", ["evaluate", "evaluate_retrieval", "evaluate_top_k"])
def test_skipped_query_is_left_out_of_the_means(path):
    """no_relevant="skip": query 2 (no relevant item) and query 0 (all excluded) are NaN, and warned."""
    metrics = [f"{name}@2" for name in HEAD_MEASURES if name != "err"]
    with pytest.warns(UndefinedMetricWarning, match="2 of 3 queries have no relevant"):
        results = _matrix_path(path, metrics, no_relevant="skip", average=None)
    for name in metrics:
        values = results[name]
        assert np.isnan(values[0]) and np.isnan(values[2]) and not np.isnan(values[1]), name
        assert results.mean()[name] == values[1], name
