"""The base of every quantity, and the label functions quantities look labels up with.

A quantity is a small frozen dataclass (:class:`Quantity`) named by its
class and its fields; :class:`OrderFree` totals do not depend on the order
of the documents and may also be read off the label histogram. A *label
function* (:class:`LabelGain`, :class:`Relevance`, :class:`LevelGain`, ...)
gives a value per label value, looked up from the ranked label codes
(``work.label_table``); frozen dataclasses, so that equal functions share
one table.
"""

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np


@dataclass(frozen=True)
class LabelGain:
    """The gain of a label value: itself (``"linear"``) or ``2**label - 1`` (``"exponential"``).

    Negative labels (documents a TREC run retrieved that are not judged, see
    :mod:`.._judgments`) gain 0, as in trec_eval.
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
def label_range(call, low, high):
    """The :class:`LabelRange` of relevance levels ``[low, high)``, in the labels' precision.

    ``call``: what knows the labels' precision (``threshold``): a chunk's work, or the evaluation.
    """
    return LabelRange(*(call.threshold(b) if math.isfinite(b) else b for b in (low, high)))


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


def level_gain(gain, levels):
    """The label function of the call's ``gain`` with the gains per level ``levels`` (may be empty)."""
    return LevelGain(gain, levels) if levels else LabelGain(gain)


@dataclass(frozen=True)
class Quantity:
    """A per-query number a metric needs, named by its class and its fields.

    ``dtype`` is that of one query's value: float64 for most; a structured
    dtype for several numbers counted together (:class:`~._pair_counts.PairCounts`). A
    :class:`~._curves.Curve` holds a :class:`~._curves.RaggedCurve` instead of an array.
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
        """A cutoff quantity's values at every cutoff ``1 .. self.k``: a ragged curve.

        A :class:`~._curves.RaggedCurve`. Only quantities with a cutoff ``k``
        have one (see :class:`~._curves.Curve`).
        """
        raise NotImplementedError


@dataclass(frozen=True)
class OrderFree(Quantity):
    """A total that does not depend on the order of the documents."""

    def from_histogram(self, evaluation, histogram):
        """The values of every query from the label histogram, or None where it cannot tell."""
        return None
