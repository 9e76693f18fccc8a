"""Memory stays a small multiple of the input, tie-heavy input included.

The peak that tracemalloc sees (NumPy reports its buffers to it) while
``evaluate`` runs, beyond the inputs that exist before: at most 1.5 times the
input's bytes, as the README promises, at about 1e6 rows (the ranking's
temporaries are proportional to the input; the kernels' to a chunk).
"""

import tracemalloc

import numpy as np
import pytest

from sklearn_rank_metrics import evaluate

N_ROWS = 1_000_000
METRICS = ["ndcg@10", "map@100", "mrr@10", "recall@100", "precision@10"]


def _tie_heavy(levels, string_ids, seed=0):
    """~100 documents a query, interleaved ids, scores of ``levels`` distinct values."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, N_ROWS // 100, N_ROWS)
    if string_ids:
        qid = np.char.add("q", qid.astype(str))
    y_true = rng.integers(0, 5, N_ROWS).astype(np.float64)
    y_score = np.floor(rng.random(N_ROWS) * levels)
    return y_true, y_score, qid


@pytest.mark.parametrize(
    "levels, string_ids, ties",
    [
        (2, False, "average"),
        (10, False, "average"),
        (10, True, "average"),
        (1000, False, "average"),
        (10, False, "optimistic"),
    ],
)
def test_tie_heavy_input_peaks_below_one_and_a_half_times_its_size(levels, string_ids, ties):
    y_true, y_score, qid = _tie_heavy(levels, string_ids)
    input_bytes = y_true.nbytes + y_score.nbytes + qid.nbytes
    tracemalloc.start()
    try:
        evaluate(y_true, y_score, qid=qid, metrics=METRICS, ties=ties)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 1.5 * input_bytes, f"peak {peak / input_bytes:.2f}x the input"
