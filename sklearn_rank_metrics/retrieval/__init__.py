"""Recommender and dense-retrieval evaluation: top-k lists, and query and item vectors.

- :func:`evaluate_top_k`: top-k lists of item ids against a (sparse) label
  matrix holding every relevant item;
- :func:`evaluate_retrieval`: query and item vectors (user and item factors,
  or embeddings), each query's top items selected exactly, block by block;
- :func:`sample_ranks` and :func:`correct_sampled_metric`: sampled metrics
  (each held-out item ranked among a few sampled negatives) and their
  correction towards the full-catalogue metric (Krichene and Rendle), with
  :func:`sampled_metric_weights` the weights behind it.

Both exclude pairs (training interactions) and are exact under tied scores
at the cut; a sparse ``y_true`` with a dense score matrix goes to
:func:`~sklearn_rank_metrics.evaluate` itself.
"""

from ._sample_ranks import sample_ranks
from ._sampled import correct_sampled_metric, sampled_metric_weights
from ._top_k import evaluate_top_k
from ._vectors import evaluate_retrieval

__all__ = [
    "correct_sampled_metric", "evaluate_retrieval", "evaluate_top_k", "sample_ranks",
    "sampled_metric_weights",
]  # fmt: skip
