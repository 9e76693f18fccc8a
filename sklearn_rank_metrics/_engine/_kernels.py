"""Metric kernels: the named per-query quantities metrics combine, and how each is computed.

A *quantity* is a small frozen dataclass (:class:`Quantity`): its class says
what it is and holds its computation, its fields are its parameters (a
cutoff, a relevance level, ...). Equal quantities are equal keys, so a
quantity several metrics need is computed once. Two kinds:

- *ranked* quantities depend on the order of the documents. ``compute``
  runs on one chunk of whole queries (a :class:`~._evaluation.ChunkWork`,
  which shares heads, label tables and block sums among the quantities of
  the chunk) and returns one value per query of the chunk;
- *order-free* totals (:class:`OrderFree`) do not: they also have
  ``from_histogram``, which reads them off the (query x label value)
  histogram before the sort has finished, when it is small.

Under ``ties="average"`` each ranked quantity is the *exact expected value*
over all orderings of tied documents: a tie block of ``m`` documents, ``r``
of them relevant, occupying positions ``s+1 .. s+m`` puts a uniformly random
subset of its documents at any set of its positions, so expectations follow
from linearity and the hypergeometric distribution (McSherry & Najork, ECIR
2008). For a block of one document every formula gives, bit for bit, the
plain deterministic value: a query's values never depend on whether other
queries of its chunk have ties (so neither on the chunking, the threads, nor
the other queries of the call).
"""

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ._factorize import run_starts
from ._segments import segment_ranks, sequential_sum_segments, sum_by_group, sum_segments


# ------------------------------------------------------- label functions
# A value per label value, looked up from the ranked label codes. Frozen
# dataclasses: equal functions share one table.
@dataclass(frozen=True)
class LabelGain:
    """The gain of a label value: itself (``"linear"``) or ``2**label - 1`` (``"exponential"``).

    Negative labels (documents a TREC run retrieved that are not judged, see
    :mod:`._judgments`) gain 0, as in trec_eval.
    """

    gain: str

    def __call__(self, values):
        values = np.maximum(values, 0)
        if self.gain == "linear":
            return values.astype(np.float64)
        mantissa, exponent = exponential_parts(values)
        with np.errstate(over="ignore"):
            return power_of_two(mantissa, exponent) - 1.0


def exponential_parts(values):
    """``(2**frac(v), floor(v))``: ``2**v`` as a mantissa and an exact power of two.

    Exponential gains, scaled or not, are built from these with exact
    ``ldexp`` (:func:`power_of_two`), so that a gain scaled by ``2**-e`` is
    the unscaled gain times ``2**-e`` bit for bit. The exponents are exact:
    int64 for integer labels, whole floats for float labels (beyond int64
    too, so that two labels' difference stays exact).
    """
    if values.dtype.kind in "iu":  # integers kept exact (from 2**53 on): powers of two
        if values.shape[0] and values.max() > np.iinfo(np.int64).max:
            raise ValueError(
                "y_true holds labels beyond 2**63 - 1, whose gains 2**label - 1 cannot be "
                "computed even scaled; use gain='linear', or smaller labels."
            )
        return np.ones(values.shape), values.astype(np.int64)
    whole = np.floor(values)
    return np.exp2(values - whole), whole


def power_of_two(mantissa, exponent):
    """``mantissa * 2**exponent``, exactly; exponents beyond int64 (whole floats): inf or 0."""
    exponent = np.asarray(exponent)
    if exponent.dtype.kind == "f":
        exponent = np.clip(exponent, -(2.0**62), 2.0**62).astype(np.int64)
    return np.ldexp(mantissa, exponent)


@dataclass(frozen=True)
class Relevance:
    """1.0 for a label at or above ``threshold``, else 0.0."""

    threshold: float

    def __call__(self, values):
        return (values >= self.threshold).astype(np.float64)


@dataclass(frozen=True)
class LabelRange:
    """1.0 for a label in ``[low, high)``, else 0.0 (thresholds in the labels' precision)."""

    low: float
    high: float

    def __call__(self, values):
        return ((values >= self.low) & (values < self.high)).astype(np.float64)


# trec_eval's conventions for labels: a label >= 0 is judged; -1 is a
# document not in the qrels, -2 one in them with a negative judgment ("in the
# pool, unjudged"); relevant means label >= the relevance level.
def label_range(evaluation, low, high):
    """The :class:`LabelRange` of relevance levels ``[low, high)``, in the labels' precision."""
    return LabelRange(*(evaluation.threshold(b) if math.isfinite(b) else b for b in (low, high)))


@dataclass(frozen=True)
class Positive:
    """1.0 for a label above 0, else 0.0."""

    def __call__(self, values):
        return (values > 0).astype(np.float64)


@dataclass(frozen=True)
class Graded:
    """1.0 for a label other than 0 and 1 (a grade), else 0.0."""

    def __call__(self, values):
        return ((values != 0) & (values != 1)).astype(np.float64)


# ---------------------------------------------------------- quantities
@dataclass(frozen=True)
class Quantity:
    """A per-query number a metric needs, named by its class and its fields.

    ``dtype`` is that of one query's value: float64 for most; a structured
    dtype for several numbers counted together (:class:`PairCounts`). A
    :class:`Curve` holds a :class:`RaggedCurve` instead of an array.
    """

    dtype: ClassVar[np.dtype] = np.dtype(np.float64)

    def compute(self, work):
        """The values of the queries of one chunk (``work`` is its ChunkWork)."""
        raise NotImplementedError

    def join(self, n_queries, bounds, parts):
        """The values of ``n_queries`` from those of the chunks ``bounds`` (``parts``, freed as copied).

        The dtype is the quantity's, not a chunk part's: a kernel may return
        ints for a chunk where it had nothing to add up. Queries in no chunk
        ranked nothing: the zeros of an empty list.
        """
        values = np.zeros(n_queries, dtype=self.dtype)
        for index, (start, stop) in enumerate(bounds):
            values[start:stop] = parts[index]
            parts[index] = None
        return values

    def prefix(self, work):
        """A cutoff quantity's values at every cutoff ``1 .. self.k`` (a :class:`RaggedCurve`).

        Only quantities with a cutoff ``k`` have one (see :class:`Curve`).
        """
        raise NotImplementedError


@dataclass(frozen=True)
class OrderFree(Quantity):
    """A total that does not depend on the order of the documents."""

    def from_histogram(self, evaluation, histogram):
        """The values of every query from the label histogram, or None where it cannot tell."""
        return None


