"""Shared pieces of the benchmark scripts: data, memory probes, tables.

Not part of the package. The scripts in this folder import it as a sibling
module (``python benchmarks/bench_*.py`` puts this folder on ``sys.path``).

Every script ends with :func:`write_results`: one JSON file per run in
``benchmarks/results/`` holding the run's facts (:func:`run_info`: date,
command, commit, machine), its raw numbers and its tables as printed.
``benchmarks/render_tables.py`` puts those tables into the docs.
"""

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DOCS_PER_QUERY = 100
LABEL_PROBABILITIES = (0.50, 0.25, 0.13, 0.08, 0.04)  # graded labels 0..4
RESULT_PREFIX = "BENCH-RESULT "


def parse_rows(text):
    """``"1e6"`` -> 1000000, rounded to a whole number of ~100-document queries."""
    rows = int(float(text))
    if rows < DOCS_PER_QUERY:
        raise ValueError(f"--rows must be at least {DOCS_PER_QUERY}, got {text!r}")
    return rows - rows % DOCS_PER_QUERY


def generate(rows, seed=0):
    """Deterministic benchmark data: interleaved int qids, graded labels, tie-free scores.

    * ``rows // 100`` queries of exactly 100 documents each (so the same data
      also fits scikit-learn's 2-D ``(n_queries, 100)`` layout), query ids
      ``0 .. n_queries-1`` in a random row order (interleaved, not grouped);
    * labels 0-4 (float64) drawn with probabilities 50/25/13/8/4 %;
    * scores: ``label + 1.5 * N(0, 1)`` replaced by its rank divided by
      ``rows`` -- float64, informative, and tie-free by construction (so
      tools that break ties differently must agree exactly).
    """
    rng = np.random.default_rng(seed)
    n_queries = rows // DOCS_PER_QUERY
    qid = rng.permutation(np.repeat(np.arange(n_queries, dtype=np.int64), DOCS_PER_QUERY))
    y_true = rng.choice(
        len(LABEL_PROBABILITIES), size=rows, p=LABEL_PROBABILITIES
    ).astype(np.float64)
    latent = y_true + 1.5 * rng.standard_normal(rows)
    y_score = np.empty(rows, dtype=np.float64)
    y_score[np.argsort(latent, kind="stable")] = np.arange(rows, dtype=np.float64) / rows
    return y_true, y_score, qid


def write_data(directory, rows, seed=0):
    """Write the interleaved and the query-grouped copies of the data as .npy files."""
    return write_layouts(directory, *generate(rows, seed))


def write_layouts(directory, y_true, y_score, qid):
    """Save the arrays as given (interleaved) and sorted by query, for :func:`load_data`.

    Returns the input bytes of one layout.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    np.save(directory / "y_true.npy", y_true)
    np.save(directory / "y_score.npy", y_score)
    np.save(directory / "qid.npy", qid)
    grouped = np.argsort(qid, kind="stable")  # contiguous query blocks, docs in random order
    np.save(directory / "grouped_y_true.npy", y_true[grouped])
    np.save(directory / "grouped_y_score.npy", y_score[grouped])
    np.save(directory / "grouped_qid.npy", qid[grouped])
    return y_true.nbytes + y_score.nbytes + qid.nbytes


def load_data(directory, grouped=False):
    directory = Path(directory)
    prefix = "grouped_" if grouped else ""
    return tuple(
        np.load(directory / f"{prefix}{name}.npy") for name in ("y_true", "y_score", "qid")
    )


def _status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def peak_rss_bytes():
    """High-water mark of this process's resident set (VmHWM).

    Not ``ru_maxrss``: on Linux that survives ``fork``/``exec`` and so starts a
    child at its parent's peak.
    """
    return _status_kib("VmHWM")


def reset_peak_rss():
    """Reset the high-water mark to the current RSS where the kernel allows it.

    Returns the baseline the next :func:`peak_rss_bytes` should be compared
    with: the current RSS after a reset, else the high-water mark so far.
    """
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return _status_kib("VmRSS")
    except OSError:
        return peak_rss_bytes()


def best_time(function, repeat):
    """Best wall-clock seconds of ``repeat`` calls, and the last result."""
    best = float("inf")
    result = None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def median_times(functions, repeat):
    """Call ``functions`` in turn, ``repeat`` rounds; each one's median seconds, times, last result.

    Alternating the calls spreads any drift of the machine's speed over all of them.
    """
    times = [[] for _ in functions]
    results = [None] * len(functions)
    for _ in range(max(1, repeat)):
        for index, function in enumerate(functions):
            start = time.perf_counter()
            results[index] = function()
            times[index].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times], times, results


def traced_peak_bytes(function):
    """Peak bytes allocated (and tracked by tracemalloc) while ``function`` runs.

    NumPy reports its data buffers to tracemalloc, so for NumPy code this is
    the memory growth beyond the inputs, which exist before tracing starts.
    """
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def emit(result):
    """Child side: print the result as one JSON line the parent picks up."""
    sys.stdout.write(RESULT_PREFIX + json.dumps(result) + "\n")
    sys.stdout.flush()


def _busy_seconds():
    """CPU seconds the whole machine spent busy (all cores; /proc/stat), and steal."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq) / tick, steal / tick


