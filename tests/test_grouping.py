"""The one sort: packed-key ranking must equal a plain lexsort, ties and collisions included."""

import zlib

import numpy as np
import pytest

from sklearn_rank_metrics._engine._sort import rank_order
from sklearn_rank_metrics._engine._validation import check_ranking_input


def _scores(kind, n, rng):
    if kind == "few values":  # heavy ties
        return rng.integers(0, 3, n).astype(float)
    if kind == "continuous":
        return rng.normal(size=n)
    if kind == "near equal":  # distinct scores whose packed high bits collide
        return 1.0 + rng.normal(size=n) * 1e-12
    # signed zeros compare equal and must tie
    return np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(-2, 2, n)


@pytest.mark.parametrize("kind", ["few values", "continuous", "near equal", "signed zeros"])
@pytest.mark.parametrize("contiguous", [False, True])
@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic"])
def test_rank_order_matches_lexsort(kind, contiguous, ties):
    rng = np.random.default_rng(zlib.crc32(f"{kind}{contiguous}{ties}".encode()))
    for _ in range(40):
        n = int(rng.integers(1, 80))
        qid = rng.integers(0, int(rng.integers(1, 6)), n)
        if contiguous:
            qid = np.sort(qid)
        y_score = _scores(kind, n, rng)
        y_true = rng.integers(0, 4, n).astype(float)
        ranking_input = check_ranking_input(y_true, y_score, qid)
        order, tie_free = rank_order(ranking_input, ties)

        assert np.array_equal(np.sort(order), np.arange(n))
        codes = ranking_input.query_codes[order]
        scores, labels = y_score[order], y_true[order]
        label_key = {"optimistic": -labels, "pessimistic": labels, "average": np.zeros(n)}[ties]
        # Sorted by query, then descending score, then (opt/pess) label inside ties.
        reference = np.lexsort((label_key, -scores, codes))
        assert np.array_equal(reference, np.arange(n))
        if tie_free:
            same_query = codes[1:] == codes[:-1]
            assert not (same_query & (scores[1:] == scores[:-1])).any()


@pytest.mark.parametrize("contiguous", [False, True])
def test_rank_order_many_collisions_large(contiguous):
    # 300k rows of scores equal in their high bits force the exact re-sort
    # on many runs at once.
    rng = np.random.default_rng(7)
    n = 300_000
    qid = rng.integers(0, 3000, n)
    if contiguous:
        qid = np.sort(qid)
    y_score = 1.0 + rng.normal(size=n) * 1e-13
    ranking_input = check_ranking_input(np.zeros(n), y_score, qid)
    order, _ = rank_order(ranking_input, "average")
    reference = np.lexsort((-y_score, ranking_input.query_codes))
    assert np.array_equal(ranking_input.query_codes[order], ranking_input.query_codes[reference])
    assert np.array_equal(y_score[order], y_score[reference])
