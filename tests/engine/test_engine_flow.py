"""The engine's one-way flow: options as one object, runs that return data, warnings at the top."""

import dataclasses
import inspect
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine._options import Options
from sklearn_rank_metrics._engine.spec import METRICS, CurveRequests, Request
from sklearn_rank_metrics._engine.spec._binary import Binary
from sklearn_rank_metrics._engine.prepare._prepare import Inputs
from sklearn_rank_metrics._engine.run._curve import curve_results
from sklearn_rank_metrics._engine.run._run import evaluate_plain
from sklearn_rank_metrics.metrics._query_results import QueryResults, query_results

Y_TRUE = [0, 0, 0, 1, 0, 2, 0, 0]
Y_SCORE = [0.3, 0.2, 0.1, 0.9, 0.8, 0.4, 0.5, 0.6]
QID = ["a", "a", "a", "b", "b", "b", "c", "c"]  # "a" and "c" have no relevant document


def test_options_are_one_frozen_object_with_the_public_defaults():
    options = Options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.ties = "first"
    defaults = inspect.signature(srm.evaluate).parameters
    for name in ("gain", "n_relevant", "ties", "no_relevant"):
        assert getattr(options, name) == defaults[name].default
    assert options.relevance_level == defaults["relevance_level"].default
    assert Options.of({"ties": "first", "qid": [1], "k": 3}) == Options(ties="first")


def test_a_run_returns_what_was_left_out_as_data_and_never_warns():
    request = Request("ndcg@2", METRICS["ndcg"], 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = evaluate_plain(
            [request], Inputs(Y_TRUE, Y_SCORE, QID), Options(no_relevant="skip")
        )
    assert list(results.query_ids) == ["a", "b", "c"]
    result = results.metrics["ndcg@2"]
    np.testing.assert_array_equal(result.skipped, [True, False, True])
    assert not result.undefined.any()
    assert np.isnan(result.values[[0, 2]]).all()
    # The public layer wraps them, and warns once.
    wrapped = query_results(results)
    assert isinstance(wrapped, QueryResults)
    with pytest.warns(UndefinedMetricWarning) as caught:
        expected = srm.ndcg_score(Y_TRUE, Y_SCORE, qid=QID, k=2, no_relevant="skip", average=None)
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "ndcg_score: 2 of 3 queries have no relevant document and were left out "
        "(no_relevant='skip'); their per-query value is NaN."
    )
    np.testing.assert_array_equal(wrapped["ndcg@2"], expected)


def test_the_curve_run_yields_each_cutoff_as_the_plain_run_gives_it():
    curve = CurveRequests(METRICS["ndcg"], 4)
    inputs = Inputs(Y_TRUE, Y_SCORE, QID)
    per_cutoff = list(curve_results(curve, inputs, Options()))
    assert len(per_cutoff) == 3  # the longest list: nothing changes beyond it
    for k, results in enumerate(per_cutoff, start=1):
        plain = evaluate_plain([Request(f"ndcg@{k}", METRICS["ndcg"], k)], inputs, Options())
        np.testing.assert_array_equal(
            results.metrics[f"ndcg@{k}"].values, plain.metrics[f"ndcg@{k}"].values
        )


def test_the_curve_warns_once_for_every_cutoff_in_its_own_words():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    with pytest.warns(UndefinedMetricWarning) as caught:
        srm.RankingCurveDisplay.from_predictions(
            Y_TRUE, Y_SCORE, qid=QID, k_max=3, no_relevant="skip"
        )
    messages = [str(w.message) for w in caught if w.category is UndefinedMetricWarning]
    assert messages == [
        "ndcg@k (every k): 2 of 3 queries have no relevant document and were left out "
        "(no_relevant='skip'); their per-query value is NaN."
    ]


@pytest.mark.parametrize("name", [n for n, d in METRICS.items() if isinstance(d.computation, Binary)])
def test_every_binary_combine_returns_the_values_alone(name):
    computation = METRICS[name].computation
    values = np.array([1.0, 2.0, 0.0])
    total = np.array([2.0, 4.0, 0.0])
    cutoffs, sizes = np.array([3, 3, 3]), np.array([5, 2, 3])
    combined = computation.combine(values, total, cutoffs, sizes)
    assert isinstance(combined, np.ndarray) and combined.shape == (3,)

