"""Every metric of sklearn-rank-metrics on a small built-in ranking, printed as a table.

Three queries of a search engine, each with the relevance grades (0-3) of the
documents it returned and the scores the model gave them. The rows are
interleaved, as learning-to-rank data often come: ``qid`` says which query
each document belongs to.

Run with ``python examples/quickstart.py``.
"""

import numpy as np

import sklearn_rank_metrics as srm

qid = np.array(["q1", "q2", "q3", "q1", "q2", "q3", "q1", "q2", "q3", "q1", "q2", "q1", "q3"])
y_true = np.array([3, 0, 1, 2, 0, 0, 3, 1, 0, 0, 2, 1, 2])
y_score = np.array([0.9, 0.3, 0.2, 0.8, 0.9, 0.7, 0.5, 0.6, 0.4, 0.7, 0.1, 0.1, 0.2])

rows = [
    ("NDCG@3", srm.ndcg_score, {"k": 3}),
    ("NDCG@3 (exp. gain)", srm.ndcg_score, {"k": 3, "gain": "exponential"}),
    ("DCG@3", srm.dcg_score, {"k": 3}),
    ("CG@3", srm.cg_score, {"k": 3}),
    ("MRR@3", srm.mrr_score, {"k": 3}),
    ("MAP@3", srm.map_score, {"k": 3}),
    ("MAP", srm.map_score, {}),
    ("P@3", srm.precision_at_k_score, {"k": 3}),
    ("Recall@3", srm.recall_at_k_score, {"k": 3}),
    ("F1@3", srm.f1_at_k_score, {"k": 3}),
    ("R_cap@3", srm.recall_cap_score, {"k": 3}),
    ("HitRate@1 (query)", srm.hit_rate_score, {"k": 1}),
    ("HitRate@3 (item)", srm.hit_rate_score, {"k": 3, "level": "item"}),
    ("R-precision", srm.r_precision_score, {}),
    ("RC", srm.rank_correlation_score, {}),
    ("Kendall tau-b", srm.rank_correlation_score, {"method": "kendall"}),
]

query_ids = np.unique(qid)
header = f"{'metric':<20}{'mean':>8}" + "".join(f"{q:>8}" for q in query_ids)
print(header)
print("-" * len(header))
for label, metric, kwargs in rows:
    mean = metric(y_true, y_score, qid=qid, **kwargs)
    per_query = metric(y_true, y_score, qid=qid, average=None, **kwargs)
    print(f"{label:<20}{mean:>8.4f}" + "".join(f"{v:>8.4f}" for v in per_query))

print()
print("All at once, one sort:", srm.evaluate(y_true, y_score, qid=qid, metrics=["ndcg@3", "map", "mrr@3"]))
