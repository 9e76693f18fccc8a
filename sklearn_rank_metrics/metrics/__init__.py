"""Ranking metrics: one function per metric, and ``evaluate`` for many at once."""

from ._evaluate import evaluate
from ._binary import (
    f1_at_k_score,
    hit_rate_score,
    map_score,
    mrr_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
    recall_cap_score,
)
from ._query_results import QueryResults
from ._ranking import cg_score, dcg_score, ndcg_score, rank_correlation_score

__all__ = [
    "QueryResults",
    "cg_score",
    "dcg_score",
    "evaluate",
    "f1_at_k_score",
    "hit_rate_score",
    "map_score",
    "mrr_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "rank_correlation_score",
    "recall_at_k_score",
    "recall_cap_score",
]
