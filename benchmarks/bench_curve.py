"""metric@k curves: every cutoff k = 1 .. k_max in one pass, against one metric call at k = 10.

    python benchmarks/bench_curve.py --rows 1e5 1e6 1e7 --k-max 100
    python benchmarks/bench_curve.py --rows 1e6 --shape skewed --metrics ndcg

Data as in ``_common.generate`` (~100 documents a query, interleaved int
query ids, graded labels 0-4, tie-free float64 scores); with ``--shape
skewed`` the same labels and scores in queries of ``SHORT`` documents but
one of ``LONG`` (many short lists, one longer than ``k_max``: a curve padded
to ``(n_queries, min(k_max, longest list))`` would take ``k_max / SHORT``
times the input); and the same with
the scores cut to ``--score-levels`` distinct values (heavy ties, so that
every query's ranking is made of tie blocks: the expected value over their
orderings at every cutoff). For each size and kind of scores one fresh
Python process, which puts this checkout first on ``sys.path``, times per
metric (``--metrics``), alternating the calls over ``--repeat`` rounds and
keeping each one's median:

* ``function(k=10)``: the metric's public function at one cutoff (the
  baseline the target is stated against);
* ``curve``: the engine's values at every cutoff ``1 .. k_max`` (what
  ``RankingCurveDisplay.from_predictions`` computes before drawing);
* ``display``: ``RankingCurveDisplay.from_predictions`` itself, drawing on
  matplotlib's Agg backend (the figure closed after each call), when
  matplotlib is installed.

and the tracemalloc peak of one more call of the first two (the memory
growth beyond the inputs). The curve's value at
``k = 10`` is checked against the function's (to 1e-12, printed loudly
when it differs).
"""

import argparse
import inspect
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as common  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHORT, LONG = 10, 1000  # documents of the skewed shape's queries: all short but one
FUNCTIONS = {
    "ndcg": "ndcg_score",
    "map": "map_score",
    "mrr": "mrr_score",
    "recall": "recall_at_k_score",
    "precision": "precision_at_k_score",
    "hit_rate": "hit_rate_score",
}


def child(directory, metrics, k_max, repeat, score_levels):
    sys.path.insert(0, str(ROOT))
    import sklearn_rank_metrics as srm
    from sklearn_rank_metrics._engine._definitions import METRICS

    try:
        from sklearn_rank_metrics.plot._curve_values import _curve_results
    except ImportError:  # checkouts before the run layer
        from sklearn_rank_metrics.plot._curve import _curve_results

    assert Path(srm.__file__).resolve().is_relative_to(ROOT), srm.__file__
    y_true, y_score, qid = common.load_data(directory)
    if score_levels:
        y_score = np.floor(y_score * score_levels) / score_levels
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    # Warm-up: lazy imports, the thread pool.
    srm.ndcg_score(y_true[:1000], y_score[:1000], qid=qid[:1000], k=10)
    result = {"rows": int(y_true.shape[0]), "metrics": {}}
    for metric in metrics:
        function = getattr(srm, FUNCTIONS[metric])

        def one_call():
            return function(y_true, y_score, qid=qid, k=10)

        def curve():
            if "per_cutoff" in inspect.signature(_curve_results).parameters:
                from sklearn_rank_metrics._engine._options import Options
                from sklearn_rank_metrics._engine._pipeline import CurveRequests
                from sklearn_rank_metrics._engine.prepare._prepare import Inputs
                from sklearn_rank_metrics._engine.run._curve import curve_results
                from sklearn_rank_metrics.metrics._query_results import query_results

                requests = CurveRequests(METRICS[metric], k_max)
                per_cutoff = curve_results(requests, Inputs(y_true, y_score, qid), Options())
                computed = _curve_results(METRICS[metric], map(query_results, per_cutoff))
            elif "evaluate" in inspect.signature(_curve_results).parameters:
                from sklearn_rank_metrics._engine._pipeline import evaluate_requests

                def evaluate(requests, reduce):
                    return evaluate_requests(
                        requests, y_true, y_score, qid=qid, curve=k_max, reduce=reduce
                    )

                computed = _curve_results(METRICS[metric], k_max, evaluate)
            else:  # checkouts before from_run: the curve took the inputs themselves
                computed = _curve_results(METRICS[metric], k_max, y_true, y_score, qid=qid)
            # Checkouts before the per-cutoff reduction returned (results, means).
            return computed[0] if isinstance(computed[0], np.ndarray) else computed[1]

        def display():
            shown = srm.RankingCurveDisplay.from_predictions(
                y_true, y_score, qid=qid, metric=metric, k_max=k_max
            )
            plt.close(shown.figure_)
            return shown.values_

        calls = [one_call, curve] + ([display] if plt is not None else [])
        medians, _, results = common.median_times(calls, repeat)
        row = {
            "function_s": medians[0],
            "curve_s": medians[1],
            "display_s": medians[2] if plt is not None else None,
            "value_at_10": results[0],
            "curve_at_10": float(results[1][9]),
            "function_peak": common.traced_peak_bytes(one_call),
            "curve_peak": common.traced_peak_bytes(curve),
        }
        result["metrics"][metric] = row
    common.emit(result)


