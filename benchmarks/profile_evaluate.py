"""Where ``evaluate`` spends its time: cProfile of one call on the benchmark data.

    python benchmarks/profile_evaluate.py --rows 1e7 [--grouped] [--metrics ndcg@10 map@100 ...]

Prints the top functions by own time (tottime) and by cumulative time, next
to one ``np.argsort(y_score)`` for scale. The data is ``_common.generate``'s
(the same as bench_anchors.py and bench_metrics.py).
"""

import argparse
import cProfile
import io
import os
import pstats
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as common  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1e7")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grouped", action="store_true", help="rows in contiguous query blocks")
    parser.add_argument("--metrics", nargs="+", default=["ndcg@10", "map@100", "mrr@10", "recall@100"])
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--single-thread", action="store_true",
        help="one thread (sklearn_rank_metrics.config_context), so cProfile sees all the work",
    )
    args = parser.parse_args(argv)

    import sklearn_rank_metrics
    from sklearn_rank_metrics import evaluate

    if args.single_thread:
        sklearn_rank_metrics.set_config(n_threads=1)

    rows = common.parse_rows(args.rows)
    y_true, y_score, qid = common.generate(rows, args.seed)
    if args.grouped:
        order = np.argsort(qid, kind="stable")
        y_true, y_score, qid = y_true[order], y_score[order], qid[order]

    argsort_s, _ = common.best_time(lambda: np.argsort(y_score), 3)
    evaluate(y_true[:1000], y_score[:1000], qid=qid[:1000], metrics=args.metrics)  # warm caches
    start = time.perf_counter()
    evaluate(y_true, y_score, qid=qid, metrics=args.metrics)
    plain_s = time.perf_counter() - start

    profiler = cProfile.Profile()
    profiler.enable()
    evaluate(y_true, y_score, qid=qid, metrics=args.metrics)
    profiler.disable()

    print(
        f"{rows:.0e} rows, {'grouped' if args.grouped else 'interleaved'} qids, "
        f"metrics {args.metrics}{', single thread' if args.single_thread else ''}"
    )
    print(
        "(cProfile sees the main thread only: work on the package's pool threads shows up "
        "as waiting unless --single-thread)"
    )
    print(f"one np.argsort(y_score), best of 3: {argsort_s:.3f} s")
    print(f"evaluate without profiler: {plain_s:.3f} s ({plain_s / argsort_s:.2f}x argsort)")
    print(f"package at {common.package_revision()}")
    for key in ("tottime", "cumulative"):
        stream = io.StringIO()
        stats = pstats.Stats(profiler, stream=stream)
        stats.strip_dirs().sort_stats(key).print_stats(args.top)
        print(f"\n== top {args.top} by {key} ==")
        text = stream.getvalue()
        print(text[text.index("   ncalls"):].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
