"""sample_ranks against a brute-force loop over users: draws, exclusions, ties, reproducibility."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_rank_metrics as srm
from sklearn_rank_metrics.retrieval import _sample_ranks

SAMPLINGS = ["with_replacement", "without_replacement"]

# 4 users x 7 items, ties on purpose; user 2 excludes items 0 and 6, user 3 item 1.
SCORES = np.array([
    [0.5, 0.9, 0.5, 0.1, 0.5, 0.3, 0.7],
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    [0.9, 0.2, 0.4, 0.4, 0.8, 0.4, 0.9],
    [0.1, 0.6, 0.3, 0.2, 0.6, 0.0, 0.6],
])  # fmt: skip
HELD_OUT = np.array([0, 3, 2, 4])
EXCLUDED = {2: [0, 6], 3: [1]}


def exclude_as(kind):
    mask = np.zeros(SCORES.shape, dtype=bool)
    for user, items in EXCLUDED.items():
        mask[user, items] = True
    return {"bool": mask, "csr": sp.csr_matrix(mask.astype(float)), "coo": sp.coo_array(mask)}[kind]


def allowed(user):
    return [i for i in range(SCORES.shape[1]) if i != HELD_OUT[user] and i not in EXCLUDED.get(user, [])]


def brute_force_distribution(user, n_samples, sampling, ties, scores=SCORES, held_out=HELD_OUT):
    """Exact P(sampled rank) of one user: every sample of its allowed items, every tie order.

    ``"random"`` ranks the held-out item under a uniformly random order of its
    tie block, the allowed items scoring as it does: ``q`` of its ``T`` tied
    items above it, ``q`` uniform on ``0..T``, each set of ``q`` as likely;
    a tied item drawn twice is above it both times or neither.
    """
    items = allowed(user) if scores is SCORES else [i for i in range(scores.shape[1]) if i != held_out[user]]
    samples = (
        list(itertools.product(items, repeat=n_samples)) if sampling == "with_replacement"
        else list(itertools.combinations(items, n_samples))
    )  # fmt: skip
    own = scores[user, held_out[user]]
    block = [i for i in items if scores[user, i] == own]
    orders = {  # (the tied items above, its probability)
        "optimistic": [((), Fraction(1))],
        "pessimistic": [(tuple(block), Fraction(1))],
        "random": [
            (above, Fraction(1, (len(block) + 1) * math.comb(len(block), q)))
            for q in range(len(block) + 1)
            for above in itertools.combinations(block, q)
        ],
    }[ties]
    distribution = {}
    for sample in samples:
        above = sum(scores[user, i] > own for i in sample)
        for tied_above, weight in orders:
            rank = 1 + above + sum(i in tied_above for i in sample)
            distribution[rank] = distribution.get(rank, 0) + weight / len(samples)
    return distribution


@pytest.mark.parametrize("kind", ["bool", "csr", "coo"])
@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_every_allowed_item_drawn_gives_the_brute_force_rank(kind, ties):
    """Without replacement and n_samples the smallest pool, ranks are the loop's for 3 users."""
    users = [0, 1, 2]  # pools of 6, 6 and 4 items: draw the 4 of user 2 from the others too
    ranks = srm.sample_ranks(
        SCORES, HELD_OUT, n_samples=4, exclude=exclude_as(kind), ties=ties,
        sampling="without_replacement", random_state=0,
    )  # fmt: skip
    (rank,) = brute_force_distribution(2, 4, "without_replacement", ties)
    assert ranks[2] == rank
    for user in users:
        assert ranks[user] in brute_force_distribution(user, 4, "without_replacement", ties)


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("ties", ["random", "optimistic", "pessimistic"])
def test_the_ranks_follow_the_brute_force_distribution(sampling, ties):
    """6000 independent draws of every user against its exact distribution (5 sigma)."""
    repeats = 6000
    rows = np.repeat(np.arange(SCORES.shape[0]), repeats)
    mask = exclude_as("bool")[rows]
    ranks = srm.sample_ranks(
        SCORES[rows], HELD_OUT[rows], n_samples=3, exclude=sp.csr_matrix(mask), ties=ties,
        sampling=sampling, random_state=np.random.default_rng(5),
    )  # fmt: skip
    for user in range(SCORES.shape[0]):
        found = np.bincount(ranks[rows == user], minlength=5)[1:] / repeats
        exact = brute_force_distribution(user, 3, sampling, ties)
        for rank in range(1, 5):
            p = float(exact.get(rank, 0))
            assert abs(found[rank - 1] - p) <= 5 * np.sqrt(p * (1 - p) / repeats) + 1e-12, (user, rank)


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(
    ("scores", "n_samples"),
    [
        ([0.5, 0.5, 0.9], 2),  # one tied item, one above: a tied item drawn twice
        ([0.5, 0.5, 0.5, 0.9, 0.1], 3),
        ([2, 2, 2, 2], 3),  # integer scores, the whole row one tie block
    ],
)  # fmt: skip
def test_random_ties_follow_a_random_order_of_the_tie_block(sampling, scores, n_samples):
    """The rank's frequencies over many users against the exact pmf over tie orders (5 sigma).

    With replacement, placing each tied draw independently (a uniform place
    among the tied draws) gives, for the first row, P(rank = 1, 2, 3) =
    (1/12, 1/3, 7/12) instead of (1/8, 1/4, 5/8).
    """
    repeats = 40_000
    row = np.asarray([scores])
    ranks = srm.sample_ranks(
        np.repeat(row, repeats, axis=0), np.zeros(repeats, dtype=np.int64), n_samples=n_samples,
        sampling=sampling, random_state=np.random.default_rng(7),
    )  # fmt: skip
    exact = brute_force_distribution(0, n_samples, sampling, "random", row, [0])
    assert sum(exact.values()) == 1
    found = np.bincount(ranks, minlength=n_samples + 2)[1:] / repeats
    for rank in range(1, n_samples + 2):
        p = float(exact.get(rank, 0))
        assert abs(found[rank - 1] - p) <= 5 * np.sqrt(p * (1 - p) / repeats) + 1e-12, rank


