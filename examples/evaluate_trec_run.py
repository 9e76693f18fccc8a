"""Evaluate a TREC run against its qrels, as trec_eval does, and what naive use gets wrong.
========================================================================================

The package ships a small run (8 topics, 10 documents retrieved a topic) and
its relevance judgments (qrels, grades 0-3). ``evaluate_run`` reads both
files and joins them as trec_eval does:

- judged documents the run did not retrieve still count: in R, the number
  of relevant documents (MAP, recall, R-precision divide by it) and in the
  ideal DCG (NDCG's denominator);
- retrieved documents absent from the qrels are not relevant;
- ``ties="trec_eval"`` (the default) orders documents of equal score by
  document id, descending, as trec_eval does, which gives its numbers
  exactly (and ``rank-eval``'s); ``ties="average"`` gives the exact mean over
  every order of the tied documents, which does not reward document names.

Run with ``python examples/evaluate_trec_run.py`` (needs pandas:
``pip install 'sklearn-rank-metrics[trec]'``).
"""

import pandas as pd

import sklearn_rank_metrics as srm
from sklearn_rank_metrics.datasets import load_trec_example
from sklearn_rank_metrics.trec import evaluate_run, read_trec_qrels, read_trec_run

MEASURES = ["map", "ndcg@10", "precision@5", "recall@10", "mrr", "r_precision"]

qrels_path, run_path = load_trec_example()

# 1. The means over the topics, ties averaged and broken as trec_eval breaks them (default).
means = pd.DataFrame(
    {
        'ties="average"': evaluate_run(qrels_path, run_path, metrics=MEASURES, ties="average"),
        'ties="trec_eval"': evaluate_run(qrels_path, run_path, metrics=MEASURES),
    }
)
print("Mean over the 8 topics:")
print(means.round(4).to_string())

# 2. Per topic: average=None returns the QueryResults, one row per topic.
per_topic = evaluate_run(qrels_path, run_path, metrics=MEASURES, average=None).to_frame()
print("\nPer topic (ties broken as trec_eval breaks them):")
print(per_topic.round(4).to_string())

# 3. The naive way: give the metric functions the retrieved documents only,
#    with the grade the qrels give each (0 where the qrels do not judge it).
run = read_trec_run(run_path)
qrels = read_trec_qrels(qrels_path)
retrieved = run.merge(qrels, on=["query_id", "doc_id"], how="left")
retrieved["relevance"] = retrieved["relevance"].fillna(0).astype(int)
naive_map = srm.map_score(retrieved["relevance"], retrieved["score"], qid=retrieved["query_id"])

# The functions see only the 10 retrieved documents of each topic, so R is
# the number of relevant documents *retrieved*: every relevant document the
# run missed is forgotten and each topic's AP divides by too small an R.
relevant = qrels[qrels["relevance"] >= 1].groupby("query_id").size()
relevant_retrieved = retrieved[retrieved["relevance"] >= 1].groupby("query_id").size()
print(
    f"\nMAP on the retrieved documents alone: {naive_map:.4f}, against {means.iloc[0, 0]:.4f} "
    f"from evaluate_run.\nRelevant documents over the 8 topics: {relevant.sum()} judged, "
    f"{relevant_retrieved.sum()} retrieved; the metric functions divide by the second count."
)

# The metric functions give trec_eval's number when told R: n_relevant (a
# mapping from query id to its number of relevant judged documents).
told = srm.map_score(
    retrieved["relevance"], retrieved["score"], qid=retrieved["query_id"],
    n_relevant=relevant.to_dict(),
)  # fmt: skip
print(f"MAP with n_relevant from the qrels: {told:.4f}")
