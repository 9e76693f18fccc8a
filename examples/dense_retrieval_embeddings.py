"""Dense retrieval from embeddings: planted relevant documents, top-100 lists, a TREC run.
=======================================================================================

A corpus of 50,000 documents and 1,000 queries, embedded in 64 dimensions
(float32). Each query has one to three relevant documents planted in the
corpus, and its embedding lies near theirs: a stand-in for a bi-encoder on a
BEIR-style task, with nothing to download.

``evaluate_retrieval`` scores every query against every document by cosine
similarity, a block of queries at a time (the 1,000 x 50,000 score matrix is
never held whole), selects each query's top items exactly and computes the
measures BEIR and MTEB report: nDCG@10, MRR@10, Recall@100, R_cap@10. With
``return_top_k=100`` it also returns each query's top-100 documents and their
scores, which

- ``write_trec_run`` writes as a TREC run file (into a temporary folder), read
  back by ``evaluate_run`` against the qrels with trec_eval's conventions;
- ``evaluate_top_k`` evaluates as lists, with the same numbers.

Last, the embeddings are binarised (one bit a dimension, as vector databases
compress them): the scores become integers and tie, and the order given to
tied documents moves the numbers unless ``ties="average"`` takes the expected
value over every order.

Run with ``pip install "sklearn-rank-metrics[trec]" && python examples/dense_retrieval_embeddings.py``.
"""

import os
import tempfile

import numpy as np
import pandas as pd
from scipy.sparse import csr_array

from sklearn_rank_metrics import evaluate_retrieval, evaluate_top_k
from sklearn_rank_metrics.trec import evaluate_run, write_trec_run

rng = np.random.default_rng(0)
N_DOCS, N_QUERIES, DIMS = 50_000, 1_000, 64


def unit(vectors):
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


documents = unit(rng.standard_normal((N_DOCS, DIMS)))

# One to three relevant documents per query; the query lies near their mean.
n_relevant = rng.integers(1, 4, size=N_QUERIES)
query_rows = np.repeat(np.arange(N_QUERIES), n_relevant)
relevant_docs = rng.choice(N_DOCS, size=query_rows.size, replace=False)
centres = np.zeros((N_QUERIES, DIMS))
np.add.at(centres, query_rows, documents[relevant_docs])
queries = unit(centres / n_relevant[:, None] + 0.12 * rng.standard_normal((N_QUERIES, DIMS)))

# The qrels as a sparse (n_queries, n_docs) matrix of grades: 1 where relevant.
qrels = csr_array((np.ones(query_rows.size, dtype=np.int8), (query_rows, relevant_docs)),
                  shape=(N_QUERIES, N_DOCS))  # fmt: skip

METRICS = ["ndcg@10", "mrr@10", "recall@100", "recall_cap@10", "map@100"]
results, top_items, top_scores = evaluate_retrieval(
    queries, documents, qrels, similarity="cosine", metrics=METRICS, return_top_k=100
)
print(f"{N_QUERIES} queries x {N_DOCS} documents, {DIMS} dimensions, float32, cosine")
print(f"top lists: {top_items.shape} item ids, scores {top_scores.dtype}")
for name, value in results.items():
    print(f"  {name:<14}{value:.4f}")

# %%
# The top-100 lists as a TREC run, and back
# -----------------------------------------
# Query and document ids as strings, one line per (query, document): the run a
# retrieval system writes for trec_eval. ``evaluate_run`` reads it back with the
# qrels and gives trec_eval's numbers (it knows trec_eval's names too); here the
# scores have no ties, so they are the same as above. ``evaluate_top_k`` takes
# the lists themselves, R and the ideal DCG coming from the qrels matrix.

query_ids = np.array([f"q{i}" for i in range(N_QUERIES)])
doc_ids = np.array([f"d{j}" for j in range(N_DOCS)])
rows, positions = np.nonzero(top_items >= 0)
with tempfile.TemporaryDirectory() as folder:
    run_path = os.path.join(folder, "dense.run")
    write_trec_run(run_path, query_ids[rows], doc_ids[top_items[rows, positions]],
                   top_scores[rows, positions].astype(np.float64), run_name="dense")  # fmt: skip
    with open(run_path) as run_file:
        print("\nthe run file's first lines:")
        for _ in range(3):
            print("  " + run_file.readline().rstrip())
    judged_rows, judged_docs = qrels.nonzero()
    qrels_frame = pd.DataFrame({"query_id": query_ids[judged_rows],
                                "doc_id": doc_ids[judged_docs], "relevance": 1})  # fmt: skip
    from_file = evaluate_run(qrels_frame, run_path,
                             metrics=["ndcg_cut_10", "recall_100", "map_cut_100"])  # fmt: skip

from_lists = evaluate_top_k(qrels, top_items, top_scores=top_scores, metrics=METRICS)
print(f"\n{'measure':<14}{'vectors':>10}{'top-100 lists':>15}{'run file':>10}")
for name, trec_name in [("ndcg@10", "ndcg_cut_10"), ("mrr@10", None), ("recall@100", "recall_100"),
                        ("recall_cap@10", None), ("map@100", "map_cut_100")]:  # fmt: skip
    file_value = f"{from_file[trec_name]:.4f}" if trec_name else "-"
    print(f"{name:<14}{results[name]:>10.4f}{from_lists[name]:>15.4f}{file_value:>10}")

# %%
# Quantized embeddings: tied scores at the cut
# --------------------------------------------
# One bit a dimension: the dot product of two sign vectors is an even integer
# between -64 and 64, so dozens of documents share each score and the tenth
# place of a ranking usually falls inside a block of tied documents. Which of
# them are "in the top 10" is then a matter of the order given to ties:
# ``ties="first"`` takes the documents in id order, the optimistic and
# pessimistic orders give the bounds, and ``ties="average"`` (the default) the
# expected value over every order of the tied documents, the only number that
# does not depend on how the documents happen to be numbered.

bits_q, bits_d = np.sign(queries), np.sign(documents)
print("\nbinarised embeddings (dot product of sign vectors):")
print(f"{'ties':<13}" + "".join(f"{name:>15}" for name in ["ndcg@10", "mrr@10", "recall_cap@10"]))
for ties in ["average", "first", "optimistic", "pessimistic"]:
    quantized = evaluate_retrieval(bits_q, bits_d, qrels, ties=ties,
                                   metrics=["ndcg@10", "mrr@10", "recall_cap@10"])  # fmt: skip
    print(f"{ties:<13}" + "".join(f"{value:>15.4f}" for value in quantized.values()))