def test_the_brute_force_tie_model_of_the_three_item_example():
    row = np.array([[0.5, 0.5, 0.9]])
    exact = brute_force_distribution(0, 2, "with_replacement", "random", row, [0])
    assert exact == {1: Fraction(1, 8), 2: Fraction(1, 4), 3: Fraction(5, 8)}
    exact = brute_force_distribution(0, 2, "without_replacement", "random", row, [0])
    assert exact == {2: Fraction(1, 2), 3: Fraction(1, 2)}


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_draws_cover_exactly_the_allowed_items(sampling):
    forbidden = _sample_ranks._forbidden("f", exclude_as("csr"), HELD_OUT, SCORES.shape)
    rng = np.random.default_rng(0)
    users = np.arange(SCORES.shape[0])
    n_samples = 4 if sampling == "without_replacement" else 7
    seen = [set() for _ in users]
    for _ in range(200):
        blocked, pool = _sample_ranks._pools(forbidden, users, SCORES.shape[1])
        items = _sample_ranks._draw_items(rng, blocked, pool, SCORES.shape[1], n_samples, sampling)
        for user in users:
            seen[user].update(items[user].tolist())
            if sampling == "without_replacement":
                assert len(set(items[user].tolist())) == n_samples
    assert seen == [set(allowed(user)) for user in users]


def test_the_same_random_state_gives_the_same_ranks():
    rng = np.random.default_rng(0)
    scores = rng.random((50, 300))
    held = rng.integers(0, 300, 50)
    first = srm.sample_ranks(scores, held, n_samples=20, random_state=3)
    assert np.array_equal(first, srm.sample_ranks(scores, held, n_samples=20, random_state=3))
    assert np.array_equal(
        first, srm.sample_ranks(scores, held, n_samples=20, random_state=np.random.default_rng(3))
    )
    assert not np.array_equal(first, srm.sample_ranks(scores, held, n_samples=20, random_state=4))
    srm.sample_ranks(scores, held, n_samples=20, random_state=np.random.RandomState(0))
    state = np.random.get_state()[1].copy()
    srm.sample_ranks(scores, held, n_samples=20)
    assert np.array_equal(state, np.random.get_state()[1])  # no global random state used


