"""The small TREC run and qrels shipped with the package, and how they are made.

``python -m sklearn_rank_metrics.datasets._trec_example FOLDER`` writes them
again, byte for byte (the tests check that it does), from the package's
generator :func:`~sklearn_rank_metrics.datasets.make_ranking`:

- 8 topics (query ids ``"401"`` to ``"408"``, numbers written as text as
  TREC topics are), each with a pool of 12 to 20 documents graded 0 to 3;
- the run ranks each pool by a linear model's score, rounded to two decimals
  (so a few documents tie), and keeps the top 10 of each topic: the judged
  documents below that are in the qrels but not retrieved;
- two retrieved documents of every topic are left out of the qrels:
  retrieved but unjudged.
"""

import sys
from pathlib import Path

import numpy as np

from ._samples_generator import make_ranking

RUN_FILE = "trec_example.run"
QRELS_FILE = "trec_example.qrels"
RETRIEVED = 10
UNJUDGED = 2


def make_trec_example(random_state=0):
    """``(run, qrels)``: lists of ``(query_id, doc_id, score)``, ``(query_id, doc_id, grade)``."""
    X, y, qid = make_ranking(
        n_queries=8, docs_per_query=(12, 20), n_features=5, n_grades=4, random_state=random_state
    )
    rng = np.random.default_rng(random_state)
    # A linear model fit on the first half of the topics scores every document.
    train = qid < 4
    coef = np.linalg.lstsq(np.c_[X[train], np.ones(train.sum())], y[train], rcond=None)[0]
    score = np.round(np.c_[X, np.ones(len(X))] @ coef, 2) + 0.0  # + 0.0: no -0.0
    run, qrels = [], []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        query = str(401 + q)
        docs = [f"LA{q + 1:02d}{row:04d}" for row in rng.permutation(rows.shape[0]) + 100 * q]
        ranked = np.argsort(-score[rows], kind="stable")[:RETRIEVED]
        unjudged = set(rng.choice(ranked, size=UNJUDGED, replace=False).tolist())
        run += [(query, docs[i], float(score[rows[i]])) for i in ranked]
        qrels += [
            (query, docs[i], int(y[rows[i]])) for i in range(rows.shape[0]) if i not in unjudged
        ]
    return run, qrels


def write_trec_example(folder, random_state=0):
    """Write the run and the qrels into ``folder``; return their paths ``(qrels, run)``."""
    from ..trec import write_trec_run

    folder = Path(folder)
    run, qrels = make_trec_example(random_state)
    run_path, qrels_path = folder / RUN_FILE, folder / QRELS_FILE
    query_id, doc_id, score = zip(*run)
    write_trec_run(run_path, query_id, doc_id, score, run_name="linear")
    with open(qrels_path, "w", encoding="ascii", newline="\n") as handle:
        handle.writelines(f"{query} 0 {doc} {grade}\n" for query, doc, grade in sorted(qrels))
    return qrels_path, run_path


if __name__ == "__main__":
    write_trec_example(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "data")
