"""Ranking metrics of a dask DataFrame, computed where its partitions live.

:func:`evaluate` shuffles the rows by query id once (or not at all when the
partitions already hold whole queries), runs the in-memory
:func:`sklearn_rank_metrics.evaluate` on each partition, and adds exact
partial sums of the per-query values into the means: one small row per
partition reaches the client, never a row of the input. It needs the
``dask`` extra: ``pip install "sklearn-rank-metrics[dask]"``.
"""

from .._distributed import require

require("dask", ["dask.dataframe", "pandas", "pyarrow"])

from ._evaluate import evaluate  # noqa: E402 - after the check of the extra

__all__ = ["evaluate"]
