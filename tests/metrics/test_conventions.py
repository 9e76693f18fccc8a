"""docs/conventions.md: the options it names reproduce each tool's own numbers.

Every tool that is installed is run itself on generated rankings with tied
scores and queries without a relevant document, and its numbers are compared
with the package's under the options the page gives for it.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from _reference import trec_dict as nested
import sklearn.metrics

from sklearn_rank_metrics import (
    dcg_score,
    f1_at_k_score,
    hit_rate_score,
    map_score,
    mrr_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
    recall_cap_score,
)
from sklearn_rank_metrics.trec import evaluate_run

try:  # the local Spark session of the Spark tests, where pyspark and Java are installed
    from test_spark import spark  # noqa: F401
except pytest.skip.Exception:
    spark = None

CUTOFFS = (1, 3, 5, 20)  # 20: beyond every list


def rankings(seed, *, n_queries=24, max_size=12, ties=True):
    """``(qid, labels, scores)``: graded labels 0-3, every fourth query without a relevant one.

    Lists hold at most ``max_size`` (<= 15) documents; tied scores take a few
    integer values, tie-free ones are a permutation.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    labels = rng.integers(0, 4, qid.shape[0])
    labels[np.isin(qid, np.arange(0, n_queries, 4))] = 0
    if ties:
        scores = rng.integers(0, 3, qid.shape[0]).astype(np.float64)
    else:
        scores = rng.permutation(qid.shape[0]).astype(np.float64) + 1.0
    return qid, labels, scores


def per_query_lists(qid, *arrays):
    """Each array cut into one list per query (queries in increasing id, rows in order)."""
    bounds = np.flatnonzero(np.diff(qid)) + 1
    return [np.split(np.asarray(array), bounds) for array in arrays]


# scikit-learn ---------------------------------------------------------------


@pytest.mark.parametrize("k", [None, 2, 20])
def test_scikit_learn_ndcg_and_dcg_with_their_defaults(k):
    rng = np.random.default_rng(k or 0)
    y_true = rng.integers(0, 4, (30, 8))
    y_true[::5] = 0  # rows without a relevant document: NDCG 0 in both
    y_score = rng.integers(0, 3, (30, 8)).astype(np.float64)  # heavy ties
    assert ndcg_score(y_true, y_score, k=k) == pytest.approx(
        sklearn.metrics.ndcg_score(y_true, y_score, k=k), rel=1e-12
    )
    assert dcg_score(y_true, y_score, k=k) == pytest.approx(
        sklearn.metrics.dcg_score(y_true, y_score, k=k), rel=1e-12
    )
    # Another log_base multiplies scikit-learn's DCG by log2(base).
    assert dcg_score(y_true, y_score, k=k) * np.log2(10) == pytest.approx(
        sklearn.metrics.dcg_score(y_true, y_score, k=k, log_base=10), rel=1e-12
    )


# trec_eval ------------------------------------------------------------------

# (metric function, its keywords, trec_eval's measure)
TREC_EVAL_MEASURES = [
    (map_score, {}, "map"),
    (map_score, {"k": 5}, "map_cut_5"),
    (mrr_score, {}, "recip_rank"),
    (precision_at_k_score, {"k": 5}, "P_5"),
    (precision_at_k_score, {"k": 20}, "P_20"),
    (recall_at_k_score, {"k": 5}, "recall_5"),
    (r_precision_score, {}, "Rprec"),
    (hit_rate_score, {"k": 5}, "success_5"),
    (f1_at_k_score, {}, "set_F"),
    (recall_cap_score, {"k": 5}, "relative_P_5"),
    (ndcg_score, {"k": 5}, "ndcg_cut_5"),
    (ndcg_score, {}, "ndcg"),
]


