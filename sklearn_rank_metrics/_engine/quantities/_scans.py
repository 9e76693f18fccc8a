"""Measures read document by document: ERR, bpref, infAP, binG, interpolated precision.

They have no closed form for their expectation over the orderings of tied
documents. They are computed on the ranking as sorted (a :class:`Ranking`,
from :func:`ranking_of`); under ``ties="average"`` that is exact only when
no tie block mixes documents the measure tells apart (every ordering of
such blocks gives the same value), and an error otherwise.
"""

from dataclasses import dataclass

import numpy as np

from ..prepare._segments import segment_ranks, sum_segments
from ._base import Quantity
from ._order_free import CountInList
from ._ties import segment_scan


TIE_FIXES = (
    "ties='first' (input order; 'trec_eval' in evaluate_run: score, then document id, "
    "descending), 'optimistic' or 'pessimistic' (higher or lower labels first)"
)


@dataclass
class Ranking:
    """The top ``k`` of each query of a chunk, one document after the other.

    ``labels`` in ranked order, ``query`` the query (in the chunk) of each,
    ``position`` its 0-based rank, ``starts`` where each query begins.
    """

    labels: np.ndarray
    query: np.ndarray
    position: np.ndarray
    starts: np.ndarray

    def count_before(self, flags):
        """Per document: how many documents ranked above it in its query have ``flags``."""
        through = np.cumsum(flags, dtype=np.int64)
        before = through - flags
        return before - np.append(before, 0)[self.starts][self.query]

    def per_query_sum(self, values):
        return sum_segments(values, self.starts)


def ranking_of(work, k, measure, classes):
    """The chunk's :class:`Ranking` cut at ``k``, checked to be the same in every tie order.

    ``classes(labels)`` gives per document the class the measure tells apart,
    as a float, and the flags of the documents whose place matters; a tie
    block (starting inside the cutoff) holding a document that matters and
    another of a different class raises a ValueError under ``ties="average"``.
    """
    chunk = work.chunk
    if not chunk.blocks_are_rows:
        labels = work.shared(("ranked_labels",), lambda: chunk.label_values[chunk.ranked_codes])
        value, matters = classes(labels)
        ptr = chunk.score_tie_ptr
        block_start = ptr[:-1]
        mixed = np.minimum.reduceat(value, block_start) != np.maximum.reduceat(value, block_start)
        mixed &= np.logical_or.reduceat(matters, block_start)
        block_query = chunk.row_query[block_start]
        mixed &= chunk.row_offset[block_start] < work.cutoffs(k)[block_query]
        if mixed.any():
            first = block_query[np.flatnonzero(mixed)[0]]
            first = chunk.parent.input.query_name(chunk.start + first)
            raise ValueError(
                f"{measure} has no closed form for its expected value over the orderings of "
                f"tied documents, and {int(mixed.sum())} block(s) of tied scores hold documents "
                f"it tells apart (e.g. in query {first!r}), so ties='average' cannot be "
                f"exact. Use {TIE_FIXES}, or break the ties in the scores."
            )
    key = None if k is None or k >= chunk.query_sizes.max() else k
    return work.shared(("ranking", key), lambda: _cut_ranking(work, key))


def _cut_ranking(work, k):
    """The chunk's documents in ranked order, the top ``k`` of each query (None: all)."""
    chunk = work.chunk
    labels = work.shared(("ranked_labels",), lambda: chunk.label_values[chunk.ranked_codes])
    query, position = chunk.row_query, chunk.row_offset
    if k is not None:
        inside = position < k
        labels, query, position = labels[inside], query[inside], position[inside]
    starts = np.searchsorted(query, np.arange(chunk.n_queries))
    return Ranking(labels, query, position, starts)


def _relevant_classes(threshold):
    """Relevant documents matter; they differ from every other document."""

    def classes(labels):
        relevant = labels >= threshold
        return relevant.astype(np.float64), relevant

    return classes


def _preference_classes(threshold):
    """Relevant documents matter; they differ from judged non-relevant ones (bpref skips others)."""

    def classes(labels):
        relevant = labels >= threshold
        return np.where((labels >= 0) & ~relevant, 1.0, 2.0), relevant

    return classes


def _judgment_classes(threshold):
    """Relevant documents matter; they differ from judged non-relevant, -2 and -1 documents."""

    def classes(labels):
        relevant = labels >= threshold
        value = np.where(relevant, 3.0, np.where(labels >= 0, 2.0, np.where(labels < -1, 1.0, 0.0)))
        return value, relevant

    return classes


@dataclass(frozen=True)
class CascadeGain(Quantity):
    """ERR@k: ``sum_{r <= k} (1/r) R_r prod_{i < r} (1 - R_i)``, ``R = (2**g - 1) / 2**max_grade``.

    ``g`` is the label (0 for a negative one); a label above ``max_grade``
    raises a ValueError. Under ties: exact where no tie block inside the
    cutoff holds different grades.
    """

    k: int | None
    max_grade: float

    def compute(self, work):
        def classes(labels):
            grade = np.maximum(labels, 0.0)
            return grade, grade > 0

        ranking = ranking_of(work, self.k, "ERR", classes)
        grade = np.maximum(ranking.labels, 0.0)
        if grade.size and grade.max() > self.max_grade:
            raise ValueError(
                f"ERR: a label of {grade.max():g} is above max_grade={self.max_grade:g}, where "
                "the stopping probability (2**label - 1) / 2**max_grade would exceed 1; set "
                f"ERR's parameter max_grade to the largest grade, {grade.max():g}, or more."
            )
        stop = (np.exp2(grade) - 1.0) / np.exp2(self.max_grade)
        lengths = np.diff(np.append(ranking.starts, grade.shape[0]))
        going_on = segment_scan(1.0 - stop, lengths, np.multiply)
        # Probability of reaching each document: the product over those above it.
        reached = np.ones_like(going_on)
        later = np.flatnonzero(segment_ranks(lengths) > 0)
        reached[later] = going_on[later - 1]
        return ranking.per_query_sum(stop * reached / (ranking.position + 1.0))


