"""``ap_denominator``: AP@k divided by R (trec_eval's ``map_cut``) or by ``min(R, k)``.

``"min(R,k)"`` is the convention of LightGBM, XGBoost, Spark, RecBole,
implicit and Recommenders' ``map_at_k``. Checked against a brute-force
reference that enumerates every order of tied documents, against LightGBM's
and XGBoost's own ``map@k``, and through ``evaluate``, the scorers and Dask.
"""

import math
import warnings

import numpy as np
import pytest
from _reference import group_queries, random_case, ranked_orderings
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import Ridge

from sklearn_rank_metrics import evaluate, make_rank_scorer, make_rank_scorers, map_score

TIES = ("average", "optimistic", "pessimistic", "first")
TOL = dict(rel=1e-12, abs=1e-15)
CUTOFFS = (1, 3, 5, 20)  # 20: beyond every list


def booster_case(seed):
    """``(qid, labels, scores, features)``: grades 0-3, tied scores, some queries all 0.

    Queries in increasing id, rows grouped, as the boosters take them.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 13, 24)
    qid = np.repeat(np.arange(24), sizes)
    labels = rng.integers(0, 4, qid.shape[0])
    labels[np.isin(qid, np.arange(0, 24, 4))] = 0
    scores = rng.integers(0, 3, qid.shape[0]).astype(np.float64)
    return qid, labels, scores, rng.random((qid.shape[0], 2))


def ap_min_r_k(ranked, k, R):
    """AP@k of one ranked list of 0/1 relevance: precisions at the hits, over min(R, k)."""
    top = ranked if k is None else ranked[:k]
    hits, total = 0, 0.0
    for i, relevant in enumerate(top, start=1):
        if relevant:
            hits += 1
            total += hits / i
    return total / (R if k is None else min(R, k))


def reference(y_true, y_score, qid, *, k, ties, n_relevant=None, level=1):
    """Per-query AP@k over min(R, k), averaged over every order of tied documents; 0 for R = 0."""
    values = []
    for q, labels, scores, _ in group_queries(y_true, y_score, qid):
        R = sum(label >= level for label in labels)
        R = R if n_relevant is None else n_relevant.get(q, R)
        if R == 0:
            values.append(0.0)
            continue
        orderings = ranked_orderings(tuple(labels), tuple(scores), ties)
        values.append(
            sum(p * ap_min_r_k([x >= level for x in order], k, R) for order, p in orderings)
        )
    return np.array(values)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("k", [1, 2, 3, None, 20])
def test_min_r_k_against_every_order_of_the_ties(seed, ties, k):
    y_true, y_score, qid = random_case(seed)
    got = map_score(
        y_true, y_score, qid=qid, k=k, ties=ties, ap_denominator="min(R,k)", average=None
    )
    np.testing.assert_allclose(got, reference(y_true, y_score, qid, k=k, ties=ties), rtol=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, None])
def test_n_relevant_is_r(seed, k):
    """With n_relevant, R is the given total: min(R, k) may exceed the list's relevant ones."""
    y_true, y_score, qid = random_case(seed, string_qids=False)
    ids = sorted(set(qid))
    listed = {q: sum(1 for t, i in zip(y_true, qid) if i == q and t >= 1) for q in ids}
    n_relevant = {q: listed[q] + (j % 3) for j, q in enumerate(ids)}
    got = map_score(
        y_true, y_score, qid=qid, k=k, n_relevant=n_relevant, ap_denominator="min(R,k)",
        average=None,
    )  # fmt: skip
    expected = reference(y_true, y_score, qid, k=k, ties="average", n_relevant=n_relevant)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_the_two_denominators_on_one_query():
    """Relevant documents at ranks 1, 3 and 5 of 5: AP@3 is (1 + 2/3) / 3, or / min(3, 3)."""
    y_true, y_score = [1, 0, 1, 0, 1], [5, 4, 3, 2, 1]
    assert map_score(y_true, y_score, k=2) == pytest.approx(1 / 3)
    assert map_score(y_true, y_score, k=2, ap_denominator="min(R,k)") == pytest.approx(1 / 2)
    for k in (3, 5, None):  # min(R, k) = R
        assert map_score(y_true, y_score, k=k, ap_denominator="min(R,k)") == map_score(
            y_true, y_score, k=k
        )
    # Without a cutoff the denominator is R even where the list is shorter than R.
    assert map_score([1, 1], [2, 1], n_relevant={0: 4}, ap_denominator="min(R,k)") == 0.5


@pytest.mark.parametrize("seed", range(4))
def test_default_r_is_unchanged_bit_for_bit(seed):
    y_true, y_score, qid = random_case(seed)
    for k in (1, 3, None):
        default = map_score(y_true, y_score, qid=qid, k=k, average=None)
        given = map_score(y_true, y_score, qid=qid, k=k, ap_denominator="R", average=None)
        assert default.tobytes() == given.tobytes()


@pytest.mark.parametrize("written", ["min(R,k)", "min(R, k)", " min ( R , k ) ", "min(R,\tk)"])
def test_whitespace_does_not_matter(written):
    y_true, y_score, qid = random_case(3)
    expected = map_score(y_true, y_score, qid=qid, k=2, ap_denominator="min(R,k)")
    assert map_score(y_true, y_score, qid=qid, k=2, ap_denominator=written) == expected


