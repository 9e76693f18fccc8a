"""The one sort: the packed-key ranking must equal its specification, a plain lexsort."""

import zlib

import numpy as np
import pytest

from sklearn_rank_metrics._engine.prepare import _sort
from sklearn_rank_metrics._engine.prepare._sort import rank_order as engine_rank_order
from sklearn_rank_metrics._engine.prepare._sort import score_keys


def rank_order(y_score, *args):
    """The engine's ranking, its order None (the rows as they are) spelled out."""
    order, tie_free = engine_rank_order(y_score, *args)
    return (np.arange(y_score.shape[0]) if order is None else order), tie_free
from sklearn_rank_metrics._engine.prepare._validation import check_ranking_input


def _scores(kind, n, rng):
    if kind == "few values":  # heavy ties
        return rng.integers(0, 3, n).astype(float)
    if kind == "continuous":
        return rng.normal(size=n)
    if kind == "near equal":  # distinct scores whose packed high bits collide
        return 1.0 + rng.normal(size=n) * 1e-12
    if kind == "int64 near 2**60":  # distinct integers a float64 would merge
        return 2**60 + rng.integers(0, 64, n)
    if kind == "uint64 above 2**63":
        return np.uint64(2**63) + rng.integers(0, 2**20, n).astype(np.uint64) * np.uint64(2**40)
    if kind == "float32":
        return rng.normal(size=n).astype(np.float32)
    # signed zeros compare equal and must tie
    return np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(-2, 2, n)


def _exact_descending(scores):
    """A lexsort key for descending scores, exact for any integer or float dtype."""
    if scores.dtype.kind == "f":
        return -scores.astype(np.float64)
    return np.array([-int(s) for s in scores.tolist()], dtype=object).argsort(kind="stable").argsort()


KINDS = ["few values", "continuous", "near equal", "signed zeros", "int64 near 2**60",
         "uint64 above 2**63", "float32"]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layout", ["interleaved", "contiguous", "2-D", "ranked", "ranked 2-D"])
@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
def test_rank_order_matches_lexsort(kind, layout, ties):
    rng = np.random.default_rng(zlib.crc32(f"{kind}{layout}{ties}".encode()))
    for _ in range(30):
        if layout in ("2-D", "ranked 2-D"):
            n_queries, width = int(rng.integers(1, 6)), int(rng.integers(2, 15))
            y_score = _scores(kind, n_queries * width, rng).reshape(n_queries, width)
            if layout == "ranked 2-D":  # every row in descending score order
                y_score = np.take_along_axis(
                    y_score, _exact_descending(y_score.ravel()).reshape(y_score.shape).argsort(
                        axis=1, kind="stable"), axis=1
                )  # fmt: skip
            y_true = rng.integers(0, 4, (n_queries, width))
            data = check_ranking_input(y_true, y_score)
        else:
            n = int(rng.integers(1, 80))
            qid = rng.integers(0, int(rng.integers(1, 6)), n)
            if layout == "contiguous":
                qid = np.sort(qid)[::-1]  # grouped, queries in descending id order
            y_score, y_true = _scores(kind, n, rng), rng.integers(0, 4, n).astype(float)
            if layout == "ranked":  # grouped, queries in random order, scores descending
                qid = rng.permutation(5)[np.sort(qid)]
                y_score = y_score[np.lexsort((_exact_descending(y_score), qid))]
            data = check_ranking_input(y_true, y_score, qid)
        order, tie_free = rank_order(
            data.y_score, data.y_true, data.query_codes, data.n_queries, ties, data.rows_are_queries
        )
        n = data.y_score.shape[0]
        assert np.array_equal(np.sort(order), np.arange(n))
        _assert_sorted(order, data, ties)
        if tie_free:
            codes, scores = data.query_codes[order], data.y_score[order]
            same_query = codes[1:] == codes[:-1]
            assert not (same_query & (scores[1:] == scores[:-1])).any()


def _assert_sorted(order, data, ties):
    """``order`` sorts by query, descending score, (opt/pess) label inside ties, then row."""
    n = data.y_score.shape[0]
    codes = data.query_codes[order]
    scores, labels = data.y_score[order], data.y_true[order].astype(float)
    zeros = np.zeros(n)
    label_key = {"optimistic": -labels, "pessimistic": labels, "average": zeros, "first": zeros}
    keys = (order, label_key[ties], _exact_descending(scores), codes)
    assert np.array_equal(np.lexsort(keys), np.arange(n))


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
@pytest.mark.parametrize("tied", [False, True])
def test_rows_ranked_already_are_not_sorted(monkeypatch, ties, tied):
    """Queries in runs of rows, scores never rising along them: the order without a sort.

    Only where the stable sort gives the same order: always under "first"
    and "average", without ties under "optimistic" and "pessimistic" (the
    sort then orders a tie by label).
    """
    sorts = []
    original = _sort._rank_in_one_sort
    monkeypatch.setattr(_sort, "_rank_in_one_sort", lambda *a: sorts.append(1) or original(*a))
    rng = np.random.default_rng(zlib.crc32(f"{ties}{tied}".encode()))
    lengths = rng.integers(1, 30, 50)
    qid = np.repeat(rng.permutation(50) * 7, lengths)  # grouped, in no id order
    y_score = rng.integers(0, 4, qid.shape[0]) if tied else rng.permutation(qid.shape[0])
    y_score = y_score[np.lexsort((-y_score, qid))][np.argsort(np.argsort(qid, kind="stable"))]
    y_true = rng.integers(0, 4, qid.shape[0])
    data = check_ranking_input(y_true, y_score, qid)
    order, tie_free = rank_order(data.y_score, data.y_true, data.query_codes, data.n_queries, ties)
    _assert_sorted(order, data, ties)
    assert tie_free is not tied
    assert bool(sorts) == (tied and ties in ("optimistic", "pessimistic"))
    # Queries in code order too: the rows as they are, no order array made.
    in_code_order = np.argsort(data.query_codes, kind="stable")
    data = check_ranking_input(y_true[in_code_order], y_score[in_code_order], qid[in_code_order])
    order, _ = engine_rank_order(data.y_score, data.y_true, data.query_codes, data.n_queries, ties)
    assert (order is None) == (not tied or ties in ("average", "first"))
    # A single rise inside a query, or a query in two runs, takes the sort.
    for broken in (y_score[::-1].copy(), y_score):
        sorts.clear()
        shuffled_qid = qid if broken is not y_score else np.roll(qid, 1)
        data = check_ranking_input(y_true, broken, shuffled_qid)
        order, _ = rank_order(data.y_score, data.y_true, data.query_codes, data.n_queries, ties)
        _assert_sorted(order, data, ties)
        assert sorts