@pytest.mark.parametrize("relevance_level", [1, 2])
@pytest.mark.parametrize("missed", [False, True])
def test_metric_functions_equal_trec_eval_when_every_judged_document_is_counted(
    relevance_level, missed
):
    """Judged documents the list misses (``missed``) count through ``n_relevant``."""
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is not installed")
    qid, labels, scores = rankings(relevance_level, ties=False)
    qrels, run = {}, {}
    for row, (query, label, score) in enumerate(zip(qid, labels, scores)):
        qrels.setdefault(f"q{query}", {})[f"d{row}"] = int(label)
        run.setdefault(f"q{query}", {})[f"d{row}"] = float(score)
    n_relevant = None
    if missed:  # judged documents of every other query that the list lacks
        rng = np.random.default_rng(relevance_level)
        for query in np.unique(qid)[1::2]:
            for extra in range(int(rng.integers(1, 4))):
                qrels[f"q{query}"][f"missed{extra}"] = int(rng.integers(0, 4))
        n_relevant = {
            query: sum(grade >= relevance_level for grade in qrels[f"q{query}"].values())
            for query in np.unique(qid)
        }
    measures = {name for *_, name in TREC_EVAL_MEASURES}
    trec = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=relevance_level)
    reference = trec.evaluate(run)
    for function, options, name in TREC_EVAL_MEASURES:
        if function is ndcg_score:  # trec_eval's ndcg ignores -l; NDCG takes no n_relevant
            if missed:
                continue
        else:
            options = {**options, "relevance_level": relevance_level, "n_relevant": n_relevant}
        values = function(labels, scores, qid=qid, average=None, **options)
        expected = [reference[f"q{query}"][name] for query in np.unique(qid)]
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15, err_msg=name)


# torchmetrics ---------------------------------------------------------------

EMPTY_TARGET_ACTIONS = {"neg": "zero", "pos": "one", "skip": "skip"}


def _retrieval():
    return pytest.importorskip("torchmetrics.retrieval", reason="torchmetrics is not installed")


