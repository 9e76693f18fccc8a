"""Before and after: the baseline package beside the new one, same run, same machine.

    python benchmarks/bench_compare.py --base main              # a change against its base commit
    python benchmarks/bench_compare.py --base main --rows 1e5   # a quick check
    git worktree add ../baseline <commit>                       # or any checkout as the baseline
    python benchmarks/bench_compare.py --before ../baseline --rows 1e5 1e6 1e7 --wait-quiet 60

``--base COMMIT`` checks the commit out in a temporary ``git worktree``
(removed at the end) and compares this checkout with it on the data shapes
of section (7): int64 and string ids, interleaved and grouped by query, and
tie-heavy scores, at ``--rows`` (default 1e7 with ``--base``), with
``--rounds`` (default 3) processes per tree and shape, the trees alternating
(before, after, then after, before, ...). It reports each shape's median
seconds before and after, their ratio, and the peak memory of each process
(``ru_maxrss``: imports, data and calls; the median over the rounds). The
data is written by a separate process, so that the parent, whose peak a
child's ``ru_maxrss`` starts from on Linux, stays small.

About 70 processes per size for the other sections; the whole run at 1e5,
1e6 and 1e7 rows takes 20-25 minutes on a quiet 2-core machine (an estimate
is printed at the start).

Two source trees of the package (``--before`` or ``--base``, ``--after``)
are measured against each other, in six sections (``--only`` picks some;
the default is every section but (7) with ``--before``, (7) alone with
``--base``): (1) speed of
every public metric function and of ``evaluate`` with 1, 4 and 12 metrics;
(3) ``evaluate`` on string query ids of several kinds against int64 ids;
(4) memory growth of ``evaluate`` on NumPy, object and pandas inputs;
(5) ``evaluate`` on int64 scores; (6) speed and memory growth of
``evaluate`` on tie-heavy scores (``--only ties``); (7) the data shapes of a
change against its base (``--only shapes``). Table (2), 12 / 1 metrics,
comes from (1). The raw numbers and the tables go to a new JSON file in
``benchmarks/results/`` (``--json PATH`` to choose it), from which
``benchmarks/render_tables.py`` writes the docs' tables.

Every measurement runs in a fresh Python process per tree that puts the
tree first on ``sys.path``, imports ``sklearn_rank_metrics`` and checks
that the module came from that tree (an editable install of another
checkout would otherwise win silently). The two processes of a measurement
run back to back (before, after; then the next measurement), so slow drift
of the machine's speed hits both sides alike, and each side has a process
of its own. With ``--wait-quiet``, each size starts once other work is under
0.3 cores, and a pair that had other work beside it makes the next pair wait
too; the "other CPU" columns show what each process had beside it.

Data, per size, written once to .npy files in a temporary folder (the
children also run there, so that no checkout is on ``sys.path`` by way of
the working directory):

* ``base``: ``_common.generate`` (about 100 documents a query, interleaved
  int64 query ids, labels 0-4 as float64, tie-free float64 scores), and the
  same rows grouped by query ("contiguous");
* ``frac``: the same scores and ids with 400 fractional grades
  (``integers(0, 400) / 100``);
* ``spread``: the same labels and scores over 1e4 queries whose int64 ids
  are spread over [0, 1e12);
* ``ties``: the same labels and ids, the scores cut to 10 distinct values
  (``floor(10 * score)``): most documents of a query tie with others;
* string id tables, one string per query: ``"q"`` + 7 digits (``<U8``),
  ``"query-"`` + 10 digits (``<U16``) and ``"é"`` + 7 digits (non-ASCII
  ``<U8``), the digits a random distinct number per query.

A child derives its case from those: string ids are ``table[int_id]`` (so
the same rows in the same order as the int64 case, and the same queries),
object arrays share one str object per query, pandas categoricals have
sorted categories (as ``astype("category")`` gives), int64 labels are the
float labels cast, int64 scores are the tie-free scores' ranks.

In each process, after a warm-up call on the first rows (lazy imports and
thread pools are not what is measured):

* memory (memory cases, from ``--memory-from`` rows up): the growth of the
  resident set's high-water mark (VmHWM, reset through
  ``/proc/self/clear_refs``) during one call, then the tracemalloc peak of
  one more call (NumPy reports its buffers to tracemalloc; the inputs exist
  before tracing starts, so both are growth beyond the inputs), each divided
  by the input bytes: ``y_true.nbytes + y_score.nbytes`` plus the ids'
  bytes -- ``nbytes`` for NumPy arrays, for object-backed ids 8 bytes a row
  plus ``sys.getsizeof`` of each distinct str object, for a categorical
  pandas' ``memory_usage(deep=True)``;
* seconds (after the memory calls where both run): the median of
  ``--repeat`` calls. The 4-metric ``evaluate`` process of the speed table
  also times one ``np.argsort(y_score)`` alternately with its calls (median
  too); every "x argsort" of the speed table divides by that argsort, timed
  in the same tree's process at the same size.

Every measurement's means are compared between the two trees to 1e-9
relative, and within a tree with a case that must give the same means (the
int64-id case for string ids, the interleaved case for contiguous rows,
float labels for int64 labels, float scores for int64 scores,
``evaluate`` for each metric function). Mismatches are listed, loudly,
without stopping the run; a tree that fails a case gets "failed: <reason>"
in that cell.
"""

