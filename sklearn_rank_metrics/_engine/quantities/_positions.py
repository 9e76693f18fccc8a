"""Binary relevance by position: hits, reciprocal rank, hit probability, AP's sum, counts.

Each quantity has two paths: a head whose blocks are single documents
(no ties, or ties broken) reads where the relevant documents are
(``work.relevant_positions``, the helpers below); a head with tie blocks
takes the exact expectations of ``_ties.py``. Both give the same bits for
a query without ties. Each cutoff quantity's ``prefix`` gives its values at
every cutoff (``_curves.py``).
"""

from dataclasses import dataclass

import numpy as np

from ..prepare._segments import sequential_sum_segments, sum_segments
from ._base import Quantity, label_range
from ._curves import expected_gain_prefix, prefix_sums
from ._ties import (
    expected_gain_at_k,
    expected_precision_sum,
    expected_reciprocal_rank,
    first_relevant_terms,
    hit_probability,
    precision_terms,
)


@dataclass(frozen=True)
class Hits(Quantity):
    """Expected number of relevant documents (label >= ``level``) in the top ``k``."""

    k: int | None
    level: float

    def compute(self, work):
        if not work.head(self.k).tied:
            return relevant_counts(*work.relevant_positions(self.k, self.level))
        block_relevant, head = work.block_sum(self.k, work.relevance(self.level))
        return expected_gain_at_k(head, block_relevant, discounted=False)

    def prefix(self, work):
        block_relevant, head = work.block_sum(self.k, work.relevance(self.level))
        return expected_gain_prefix(head, block_relevant, self.k, discounted=False)


@dataclass(frozen=True)
class ReciprocalRank(Quantity):
    """Expected ``1 / rank`` of the first relevant document, 0 beyond ``k``."""

    k: int | None
    level: float

    def compute(self, work):
        head = work.head(self.k)
        if not head.tied:
            return first_relevant_reciprocal_rank(
                head, *work.relevant_positions(self.k, self.level)
            )
        block_relevant, head = work.block_sum(self.k, work.relevance(self.level))
        return expected_reciprocal_rank(head, block_relevant, work.cutoffs(self.k))

    def prefix(self, work):
        return first_relevant_prefix(work, self.k, self.level, reciprocal=True)


@dataclass(frozen=True)
class HitProbability(Quantity):
    """Probability that a relevant document is in the top ``k``."""

    k: int | None
    level: float

    def compute(self, work):
        if not work.head(self.k).tied:
            hits = relevant_counts(*work.relevant_positions(self.k, self.level))
            return (hits > 0).astype(np.float64)
        block_relevant, head = work.block_sum(self.k, work.relevance(self.level))
        return hit_probability(head, block_relevant)

    def prefix(self, work):
        return first_relevant_prefix(work, self.k, self.level, reciprocal=False)


@dataclass(frozen=True)
class PrecisionSum(Quantity):
    """Expected sum of precision@p over the relevant ranks ``p <= k`` (AP's numerator)."""

    k: int | None
    level: float

    def compute(self, work):
        head = work.head(self.k)
        if not head.tied:
            return relevant_precision_sum(head, *work.relevant_positions(self.k, self.level))
        block_relevant, head = work.block_sum(self.k, work.relevance(self.level))
        return expected_precision_sum(head, block_relevant)

    def prefix(self, work):
        head = work.head(self.k)
        if not head.tied:
            relevant, starts = work.relevant_positions(self.k, self.level)
            offsets, precision = relevant_precisions(head, relevant, starts)
            query = head.query[relevant]
        else:
            block_relevant, head = work.block_sum(self.k, work.relevance(self.level))
            query, rank, precision = precision_terms(head, block_relevant)
            offsets = rank - 1
        lengths = np.minimum(work.chunk.query_sizes, self.k)
        return prefix_sums(lengths, precision, lambda: (query, offsets))


def multiple_of_r(total, multiplier):
    """trec_eval's cutoffs at a multiple of R: ``floor(multiplier R + 0.9)`` (R itself for 1)."""
    if multiplier == 1.0:
        return total.astype(np.int64)
    return np.floor(multiplier * total + 0.9).astype(np.int64)


