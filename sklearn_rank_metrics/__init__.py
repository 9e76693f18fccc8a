"""Fast, exact ranking metrics and query-aware model selection for scikit-learn.

The public names come from the sub-packages: :mod:`sklearn_rank_metrics.metrics`
(the metric functions, ``evaluate`` and ``QueryResults``),
:mod:`sklearn_rank_metrics.model_selection` (splitters, scorers and
``QueryRanker``), :mod:`sklearn_rank_metrics.retrieval` (recommender and
dense-retrieval evaluation: top-k lists, query and item vectors),
:mod:`sklearn_rank_metrics.comparison` (paired tests between models) and :mod:`sklearn_rank_metrics.plot` (metric@k curves,
``RankingCurveDisplay``; drawing needs matplotlib), plus the configuration
functions. The sub-packages
:mod:`sklearn_rank_metrics.trec` (TREC run and qrels files),
:mod:`sklearn_rank_metrics.dask` and :mod:`sklearn_rank_metrics.spark`
(distributed evaluation) need optional extras and are imported on their own.

Each name is imported when it is first used (:pep:`562`), not with the
package: ``import sklearn_rank_metrics`` costs no scikit-learn, SciPy or
pandas import, and the ``rank-eval`` command starts without them.
``from sklearn_rank_metrics import ndcg_score`` works as usual.
"""

from ._lazy import lazy_names

__version__ = "0.1.0"

# Where each public name lives: the sub-package whose __all__ lists it
# (test_package checks that the two agree).
_SOURCES = {
    ".metrics": (
        "QueryResults", "cg_score", "dcg_score", "evaluate", "f1_at_k_score",
        "hit_rate_score", "map_score", "mrr_score", "ndcg_score", "precision_at_k_score",
        "r_precision_score", "rank_correlation_score", "recall_at_k_score", "recall_cap_score",
    ),
    ".model_selection": (
        "QueryKFold", "QueryRanker", "QueryShuffleSplit", "RepeatedQueryKFold",
        "SplitQueryWarning", "make_rank_scorer", "make_rank_scorers",
    ),
    ".comparison": ("ComparisonResults", "compare", "compare_results"),
    ".retrieval": (
        "correct_sampled_metric", "evaluate_retrieval", "evaluate_top_k", "sample_ranks",
        "sampled_metric_weights",
    ),
    ".plot": ("RankingCurveDisplay",),
    "._engine._threads": ("config_context", "get_config", "set_config"),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}
# The sub-packages reachable as attributes, as after ``from . import ...``.
_SUBPACKAGES = ("comparison", "metrics", "model_selection", "plot", "retrieval", "trec")

__all__ = sorted(_MODULE_OF)

__getattr__, __dir__ = lazy_names(__name__, globals(), _MODULE_OF, _SUBPACKAGES)
