"""Tie blocks at the cut against every ordering of the tied items.

A block of tied scores straddling position ``k`` is kept whole by each
front-end. ``ties="average"`` must be the mean, over every permutation of the
tied items, of the ``ties="first"`` values of the permuted input (the
order ``"first"`` reads: the columns', or the list's), to 1e-12 relative;
``"optimistic"`` and ``"pessimistic"`` the largest and the smallest. Every
permutation is one row (query) of a single call, so a case costs two calls.
"""

import itertools
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import sparse

import sklearn_rank_metrics as srm

from _retrieval_cases import head_metrics

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")

BLOCK_SCORE = 10


@dataclass
class TieCase:
    """One query: ``n_above`` distinct scores, a block of ``tied`` items at BLOCK_SCORE, then lower ones.

    ``columns`` shuffles the items among the matrix's columns; ``excluded``
    are further columns (label 0), one of them tied with the block, that
    ``exclude`` removes.
    """

    labels: np.ndarray  # per column
    scores: np.ndarray  # per column
    exclude: np.ndarray  # per column
    tied: np.ndarray  # the columns of the (kept) tie block
    ks: tuple


def tie_case(rng, n_above, n_tied, n_below, n_excluded=2, grades=(0, 1, 2, 3)):
    n_items = n_above + n_tied + n_below + n_excluded
    ranked = np.concatenate([
        BLOCK_SCORE + 1 + rng.permutation(n_above),  # distinct, above the block
        np.full(n_tied, BLOCK_SCORE),
        BLOCK_SCORE - 1 - rng.permutation(n_below),  # distinct, below it
        np.append(BLOCK_SCORE, rng.integers(0, 2 * BLOCK_SCORE, n_excluded - 1)),
    ])  # fmt: skip
    labels = rng.choice(grades, n_items)
    labels[n_above + n_tied + n_below :] = 0
    columns = rng.permutation(n_items)
    case_labels, scores, exclude = (np.empty(n_items, int), np.empty(n_items), np.empty(n_items, bool))
    case_labels[columns], scores[columns] = labels, ranked
    exclude[columns] = np.arange(n_items) >= n_above + n_tied + n_below
    tied = np.sort(columns[n_above : n_above + n_tied])
    ks = tuple(range(max(n_above, 1), n_above + n_tied + 1))  # the cut in, at and at the edges of the block
    return TieCase(case_labels, scores.astype(float), exclude, tied, ks)


def permuted_labels(case):
    """One row per permutation of the tied items: the labels they carry in that order."""
    perms = np.array(list(itertools.permutations(range(case.tied.shape[0]))))
    rows = np.repeat(case.labels[None, :], perms.shape[0], axis=0)
    rows[:, case.tied] = case.labels[case.tied][perms]
    return rows


def assert_against_orderings(run, case, metrics):
    """``run(y_true rows, ties, metrics)`` -> results; "average" and the bounds against "first"."""
    orderings = permuted_labels(case)
    first = run(orderings, "first", metrics)
    for ties, reduce in (("average", np.mean), ("optimistic", np.max), ("pessimistic", np.min)):
        names = [name for name in metrics if not (ties == "average" and name.startswith("err"))]
        results = run(case.labels[None, :], ties, names)
        for name in names:
            want = reduce(first[name])
            np.testing.assert_allclose(results[name][0], want, rtol=1e-12, atol=1e-300,
                                       err_msg=f"{name} ties={ties}")  # fmt: skip


OPTIONS = [{}, {"gain": "exponential"}, {"relevance_level": 2}, {"no_relevant": "skip"}]
# (n_above, n_tied, n_below), each with one option away from its default; 7 tied: 5,040 orderings.
CASES = [
    ((0, 3, 2), OPTIONS[0]), ((2, 4, 3), OPTIONS[1]), ((1, 5, 0), OPTIONS[2]),
    ((3, 6, 2), OPTIONS[3]), ((2, 7, 1), OPTIONS[0]), ((4, 2, 4), OPTIONS[1]),
    ((1, 4, 2), OPTIONS[3]), ((0, 6, 0), OPTIONS[2]),
]  # fmt: skip


def _metrics(case):
    return head_metrics(case.ks, ties="first")