@dataclass(frozen=True)
class ExpectedGain(Quantity):
    """Expected (discounted) cumulative gain of the top ``k`` (``k=None``: whole lists).

    ``scaled``: gains divided per query by a power of two where an unscaled
    sum could overflow (see :meth:`~._evaluation.ChunkWork.gain_exponents`).
    """

    k: int | None
    discounted: bool
    scaled: bool = False
    levels: tuple = ()  # gains per relevance level (see LevelGain); unscaled

    def compute(self, work):
        # Unscaled gains may overflow: DCG and CG raise an error for a non-finite value.
        with np.errstate(over="ignore", invalid="ignore"):
            return expected_gain_at_k(*self._block_gain(work), discounted=self.discounted)

    def prefix(self, work):
        with np.errstate(over="ignore", invalid="ignore"):
            return expected_gain_prefix(*self._block_gain(work), self.k, self.discounted)

    def _block_gain(self, work):
        """``(head, block gains)`` of the head at ``k``."""
        if self.scaled:
            per_document = work.scaled_gains()
        else:
            per_document = work.label_table(level_gain(work.evaluation, self.levels))
        with np.errstate(over="ignore", invalid="ignore"):
            block_gain, head = work.block_sum(self.k, per_document)
        return head, block_gain


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
        table = work.label_table(label_range(work.evaluation, self.low, self.high))
        block_count, head = work.block_sum(self.k, table)
        return head, block_count


@dataclass(frozen=True)
class GeometricGain(Quantity):
    """Expected ``sum_{i <= k} 1[label_i in [low, high)] p**(i - 1)``, RBP's sum (persistence p).

    ``graded``: ``max(label_i, 0)`` instead of the indicator (trec_eval 10's gains).

    Linear in the documents: a tie block after ``s`` documents with ``t`` of
    its ``m`` positions inside the cutoff weighs each of its documents
    ``p**s (1 - p**t) / ((1 - p) m)``, the mean weight of those positions.
    """

    k: int | None
    persistence: float
    low: float
    high: float
    graded: bool = False  # the labels themselves (negative ones 0), not 1 in [low, high)

    def compute(self, work):
        if self.graded:
            table = work.label_table(LabelGain("linear"))
        else:
            table = work.label_table(label_range(work.evaluation, self.low, self.high))
        block_count, head = work.block_sum(self.k, table)
        if self.graded:  # over the query's largest label where above 1 (see RankBiased)
            block_count = block_count / np.maximum(work.value(MaxLabel()), 1.0)[head.query]
        p = self.persistence
        # trec_eval's arithmetic: p**i a product of i factors p, the terms added
        # in rank order (a query without ties gets the same bits in any call).
        weight = repeated_powers(p, head.offset)
        if head.tied:
            spread = weight * -np.expm1(head.inside * np.log(p)) / ((1.0 - p) * head.size)
            weight = np.where(head.size == 1, weight, spread)
        return sequential_sum_segments(block_count * weight, head.query_starts)


def repeated_powers(p, exponents):
    """``p**n`` for each ``n`` as a C loop makes it, ``cur_p = cur_p * p`` n times (bit for bit)."""
    exponents = np.asarray(exponents)
    table = np.cumprod(np.full(int(exponents.max(initial=0)), float(p)))
    return np.concatenate(([1.0], table))[exponents]


PAIR_COUNTS = ("pairs", "discordant", "tied_score", "tied_label", "tied_both")


@dataclass(frozen=True)
class PairCounts(Quantity):
    """Per query: document pairs, and those discordant, tied in score, in label, in both.

    ``kendall``: score ties are true ties whatever ``ties`` says (tau-b
    corrects for them itself); otherwise ties follow the tie blocks.
    """

    kendall: bool
    dtype: ClassVar[np.dtype] = np.dtype([(name, np.float64) for name in PAIR_COUNTS])

    def compute(self, work):
        chunk = work.chunk
        if self.kendall:
            tied = not chunk.parent.tie_free and chunk.score_tie_ptr.shape[0] <= chunk.n_documents
        else:
            tied = not chunk.blocks_are_rows
        counts = pairwise_counts(chunk, chunk.score_tie_ptr if tied else None)
        values = np.empty(chunk.n_queries, dtype=self.dtype)
        for name in PAIR_COUNTS:
            values[name] = counts[name]
        return values


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
        table = work.label_table(label_range(work.evaluation, self.low, self.high))
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
class IdealGain(OrderFree):
    """DCG@k of each query's documents sorted by decreasing gain (``scaled``: see ExpectedGain).

    With gains per relevance level (``levels``), the documents of positive
    gain sorted by decreasing gain, as trec_eval's ideal ranking.
    """

    k: int | None
    scaled: bool = False
    levels: tuple = ()

    def compute(self, work):
        return ideal_gain(*self._runs(work), work.cutoffs(self.k), work.discount_cumsum)

    def prefix(self, work):
        n_queries, discounts = work.chunk.n_queries, work.chunk.parent.discounts
        return ideal_gain_prefix(*self._runs(work), n_queries, self.k, discounts)

    def from_histogram(self, evaluation, histogram):
        cutoffs = evaluation.cutoffs(self.k)
        return self._from_label_runs(
            evaluation,
            histogram,
            lambda runs, start, stop: ideal_gain(
                *runs, cutoffs[start:stop], evaluation.rq.discount_cumsum
            ),
        )

    def prefix_from_histogram(self, evaluation, histogram):
        """:meth:`prefix` of every query, from the label histogram."""
        return self._from_label_runs(
            evaluation,
            histogram,
            lambda runs, start, stop: ideal_gain_prefix(
                *runs, stop - start, self.k, evaluation.rq.discounts
            ),
            join=lambda parts: RaggedCurve.join(
                histogram.counts.shape[0], histogram.query_blocks(), parts
            ),
        )

    def _runs(self, work):
        """``(query, count, gain)`` of the runs of equal labels of the chunk's queries, best first."""
        run_query, run_code, run_count = label_runs(work.chunk)
        return self._gains(work, work.evaluation, run_query, run_code, run_count, run_query)

    def _from_label_runs(self, evaluation, histogram, finish, join=np.concatenate):
        """``finish((query, count, gain), start, stop)`` of the histogram's runs, per block of queries."""
        parts = []
        # Block by block of queries: temporaries stay small while the sort runs.
        for start, stop in histogram.query_blocks():
            run_query, run_code, run_count = histogram.label_runs(start, stop)
            parts.append(
                finish(
                    self._gains(evaluation, evaluation, run_query, run_code, run_count,
                                run_query + start),
                    start,
                    stop,
                )
            )
        return join(parts)

    def _gains(self, source, evaluation, run_query, run_code, run_count, gains_query):
        """``(query, count, gain)`` of label runs, best first (gains per level: best gain first).

        ``source`` is the chunk's work or the evaluation (the histogram's
        queries), ``gains_query`` the queries as ``source.gains_of`` numbers them.
        """
        if self.levels:
            gains = source.label_table(level_gain(evaluation, self.levels)).values[run_code]
            return best_first(run_query, run_count, gains)
        return run_query, run_count, source.gains_of(run_code, gains_query, self.scaled)


