"""Time against rows: the package beside its peers, from benchmarks/results/time_vs_rows.csv.

Drawn by the performance page's plot directive at each docs build from the
recorded numbers; no benchmark runs here.
"""

import csv
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt

# The plot directive runs this file from its own folder, without __file__.
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
CSV = HERE.parents[1] / "benchmarks" / "results" / "time_vs_rows.csv"


def read(path=CSV):
    """``{tool: ([rows], [seconds])}`` in the file's order of tools."""
    series = defaultdict(lambda: ([], []))
    with open(path, encoding="utf-8") as handle:
        for row in csv.DictReader(line for line in handle if not line.startswith("#")):
            rows, seconds = series[row["tool"]]
            rows.append(int(row["rows"]))
            seconds.append(float(row["seconds"]))
    return dict(series)


def plot(series):
    figure, axes = plt.subplots(figsize=(7, 4.5), layout="constrained")
    for tool, (rows, seconds) in series.items():
        package = tool.startswith("sklearn-rank-metrics")
        style = dict(linewidth=2.5, marker="o") if package else dict(linewidth=1.2, marker=".")
        if "before" in tool or "argsort" in tool:
            style["linestyle"] = "--"
        axes.plot(rows, seconds, label=tool, **style)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("rows (documents), 100 a query")
    axes.set_ylabel("seconds (log scale)")
    axes.set_title("Four ranking metrics, interleaved rows, 2 cores")
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize="small", loc="lower right")
    return figure


plot(read())
