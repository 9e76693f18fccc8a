"""The tie math the kernels share: exact expectations over the orderings of tied documents.

Under ``ties="average"`` a tie block of ``m`` documents, ``r`` of them
relevant, occupying positions ``s+1 .. s+m`` puts a uniformly random subset
of its documents at any set of its positions, so expectations follow from
linearity and the hypergeometric distribution (McSherry & Najork, ECIR
2008). Each kernel reads a *head* (the blocks of each query's top ``k``,
see ``prepare/_segments.py``) and the summed labels of its blocks:

- :func:`expected_gain_at_k`: linear quantities (gains, hits, counts);
- :func:`first_relevant_terms`, :func:`expected_reciprocal_rank`,
  :func:`hit_probability`: where the first relevant document lands;
- :func:`precision_terms`, :func:`expected_precision_sum`: AP's numerator;
- :func:`segment_scan`, :func:`segment_cumsum`: scans restarting at every
  segment, bit for bit independent of the other segments.

For a block of one document every formula gives, bit for bit, the plain
deterministic value.
"""

import numpy as np

from ..prepare._segments import segment_ranks, sequential_sum_segments, sum_segments


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
