"""Ranking metrics of a Spark DataFrame, computed on the executors.

:func:`evaluate` repartitions the rows by query id (or not, when the
partitions already hold whole queries), runs the in-memory
:func:`sklearn_rank_metrics.evaluate` on each partition through Arrow
(``mapInPandas``), reduces each partition to exact partial sums in Spark, and
adds them into the means on the driver: one small row per partition reaches
the driver, never a row of the input. It needs the ``spark`` extra:
``pip install "sklearn-rank-metrics[spark]"``.
"""

from .._distributed import require

require("spark", ["pyspark", "pandas", "pyarrow"])

from ._evaluate import evaluate  # noqa: E402 - after the check of the extra

__all__ = ["evaluate"]
