"""Fast, exact ranking metrics and query-aware model selection for scikit-learn.

The public names come from the sub-packages: :mod:`sklearn_rank_metrics.metrics`
(the metric functions, ``evaluate`` and ``QueryResults``),
:mod:`sklearn_rank_metrics.model_selection` (splitters, scorers and
``QueryRanker``), :mod:`sklearn_rank_metrics.comparison` (paired tests
between models) and :mod:`sklearn_rank_metrics.plot` (metric@k curves,
``RankingCurveDisplay``; drawing needs matplotlib), plus the configuration
functions. The sub-packages
:mod:`sklearn_rank_metrics.trec` (TREC run and qrels files),
:mod:`sklearn_rank_metrics.dask` and :mod:`sklearn_rank_metrics.spark`
(distributed evaluation) need optional extras and are imported on their own.
"""

from . import comparison, metrics, model_selection, plot, trec
from ._engine._threads import config_context, get_config, set_config
from .comparison import ComparisonResults, compare, compare_results
from .metrics import *  # noqa: F403 - names listed in metrics.__all__
from .model_selection import *  # noqa: F403 - names listed in model_selection.__all__
from .plot import RankingCurveDisplay

__version__ = "0.1.0"

__all__ = sorted(
    [
        *metrics.__all__,
        *model_selection.__all__,
        *comparison.__all__,
        "RankingCurveDisplay",
        "config_context",
        "get_config",
        "set_config",
    ]
)
