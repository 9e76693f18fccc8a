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

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ._factorize import run_starts
from ._segments import segment_ranks, sum_by_group, sum_segments


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
            return np.ldexp(mantissa, exponent) - 1.0


def exponential_parts(values):
    """``(2**frac(v), floor(v))``: ``2**v`` as a mantissa and an exact power of two.

    Exponential gains, scaled or not, are built from these with exact
    ``ldexp``, so that a gain scaled by ``2**-e`` is the unscaled gain times
    ``2**-e`` bit for bit.
    """
    whole = np.floor(values)
    return np.exp2(values - whole), whole.astype(np.int64)


@dataclass(frozen=True)
class Relevance:
    """1.0 for a label at or above ``threshold``, else 0.0."""

    threshold: float

    def __call__(self, values):
        return (values >= self.threshold).astype(np.float64)


@dataclass(frozen=True)
class Positive:
    """1.0 for a label above 0, else 0.0."""

    def __call__(self, values):
        return (values > 0).astype(np.float64)


# ---------------------------------------------------------- quantities
@dataclass(frozen=True)
class Quantity:
    """A per-query number a metric needs, named by its class and its fields.

    ``dtype`` is that of one query's value: float64 for most; a structured
    dtype for several numbers counted together (:class:`PairCounts`); a
    subarray dtype would hold a value per cutoff.
    """

    dtype: ClassVar[np.dtype] = np.dtype(np.float64)

    def compute(self, work):
        """The values of the queries of one chunk (``work`` is its ChunkWork)."""
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

    def compute(self, work):
        per_document = work.scaled_gains() if self.scaled else work.label_table(work.gain)
        # Unscaled gains may overflow: DCG and CG raise an error for a non-finite value.
        with np.errstate(over="ignore", invalid="ignore"):
            block_gain, head = work.block_sum(self.k, per_document)
            return expected_gain_at_k(head, block_gain, discounted=self.discounted)


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


@dataclass(frozen=True)
class HitsAtR(Quantity):
    """Expected relevant documents in the top R, R each query's total of relevant documents."""

    level: float

    def compute(self, work):
        cutoffs = work.total_relevant(self.level).astype(np.int64)
        head = work.head(None)
        if not head.tied:
            # Single documents: count the relevant ones ranked above R, from the
            # relevant positions of the whole lists that other metrics share.
            return relevant_ranked_before(head, *work.relevant_positions(None, self.level), cutoffs)
        head = work.chunk.head(cutoffs)
        block_relevant = head.block_sum(work.relevance(self.level))
        return expected_gain_at_k(head, block_relevant, discounted=False)


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
class HasGain(OrderFree):
    """Whether a query has a document of positive label."""

    dtype: ClassVar[np.dtype] = np.dtype(bool)

    def compute(self, work):
        chunk = work.chunk
        return chunk.label_values[chunk.per_query_max(chunk.ranked_codes)] > 0

    def from_histogram(self, evaluation, histogram):
        return histogram.count(evaluation.label_table(Positive())) > 0


@dataclass(frozen=True)
class IdealGain(OrderFree):
    """DCG@k of each query's documents sorted by decreasing label (``scaled``: see ExpectedGain)."""

    k: int | None
    scaled: bool = False

    def compute(self, work):
        chunk = work.chunk
        codes = chunk.ranked_codes.astype(np.int64)
        n_codes = int(codes.max()) + 1
        # Sorting (query, reversed code) keeps each query's segment in place.
        key = chunk.row_query * n_codes + (n_codes - 1 - codes)
        key.sort()
        best = n_codes - 1 - key % n_codes
        starts = run_starts(chunk.row_query, best)
        run_query, run_code = chunk.row_query[starts], best[starts]
        run_count = np.diff(np.append(starts, best.shape[0]))
        gains = work.gains_of(run_code, run_query, self.scaled)
        return ideal_gain(run_query, run_count, gains, work.cutoffs(self.k), work.discount_cumsum)

    def from_histogram(self, evaluation, histogram):
        cutoffs = evaluation.cutoffs(self.k)
        parts = []
        # Block by block of queries: temporaries stay small while the sort runs.
        for start, stop in histogram.query_blocks():
            run_query, run_code, run_count = histogram.label_runs(start, stop)
            gains = evaluation.gains_of(run_code, run_query + start, self.scaled)
            parts.append(
                ideal_gain(
                    run_query, run_count, gains, cutoffs[start:stop], evaluation.rq.discount_cumsum
                )
            )
        return np.concatenate(parts)


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
    n_queries = cutoffs.shape[0]
    through = np.cumsum(run_count)
    first = np.searchsorted(run_query, np.arange(n_queries))
    before_query = np.append(through - run_count, 0)[first]
    start = through - run_count - before_query[run_query]
    cut = cutoffs[run_query]
    end = np.minimum(start + run_count, cut)
    start = np.minimum(start, cut)
    weights = discount_cumsum[end] - discount_cumsum[start]
    return sum_by_group(run_gain * weights, run_query, n_queries)


