"""Query-aware model selection: splitters, scorers and the QueryRanker wrapper."""

from ._ranker import QueryRanker
from ._scorer import make_rank_scorer, make_rank_scorers
from ._split import QueryKFold, QueryShuffleSplit, RepeatedQueryKFold
from ._split_queries import SplitQueryWarning

__all__ = [
    "QueryKFold",
    "QueryRanker",
    "QueryShuffleSplit",
    "RepeatedQueryKFold",
    "SplitQueryWarning",
    "make_rank_scorer",
    "make_rank_scorers",
]
