"""``label_gain``: the gain of each label, a sequence (LightGBM's ``label_gain``) or a mapping.

Checked against a brute-force reference that enumerates every order of tied
documents (gains that do not grow with the label included: the ideal ranking
puts the largest gains first), against LightGBM's own ``ndcg@k`` with a custom
``label_gain``, against the measures' gains per level of ir_measures' names,
and through ``evaluate`` and the scorers; labels without a gain are errors.
"""

import math
import warnings

import numpy as np
import pytest
from _reference import group_queries, random_case, ranked_orderings
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import Ridge
from test_ap_denominator import CUTOFFS, TIES, booster_case

from sklearn_rank_metrics import (
    cg_score,
    dcg_score,
    evaluate,
    make_rank_scorer,
    make_rank_scorers,
    ndcg_score,
)

# Labels 0-3 (random_case's); each gives every label a gain.
LABEL_GAINS = {
    "lightgbm default": [0, 1, 3, 7],
    "fractional": (0.0, 1.5, 2.0, 9.25),
    "not growing": np.array([0.0, 4.0, 1.0, 2.5]),
    "mapping": {3: 6.0, 0: 0.5, 1: 1.0, 2: 2.0, 7: 100.0},
    "zero gains": [0, 0, 0, 5],
}


def gain_table(label_gain):
    return dict(label_gain.items()) if hasattr(label_gain, "items") else dict(enumerate(label_gain))


def discounted(gains, k):
    top = gains if k is None else gains[:k]
    return sum(g / math.log2(i + 2) for i, g in enumerate(top))


def reference(metric, y_true, y_score, qid, *, k, ties, label_gain):
    """Per query: the expected DCG, CG or NDCG over every order of the ties (0 without a gain)."""
    table = gain_table(label_gain)
    values = []
    for _, labels, scores, _ in group_queries(y_true, y_score, qid):
        ideal = discounted(sorted((table[x] for x in labels), reverse=True), k)
        if metric == "ndcg" and ideal == 0:
            values.append(0.0)
            continue
        total = 0.0
        for order, p in ranked_orderings(tuple(labels), tuple(scores), ties):
            gains = [table[x] for x in order]
            if metric == "cg":
                total += p * sum(gains if k is None else gains[:k])
            else:
                total += p * discounted(gains, k)
        values.append(total / ideal if metric == "ndcg" else total)
    return np.array(values)


FUNCTION = {"ndcg": ndcg_score, "dcg": dcg_score, "cg": cg_score}


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("k", [1, 3, None])
@pytest.mark.parametrize("gains", LABEL_GAINS, ids=str)
@pytest.mark.parametrize("metric", ["ndcg", "dcg", "cg"])
def test_against_every_order_of_the_ties(metric, gains, k, ties, seed):
    y_true, y_score, qid = random_case(seed)
    label_gain = LABEL_GAINS[gains]
    got = FUNCTION[metric](
        y_true, y_score, qid=qid, k=k, ties=ties, label_gain=label_gain, average=None
    )
    expected = reference(metric, y_true, y_score, qid, k=k, ties=ties, label_gain=label_gain)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_the_ideal_ranking_puts_the_largest_gains_first():
    """Label 1 gains most: the ideal ranks it first, so ranking it first gives NDCG 1."""
    label_gain = [0, 10, 1]
    assert ndcg_score([2, 1, 0], [1, 2, 0], label_gain=label_gain) == 1.0
    assert ndcg_score([2, 1, 0], [2, 1, 0], label_gain=label_gain) < 1.0


@pytest.mark.parametrize("seed", range(4))
def test_the_gains_of_gain_given_as_a_list(seed):
    """label_gain=[2**i - 1] is gain="exponential"; label_gain=[0, 1, 2, 3] gain="linear"."""
    y_true, y_score, qid = random_case(seed)
    for function in (ndcg_score, dcg_score, cg_score):
        for gain, label_gain in [("exponential", [0, 1, 3, 7]), ("linear", range(4))]:
            np.testing.assert_allclose(
                function(y_true, y_score, qid=qid, k=3, label_gain=label_gain, average=None),
                function(y_true, y_score, qid=qid, k=3, gain=gain, average=None),
                rtol=1e-15,
            )


