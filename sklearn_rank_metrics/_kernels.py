"""Metric kernels: small pure functions from ranked segments to per-query numbers.

Every kernel takes a :class:`~sklearn_rank_metrics._segments.RankedQueries`
and returns one float per query. Under ``ties="average"`` each returns the
*exact expected value* over all orderings of tied documents: a tie block of
``m`` documents, ``r`` of them relevant, occupying positions ``s+1 .. s+m``
puts a uniformly random subset of its documents at any set of its positions,
so expectations follow from linearity and the hypergeometric distribution
(McSherry & Najork, ECIR 2008). When every block is a single document these
formulas reduce to the plain deterministic definitions.
"""

import numpy as np
from scipy.special import gammaln

from ._segments import _run_starts


def discount_cumsum(max_length):
    """``C[j] = sum_{p=1}^{j} 1 / log2(p + 1)``, with ``C[0] = 0``."""
    cumulative = np.zeros(max_length + 1)
    np.cumsum(1.0 / np.log2(np.arange(2, max_length + 2)), out=cumulative[1:])
    return cumulative


def _window_weight(rq, cutoffs, discounted):
    """Per block: the (discounted) weight of its positions inside the cutoff.

    With ``discounted=False`` this is how many of its positions are inside,
    so ``gain_sum * weight / size`` is the block's expected contribution.
    """
    inside = rq.block_positions_within(cutoffs)
    if not discounted:
        return inside.astype(np.float64)
    cumulative = discount_cumsum(int(rq.query_sizes.max()))
    start = rq.block_offset
    return cumulative[start + inside] - cumulative[start]


def expected_gain_at_k(rq, row_gain, cutoffs, *, discounted):
    """Expected (discounted) cumulative gain of the top ``cutoffs`` documents.

    ``row_gain`` is the gain of every ranked document. With binary gains and
    ``discounted=False`` this is the expected number of hits in the top k.
    """
    block_gain = rq.per_block_sum(row_gain)
    weight = _window_weight(rq, cutoffs, discounted)
    if rq.has_ties:
        weight = weight / rq.block_size
    return rq.per_query_sum_of_blocks(block_gain * weight)


def ideal_gain_at_k(rq, row_gain, cutoffs, *, discounted):
    """(Discounted) cumulative gain of the best ordering of each query's list."""
    # Sort gains descending inside each query; segment offsets are unchanged.
    best_first = np.lexsort((-row_gain, rq.row_query))
    gain = row_gain[best_first]
    position = rq.position
    inside = position <= cutoffs[rq.row_query]
    if discounted:
        gain = gain / np.log2(position + 1.0)
    return rq.per_query_sum(np.where(inside, gain, 0.0))


def _log_binomial(n, k):
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _first_relevant_blocks(rq, block_relevant):
    """For every query with a relevant document: its first block holding one.

    Returns ``(blocks, queries)``. Blocks before it hold no relevant
    document, so only this block decides the first relevant rank.
    """
    candidates = np.flatnonzero(block_relevant > 0)
    queries = rq.block_query[candidates]
    first = np.ones(candidates.shape[0], dtype=bool)
    first[1:] = queries[1:] != queries[:-1]
    return candidates[first], queries[first]


def expected_reciprocal_rank(rq, block_relevant, cutoffs):
    """Expected ``1 / rank`` of the first relevant document, 0 beyond the cutoff.

    In the first block with a relevant document (size ``m``, ``r`` relevant,
    after ``s`` documents), the first relevant one lands at the block's
    ``j``-th position with probability ``C(m - j, r - 1) / C(m, r)``.
    """
    blocks, queries = _first_relevant_blocks(rq, block_relevant)
    size = rq.block_size[blocks].astype(np.float64)
    relevant = block_relevant[blocks]
    offset = rq.block_offset[blocks]
    last_possible = (size - relevant + 1).astype(np.int64)
    n_terms = np.clip(np.minimum(last_possible, cutoffs[queries] - offset), 0, None)

    term_block = np.repeat(np.arange(blocks.shape[0]), n_terms)
    term_start = np.repeat(np.cumsum(n_terms) - n_terms, n_terms)
    j = np.arange(term_block.shape[0]) - term_start + 1
    m, r = size[term_block], relevant[term_block]
    probability = np.exp(_log_binomial(m - j, r - 1) - _log_binomial(m, r))
    contribution = probability / (offset[term_block] + j)

    reciprocal_rank = np.zeros(rq.n_queries)
    reciprocal_rank[queries] = np.bincount(
        term_block, weights=contribution, minlength=blocks.shape[0]
    )
    return reciprocal_rank


