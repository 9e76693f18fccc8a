"""LightGBM's and XGBoost's own NDCG, reproduced by ndcg_score's options.

Small real rankers are trained on generated data whose rounded features give
many tied predictions; the NDCG each booster reports for its evaluation set
(``evals_result_``) must equal ``ndcg_score`` on the booster's predictions
with ``gain="exponential"``, ``no_relevant="one"`` and ``ties="first"``.
Both compute in float64 from float32 predictions (XGBoost) or float64
predictions (LightGBM), so the numbers agree to float64 rounding; query
weights are float32 in both, so weighted means agree to float32 precision.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import ndcg_score
from sklearn_rank_metrics.datasets import make_ranking

TOL = dict(rel=1e-12, abs=1e-15)
FLOAT32_TOL = dict(rel=1e-6)
EVAL_AT = (1, 3, 5, 10, 50)


def _data(seed):
    """Queries of 2 to 60 documents, rows grouped by query, every 7th without a relevant one."""
    X, y, qid = make_ranking(
        n_queries=40, docs_per_query=(2, 60), n_features=3, n_grades=4, random_state=seed
    )
    X = np.round(X)  # a few distinct feature vectors: many tied predictions
    for query in np.unique(qid)[::7]:
        y[qid == query] = 0
    return X, y, qid


@pytest.fixture(scope="module")
def train():
    return _data(0)


@pytest.fixture(scope="module")
def valid():
    return _data(1)


def _sizes(qid):
    return np.unique(qid, return_counts=True)[1]


def _query_weights(qid):
    """A float32 weight per query, repeated on its rows (both boosters hold float32 weights)."""
    ids, inverse = np.unique(qid, return_inverse=True)
    per_query = np.random.default_rng(3).uniform(0.5, 3.0, ids.shape[0]).astype(np.float32)
    return per_query, per_query[inverse]


def _ndcg(y, scores, qid, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ndcg_score(y, scores, qid=qid, **options)


def _assert_ties_matter(y, scores, qid, k, **options):
    """The predictions tie where it counts: the exact mean over tie orders differs."""
    first = _ndcg(y, scores, qid, k=k, ties="first", **options)
    assert first != pytest.approx(_ndcg(y, scores, qid, k=k, ties="average", **options), **TOL)


def _boosters_weighted_ndcg(y, scores, qid, query_weights, k, gain, empty_value):
    """What both boosters report with query weights: an empty query adds its value unweighted.

    ``(sum of w_q NDCG_q over queries with a relevant document + empty_value
    times the number of queries without one) / sum of all w_q``.
    """
    values = _ndcg(y, scores, qid, k=k, gain=gain, ties="first", no_relevant="skip", average=None)
    empty = np.isnan(values)
    weights = query_weights.astype(np.float64)
    total = (weights[~empty] * values[~empty]).sum() + empty_value * empty.sum()
    return total / weights.sum()


# --------------------------------------------------------------------- LightGBM
def _lgbm_fit(train, valid, eval_at=EVAL_AT, sample_weight=None, **params):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, qid = train
    X_val, y_val, qid_val = valid
    model = lightgbm.LGBMRanker(
        n_estimators=5, num_leaves=4, min_child_samples=2, num_threads=1, random_state=0,
        verbose=-1, **params,
    )  # fmt: skip
    evaluation = {"eval_group": [_sizes(qid_val)], "eval_at": list(eval_at)}
    if "eval_X" in inspect.signature(model.fit).parameters:  # LightGBM >= 4.7
        evaluation.update(eval_X=(X_val,), eval_y=(y_val,))
    else:
        evaluation.update(eval_set=[(X_val, y_val)])
    if sample_weight is not None:
        evaluation["eval_sample_weight"] = [sample_weight]
    model.fit(X, y, group=_sizes(qid), **evaluation)
    return model, model.predict(X_val), model.evals_result_["valid_0"]


@pytest.mark.parametrize("k", EVAL_AT)
def test_lightgbm_ndcg_is_exponential_gain_no_relevant_one_ties_first(train, valid, k):
    _, y, qid = valid
    _, scores, reported = _lgbm_fit(train, valid)
    options = dict(gain="exponential", no_relevant="one")
    assert _ndcg(y, scores, qid, k=k, ties="first", **options) == pytest.approx(
        reported[f"ndcg@{k}"][-1], **TOL
    )
    if k <= 10:
        _assert_ties_matter(y, scores, qid, k, **options)


def test_lightgbm_label_gain_of_the_labels_is_linear_gain(train, valid):
    _, y, qid = valid
    _, scores, reported = _lgbm_fit(train, valid, label_gain=list(range(31)))
    for k in EVAL_AT:
        expected = reported[f"ndcg@{k}"][-1]
        got = _ndcg(y, scores, qid, k=k, gain="linear", ties="first", no_relevant="one")
        assert got == pytest.approx(expected, **TOL)


def test_lightgbm_query_weights_count_queries_without_relevant_documents_unweighted(train, valid):
    _, y, qid = valid
    per_query, per_row = _query_weights(qid)
    _, scores, reported = _lgbm_fit(train, valid, sample_weight=per_row)
    for k in EVAL_AT:
        expected = reported[f"ndcg@{k}"][-1]
        boosters = _boosters_weighted_ndcg(y, scores, qid, per_query, k, "exponential", 1.0)
        assert boosters == pytest.approx(expected, **FLOAT32_TOL)
        # not a weighted mean: ndcg_score's weighted mean gives the empty queries their weights
        weighted = ndcg_score(
            y, scores, qid=qid, k=k, gain="exponential", ties="first", no_relevant="one",
            sample_weight=per_row,
        )  # fmt: skip
        assert weighted != pytest.approx(expected, **FLOAT32_TOL)


# ---------------------------------------------------------------------- XGBoost
XGB_METRICS = {
    "ndcg@1": dict(k=1, no_relevant="one"),
    "ndcg@5": dict(k=5, no_relevant="one"),
    "ndcg@10": dict(k=10, no_relevant="one"),
    "ndcg": dict(k=32, no_relevant="one"),  # without a cutoff XGBoost cuts at 32
    "ndcg@5-": dict(k=5, no_relevant="zero"),  # "-": a query without relevant documents is 0
}


def _xgb_fit(train, valid, query_weights=None, **params):
    xgboost = pytest.importorskip("xgboost")
    X, y, qid = train
    X_val, y_val, qid_val = valid
    model = xgboost.XGBRanker(
        n_estimators=5, max_depth=2, n_jobs=1, random_state=0, eval_metric=list(XGB_METRICS),
        **params,
    )  # fmt: skip
    weights = {}
    if query_weights is not None:
        weights = dict(sample_weight_eval_set=[query_weights], sample_weight=np.ones(40))
    model.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val], **weights)
    return model, model.predict(X_val), model.evals_result()["validation_0"]


@pytest.mark.parametrize("exp_gain", [True, False])
def test_xgboost_ndcg_is_exponential_gain_no_relevant_one_ties_first(train, valid, exp_gain):
    _, y, qid = valid
    _, scores, reported = _xgb_fit(train, valid, ndcg_exp_gain=exp_gain)
    assert scores.dtype == np.float32  # ranked by their float32 values, as XGBoost does
    gain = "exponential" if exp_gain else "linear"
    for name, options in XGB_METRICS.items():
        got = _ndcg(y, scores, qid, gain=gain, ties="first", **options)
        assert got == pytest.approx(reported[name][-1], **TOL), name
    _assert_ties_matter(y, scores, qid, 1, gain=gain, no_relevant="one")


def test_xgboost_query_weights_count_queries_without_relevant_documents_unweighted(train, valid):
    _, y, qid = valid
    per_query, per_row = _query_weights(qid)
    _, scores, reported = _xgb_fit(train, valid, query_weights=per_query)
    for name, options in XGB_METRICS.items():
        empty_value = 1.0 if options["no_relevant"] == "one" else 0.0
        expected = reported[name][-1]
        boosters = _boosters_weighted_ndcg(
            y, scores, qid, per_query, options["k"], "exponential", empty_value
        )
        assert boosters == pytest.approx(expected, **TOL), name
    # with "-" the empty queries add 0, which is the weighted mean of no_relevant="zero"
    weighted = _ndcg(
        y, scores, qid, k=5, gain="exponential", ties="first", no_relevant="zero",
        sample_weight=per_row,
    )  # fmt: skip
    assert weighted == pytest.approx(reported["ndcg@5-"][-1], **TOL)
