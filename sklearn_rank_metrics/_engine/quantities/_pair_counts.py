"""Document pairs per query, for rank correlations (Kendall's tau, pairwise accuracy).

:class:`PairCounts` counts all pairs and those discordant, tied in score,
in label, or in both (:func:`pairwise_counts`): discordant pairs by one
cumulative count per label value when labels are few, else by an MSD radix
partition on the label codes; no comparison sort, no Python loop over
queries.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..prepare._arrays import run_starts
from ..prepare._segments import sum_by_group
from ._base import Quantity


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
