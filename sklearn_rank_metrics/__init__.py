"""Fast, exact ranking metrics and query-aware model selection for scikit-learn.

The public names come from the sub-packages: :mod:`sklearn_rank_metrics.metrics`
(the metric functions, ``evaluate`` and ``QueryResults``) and
:mod:`sklearn_rank_metrics.model_selection` (splitters, scorers and
``QueryRanker``), plus the configuration functions.
"""

from . import metrics, model_selection
from ._engine._threads import config_context, get_config, set_config
from .metrics import *  # noqa: F403 - names listed in metrics.__all__
from .model_selection import *  # noqa: F403 - names listed in model_selection.__all__

__version__ = "0.1.0"

__all__ = sorted(
    [*metrics.__all__, *model_selection.__all__, "config_context", "get_config", "set_config"]
)