import argparse
import contextlib
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as common  # noqa: E402
from bench_anchors import FOUR, TWELVE  # noqa: E402
from bench_metrics import METRICS  # noqa: E402

# The public metric functions as bench_metrics.py calls them; its extra Kendall row
# is an option of rank_correlation_score, not another function.
FUNCTIONS = {key: spec for key, spec in METRICS.items() if key != "kendall"}

REPO = Path(__file__).resolve().parent.parent
SECTIONS = ("speed", "strings", "memory", "intscores", "ties", "shapes")
BASE_ROWS = "1e7"  # the default size with --base: the real proof; 1e5 for a quick check
SIDES = ("before", "after")
TOLERANCE = 1e-9
QUIET_CPU = 0.3  # cores of other work above which a pair counts as disturbed (wait_for_quiet's default)
WARMUP_ROWS = 2000
SPREAD_QUERIES = 10_000
SPREAD_RANGE = 10**12
TIE_LEVELS = 10  # distinct scores of the tie-heavy data set

SLOWER_LIMIT = 1.10  # after / before, every function
ARGSORT_LIMIT = 2.0  # evaluate (4 metrics) / one argsort, stated for 1e5 rows
TWELVE_LIMIT = 1.3  # evaluate 12 metrics / 1 metric, at 1e7 rows
TWELVE_LIMIT_FROM = 10**7

# Evaluate cases, four metrics each: name: (label, how the data differs from
# DEFAULT_CASE, the case that must give the same means or None).
DEFAULT_CASE = {
    "dataset": "base", "grouped": False, "ids": "int64", "labels": "float64", "scores": "float64",
}  # fmt: skip
CASES = {
    "int-i": ("int64 ids, interleaved", {}, None),
    "int-c": ("int64 ids, contiguous", {"grouped": True}, "int-i"),
    "u8-i": ("(a) `<U8` ASCII ids, interleaved", {"ids": "u8"}, "int-i"),
    "cat-i": ("(b) pandas categorical, interleaved", {"ids": "categorical"}, "int-i"),
    "u8-c": ("(c) `<U8` ASCII ids, contiguous", {"ids": "u8", "grouped": True}, "int-c"),
    "cat-c": ("(c) pandas categorical, contiguous", {"ids": "categorical", "grouped": True}, "int-c"),
    "u16-i": ("(d) `<U16` ids, interleaved", {"ids": "u16"}, "int-i"),
    "nonascii-i": ("(d) non-ASCII `<U8` ids, interleaved", {"ids": "nonascii"}, "int-i"),
    "object-i": ("(d) object array of str, interleaved", {"ids": "object"}, "int-i"),
    "pdstring-i": ('(d) pandas dtype "string", interleaved', {"ids": "pdstring"}, "int-i"),
    "pdobject-i": ("(d) pandas dtype object, interleaved", {"ids": "pdobject"}, "int-i"),
    "object-c": ("object array of str, contiguous", {"ids": "object", "grouped": True}, "int-c"),
    "pdstring-c": ('pandas dtype "string", contiguous', {"ids": "pdstring", "grouped": True}, "int-c"),
    "intlabels-i": ("int64 labels, interleaved", {"labels": "int64"}, "int-i"),
    "intlabels-c": ("int64 labels, contiguous", {"labels": "int64", "grouped": True}, "int-c"),
    "frac-i": ("400 fractional grades, interleaved", {"dataset": "frac"}, None),
    "frac-c": ("400 fractional grades, contiguous", {"dataset": "frac", "grouped": True}, "frac-i"),
    "spread-i": ("1e4 queries, ids in [0, 1e12), interleaved", {"dataset": "spread"}, None),
    "spread-c": (
        "1e4 queries, ids in [0, 1e12), contiguous",
        {"dataset": "spread", "grouped": True},
        "spread-i",
    ),
    "intscores-i": ("int64 scores (ranks), interleaved", {"scores": "int64"}, "int-i"),
    "ties-i": (f"{TIE_LEVELS} score values, int64 ids, interleaved", {"dataset": "ties"}, None),
    "ties-c": (
        f"{TIE_LEVELS} score values, int64 ids, contiguous",
        {"dataset": "ties", "grouped": True},
        "ties-i",
    ),
    "ties-u8-i": (
        f"{TIE_LEVELS} score values, `<U8` ids, interleaved",
        {"dataset": "ties", "ids": "u8"},
        "ties-i",
    ),
}