def label_runs(chunk):
    """``(query, code, count)``: a chunk's documents grouped by label, highest label first per query."""
    codes = chunk.ranked_codes.astype(np.int64)
    n_codes = int(codes.max()) + 1
    # Sorting (query, reversed code) keeps each query's segment in place.
    key = chunk.row_query * n_codes + (n_codes - 1 - codes)
    key.sort()
    best = n_codes - 1 - key % n_codes
    starts = run_starts(chunk.row_query, best)
    return chunk.row_query[starts], best[starts], np.diff(np.append(starts, best.shape[0]))


@dataclass(frozen=True)
class Curve(Quantity):
    """The values of a cutoff quantity ``of`` at every cutoff ``1 .. of.k``: metric@k curves.

    A :class:`RaggedCurve` (each query's running sum up to its own list's
    end, at most ``of.k`` values), computed in one pass by ``of.prefix``:
    the per-position terms of the head at ``of.k``, summed cumulatively
    along each query's segment (:func:`prefix_sums`).
    """

    of: Quantity

    def compute(self, work):
        return self.of.prefix(work)

    def join(self, n_queries, bounds, parts):
        return RaggedCurve.join(n_queries, bounds, parts)


@dataclass(frozen=True)
class OrderFreeCurve(Curve, OrderFree):
    """The :class:`Curve` of an order-free total (the ideal DCG), also read off the histogram."""

    def from_histogram(self, evaluation, histogram):
        return self.of.prefix_from_histogram(evaluation, histogram)


def curve_of(quantity, width):
    """The :class:`Curve` of a cutoff quantity, ``width`` cutoffs wide."""
    if type(quantity).prefix is Quantity.prefix:
        raise ValueError(f"{type(quantity).__name__} has no values at every cutoff.")
    of = replace(quantity, k=width)
    return OrderFreeCurve(of) if isinstance(quantity, OrderFree) else Curve(of)


# ------------------------------------- measures read document by document
# ERR, bpref, infAP, binG and interpolated precision have no closed form for
# their expectation over the orderings of tied documents. They are computed
# on the ranking as sorted; under ties="average" that is exact only when no
# tie block mixes documents the measure tells apart (every ordering of such
# blocks gives the same value), and an error otherwise.

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
        threshold = work.evaluation.threshold(self.level)
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
        threshold = work.evaluation.threshold(self.level)
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
        threshold = work.evaluation.threshold(self.level)
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
        threshold = work.evaluation.threshold(self.level)

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


# ----------------------------------------- gains per relevance level
# trec_eval's ndcg, dcg, ndcg_rel, Rndcg and G take a gain per relevance
# level ('ndcg.1=3.5,2=9'); the levels not named keep their default gain.
# ndcg_rel and G read the ideal ranking position by position: the judged
# documents of positive gain, best first, as runs of equal gain.


@dataclass(frozen=True)
class LevelGain:
    """The gain of a label: ``levels`` maps labels to gains, other labels gain as :class:`LabelGain`.

    ``levels`` is a tuple of ``(label, gain)``; gains may be 0 or negative.
    """

    gain: str
    levels: tuple

    def __call__(self, values):
        gains = LabelGain(self.gain)(values)
        for level, value in self.levels:
            gains[values == level] = value
        return gains


@dataclass(frozen=True)
class PositivePart:
    """``max(function(label), 0)``: a gain that counts in the ideal ranking."""

    function: object

    def __call__(self, values):
        return np.maximum(self.function(values), 0.0)


def level_gain(evaluation, levels):
    """The label function of the call's gain with the gains per level ``levels`` (may be empty)."""
    return LevelGain(evaluation.gain, levels) if levels else LabelGain(evaluation.gain)


def best_first(run_query, run_count, gains):
    """Runs of equal gain put in decreasing gain per query; non-positive gains count 0."""
    order = np.lexsort((-gains, run_query))
    return run_query[order], run_count[order], np.maximum(gains[order], 0.0)


@dataclass(frozen=True)
class PositiveGain(OrderFree):
    """Sum of the positive gains (per level, see :class:`LevelGain`) of each query's documents."""

    levels: tuple = ()

    def compute(self, work):
        table = work.label_table(PositivePart(level_gain(work.evaluation, self.levels)))
        return work.chunk.per_query_sum(table.values.take(work.chunk.ranked_codes))

    def from_histogram(self, evaluation, histogram):
        # Infinite gains (an error in the definitions' finalize) times counts of 0: NaN.
        with np.errstate(invalid="ignore"):
            return histogram.count(
                evaluation.label_table(PositivePart(level_gain(evaluation, self.levels)))
            )


@dataclass
class IdealRuns:
    """A chunk's ideal rankings: per query, runs of equal positive gain, best first.

    ``query`` (in the chunk, non-decreasing), ``gain``, ``count``, ``start``
    (the run's first 0-based rank), ``first`` (each query's first run, or
    where it would be); ``total`` the documents of positive gain per query.
    """

    query: np.ndarray
    gain: np.ndarray
    count: np.ndarray
    start: np.ndarray
    first: np.ndarray
    total: np.ndarray


