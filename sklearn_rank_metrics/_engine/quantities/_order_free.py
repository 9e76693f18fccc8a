"""Order-free totals: per-query counts and sums that do not depend on the ranking.

Each is computed from a chunk's documents (``compute``) or read off the
(query x label value) histogram before the sort has finished
(``from_histogram``): relevant, graded and judged documents in each list,
whether a query has a positive label, its largest label, its total
positive gain. The ideal DCG, order-free too, is in ``_gains.py``.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ._base import OrderFree, Graded, Positive, PositivePart, Relevance, label_range, level_gain


@dataclass(frozen=True)
class RelevantInList(OrderFree):
    """Relevant documents (label >= ``level``) in each query's list."""

    level: float

    def compute(self, work):
        relevant = work.relevance(self.level).values
        return work.chunk.per_query_sum(relevant.take(work.chunk.ranked_codes))

    def from_histogram(self, evaluation, histogram):
        return histogram.count(evaluation.label_table(Relevance(evaluation.threshold(self.level))))


@dataclass(frozen=True)
class GradedInList(OrderFree):
    """Documents of each query whose label is neither 0 nor 1: 0 for a query of labels 0 and 1."""

    def compute(self, work):
        table = work.label_table(Graded())
        return work.chunk.per_query_sum(table.values.take(work.chunk.ranked_codes))

    def from_histogram(self, evaluation, histogram):
        return histogram.count(evaluation.label_table(Graded()))


@dataclass(frozen=True)
class CountInList(OrderFree):
    """Documents of each query whose label lies in ``[low, high)``.

    Judged non-relevant documents: ``[0, level)``.
    """

    low: float
    high: float

    def compute(self, work):
        table = work.label_table(label_range(work, self.low, self.high))
        return work.chunk.per_query_sum(table.values.take(work.chunk.ranked_codes))

    def from_histogram(self, evaluation, histogram):
        return histogram.count(evaluation.label_table(label_range(evaluation, self.low, self.high)))


@dataclass(frozen=True)
class HasGain(OrderFree):
    """Whether a query has a document of positive label."""

    dtype: ClassVar[np.dtype] = np.dtype(bool)

    def compute(self, work):
        chunk = work.chunk
        return chunk.label_values[chunk.per_query_max(chunk.ranked_codes)] > 0

    def from_histogram(self, evaluation, histogram):
        return histogram.count(evaluation.label_table(Positive())) > 0


@dataclass(frozen=True)
class MaxLabel(OrderFree):
    """The largest label of each query's documents."""

    def compute(self, work):
        chunk = work.chunk
        return chunk.label_values[chunk.per_query_max(chunk.ranked_codes)].astype(np.float64)

    def from_histogram(self, evaluation, histogram):
        return evaluation.rq.labels.values[histogram.max_codes()].astype(np.float64)


@dataclass(frozen=True)
class PositiveGain(OrderFree):
    """Each query's sum of positive gains, per level (:class:`~._base.LevelGain`)."""

    levels: tuple = ()

    def compute(self, work):
        table = work.label_table(PositivePart(level_gain(work.gain_name, self.levels)))
        return work.chunk.per_query_sum(table.values.take(work.chunk.ranked_codes))

    def from_histogram(self, evaluation, histogram):
        # Infinite gains (an error in the definitions' finalize) times counts of 0: NaN.
        with np.errstate(invalid="ignore"):
            return histogram.count(
                evaluation.label_table(PositivePart(level_gain(evaluation.gain, self.levels)))
            )