def test_sampled_ranks_round_trip_into_the_correction():
    """A planted model: sample_ranks then correct_sampled_metric, against the exact recall@10."""
    rng = np.random.default_rng(1)
    n_users, n_items = 2000, 1000
    full_ranks = np.minimum(np.ceil(rng.pareto(0.7, n_users) * 5), n_items).astype(np.int64)
    scores = np.tile(np.arange(n_items, 0, -1, dtype=np.float64), (n_users, 1))  # item i at rank i+1
    exact = np.mean(full_ranks <= 10)
    estimates = {"naive": [], "bv": []}
    for seed in range(5):
        ranks = srm.sample_ranks(scores, full_ranks - 1, n_samples=100, random_state=seed)
        for method, found in estimates.items():
            found.append(
                srm.correct_sampled_metric(ranks, n_items=n_items, n_samples=100, method=method)
            )
    assert abs(np.mean(estimates["bv"]) - exact) < 0.05
    assert abs(np.mean(estimates["naive"]) - exact) > 0.2


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (dict(held_out=[0, 3, 0, 4]), ValueError, "held-out item 0 of user \\(row\\) 2 is also in exclude"),
        (dict(held_out=[0, 3, 2, 7]), ValueError, "held_out of user \\(row\\) 3 is item 7, outside"),
        (dict(held_out=[0, 3, 2]), ValueError, "one integer item id"),
        (dict(n_samples=5, sampling="without_replacement"), ValueError, "user \\(row\\) 2 has 4 items"),
        (dict(n_samples=0), ValueError, "n_samples=0 is not valid"),
        (dict(ties="average"), ValueError, "ties='average' is not valid; ties must be one of 'random'"),
        (dict(y_score=sp.csr_matrix(SCORES)), TypeError, "dense"),
        (dict(exclude=np.zeros((4, 6), dtype=bool)), ValueError, "boolean array of the shape"),
        (dict(exclude=sp.csr_matrix((3, 7))), ValueError, "exclude has shape \\(3, 7\\)"),
        (dict(random_state=-1), ValueError, "random_state must be"),
    ],
)  # fmt: skip
def test_errors_name_the_argument_and_the_user(call, error, message):
    arguments = {"y_score": SCORES, "held_out": HELD_OUT, "n_samples": 2, "exclude": exclude_as("bool")}
    arguments.update(call)
    with pytest.raises(error, match=message):
        srm.sample_ranks(arguments.pop("y_score"), arguments.pop("held_out"), **arguments)


def test_a_nan_score_is_an_error_naming_the_user_and_item():
    scores = SCORES.copy()
    scores[1, 3] = np.nan
    with pytest.raises(ValueError, match="y_score of user \\(row\\) 1 is NaN for item 3"):
        srm.sample_ranks(scores, HELD_OUT, n_samples=2, random_state=0)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_users=st.integers(1, 6), n_items=st.integers(2, 12))
def test_every_allowed_item_is_found_by_its_index(data, n_users, n_items):
    """The index -> item map against a per-user list, for random exclusions (all indices)."""
    held = np.array(data.draw(st.lists(st.integers(0, n_items - 1), min_size=n_users, max_size=n_users)))
    mask = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=n_items, max_size=n_items),
                                       min_size=n_users, max_size=n_users)))  # fmt: skip
    mask[np.arange(n_users), held] = False
    forbidden = _sample_ranks._forbidden("f", mask, held, (n_users, n_items))
    users = np.arange(n_users)
    blocked, pool = _sample_ranks._pools(forbidden, users, n_items)
    lists = [[i for i in range(n_items) if i != held[u] and not mask[u, i]] for u in users]
    assert pool.tolist() == [len(items) for items in lists]
    width = int(pool.max())
    draws = np.minimum(np.arange(width)[None, :], np.maximum(pool[:, None] - 1, 0))
    found = _sample_ranks.allowed_items(blocked, n_items, draws)
    for user, items in enumerate(lists):
        if items:
            assert found[user].tolist() == [items[min(t, len(items) - 1)] for t in range(width)]


def test_tie_blocks_counted_a_few_rows_at_a_time_give_the_same_ranks(monkeypatch):
    """T over whole rows, counted row by row, equals the one-pass count (same draws)."""
    rng = np.random.default_rng(2)
    scores = rng.integers(0, 4, (300, 40))
    held = rng.integers(0, 40, 300)
    mask = rng.random((300, 40)) < 0.2
    mask[np.arange(300), held] = False
    first = srm.sample_ranks(scores, held, n_samples=10, exclude=mask, random_state=1)
    monkeypatch.setattr(_sample_ranks, "_TIE_CELLS", 40)
    assert np.array_equal(first, srm.sample_ranks(scores, held, n_samples=10, exclude=mask, random_state=1))