# ---------------------------------------------- heads of single documents
# With every block a single document, the binary-relevance metrics follow
# from where the relevant documents are: ``relevant`` lists the head blocks
# holding one, query by query, ``relevant[starts[q]:starts[q + 1]]`` those of
# query ``q`` (see ``flagged_per_query`` of the heads).


def relevant_counts(relevant, starts):
    """Relevant documents in each query's head (hits@k)."""
    return np.diff(np.append(starts, relevant.shape[0])).astype(np.float64)


def first_relevant_reciprocal_rank(head, relevant, starts):
    """``1 / rank`` of each query's first relevant document in the head, else 0."""
    queries = np.flatnonzero(np.append(starts[1:], relevant.shape[0]) > starts)
    reciprocal_rank = np.zeros(starts.shape[0])
    reciprocal_rank[queries] = 1.0 / (head.offsets_of(relevant[starts[queries]], queries) + 1.0)
    return reciprocal_rank


def relevant_precision_sum(head, relevant, starts):
    """Sum of precision@p over the ranks p of relevant documents: the j-th adds j / p."""
    counts = np.diff(np.append(starts, relevant.shape[0]))
    precision = np.arange(1.0, relevant.shape[0] + 1.0)
    precision -= np.repeat(starts, counts)
    precision /= head.flagged_offsets(relevant, starts) + 1.0
    return sum_segments(precision, starts)


def relevant_ranked_before(head, relevant, starts, cutoffs):
    """Relevant documents of each query ranked before its own cutoff."""
    counts = np.diff(np.append(starts, relevant.shape[0]))
    inside = head.flagged_offsets(relevant, starts) < np.repeat(cutoffs, counts)
    return sum_segments(inside.astype(np.float64), starts)


# ------------------------------------------------------------- tie blocks
def segment_cumsum(values, lengths):
    """Inclusive cumulative sums restarting at every segment of ``lengths``.

    A doubling scan (``x[i] += x[i - d]`` inside the segment, d = 1, 2, 4,
    ...): every sum depends only on its own segment, bit for bit, unlike a
    global cumsum minus the segment's start.
    """
    sums = np.array(values, dtype=np.float64)
    position = segment_ranks(lengths)
    step = 1
    longest = int(lengths.max()) if lengths.shape[0] else 0
    while step < longest:
        later = np.flatnonzero(position >= step)
        sums[later] = sums[later] + sums[later - step]
        step *= 2
    return sums


def _first_relevant_blocks(head, block_relevant):
    """For every query with a relevant document in its head: the first block holding one.

    Returns ``(blocks, queries)``. Blocks before it hold no relevant
    document, so only this block decides the first relevant rank.
    """
    candidates, starts = head.flagged_per_query(block_relevant > 0)
    queries = np.flatnonzero(np.append(starts[1:], candidates.shape[0]) > starts)
    return candidates[starts[queries]], queries


def expected_reciprocal_rank(head, block_relevant, cutoffs):
    """Expected ``1 / rank`` of the first relevant document, 0 beyond the cutoff.

    In the first block with a relevant document (size ``m``, ``r`` relevant,
    after ``s`` documents), the first relevant one lands at the block's
    ``j``-th position with probability
    ``P(j) = C(m - j, r - 1) / C(m, r) = (r / m) prod_{i=1}^{j-1} (1 - (r - 1) / (m - i))``:
    a product of factors near 1, summed as ``log1p`` terms (differences of
    log-gamma values would lose digits in large blocks).
    """
    blocks, queries = _first_relevant_blocks(head, block_relevant)
    offset = head.offset[blocks]
    reciprocal_rank = np.zeros(head.chunk.n_queries)
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
    contribution = probability / (offset[term_block] + j)
    term_starts = np.cumsum(n_terms) - n_terms
    reciprocal_rank[queries] = sum_segments(contribution, term_starts)
    return reciprocal_rank


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
    # Terms come in query order: summed per query as the single-document kernel sums.
    term_query = head.query[blocks][term_block]
    return sum_segments(contribution, np.searchsorted(term_query, np.arange(head.chunk.n_queries)))


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
