"""Metric kernels: small pure functions from ranked segments to per-query numbers.

Every kernel takes the :class:`~._segments.Head` of a chunk of queries (or
the chunk itself) and returns one float per query of the chunk. Under ``ties="average"`` each returns the
*exact expected value* over all orderings of tied documents: a tie block of
``m`` documents, ``r`` of them relevant, occupying positions ``s+1 .. s+m``
puts a uniformly random subset of its documents at any set of its positions,
so expectations follow from linearity and the hypergeometric distribution
(McSherry & Najork, ECIR 2008). When every block is a single document these
formulas reduce to the plain deterministic definitions.
"""

import numpy as np
from scipy.special import gammaln

from ._factorize import run_starts
from ._segments import segment_ranks, sum_by_group, sum_segments


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
        weight = (cumulative[head.offset + head.inside] - cumulative[head.offset]) / head.size
    else:
        weight = head.discounts[head.offset]
    return head.sum_per_query(block_gain * weight)


# ---------------------------------------------- heads of single documents
# With every block a single document, the binary-relevance metrics follow
# from where the relevant documents are: ``relevant`` lists the head blocks
# holding one, query by query, ``relevant[starts[q]:starts[q + 1]]`` those of
# query ``q`` (see ``Head.flagged_per_query``).


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
    precision /= head.offsets_of(relevant, counts=counts) + 1.0
    return sum_segments(precision, starts)


def relevant_ranked_before(head, relevant, starts, cutoffs):
    """Relevant documents of each query ranked before its own cutoff."""
    counts = np.diff(np.append(starts, relevant.shape[0]))
    inside = head.offsets_of(relevant, counts=counts) < np.repeat(cutoffs, counts)
    return sum_segments(inside.astype(np.float64), starts)


# ------------------------------------------------------------- tie blocks
def _log_binomial(n, k):
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


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
    ``j``-th position with probability ``C(m - j, r - 1) / C(m, r)``.
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
    probability = np.exp(_log_binomial(m - j, r - 1) - _log_binomial(m, r))
    contribution = probability / (offset[term_block] + j)
    reciprocal_rank[queries] = np.bincount(
        term_block, weights=contribution, minlength=blocks.shape[0]
    )
    return reciprocal_rank


def hit_probability(head, block_relevant):
    """Probability that at least one relevant document is in the top k.

    Only the first block holding a relevant document can straddle the
    cutoff: with ``t`` of its ``m`` positions inside, it misses all ``r``
    relevant documents with probability ``C(m - r, t) / C(m, t)``.
    """
    blocks, queries = _first_relevant_blocks(head, block_relevant)
    hit = np.zeros(head.chunk.n_queries)
    hit[queries] = 1.0
    if head.tied:
        size = head.size[blocks].astype(np.float64)
        relevant = block_relevant[blocks]
        inside = head.inside[blocks]
        can_miss = inside <= size - relevant
        miss = np.exp(
            _log_binomial(size - relevant, inside)[can_miss] - _log_binomial(size, inside)[can_miss]
        )
        hit[queries[can_miss]] -= miss
    return hit


def expected_precision_sum(head, block_relevant):
    """Expected ``sum of precision@p over relevant positions p <= k``, per query.

    Average precision is this divided by the number of relevant documents.
    Writing precision@p as ``(rel(p) + sum_{q<p} rel(p) rel(q)) / p``, the
    ``j``-th position of a block (size ``m``, ``r`` relevant, ``H`` relevant
    documents ranked before the block, ``s`` documents before it, so
    ``p = s + j``) contributes ``(r/m (1 + H) + (j - 1) r (r - 1) / (m (m - 1))) / p``.
    """
    n_queries = head.chunk.n_queries
    # Relevant documents ranked before each block: a cumulative sum that
    # restarts at every query's first head block.
    through = np.cumsum(block_relevant)
    query_start = head.query_starts()
    run_length = np.diff(np.append(query_start, head.query.shape[0]))
    first = np.minimum(query_start, head.query.shape[0] - 1)  # a query without blocks repeats 0 times
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
    return np.bincount(
        head.query[blocks][term_block], weights=contribution, minlength=n_queries
    ).astype(np.float64)  # an empty bincount is int64


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