@pytest.mark.parametrize("path", ["offsets inside queries", "two sorts"])
@pytest.mark.parametrize("ties", ["first", "optimistic", "average"])
def test_rank_order_keeps_row_order_inside_ties_on_every_path(monkeypatch, path, ties):
    """The sorts for many rows and queries keep row order inside ties too."""
    # Demanding all 63 bits for the score makes the packed sort by row give
    # up, as many rows and queries do; contiguous queries then pack the
    # offset inside the query (fewer bits), interleaved ones sort twice.
    monkeypatch.setattr(_sort, "_MIN_PACKED_SCORE_BITS", 63)
    two_sorts = []
    original = _sort._rank_in_two_sorts
    monkeypatch.setattr(
        _sort, "_rank_in_two_sorts", lambda *args: two_sorts.append(1) or original(*args)
    )
    rng = np.random.default_rng(zlib.crc32(f"{path}{ties}".encode()))
    for _ in range(20):
        # 40 queries of 4 to 6 rows, 160 to 240 rows: a score range of 2**50
        # leaves too few bits beside the row (8 bits), enough beside the
        # offset inside the query (3 bits).
        qid = np.repeat(np.arange(40), rng.integers(4, 7, 40))
        n = qid.shape[0]
        if path == "two sorts":
            qid = rng.permutation(qid)
        y_score = rng.integers(0, 3, n) * 2**49  # heavy ties
        y_true = rng.integers(0, 4, n)
        data = check_ranking_input(y_true, y_score, qid)
        order, _ = rank_order(data.y_score, data.y_true, data.query_codes, data.n_queries, ties)
        _assert_sorted(order, data, ties)
    assert bool(two_sorts) == (path == "two sorts")


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
    data = check_ranking_input(np.zeros(n), y_score, qid)
    order, _ = rank_order(data.y_score, data.y_true, data.query_codes, data.n_queries, "average")
    reference = np.lexsort((-y_score, data.query_codes))
    assert np.array_equal(data.query_codes[order], data.query_codes[reference])
    assert np.array_equal(y_score[order], y_score[reference])


@pytest.mark.parametrize(
    "scores",
    [
        np.array([-np.inf, -1e300, -1.0, -0.0, 0.0, 5e-324, 1.0, 1e300, np.inf]),
        np.array([-(2**63), -1, 0, 1, 2**62, 2**63 - 1], dtype=np.int64),
        np.array([0, 1, 2**53, 2**53 + 1, 2**63, 2**64 - 1], dtype=np.uint64),
        np.array([-128, -1, 0, 127], dtype=np.int8),
    ],
    ids=["float64", "int64", "uint64", "int8"],
)
def test_score_keys_order_descending_and_equal_exactly_for_equal_scores(scores):
    keys = score_keys(scores)
    assert (np.diff(keys) < 0).all() or (scores.dtype.kind == "f" and (np.diff(keys) <= 0).all())
    if scores.dtype.kind == "f":  # -0.0 and 0.0: one key
        assert keys[3] == keys[4] and (np.delete(np.diff(keys), 3) < 0).all()


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
@pytest.mark.parametrize("queries", [1, 3000])
@pytest.mark.parametrize(
    "scores",
    [
        lambda rng, n: rng.integers(0, 3, n) * 1e-9 + np.where(rng.random(n) < 0.01, 1e-15, 0) + 1,
        lambda rng, n: rng.integers(0, 3, n) * 1e10 + 1.0 + rng.integers(0, 8, n) * 1e-14,
    ],
    ids=["mostly ties", "many collisions"],
)
def test_collision_runs_longer_than_a_block_are_re_sorted_whole(ties, queries, scores):
    # Ties (equal scores) and truncation collisions (distinct scores equal in
    # their high bits) mixed, in runs of the packed keys longer than the
    # blocks the re-sort works in: one query holds every row, or the first
    # sort is by score alone (ties across queries).
    rng = np.random.default_rng(queries)
    n = 3 * _sort.BLOCK + 17
    qid = rng.integers(0, queries, n)
    data = check_ranking_input(rng.integers(0, 4, n), scores(rng, n), qid)
    order, tie_free = rank_order(
        data.y_score, data.y_true, data.query_codes, data.n_queries, ties
    )
    _assert_sorted(order, data, ties)
    assert not tie_free
