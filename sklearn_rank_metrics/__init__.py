"""Fast, exact ranking metrics and query-aware model selection for scikit-learn."""

from ._engine._results import QueryResults
from ._engine._threads import config_context, get_config, set_config
from .metrics import (
    cg_score,
    dcg_score,
    evaluate,
    f1_at_k_score,
    hit_rate_score,
    map_score,
    mrr_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    rank_correlation_score,
    recall_at_k_score,
    recall_cap_score,
)
from .model_selection import (
    QueryKFold,
    QueryRanker,
    QueryShuffleSplit,
    make_rank_scorer,
    make_rank_scorers,
)

__version__ = "0.1.0"

__all__ = [
    "QueryKFold",
    "QueryRanker",
    "QueryResults",
    "QueryShuffleSplit",
    "cg_score",
    "config_context",
    "dcg_score",
    "evaluate",
    "f1_at_k_score",
    "get_config",
    "hit_rate_score",
    "make_rank_scorer",
    "make_rank_scorers",
    "map_score",
    "mrr_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "rank_correlation_score",
    "recall_at_k_score",
    "recall_cap_score",
    "set_config",
]