def ideal_runs(work, function):
    """The :class:`IdealRuns` of the chunk's queries, over their judged documents.

    With judgments (a TREC run), the judged documents of the chunk's
    queries, retrieved or not; otherwise the ranked documents. Runs of equal
    gain are merged whatever their labels.
    """

    def compute():
        chunk = work.chunk
        judged = work.evaluation.judged
        if judged is not None:
            chunk = type(chunk)(judged.rq, chunk.start, chunk.stop)
        query, code, count = label_runs(chunk)
        gain = chunk.label_table(function).values[code]
        unlisted_gain = work.evaluation.unlisted_gain(function)
        if unlisted_gain is not None:
            # A query of labels 0 and 1 with relevant documents outside its list
            # (n_relevant): R documents of label 1, listed or not. Every other
            # query keeps its own (a graded one of them is an error in the definitions).
            assumed = work.unlisted_of_label_one()
            kept = ~assumed[query]
            added = np.flatnonzero(assumed) if unlisted_gain > 0 else query[:0]
            total = work.total_relevant(work.evaluation.relevance_level)
            query = np.concatenate([query[kept], added])
            count = np.concatenate([count[kept], total[added].astype(np.int64)])
            gain = np.concatenate([gain[kept], np.full(added.shape[0], unlisted_gain)])
        positive = gain > 0
        query, count, gain = best_first(query[positive], count[positive], gain[positive])
        merged = run_starts(query, gain)
        query, gain = query[merged], gain[merged]
        count = np.add.reduceat(count, merged) if merged.shape[0] else count[:0]
        n_queries = work.chunk.n_queries
        first = np.searchsorted(query, np.arange(n_queries))
        through = np.cumsum(count)
        before_query = np.append(through - count, 0)[first]
        start = through - count - before_query[query]
        total = sum_by_group(count, query, n_queries).astype(np.int64)
        return IdealRuns(query, gain, count, start, first, total)

    return work.shared(("ideal_runs", function), compute)


def ideal_at_rows(work, runs):
    """The ideal gain at each ranked position of the chunk (0 from the last positive one on)."""
    chunk = work.chunk
    visible = np.clip(np.minimum(runs.start + runs.count, chunk.query_sizes[runs.query])
                      - runs.start, 0, None)  # fmt: skip
    rows = np.repeat(chunk.query_ptr[runs.query] + runs.start, visible) + segment_ranks(visible)
    ideal = np.zeros(chunk.n_documents)
    ideal[rows] = np.repeat(runs.gain, visible)
    return ideal


def _gain_classes(function):
    """Documents of different gains differ; those of non-zero gain matter."""

    def classes(labels):
        gains = function(labels)
        return gains, gains != 0

    return classes


def _ranked_gains(work, levels, measure):
    """``(ranking, gains, ideal runs, ideal gain per position)`` of the whole lists of a chunk."""
    function = level_gain(work.evaluation, levels)
    ranking = ranking_of(work, None, measure, _gain_classes(function))
    runs = ideal_runs(work, function)
    return ranking, function(ranking.labels), runs, ideal_at_rows(work, runs)


@dataclass(frozen=True)
class NormalizedGainSum(Quantity):
    """trec_eval's G: ``sum_i g_i / log2(2 + C_i - S_i)`` over the ideal's total gain.

    ``g_i`` is the gain at rank i, ``S_i`` the gains at ranks up to i, ``C_i``
    the ideal gains up to i, each at least 1 (1 beyond the last positive one).
    """

    levels: tuple = ()

    def compute(self, work):
        # Overflowing gains: an error in the definition's finalize, which checks the values.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            ranking, gains, runs, ideal = _ranked_gains(work, self.levels, "G")
            lengths = work.chunk.query_sizes
            cost = segment_cumsum(np.maximum(ideal, 1.0), lengths)
            gained = segment_cumsum(gains, lengths)
            terms = np.where(gains != 0, gains / np.log2(2.0 + cost - gained), 0.0)
            total = sum_by_group(runs.gain * runs.count, runs.query, work.chunk.n_queries)
            return _positive_ratio(ranking.per_query_sum(terms), total)


def _positive_ratio(numerator, denominator):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


@dataclass(frozen=True)
class RelevantNdcgMean(Quantity):
    """trec_eval's ndcg_rel: nDCG averaged over the documents of positive gain.

    A ranked one of positive gain at rank i adds ``DCG@i / IDCG@min(i, P)``,
    each of the ``P`` documents of positive gain not ranked adds
    ``DCG / IDCG``; the sum over P (0 where it is not positive).
    """

    levels: tuple = ()

    def compute(self, work):
        # Overflowing gains: an error in the definition's finalize, which checks the values.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            ranking, gains, runs, ideal = _ranked_gains(work, self.levels, "ndcg_rel")
            chunk = work.chunk
            discounts = chunk.parent.discounts[ranking.position]
            dcg = segment_cumsum(gains * discounts, chunk.query_sizes)
            ideal_dcg = segment_cumsum(ideal * discounts, chunk.query_sizes)
            positive = gains > 0
            at_ranked = ranking.per_query_sum(np.where(positive, dcg / ideal_dcg, 0.0))
            total_dcg = ranking.per_query_sum(gains * discounts)
            source = work.evaluation.judged or work.evaluation
            full_ideal = ideal_gain(runs.query, runs.count, runs.gain, runs.total,
                                    source.rq.discount_cumsum)  # fmt: skip
            missed = runs.total - ranking.per_query_sum(positive)
            value = at_ranked + missed * _positive_ratio(total_dcg, full_ideal)
            return np.where(value > 0, _positive_ratio(value, runs.total), 0.0)


@dataclass(frozen=True)
class RNdcgMean(Quantity):
    """trec_eval's Rndcg: nDCG averaged at the ranks where the ideal gain changes.

    ``t_j``, the documents of the ``j`` highest positive gains, are the R
    levels: the mean of ``DCG@min(t_j, n) / IDCG@t_j``, and of ``DCG / IDCG``
    too where the list holds ``n >= P + 2`` documents (P documents of
    positive gain), as trec_eval counts it. Linear in the gains at fixed
    ranks, so exact under ``ties="average"``: each rank ``i`` weighs its
    gain ``w_i = D_i (sum_{t_j > i} 1 / IDCG@t_j + [n >= P + 2] / IDCG) / m``,
    ``m`` the terms of the mean; a tie block, the mean weight of its ranks.
    """

    levels: tuple = ()

    def compute(self, work):
        # Overflowing gains: an error in the definition's finalize, which checks the values.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            chunk = work.chunk
            function = level_gain(work.evaluation, self.levels)
            runs = ideal_runs(work, function)
            source = work.evaluation.judged or work.evaluation
            run_ends = runs.start + runs.count
            cumulative = source.rq.discount_cumsum
            lengths = np.diff(np.append(runs.first, runs.query.shape[0]))  # runs per query
            through = _discounts_through(run_ends, cumulative)
            before = _discounts_through(runs.start, cumulative)
            ideal_at_ends = segment_cumsum(runs.gain * (through - before), lengths)
            # Sum of 1 / IDCG@t_j over each query's later R levels: a backward scan.
            later = segment_cumsum((1.0 / ideal_at_ends)[::-1], lengths[::-1])[::-1]
            n = chunk.query_sizes
            whole = (n >= runs.total + 2) & (runs.total > 0)
            terms = lengths + whole
            full_ideal = np.zeros(chunk.n_queries)
            last = runs.first + lengths - 1
            full_ideal[lengths > 0] = ideal_at_ends[last[lengths > 0]]
            extra = np.where(whole, 1.0 / full_ideal, 0.0)
            # Per rank: the first R level beyond it, found by (query, rank) keys.
            span = int(n.max()) + 1
            run_key = runs.query * span + np.minimum(run_ends, span - 1)
            row_key = chunk.row_query * span + chunk.row_offset
            after = np.searchsorted(run_key, row_key, side="right")
            inside = after < (runs.first + lengths)[chunk.row_query]
            weight = np.where(inside, np.append(later, 0.0)[after], 0.0) + extra[chunk.row_query]
            weight = weight * chunk.parent.discounts[chunk.row_offset] / terms[chunk.row_query]
            weight = np.where(terms[chunk.row_query] > 0, weight, 0.0)
            block_gain, head = work.block_sum(None, work.label_table(function))
            if head.tied:
                block_start = chunk.score_tie_ptr[:-1][head.blocks]
                spread = np.add.reduceat(weight, chunk.score_tie_ptr[:-1])[head.blocks] / head.size
                weight = np.where(head.size == 1, weight[block_start], spread)
            return head.sum_per_query(block_gain * weight)


