"""Seconds and peak memory of every metric function.

    python benchmarks/bench_metrics.py --rows 1e5 1e6 1e7
    python benchmarks/bench_metrics.py --rows 1e6 --score-levels 20 --ties first

Data as in ``_common.generate``: ~100 documents a query (exactly 100, so
that it also fits a 2-D array), interleaved int query ids, graded labels
0-4 (float64), tie-free float64 scores; with ``--score-levels N`` the
scores are cut to N distinct values (heavy ties), and ``--ties`` is passed
to every function (default ``"average"``). Each measurement runs in its own
fresh Python process on the same data (.npy files in a temporary folder):

* seconds: best of ``--repeat`` calls of the public function on the flat
  arrays with ``qid=`` (validation, grouping and sorting included);
* traced peak: tracemalloc peak of one more call -- NumPy reports its
  buffers to tracemalloc, and the inputs exist before tracing starts, so
  this is the memory growth beyond the inputs;
* peak RSS: the process's high-water mark (VmHWM) over the timed calls,
  inputs, interpreter and imports included;
* x argsort: seconds divided by one ``np.argsort(y_score)`` (best of
  ``--repeat``) timed in its own process in the same run.

scikit-learn's ``sklearn.metrics.ndcg_score(Y, S, k=10)`` runs on the same
data as ``(n_queries, 100)`` arrays built before timing (the reshape, a
stable argsort of qid and two takes, is a separate row); its value is
checked against this package's ``ndcg_score(..., k=10)``.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as common  # noqa: E402

# key: (label, function name in sklearn_rank_metrics, keyword arguments)
METRICS = {
    "ndcg@10": ("ndcg_score(k=10)", "ndcg_score", {"k": 10}),
    "dcg@10": ("dcg_score(k=10)", "dcg_score", {"k": 10}),
    "cg@10": ("cg_score(k=10)", "cg_score", {"k": 10}),
    "mrr@10": ("mrr_score(k=10)", "mrr_score", {"k": 10}),
    "map@100": ("map_score(k=100)", "map_score", {"k": 100}),
    "precision@10": ("precision_at_k_score(k=10)", "precision_at_k_score", {"k": 10}),
    "recall@100": ("recall_at_k_score(k=100)", "recall_at_k_score", {"k": 100}),
    "f1@10": ("f1_at_k_score(k=10)", "f1_at_k_score", {"k": 10}),
    "recall_cap@10": ("recall_cap_score(k=10)", "recall_cap_score", {"k": 10}),
    "hit_rate@10": ("hit_rate_score(k=10)", "hit_rate_score", {"k": 10}),
    "r_precision": ("r_precision_score()", "r_precision_score", {}),
    "rc": ("rank_correlation_score() (RC)", "rank_correlation_score", {}),
    "kendall": ("rank_correlation_score(method='kendall')", "rank_correlation_score", {"method": "kendall"}),
}  # fmt: skip
REFERENCES = {
    "argsort": "numpy `argsort(y_score)` (reference)",
    "sklearn-2d": "scikit-learn `ndcg_score(k=10)`, 2-D (n_queries, 100)",
    "to-2d": "building the 2-D arrays for scikit-learn (argsort qid + take)",
}


def child_main(key, data_dir, repeat, ties, score_levels):
    y_true, y_score, qid = common.load_data(data_dir)
    if score_levels:
        y_score = np.floor(y_score * score_levels)  # scores in [0, 1): N distinct values
    input_bytes = y_true.nbytes + y_score.nbytes + qid.nbytes

    def to_2d():
        order = np.argsort(qid, kind="stable")
        shape = (qid.size // common.DOCS_PER_QUERY, common.DOCS_PER_QUERY)
        return y_true[order].reshape(shape), y_score[order].reshape(shape)

    if key == "argsort":
        def run():
            np.argsort(y_score)
    elif key == "to-2d":
        run = to_2d
    elif key == "sklearn-2d":
        from sklearn.metrics import ndcg_score

        true_2d, score_2d = to_2d()
        input_bytes = true_2d.nbytes + score_2d.nbytes

        def run():
            return ndcg_score(true_2d, score_2d, k=10)
    else:
        import sklearn_rank_metrics

        _, name, kwargs = METRICS[key]
        function = getattr(sklearn_rank_metrics, name)

        def run():
            return function(y_true, y_score, qid=qid, ties=ties, **kwargs)

    baseline = common.reset_peak_rss()
    seconds, value = common.best_time(run, repeat)
    peak = common.peak_rss_bytes()
    common.emit({
        "seconds": seconds,
        "value": float(value) if isinstance(value, (float, np.floating)) else None,
        "peak_rss": peak,
        "rss_growth": peak - baseline,
        "traced_peak": common.traced_peak_bytes(run),
        "input_bytes": input_bytes,
    })  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=["1e5", "1e6", "1e7"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="calls per measurement (best is kept)")
    parser.add_argument("--metrics", nargs="*", choices=sorted(METRICS), help="a subset (default all)")
    parser.add_argument("--no-sklearn", action="store_true", help="leave out scikit-learn's ndcg_score")
    parser.add_argument("--ties", default="average", help="the ties option of every function")
    parser.add_argument(
        "--score-levels", type=int, default=0, metavar="N",
        help="cut the scores to N distinct values (heavy ties); 0 keeps them tie-free",
    )
    parser.add_argument("--timeout", type=float, default=600, help="seconds per measurement process")
    parser.add_argument(
        "--wait-quiet", type=float, default=0, metavar="SECONDS",
        help="before each process, wait up to SECONDS for other work to drop under 0.3 cores",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    common.add_json_option(parser)
    args = parser.parse_args(argv)

    if args.child:
        child_main(args.child, args.data, args.repeat, args.ties, args.score_levels)
        return 0

    info = common.run_info(argv)
    raw = {}
    keys = ["argsort", *(args.metrics or METRICS)]
    if not args.no_sklearn:
        keys += ["sklearn-2d", "to-2d"]
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    machine = common.machine_line()
    found = common.versions(["sklearn_rank_metrics", "numpy", "scipy", "sklearn"])
    header = [
        "function", "rows", "seconds", "rows/s", "x argsort", "traced peak MB (x input)",
        "peak RSS MB", "mean", "other CPU",
    ]  # fmt: skip
    rows_out, problems = [], []
    for text in args.rows:
        rows = common.parse_rows(text)
        results = {}
        with tempfile.TemporaryDirectory(prefix="bench_metrics_") as data_dir:
            common.write_data(data_dir, rows, args.seed)
            for key in keys:
                common.wait_for_quiet(args.wait_quiet)
                results[key] = common.run_child(
                    [os.path.abspath(__file__), "--child", key, "--data", data_dir,
                     "--repeat", str(args.repeat), "--ties", args.ties,
                     "--score-levels", str(args.score_levels)],
                    args.timeout,
                )  # fmt: skip
                shown = results[key].get("seconds", results[key].get("error"))
                print(f"# {rows:.0e} rows, {key}: {shown}", file=sys.stderr)
        raw[str(rows)] = results
        reference = results["argsort"].get("seconds")
        for key in keys:
            label = REFERENCES.get(key) or f"`{METRICS[key][0]}`"
            result = results[key]
            if "seconds" not in result:
                problems.append(f"{rows:.0e} rows, {key}: {result.get('error')}")
                rows_out.append([label, f"{rows:.0e}", "FAILED", "", "", "", "", "", ""])
                continue
            seconds, traced = result["seconds"], result["traced_peak"]
            value = result.get("value")
            rows_out.append([
                label,
                f"{rows:.0e}",
                f"{seconds:.3f}",
                f"{rows / seconds:,.3g}",
                f"{seconds / reference:.2f}" if reference else "",
                f"{common.mb(traced)} ({traced / result['input_bytes']:.2f}x)",
                common.mb(result["peak_rss"]),
                "" if value is None else f"{value:.6f}",
                f"{result['other_cpu']:.2f}",
            ])  # fmt: skip
        ours = results.get("ndcg@10", {}).get("value")
        theirs = results.get("sklearn-2d", {}).get("value")
        comparable = args.ties == "average" or not args.score_levels  # ignore_ties=False
        if comparable and ours is not None and theirs is not None and not abs(ours - theirs) <= 1e-9:
            problems.append(f"{rows:.0e} rows: ndcg@10 {ours!r} but scikit-learn {theirs!r}")

    print(f"Run {started}; {machine}; package at {common.package_revision()}")
    print("Versions: " + ", ".join(f"{name} {version}" for name, version in found.items()))
    print(f"Best of {args.repeat} calls per row; each row in its own process.")
    print(f"ties={args.ties!r}; scores " + (
        f"cut to {args.score_levels} distinct values" if args.score_levels else "tie-free"
    ) + ".")
    print()
    print(common.markdown_table(header, rows_out))
    print()
    print(
        "Inputs: y_true and y_score float64, qid int64 (24 bytes a row; scikit-learn's 2-D "
        "arrays 16 bytes a row). Traced peak: tracemalloc peak of one call, beyond the inputs. "
        "Other CPU: cores' worth of other processes' work on the machine while the row's "
        "process ran (0 = quiet; 2 cores in all, so above ~0.3 the row's time is inflated)."
    )
    if problems:
        print()
        print("**PROBLEMS:**")
        for line in problems:
            print(f"- {line}")
        print(f"!!! {len(problems)} problem(s); see the end of the table !!!", file=sys.stderr)
    raw = {"versions": found, "sizes": raw, "problems": problems}
    common.write_results(__file__, info, {"functions": common.table(header, rows_out)}, raw, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
