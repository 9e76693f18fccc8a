"""Hypothesis property tests of the metric functions.

Small inputs (tens of documents), ``deadline=None`` and a modest number of
examples keep these quick and steady on two cores.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from _cases import (
    BINARY, COUNTS_RELEVANT, GAINS_IN_A_LOGARITHM, UNBOUNDED, VARIANTS, WHOLE_LIST,
    WITH_NO_RELEVANT, function_of, shuffled_rows,
)
from _cases import MEASURE_OPTIONS, SCANNED, SIGNED, aggregate_of
from _reference import reference

from sklearn_rank_metrics._engine.spec import METRICS

TIES = ("average", "optimistic", "pessimistic", "first")

SETTINGS = settings(
    deadline=None,
    max_examples=30,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TOL = dict(rel=1e-9, abs=1e-12, nan_ok=True)


def approx(expected):
    if np.ndim(expected) == 0:
        return pytest.approx(expected, **TOL)
    return pytest.approx(np.asarray(expected, dtype=float), **TOL)


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return func(*args, **kwargs)


# ---------------------------------------------------------------- strategies
label_values = st.sampled_from([0, 0, 1, 2, 3])
score_values = st.one_of(
    st.integers(0, 3),  # heavy ties
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32),
)


@st.composite
def flat_rankings(draw, max_docs=30, max_queries=5):
    n = draw(st.integers(1, max_docs))
    labels = draw(st.lists(label_values, min_size=n, max_size=n))
    scores = draw(st.lists(score_values, min_size=n, max_size=n))
    qid = draw(st.lists(st.integers(0, max_queries - 1), min_size=n, max_size=n))
    return labels, scores, qid


@st.composite
def metric_calls(draw, allow_no_relevant=True):
    """(metric, keyword arguments) of one call, without the data."""
    _, metric, extra = draw(st.sampled_from(VARIANTS))
    # Measures without a closed form under ties raise for ties="average" on mixed blocks.
    kwargs = dict(extra, ties=draw(st.sampled_from(TIES[1:] if metric in SCANNED else TIES)))
    if metric not in WHOLE_LIST:
        kwargs["k"] = draw(st.sampled_from([None, 1, 2, 3, 5, 10, 50]))
    if metric in BINARY:
        kwargs["relevance_level"] = draw(st.sampled_from([1, 2, 0.5]))
    if metric in WITH_NO_RELEVANT and allow_no_relevant:
        choices = ["zero", "skip"] + ([] if metric in UNBOUNDED else ["one"])
        kwargs["no_relevant"] = draw(st.sampled_from(choices))
    return metric, kwargs


def per_query(metric, labels, scores, qid, **kwargs):
    return quiet(function_of(metric), labels, scores, qid=qid, average=None, **kwargs)


# ---------------------------------------------------------------- invariance
@SETTINGS
@given(data=flat_rankings(), call=metric_calls(), perm_seed=st.integers(0, 2**32 - 1))
def test_row_order_permutation_invariance(data, call, perm_seed):
    labels, scores, qid = data
    metric, kwargs = call
    perm = shuffled_rows(qid, np.random.default_rng(perm_seed), kwargs["ties"])
    before = per_query(metric, labels, scores, qid, **kwargs)
    after = per_query(
        metric, [labels[i] for i in perm], [scores[i] for i in perm], [qid[i] for i in perm], **kwargs
    )
    assert after == approx(before)
    assert quiet(function_of(metric), labels, scores, qid=qid, **kwargs) == approx(
        quiet(function_of(metric), [labels[i] for i in perm], [scores[i] for i in perm],
              qid=[qid[i] for i in perm], **kwargs)
    )  # fmt: skip


@SETTINGS
@given(data=flat_rankings(), call=metric_calls(), as_string=st.booleans())
def test_qid_order_preserving_relabelling(data, call, as_string):
    labels, scores, qid = data
    metric, kwargs = call
    new_qid = [f"query-{q:04d}" for q in qid] if as_string else [7 * q - 100 for q in qid]
    assert per_query(metric, labels, scores, new_qid, **kwargs) == approx(
        per_query(metric, labels, scores, qid, **kwargs)
    )


@SETTINGS
@given(data=flat_rankings(), call=metric_calls(), new_ids=st.permutations(list(range(40, 45))))
def test_qid_arbitrary_relabelling(data, call, new_ids):
    labels, scores, qid = data
    metric, kwargs = call
    mapping = dict(enumerate(new_ids))
    new_qid = [mapping[q] for q in qid]
    old_values = per_query(metric, labels, scores, qid, **kwargs)
    new_values = per_query(metric, labels, scores, new_qid, **kwargs)
    # query q sits at position rank(q) among sorted ids, before and after
    old_ids = sorted(set(qid))
    new_sorted = sorted(set(new_qid))
    reordered = [new_values[new_sorted.index(mapping[q])] for q in old_ids]
    assert np.asarray(reordered) == approx(old_values)
    assert quiet(function_of(metric), labels, scores, qid=new_qid, **kwargs) == approx(
        quiet(function_of(metric), labels, scores, qid=qid, **kwargs)
    )


@SETTINGS
@given(data=flat_rankings(), call=metric_calls(allow_no_relevant=False), scale=st.sampled_from([0.5, 3.0, 1000.0]))
def test_strictly_increasing_score_transform_changes_nothing(data, call, scale):
    labels, scores, qid = data
    metric, kwargs = call
    transformed = [scale * s + 17 for s in scores]
    # the map is not exactly monotone in floating point for huge values; keep
    # the check to scores where it is (integers and moderate floats)
    assume(
        all(
            (a < b) == (ta < tb) and (a == b) == (ta == tb)
            for a, ta in zip(scores, transformed)
            for b, tb in zip(scores, transformed)
        )
    )
    assert per_query(metric, labels, scores, qid, **kwargs) == approx(
        per_query(metric, labels, transformed, qid, **kwargs)
    )


@SETTINGS
@given(data=flat_rankings(), call=metric_calls(), factor=st.sampled_from([0.5, 2.0, 10.0]))
def test_label_scaling(data, call, factor):
    """Binary metrics depend only on label >= relevance_level; NDCG with
    linear gain and RC/Kendall are scale invariant."""
    labels, scores, qid = data
    metric, kwargs = call
    assume(metric not in UNBOUNDED and kwargs.get("gain") != "exponential")
    assume(metric != "err")  # its stopping probabilities are exponential in the grade
    # Relevant documents are those >= 1: a factor below 1 takes labels of 1 below it.
    assume(metric not in COUNTS_RELEVANT or factor >= 1)
    assume(metric not in GAINS_IN_A_LOGARITHM)
    scaled_kwargs = dict(kwargs)
    if "relevance_level" in kwargs:
        scaled_kwargs["relevance_level"] = kwargs["relevance_level"] * factor
    scaled = [x * factor for x in labels]
    assert per_query(metric, scaled, scores, qid, **scaled_kwargs) == approx(
        per_query(metric, labels, scores, qid, **kwargs)
    )


# -------------------------------------------------------------------- bounds
@SETTINGS
@given(data=flat_rankings(), call=metric_calls())
def test_bounds(data, call):
    labels, scores, qid = data
    metric, kwargs = call
    values = per_query(metric, labels, scores, qid, **kwargs)
    values = values[~np.isnan(values)]
    if metric == "kendall":
        assert (values >= -1 - 1e-12).all() and (values <= 1 + 1e-12).all()
    elif metric in SIGNED:
        assert np.isfinite(values).all()  # utility counts non-relevant documents negatively
    elif metric in UNBOUNDED:
        assert (values >= 0).all()
    else:
        assert (values >= 0).all() and (values <= 1 + 1e-12).all(), values


@SETTINGS
@given(data=flat_rankings(), call=metric_calls())
# Lower is better: one relevant document tied with 27 others, fallout@1 0 when it comes first.
@example(data=([0] * 27 + [1], [0] * 28, [0] * 28), call=("fallout", {"ties": "average", "k": 1}))
def test_ties_optimistic_ge_average_ge_pessimistic(data, call):
    labels, scores, qid = data
    metric, kwargs = call
    modes = TIES[1:] if metric in SCANNED else TIES
    # Optimistic ranks relevant documents first: the best value, the highest unless the
    # metric is better when lower (fallout), whose values are compared negated.
    sign = 1.0 if METRICS[metric].higher_is_better else -1.0
    values = {
        ties: sign * per_query(metric, labels, scores, qid, **dict(kwargs, ties=ties))
        for ties in modes
    }
    if metric in SCANNED:
        ok = ~np.isnan(values["first"])
        assert (values["optimistic"][ok] >= values["first"][ok] - 1e-12).all()
        assert (values["first"][ok] >= values["pessimistic"][ok] - 1e-12).all()
    elif metric == "kendall":
        # tau-b has its own tie correction: ``ties`` does not apply
        for ties in TIES:
            assert values[ties] == approx(values["average"])
    else:
        ok = ~np.isnan(values["average"])
        for between in ("average", "first"):  # one ordering, or the mean over all of them
            assert (values["optimistic"][ok] >= values[between][ok] - 1e-12).all()
            assert (values[between][ok] >= values["pessimistic"][ok] - 1e-12).all()


@SETTINGS
@given(data=flat_rankings(), call=metric_calls())
def test_no_ties_all_modes_agree(data, call):
    labels, scores, qid = data
    metric, kwargs = call
    order = sorted(range(len(scores)), key=lambda i: (scores[i], i))
    distinct = [0.0] * len(scores)
    for position, i in enumerate(order):  # same order as scores, ties broken
        distinct[i] = float(position)
    values = [
        per_query(metric, labels, distinct, qid, **dict(kwargs, ties=t)) for t in TIES
    ]
    for value in values[1:]:
        assert value == approx(values[0])


@SETTINGS
@given(data=flat_rankings(), call=metric_calls())
def test_first_is_the_order_of_tie_free_scores_broken_by_row(data, call):
    """``ties="first"`` equals any mode on scores whose ties are broken by row, earlier higher."""
    labels, scores, qid = data
    metric, kwargs = call
    assume(metric != "kendall")  # tau-b counts tied scores as ties whatever ``ties`` says
    order = np.lexsort((np.arange(len(scores)), -np.asarray(scores, dtype=float)))
    distinct = np.empty(len(scores))
    distinct[order] = -np.arange(len(scores), dtype=float)  # rank 1 gets the highest score
    first = per_query(metric, labels, scores, qid, **dict(kwargs, ties="first"))
    assert first == approx(per_query(metric, labels, distinct, qid, **kwargs))


@settings(SETTINGS, max_examples=20)
@given(data=flat_rankings(max_docs=6, max_queries=1), call=metric_calls())
def test_first_averaged_over_every_row_order_is_average(data, call):
    """Averaged over all n! orders of the rows, ``"first"`` gives the exact ``"average"``."""
    labels, scores, _ = data
    metric, kwargs = call
    orders = np.array(list(itertools.permutations(range(len(labels)))))
    # every order one query of a single call
    qid = np.repeat(np.arange(orders.shape[0]), len(labels))
    rows = orders.reshape(-1)
    first = per_query(
        metric, np.asarray(labels)[rows], np.asarray(scores)[rows], qid, **dict(kwargs, ties="first")
    )
    try:
        average = per_query(metric, labels, scores, [0] * len(labels), **dict(kwargs, ties="average"))
    except ValueError as error:  # no closed form for these ties: the error is the answer
        assert metric in SCANNED and "ties='first'" in str(error), error
        assume(False)
    assert np.atleast_1d(np.mean(first)) == approx(average)


@SETTINGS
@given(
    data=flat_rankings(),
    metric=st.sampled_from(["dcg", "cg", "recall", "hit_rate"]),
    ties=st.sampled_from(TIES),
)
def test_monotone_in_k(data, metric, ties):
    """Cumulative quantities never decrease as k grows."""
    labels, scores, qid = data
    previous = None
    for k in (1, 2, 3, 5, 8, 13, 30, None):
        values = per_query(metric, labels, scores, qid, k=k, ties=ties)
        if previous is not None:
            assert (values >= previous - 1e-12).all()
        previous = values
    hits = [
        per_query("precision", labels, scores, qid, k=k, ties=ties) * k for k in (1, 2, 3, 5)
    ]
    for a, b in zip(hits, hits[1:]):
        assert (b >= a - 1e-12).all()


# ---------------------------------------------------------- perfect ranking
@settings(SETTINGS, max_examples=20)
@given(data=flat_rankings(), distinct=st.booleans(), ties=st.sampled_from(TIES))
def test_perfect_ranking_scores_one(data, distinct, ties):
    labels, _, qid = data
    if distinct:  # order by label, ties broken arbitrarily but strictly
        scores = [x * 1000 + i for i, x in enumerate(labels)]
    else:  # score = label: ties only among equal labels
        scores = list(labels)
    groups = {}
    for x, q in zip(labels, qid):
        groups.setdefault(q, []).append(x)
    ids = sorted(groups)
    has_gain = np.array([max(groups[q]) > 0 for q in ids])
    has_relevant = np.array([max(groups[q]) >= 1 for q in ids])
    several = np.array([len(groups[q]) > 1 for q in ids])

    def values(metric, **kwargs):
        return per_query(metric, labels, scores, qid, ties=ties, **kwargs)

    for k in (None, 1, 3):
        assert values("ndcg", k=k)[has_gain] == approx(np.ones(has_gain.sum()))
        assert values("ndcg", k=k, gain="exponential")[has_gain] == approx(np.ones(has_gain.sum()))
        assert values("mrr", k=k)[has_relevant] == approx(np.ones(has_relevant.sum()))
        assert values("recall_cap", k=k)[has_relevant] == approx(np.ones(has_relevant.sum()))
        assert values("hit_rate", k=k)[has_relevant] == approx(np.ones(has_relevant.sum()))
    assert values("map")[has_relevant] == approx(np.ones(has_relevant.sum()))
    assert values("recall")[has_relevant] == approx(np.ones(has_relevant.sum()))
    assert values("r_precision")[has_relevant] == approx(np.ones(has_relevant.sum()))
    assert values("rc")[several] == approx(np.ones(several.sum()))


# -------------------------------------------------------------- layouts
@SETTINGS
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(2, 6)),  # one column is refused
    data=st.data(),
    call=metric_calls(),
    weighted=st.booleans(),
)
def test_flat_and_2d_layouts_agree(shape, data, call, weighted):
    metric, kwargs = call
    n_rows, n_cols = shape
    labels = np.array(data.draw(st.lists(label_values, min_size=n_rows * n_cols, max_size=n_rows * n_cols)), dtype=float)
    scores = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n_rows * n_cols, max_size=n_rows * n_cols)), dtype=float)
    weights = None
    if weighted:
        weights = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n_rows, max_size=n_rows)))
        weights[0] = 1.0
    y_true, y_score = labels.reshape(n_rows, n_cols), scores.reshape(n_rows, n_cols)
    qid = np.repeat(np.arange(n_rows), n_cols)
    flat_weights = None if weights is None else np.repeat(weights, n_cols)
    func = function_of(metric)
    assert quiet(func, labels, scores, qid=qid, average=None, **kwargs) == approx(
        quiet(func, y_true, y_score, average=None, **kwargs)
    )
    assert quiet(func, labels, scores, qid=qid, sample_weight=flat_weights, **kwargs) == approx(
        quiet(func, y_true, y_score, sample_weight=weights, **kwargs)
    )
    # rows as string query ids, shuffled
    perm = shuffled_rows(qid, np.random.default_rng(n_rows * 10 + n_cols), kwargs["ties"])
    str_qid = np.array([f"r{q}" for q in qid])
    assert quiet(func, labels[perm], scores[perm], qid=str_qid[perm], average=None, **kwargs) == approx(
        quiet(func, y_true, y_score, average=None, **kwargs)
    )


@SETTINGS
@given(data=flat_rankings(), call=metric_calls())
def test_mean_is_nanmean_of_per_query_values(data, call):
    labels, scores, qid = data
    metric, kwargs = call
    values = per_query(metric, labels, scores, qid, **kwargs)
    mean = quiet(function_of(metric), labels, scores, qid=qid, **kwargs)
    if metric == "hit_rate_item":
        # pooled: weights min(k, n_q)
        sizes = np.array([qid.count(q) for q in sorted(set(qid))])
        k = kwargs.get("k")
        pool = sizes if k is None else np.minimum(sizes, k)
        ok = ~np.isnan(values)
        expected = np.sum(values[ok] * pool[ok]) / np.sum(pool[ok]) if ok.any() else math.nan
    elif np.isnan(values).all():
        expected = math.nan
    elif aggregate_of(metric) == "sum":
        expected = float(np.nansum(values))
    elif aggregate_of(metric) == "geometric":
        expected = math.exp(np.nanmean(np.log(np.maximum(values, 1e-5))))
    else:
        expected = float(np.nanmean(values))
    assert mean == approx(expected)


@SETTINGS
@given(data=flat_rankings(), call=metric_calls())
def test_all_equal_weights_equal_unweighted(data, call):
    labels, scores, qid = data
    metric, kwargs = call
    assume(aggregate_of(metric) != "sum")  # a count is summed: weight 2.5 counts 2.5 times
    func = function_of(metric)
    assert quiet(func, labels, scores, qid=qid, sample_weight=[2.5] * len(labels), **kwargs) == approx(
        quiet(func, labels, scores, qid=qid, **kwargs)
    )


# ------------------------------------------------------- brute force, again
@settings(deadline=None, max_examples=60, database=None)
@given(data=flat_rankings(max_docs=7, max_queries=3), call=metric_calls())
def test_matches_bruteforce_reference(data, call):
    labels, scores, qid = data
    metric, kwargs = call
    assert per_query(metric, labels, scores, qid, **kwargs) == approx(
        reference(metric, labels, scores, qid=qid, average=None, **kwargs, **MEASURE_OPTIONS.get(metric, {}))
    )
