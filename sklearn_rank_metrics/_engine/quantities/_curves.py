"""Every cutoff at once: metric@k curves (:class:`Curve`), stored ragged (:class:`RaggedCurve`).

A cutoff quantity at every cutoff 1..w is the running sum of what each
position of the head at w adds: the same terms its kernel adds up at one
cutoff, put at their positions and summed along each query's segment
(:func:`prefix_sums`). A query's running sum is stored only up to the last
position where it can change (a ragged array: at most one value per ranked
document). Each cutoff quantity's ``prefix`` gives its terms; :func:`curve_of`
makes the :class:`Curve` quantity of one.
"""

from dataclasses import dataclass, replace

import numpy as np

from ._base import OrderFree, Quantity


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
