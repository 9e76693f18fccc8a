"""From TREC files to numbers: evaluate_run against pytrec_eval and ir_measures.

    python benchmarks/bench_evaluate_run.py --rows 1e6 1e7 --repeat 3 --wait-quiet 60

Per size, a run file of ``--rows`` lines and its qrels are written once to a
temporary folder (``--keep DIR`` keeps them there and reuses them). The run is
``bench_trec_io.py``'s: 1000 documents a query, query ids ``q`` + number,
document ids ``doc-`` + 9 digits from a pool of rows / 4 (each retrieved for
about 4 queries), scores descending with 17 significant digits, fields
separated by one space. The qrels judge, per query, each retrieved document
with a probability drawn from [8 %, 25 %] (about 80 to 250 judged retrieved
documents, a query) and 20 to 50 documents of the pool the run did not
retrieve; grades 0..3, higher ones likelier near the top of the ranking,
and 2 % of the judged documents with grade -1 (in the pool, not judged). The
qrels lines come grouped by query, documents in random order. ``--shape``
writes runs of other shapes (``bench_trec_io.SHAPES``): ClueWeb-like 25-byte
ids; 10 documents a query (100,000 queries at 1e6 lines) with ids of varying
length; 100 documents a query with scattered numeric ids of up to 12 digits.

Timed on those files, from the paths to the mean of each measure
(``map``, ``ndcg@10``, ``precision@10``, ``recall@100``, ``mrr``, ties as
trec_eval 9 breaks them, the trec_eval of pytrec_eval and ir_measures: the run
has no tied scores in double precision, a few in single precision), each call
``--repeat`` times in turn, median:

* ``evaluate_run(qrels_path, run_path)``: the package, reading both files
  with pyarrow where it is installed and joining them on Arrow arrays;
* ``rank-eval --format json -m map -m ndcg_cut_10 ... QRELS RUN``: the
  package's trec_eval command, run in the timed process (``main(argv)``), its
  unrounded JSON means read back;
* the same with pandas' reader: ``read_trec_qrels(..., engine="pandas")`` and
  ``read_trec_run(..., engine="pandas")`` then ``evaluate_run`` on the
  DataFrames (which checks them for duplicate pairs once more);
* ``pytrec_eval``: ``parse_qrel`` and ``parse_run`` on the files (its own
  Python parser), then ``RelevanceEvaluator(qrels, {"map", "ndcg_cut.10",
  "P.10", "recall.100", "recip_rank"}).evaluate(run)`` and the means over
  queries;
* ``ir_measures.calc_aggregate([AP, nDCG@10, P@10, R@100, RR], qrels, run)`` on
  ``ir_measures.read_trec_qrels``/``read_trec_run`` of the paths (its own
  reading; it picks its pytrec_eval provider for these measures).

The ratio column is each time over the package's (auto engine). Each tool
runs in a fresh process: a warm-up call on the first 2000 lines of both
files (imports), then ``--repeat`` timed calls; the table gives their median,
the first of them alone (what one call in a fresh process costs, as from the
shell), and the median CPU seconds of the process (all its threads). Every tool's
means are compared with the package's to 1e-9; a mismatch is printed. Tools
not installed are left out with a note.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's package, not an installed one
from _common import (  # noqa: E402
    add_json_option,
    emit,
    machine_line,
    markdown_table,
    package_revision,
    run_info,
    table,
    write_results,
    peak_rss_bytes,
    reset_peak_rss,
    run_child,
    versions,
    wait_for_quiet,
)
from bench_trec_io import SHAPES, write_run  # noqa: E402

MEASURES = ["map", "ndcg@10", "precision@10", "recall@100", "mrr"]
PYTREC_EVAL = {"map": "map", "ndcg@10": "ndcg_cut_10", "precision@10": "P_10",
               "recall@100": "recall_100", "mrr": "recip_rank"}  # fmt: skip
IR_MEASURES = {"map": "AP", "ndcg@10": "nDCG@10", "precision@10": "P@10",
               "recall@100": "R@100", "mrr": "RR"}  # fmt: skip
GRADE_PROBABILITIES = np.array([[0.55, 0.25, 0.13, 0.07], [0.85, 0.10, 0.04, 0.01]])


def write_qrels(path, run_path, seed=1, per_query=SHAPES["benchmark"][0]):
    """The benchmark qrels of the run at ``run_path``, described in the module docstring.

    ``per_query``: the run's documents a query.
    """
    import pandas as pd

    from sklearn_rank_metrics.trec import read_trec_run

    rng = np.random.default_rng(seed)
    run = read_trec_run(run_path)
    rows = len(run)
    n_queries = rows // per_query
    rank = np.tile(np.arange(per_query), n_queries)
    share = rng.uniform(0.08, 0.25, n_queries)
    judged = rng.random(rows) < np.repeat(share, per_query)
    # Judged documents the run did not retrieve: documents of the run's pool
    # retrieved for other queries only (absent from this query's list).
    n_missed = rng.integers(20, 51, n_queries)
    missed_query = np.repeat(np.arange(n_queries), n_missed)
    other = (missed_query + rng.integers(1, max(n_queries, 2), missed_query.shape[0])) % n_queries
    missed_rows = other * per_query + rng.integers(0, per_query, other.shape[0])
    query_ids = run["query_id"].to_numpy(dtype=object)
    doc_ids = run["doc_id"].to_numpy(dtype=object)
    qrels = pd.DataFrame(
        {
            "query_id": np.concatenate(
                (query_ids[judged], query_ids[missed_query * per_query])
            ),
            "doc_id": np.concatenate((doc_ids[judged], doc_ids[missed_rows])),
            "top": np.concatenate((rank[judged] < 100, np.zeros(missed_rows.shape[0], bool))),
            "order": np.concatenate((np.flatnonzero(judged) // per_query, missed_query)),
        }
    )
    # A document of another query's list may be in this one's too: keep it once.
    qrels = qrels.drop_duplicates(["query_id", "doc_id"])
    qrels = qrels.iloc[np.lexsort((rng.random(len(qrels)), qrels["order"].to_numpy()))]
    grade = np.where(
        qrels["top"].to_numpy(),
        rng.choice(4, len(qrels), p=GRADE_PROBABILITIES[0]),
        rng.choice(4, len(qrels), p=GRADE_PROBABILITIES[1]),
    )
    grade[rng.random(len(qrels)) < 0.02] = -1
    out = pd.DataFrame(
        {"query_id": qrels["query_id"], "iteration": "0", "doc_id": qrels["doc_id"],
         "relevance": grade}  # fmt: skip
    )
    out.to_csv(path, sep=" ", header=False, index=False, lineterminator="\n")
    return len(out)


def files(folder, text, shape="benchmark"):
    """The run and qrels of ``--rows text`` (and ``--shape``) in ``folder``, written unless there.

    Also the warm-up files: the first lines of both.
    """
    suffix = "" if shape == "benchmark" else f"_{shape}"
    run_path = folder / f"run_{text}{suffix}.txt"
    qrels_path = folder / f"qrels_{text}{suffix}.txt"
    if not run_path.exists():
        write_run(run_path, int(float(text)), shape=shape)
    if not qrels_path.exists():
        write_qrels(qrels_path, run_path, per_query=SHAPES[shape][0])
    for name, path in (("warmup_run.txt", run_path), ("warmup_qrels.txt", qrels_path)):
        with open(path, "rb") as source:
            (folder / name).write_bytes(b"".join(source.readline() for _ in range(2000)))
    return run_path, qrels_path


def tool_call(tool, qrels_path, run_path):
    """A function from the two paths to ``{package measure name: mean}``, for one tool."""
    if tool in ("package", "package-pandas"):
        from sklearn_rank_metrics.trec import evaluate_run, read_trec_qrels, read_trec_run

        # trec_eval 9's ties (scores in single precision), as pytrec_eval and ir_measures.
        options = dict(metrics=MEASURES, ties="trec_eval", trec_eval_version="9")
        if tool == "package":
            return lambda: evaluate_run(qrels_path, run_path, **options)
        return lambda: evaluate_run(
            read_trec_qrels(qrels_path, engine="pandas"),
            read_trec_run(run_path, engine="pandas"),
            **options,
        )
    if tool == "command":
        import io
        import json

        from sklearn_rank_metrics.__main__ import main  # the command, python -m sklearn_rank_metrics

        argv = ["--trec-eval-version", "9", "--format", "json"]
        for name in PYTREC_EVAL.values():  # trec_eval's names: -m ndcg_cut_10 ...
            argv += ["-m", name]

        def call():
            out = io.StringIO()
            if main([*argv, str(qrels_path), str(run_path)], stdout=out) != 0:
                raise RuntimeError("rank-eval failed")
            values = json.loads(out.getvalue())["all"]
            return {ours: values[theirs] for ours, theirs in PYTREC_EVAL.items()}

        return call
    if tool == "pytrec_eval":
        import pytrec_eval

        def call():
            with open(qrels_path) as handle:
                qrels = pytrec_eval.parse_qrel(handle)
            with open(run_path) as handle:
                run = pytrec_eval.parse_run(handle)
            names = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
            values = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
            return {
                ours: statistics.fmean(v[theirs] for v in values.values())
                for ours, theirs in PYTREC_EVAL.items()
            }

        return call
    if tool == "ir_measures":
        import ir_measures

        measures = {ours: ir_measures.parse_measure(theirs) for ours, theirs in IR_MEASURES.items()}

        def call():
            values = ir_measures.calc_aggregate(
                list(measures.values()),
                ir_measures.read_trec_qrels(str(qrels_path)),
                ir_measures.read_trec_run(str(run_path)),
            )
            return {ours: values[measure] for ours, measure in measures.items()}

        return call
    if tool == "read_csv":
        import pandas as pd

        return lambda: pd.read_csv(run_path, sep=r"\s+", header=None) is None or {}
    raise ValueError(tool)


def child(tool, qrels_path, run_path, repeat):
    """Time ``repeat`` calls of one tool in this fresh process; emit the median and memory."""
    folder = Path(run_path).parent
    # Imports and first-call set-up, not timed: the first lines of both files.
    tool_call(tool, folder / "warmup_qrels.txt", folder / "warmup_run.txt")()
    call = tool_call(tool, qrels_path, run_path)
    baseline = reset_peak_rss()
    times, cpu_times = [], []
    for _ in range(repeat):
        start, cpu_start = time.perf_counter(), time.process_time()
        means = call()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    emit({"seconds": statistics.median(times), "times": times, "means": means,
          "cpu_seconds": statistics.median(cpu_times), "first_seconds": times[0],
          "rss_growth": peak_rss_bytes() - baseline})  # fmt: skip


TOOLS = {
    "read_csv": 'pandas.read_csv(run, sep=r"\\s+"), the run alone (yardstick)',
    "package": "evaluate_run(qrels_path, run_path) (pyarrow reader)",
    "package-pandas": 'evaluate_run on read_trec_*(engine="pandas")',
    "command": "rank-eval --format json -m ... QRELS RUN (in process; the shell adds Python's start)",
    "pytrec_eval": "pytrec_eval: parse_qrel + parse_run + evaluate",
    "ir_measures": "ir_measures.calc_aggregate on read_trec_*",
}
MODULES = {"package-pandas": "pandas", "pytrec_eval": "pytrec_eval", "ir_measures": "ir_measures",
           "read_csv": "pandas", "package": "pandas", "command": "pandas"}  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=["1e6"], help="run lines, e.g. 1e6 1e7")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="write the files into this folder, keep and reuse them")
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    parser.add_argument(
        "--shape", default="benchmark", choices=list(SHAPES),
        help="the run's shape: " + "; ".join(f"{k}: {v[0]} documents a query, ids {v[1]}"
                                            for k, v in SHAPES.items()),
    )  # fmt: skip
    parser.add_argument("--wait-quiet", type=float, default=0, help="seconds to wait at most")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per tool and size")
    parser.add_argument(
        "--child", nargs=3, metavar=("TOOL", "QRELS", "RUN"), help=argparse.SUPPRESS
    )
    add_json_option(parser)
    args = parser.parse_args(argv)
    if args.child:
        tool, qrels_path, run_path = args.child
        return child(tool, qrels_path, run_path, args.repeat)

    found = versions(
        ["sklearn_rank_metrics", "numpy", "pandas", "pyarrow", "pytrec_eval", "ir_measures"]
    )
    info = run_info(argv)
    print(machine_line())
    print("package at", package_revision())
    print("versions:", ", ".join(f"{k} {v}" for k, v in found.items()))
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_evaluate_run_"))
    folder.mkdir(parents=True, exist_ok=True)
    header = ["tool", "run lines", "qrels lines", "median s", "x package", "first call s",
              "CPU s", "peak RSS growth MB", "same means", "other CPU"]  # fmt: skip
    rows, mismatches, raw = [], [], []
    for text in args.rows:
        run_path, qrels_path = files(folder, text, args.shape)
        n_run = sum(1 for _ in open(run_path, "rb"))
        n_qrels = sum(1 for _ in open(qrels_path, "rb"))
        results = {}
        for tool in args.tools:
            if MODULES[tool] not in found:
                rows.append([TOOLS[tool], f"{n_run:,}", f"{n_qrels:,}", "not installed"] + [""] * 6)
                continue
            if args.wait_quiet:
                wait_for_quiet(args.wait_quiet)
            results[tool] = run_child(
                [os.path.abspath(__file__), "--repeat", str(args.repeat),
                 "--child", tool, str(qrels_path), str(run_path)],
                args.timeout,
            )  # fmt: skip
        raw.append({"run_lines": n_run, "qrels_lines": n_qrels, "shape": args.shape, "results": results})
        for tool, result in results.items():
            if "error" in result:
                rows.append([TOOLS[tool], f"{n_run:,}", f"{n_qrels:,}", result["error"]] + [""] * 6)
                continue
            same = ""
            if result["means"] and "means" in results.get("package", {}):
                reference = results["package"]["means"]
                worst = max(abs(result["means"][m] - reference[m]) for m in MEASURES)
                same = "yes" if worst <= 1e-9 else f"**no** ({worst:.1e})"
                if worst > 1e-9:
                    mismatches.append((tool, text, result["means"], reference))
            base = results.get("package", {}).get("seconds")
            rows.append([
                TOOLS[tool], f"{n_run:,}", f"{n_qrels:,}", f"{result['seconds']:.2f}",
                f"{result['seconds'] / base:.2f}" if base else "",
                f"{result['first_seconds']:.2f}", f"{result['cpu_seconds']:.2f}",
                f"{result['rss_growth'] / 1e6:,.0f}", same, f"{result['other_cpu']:.1f}",
            ])  # fmt: skip
            print(" | ".join(str(cell) for cell in rows[-1]), flush=True)
    print()
    print(markdown_table(header, rows))
    write_results(__file__, info, {"tools": table(header, rows)}, {"versions": found, "sizes": raw}, args.json)
    for tool, text, theirs, ours in mismatches:
        print(f"MISMATCH {tool} at {text}: {theirs} vs the package's {ours}")
    if not args.keep:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


if __name__ == "__main__":
    main()
