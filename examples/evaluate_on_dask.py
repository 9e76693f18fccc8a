"""Evaluate a ranking stored as Parquet on a Dask cluster, without collecting its rows.
====================================================================================

Generates a small click log (50,000 rows, queries cut across 4 Parquet files),
starts a two-worker LocalCluster - on a real cluster use
``Client("scheduler-address:8786")`` instead - and computes the means and the
per-query values with ``sklearn_rank_metrics.dask.evaluate``; the in-memory
``evaluate`` on the same rows gives the same numbers.

Needs the dask extra: pip install "sklearn-rank-metrics[dask]"
"""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import sklearn_rank_metrics
from sklearn_rank_metrics.dask import evaluate


def write_log(directory, rows=50_000, files=4, seed=0):
    rng = np.random.default_rng(seed)
    label = rng.choice(4, size=rows, p=[0.7, 0.15, 0.1, 0.05])
    frame = pd.DataFrame(
        {
            "query": rng.integers(0, rows // 50, size=rows),  # ~50 documents a query
            "clicks": label,
            "model_score": label + rng.standard_normal(rows),
        }
    )
    for index, rows_of_file in enumerate(np.array_split(np.arange(rows), files)):
        frame.iloc[rows_of_file].to_parquet(directory / f"part-{index}.parquet", index=False)
    return frame


def main():
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        frame = write_log(Path(tmp))
        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster):  # fmt: skip
            ddf = dd.read_parquet(tmp)
            columns = dict(label="clicks", score="model_score", qid="query")
            metrics = ["ndcg@10", "map@100", "mrr@10"]
            means = evaluate(ddf, metrics=metrics, **columns)
            per_query = evaluate(ddf, metrics=metrics, average=None, **columns)
            worst = per_query.nsmallest(3, "ndcg@10").compute()
    print("Dask means:     ", {name: round(value, 6) for name, value in means.items()})
    in_memory = sklearn_rank_metrics.evaluate(
        frame["clicks"], frame["model_score"], qid=frame["query"], metrics=metrics
    )
    print("in-memory means:", {name: round(value, 6) for name, value in in_memory.items()})
    print("three worst queries by ndcg@10:")
    print(worst)


if __name__ == "__main__":
    main()