@dataclass(frozen=True)
class PreferenceSum(Quantity):
    """bpref's numerator: over the judged relevant documents, ``1 - min(n, R) / min(N, R)``.

    ``n`` counts the judged non-relevant documents ranked above it (1 where
    ``n = 0``), R the relevant documents and N the judged non-relevant ones
    of the query (Buckley and Voorhees, SIGIR 2004, as trec_eval).
    """

    level: float

    def compute(self, work):
        threshold = work.threshold(self.level)
        ranking = ranking_of(work, None, "bpref", _preference_classes(threshold))
        relevant = ranking.labels >= threshold
        nonrelevant = (ranking.labels >= 0) & ~relevant
        total = work.total_relevant(self.level)[ranking.query]
        judged_nonrelevant = work.value(CountInList(0.0, self.level))[ranking.query]
        before = ranking.count_before(nonrelevant)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = 1.0 - np.minimum(before, total) / np.minimum(judged_nonrelevant, total)
        return ranking.per_query_sum(np.where(relevant, np.where(before > 0, share, 1.0), 0.0))


def rounded_half_away(values):
    """C's ``lround`` of non-negative values: halves away from zero, exactly (no ``x + 0.5``)."""
    whole = np.floor(values)
    return (whole + (values - whole >= 0.5)).astype(np.int64)


INFAP_EPSILON = 0.00001


@dataclass(frozen=True)
class InferredPrecisionSum(Quantity):
    """infAP's numerator (Yilmaz and Aslam, CIKM 2006, as trec_eval computes it).

    A judged relevant document at 0-based rank ``j`` adds 1 at ``j = 0``, else
    ``1/(j+1) + j/(j+1) * (r + n + u)/j * (r + eps)/(r + n + 2 eps)``, with
    ``r``, ``n`` and ``u`` the relevant, judged non-relevant and unjudged
    pooled (label -2) documents above it, ``eps = 1e-5``.
    """

    level: float

    def compute(self, work):
        threshold = work.threshold(self.level)
        ranking = ranking_of(work, None, "infAP", _judgment_classes(threshold))
        labels = ranking.labels
        relevant = labels >= threshold
        r = ranking.count_before(relevant)
        n = ranking.count_before((labels >= 0) & ~relevant)
        u = ranking.count_before(labels < -1)
        j = ranking.position.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            later = (
                1.0 / (j + 1.0)
                + (j / (j + 1.0))
                * ((r + n + u) / j)
                * ((r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON))
            )
        value = np.where(ranking.position == 0, 1.0, later)
        return ranking.per_query_sum(np.where(relevant, value, 0.0))


@dataclass(frozen=True)
class NonrelevantDiscountSum(Quantity):
    """binG's numerator: over relevant documents, ``1 / log2(2 + non-relevant documents above)``."""

    level: float

    def compute(self, work):
        threshold = work.threshold(self.level)
        ranking = ranking_of(work, None, "binG", _relevant_classes(threshold))
        relevant = ranking.labels >= threshold
        above = ranking.position - ranking.count_before(relevant)
        return ranking.per_query_sum(np.where(relevant, 1.0 / np.log2(2.0 + above), 0.0))


@dataclass(frozen=True)
class InterpolatedPrecision(Quantity):
    """Interpolated precision at a recall level, as trec_eval (``iprec_at_recall``).

    The highest precision at or after the ``c``-th relevant document,
    ``c = round(recall R)`` (halves away from zero, trec_eval 10) or, with
    ``legacy_cut``, ``c = floor(recall R + 0.9)`` (trec_eval 9, pytrec_eval);
    0 where fewer than ``c`` relevant documents are ranked, the best
    precision anywhere for ``c = 0``.
    """

    recall: float
    level: float
    legacy_cut: bool = False

    def compute(self, work):
        threshold = work.threshold(self.level)

        def best_after():
            ranking = ranking_of(work, None, "iprec_at_recall", _relevant_classes(threshold))
            relevant = np.flatnonzero(ranking.labels >= threshold)
            query = ranking.query[relevant]
            starts = np.searchsorted(query, np.arange(work.chunk.n_queries))
            lengths = np.diff(np.append(starts, relevant.shape[0]))
            rank = segment_ranks(lengths) + 1.0
            precision = rank / (ranking.position[relevant] + 1.0)
            # Best precision at or after each relevant document: a maximum scan backwards.
            best = segment_scan(precision[::-1], lengths[::-1], np.maximum)[::-1]
            return best, starts, lengths

        best, starts, found = work.shared(("best_precision_after", threshold), best_after)
        total = work.total_relevant(self.level)
        if self.legacy_cut:
            wanted = np.floor(self.recall * total + 0.9).astype(np.int64)
        else:
            wanted = rounded_half_away(self.recall * total)
        reached = (found > 0) & (wanted <= found)
        index = starts + np.maximum(wanted, 1) - 1
        return np.where(reached, np.append(best, 0.0)[np.where(reached, index, best.shape[0])], 0.0)