# ---------------------------------------------------------------- kernels
def expected_gain_at_k(head, block_gain, *, discounted):
    """Expected (discounted) cumulative gain of the top k, per query.

    ``block_gain`` is the summed gain of every head block. A block of size
    ``m`` with ``t`` positions inside the cutoff contributes its mean gain
    times the (discounted) weight of those positions. With binary gains and
    ``discounted=False`` this is the expected number of hits in the top k.
    """
    if not discounted:
        if not head.tied:
            return head.sum_per_query(block_gain)
        weight = head.inside / head.size
    elif head.tied:
        cumulative = head.chunk.parent.discount_cumsum
        spread = (cumulative[head.offset + head.inside] - cumulative[head.offset]) / head.size
        # A block of one document weighs its own discount, as without ties.
        weight = np.where(head.size == 1, head.discounts[head.offset], spread)
    else:
        weight = head.discounts[head.offset]
    return head.sum_per_query(block_gain * weight)


def ideal_gain(run_query, run_count, run_gain, cutoffs, discount_cumsum):
    """DCG cut at ``cutoffs`` of lists given as runs of equal gain, best first.

    A run of ``c`` documents of gain ``g`` at ranks ``s+1 .. s+c`` adds
    ``g (D[min(s + c, k)] - D[min(s, k)])``, D the cumulative discounts.
    Runs come in query order (``run_query`` non-decreasing): the same runs
    give the same sums, from the histogram or from a chunk.
    """
    start = _offsets_in_query(run_query, run_count, cutoffs.shape[0])
    cut = cutoffs[run_query]
    end = np.minimum(start + run_count, cut)
    start = np.minimum(start, cut)
    weights = _discounts_through(end, discount_cumsum) - _discounts_through(start, discount_cumsum)
    return sum_by_group(run_gain * weights, run_query, cutoffs.shape[0])


def _discounts_through(ranks, discount_cumsum):
    """``D[ranks]``, beyond the longest list too (ideal rankings of ``n_relevant`` documents)."""
    return discount_sums(ranks, discount_cumsum, "n_relevant")


# Discounts summed one by one beyond the table of the longest list: at most
# this many ranks (a fraction of a second), as for n_relevant without a cutoff.
_MAX_SUMMED_DISCOUNTS = 1 << 27
_DISCOUNT_BLOCK = 1 << 16


def discount_sums(counts, discount_cumsum, what):
    """``sum_{i < c} 1 / log2(i + 2)`` for each count ``c``, beyond the table too.

    ``discount_cumsum`` holds the sums up to the longest list; larger counts
    (relevant documents outside the lists) are summed on, block by block.
    ``what`` names the argument the counts come from, in the error for
    counts too large to sum.
    """
    counts = np.asarray(counts, dtype=np.int64)
    known = discount_cumsum.shape[0] - 1
    if counts.max(initial=0) <= known:  # in the table: every list's own ideal ranking
        return discount_cumsum[counts]
    sums = discount_cumsum[np.minimum(counts, known)]
    targets = np.unique(counts[counts > known])
    if not targets.shape[0]:
        return sums
    if targets[-1] > _MAX_SUMMED_DISCOUNTS:
        raise ValueError(
            f"{what} gives a query {int(targets[-1])} relevant documents: its ideal DCG without "
            f"a cutoff would add up that many discounts (at most {_MAX_SUMMED_DISCOUNTS}); "
            "give a cutoff (ndcg@k), or smaller counts."
        )
    at_targets = np.empty(targets.shape[0])
    running = discount_cumsum[known]
    for start in range(known, int(targets[-1]), _DISCOUNT_BLOCK):
        stop = min(start + _DISCOUNT_BLOCK, int(targets[-1]))
        block = running + np.cumsum(1.0 / np.log2(np.arange(start + 2.0, stop + 2.0)))
        inside = (targets > start) & (targets <= stop)
        at_targets[inside] = block[targets[inside] - start - 1]
        running = block[-1]
    beyond = counts > known
    sums[beyond] = at_targets[np.searchsorted(targets, counts[beyond])]
    return sums


def _offsets_in_query(run_query, run_count, n_queries):
    """Documents ranked before each run inside its query (runs in query order)."""
    through = np.cumsum(run_count)
    first = np.searchsorted(run_query, np.arange(n_queries))
    before_query = np.append(through - run_count, 0)[first]
    return through - run_count - before_query[run_query]


# ------------------------------------------------------ every cutoff at once
# A cutoff quantity at every cutoff 1..w is the running sum of what each
# position of the head at w adds: the same terms its kernel adds up at one
# cutoff, put at their positions and summed along each query's segment. A
# query's running sum is stored only up to the last position where it can
# change (a ragged array: at most one value per ranked document).


