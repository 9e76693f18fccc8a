"""Time against rows: the package beside its peers, from the results files in benchmarks/results/.

Drawn by the performance page's plot directive at each docs build from the
recorded runs (the tables of ``bench_anchors.py``'s run and of
``bench_compare.py``'s run a day later); no benchmark runs here.
"""

import json
from pathlib import Path

import matplotlib.pyplot as plt

# The plot directive runs this file from its own folder, without __file__.
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
RESULTS = HERE.parents[1] / "benchmarks" / "results"
ANCHORS = "bench_anchors-20261122T2121Z.json"  # the peers, and the package before its engine
COMPARE = "bench_compare-20261123T1929Z.json"  # the package with its engine ("after")
# legend: (results file, table, its row's label, its seconds column)
SERIES = {
    "sklearn-rank-metrics evaluate": (COMPARE, "speed", "`evaluate`, 4 metrics", "after s"),
    "sklearn-rank-metrics evaluate (before the engine)": (
        ANCHORS, "tools", "sklearn-rank-metrics `evaluate`, interleaved qids", "seconds"
    ),
    "numpy argsort of the scores": (ANCHORS, "tools", "numpy `argsort(y_score)` (reference)", "seconds"),
    "scikit-learn ndcg_score (NDCG@10 only)": (
        ANCHORS, "tools", "scikit-learn `ndcg_score`, 2-D (reshape included)", "seconds"
    ),
    "pytrec_eval": (ANCHORS, "tools", "pytrec_eval (dicts built from arrays)", "seconds"),
    "ir_measures": (ANCHORS, "tools", "ir_measures (fed dicts)", "seconds"),
    "ranx": (ANCHORS, "tools", "ranx (Qrels/Run built from dicts)", "seconds"),
}


def read(results=RESULTS):
    """``{tool: ([rows], [seconds])}`` from the tables of the results files."""
    series = {}
    for tool, (name, table_name, label, column) in SERIES.items():
        table = json.loads((Path(results) / name).read_text())["tables"][table_name]
        first, rows, seconds = table["header"][0], table["header"].index("rows"), table["header"].index(column)
        assert first in ("tool", "function"), first
        picked = [row for row in table["rows"] if row[0] == label]
        series[tool] = ([int(float(row[rows])) for row in picked], [float(row[seconds]) for row in picked])
    return series


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
