"""Compare sklearn-rank-metrics with other ranking-evaluation tools.

    python benchmarks/bench_anchors.py --rows 1e5 1e6 1e7

For each size the same data (``_common.generate``: ~100 documents a query,
interleaved int query ids, graded labels 0-4, tie-free float scores) is
written to a temporary folder as .npy files, and every tool runs in its own
fresh Python process, one after another, so that time and memory are its own:

* seconds: end to end from the flat NumPy arrays (y_true, y_score, qid) to
  the four means, conversion to the tool's input format included; best of
  ``--repeat`` calls for this package and NumPy, of ``--peer-repeat`` calls
  for the peers (they are slow; their conversion dominates);
* peak RSS: the process's high-water mark (VmHWM); RSS growth: that minus
  the RSS once the inputs were loaded and the tool imported (and, for ranx,
  its numba functions compiled on a tiny input), where the high-water mark
  is reset (``/proc/self/clear_refs``);
* traced peak: for this package and NumPy, the tracemalloc peak of one more
  call (NumPy reports its buffers to tracemalloc): the memory growth beyond
  the inputs, which the target compares with the inputs' bytes (the
  peers' memory growth is the RSS growth);
* x argsort: seconds divided by one ``np.argsort(y_score)`` (default kind,
  best of 3) timed in its own process in the same run. The package's
  processes also time an argsort alternately with their own calls; that
  ratio (in the notes) is the steadier one on a shared machine.

Every tool's means are compared with this package's to 1e-9; a mismatch is
printed loudly (and marked in the table) but does not stop the run.

Metric mapping (the package's ``ndcg@10, map@100, mrr@10, recall@100``):

* pytrec_eval (trec_eval 9): ``ndcg_cut.10`` (labels as linear gains, ideal
  over all judged documents -- the qrels hold every labelled document,
  zeros included, as the package's ideal uses every document of the query),
  ``map_cut.100`` (divides by all relevant R, like the package), ``recall.100``
  and ``recip_rank``. trec_eval's recip_rank has no cutoff, so it is
  evaluated on a second run holding each query's top 10 documents only,
  which makes it RR@10 (0 without a relevant document in the top 10).
  trec_eval sorts by score descending, ties by docno: moot on tie-free scores.
  Relevant means label >= 1 (trec_eval's default ``-l 1``).
* ranx: ``ndcg@10`` (Jarvelin-Kekalainen linear gain; ``ndcg_burges`` is the
  exponential one), ``map@100``, ``mrr@10``, ``recall@100``, rel_lvl 1.
  Qrels/Run are built from the same per-query dicts as pytrec_eval (ranx's
  own ``from_df`` builds exactly such dicts with a pandas groupby first).
* ir_measures: ``nDCG@10`` (pytrec_eval provider, ndcg_cut_10), ``AP@100``
  (map_cut_100), ``RR@10`` (msmarco provider: trec_eval has no RR cutoff),
  ``R@100`` (recall_100); fed the same per-query dicts.
* scikit-learn: ``ndcg_score(Y, S, k=10)`` on the data reshaped to
  ``(n_queries, 100)`` (rows sorted by qid first, included in the time);
  NDCG@10 only, ties averaged (its default ``ignore_ties=False``).
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as common  # noqa: E402

FOUR = ("ndcg@10", "map@100", "mrr@10", "recall@100")
TWELVE = (
    "ndcg@10", "dcg@10", "cg@10", "mrr@10", "map@100", "precision@10",
    "recall@100", "f1@10", "recall_cap@10", "hit_rate@10", "r_precision", "rc",
)  # fmt: skip
TOLERANCE = 1e-9

# name: (label in the table, metrics computed, repeat kind, default max rows or None)
TOOLS = {
    "argsort": ("numpy `argsort(y_score)` (reference)", "-", "own", None),
    "srm": ("sklearn-rank-metrics `evaluate`, interleaved qids", "4", "own", None),
    "srm-grouped": ("sklearn-rank-metrics `evaluate`, contiguous query blocks", "4", "own", None),
    "srm-1": ("sklearn-rank-metrics `evaluate`, 1 metric (ndcg@10)", "1", "own", None),
    "srm-12": ("sklearn-rank-metrics `evaluate`, 12 metrics", "12", "own", None),
    "sklearn": ("scikit-learn `ndcg_score`, 2-D (reshape included)", "1 (ndcg@10)", "peer", None),
    "pytrec_eval": ("pytrec_eval (dicts built from arrays)", "4", "peer", None),
    "ranx": ("ranx (Qrels/Run built from dicts)", "4", "peer", None),
    "ir_measures": ("ir_measures (fed dicts)", "4", "peer", None),
    "argsort-end": ("numpy `argsort(y_score)` again, end of run (drift check)", "-", "own", None),
}
PACKAGE_TOOLS = ("srm", "srm-grouped", "srm-1", "srm-12")
TRACED_TOOLS = ("argsort", "argsort-end", *PACKAGE_TOOLS)


# ---------------------------------------------------------------- child side


def trec_dicts(y_true, y_score, qid, top=None):
    """Per-query ``{qid: {docno: label}}`` / ``{qid: {docno: score}}`` dicts, as TREC tools take.

    Document numbers are the row numbers as strings. With ``top``, the rows
    are sorted by (query, score descending) and a third dict holds each
    query's first ``top`` documents only (a run cut at ``top``).
    """
    if top is None:
        order = np.argsort(qid, kind="stable")
    else:
        order = np.lexsort((-y_score, qid))
    sorted_qid = qid[order]
    starts = np.flatnonzero(np.r_[True, sorted_qid[1:] != sorted_qid[:-1]])
    ends = np.r_[starts[1:], sorted_qid.size].tolist()
    query_names = [str(q) for q in sorted_qid[starts].tolist()]
    docnos = list(map(str, order.tolist()))
    labels = y_true[order].astype(np.int64).tolist()
    scores = y_score[order].tolist()
    qrels, run, run_top = {}, {}, {}
    for name, start, end in zip(query_names, starts.tolist(), ends):
        docs = docnos[start:end]
        qrels[name] = dict(zip(docs, labels[start:end]))
        run[name] = dict(zip(docs, scores[start:end]))
        if top is not None:
            run_top[name] = dict(zip(docs[:top], scores[start : start + top]))
    return qrels, run, run_top


def child_argsort(y_true, y_score, qid):
    def run():
        np.argsort(y_score)
        return {}

    return run, {}


def child_package(tool):
    def prepare(y_true, y_score, qid):
        from sklearn_rank_metrics import evaluate

        metrics = {"srm-1": ("ndcg@10",), "srm-12": TWELVE}.get(tool, FOUR)
        return lambda: evaluate(y_true, y_score, qid=qid, metrics=metrics), {}

    return prepare


def child_sklearn(y_true, y_score, qid):
    from sklearn.metrics import ndcg_score

    def run():
        order = np.argsort(qid, kind="stable")
        sizes = np.bincount(qid)
        if sizes.min() != sizes.max():
            raise ValueError("scikit-learn's 2-D layout needs equal list lengths")
        shape = (sizes.size, sizes[0])
        return {
            "ndcg@10": ndcg_score(
                y_true[order].reshape(shape), y_score[order].reshape(shape), k=10
            )
        }

    return run, {}


def child_pytrec_eval(y_true, y_score, qid):
    import pytrec_eval

    phases = {}

    def run():
        start = time.perf_counter()
        qrels, full_run, top10_run = trec_dicts(y_true, y_score, qid, top=10)
        phases["convert_s"] = time.perf_counter() - start
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, {"ndcg_cut.10", "map_cut.100", "recall.100", "recip_rank"}
        )
        full = evaluator.evaluate(full_run)
        top10 = evaluator.evaluate(top10_run)  # recip_rank on the top 10 = RR@10
        return {
            "ndcg@10": np.mean([r["ndcg_cut_10"] for r in full.values()]),
            "map@100": np.mean([r["map_cut_100"] for r in full.values()]),
            "mrr@10": np.mean([r["recip_rank"] for r in top10.values()]),
            "recall@100": np.mean([r["recall_100"] for r in full.values()]),
        }

    return run, phases


def child_ranx(y_true, y_score, qid):
    import ranx

    # compile (or load from numba's cache) the metric kernels outside the timing
    # (numba specialises on the docno string width, so the tiny input uses the same width)
    start = time.perf_counter()
    width = len(str(qid.size - 1))
    a, b = str(10 ** (width - 1)), str(10 ** (width - 1) + 1)
    ranx.evaluate(ranx.Qrels({"q": {a: 1, b: 0}}), ranx.Run({"q": {a: 0.5, b: 0.7}}), list(FOUR))
    phases = {"warmup_s": time.perf_counter() - start}

    def run():
        start = time.perf_counter()
        qrels, full_run, _ = trec_dicts(y_true, y_score, qid)
        qrels, full_run = ranx.Qrels(qrels), ranx.Run(full_run)
        phases["convert_s"] = time.perf_counter() - start
        means = ranx.evaluate(qrels, full_run, list(FOUR))
        return {name: means[name] for name in FOUR}

    return run, phases


def child_ir_measures(y_true, y_score, qid):
    import ir_measures
    from ir_measures import AP, RR, R, nDCG

    phases = {}
    measures = {"ndcg@10": nDCG @ 10, "map@100": AP @ 100, "mrr@10": RR @ 10, "recall@100": R @ 100}

    def run():
        start = time.perf_counter()
        qrels, full_run, _ = trec_dicts(y_true, y_score, qid)
        phases["convert_s"] = time.perf_counter() - start
        means = ir_measures.calc_aggregate(list(measures.values()), qrels, full_run)
        return {name: means[measure] for name, measure in measures.items()}

    return run, phases


CHILDREN = {
    "argsort": child_argsort,
    "argsort-end": child_argsort,
    "sklearn": child_sklearn,
    "pytrec_eval": child_pytrec_eval,
    "ranx": child_ranx,
    "ir_measures": child_ir_measures,
    **{tool: child_package(tool) for tool in PACKAGE_TOOLS},
}


def child_main(tool, data_dir, repeat):
    y_true, y_score, qid = common.load_data(data_dir, grouped=(tool == "srm-grouped"))
    input_bytes = y_true.nbytes + y_score.nbytes + qid.nbytes
    run, phases = CHILDREN[tool](y_true, y_score, qid)
    baseline = common.reset_peak_rss()
    if tool in PACKAGE_TOOLS:
        # alternate with argsort in this process too: a ratio robust to load drift
        argsort_s = seconds = float("inf")
        for _ in range(repeat):
            argsort_s = min(argsort_s, common.best_time(lambda: np.argsort(y_score), 1)[0])
            call_s, means = common.best_time(run, 1)
            seconds = min(seconds, call_s)
        phases["argsort_s"] = argsort_s
    else:
        seconds, means = common.best_time(run, repeat)
    peak = common.peak_rss_bytes()
    result = {
        "seconds": seconds,
        "repeat": repeat,
        "means": {k: float(v) for k, v in means.items()},
        "peak_rss": peak,
        "rss_growth": peak - baseline,
        "input_bytes": input_bytes,
        **phases,
    }
    if tool in TRACED_TOOLS:
        result["traced_peak"] = common.traced_peak_bytes(run)
    common.emit(result)


# --------------------------------------------------------------- parent side


def parse_max_rows(items):
    limits = {tool: spec[3] for tool, spec in TOOLS.items()}
    for item in items:
        tool, _, value = item.partition("=")
        if tool not in TOOLS or not value:
            raise SystemExit(f"--max-rows takes TOOL=ROWS with TOOL in {sorted(TOOLS)}, got {item!r}")
        limits[tool] = None if value.lower() in ("none", "inf") else int(float(value))
    return limits


def compare(means, reference):
    """Largest |difference| over the metrics both have, and the offending names."""
    shared = [name for name in means if name in reference]
    if not shared:
        return None, []
    diffs = {name: abs(means[name] - reference[name]) for name in shared}
    bad = [f"{n}: {means[n]:.12f} vs {reference[n]:.12f}" for n in shared if not diffs[n] <= TOLERANCE]
    return max(diffs.values()), bad


def run_size(rows, args, limits, peers_available):
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_anchors_") as data_dir:
        start = time.perf_counter()
        input_bytes = common.write_data(data_dir, rows, args.seed)
        print(f"# {rows:.0e} rows: data written in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        for tool, (_, _, kind, _) in TOOLS.items():
            limit = limits[tool]
            if tool in args.skip:
                results[tool] = {"skipped": "skipped (--skip)"}
            elif tool in peers_available and not peers_available[tool]:
                results[tool] = {"skipped": "not installed"}
            elif limit is not None and rows > limit:
                results[tool] = {"skipped": f"skipped above {limit:.0e} rows (--max-rows {tool}=N)"}
            else:
                repeat = args.repeat if kind == "own" else args.peer_repeat
                common.wait_for_quiet(args.wait_quiet)
                results[tool] = common.run_child(
                    [os.path.abspath(__file__), "--child", tool, "--data", data_dir,
                     "--repeat", str(repeat)],
                    args.timeout,
                )  # fmt: skip
            status = results[tool].get("seconds", results[tool].get("skipped", results[tool].get("error")))
            print(f"#   {tool}: {status}", file=sys.stderr)
    return input_bytes, results


REFERENCE_ORDER = ("srm", "srm-grouped", "srm-12", "pytrec_eval", "ranx", "ir_measures")


def table_rows(rows, input_bytes, results, mismatches):
    reference_s = results["argsort"].get("seconds")
    # the package's 4-metric row is the reference; another tool if it did not run
    reference = next(
        (tool for tool in REFERENCE_ORDER if set(FOUR) <= set(results[tool].get("means", {}))),
        None,
    )
    reference_means = results[reference]["means"] if reference else {}
    if reference is None:
        mismatches.append(f"{rows:.0e} rows: no tool gave all four means; nothing was compared")
    elif reference != "srm":
        mismatches.append(f"{rows:.0e} rows: the package's row did not run; means compared with {reference}")
    out = []
    for tool, (label, metrics, _, _) in TOOLS.items():
        result = results[tool]
        if "seconds" not in result:
            note = result.get("skipped") or f"FAILED: {result.get('error')}"
            out.append([label, metrics, f"{rows:.0e}", "", "", "", "", "", "", note])
            continue
        seconds = result["seconds"]
        notes = []
        if "convert_s" in result:
            notes.append(f"conversion {result['convert_s']:.2f} s")
        if "warmup_s" in result:
            notes.append(f"+ {result['warmup_s']:.1f} s numba warm-up before (not counted)")
        if result.get("repeat", 1) > 1:
            notes.append(f"best of {result['repeat']}")
        if "argsort_s" in result:
            notes.append(f"{seconds / result['argsort_s']:.2f}x an argsort timed alternately in its process")
        notes.append(f"other CPU {result['other_cpu']:.1f}")
        agreement = ""
        if result["means"] and tool != reference:
            worst, bad = compare(result["means"], reference_means)
            if bad:
                agreement = f"**MISMATCH** {worst:.1e}"
                mismatches.append(f"{rows:.0e} rows, {tool}: " + "; ".join(bad))
            elif worst is not None:
                agreement = f"yes ({worst:.0e})"
        elif tool == reference:
            agreement = "reference"
        growth = result.get("traced_peak", result["rss_growth"])
        out.append([
            label,
            metrics,
            f"{rows:.0e}",
            f"{seconds:.3f}",
            f"{rows / seconds:,.3g}",
            f"{seconds / reference_s:.2f}" if reference_s else "",
            common.mb(result["peak_rss"]),
            f"{common.mb(growth)} ({growth / input_bytes:.2f}x)"
            + ("" if "traced_peak" in result else " rss"),
            agreement,
            ", ".join(notes),
        ])  # fmt: skip
    return out


def goals(rows, input_bytes, results):
    """The run's ratios beside the package's targets (see docs/benchmarks.md)."""

    def seconds(tool):
        return results[tool].get("seconds")

    lines = []
    base, four = seconds("argsort"), seconds("srm")
    if base and four:
        same = results["srm"]["argsort_s"]
        lines.append(
            f"4 metrics / argsort = {four / base:.2f} ({four / same:.2f} against the argsort "
            "timed in its own process) (target <= 2 from 1e5 rows)"
        )
    grouped = seconds("srm-grouped")
    if four and grouped:
        lines.append(f"contiguous blocks / interleaved = {grouped / four:.2f} (target < 1)")
    one, twelve = seconds("srm-1"), seconds("srm-12")
    if one and twelve:
        lines.append(f"12 metrics / 1 metric = {twelve / one:.2f} (target <= 1.3 at 1e7 rows)")
    traced = results["srm"].get("traced_peak")
    if traced is not None:
        lines.append(
            f"memory growth (4 metrics, traced) / input bytes = {traced / input_bytes:.2f} "
            f"(target <= 1.5 from 1e6 rows; inputs {common.mb(input_bytes)} MB)"
        )
    return f"- {rows:.0e} rows: " + "; ".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=["1e5", "1e6", "1e7"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="calls per package/NumPy row (best is kept)")
    parser.add_argument("--peer-repeat", type=int, default=1, help="calls per peer tool row")
    parser.add_argument("--skip", nargs="*", default=[], choices=sorted(TOOLS), metavar="TOOL")
    parser.add_argument(
        "--max-rows", nargs="*", default=[], metavar="TOOL=ROWS",
        help="skip TOOL above ROWS rows, e.g. ranx=1e6 ('none' lifts a limit)",
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=420, help="seconds per tool process")
    parser.add_argument(
        "--wait-quiet", type=float, default=0, metavar="SECONDS",
        help="before each process, wait up to SECONDS for other work to drop under 0.3 cores",
    )
    parser.add_argument("--child", choices=sorted(TOOLS), help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    common.add_json_option(parser)
    args = parser.parse_args(argv)

    if args.child:
        child_main(args.child, args.data, args.repeat)
        return 0

    limits = parse_max_rows(args.max_rows)
    peer_modules = {"sklearn": "sklearn", "pytrec_eval": "pytrec_eval", "ranx": "ranx", "ir_measures": "ir_measures"}
    found = common.versions(["sklearn_rank_metrics", "numpy", "scipy", "pandas", *peer_modules.values(), "numba"])
    peers_available = {tool: module in found for tool, module in peer_modules.items()}

    info = common.run_info(argv)
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    machine = common.machine_line()
    all_rows, goal_lines, mismatches, raw = [], [], [], {}
    for text in args.rows:
        rows = common.parse_rows(text)
        input_bytes, results = run_size(rows, args, limits, peers_available)
        raw[str(rows)] = {"input_bytes": input_bytes, "results": results}
        all_rows += table_rows(rows, input_bytes, results, mismatches)
        goal_lines.append(goals(rows, input_bytes, results))

    header = [
        "tool", "metrics", "rows", "seconds", "rows/s", "x argsort", "peak RSS MB",
        "memory growth MB (x input)", "same means as package (max abs diff)", "notes",
    ]  # fmt: skip
    print(f"Run {started}; {machine}; package at {common.package_revision()}")
    print("Versions: " + ", ".join(f"{name} {version}" for name, version in found.items()))
    print()
    print(common.markdown_table(header, all_rows))
    print()
    print(
        "Other CPU: cores' worth of other processes' work on the machine while the row's "
        "process ran (0 = quiet; 2 cores in all, so above ~0.3 the row's time is inflated). "
        "Memory growth: tracemalloc peak of one more call for this package and NumPy (beyond the "
        "inputs: y_true, y_score float64 and qid int64, 24 bytes a row); RSS high-water mark "
        "growth after loading and importing for the rows marked rss."
    )
    print()
    print("Targets:")
    print("\n".join(goal_lines))
    if mismatches:
        print()
        print(f"**MEAN MISMATCHES (> {TOLERANCE:g}) or missing comparisons:**")
        for line in mismatches:
            print(f"- {line}")
        print(f"\n!!! {len(mismatches)} tool(s) disagree with the package; see above !!!", file=sys.stderr)
    else:
        print()
        print(f"All tools that ran agree with the package's means to {TOLERANCE:g}.")
    raw = {"versions": found, "sizes": raw, "goals": goal_lines, "mismatches": mismatches}
    common.write_results(__file__, info, {"tools": common.table(header, all_rows)}, raw, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
