"""Comparing ranking models over the same queries: paired tests, intervals, effect sizes.

:func:`compare` evaluates each model's scores and compares them;
:func:`compare_results` compares per-query results already computed
(:func:`~sklearn_rank_metrics.evaluate` with ``average=None``). Both return
a :class:`ComparisonResults`: a table with, per model and metric, the mean
and its interval, the difference to the baseline with its interval, an
effect size, the p-value of a paired test and its corrected value, and the
queries won, tied and lost; ``plot_differences`` draws the per-query
differences.
"""

from ._compare import compare, compare_results
from ._results import ComparisonResults

__all__ = ["ComparisonResults", "compare", "compare_results"]