def test_dcg_score_log_base():
    y_true, y_score = [3, 2, 3, 0, 1], [5, 4, 3, 2, 1]
    base_2 = dcg_score(y_true, y_score, label_gain=[0, 1, 5, 9])
    assert dcg_score(y_true, y_score, label_gain=[0, 1, 5, 9], log_base=10) == pytest.approx(
        base_2 * math.log2(10), rel=1e-15
    )


@pytest.mark.parametrize("seed", range(4))
def test_evaluate_equals_the_gains_per_level_of_a_name(seed):
    """ir_measures' nDCG(gains=...) names each level's gain as label_gain gives each label's."""
    y_true, y_score, qid = random_case(seed)
    table = {0: 0.0, 1: 2.0, 2: 3.0, 3: 11.0}
    named = ", ".join(f"{label}: {gain}" for label, gain in table.items())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        by_name = evaluate(
            y_true, y_score, qid=qid, metrics=[f"nDCG(gains={{{named}}})@3"], average=None
        )
        given = evaluate(
            y_true, y_score, qid=qid, metrics=["ndcg@3", "dcg@3", "cg@3", "map@3", "rndcg"],
            label_gain=table, average=None,
        )  # fmt: skip
        plain = evaluate(y_true, y_score, qid=qid, metrics=["map@3"], average=None)
        trec = evaluate(y_true, y_score, qid=qid, metrics=["Rndcg.0=0,1=2,2=3,3=11"], average=None)
    np.testing.assert_array_equal(given["ndcg@3"], by_name[by_name.metrics[0]])
    np.testing.assert_array_equal(given["rndcg"], trec[trec.metrics[0]])
    for name, function in [("ndcg@3", ndcg_score), ("dcg@3", dcg_score), ("cg@3", cg_score)]:
        expected = function(y_true, y_score, qid=qid, k=3, label_gain=table, average=None)
        np.testing.assert_array_equal(given[name], expected)
    np.testing.assert_array_equal(given["map@3"], plain["map@3"])  # no gains: unchanged


def test_scorers_pass_it_to_the_metrics_that_take_it():
    rng = np.random.default_rng(0)
    X, y, qid = rng.random((80, 2)), rng.integers(0, 3, 80), np.repeat(np.arange(8), 10)
    model = Ridge().fit(X, y)
    label_gain = [0, 1, 10]
    expected = ndcg_score(y, model.predict(X), qid=qid, k=3, label_gain=label_gain)
    assert make_rank_scorer("ndcg@3", label_gain=label_gain)(model, X, y, qid=qid) == expected
    scorers = make_rank_scorers(["ndcg@3", "map@3"], label_gain=label_gain)
    assert scorers["ndcg@3"](model, X, y, qid=qid) == expected
    with pytest.raises(TypeError, match="'mrr@3' got unexpected option.*label_gain"):
        make_rank_scorer("mrr@3", label_gain=label_gain)


# Errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label_gain, message",
    [
        ([0, 1], "ndcg_score: y_true holds the label 2, which label_gain gives no gain .it "
         "gives labels 0, 1.; give label_gain a gain for every label of y_true"),
        ({1: 1, 2: 3}, "the label 0, which label_gain gives no gain .it gives labels 1, 2."),
        ({0: 0, 2: 3}, "the label 1, which label_gain gives no gain .it gives labels 0, 2."),
    ],
)  # fmt: skip
def test_a_label_without_a_gain_is_named(label_gain, message):
    with pytest.raises(ValueError, match=message):
        ndcg_score([2, 1, 0], [3, 2, 1], label_gain=label_gain)


def test_fractional_labels_have_no_gain():
    with pytest.raises(ValueError, match=r"the label 0.5; label_gain gives gains to whole-number"):
        dcg_score([0.5, 1.0, 2.0], [3, 2, 1], label_gain=[0, 1, 3])
    # Whole floats are labels like ints.
    assert ndcg_score([0.0, 1.0, 2.0], [3, 2, 1], label_gain=[0, 1, 3]) == ndcg_score(
        [0, 1, 2], [3, 2, 1], label_gain=[0, 1, 3]
    )


def test_n_relevant_counts_documents_of_label_1():
    """Relevant documents outside a binary list have label 1: its gain, or an error."""
    y_true, y_score = [1, 0, 0], [3, 2, 1]
    got = evaluate(y_true, y_score, metrics=["ndcg"], n_relevant={0: 2}, label_gain=[0, 4])
    assert got["ndcg"] == pytest.approx(1 / (1 + 1 / math.log2(3)), rel=1e-15)
    with pytest.raises(ValueError, match="n_relevant counts relevant documents outside the "
                       "lists, of label 1, which label_gain gives no gain"):  # fmt: skip
        evaluate([0, 0], [2, 1], metrics=["ndcg"], n_relevant={0: 2}, label_gain={0: 0, 2: 1})


