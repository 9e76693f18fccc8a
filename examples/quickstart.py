"""Every metric of sklearn-rank-metrics on a small built-in ranking, printed as a table.
=====================================================================================

Three queries of a search engine, each with the relevance grades (0-3) of the
documents it returned and the scores the model gave them. The rows are
interleaved, as learning-to-rank data often come: ``qid`` says which query
each document belongs to. One call of ``evaluate`` sorts the data once and
returns the value of every metric for every query.

Run with ``python examples/quickstart.py``.
"""

import numpy as np

import sklearn_rank_metrics as srm

qid = np.array(["q1", "q2", "q3", "q1", "q2", "q3", "q1", "q2", "q3", "q1", "q2", "q1", "q3"])
y_true = np.array([3, 0, 1, 2, 0, 0, 3, 1, 0, 0, 2, 1, 2])
y_score = np.array([0.9, 0.3, 0.2, 0.8, 0.9, 0.7, 0.5, 0.6, 0.4, 0.7, 0.1, 0.1, 0.2])

METRICS = [
    "ndcg@3", "dcg@3", "cg@3", "mrr@3", "map@3", "map", "precision@3", "recall@3", "f1@3",
    "recall_cap@3", "hit_rate@1", "hit_rate_item@3", "r_precision", "rc", "kendall",
]  # fmt: skip

results = srm.evaluate(y_true, y_score, qid=qid, metrics=METRICS, average=None)
means = results.mean()  # the same numbers as evaluate(..., average="mean")

header = f"{'metric':<16}{'mean':>8}" + "".join(f"{q:>8}" for q in results.query_ids)
print(header)
print("-" * len(header))
for name in results:
    print(f"{name:<16}{means[name]:>8.4f}" + "".join(f"{v:>8.4f}" for v in results[name]))

print()
print("NDCG@3 with exponential gain, from its function:",
      round(srm.ndcg_score(y_true, y_score, qid=qid, k=3, gain="exponential"), 4))  # fmt: skip
