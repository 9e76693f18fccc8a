"""Time and memory of ``compare_results``: many models, metrics, queries and resamples.

    python benchmarks/bench_significance.py
    python benchmarks/bench_significance.py --models 10 --metrics 4 --queries 10000 --resamples 10000
    python benchmarks/bench_significance.py --tests    # the all-pairs run only

The per-query results of ``--models`` models on ``--queries`` queries of 20
documents (graded labels, scores = label + noise of a different size per
model) are computed once with ``evaluate(..., average=None)`` for the first
``--metrics`` of ndcg@10, map@100, mrr@10, recall@100 (not timed). Then
``compare_results`` runs once per configuration:

* every model against the first, each test (permutation, t, bootstrap,
  wilcoxon): the BCa intervals (``--resamples`` bootstrap resamples of the
  queries) and the test;
* all pairs (``pairs="all"``): the pairwise sign-flip tests and the
  randomized Tukey HSD, ``--resamples`` shuffles of every query.

Columns: seconds (wall clock, one call), CPU seconds (of every thread of the
process during the call: on a machine shared with other jobs, what the call
itself cost), traced peak (tracemalloc: NumPy's buffers allocated during the
call, beyond the inputs) and the size of the per-query input (models x
metrics x queries float64) for scale.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from _common import (
    add_json_option, machine_line, markdown_table, mb, package_revision, run_info, table,
    traced_peak_bytes, write_results,
)  # fmt: skip

import sklearn_rank_metrics
from sklearn_rank_metrics import compare_results, evaluate

METRICS = ("ndcg@10", "map@100", "mrr@10", "recall@100")
DOCS_PER_QUERY = 20


def per_query_results(n_models, metrics, n_queries, seed=0):
    rng = np.random.default_rng(seed)
    rows = n_queries * DOCS_PER_QUERY
    qid = np.repeat(np.arange(n_queries), DOCS_PER_QUERY)
    y_true = rng.choice(5, size=rows, p=(0.5, 0.25, 0.13, 0.08, 0.04)).astype(np.float64)
    results = {}
    for model in range(n_models):
        y_score = y_true + (1.0 + 0.05 * model) * rng.standard_normal(rows)
        results[f"model {model}"] = evaluate(y_true, y_score, qid=qid, metrics=metrics, average=None)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--metrics", type=int, default=4, choices=range(1, len(METRICS) + 1))
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--tests", nargs="*", default=["permutation", "t", "bootstrap", "wilcoxon"],
        help="tests of the baseline runs; none (a bare --tests): the all-pairs run only",
    )  # fmt: skip
    parser.add_argument("--no-all-pairs", action="store_true", help="skip the Tukey HSD run")
    add_json_option(parser)
    args = parser.parse_args(argv)

    metrics = METRICS[: args.metrics]
    results = per_query_results(args.models, metrics, args.queries)
    input_bytes = args.models * len(metrics) * args.queries * 8
    runs = [(f"baseline, test={test}", {"test": test}) for test in args.tests]
    if not args.no_all_pairs:
        runs.append(("all pairs (Tukey HSD)", {"pairs": "all"}))

    rows = []
    for label, options in runs:
        def call(options=options):
            return compare_results(results, n_resamples=args.resamples, random_state=0, **options)

        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        peak = traced_peak_bytes(call)
        rows.append([label, f"{seconds:.2f}", f"{cpu:.2f}", mb(peak)])
        print(f"{label}: {seconds:.2f} s, CPU {cpu:.2f} s, traced peak {mb(peak)} MB", file=sys.stderr)

    print(
        f"compare_results: {args.models} models x {len(metrics)} metrics x {args.queries} queries x "
        f"{args.resamples} resamples; per-query input {mb(input_bytes)} MB"
    )
    tree = Path(sklearn_rank_metrics.__file__).resolve().parents[1]  # the package timed (PYTHONPATH)
    print(f"package {package_revision(tree)}; {machine_line()}")
    print()
    header = ["configuration", "seconds", "CPU seconds", "traced peak (MB)"]
    print(markdown_table(header, rows))
    write_results(__file__, run_info(argv, tree), {"runs": table(header, rows)}, vars(args), args.json)


if __name__ == "__main__":
    main()
