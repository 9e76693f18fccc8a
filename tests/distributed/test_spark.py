"""sklearn_rank_metrics.spark on a local[2] SparkSession: in-memory evaluate and MLlib agree."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspark", reason="the spark extra is not installed")
pytest.importorskip("pyarrow", reason="the spark extra is not installed")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java runtime (java is not on PATH)", allow_module_level=True)

from _distributed_data import (  # noqa: E402
    EXTREME_WEIGHT_METRICS,
    EXTREME_WEIGHTS,
    METRICS,
    assert_exact_means,
    assert_same_means,
    assert_same_per_query,
    assert_skips_counted_over_partitions,
    exact_weighted_means,
    extreme_weight_frame,
    in_memory,
    ranking_frame,
    write_parquet,
)
from pyspark.sql import SparkSession  # noqa: E402
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402

from sklearn_rank_metrics import evaluate as evaluate_in_memory  # noqa: E402
from sklearn_rank_metrics.spark import evaluate  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning"),  # MLlib's own call
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),  # pyspark on pandas 3
]


@pytest.fixture(scope="module")
def spark():
    # Workers run this Python. The configuration below says so too, but a session made
    # after another module's session stopped starts its workers from PYSPARK_PYTHON.
    previous = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("sklearn-rank-metrics tests")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.pyspark.python", sys.executable)  # workers: this Python
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.files.openCostInBytes", str(1 << 27))  # one partition per file
        .config("spark.driver.extraJavaOptions", "-Dlog4j.rootLogger=ERROR,console")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if previous is None:
        del os.environ["PYSPARK_PYTHON"]
    else:
        os.environ["PYSPARK_PYTHON"] = previous


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory):
    frames = {}
    for string_ids in (False, True):
        frame = ranking_frame(string_ids=string_ids, seed=int(string_ids))
        path = write_parquet(frame, tmp_path_factory.mktemp("spark") / "rows")
        sdf = spark.read.parquet(str(path))
        assert sdf.rdd.getNumPartitions() > 1
        frames[string_ids] = frame, sdf
    return frames


def _per_query(sdf):
    return sdf.toPandas().set_index("qid")


@pytest.mark.parametrize(
    "ties, string_ids", [("average", False), ("optimistic", True), ("pessimistic", False)]
)
def test_same_values_and_means_as_in_memory(data, ties, string_ids):
    frame, sdf = data[string_ids]
    options = dict(ties=ties, no_relevant="skip", sample_weight="w", relevance_level=2)
    reference = in_memory(frame, **options)
    assert_same_per_query(_per_query(evaluate(sdf, metrics=METRICS, average=None, **options)),
                          reference)  # fmt: skip
    with pytest.warns(UndefinedMetricWarning) as record:
        means = evaluate(sdf, metrics=METRICS, **options)
    assert_same_means(means, reference)
    assert_skips_counted_over_partitions(record, reference)


def test_n_relevant_and_partitioned_by_query(data):
    frame, sdf = data[True]
    ids = np.unique(frame["qid"].to_numpy())
    n_relevant = {q: 15 for q in ids[::3].tolist()}
    options = dict(metrics=["map@5", "recall@3"], n_relevant=n_relevant, gain="exponential")
    reference = in_memory(frame, **options)
    by_query = sdf.repartition(4, "qid").cache()
    assert_same_means(evaluate(by_query, partitioned_by_query=True, **options), reference)
    with pytest.raises(ValueError, match=r"partitioned_by_query=True, but \d+ query id"):
        evaluate(sdf, partitioned_by_query=True, **options)
    by_query.unpersist()


def test_ties_first_orders_each_query_by_order_by(spark, data):
    # A Spark DataFrame has no row order; "first" ranks tied documents by order_by.
    frame = data[False][0]
    options = dict(metrics=METRICS, ties="first", no_relevant="skip", sample_weight="w")
    frame = frame.assign(rank=np.random.default_rng(5).permutation(len(frame)))
    sdf = spark.createDataFrame(frame).repartition(3)
    reference = in_memory(frame.sort_values("rank"), **options)
    assert reference.mean("ndcg@5") != in_memory(frame, **options).mean("ndcg@5")
    for _ in range(2):  # the same numbers on every run
        values = _per_query(evaluate(sdf, average=None, order_by="rank", **options))
        assert_same_per_query(values, reference)
        with pytest.warns(UndefinedMetricWarning):
            assert_same_means(evaluate(sdf, order_by="rank", **options), reference)


@pytest.mark.filterwarnings("ignore:toPandas attempted Arrow optimization:UserWarning")
def test_ties_first_without_order_by_raises(data):
    _, sdf = data[False]
    with pytest.raises(ValueError, match=r'ties="first" ranks tied documents in row order.*'
                                         r"pass order_by=<column>"):  # fmt: skip
        evaluate(sdf, ties="first")
    with pytest.raises(ValueError, match=r"order_by='rnk' is not a column"):
        evaluate(sdf, ties="first", order_by="rnk")
    with pytest.raises(Exception, match=r"order_by='label' has the value \d+ on more than one"):
        evaluate(sdf, metrics=["mrr"], ties="first", order_by="label")
    evaluate(sdf, metrics=["mrr"], order_by="label")  # not used by ties="average"


def test_arguments_are_checked_on_the_driver(data):
    _, sdf = data[False]
    with pytest.raises(ValueError, match=r"qid='query' is not a column"):
        evaluate(sdf, qid="query")
    with pytest.raises(ValueError, match="no_relevant"):
        evaluate(sdf, no_relevant="drop")


def test_import_without_the_extra_names_it():
    code = "import sys; sys.modules['pyspark'] = None; import sklearn_rank_metrics.spark"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    assert 'pip install "sklearn-rank-metrics[spark]"' in result.stderr


def _mllib_case(seed=3, n_queries=40):
    """Ranked lists without ties and binary judgments; some relevant items are not retrieved."""
    rng = np.random.default_rng(seed)
    rows, lists = [], []
    for query in range(n_queries):
        n = int(rng.integers(1, 12))
        items = rng.permutation(1000)[:n]
        relevant = items[rng.random(n) < 0.4]
        unretrieved = list(range(1000, 1000 + int(rng.integers(0, 4)))) if query % 2 else []
        scores = rng.permutation(n).astype(float)
        ranked = items[np.argsort(-scores)]
        lists.append((ranked.tolist(), [*relevant.tolist(), *unretrieved]))
        rows += [(query, int(item in relevant), score) for item, score in zip(items, scores)]
    return pd.DataFrame(rows, columns=["qid", "label", "score"]), lists


def test_reproduces_mllib_ranking_metrics(spark):
    from pyspark.mllib.evaluation import RankingMetrics

    frame, lists = _mllib_case()
    n_relevant = {query: len(truth) for query, (_, truth) in enumerate(lists)}
    mllib = RankingMetrics(spark.sparkContext.parallelize(lists, 2))
    sdf = spark.createDataFrame(frame)
    means = evaluate(sdf, metrics=["precision@5", "recall@5", "map", "map@3", "ndcg@5"],
                     n_relevant=n_relevant)  # fmt: skip
    assert means["precision@5"] == pytest.approx(mllib.precisionAt(5), rel=1e-12)
    # Its ideal DCG counts the relevant items the list left out (n_relevant here).
    assert means["ndcg@5"] == pytest.approx(mllib.ndcgAt(5), rel=1e-12)
    assert means["recall@5"] == pytest.approx(mllib.recallAt(5), rel=1e-12)
    assert means["map"] == pytest.approx(mllib.meanAveragePrecision, rel=1e-12)
    # MLlib's MAP@k divides by min(R, k), this package's map@k by R (trec_eval) unless
    # ap_denominator says otherwise.
    capped = evaluate(sdf, metrics=["map@3"], n_relevant=n_relevant, ap_denominator="min(R,k)")
    assert capped["map@3"] == pytest.approx(mllib.meanAveragePrecisionAt(3), rel=1e-12)
    assert abs(means["map@3"] - mllib.meanAveragePrecisionAt(3)) > 1e-3
    # MLlib's NDCG is binary with an ideal list of min(R, k) relevant items: the same as
    # ndcg@k on 0/1 labels where every relevant item is in the list (not otherwise).
    complete = [(ranked, [i for i in truth if i < 1000]) for ranked, truth in lists]
    mllib_complete = RankingMetrics(spark.sparkContext.parallelize(complete, 2))
    ndcg = evaluate_in_memory(frame["label"], frame["score"], qid=frame["qid"], metrics="ndcg@5")
    assert ndcg["ndcg@5"] == pytest.approx(mllib_complete.ndcgAt(5), rel=1e-12)
    assert abs(ndcg["ndcg@5"] - mllib.ndcgAt(5)) > 1e-3


@pytest.mark.parametrize("kind", list(EXTREME_WEIGHTS))
def test_extreme_weights_give_the_exact_means(spark, kind):
    frame = extreme_weight_frame(EXTREME_WEIGHTS[kind])
    sdf = spark.createDataFrame(frame).repartition(3)
    means = evaluate(sdf, metrics=EXTREME_WEIGHT_METRICS, sample_weight="w")
    assert_exact_means(means, exact_weighted_means(frame))