def _children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_for_quiet(max_wait, threshold=0.3, window=2.0):
    """Wait (at most ``max_wait`` s) until other processes use under ``threshold`` cores.

    Returns the seconds waited. The parent is idle meanwhile, so all the
    machine's busy time in a ``window`` is other work.
    """
    start = time.perf_counter()
    while time.perf_counter() - start < max_wait:
        busy0, _ = _busy_seconds()
        time.sleep(window)
        busy1, _ = _busy_seconds()
        if (busy1 - busy0) / window < threshold:
            break
    return time.perf_counter() - start


def run_child(args, timeout, cwd=None, env=None):
    """Parent side: run ``python <args>`` in a fresh process and parse its result line.

    ``cwd`` and ``env`` go to :func:`subprocess.run`. Also measures how busy
    the machine was with *other* work meanwhile: ``other_cpu`` is the
    machine's busy CPU time less the child's own, per second of the child's
    wall time (0 on a quiet machine; 2 means two other cores' worth of work
    competed with it on a 2-core machine).
    """
    command = [sys.executable, *args]
    load = os.getloadavg()[0]
    busy0, steal0 = _busy_seconds()
    own0 = _children_cpu_seconds()
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, check=False, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - start
    busy1, steal1 = _busy_seconds()
    own = _children_cpu_seconds() - own0
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            result = json.loads(line[len(RESULT_PREFIX):])
            result["child_wall_s"] = wall
            result["load_before"] = load
            result["other_cpu"] = max(0.0, (busy1 - busy0 - own) / wall)
            result["steal_cpu"] = (steal1 - steal0) / wall
            return result
    tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
    return {"error": f"exit {done.returncode}: " + " | ".join(tail)}


DISTRIBUTIONS = {
    "sklearn_rank_metrics": "sklearn-rank-metrics",
    "sklearn": "scikit-learn",
    "pytrec_eval": "pytrec-eval-terrier",
    "ir_measures": "ir-measures",
}


def versions(modules):
    """``{module: version}`` of the importable ones, without importing them."""
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    found = {}
    for name in modules:
        if find_spec(name) is None:
            continue
        try:
            found[name] = version(DISTRIBUTIONS.get(name, name))
        except PackageNotFoundError:
            found[name] = "?"
    return found


def package_revision(root=None):
    """Commit of the package source in ``root`` (default: this checkout), '+changes' when it differs.

    Read-only git commands only.
    """
    root = Path(root) if root else Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], check=False, cwd=root, capture_output=True, text=True
        ).stdout.strip()
        if not commit:
            return "unknown (not a git checkout)"
        dirty = subprocess.run(
            ["git", "diff", "--quiet", "HEAD", "--", "sklearn_rank_metrics"],
            check=False, cwd=root, capture_output=True,
        ).returncode  # fmt: skip
    except OSError:
        return "unknown"
    return commit + ("+uncommitted changes" if dirty else "")


def usable_cpus():
    """The CPUs this process may use (its affinity: ``taskset`` pins a run to a few)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def machine_line():
    cpus = usable_cpus()
    total = os.cpu_count()
    with open("/proc/meminfo") as meminfo:
        total_kib = int(meminfo.readline().split()[1])
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.system()} {platform.machine()}, {cpus} cores"
        + (f" (pinned, of {total})" if cpus != total else "")
        + ", "
        f"{total_kib / 2**20:.0f} GiB RAM, Python {platform.python_version()}, "
        f"load average {load}"
    )


RESULTS = Path(__file__).resolve().parent / "results"


def run_info(argv=None, root=None):
    """The facts every results file starts with: date, command, commit, machine and versions."""
    with open("/proc/meminfo") as meminfo:
        total_kib = int(meminfo.readline().split()[1])
    argv = sys.argv[1:] if argv is None else list(argv)
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["python", "benchmarks/" + Path(sys.argv[0]).name, *argv]),
        "commit": package_revision(root),
        "machine": {
            "system": f"{platform.system()} {platform.machine()}",
            "cpu_count": usable_cpus(),
            "cpus_on_machine": os.cpu_count(),
            "memory_gib": round(total_kib / 2**20, 1),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "line": machine_line(),
        },
    }


def table(header, rows, title=""):
    """One table of a results file: what :func:`markdown_table` prints, as data."""
    return {"title": title, "header": list(header), "rows": [[str(cell) for cell in row] for row in rows]}


def write_results(script, info, tables, raw=None, path=None):
    """Write one run's results as JSON; return the path.

    ``tables`` maps a name to :func:`table`'s dict; ``raw`` holds the
    measurements behind them. The default path is
    ``benchmarks/results/<script>-<UTC date and time>.json``.
    """
    stem = Path(script).stem
    if path is None:
        path = RESULTS / f"{stem}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"script": Path(script).name, **info, "tables": tables, "raw": raw}
    path.write_text(json.dumps(payload, indent=1, default=float) + "\n")
    print(f"# results written to {path}", file=sys.stderr)
    return path


def add_json_option(parser):
    """``--json PATH``: where :func:`write_results` writes (default: a new file in benchmarks/results)."""
    parser.add_argument(
        "--json", metavar="PATH",
        help="write the results here (default: benchmarks/results/<script>-<date>.json)",
    )  # fmt: skip


def mb(nbytes):
    return "" if nbytes is None else f"{nbytes / 1e6:,.0f}"


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