class RaggedCurve:
    """Per query ``q``, a running sum at the cutoffs ``1 .. lengths[q]``, stored end to end.

    ``values[ends[q] - lengths[q] + j]`` is query ``q``'s sum at cutoff
    ``j + 1``; beyond ``lengths[q]`` the sum no longer changes (the list, or
    the curve's width, has ended), so the total storage is at most one value
    per document, whatever the longest list. :meth:`column` reads every
    query's value at one cutoff.
    """

    def __init__(self, values, lengths):
        self.values = values
        self.lengths = lengths
        self.before = np.cumsum(lengths) - lengths - 1  # the cell before each query's first
        self.empty = not lengths.all()
        # Queries all as long: a dense block of rows, whose columns are strided views.
        self.row = int(lengths[0]) if values.shape[0] and lengths.min() == lengths.max() else 0

    def column(self, k):
        """Every query's value at cutoff ``k`` (0 for a query with no positions)."""
        if self.row:
            return self.values.reshape(-1, self.row)[:, min(k, self.row) - 1]
        if not self.values.shape[0]:
            return np.zeros(self.lengths.shape[0])
        taken = np.minimum(self.lengths, k)
        if not self.empty:
            return self.values[self.before + taken]
        return np.where(taken > 0, self.values[np.maximum(self.before + taken, 0)], 0.0)

    @classmethod
    def join(cls, n_queries, bounds, parts):
        """The curves of ``n_queries`` from the curves of the query ranges ``bounds``.

        Ranges come in query order; queries in none have no positions.
        ``parts`` is emptied as it is copied, so that each part is freed.
        """
        lengths = np.zeros(n_queries, dtype=np.int64)
        for (start, stop), part in zip(bounds, parts):
            lengths[start:stop] = part.lengths
        values = np.empty(int(lengths.sum()))
        at = 0
        for index, part in enumerate(parts):
            values[at : at + part.values.shape[0]] = part.values
            at += part.values.shape[0]
            parts[index] = None
        return cls(values, lengths)


def prefix_sums(lengths, values, positions, discounts=None):
    """Per query, the sums of ``values`` over its positions ``offset < k``, for k = 1..lengths[q].

    ``positions()`` gives the ``(query, offset)`` of each value: in query
    order, then rank order, each at most once and below its query's length,
    so when there are ``lengths.sum()`` values they fill every cell in order
    and ``positions`` is not called. ``discounts``: each value is first
    multiplied by the discount of its rank. Returns a :class:`RaggedCurve`.
    """
    lengths = lengths.astype(np.int64)
    starts = np.cumsum(lengths) - lengths
    total = int(lengths.sum())
    # Lists all as long (or longer than the width): a dense block of rows.
    row = int(lengths[0]) if total and lengths.min() == lengths.max() else 0
    if np.shape(values)[0] == total:
        curve = np.array(values, dtype=np.float64)
        if discounts is not None:
            if row:
                curve.reshape(-1, row)[...] *= discounts[:row]
            else:
                curve *= discounts[np.arange(total) - np.repeat(starts, lengths)]
    else:
        query, offset = positions()
        curve = np.zeros(total)
        cell = starts[query]
        cell += offset
        curve[cell] = values if discounts is None else values * discounts[offset]
    if row:
        rows = curve.reshape(-1, row)
        np.cumsum(rows, axis=1, out=rows)
    else:
        _running_sums(curve, starts, lengths)
    return RaggedCurve(curve, lengths)


def _running_sums(values, starts, lengths):
    """Running sums of the segments ``values[starts[q] : starts[q] + lengths[q]]``, in place.

    Position by position (at most the curve's width steps, each over the
    segments that long): every sum is added left to right, as ``np.cumsum``
    adds up a row.
    """
    order = np.argsort(-lengths, kind="stable")
    longest_first = starts[order]
    longer_than = np.searchsorted(-lengths[order], -np.arange(int(lengths.max(initial=0))))
    for position in range(1, longer_than.shape[0]):
        cells = longest_first[: longer_than[position]] + position
        values[cells] += values[cells - 1]


def spread(starts, counts):
    """``(item, position)``: ``starts[i] + j`` for every ``j < counts[i]``, item by item."""
    item = np.repeat(np.arange(counts.shape[0]), counts)
    position = np.arange(item.shape[0]) - np.repeat(np.cumsum(counts) - counts - starts, counts)
    return item, position


def expected_gain_prefix(head, block_gain, width, discounted):
    """Expected (discounted) cumulative gain at every cutoff 1..width (see :func:`prefix_sums`).

    A position of a tie block of ``m`` documents holds, in expectation, the
    block's mean gain ``block_gain / m`` (exactly the document's gain for a
    block of one), weighted by its discount.
    """
    discounts = head.discounts if discounted else None
    lengths = np.minimum(head.chunk.query_sizes, width)
    if not head.tied:
        return prefix_sums(lengths, block_gain, lambda: (head.query, head.offset), discounts)
    # A tie block spread over its positions inside the cutoff.
    block, offset = spread(head.offset, head.inside)
    gain = block_gain[block] / head.size[block]
    return prefix_sums(lengths, gain, lambda: (head.query[block], offset), discounts)


def ideal_gain_prefix(run_query, run_count, run_gain, n_queries, width, discounts):
    """The ideal DCG at every cutoff 1..width of lists given as runs (see :func:`ideal_gain`).

    A query's curve is as long as its runs' documents (the list whose
    ideal is taken), at most ``width``.
    """
    start = _offsets_in_query(run_query, run_count, n_queries)
    inside = np.clip(width - start, 0, run_count)
    lengths = np.minimum(np.bincount(run_query, run_count, n_queries).astype(np.int64), width)

    def positions():
        run, offset = spread(start, inside)
        return run_query[run], offset

    return prefix_sums(lengths, np.repeat(run_gain, inside), positions, discounts)


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


# ---------------------------------------------- heads of single documents
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


# ------------------------------------------------------------- tie blocks
def segment_scan(values, lengths, operation):
    """Inclusive scans of ``operation`` (add, multiply, maximum) restarting at every segment.

    A doubling scan (``x[i] = op(x[i - d], x[i])`` inside the segment, d = 1,
    2, 4, ...): every result depends only on its own segment, bit for bit,
    unlike a global scan corrected at the segment's start.
    """
    scanned = np.array(values, dtype=np.float64)
    position = segment_ranks(lengths)
    step = 1
    longest = int(lengths.max()) if lengths.shape[0] else 0
    while step < longest:
        later = np.flatnonzero(position >= step)
        scanned[later] = operation(scanned[later - step], scanned[later])
        step *= 2
    return scanned


def segment_cumsum(values, lengths):
    """Inclusive cumulative sums restarting at every segment of ``lengths``."""
    return segment_scan(values, lengths, np.add)