# string cases: (reference int64 case, target ratio)
STRING_CASES = {
    "u8-i": ("int-i", 1.5),
    "cat-i": ("int-i", 1.5),
    "u8-c": ("int-c", 1.5),
    "cat-c": ("int-c", 1.5),
    "u16-i": ("int-i", 2.5),
    "nonascii-i": ("int-i", 2.5),
    "object-i": ("int-i", 2.5),
    "pdstring-i": ("int-i", 2.5),
    "pdobject-i": ("int-i", 2.5),
}
# memory cases: target growth / input bytes
MEMORY_CASES = {
    "int-i": 1.5, "int-c": 1.5, "intlabels-i": 1.5, "intlabels-c": 1.5,
    "frac-i": 1.5, "frac-c": 1.5, "spread-i": 1.5, "spread-c": 1.5,
    "u8-i": 1.5, "u8-c": 1.5, "object-i": 2.0, "object-c": 2.0,
    "pdstring-i": 2.0, "pdstring-c": 2.0,
}  # fmt: skip
# tie-heavy cases, speed and memory: target growth / input bytes
TIE_CASES = {"ties-i": 1.5, "ties-c": 1.5, "ties-u8-i": 1.5}
# the data shapes a change is compared on with its base commit (section 7)
SHAPE_CASES = {
    "int-i": "int64 ids, interleaved",
    "int-c": "int64 ids, grouped",
    "u8-i": "`<U8` string ids, interleaved",
    "u8-c": "`<U8` string ids, grouped",
    "ties-i": f"tie-heavy ({TIE_LEVELS} score values), int64 ids, interleaved",
    "ties-c": f"tie-heavy ({TIE_LEVELS} score values), int64 ids, grouped",
}
# evaluate rows of the speed table (int-i is the 4-metric one): name: (label, metrics)
EVALUATE_ROWS = {
    "ev1": ("`evaluate`, 1 metric (ndcg@10)", ("ndcg@10",)),
    "int-i": ("`evaluate`, 4 metrics", FOUR),
    "ev12": ("`evaluate`, 12 metrics", TWELVE),
}
STRING_TABLES = ("u8", "u16", "nonascii")  # NumPy string ids; the others are built from u8

# Rough costs for the estimate printed at the start (quiet 2-core machine):
# a process's start (interpreter, scikit-learn import, data load), and
# seconds per row of one call.
PROCESS_S = 2.5
CALL_S_PER_ROW = {
    "int64": 2e-7, "u8": 3.5e-7, "u16": 8e-7, "nonascii": 6e-7, "categorical": 3.5e-7,
    "object": 5e-7, "pdstring": 5e-7, "pdobject": 5e-7,
}  # fmt: skip
GENERATE_S_PER_ROW = 5e-7  # per data set


# ---------------------------------------------------------------- child side


def make_ids(codes, kind, data_dir):
    """Query ids of the kind named, from the int64 ids ``codes`` (0 .. n_queries-1)."""
    if kind == "int64":
        return codes
    table = np.load(Path(data_dir) / f"ids_{kind if kind in STRING_TABLES else 'u8'}.npy")
    if kind in STRING_TABLES:
        return table[codes]
    import pandas as pd  # only here: its import would count in the NumPy cases' peak memory

    if kind == "categorical":
        order = np.argsort(table)
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return pd.Series(pd.Categorical.from_codes(rank[codes], categories=table[order]))
    strings = table.astype(object)  # one str object per query, shared by its rows
    if kind == "object":
        return strings[codes]
    if kind == "pdstring":
        return pd.Series(pd.array(strings, dtype="string").take(codes))
    return pd.Series(strings[codes], dtype=object)


def id_bytes(qid):
    """Bytes the query ids take: object-backed ids count each distinct str object once."""
    if isinstance(qid, np.ndarray) and qid.dtype != object:
        return qid.nbytes
    if not isinstance(qid, np.ndarray) and qid.dtype == "category":
        return int(qid.memory_usage(deep=True, index=False))
    values = qid if isinstance(qid, np.ndarray) else qid.to_numpy(dtype=object)
    distinct = {id(value): value for value in values.tolist()}
    return 8 * values.size + sum(map(sys.getsizeof, distinct.values()))


def head(values, n):
    return values.iloc[:n] if hasattr(values, "iloc") else values[:n]


def import_tree(tree):
    """Import ``sklearn_rank_metrics`` from ``tree`` and make sure that is where it came from."""
    sys.path.insert(0, tree)
    import sklearn_rank_metrics

    where = Path(sklearn_rank_metrics.__file__).resolve()
    if not where.is_relative_to(Path(tree).resolve()):
        raise RuntimeError(f"sklearn_rank_metrics imported from {where}, not from {tree}")
    return sklearn_rank_metrics