def _torchmetrics(metric, qid, labels, scores):
    torch = pytest.importorskip("torch", reason="torchmetrics is not installed")
    return float(
        metric(
            torch.tensor(scores, dtype=torch.float32),
            torch.tensor(labels),
            indexes=torch.tensor(qid),
        )
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("action, no_relevant", EMPTY_TARGET_ACTIONS.items())
@pytest.mark.parametrize("k", [None, 3, 20])
def test_torchmetrics_ndcg_averages_ties_as_ndcg_score(action, no_relevant, k):
    retrieval = _retrieval()
    qid, labels, scores = rankings(7)
    metric = retrieval.RetrievalNormalizedDCG(top_k=k, empty_target_action=action)
    expected = _torchmetrics(metric, qid, labels, scores)
    got = ndcg_score(labels, scores, qid=qid, k=k, no_relevant=no_relevant)
    assert got == pytest.approx(expected, rel=1e-6)  # torchmetrics sums in float32


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("action, no_relevant", EMPTY_TARGET_ACTIONS.items())
def test_torchmetrics_binary_metrics_on_positive_tie_free_scores(action, no_relevant):
    retrieval = _retrieval()
    qid, labels, scores = rankings(8, ties=False)
    binary = (labels >= 2).astype(np.int64)
    common = {"qid": qid, "no_relevant": no_relevant}
    pairs = [
        (retrieval.RetrievalMAP(), map_score(binary, scores, **common)),
        (retrieval.RetrievalMRR(), mrr_score(binary, scores, **common)),
        (retrieval.RetrievalRPrecision(), r_precision_score(binary, scores, **common)),
    ]
    for k in CUTOFFS:
        pairs += [
            (retrieval.RetrievalPrecision(top_k=k),
             precision_at_k_score(binary, scores, k=k, **common)),
            (retrieval.RetrievalRecall(top_k=k), recall_at_k_score(binary, scores, k=k, **common)),
            (retrieval.RetrievalHitRate(top_k=k), hit_rate_score(binary, scores, k=k, **common)),
        ]  # fmt: skip
    for metric, got in pairs:
        metric.empty_target_action = action
        assert got == pytest.approx(_torchmetrics(metric, qid, binary, scores), rel=1e-6), metric
    # adaptive_k divides by min(k, n): the item-level hit rate of each query.
    for k in CUTOFFS:
        metric = retrieval.RetrievalPrecision(top_k=k, adaptive_k=True, empty_target_action=action)
        per_query = hit_rate_score(binary, scores, k=k, level="item", average=None, **common)
        expected = _torchmetrics(metric, qid, binary, scores)
        assert np.nanmean(per_query) == pytest.approx(expected, rel=1e-6)


def test_torchmetrics_conventions_no_option_reproduces():
    """AP@k over the hits in the top k, and relevant documents scored <= 0 never hits."""
    retrieval = _retrieval()
    qid = np.array([0, 0, 0])
    labels = np.array([0, 1, 1])
    scores = np.array([0.5, 0.25, -0.5])
    # torchmetrics: the relevant document scored -0.5 is no hit: AP = (1/2) / 1.
    assert _torchmetrics(retrieval.RetrievalMAP(), qid, labels, scores) == 0.5
    assert map_score(labels, scores) == pytest.approx((1 / 2 + 2 / 3) / 2)
    # AP@2 divided by the one hit inside the top 2, not by R = 2.
    assert _torchmetrics(retrieval.RetrievalMAP(top_k=2), qid, labels, scores + 1) == 0.5
    assert map_score(labels, scores, k=2) == 0.25


# Spark's RankingMetrics -----------------------------------------------------


def _spark_case(seed=5, n_queries=30):
    """Ranked items and ground-truth sets: some items never retrieved, some sets empty."""
    rng = np.random.default_rng(seed)
    lists = []
    for query in range(n_queries):
        ranked = rng.permutation(100)[: rng.integers(1, 12)]
        truth = rng.choice(100, size=rng.integers(0, 8) if query % 4 else 0, replace=False)
        lists.append((ranked.tolist(), truth.tolist()))
    return lists


@pytest.mark.skipif(spark is None, reason="the Spark tests need pyspark and a Java runtime")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")  # MLlib's own call
def test_spark_ranking_metrics(spark):
    from pyspark.mllib.evaluation import RankingMetrics

    pd = pytest.importorskip("pandas")
    lists = _spark_case()
    mllib = RankingMetrics(spark.sparkContext.parallelize(lists, 1))
    rows = [
        (q, item, -rank, int(item in truth))
        for q, (ranked, truth) in enumerate(lists)
        for rank, item in enumerate(ranked)
    ]
    qid, item, score, label = (np.array(column) for column in zip(*rows))
    # precision, recall and MAP with n_relevant: tests/distributed/test_spark.py. Here what
    # only this page claims, one Spark job each: k beyond every list, empty sets.
    assert precision_at_k_score(label, score, qid=qid, k=20) == pytest.approx(
        mllib.precisionAt(20), rel=1e-12
    )
    # Binary NDCG: the ground truth as qrels of grade 1 (an empty set: one line of grade 0).
    qrels = pd.DataFrame(
        [(str(q), str(i), 1) for q, (_, truth) in enumerate(lists) for i in truth]
        + [(str(q), "none", 0) for q, (_, truth) in enumerate(lists) if not truth],
        columns=["query_id", "doc_id", "relevance"],
    )
    run = pd.DataFrame({"query_id": qid.astype(str), "doc_id": item.astype(str), "score": score})
    results = evaluate_run(qrels, run, metrics=["ndcg@3", "ndcg@20"])
    for k in (3, 20):
        assert results[f"ndcg@{k}"] == pytest.approx(mllib.ndcgAt(k), rel=1e-12)
    # pyspark passes only the first two arrays on: relevance values leave NDCG binary.
    graded = [(ranked, truth, [3.0 - min(n, 2) for n in range(len(truth))])
              for ranked, truth in lists]  # fmt: skip
    graded_ndcg = RankingMetrics(spark.sparkContext.parallelize(graded, 1)).ndcgAt(3)
    assert graded_ndcg == pytest.approx(results["ndcg@3"], rel=1e-12)


# LightGBM and XGBoost: their own evaluation of given scores ------------------


def _features(n_rows):
    return np.random.default_rng(0).random((n_rows, 2))


def lightgbm_reported(qid, labels, scores):
    """LightGBM's ``ndcg`` and ``map`` at CUTOFFS of ``scores`` (its training scores at start)."""
    lightgbm = pytest.importorskip("lightgbm", reason="lightgbm is not installed")
    params = {"verbose": -1, "num_threads": 1}
    data = lightgbm.Dataset(
        _features(qid.shape[0]), labels, group=np.bincount(qid), init_score=scores, params=params
    )
    params |= {"objective": "lambdarank", "metric": ["ndcg", "map"], "eval_at": list(CUTOFFS)}
    booster = lightgbm.Booster(params, data)
    return {name: value for _, name, value, *_ in booster.eval_train()}


def xgboost_reported(qid, labels, scores, metrics, **params):
    """XGBoost's ``metrics`` of ``scores``, given as the base margin of a model with no tree."""
    xgboost = pytest.importorskip("xgboost", reason="xgboost is not installed")
    data = xgboost.DMatrix(_features(qid.shape[0]), labels, base_margin=scores)
    data.set_group(np.bincount(qid))
    params = {"objective": "rank:ndcg", "eval_metric": metrics, "nthread": 1, **params}
    text = xgboost.Booster(params, [data]).eval(data, name="given")
    pairs = (field.removeprefix("given-").split(":") for field in text.split("\t")[1:])
    return {name: float(value) for name, value in pairs}


def booster_ndcg(qid, labels, scores, k, **options):
    return ndcg_score(labels, scores, qid=qid, k=k, ties="first", **options)


@pytest.mark.parametrize("seed", range(3))
def test_lightgbm_ndcg_and_map(seed):
    qid, labels, scores = rankings(seed)
    reported = lightgbm_reported(qid, labels, scores)
    options = {"qid": qid, "no_relevant": "one", "ties": "first"}
    n_relevant = np.bincount(qid, weights=labels >= 1)
    for k in CUTOFFS:
        expected = booster_ndcg(qid, labels, scores, k, gain="exponential", no_relevant="one")
        assert reported[f"ndcg@{k}"] == pytest.approx(expected, rel=1e-12)
        # LightGBM divides AP@k by min(R, k): each query's map@k times R / min(R, k).
        ap = map_score(labels, scores, k=k, average=None, **options)
        rescale = np.where(n_relevant > 0, n_relevant / np.maximum(np.minimum(n_relevant, k), 1), 1)
        assert reported[f"map@{k}"] == pytest.approx(np.mean(ap * rescale), rel=1e-12)
        if k >= n_relevant.max():  # no query with more than k relevant documents
            assert reported[f"map@{k}"] == pytest.approx(np.mean(ap), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_xgboost_ndcg(seed):
    qid, labels, scores = rankings(seed)
    names = [f"ndcg@{k}" for k in CUTOFFS] + [f"ndcg@{k}-" for k in CUTOFFS]
    exponential = xgboost_reported(qid, labels, scores, names)
    linear = xgboost_reported(qid, labels, scores, names, ndcg_exp_gain=False)
    for k in CUTOFFS:
        for suffix, no_relevant in [("", "one"), ("-", "zero")]:
            name = f"ndcg@{k}{suffix}"
            expected = booster_ndcg(qid, labels, scores, k, gain="exponential",
                                    no_relevant=no_relevant)  # fmt: skip
            assert exponential[name] == pytest.approx(expected, rel=1e-12)
            expected = booster_ndcg(qid, labels, scores, k, no_relevant=no_relevant)
            assert linear[name] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_xgboost_map_and_precision_on_binary_labels(seed):
    qid, labels, scores = rankings(seed)
    binary = (labels >= 2).astype(np.float64)  # XGBoost's map and pre take 0/1 labels only
    names = ["map", "map-"] + [f"pre@{k}" for k in CUTOFFS]
    reported = xgboost_reported(qid, binary, scores, names)
    options = {"qid": qid, "ties": "first"}
    assert reported["map"] == pytest.approx(
        map_score(binary, scores, no_relevant="one", **options), rel=1e-12
    )
    assert reported["map-"] == pytest.approx(map_score(binary, scores, **options), rel=1e-12)
    for k in CUTOFFS:
        per_query = hit_rate_score(binary, scores, k=k, level="item", average=None, **options)
        assert reported[f"pre@{k}"] == pytest.approx(np.mean(per_query), rel=1e-12)


# ranx -----------------------------------------------------------------------

RANX_NAMES = {  # ranx's name: the package's
    "map": "map", "map@5": "map@5", "mrr": "mrr", "precision@5": "precision@5",
    "precision@20": "precision@20", "recall@5": "recall@5", "f1@5": "f1@5",
    "r-precision": "r_precision", "hit_rate@5": "hit_rate@5", "ndcg@5": "ndcg@5", "ndcg": "ndcg",
}  # fmt: skip


def trec_frames(seed):
    """A run (rankings() with tied scores) and its qrels: missed and unjudged documents."""
    pd = pytest.importorskip("pandas")
    qid, labels, scores = rankings(seed)
    run = pd.DataFrame({"query_id": [f"q{q}" for q in qid],
                        "doc_id": [f"d{row}" for row in range(qid.shape[0])], "score": scores})  # fmt: skip
    judged = np.random.default_rng(seed).random(qid.shape[0]) < 0.8  # the others: unjudged
    missed = [(f"q{q}", f"missed{q}", int(q % 3)) for q in np.unique(qid)[1::2]]
    missed.append(("q-not-retrieved", "d0", 1))
    qrels = pd.concat([
        pd.DataFrame({"query_id": run["query_id"][judged], "doc_id": run["doc_id"][judged],
                      "relevance": labels[judged]}),
        pd.DataFrame(missed, columns=["query_id", "doc_id", "relevance"]),
    ], ignore_index=True)  # fmt: skip
    return run, qrels


# ranx runs in a child process: its numba thread pool would hang later tests that fork.
_RANX_CHILD = """
import json, sys
import ranx
qrels, run, metrics, as_objects = json.load(sys.stdin)
if as_objects:
    run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), run, metrics, make_comparable=True)
    scores = {m: dict(run.scores[m]) for m in metrics}
else:
    values = ranx.evaluate(qrels, run, metrics, return_mean=False)
    scores = {m: dict(zip(run, map(float, values[m]))) for m in metrics}
json.dump(scores, sys.stdout)
"""


def ranx_scores(qrels, run, *, as_objects):
    """ranx's per-query values ``{metric: {query: value}}``: a Run and Qrels, or plain dicts."""
    pytest.importorskip("ranx", reason="ranx is not installed")
    payload = json.dumps([nested(qrels, "relevance"), nested(run, "score"), list(RANX_NAMES),
                          as_objects], default=int)  # fmt: skip
    child = subprocess.run([sys.executable, "-c", _RANX_CHILD], input=payload,
                           capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(child.stdout)


def assert_same_as_ranx(results, scores):
    for ranx_name, name in RANX_NAMES.items():
        expected = [scores[ranx_name][query] for query in results.query_ids]
        np.testing.assert_allclose(results[name], expected, rtol=1e-12, err_msg=name)


@pytest.mark.filterwarnings("ignore::sklearn_rank_metrics.trec.UnevaluatedQueriesWarning")
@pytest.mark.parametrize("seed", range(2))
def test_ranx_run_is_evaluate_run_with_first_ties(seed):
    run, qrels = trec_frames(seed)
    scores = ranx_scores(qrels, run, as_objects=True)
    results = evaluate_run(qrels, run, metrics=list(RANX_NAMES.values()), ties="first",
                           missing_queries="zero", average=None)  # fmt: skip
    assert_same_as_ranx(results, scores)


def test_ranx_plain_dicts_reverse_ties():
    run, qrels = trec_frames(3)
    qrels = qrels[qrels["query_id"].isin(run["query_id"])]  # plain dicts: the same queries
    run = run[run["query_id"].isin(qrels["query_id"])]
    scores = ranx_scores(qrels, run, as_objects=False)
    reversed_rows = run.iloc[::-1]  # each query's rows reversed, then input order
    results = evaluate_run(qrels, reversed_rows, metrics=list(RANX_NAMES.values()),
                           ties="first", average=None)  # fmt: skip
    assert_same_as_ranx(results, scores)