def _first_relevant_blocks(head, block_relevant):
    """For every query with a relevant document in its head: the first block holding one.

    Returns ``(blocks, queries)``. Blocks before it hold no relevant
    document, so only this block decides the first relevant rank.
    """
    candidates, starts = head.flagged_per_query(block_relevant > 0)
    queries = np.flatnonzero(np.append(starts[1:], candidates.shape[0]) > starts)
    return candidates[starts[queries]], queries


def expected_reciprocal_rank(head, block_relevant, cutoffs):
    """Expected ``1 / rank`` of the first relevant document, 0 beyond the cutoff."""
    queries, n_terms, rank, probability = first_relevant_terms(head, block_relevant, cutoffs)
    reciprocal_rank = np.zeros(head.chunk.n_queries)
    reciprocal_rank[queries] = sum_segments(probability / rank, np.cumsum(n_terms) - n_terms)
    return reciprocal_rank


def first_relevant_terms(head, block_relevant, cutoffs):
    """The ranks inside the cutoff where each query's first relevant document may be, and how likely.

    In the first block with a relevant document (size ``m``, ``r`` relevant,
    after ``s`` documents), the first relevant one lands at the block's
    ``j``-th position with probability
    ``P(j) = C(m - j, r - 1) / C(m, r) = (r / m) prod_{i=1}^{j-1} (1 - (r - 1) / (m - i))``:
    a product of factors near 1, summed as ``log1p`` terms (differences of
    log-gamma values would lose digits in large blocks).

    Returns ``(queries, n_terms, rank, probability)``: the queries with a
    relevant document in the head, how many ranks each has, and per rank
    (in query order) the rank ``s + j`` and ``P(j)``.
    """
    blocks, queries = _first_relevant_blocks(head, block_relevant)
    offset = head.offset[blocks]
    size = head.size[blocks].astype(np.float64)
    relevant = block_relevant[blocks]
    last_possible = (size - relevant + 1).astype(np.int64)
    n_terms = np.clip(np.minimum(last_possible, cutoffs[queries] - offset), 0, None)

    term_block = np.repeat(np.arange(blocks.shape[0]), n_terms)
    j = segment_ranks(n_terms) + 1
    m, r = size[term_block], relevant[term_block]
    # log of factor j - 1 of the product at term j (0 at j = 1), then the products.
    log_factor = np.where(j > 1, np.log1p(-(r - 1.0) / (m - (j - 1))), 0.0)
    probability = (r / m) * np.exp(segment_cumsum(log_factor, n_terms))
    return queries, n_terms, offset[term_block] + j, probability


def hit_probability(head, block_relevant):
    """Probability that at least one relevant document is in the top k.

    Only the first block holding a relevant document can straddle the
    cutoff: with ``t`` of its ``m`` positions inside, it misses all ``r``
    relevant documents with probability
    ``C(m - r, t) / C(m, t) = prod_{i<t} (1 - r / (m - i)) = prod_{i<r} (1 - t / (m - i))``,
    the shorter product summed as ``log1p`` terms; the hit is ``-expm1`` of
    that sum, exact to a few units of the last place however small.
    """
    blocks, queries = _first_relevant_blocks(head, block_relevant)
    hit = np.zeros(head.chunk.n_queries)
    hit[queries] = 1.0
    if head.tied:
        size = head.size[blocks].astype(np.float64)
        relevant = block_relevant[blocks]
        inside = head.inside[blocks].astype(np.float64)
        can_miss = inside <= size - relevant
        size, relevant, inside = size[can_miss], relevant[can_miss], inside[can_miss]
        n_terms = np.minimum(inside, relevant).astype(np.int64)
        numerator = np.maximum(inside, relevant)
        term_block = np.repeat(np.arange(n_terms.shape[0]), n_terms)
        i = segment_ranks(n_terms)
        log_miss = np.log1p(-numerator[term_block] / (size[term_block] - i))
        hit[queries[can_miss]] = -np.expm1(sum_segments(log_miss, np.cumsum(n_terms) - n_terms))
    return hit


def expected_precision_sum(head, block_relevant):
    """Expected ``sum of precision@p over relevant positions p <= k``, per query.

    Average precision is this divided by the number of relevant documents.
    Writing precision@p as ``(rel(p) + sum_{q<p} rel(p) rel(q)) / p``, the
    ``j``-th position of a block (size ``m``, ``r`` relevant, ``H`` relevant
    documents ranked before the block, ``s`` documents before it, so
    ``p = s + j``) contributes ``(r/m (1 + H) + (j - 1) r (r - 1) / (m (m - 1))) / p``.
    """
    term_query, _, contribution = precision_terms(head, block_relevant)
    # Terms come in query order: summed per query as the single-document kernel sums.
    starts = np.searchsorted(term_query, np.arange(head.chunk.n_queries))
    return sequential_sum_segments(contribution, starts)


def precision_terms(head, block_relevant):
    """``(query, rank, contribution)`` of every position inside the cutoff of a block holding a
    relevant document (see :func:`expected_precision_sum`), in query order."""
    # Relevant documents ranked before each block: a cumulative sum (of
    # whole numbers, so exact) that restarts at every query's first head block.
    through = np.cumsum(block_relevant)
    query_start = head.query_starts
    run_length = np.diff(np.append(query_start, head.query.shape[0]))
    # A query without blocks repeats 0 times.
    first = np.minimum(query_start, head.query.shape[0] - 1)
    before_query = np.repeat(through[first] - block_relevant[first], run_length)
    relevant_before = through - block_relevant - before_query

    blocks = np.flatnonzero(block_relevant > 0)
    size = head.size[blocks].astype(np.float64)
    relevant = block_relevant[blocks]
    share = relevant / size
    single = share * (1.0 + relevant_before[blocks])
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = np.where(size > 1, share * (relevant - 1) / (size - 1), 0.0)
    inside = head.inside[blocks]
    term_block = np.repeat(np.arange(blocks.shape[0]), inside)
    j = segment_ranks(inside) + 1
    position = head.offset[blocks][term_block] + j
    contribution = (single[term_block] + (j - 1) * pair[term_block]) / position
    return head.query[blocks][term_block], position, contribution


def _pairs(counts):
    counts = np.asarray(counts, dtype=np.float64)
    return counts * (counts - 1.0) / 2.0