def child_main(spec, tree, data_dir, repeat):
    package = import_tree(tree)
    y_true, y_score, codes = common.load_data(Path(data_dir) / spec["dataset"], grouped=spec["grouped"])
    if spec["labels"] == "int64":
        y_true = y_true.astype(np.int64)
    if spec["scores"] == "int64":
        y_score = np.rint(y_score * y_score.size).astype(np.int64)  # the tie-free scores' ranks
    qid = make_ids(codes, spec["ids"], data_dir)
    function = getattr(package, spec["function"])
    key = spec.get("key")

    def call(y_true=y_true, y_score=y_score, qid=qid):
        value = function(y_true, y_score, qid=qid, **spec["kwargs"])
        return {key: float(value)} if key else {name: float(v) for name, v in value.items()}

    n = min(WARMUP_ROWS, y_true.size)
    call(y_true[:n], y_score[:n], head(qid, n))
    result = {
        "input_bytes": y_true.nbytes + y_score.nbytes + id_bytes(qid),
        "file": os.path.relpath(package.__file__, tree),  # inside the tree: import_tree checked
    }
    if spec["memory"]:
        baseline = common.reset_peak_rss()
        result["means"] = call()
        result["rss_growth"] = common.peak_rss_bytes() - baseline
        result["traced_peak"] = common.traced_peak_bytes(call)
    if spec["time"]:
        functions = [call, lambda: np.argsort(y_score)] if spec["argsort"] else [call]
        medians, times, results = common.median_times(functions, repeat)
        result.update(seconds=medians[0], times=times[0], means=results[0])
        if spec["argsort"]:
            result.update(argsort_s=medians[1], argsort_times=times[1])
    result["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    common.emit(result)


# --------------------------------------------------------------- parent side


def plan(rows, sections, memory_from):
    """``{name: spec}`` of the measurements the sections need at this size, in run order."""
    wanted = {}  # name: {"time", "memory", "argsort"} flags, first-needed order

    def need(name, **flags):
        entry = wanted.setdefault(name, {"time": False, "memory": False, "argsort": False})
        for flag, value in flags.items():
            entry[flag] = entry[flag] or value

    if "speed" in sections:
        for key in FUNCTIONS:
            need(key, time=True)
        need("ev1", time=True)
        need("int-i", time=True, argsort=True)
        need("ev12", time=True)
    if "strings" in sections:
        for name, (reference, _) in STRING_CASES.items():
            need(reference, time=True)
            need(name, time=True)
    if "intscores" in sections:
        need("int-i", time=True)
        need("intscores-i", time=True)
    if "memory" in sections and rows >= memory_from:
        for name in MEMORY_CASES:
            need(name, memory=True)
    if "ties" in sections:
        for name in TIE_CASES:
            need(name, time=True, memory=rows >= memory_from)
    if "shapes" in sections:
        for name in SHAPE_CASES:
            need(name, time=True)

    specs = {}
    for name, flags in wanted.items():
        if name in FUNCTIONS:
            label, function, kwargs = FUNCTIONS[name]
            spec = {**DEFAULT_CASE, "label": f"`{label}`", "function": function, "kwargs": kwargs,
                    "key": name, "same_as": "ev12"}  # fmt: skip
        elif name in CASES:
            label, changes, same_as = CASES[name]
            spec = {**DEFAULT_CASE, **changes, "label": label, "function": "evaluate",
                    "kwargs": {"metrics": list(FOUR)}, "same_as": same_as}  # fmt: skip
        else:
            label, metrics = EVALUATE_ROWS[name]
            same_as = "ev12" if name != "ev12" else None
            spec = {**DEFAULT_CASE, "label": label, "function": "evaluate",
                    "kwargs": {"metrics": list(metrics)}, "same_as": same_as}  # fmt: skip
        specs[name] = {**spec, **flags}
    return specs


def write_datasets(data_dir, rows, seed, datasets):
    """The data sets the plan reads, and the string id tables (one string per query)."""
    data_dir = Path(data_dir)
    y_true, y_score, qid = common.generate(rows, seed)
    common.write_layouts(data_dir / "base", y_true, y_score, qid)
    # one random stream per data set: each is the same whichever others are written
    if "frac" in datasets:
        rng = np.random.default_rng([seed, rows, 1])
        fractional = rng.integers(0, 400, size=rows) / 100
        common.write_layouts(data_dir / "frac", fractional, y_score, qid)
    if "spread" in datasets:
        rng = np.random.default_rng([seed, rows, 2])
        ids = np.sort(rng.choice(SPREAD_RANGE, size=SPREAD_QUERIES, replace=False)).astype(np.int64)
        spread_qid = ids[rng.integers(0, SPREAD_QUERIES, size=rows)]
        common.write_layouts(data_dir / "spread", y_true, y_score, spread_qid)
    if "ties" in datasets:
        common.write_layouts(data_dir / "ties", y_true, np.floor(y_score * TIE_LEVELS), qid)
    rng = np.random.default_rng([seed, rows, 3])
    numbers = rng.choice(10**7, size=qid.max() + 1, replace=False).tolist()
    np.save(data_dir / "ids_u8.npy", np.array([f"q{n:07d}" for n in numbers], dtype="<U8"))
    np.save(data_dir / "ids_u16.npy", np.array([f"query-{n:010d}" for n in numbers], dtype="<U16"))
    np.save(data_dir / "ids_nonascii.npy", np.array([f"é{n:07d}" for n in numbers], dtype="<U8"))


def write_data_child(data_dir, rows, seed, datasets):
    """Write the data in a process of its own, so that this one stays small (see the docstring)."""
    subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--write-data", str(data_dir), "--rows", str(rows),
         "--seed", str(seed), "--datasets", *sorted(datasets)],
        check=True,
    )  # fmt: skip


def merge_rounds(results):
    """One result from a measurement's processes in one tree: calls pooled, medians over them."""
    done = [result for result in results if "error" not in result]
    if not done:
        return results[0]
    merged = {**done[0], "processes": len(done)}
    for field in ("times", "argsort_times"):
        if field in merged:
            merged[field] = [t for result in done for t in result[field]]
    if "times" in merged:
        merged["seconds"] = statistics.median(merged["times"])
    if "argsort_times" in merged:
        merged["argsort_s"] = statistics.median(merged["argsort_times"])
    for field in ("maxrss", "rss_growth", "traced_peak"):
        if field in merged:
            merged[field] = statistics.median(result[field] for result in done)
    merged["other_cpu"] = max(result["other_cpu"] for result in done)
    if len(results) > 1:
        merged["rounds"] = results
    return merged