@pytest.mark.parametrize(
    "value, error",
    [("k", ValueError), ("min(k,R)", ValueError), ("r", ValueError), (None, TypeError),
     (1, TypeError)],
)  # fmt: skip
def test_invalid_values_name_the_argument_and_the_choices(value, error):
    with pytest.raises(error, match=r"map_score: ap_denominator=.* must be 'R' or 'min\(R,k\)'"):
        map_score([1, 0], [2, 1], k=1, ap_denominator=value)
    with pytest.raises(error, match=r"evaluate: ap_denominator="):
        evaluate([1, 0], [2, 1], metrics=["map@1"], ap_denominator=value)


def test_evaluate_applies_it_to_map_and_gm_map_only():
    y_true, y_score, qid = random_case(7, max_queries=8)
    names = ["map@2", "gm_map@2", "map", "ndcg@2", "recall@2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        default = evaluate(y_true, y_score, qid=qid, metrics=names, average=None)
        capped = evaluate(
            y_true, y_score, qid=qid, metrics=names, ap_denominator="min(R,k)", average=None
        )
    expected = map_score(y_true, y_score, qid=qid, k=2, ap_denominator="min(R,k)", average=None)
    assert capped["map@2"].tobytes() == expected.tobytes()
    assert capped["gm_map@2"].tobytes() == expected.tobytes()
    for name in ("map", "ndcg@2", "recall@2"):
        assert capped[name].tobytes() == default[name].tobytes()


def test_scorers_pass_it_to_the_metrics_that_take_it():
    rng = np.random.default_rng(0)
    X, y, qid = rng.random((80, 2)), rng.integers(0, 2, 80), np.repeat(np.arange(8), 10)
    model = Ridge().fit(X, y)
    expected = map_score(y, model.predict(X), qid=qid, k=3, ap_denominator="min(R,k)")
    assert expected != map_score(y, model.predict(X), qid=qid, k=3)
    assert make_rank_scorer("map@3", ap_denominator="min(R,k)")(model, X, y, qid=qid) == expected
    scorer = make_rank_scorer(map_score, k=3, ap_denominator="min(R,k)")
    assert scorer(model, X, y, qid=qid) == expected
    scorers = make_rank_scorers(["map@3", "ndcg@3"], ap_denominator="min(R,k)")
    assert scorers["map@3"](model, X, y, qid=qid) == expected
    with pytest.raises(TypeError, match="'ndcg@3' got unexpected option.*ap_denominator"):
        make_rank_scorer("ndcg@3", ap_denominator="min(R,k)")
    with pytest.raises(ValueError, match="make_rank_scorer: ap_denominator='k'"):
        make_rank_scorer("map@3", ap_denominator="k")


def test_dask_evaluate_takes_it():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    y_true, y_score, qid = random_case(5, max_queries=8, string_qids=False)
    frame = pd.DataFrame({"label": y_true, "score": y_score, "qid": qid})
    got = evaluate_dask(dd.from_pandas(frame, npartitions=2))
    expected = evaluate(y_true, y_score, qid=qid, metrics=["map@2"], ap_denominator="min(R,k)")
    assert got["map@2"] == pytest.approx(expected["map@2"], **TOL)


def evaluate_dask(ddf):
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    return dask_evaluate(ddf, metrics=["map@2"], ap_denominator="min(R,k)")


# The boosters' own map@k --------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_lightgbm_map_at_k(seed):
    lightgbm = pytest.importorskip("lightgbm")
    qid, labels, scores, features = booster_case(seed)
    params = {"verbose": -1, "num_threads": 1}
    data = lightgbm.Dataset(
        features, labels, group=np.bincount(qid), init_score=scores, params=params
    )
    params |= {"objective": "lambdarank", "metric": ["map"], "eval_at": list(CUTOFFS)}
    reported = {name: v for _, name, v, *_ in lightgbm.Booster(params, data).eval_train()}
    n_relevant = np.bincount(qid, weights=labels >= 1)
    assert (n_relevant > min(CUTOFFS)).any()  # min(R, k) differs from R somewhere
    for k in CUTOFFS:
        expected = map_score(
            labels, scores, qid=qid, k=k, ap_denominator="min(R,k)", no_relevant="one",
            ties="first",
        )  # fmt: skip
        assert reported[f"map@{k}"] == pytest.approx(expected, **TOL)


@pytest.mark.parametrize("seed", range(3))
def test_xgboost_map_at_k(seed):
    xgboost = pytest.importorskip("xgboost")
    qid, labels, scores, features = booster_case(seed)
    binary = (labels >= 2).astype(np.float64)  # XGBoost's map takes 0/1 labels only
    data = xgboost.DMatrix(features, binary, base_margin=scores)
    data.set_group(np.bincount(qid))
    names = [f"map@{k}{suffix}" for k in CUTOFFS for suffix in ("", "-")]
    params = {"objective": "rank:ndcg", "eval_metric": names, "nthread": 1}
    text = xgboost.Booster(params, [data]).eval(data, name="given")
    reported = dict(field.removeprefix("given-").split(":") for field in text.split("\t")[1:])
    for k in CUTOFFS:
        for suffix, no_relevant in (("", "one"), ("-", "zero")):
            expected = map_score(
                binary, scores, qid=qid, k=k, ap_denominator="min(R,k)", ties="first",
                no_relevant=no_relevant,
            )  # fmt: skip
            assert float(reported[f"map@{k}{suffix}"]) == pytest.approx(expected, **TOL)
            assert not math.isnan(expected)