def _evaluate_run(case, options):
    def run(y_true, ties, metrics):
        n = y_true.shape[0]
        return srm.evaluate(
            sparse.csr_array(y_true), np.tile(case.scores, (n, 1)),
            exclude=np.tile(case.exclude, (n, 1)), metrics=metrics, ties=ties,
            average=None, **options,
        )  # fmt: skip

    return run


@pytest.mark.parametrize("shape, entry", CASES, ids=str)
def test_evaluate_with_exclude(shape, entry):
    case = tie_case(np.random.default_rng(sum(shape)), *shape)
    assert_against_orderings(_evaluate_run(case, entry), case, _metrics(case))


@pytest.mark.parametrize("shape, entry", CASES, ids=str)
def test_evaluate_retrieval(shape, entry):
    """Identical item vectors tie: the block's items share one vector."""
    case = tie_case(np.random.default_rng(sum(shape) + 1), *shape)
    # Item j's vector (s_j, 1) scores s_j against the query (1, 0): identical for the block.
    items = np.stack([case.scores, np.ones_like(case.scores)], axis=1)

    def run(y_true, ties, metrics):
        queries = np.tile([1.0, 0.0], (y_true.shape[0], 1))
        return srm.evaluate_retrieval(
            queries, items, sparse.csr_array(y_true), exclude=np.tile(case.exclude, (len(queries), 1)),
            metrics=metrics, ties=ties, batch_size=2000, average=None, **entry,
        )  # fmt: skip

    assert_against_orderings(run, case, _metrics(case))


@pytest.mark.parametrize("shape, entry", CASES, ids=str)
def test_evaluate_top_k(shape, entry):
    """Tied top_scores inside a list, the block straddling k; relevant items off the list too."""
    case = tie_case(np.random.default_rng(sum(shape) + 2), *shape, n_excluded=1)
    kept = np.flatnonzero(~case.exclude)
    order = kept[np.lexsort((kept, -case.scores[kept]))]
    n_listed = max(case.ks) + 1 if len(order) > max(case.ks) else len(order)
    listed = order[:n_listed]  # the rest: relevant items the list misses
    width = max(case.ks)
    items = np.full(max(width, n_listed), -1)
    items[:n_listed] = listed
    scores = np.full(items.shape, np.nan)
    scores[:n_listed] = case.scores[listed]

    def run(y_true, ties, metrics):
        n = y_true.shape[0]
        return srm.evaluate_top_k(
            sparse.csr_array(y_true), np.tile(items, (n, 1)), top_scores=np.tile(scores, (n, 1)),
            metrics=metrics, ties=ties, average=None, **entry,
        )  # fmt: skip

    assert_against_orderings(run, case, _metrics(case))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_above=st.integers(0, 4),
    n_tied=st.integers(2, 6),
    n_below=st.integers(0, 3),
    n_excluded=st.integers(1, 3),
    entry=st.sampled_from(OPTIONS),
)
def test_property_evaluate_with_exclude(seed, n_above, n_tied, n_below, n_excluded, entry):
    """Any small case: a block that straddles some k, and holds items the measures tell apart."""
    case = tie_case(np.random.default_rng(seed), n_above, n_tied, n_below, n_excluded)
    assume(len(set(case.labels[case.tied].tolist())) > 1)  # the block's order matters
    assert_against_orderings(_evaluate_run(case, entry), case, _metrics(case))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.tuples(*(st.integers(*r) for r in [(2, 6), (3, 9), (1, 8)])))
def test_property_constant_scorer_gets_the_expected_value(seed, sizes):
    """A constant scorer: every kept item tied; "average" is the mean over all orderings.

    This is the constant scorer of a leaderboard (MRR@10 = 1.0 by the
    order of ties); here its MRR@k is that of a random ranking.
    """
    n_tied, n_items, k = sizes
    assume(n_tied <= n_items and k < n_items)
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(n_items) < 0.4, rng.integers(1, 3, n_items), 0)
    labels[rng.choice(n_items, 1)] = 1
    exclude = np.zeros(n_items, bool)
    exclude[rng.choice(n_items, n_items - n_tied, replace=False)] = True
    labels[exclude] = 0
    assume(labels.any())
    case = TieCase(labels, np.zeros(n_items), exclude, np.flatnonzero(~exclude), (k,))
    metrics = head_metrics((k,), ties="first")
    assert_against_orderings(_evaluate_run(case, {}), case, metrics)