@contextlib.contextmanager
def base_tree(commit):
    """A temporary ``git worktree`` of ``commit`` (this checkout's repository), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="bench_compare_base_"))
    tree = folder / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(tree), commit], cwd=REPO, check=True
    )
    try:
        yield str(tree)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=False)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=REPO, check=False)


def estimate_seconds(plans, sides, repeat, wait_quiet):
    """Rough wall time of the whole run on a quiet machine (see PROCESS_S, CALL_S_PER_ROW)."""
    total = 0.0
    for rows, specs in plans.items():
        total += GENERATE_S_PER_ROW * rows * (1 + len({s["dataset"] for s in specs.values()}))
        total += 2.0 if wait_quiet else 0.0  # one quiet check per size when nothing else runs
        for spec in specs.values():
            per_call = rows * CALL_S_PER_ROW[spec["ids"]]
            # loading the data and building the ids take about one call
            calls = 1 + (repeat * (1 + spec["argsort"]) if spec["time"] else 0) + 2 * spec["memory"]
            total += len(sides) * (PROCESS_S + calls * per_call)
    return total


def run_size(rows, specs, args, trees):
    results = {name: {} for name in specs}
    script = os.path.abspath(__file__)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # no __pycache__ written into the trees
    with tempfile.TemporaryDirectory(prefix="bench_compare_") as data_dir:
        start = time.perf_counter()
        write_data_child(data_dir, rows, args.seed, {spec["dataset"] for spec in specs.values()})
        print(f"# {rows:.0e} rows: data written in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        common.wait_for_quiet(args.wait_quiet)
        busy = False
        for index, (name, spec) in enumerate(specs.items(), 1):
            runs = {side: [] for side in trees}
            for round_ in range(args.rounds):
                if busy:  # other work ran beside the last pair: let it pass (quiet: no 1 s probe)
                    common.wait_for_quiet(args.wait_quiet, window=1.0)
                order = list(trees.items())
                for side, tree in order if round_ % 2 == 0 else order[::-1]:
                    result = common.run_child(
                        [script, "--child", json.dumps(spec), "--tree", tree, "--data", data_dir,
                         "--repeat", str(args.repeat)],
                        args.timeout, cwd=data_dir, env=env,
                    )  # fmt: skip
                    runs[side].append(result)
                    shown = result.get("seconds", result.get("traced_peak", result.get("error")))
                    print(
                        f"#   [{index}/{len(specs)}] {name} {side}: {shown} "
                        f"(other CPU {result.get('other_cpu', 0):.1f})",
                        file=sys.stderr,
                    )
                busy = any(runs[side][-1].get("other_cpu", 0) > QUIET_CPU for side in trees)
            results[name] = {side: merge_rounds(done) for side, done in runs.items()}
    return results


def failure(result):
    """Short reason for a failed child: the last line of its error output, table-safe."""
    reason = result["error"].split(" | ")[-1].replace("|", "/")
    return "failed: " + (reason if len(reason) <= 100 else reason[:97] + "...")


def get(result, field):
    return (result or {}).get(field)


def seconds_cell(result):
    if result is None:
        return "-"  # this side was not measured (--skip-before)
    if "error" in result:
        return failure(result)
    return f"{result['seconds']:.3f}" if "seconds" in result else ""


def ratio_cell(numerator, denominator, limit=None):
    """``numerator / denominator`` to 2 decimals, **bold** when above ``limit``."""
    if not numerator or not denominator:
        return ""
    ratio = numerator / denominator
    return f"**{ratio:.2f}**" if limit is not None and ratio > limit else f"{ratio:.2f}"


def after_before(pair, limit=None):
    return ratio_cell(get(pair.get("after"), "seconds"), get(pair.get("before"), "seconds"), limit)


def other_cpu(pair):
    return "/".join(f"{r['other_cpu']:.1f}" if "other_cpu" in r else "-" for r in pair.values())


def means_differ(means, reference):
    """``["name: a vs b", ...]`` for the metrics both have that differ by more than TOLERANCE."""
    return [
        f"{name}: {means[name]!r} vs {reference[name]!r}"
        for name in sorted(set(means) & set(reference))
        if not math.isclose(means[name], reference[name], rel_tol=TOLERANCE, abs_tol=1e-12)
    ]


def check_means(rows, specs, results, mismatches):
    """Before against after, and each case against its same-means case within a tree.

    Appends to ``mismatches``; returns ``{name: "yes" | "**NO**" | ""}``, before = after.
    """
    agree = {}
    for name, spec in specs.items():
        pair = results[name]
        before, after = get(pair.get("before"), "means"), get(pair.get("after"), "means")
        agree[name] = ""
        if before and after:
            bad = means_differ(after, before)
            if set(after) != set(before):
                bad.append(f"metric names {sorted(after)} vs {sorted(before)}")
            agree[name] = "**NO**" if bad else "yes"
            if bad:
                mismatches.append(f"{rows:.0e} rows, {name}: after vs before: " + "; ".join(bad))
        reference = spec["same_as"]
        if reference not in results:
            continue
        for side, result in pair.items():
            means, expected = get(result, "means"), get(results[reference].get(side), "means")
            bad = means and expected and means_differ(means, expected)
            if bad:
                mismatches.append(f"{rows:.0e} rows, {name} vs {reference}, {side}: " + "; ".join(bad))
    return agree


def speed_rows(rows, specs, results, agree):
    """Table (1), and the 12 / 1 metrics row of table (2); nothing without the speed section."""
    if "ev12" not in specs:
        return [], []
    out = []
    for name in [*FUNCTIONS, *EVALUATE_ROWS]:
        pair = results[name]
        cells = []
        for side in SIDES:
            result = pair.get(side)
            limit = ARGSORT_LIMIT if name == "int-i" and side == "after" else None
            argsort_s = get(get(results["int-i"], side), "argsort_s")
            cells.append(ratio_cell(get(result, "seconds"), argsort_s, limit))
        label = EVALUATE_ROWS[name][0] if name in EVALUATE_ROWS else specs[name]["label"]
        out.append([
            label, f"{rows:.0e}", seconds_cell(pair.get("before")), seconds_cell(pair.get("after")),
            after_before(pair, SLOWER_LIMIT), *cells, agree[name], other_cpu(pair),
        ])  # fmt: skip
    twelve = [f"{rows:.0e}"]
    for side in SIDES:
        one, many = results["ev1"].get(side), results["ev12"].get(side)
        limit = TWELVE_LIMIT if side == "after" and rows >= TWELVE_LIMIT_FROM else None
        ratio = ratio_cell(get(many, "seconds"), get(one, "seconds"), limit)
        twelve += [seconds_cell(many), seconds_cell(one), ratio]
    return out, twelve


def string_rows(rows, specs, results, agree):
    out = []
    for name, (reference, target) in STRING_CASES.items():
        if name not in specs:
            continue
        pair = results[name]
        cells = []
        for side in SIDES:
            result, ints = get(pair, side), get(results[reference], side)
            limit = target if side == "after" else None
            ratio = ratio_cell(get(result, "seconds"), get(ints, "seconds"), limit)
            cells += [seconds_cell(result), ratio]
        out.append([
            specs[name]["label"], f"{rows:.0e}", *cells, after_before(pair), f"{target:g}", agree[name],
            other_cpu(pair),
        ])  # fmt: skip
    return out


def memory_rows(rows, specs, results, agree):
    out = []
    for name, target in MEMORY_CASES.items():
        if name not in specs or not specs[name]["memory"]:
            continue
        pair = results[name]
        cells = []
        for side in SIDES:
            result = pair.get(side)
            if result is None or "error" in result:
                cells += [seconds_cell(result), ""]
                continue
            limit = target if side == "after" else None
            for field in ("traced_peak", "rss_growth"):
                cells.append(ratio_cell(result[field], result["input_bytes"], limit))
        sizes = [r["input_bytes"] for r in pair.values() if "input_bytes" in r]
        input_mb = f"{sizes[0] / 1e6:,.1f}" if sizes else ""
        label = specs[name]["label"]
        out.append([label, f"{rows:.0e}", input_mb, *cells, f"{target:g}", agree[name], other_cpu(pair)])
    return out


def tie_rows(rows, specs, results, agree):
    out = []
    for name, target in TIE_CASES.items():
        if name not in specs:
            continue
        pair = results[name]
        cells = []
        for side in SIDES:
            result = pair.get(side)
            for field in ("traced_peak", "rss_growth"):
                if result is None or "error" in result or field not in result:
                    cells.append("")
                    continue
                limit = target if side == "after" else None
                cells.append(ratio_cell(result[field], result["input_bytes"], limit))
        out.append([
            specs[name]["label"], f"{rows:.0e}", seconds_cell(pair.get("before")),
            seconds_cell(pair.get("after")), after_before(pair, SLOWER_LIMIT), *cells, f"{target:g}",
            agree[name], other_cpu(pair),
        ])  # fmt: skip
    return out


def shape_rows(rows, specs, results, agree):
    out = []
    for name in SHAPE_CASES:
        if name not in specs:
            continue
        pair = results[name]
        peaks = [get(pair.get(side), "maxrss") for side in SIDES]
        out.append([
            SHAPE_CASES[name], f"{rows:.0e}", seconds_cell(pair.get("before")),
            seconds_cell(pair.get("after")), after_before(pair, SLOWER_LIMIT),
            *(common.mb(peak) for peak in peaks), ratio_cell(peaks[1], peaks[0], SLOWER_LIMIT),
            agree[name], other_cpu(pair),
        ])  # fmt: skip
    return out


def intscore_rows(rows, specs, results, agree):
    if "intscores-i" not in specs:
        return []
    pair = results["intscores-i"]
    cells = []
    for side in SIDES:
        floats, ints = results["int-i"].get(side), pair.get(side)
        cells += [seconds_cell(ints), ratio_cell(get(ints, "seconds"), get(floats, "seconds"))]
    slower = after_before(pair, SLOWER_LIMIT)
    return [[f"{rows:.0e}", *cells, slower, agree["intscores-i"], other_cpu(pair)]]


OTHER_CPU = "other CPU (before/after)"
TABLES = (  # (title and notes, header, rows function)
    (
        "**(1) Speed**: seconds, median of {repeat} calls in a fresh process per tree; after/before "
        f"**bold** above {SLOWER_LIMIT:.2f} (no function more than 10% slower); x argsort: seconds / "
        "one `np.argsort(y_score)` timed alternately with the calls in the same tree's 4-metric "
        "`evaluate` process (**bold** in that row where it misses the target, < 2x, stated for 1e5 "
        f"rows); same means: before = after to {TOLERANCE:g} relative.",
        ["function", "rows", "before s", "after s", "after/before", "before x argsort", "after x argsort",
         "same means", OTHER_CPU],
    ),
    (
        f"**(2) `evaluate`, 12 metrics / 1 metric** (**bold** above {TWELVE_LIMIT:g} at 1e7 rows)",
        ["rows", "before 12 s", "before 1 s", "before 12/1", "after 12 s", "after 1 s", "after 12/1"],
    ),
    (
        "**(3) String query ids**: `evaluate` (4 metrics), seconds and ratio to the same rows with "
        "int64 ids (same layout) in the same tree; **bold** where the after ratio misses the target "
        "((a)-(c) 1.5x, (d) 2.5x).",
        ["ids", "rows", "before s", "before x int", "after s", "after x int", "after/before", "target",
         "same means", OTHER_CPU],
    ),
    (
        "**(4) Memory growth / input bytes** during one `evaluate` (4 metrics, mean): tracemalloc "
        "peak and RSS high-water-mark growth; **bold** where an after value misses the target (1.5x "
        "for NumPy ids, 2x for object and pandas string ids). Input MB: labels, scores and ids (object "
        "ids: 8 bytes a row plus each distinct str once; categorical: pandas' deep memory usage).",
        ["case", "rows", "input MB", "before traced", "before RSS", "after traced", "after RSS", "target",
         "same means", OTHER_CPU],
    ),
    (
        "**(5) Integer scores**: `evaluate` (4 metrics) with int64 scores (the tie-free scores' "
        "ranks); x float: ratio to the same data with float64 scores in the same tree.",
        ["rows", "before s", "before x float", "after s", "after x float", "after/before", "same means",
         OTHER_CPU],
    ),
    (
        f"**(6) Tie-heavy scores**: `evaluate` (4 metrics, `ties=\"average\"`) on scores cut to "
        f"{TIE_LEVELS} distinct values; seconds (median of {{repeat}} calls; after/before **bold** "
        f"above {SLOWER_LIMIT:.2f}) and, from `--memory-from` rows, memory growth / input bytes as in "
        "(4) (**bold** where an after value misses the 1.5x target).",
        ["case", "rows", "before s", "after s", "after/before", "before traced", "before RSS",
         "after traced", "after RSS", "target", "same means", OTHER_CPU],
    ),
    (
        "**(7) A change against its base**: `evaluate` (4 metrics) on each data shape; seconds: the "
        "median of {repeat} calls in each of {rounds} processes per tree, the trees alternating; peak "
        "RSS: the process's `ru_maxrss` (imports, data and calls; median over the processes); "
        f"after/before **bold** above {SLOWER_LIMIT:.2f}.",
        ["shape", "rows", "before s", "after s", "after/before", "before peak RSS MB",
         "after peak RSS MB", "after/before RSS", "same means", OTHER_CPU],
    ),
)  # fmt: skip
TABLE_NAMES = ("speed", "twelve", "strings", "memory", "intscores", "ties", "shapes")
TABLE_SECTIONS = {**{name: name for name in TABLE_NAMES}, "twelve": "speed"}


def tables_from_raw(raw, sections=SECTIONS):
    """The tables of a run (``{name: table}``) from its raw numbers, and the mean mismatches.

    ``raw`` is what the run writes under "raw" in its results file, so the
    tables of a recorded run can be computed again from it.
    """
    tables = tuple([] for _ in TABLES)
    mismatches = []
    for size, measured in raw["sizes"].items():
        rows = int(size)
        specs = {name: entry["spec"] for name, entry in measured.items()}
        results = {name: {side: entry[side] for side in SIDES if side in entry} for name, entry in measured.items()}
        agree = check_means(rows, specs, results, mismatches)
        speed, twelve = speed_rows(rows, specs, results, agree)
        tables[0].extend(speed)
        tables[1].extend([twelve] if twelve else [])
        tables[2].extend(string_rows(rows, specs, results, agree))
        tables[3].extend(memory_rows(rows, specs, results, agree))
        tables[4].extend(intscore_rows(rows, specs, results, agree))
        tables[5].extend(tie_rows(rows, specs, results, agree))
        tables[6].extend(shape_rows(rows, specs, results, agree))
    named = {
        name: common.table(
            columns, rows, title.format(repeat=raw["repeat"], rounds=raw.get("rounds", 1))
        )
        for name, (title, columns), rows in zip(TABLE_NAMES, TABLES, tables, strict=True)
        if rows and TABLE_SECTIONS[name] in sections
    }
    return named, mismatches


def report(header_lines, tables, mismatches):
    """The markdown the run prints."""
    parts = ["\n".join(header_lines)]
    for table in tables.values():
        parts.append(table["title"] + "\n\n" + common.markdown_table(table["header"], table["rows"]))
    if mismatches:
        parts.append(
            f"**MEAN MISMATCHES (more than {TOLERANCE:g} relative):**\n\n"
            + "\n".join(f"- {line}" for line in mismatches)
        )
    else:
        parts.append(f"Every pair of means compared agrees to {TOLERANCE:g} relative.")
    return "\n\n".join(parts) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    baseline = parser.add_mutually_exclusive_group()
    baseline.add_argument("--before", help="source tree of the baseline package (a checkout)")
    baseline.add_argument(
        "--base", metavar="COMMIT",
        help="the baseline as a git commit, checked out in a temporary worktree (removed after)",
    )  # fmt: skip
    parser.add_argument(
        "--after", default=str(Path(__file__).resolve().parents[1]),
        help="source tree of the new package (default: this checkout)",
    )  # fmt: skip
    parser.add_argument("--skip-before", action="store_true", help="measure the --after tree only")
    parser.add_argument(
        "--rows", nargs="+", help=f"sizes (default: {BASE_ROWS} with --base, else 1e5 1e6 1e7)"
    )
    parser.add_argument("--memory-from", default="1e6", help="memory cases at this many rows and more")
    parser.add_argument(
        "--only", action="append", choices=SECTIONS, help="run this section only (repeatable; default all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per process (median is kept)")
    parser.add_argument(
        "--rounds", type=int, metavar="N",
        help="processes per tree and measurement, the trees alternating (default 3 with --base, else 1)",
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=600, help="seconds per measurement process")
    parser.add_argument(
        "--wait-quiet", type=float, default=0, metavar="SECONDS",
        help="before each before/after pair, wait up to SECONDS for other work to drop under 0.3 cores",
    )  # fmt: skip
    common.add_json_option(parser)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--write-data", help=argparse.SUPPRESS)
    parser.add_argument("--datasets", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        child_main(json.loads(args.child), args.tree, args.data, args.repeat)
        return 0
    if args.write_data:
        write_datasets(args.write_data, int(args.rows[0]), args.seed, set(args.datasets))
        return 0

    if not args.skip_before and args.before is None and args.base is None:
        parser.error("give --base (a commit), --before (a checkout of the baseline), or --skip-before")
    args.rows = args.rows or ([BASE_ROWS] if args.base else ["1e5", "1e6", "1e7"])
    args.rounds = args.rounds or (3 if args.base else 1)
    args.only = args.only or (["shapes"] if args.base else [s for s in SECTIONS if s != "shapes"])
    if args.base and not args.skip_before:
        with base_tree(args.base) as before:
            return compare(parser, args, before, argv)
    return compare(parser, args, args.before, argv)


def compare(parser, args, before, argv):
    """The parent's run: plan, measure, check the means, print and write the results."""
    trees = {"after": args.after} if args.skip_before else {"before": before, "after": args.after}
    for tree in trees.values():
        if not (Path(tree) / "sklearn_rank_metrics" / "__init__.py").is_file():
            parser.error(f"{tree} has no sklearn_rank_metrics package")
    sections = args.only
    memory_from = int(float(args.memory_from))
    plans = {rows: plan(rows, sections, memory_from) for rows in map(common.parse_rows, args.rows)}
    plans = {rows: specs for rows, specs in plans.items() if specs}  # --only memory below --memory-from
    if not plans:
        parser.error(f"nothing to run: --only {' '.join(sections)} at --rows {' '.join(args.rows)}")
    estimate = args.rounds * estimate_seconds(plans, trees, args.repeat, args.wait_quiet)
    print(
        f"# {sum(map(len, plans.values())) * len(trees)} processes; estimated {estimate / 60:.1f} min "
        "on a quiet machine",
        file=sys.stderr,
    )

    info = common.run_info(argv)
    started = info["date"]
    machine = common.machine_line()
    revisions = {side: common.package_revision(tree) for side, tree in trees.items()}
    found = common.versions(["numpy", "scipy", "sklearn", "pandas"])
    clock = time.perf_counter()
    # paths relative to this checkout: a results file names no folder of the machine it ran on
    shown_trees = {side: os.path.relpath(tree, REPO) for side, tree in trees.items()}
    if args.base:
        shown_trees["before"] = f"{args.base} (temporary worktree)"
    raw = {
        "started": started, "machine": machine, "trees": shown_trees, "revisions": revisions,
        "versions": found,
        "repeat": args.repeat, "rounds": args.rounds, "estimate_s": estimate, "sizes": {},
    }  # fmt: skip
    for rows, specs in plans.items():
        results = run_size(rows, specs, args, trees)
        raw["sizes"][str(rows)] = {name: {"spec": specs[name], **results[name]} for name in specs}
    elapsed = time.perf_counter() - clock
    named, mismatches = tables_from_raw(raw, sections)
    raw["mismatches"] = mismatches
    raw["elapsed_s"] = elapsed
    raw["parent_maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    command = " ".join(sys.argv[1:] if argv is None else argv)
    header = [
        f"Command: `python benchmarks/bench_compare.py {command}`",
        f"Run {started}, {elapsed / 60:.1f} min; {machine}",
        "; ".join(f"{side}: `{tree}` at {revisions[side]}" for side, tree in shown_trees.items()),
        "Versions: " + ", ".join(f"{name} {version}" for name, version in found.items()),
    ]
    print(report(header, named, mismatches))
    if mismatches:
        print(f"!!! {len(mismatches)} mean mismatch(es); see the end of the output !!!", file=sys.stderr)
    common.write_results(__file__, info, named, raw, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
