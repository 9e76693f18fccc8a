"""Distributed evaluation: Dask LocalCluster (1 and 2 workers) and local Spark on Parquet.

Writes ``--rows`` rows (default 1e8) as ``--files`` Parquet files, each file
holding rows of every query (~100 documents a query, query ids drawn at
random per row, so every query is cut across all files and the shuffle by
query does real work). Then evaluates them

* in memory (all rows read into one process), where ``--in-memory`` allows;
* with ``sklearn_rank_metrics.dask.evaluate`` on a LocalCluster of 1 and of 2
  worker processes (1 thread each);
* with ``sklearn_rank_metrics.spark.evaluate`` on ``local[N]`` Spark;

and reports rows/s, the shuffle's cost (full evaluation minus the evaluation
of the same rows already partitioned by query, ``partitioned_by_query=True``
on a persisted/cached shuffled copy) and the peak resident memory of each
worker process (sampled with psutil every 0.1 s over this process's
children: the Dask workers; Spark's Python workers - the JVM's heap is
bounded by ``--spark-driver-memory``).

Usage::

    python benchmarks/bench_distributed.py --rows 1e7 --files 16
"""

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn_rank_metrics import evaluate  # noqa: E402

METRICS = ["ndcg@10", "map@100", "mrr@10", "recall@100"]
DOCS_PER_QUERY = 100


def write_parquet(directory, rows, files, seed=0):
    """``files`` Parquet files of ``rows // files`` rows; every query has rows in every file."""
    n_queries = max(1, rows // DOCS_PER_QUERY)
    per_file = rows // files
    for index in range(files):
        rng = np.random.default_rng([seed, index])
        label = rng.choice(5, size=per_file, p=[0.5, 0.25, 0.13, 0.08, 0.04]).astype(np.int8)
        frame = pd.DataFrame(
            {
                "qid": rng.integers(0, n_queries, size=per_file, dtype=np.int64),
                "label": label,
                "score": label + 1.5 * rng.standard_normal(per_file),
            }
        )
        frame.to_parquet(directory / f"part-{index:04d}.parquet", index=False)
    return per_file * files


class PeakMemory:
    """Peak RSS of every child process of this one, sampled in a thread."""

    def __init__(self, interval=0.1):
        self.interval, self.peaks, self.names = interval, {}, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        me = psutil.Process()
        while not self._stop.is_set():
            for child in me.children(recursive=True):
                try:
                    rss = child.memory_info().rss
                    self.names.setdefault(child.pid, " ".join(child.cmdline()[:3])[:60])
                except psutil.Error:
                    continue
                self.peaks[child.pid] = max(self.peaks.get(child.pid, 0), rss)
            time.sleep(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def summary(self, pattern, exclude="java"):
        """Peak RSS in MiB of the children whose command line has ``pattern``, not ``exclude``."""
        return sorted(
            round(peak / 2**20) for pid, peak in self.peaks.items()
            if pattern in self.names[pid] and exclude not in self.names[pid]
        )  # fmt: skip


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def bench_in_memory(directory):
    frame = pd.read_parquet(directory)
    seconds, means = timed(lambda: evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(),
                                            qid=frame["qid"].to_numpy(), metrics=METRICS))
    return {"seconds": seconds, "rows": len(frame), "means": means}


def bench_dask(directory, n_workers, worker_memory):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import sklearn_rank_metrics.dask as srm_dask

    with PeakMemory() as memory, LocalCluster(
        n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
        memory_limit=worker_memory,
    ) as cluster, Client(cluster):
        ddf = dd.read_parquet(directory)
        seconds, means = timed(lambda: srm_dask.evaluate(ddf, metrics=METRICS))
        shuffled = ddf.shuffle(on="qid").persist()
        shuffle_seconds, _ = timed(lambda: len(shuffled))
        engine_seconds, _ = timed(
            lambda: srm_dask.evaluate(shuffled, metrics=METRICS, partitioned_by_query=True)
        )
        del shuffled
    return {
        "seconds": seconds, "means": means, "persisted_shuffle_seconds": shuffle_seconds,
        "engine_only_seconds": engine_seconds,
        "peak_rss_mib_per_worker": memory.summary("python"),
    }


def bench_spark(directory, cores, driver_memory):
    from pyspark.sql import SparkSession

    import sklearn_rank_metrics.spark as srm_spark

    with PeakMemory() as memory:
        spark = (
            SparkSession.builder.master(f"local[{cores}]")
            .config("spark.driver.memory", driver_memory)
            .config("spark.sql.shuffle.partitions", str(4 * cores))
            .config("spark.ui.enabled", "false")
            .config("spark.pyspark.python", sys.executable)  # workers: this Python
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        sdf = spark.read.parquet(str(directory))
        seconds, means = timed(lambda: srm_spark.evaluate(sdf, metrics=METRICS))
        by_query = sdf.repartition("qid").cache()
        shuffle_seconds, _ = timed(by_query.count)
        engine_seconds, _ = timed(
            lambda: srm_spark.evaluate(by_query, metrics=METRICS, partitioned_by_query=True)
        )
        spark.stop()
    return {
        "seconds": seconds, "means": means, "cached_repartition_seconds": shuffle_seconds,
        "engine_only_seconds_with_check": engine_seconds,
        "peak_rss_mib_python_workers": memory.summary("pyspark"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1e8", help="rows to generate (default 1e8)")
    parser.add_argument("--files", type=int, default=64, help="Parquet files (default 64)")
    parser.add_argument("--in-memory", choices=["yes", "no"], default="yes")
    parser.add_argument("--worker-memory", default="8GiB", help="Dask memory_limit per worker")
    parser.add_argument("--spark-driver-memory", default="8g")
    parser.add_argument("--skip", nargs="*", default=[], choices=["dask", "spark"])
    args = parser.parse_args()
    rows = int(float(args.rows))
    results = {"rows_requested": rows, "files": args.files, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "rows"
        directory.mkdir()
        seconds, rows = timed(lambda: write_parquet(directory, rows, args.files))
        results.update(rows=rows, write_seconds=seconds)
        print(f"wrote {rows:,} rows in {seconds:.1f} s", flush=True)
        runs = []
        if args.in_memory == "yes":
            runs.append(("in_memory", lambda: bench_in_memory(directory)))
        if "dask" not in args.skip:
            runs += [(f"dask_{n}_workers", lambda n=n: bench_dask(directory, n, args.worker_memory))
                     for n in (1, 2)]  # fmt: skip
        if "spark" not in args.skip:
            runs.append(("spark_local_2", lambda: bench_spark(directory, 2,
                                                              args.spark_driver_memory)))
        for name, run in runs:
            result = run()
            result["rows_per_second"] = rows / result["seconds"]
            results[name] = result
            print(name, json.dumps(result, default=float), flush=True)
    print("BENCH-RESULT " + json.dumps(results, default=float))


if __name__ == "__main__":
    main()