@dataclass(frozen=True)
class HitsAtR(Quantity):
    """Expected relevant documents in the top ``c``, ``c = floor(multiplier R + 0.9)``.

    R is each query's total of relevant documents (``c = R`` for
    ``multiplier=1``, R-precision's cutoff; trec_eval's ``Rprec_mult``).
    """

    level: float
    multiplier: float = 1.0

    def compute(self, work):
        cutoffs = multiple_of_r(work.total_relevant(self.level), self.multiplier)
        head = work.head(None)
        if not head.tied:
            # Single documents: count the relevant ones ranked above R, from the
            # relevant positions of the whole lists that other metrics share.
            return relevant_ranked_before(head, *work.relevant_positions(None, self.level), cutoffs)
        head = work.chunk.head(cutoffs)
        block_relevant = head.block_sum(work.relevance(self.level))
        return expected_gain_at_k(head, block_relevant, discounted=False)


@dataclass(frozen=True)
class Counted(Quantity):
    """Expected number of documents in the top ``k`` whose label lies in ``[low, high)``.

    Linear in the documents, so exact under ``ties="average"``: judged
    documents (``[0, inf)``), judged non-relevant ones (``[0, level)``),
    unjudged ones (``[-inf, 0)``).
    """

    k: int | None
    low: float
    high: float

    def compute(self, work):
        return expected_gain_at_k(*self._block_count(work), discounted=False)

    def prefix(self, work):
        return expected_gain_prefix(*self._block_count(work), self.k, discounted=False)

    def _block_count(self, work):
        """``(head, documents in the range per head block)`` of the head at ``k``."""
        table = work.label_table(label_range(work, self.low, self.high))
        block_count, head = work.block_sum(self.k, table)
        return head, block_count


def first_relevant_prefix(work, k, level, reciprocal):
    """Expected ``1 / rank`` of the first relevant document (``reciprocal``), or the
    probability that it is ranked, within every cutoff 1..k.

    Position ``p`` adds the probability that the first relevant document is
    at ``p`` (over ``p`` for the reciprocal rank): 1 at the first relevant
    position of a ranking without ties.
    """
    head = work.head(k)
    if not head.tied:
        queries, offsets = first_relevant_offsets(head, *work.relevant_positions(k, level))
        query, rank, probability = queries, offsets + 1, np.ones(queries.shape[0])
    else:
        block_relevant, head = work.block_sum(k, work.relevance(level))
        queries, n_terms, rank, probability = first_relevant_terms(
            head, block_relevant, work.cutoffs(k)
        )
        query = np.repeat(queries, n_terms)
    values = probability / rank if reciprocal else probability
    lengths = np.minimum(work.chunk.query_sizes, k)
    return prefix_sums(lengths, values, lambda: (query, rank - 1))


# With every block a single document, the binary-relevance metrics follow
# from where the relevant documents are: ``relevant`` lists the head blocks
# holding one, query by query, ``relevant[starts[q]:starts[q + 1]]`` those of
# query ``q`` (see ``flagged_per_query`` of the heads).
def relevant_counts(relevant, starts):
    """Relevant documents in each query's head (hits@k)."""
    return np.diff(np.append(starts, relevant.shape[0])).astype(np.float64)


def first_relevant_offsets(head, relevant, starts):
    """``(queries, offsets)``: the queries with a relevant document in the head, and its first one's."""
    queries = np.flatnonzero(np.append(starts[1:], relevant.shape[0]) > starts)
    return queries, head.offsets_of(relevant[starts[queries]], queries)


def first_relevant_reciprocal_rank(head, relevant, starts):
    """``1 / rank`` of each query's first relevant document in the head, else 0."""
    queries, offsets = first_relevant_offsets(head, relevant, starts)
    reciprocal_rank = np.zeros(starts.shape[0])
    reciprocal_rank[queries] = 1.0 / (offsets + 1.0)
    return reciprocal_rank


def relevant_precisions(head, relevant, starts):
    """``(offsets, precision)`` of the relevant documents: the j-th at rank p has precision j / p."""
    counts = np.diff(np.append(starts, relevant.shape[0]))
    precision = np.arange(1.0, relevant.shape[0] + 1.0)
    precision -= np.repeat(starts, counts)
    offsets = head.flagged_offsets(relevant, starts)
    precision /= offsets + 1.0
    return offsets, precision


def relevant_precision_sum(head, relevant, starts):
    """Sum of precision@p over the ranks p of relevant documents: the j-th adds j / p.

    Added in rank order, as trec_eval adds them (its AP prints the same 4th decimal).
    """
    return sequential_sum_segments(relevant_precisions(head, relevant, starts)[1], starts)


def relevant_ranked_before(head, relevant, starts, cutoffs):
    """Relevant documents of each query ranked before its own cutoff."""
    counts = np.diff(np.append(starts, relevant.shape[0]))
    inside = head.flagged_offsets(relevant, starts) < np.repeat(cutoffs, counts)
    return sum_segments(inside.astype(np.float64), starts)