def hit_probability(rq, block_relevant, cutoffs):
    """Probability that at least one relevant document is in the top k.

    Only the first block holding a relevant document can straddle the
    cutoff: with ``t`` of its ``m`` positions inside, it misses all ``r``
    relevant documents with probability ``C(m - r, t) / C(m, t)``.
    """
    blocks, queries = _first_relevant_blocks(rq, block_relevant)
    size = rq.block_size[blocks].astype(np.float64)
    relevant = block_relevant[blocks]
    inside = np.clip(cutoffs[queries] - rq.block_offset[blocks], 0, size)
    can_miss = inside <= size - relevant
    miss = np.zeros(blocks.shape[0])
    miss[can_miss] = np.exp(
        _log_binomial(size - relevant, inside)[can_miss] - _log_binomial(size, inside)[can_miss]
    )
    hit = np.zeros(rq.n_queries)
    hit[queries] = 1.0 - miss
    return hit


def expected_precision_sum(rq, block_relevant, cutoffs):
    """Expected ``sum of precision@p over relevant positions p <= k``.

    Average precision is this divided by the number of relevant documents.
    Writing precision@p as ``(rel(p) + sum_{q<p} rel(p) rel(q)) / p``, a
    position ``p`` of a block (size ``m``, ``r`` relevant, ``H`` relevant
    documents ranked before the block, ``s`` documents before it) contributes
    ``(r/m (1 + H) + (p - s - 1) r (r - 1) / (m (m - 1))) / p``.
    """
    exclusive = np.cumsum(block_relevant) - block_relevant
    first_block = np.flatnonzero(np.diff(rq.block_query, prepend=-1))
    relevant_before = exclusive - exclusive[first_block][rq.block_query]

    size = rq.block_size.astype(np.float64)
    share = block_relevant / size
    single = (1.0 + relevant_before) * share
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = np.where(size > 1, share * (block_relevant - 1) / (size - 1), 0.0)

    row_block = rq.row_block
    position = rq.position
    counted = (position <= cutoffs[rq.row_query]) & (block_relevant[row_block] > 0)
    rows = np.flatnonzero(counted)
    blocks = row_block[rows]
    p = position[rows]
    before_in_block = p - rq.block_offset[blocks] - 1
    contribution = (single[blocks] + before_in_block * pair[blocks]) / p
    return np.bincount(rq.row_query[rows], weights=contribution, minlength=rq.n_queries)


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

        target = np.where(one, group_start + zeros_in_group + ones_before, group_start + zeros_before)
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


def pairwise_counts(rq, block_ptr):
    """Per-query pair counts for rank correlation.

    Documents inside one block of ``block_ptr`` count as tied in score.

    Returns a dict of per-query float arrays: ``pairs`` (all pairs),
    ``discordant`` (higher score, lower label), ``tied_score``,
    ``tied_label`` and ``tied_both``. Concordant pairs are the rest:
    ``pairs - discordant - tied_score - tied_label + tied_both``.
    """
    labels = rq.labels
    block_size = np.diff(block_ptr)
    block_id = np.repeat(np.arange(block_size.shape[0]), block_size)
    if block_size.shape[0] < labels.shape[0]:
        # Higher labels first inside a tie, so that tied pairs never count
        # as discordant; they are counted separately below.
        labels = labels[np.lexsort((-labels, block_id))]
    label_values, label_rank = np.unique(labels, return_inverse=True)
    n_bits = max(1, int(label_values.shape[0] - 1).bit_length())
    # A smaller label ranked before a larger one is a discordant pair.
    smaller_before, sorted_rank = _count_smaller_before(
        label_rank.reshape(-1), rq.query_ptr, n_bits
    )

    row_query = rq.row_query
    label_runs = _run_starts(row_query, sorted_rank)
    label_run_size = np.diff(np.append(label_runs, labels.shape[0]))
    both_runs = _run_starts(block_id, labels)
    both_run_size = np.diff(np.append(both_runs, labels.shape[0]))

    def per_query(starts, counts):
        return np.bincount(row_query[starts], weights=_pairs(counts), minlength=rq.n_queries)

    return {
        "pairs": _pairs(rq.query_sizes),
        "discordant": rq.per_query_sum(smaller_before.astype(np.float64)),
        "tied_score": per_query(block_ptr[:-1], block_size),
        "tied_label": per_query(label_runs, label_run_size),
        "tied_both": per_query(both_runs, both_run_size),
    }