def _count_smaller_before(values, query_ptr, n_bits):
    """Per element: how many earlier elements of its query hold a smaller value.

    An MSD radix partition on the bits of ``values`` (non-negative ints below
    ``2**n_bits``): at each bit, inside each group of equal higher bits, an
    element with the bit set is preceded by the zeros counted so far; then
    each group is stably split into its zeros and its ones. ``n_bits`` linear
    passes, no comparison sort. Also returns the values sorted within queries.
    """
    n = values.shape[0]
    sizes = np.diff(query_ptr)
    group_start = np.repeat(query_ptr[:-1], sizes)
    group_size = np.repeat(sizes, sizes)
    origin = np.arange(n)
    current = values.astype(np.int64, copy=True)
    smaller_before = np.zeros(n, dtype=np.int64)
    slot = np.arange(n)
    for bit in range(n_bits - 1, -1, -1):
        is_one = (current >> bit) & 1
        ones_through = np.cumsum(is_one)
        ones_before_group = ones_through[group_start] - is_one[group_start]
        ones_before = ones_through - is_one - ones_before_group
        zeros_before = slot - group_start - ones_before
        ones_in_group = ones_through[group_start + group_size - 1] - ones_before_group
        zeros_in_group = group_size - ones_in_group

        one = is_one.astype(bool)
        smaller_before[origin[one]] += zeros_before[one]

        target = np.where(
            one, group_start + zeros_in_group + ones_before, group_start + zeros_before
        )
        new_start = np.where(one, group_start + zeros_in_group, group_start)
        new_size = np.where(one, ones_in_group, zeros_in_group)
        for array, new_values in (
            (origin, origin.copy()),
            (current, current.copy()),
            (group_start, new_start),
            (group_size, new_size),
        ):
            array[target] = new_values
    return smaller_before, current


# With at most this many distinct labels, discordant pairs are counted with
# one cumulative count per label value instead of the radix partition.
_MAX_VALUES_FOR_COUNTS = 16


def _discordant_and_label_ties_by_value(label_rank, chunk, n_values):
    """Per query: pairs ranked with the smaller label first, and pairs of equal label.

    For each label value ``v``, a running count over the chunk of the
    documents of label ``<= v`` ranked so far gives each document of label
    ``v + 1`` the number of documents with a smaller label ranked before it:
    one cumulative count per label value. The counts run across queries; what
    they carry over from the queries before is subtracted per query. Their
    values at the queries' last documents also give the label histograms.
    """
    n = label_rank.shape[0]
    last_row = chunk.query_ptr[1:] - 1
    smaller_before = np.zeros(n, dtype=np.int32)
    at_most = np.empty(n, dtype=np.int32)
    scratch = np.empty(n, dtype=np.int32)
    mask = np.empty(n, dtype=bool)
    # through[q, v]: documents of label <= v in the chunk's queries up to q.
    through = np.empty((chunk.n_queries, n_values), dtype=np.int64)
    through[:, -1] = chunk.query_ptr[1:]
    for value in range(n_values - 1):
        np.less_equal(label_rank, value, out=mask)
        np.cumsum(mask, dtype=np.int32, out=at_most)
        through[:, value] = at_most[last_row]
        # Each document has one label, so adding is setting (and far faster
        # than a masked copy).
        np.equal(label_rank, value + 1, out=mask)
        smaller_before += np.multiply(at_most, mask, out=scratch)
    at_most_before = np.vstack((np.zeros((1, n_values), dtype=np.int64), through[:-1]))
    # histogram[q, v]: documents of label v in query q.
    histogram = np.diff(through - at_most_before, axis=1, prepend=0)
    # Carried from earlier queries: for a document of label w, those of a label below w.
    carried = (histogram[:, 1:] * at_most_before[:, :-1]).sum(axis=1)
    counted = np.add.reduceat(smaller_before, chunk.query_ptr[:-1], dtype=np.int64)
    return (counted - carried).astype(np.float64), _pairs(histogram).sum(axis=1)


def _discordant_and_label_ties_by_radix(label_rank, chunk, n_values):
    """As :func:`_discordant_and_label_ties_by_value`, in ``log2(n_values)`` radix passes."""
    n_bits = max(1, int(n_values - 1).bit_length())
    smaller_before, sorted_rank = _count_smaller_before(label_rank, chunk.query_ptr, n_bits)
    label_runs = run_starts(chunk.row_query, sorted_rank)
    label_run_size = np.diff(np.append(label_runs, label_rank.shape[0]))
    tied_label = sum_by_group(_pairs(label_run_size), chunk.row_query[label_runs], chunk.n_queries)
    return chunk.per_query_sum(smaller_before), tied_label


def pairwise_counts(chunk, block_ptr):
    """Per-query pair counts for rank correlation.

    Documents inside one block of ``block_ptr`` count as tied in score;
    ``block_ptr=None`` means no two documents are tied.

    Returns a dict of per-query float arrays: ``pairs`` (all pairs),
    ``discordant`` (higher score, lower label), ``tied_score``,
    ``tied_label`` and ``tied_both``. Concordant pairs are the rest:
    ``pairs - discordant - tied_score - tied_label + tied_both``.
    """
    label_values = chunk.label_values
    label_rank = chunk.ranked_codes
    has_ties = block_ptr is not None
    if has_ties:
        block_size = np.diff(block_ptr)
        # Higher labels first inside a tie, so that tied pairs never count
        # as discordant; they are counted separately below.
        block_id = np.repeat(np.arange(block_size.shape[0]), block_size)
        label_rank = label_rank[np.lexsort((-label_rank.astype(np.int64), block_id))]
    n_values = label_values.shape[0]
    if n_values <= _MAX_VALUES_FOR_COUNTS:
        discordant, tied_label = _discordant_and_label_ties_by_value(label_rank, chunk, n_values)
    else:
        discordant, tied_label = _discordant_and_label_ties_by_radix(label_rank, chunk, n_values)

    row_query = chunk.row_query
    if has_ties:
        tied_score = sum_by_group(_pairs(block_size), row_query[block_ptr[:-1]], chunk.n_queries)
        both_runs = run_starts(block_id, label_rank)
        both_run_size = np.diff(np.append(both_runs, label_rank.shape[0]))
        tied_both = sum_by_group(_pairs(both_run_size), row_query[both_runs], chunk.n_queries)
    else:
        tied_score = tied_both = np.zeros(chunk.n_queries)
    return {
        "pairs": _pairs(chunk.query_sizes),
        "discordant": discordant,
        "tied_score": tied_score,
        "tied_label": tied_label,
        "tied_both": tied_both,
    }
