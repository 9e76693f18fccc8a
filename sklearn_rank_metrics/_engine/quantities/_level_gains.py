"""trec_eval's gains per relevance level against the ideal ranking: G, ndcg_rel, Rndcg.

trec_eval's ndcg, dcg, ndcg_rel, Rndcg and G take a gain per relevance
level ('ndcg.1=3.5,2=9'); the levels not named keep their default gain
(:class:`~._base.LevelGain`). ndcg_rel and G read the ideal ranking position
by position: the judged documents of positive gain, best first, as runs
of equal gain (:class:`IdealRuns`), against the ranking read document by
document (``_scans.ranking_of``).
"""

from dataclasses import dataclass

import numpy as np

from ..prepare._arrays import run_starts
from ..prepare._segments import segment_ranks, sum_by_group
from ._base import Quantity, level_gain
from ._gains import best_first, discounts_through, ideal_gain, label_runs
from ._scans import ranking_of
from ._ties import segment_cumsum


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
        chunk = work.totals_chunk()
        query, code, count = label_runs(chunk)
        gain = chunk.label_table(function).values[code]
        unlisted_gain = work.unlisted_gain(function)
        if unlisted_gain is not None:
            # A query of labels 0 and 1 with relevant documents outside its list
            # (n_relevant): R documents of label 1, listed or not. Every other
            # query keeps its own (a graded one of them is an error in the definitions).
            assumed = work.unlisted_of_label_one()
            kept = ~assumed[query]
            added = np.flatnonzero(assumed) if unlisted_gain > 0 else query[:0]
            total = work.total_relevant(work.relevance_level)
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
    function = level_gain(work.gain_name, levels)
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
            full_ideal = ideal_gain(runs.query, runs.count, runs.gain, runs.total,
                                    work.totals_discount_cumsum)  # fmt: skip
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
            function = level_gain(work.gain_name, self.levels)
            runs = ideal_runs(work, function)
            run_ends = runs.start + runs.count
            cumulative = work.totals_discount_cumsum
            lengths = np.diff(np.append(runs.first, runs.query.shape[0]))  # runs per query
            through = discounts_through(run_ends, cumulative)
            before = discounts_through(runs.start, cumulative)
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
