"""Graded gains: expected (discounted) cumulative gain, its ideal, and RBP's geometric sum.

:class:`ExpectedGain` (DCG@k, CG@k), :class:`IdealGain` (the ideal DCG@k,
order-free: from each query's label runs, or from the histogram) and
:class:`GeometricGain` (rank-biased precision), with the ideal-ranking
arithmetic they share: runs of equal gain best first (:func:`label_runs`,
:func:`best_first`), their DCG at a cutoff (:func:`ideal_gain`) or at every
cutoff (:func:`ideal_gain_prefix`), and sums of discounts beyond the
longest list (:func:`discount_sums`).
"""

from dataclasses import dataclass

import numpy as np

from ..prepare._arrays import run_starts
from ..prepare._segments import sequential_sum_segments, sum_by_group
from ._base import LabelGain, OrderFree, Quantity, label_range, level_gain
from ._curves import RaggedCurve, expected_gain_prefix, prefix_sums, spread
from ._order_free import MaxLabel
from ._ties import expected_gain_at_k


@dataclass(frozen=True)
class ExpectedGain(Quantity):
    """Expected (discounted) cumulative gain of the top ``k`` (``k=None``: whole lists).

    ``scaled``: gains divided per query by a power of two where an unscaled
    sum could overflow (see :meth:`~..run._evaluation.ChunkWork.gain_exponents`).
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
            per_document = work.label_table(level_gain(work.gain_name, self.levels))
        with np.errstate(over="ignore", invalid="ignore"):
            block_gain, head = work.block_sum(self.k, per_document)
        return head, block_gain


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
            table = work.label_table(label_range(work, self.low, self.high))
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
        return self._gains(work, work.gain_name, run_query, run_code, run_count, run_query)

    def _from_label_runs(self, evaluation, histogram, finish, join=np.concatenate):
        """``finish((query, count, gain), start, stop)`` of the histogram's runs, per block of queries."""
        parts = []
        # Block by block of queries: temporaries stay small while the sort runs.
        for start, stop in histogram.query_blocks():
            run_query, run_code, run_count = histogram.label_runs(start, stop)
            parts.append(
                finish(
                    self._gains(evaluation, evaluation.gain, run_query, run_code, run_count,
                                run_query + start),
                    start,
                    stop,
                )
            )
        return join(parts)

    def _gains(self, source, gain, run_query, run_code, run_count, gains_query):
        """``(query, count, gain)`` of label runs, best first (gains per level: best gain first).

        ``source`` is the chunk's work or the evaluation (the histogram's
        queries), ``gain`` the call's gain, ``gains_query`` the queries as
        ``source.gains_of`` numbers them.
        """
        if self.levels:
            gains = source.label_table(level_gain(gain, self.levels)).values[run_code]
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


def best_first(run_query, run_count, gains):
    """Runs of equal gain put in decreasing gain per query; non-positive gains count 0."""
    order = np.lexsort((-gains, run_query))
    return run_query[order], run_count[order], np.maximum(gains[order], 0.0)


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
    weights = discounts_through(end, discount_cumsum) - discounts_through(start, discount_cumsum)
    return sum_by_group(run_gain * weights, run_query, cutoffs.shape[0])


def discounts_through(ranks, discount_cumsum):
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