def skewed(rows, seed):
    """``_common.generate``'s labels and scores in ``rows // SHORT`` short queries and one long one."""
    y_true, y_score, _ = common.generate(rows, seed)
    n_short = (rows - LONG) // SHORT
    qid = np.append(np.repeat(np.arange(n_short), SHORT), np.full(rows - n_short * SHORT, n_short))
    return y_true, y_score, np.random.default_rng(seed).permutation(qid)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=["1e5", "1e6", "1e7"])
    parser.add_argument("--k-max", type=int, default=100)
    parser.add_argument("--metrics", nargs="+", default=list(FUNCTIONS), choices=list(FUNCTIONS))
    parser.add_argument("--repeat", type=int, default=5, help="rounds of alternating calls (median)")
    parser.add_argument("--score-levels", type=int, default=20, help="distinct scores of the tied case")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--shape", choices=["uniform", "skewed"], default="uniform",
        help=f"uniform: 100 documents a query; skewed: {SHORT} a query but one of {LONG}",
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--child", nargs=2, metavar=("DIRECTORY", "SCORE_LEVELS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.metrics, args.k_max, args.repeat, int(args.child[1]))
        return

    print(common.machine_line())
    print(f"package at {common.package_revision()}; versions {common.versions(['numpy', 'sklearn'])}")
    print(f"k_max={args.k_max}; {args.shape} queries; median of {args.repeat} alternating rounds per call\n")
    header = [
        "metric", "rows", "scores", "function(k=10) s", f"curve k=1..{args.k_max} s", "curve / function",
        "display s", "traced peak MB: function / curve", "other CPU",
    ]  # fmt: skip
    table = []
    with tempfile.TemporaryDirectory(prefix="bench_curve_") as tmp:
        for text in args.rows:
            rows = common.parse_rows(text)
            directory = Path(tmp) / str(rows)
            if args.shape == "skewed":
                common.write_layouts(directory, *skewed(rows, args.seed))
            else:
                common.write_data(directory, rows, args.seed)
            for levels in (0, args.score_levels):
                command = [
                    __file__, "--child", str(directory), str(levels), "--k-max", str(args.k_max),
                    "--repeat", str(args.repeat), "--metrics", *args.metrics,
                ]  # fmt: skip
                result = common.run_child(command, args.timeout, cwd=tmp)
                scores = "tie-free" if levels == 0 else f"{levels} levels (ties)"
                if "error" in result:
                    table.append([", ".join(args.metrics), f"{rows:.0e}", scores, result["error"]])
                    continue
                for metric, row in result["metrics"].items():
                    if abs(row["value_at_10"] - row["curve_at_10"]) > 1e-12:
                        print(f"MISMATCH {metric} at {rows} rows: {row['value_at_10']} != "
                              f"{row['curve_at_10']}")  # fmt: skip
                    display = "" if row["display_s"] is None else f"{row['display_s']:.3f}"
                    table.append([
                        metric, f"{rows:.0e}", scores, f"{row['function_s']:.3f}",
                        f"{row['curve_s']:.3f}", f"{row['curve_s'] / row['function_s']:.2f}",
                        display,
                        f"{common.mb(row['function_peak'])} / {common.mb(row['curve_peak'])}",
                        f"{result['other_cpu']:.2f}",
                    ])  # fmt: skip
                print(common.markdown_table(header, table[-len(result["metrics"]):]), flush=True)
    print()
    print(common.markdown_table(header, table))


if __name__ == "__main__":
    main()
