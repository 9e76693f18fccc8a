"""Evaluate a ranking in a Spark DataFrame on the executors, and compare with Spark's MLlib.
=========================================================================================

Builds a small Spark DataFrame (20,000 rows), computes means and per-query
values with ``sklearn_rank_metrics.spark.evaluate`` on ``local[2]`` - with
``spark-submit --master yarn`` (or any cluster manager) the same code runs on
the cluster's executors - and shows MLlib's ``RankingMetrics`` next to the
options of this package that reproduce its numbers.

Needs the spark extra and Java 17: pip install "sklearn-rank-metrics[spark]"
"""

import sys

import numpy as np
import pandas as pd
from pyspark.sql import SparkSession

from sklearn_rank_metrics.spark import evaluate


def make_rows(rows=20_000, seed=0):
    rng = np.random.default_rng(seed)
    label = (rng.random(rows) < 0.2).astype(int)  # binary: MLlib's judgments are sets
    return pd.DataFrame(
        {
            "qid": [f"user{q}" for q in rng.integers(0, rows // 20, size=rows)],
            "label": label,
            "score": label + rng.standard_normal(rows),  # no ties
        }
    )


def main():
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.pyspark.python", sys.executable)  # workers: this Python
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = make_rows()
    sdf = spark.createDataFrame(frame)
    metrics = ["ndcg@10", "map", "precision@5", "recall@10", "mrr@10"]
    print("sklearn_rank_metrics.spark:", evaluate(sdf, metrics=metrics))
    per_query = evaluate(sdf, metrics=["ndcg@10", "mrr@10"], average=None)
    per_query.orderBy("ndcg@10").show(3)

    from pyspark.mllib.evaluation import RankingMetrics

    lists = [
        (group.sort_values("score", ascending=False).index.tolist(),
         group.index[group["label"] == 1].tolist())
        for _, group in frame.groupby("qid")
    ]  # fmt: skip
    mllib = RankingMetrics(spark.sparkContext.parallelize(lists, 2))
    print("MLlib: ndcgAt(10)", mllib.ndcgAt(10), "meanAveragePrecision",
          mllib.meanAveragePrecision, "precisionAt(5)", mllib.precisionAt(5),
          "recallAt(10)", mllib.recallAt(10))  # fmt: skip
    spark.stop()


if __name__ == "__main__":
    main()
