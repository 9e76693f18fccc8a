"""Does one ranker really beat another? A paired comparison over the test queries.
===============================================================================

Three models are trained on the bundled LightGBM lambdarank data (201
training queries) and scored on its 50 test queries:

- ``LGBMRanker``, a listwise learning-to-rank booster (LambdaRank);
- ``Ridge``, a pointwise linear regression of the relevance grade;
- ``RandomForestRegressor``, a pointwise forest of the grade.

``compare`` evaluates each model's scores once and compares every model to
the baseline (the first, LGBMRanker) query by query: for each metric the
mean and its 95% interval, the mean difference to the baseline with its
interval, the effect size, the p-value of the paired randomization test,
its Holm correction over the comparisons of the metric, and the queries
won, tied and lost. The table is printed, and the per-query differences of
NDCG@10 to the baseline, sorted, are drawn as a bar chart (one bar per
query) saved as a PNG: into a temporary folder, or where the command line
says. Beside it, a second PNG draws the three models' NDCG@k curves,
k = 1 .. 20, on one axes (``RankingCurveDisplay``), with 95% bands over
the queries.

Run with::

    pip install -e ".[lightgbm,plot]" && python examples/compare_models.py [chart.png]
"""

import os
import sys
import tempfile

import lightgbm
import matplotlib

matplotlib.use("Agg")  # draw to files; no window
import matplotlib.pyplot as plt
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge

from sklearn_rank_metrics import RankingCurveDisplay
from sklearn_rank_metrics.comparison import compare
from sklearn_rank_metrics.datasets import load_lambdarank_example

METRICS = ["ndcg@10", "map@10", "mrr@10"]


def main(chart_path=None):
    data = load_lambdarank_example()
    X, y, qid = data.X_train, data.y_train, data.qid_train
    group_sizes = [int((qid == q).sum()) for q in dict.fromkeys(qid)]  # rows of a query are contiguous

    models = {
        "LGBMRanker": lightgbm.LGBMRanker(
            n_estimators=100, learning_rate=0.05, num_threads=1, random_state=0, verbose=-1
        ).fit(X, y, group=group_sizes),
        "Ridge": Ridge(alpha=10.0).fit(X, y),
        "RandomForest": RandomForestRegressor(
            n_estimators=30, min_samples_leaf=5, max_features=0.3, n_jobs=1, random_state=0
        ).fit(X, y),
    }
    scores = {name: model.predict(data.X_test) for name, model in models.items()}

    result = compare(data.y_test, scores, qid=data.qid_test, metrics=METRICS, random_state=0)
    print(result)

    if chart_path is None:
        chart_path = os.path.join(tempfile.mkdtemp(prefix="compare_models_"), "ndcg_differences.png")
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.5), sharey=True)
    result.plot_differences("ndcg@10", ax=axes[0], model="Ridge")
    result.plot_differences("ndcg@10", ax=axes[1], model="RandomForest")
    fig.tight_layout()
    fig.savefig(chart_path, dpi=100)  # the figure stays open: the docs' gallery shows it
    print(f"\nPer-query differences of NDCG@10 to LGBMRanker, sorted: {chart_path}")

    # The models' NDCG@k curves on one axes: each call draws on the first one's axes.
    curve_path = os.path.splitext(chart_path)[0] + "_ndcg_at_k.png"
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, score in scores.items():
        RankingCurveDisplay.from_predictions(
            data.y_test, score, qid=data.qid_test, metric="ndcg", k_max=20,
            confidence_band=0.95, name=name, ax=ax,
        )  # fmt: skip
    ax.set_title("NDCG@k on the 50 test queries (95% bands over queries)")
    fig.tight_layout()
    fig.savefig(curve_path, dpi=100)  # open too: the gallery shows both figures
    print(f"NDCG@k curves, k = 1 .. 20: {curve_path}")
    return result


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