@pytest.mark.parametrize(
    "label_gain, error",
    [([0, -1], ValueError), ([0, math.nan], ValueError), ([0, math.inf], ValueError),
     ({-1: 1}, ValueError), ({0.5: 1}, ValueError), ({math.inf: 1}, ValueError), ([], ValueError),
     ([0, True], ValueError), (["0", "1"], ValueError), (np.ones((2, 2)), ValueError),
     (np.array([0.0, -1.0]), ValueError),
     ("0137", TypeError), (3, TypeError)],
)  # fmt: skip
def test_invalid_label_gains_name_the_argument(label_gain, error):
    with pytest.raises(error, match="ndcg_score: label_gain=.+ is not valid; label_gain must be"):
        ndcg_score([1, 0], [2, 1], label_gain=label_gain)
    with pytest.raises(error, match="evaluate: label_gain="):
        evaluate([1, 0], [2, 1], metrics=["ndcg"], label_gain=label_gain)


def test_label_gain_with_another_gain_is_an_error():
    with pytest.raises(ValueError, match="label_gain gives the gain of every label, and "
                       "gain='exponential' another; leave gain at 'linear'"):  # fmt: skip
        ndcg_score([1, 0], [2, 1], gain="exponential", label_gain=[0, 1])
    with pytest.raises(ValueError, match=r"nDCG\(dcg='exp-log2'\)@2: label_gain gives"):
        evaluate([1, 0], [2, 1], metrics=["nDCG(dcg='exp-log2')@2"], label_gain=[0, 1])
    with pytest.raises(ValueError, match="the name gives gains per relevance level and "
                       "label_gain gives the gain of every label"):  # fmt: skip
        evaluate([1, 0], [2, 1], metrics=["nDCG(gains={1: 3})@2"], label_gain=[0, 1])


# LightGBM's own NDCG with its label_gain ---------------------------------------------


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("label_gain", [[0, 1.5, 2, 9.25], [0.5, 1, 1, 40]], ids=str)
def test_lightgbm_ndcg_with_label_gain(seed, label_gain):
    lightgbm = pytest.importorskip("lightgbm")
    qid, labels, scores, features = booster_case(seed)
    params = {"verbose": -1, "num_threads": 1, "label_gain": label_gain}
    data = lightgbm.Dataset(
        features, labels, group=np.bincount(qid), init_score=scores, params=params
    )
    params |= {"objective": "lambdarank", "metric": ["ndcg"], "eval_at": list(CUTOFFS)}
    reported = {name: v for _, name, v, *_ in lightgbm.Booster(params, data).eval_train()}
    for k in CUTOFFS:
        expected = ndcg_score(
            labels, scores, qid=qid, k=k, label_gain=label_gain, no_relevant="one", ties="first"
        )
        assert reported[f"ndcg@{k}"] == pytest.approx(expected, rel=1e-12)
        # The ties matter: the exact mean over their orders differs from LightGBM's order.
        assert expected != ndcg_score(
            labels, scores, qid=qid, k=k, label_gain=label_gain, no_relevant="one"
        ) or k == CUTOFFS[-1]


def test_an_invalid_array_is_shown_as_a_list():
    with pytest.raises(ValueError, match=r"label_gain=\[0.0, -1.0\] is not valid"):
        ndcg_score([1, 0], [2, 1], label_gain=np.array([0.0, -1.0]))


def test_dask_evaluate_takes_it():
    """Labels 0 and 2 only: a label_gain without label 1 is enough."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    y_true, y_score, qid = random_case(5, max_queries=8, string_qids=False, label_values=(0, 2))
    frame = pd.DataFrame({"label": y_true, "score": y_score, "qid": qid})
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    label_gain = {0: 0.0, 2: 3.5}
    got = dask_evaluate(dd.from_pandas(frame, npartitions=2), metrics=["ndcg@2"],
                        label_gain=label_gain)  # fmt: skip
    expected = ndcg_score(y_true, y_score, qid=qid, k=2, label_gain=label_gain)
    assert got["ndcg@2"] == pytest.approx(expected, rel=1e-12)
