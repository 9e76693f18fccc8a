"""Huge catalogues in bounded memory (tracemalloc, which NumPy reports its buffers to).

The score-matrix front-ends hold one strip of scores at a time (at most
512 MiB with its selection's work, or ``batch_size`` queries) and, at most,
the indices one ``argpartition`` of it takes: their peak is bounded by that strip, whatever
the number of queries, and stays below what the dense way (a float64
(n_queries, n_items) matrix and its argsort) materializes. Top-k lists never
touch the catalogue: their memory is a multiple of the lists.
"""

import tracemalloc

import numpy as np
import pytest
from scipy import sparse

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine.prepare._top_k import strip_rows

N_ITEMS = 2_000_000
INDEX_BYTES = 8  # argpartition's int64 indices, one per score of a strip


def _peak(call):
    """``(result, peak bytes)`` of ``call()``, after one call to warm imports and caches up."""
    call()
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _labels_and_exclude(rng, n_rows, n_items, n_labelled, n_excluded=0):
    """Sparse (n_rows, n_items) labels (``n_labelled`` a row) and a disjoint mask (``n_excluded``)."""
    columns = np.stack([rng.choice(n_items, n_labelled + n_excluded, replace=False)
                        for _ in range(n_rows)])  # fmt: skip

    def matrix(cells, dtype):
        rows = np.repeat(np.arange(n_rows), cells.shape[1])
        return sparse.csr_array((np.ones(rows.shape[0], dtype), (rows, cells.ravel())),
                                shape=(n_rows, n_items))  # fmt: skip

    return matrix(columns[:, :n_labelled], float), matrix(columns[:, n_labelled:], bool)


def _dense_way(n_queries, n_items):
    """Bytes of a float64 (n_queries, n_items) score matrix and its int64 argsort."""
    return n_queries * n_items * (8 + 8)


@pytest.mark.parametrize("similarity", ["dot", "cosine"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_evaluate_retrieval_memory(dtype, similarity):
    """2 queries x 2,000,000 items, batch_size=1: one strip of one row's scores at a time.

    Bound: two strips (a strip: one query's scores and argpartition's
    indices) and, for cosine, two float64 arrays of one value per item (the
    norms). No copy of the item vectors: they are the caller's.
    """
    rng = np.random.default_rng(0)
    items = rng.standard_normal((N_ITEMS, 4)).astype(dtype)
    queries = rng.standard_normal((2, 4)).astype(dtype)
    y_true, exclude = _labels_and_exclude(rng, 2, N_ITEMS, 5, 20)

    def call():
        return srm.evaluate_retrieval(
            queries, items, y_true, similarity=similarity, exclude=exclude, batch_size=1,
            metrics=["ndcg@10", "map@10", "recall@100", "mrr@10"], average=None,
        )  # fmt: skip

    results, peak = _peak(call)
    assert np.isfinite(results["ndcg@10"]).all()
    strip = N_ITEMS * (np.dtype(dtype).itemsize + INDEX_BYTES)
    bound = 2 * strip + (2 * N_ITEMS * 8 if similarity == "cosine" else 0)
    assert peak < bound, f"peak {peak / 2**20:.1f} MiB, bound {bound / 2**20:.1f} MiB"
    if similarity == "dot":
        assert peak < 0.75 * _dense_way(2, N_ITEMS)


def test_evaluate_sparse_labels_memory():
    """evaluate(sparse 3 x 2,000,000 labels, dense float32 scores, exclude): one strip of 3 rows.

    The strip (the float32 copy of its rows, which exclude writes -inf
    into, and argpartition's indices) bounds the peak, below the dense way.
    """
    rng = np.random.default_rng(1)
    y_true, exclude = _labels_and_exclude(rng, 3, N_ITEMS, 5, 30)
    y_score = rng.standard_normal((3, N_ITEMS)).astype(np.float32)

    def call():
        return srm.evaluate(y_true, y_score, exclude=exclude, average=None,
                            metrics=["ndcg@10", "map@10", "recall@100", "hit_rate@5"])  # fmt: skip

    results, peak = _peak(call)
    assert np.isfinite(results["ndcg@10"]).all()
    rows_per_strip = min(3, strip_rows(N_ITEMS, 4, 100))
    strip = rows_per_strip * N_ITEMS * (4 + INDEX_BYTES)
    assert peak < 1.25 * strip, f"peak {peak / 2**20:.1f} MiB, strip {strip / 2**20:.1f} MiB"
    assert peak < 0.8 * _dense_way(3, N_ITEMS)


def test_evaluate_top_k_memory_is_that_of_the_lists():
    """1,000 lists of 100 over a 10,000,000-item catalogue: nothing of the catalogue's size.

    The peak is a multiple of the lists' bytes (about 20 today: the flat
    rows' labels, scores, codes and order), and the same over 1,000 items.
    """
    rng = np.random.default_rng(2)
    peaks = {}
    for n_items in (10_000_000, 1_000):
        lists = np.stack([rng.choice(n_items, 100, replace=False) for _ in range(1_000)])
        y_true, _ = _labels_and_exclude(rng, 1_000, n_items, 5)

        def call():
            return srm.evaluate_top_k(y_true, lists, average=None,
                                      metrics=["ndcg@10", "map@100", "recall@50", "mrr@10"])  # fmt: skip

        results, peaks[n_items] = _peak(call)
        assert np.isfinite(results["ndcg@10"]).all()
        assert peaks[n_items] < 32 * lists.nbytes, f"peak {peaks[n_items] / 2**20:.1f} MiB"
    assert peaks[10_000_000] < 1.25 * peaks[1_000]
