"""Start-up of the rank-eval command, as a shell loop pays it: one fresh process a call.

    python benchmarks/bench_command_startup.py                    # this checkout
    python benchmarks/bench_command_startup.py main HEAD          # two commits, alternating
    python benchmarks/bench_command_startup.py main HEAD --cpus 2 --repeat 15

Each call is a fresh ``python -m sklearn_rank_metrics ...`` (what ``rank-eval``
runs), timed from its start to its exit: wall seconds, and the CPU seconds of
the process (all its threads). The cases:

* ``--help``;
* ``-m official QRELS RUN`` on a run of 10,000 lines (10 queries of 1000
  documents, ``bench_evaluate_run.py``'s files) and its qrels;
* ``python -c "import sklearn_rank_metrics"``.

Targets: ``--help`` in 0.3 s at most, the 10,000-line run in 0.5 s at most,
on two cores (``--cpus 2`` pins every child to the first two).

The package's modules are compiled to bytecode first (``compileall``), as an
installed package's are. Given two commits (any git revision), each one's ``sklearn_rank_metrics``
folder is exported (``git archive``, read-only git) into a temporary folder,
and calls of the two alternate, case by case, ``--repeat`` times each (the
first of each pair alternating too), so that the machine's load weighs on
both alike; the table gives the medians and after/before. Given none, the
checkout's package is measured. The results, every time included, are
written to a new JSON file in ``benchmarks/results/`` (``--json``).
"""

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))  # the checkout's package writes the files
import _common as common  # noqa: E402
from _common import machine_line, markdown_table, package_revision  # noqa: E402

TARGETS = {"--help": 0.3, "10,000-line run": 0.5}
LABELS = {
    "--help": "`rank-eval --help`",
    "10,000-line run": "`rank-eval -m official QRELS RUN`, 10,000 run lines",
    "import sklearn_rank_metrics": '`python -c "import sklearn_rank_metrics"`',
}


def summary_table(labels, summary):
    """Median wall seconds (CPU seconds, all threads) of each case and revision, and the target."""
    names = ["before", "after"] if len(labels) == 2 else ["seconds"]
    header = ["call", *(f"{name} (`{label}`)" for name, label in zip(names, labels)), "target"]
    rows = []
    for case, medians in summary.items():
        cells = [
            f"{medians['median_wall_s'][label]:.2f} s ({medians['median_cpu_s'][label]:.2f} s)"
            for label in labels
        ]
        target = TARGETS.get(case)
        rows.append([LABELS.get(case, case), *cells, f"{target:g} s" if target else ""])
    return common.table(header, rows)


def export(revision, folder):
    """The package folder of ``revision`` unpacked into ``folder``; the folder and the commit."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", revision], cwd=ROOT, check=True, capture_output=True,
        text=True,
    ).stdout.strip()  # fmt: skip
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "sklearn_rank_metrics"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout  # fmt: skip
    target = Path(folder) / commit
    target.mkdir()
    options = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, **options)
    return target, commit


def cases(qrels, run):
    return {
        "--help": ["-m", "sklearn_rank_metrics", "--help"],
        "10,000-line run": ["-m", "sklearn_rank_metrics", "-m", "official", str(qrels), str(run)],
        "import sklearn_rank_metrics": ["-c", "import sklearn_rank_metrics"],
    }


def timed(tree, argv, cpus):
    """Wall and CPU seconds of one fresh ``python argv`` importing the package from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    pin = None
    if cpus:
        allowed = sorted(os.sched_getaffinity(0))[:cpus]
        pin = lambda: os.sched_setaffinity(0, allowed)  # noqa: E731
    before = os.times()
    start = time.perf_counter()
    # Run from the tree: Python puts the working directory before PYTHONPATH.
    done = subprocess.run(
        [sys.executable, *argv], cwd=tree, env=env, capture_output=True, check=False,
        preexec_fn=pin,
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0:
        raise RuntimeError(f"{argv} at {tree}: exit {done.returncode}: {done.stderr[-500:]!r}")
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="*", help="none (this checkout), or BEFORE AFTER")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--cpus", type=int, default=0, help="pin each child to this many cores")
    common.add_json_option(parser)
    args = parser.parse_args(argv)
    info = common.run_info(argv)
    if len(args.revisions) not in (0, 2):
        parser.error("give no revision or two: BEFORE AFTER")

    from bench_evaluate_run import files

    with tempfile.TemporaryDirectory(prefix="bench_command_startup_") as folder:
        run, qrels = files(Path(folder), "1e4")
        if args.revisions:
            trees = dict(export(revision, folder)[::-1] for revision in args.revisions)
        else:
            trees = {package_revision(): ROOT}
        labels = list(trees)
        for tree in trees.values():
            # Bytecode, as an installed package has it (PYTHONDONTWRITEBYTECODE would
            # otherwise have every call compile the package's modules again).
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(Path(tree) / "sklearn_rank_metrics")],
                check=True,
            )
        times = {label: {case: [] for case in cases(qrels, run)} for label in labels}
        for case, command in cases(qrels, run).items():
            for label in labels:  # one call each first, untimed: the page cache
                timed(trees[label], command, args.cpus)
            for index in range(args.repeat):
                order = labels if index % 2 == 0 else labels[::-1]
                for label in order:
                    times[label][case].append(timed(trees[label], command, args.cpus))

    print(machine_line())
    print(f"{args.repeat} calls of each, children on {args.cpus or os.cpu_count()} cores")
    header = ["case", *(f"{label} wall s" for label in labels), *(f"{label} CPU s" for label in labels)]
    if len(labels) == 2:
        header.append(f"{labels[1]} / {labels[0]}")
    header.append("target s")
    rows, summary = [], {}
    for case in times[labels[0]]:
        walls = {label: statistics.median(w for w, _ in times[label][case]) for label in labels}
        cpus = {label: statistics.median(c for _, c in times[label][case]) for label in labels}
        summary[case] = {"median_wall_s": walls, "median_cpu_s": cpus}
        row = [case, *(f"{walls[label]:.3f}" for label in labels)]
        row += [f"{cpus[label]:.3f}" for label in labels]
        if len(labels) == 2:
            row.append(f"{walls[labels[1]] / walls[labels[0]]:.2f}")
        row.append(str(TARGETS.get(case, "")))
        rows.append(row)
    print(markdown_table(header, rows))
    raw = {
        "cpus": args.cpus or os.cpu_count(),
        "repeat": args.repeat,
        "revisions": labels,
        "targets_s": TARGETS,
        "summary": summary,
        "times_wall_cpu_s": times,
    }
    tables = {"startup": summary_table(labels, summary)}
    common.write_results(__file__, info, tables, raw, args.json)


if __name__ == "__main__":
    main()
