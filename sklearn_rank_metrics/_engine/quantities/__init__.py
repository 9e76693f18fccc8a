"""The named per-query quantities metrics combine, and how each is computed.

A *quantity* is a small frozen dataclass (:class:`Quantity`): its class says
what it is and holds its computation, its fields are its parameters (a
cutoff, a relevance level, ...). Equal quantities are equal keys, so a
quantity several metrics need is computed once. Two kinds:

- *ranked* quantities depend on the order of the documents. ``compute``
  runs on one chunk of whole queries (a ``ChunkWork`` of the run, which
  shares heads, label tables and block sums among the quantities of the
  chunk) and returns one value per query of the chunk;
- *order-free* totals (:class:`OrderFree`) do not: they also have
  ``from_histogram``, which reads them off the (query x label value)
  histogram before the sort has finished, when it is small.

Under ``ties="average"`` each ranked quantity is the *exact expected value*
over all orderings of tied documents (``_ties.py``); for a block of one
document every formula gives, bit for bit, the plain deterministic value:
a query's values never depend on whether other queries of its chunk have
ties (so neither on the chunking, the threads, nor the other queries of the
call).

One module a family:

- ``_base``: :class:`Quantity`, :class:`OrderFree` and the label functions;
- ``_ties``: the tie math the kernels share (hypergeometric first-relevant
  terms, precision terms, expected gains, segmented scans);
- ``_gains``: expected and ideal (discounted) cumulative gain, RBP's sum;
- ``_positions``: binary relevance by position (hits, reciprocal rank,
  hit probability, AP's sum, hits at R, counts);
- ``_pair_counts``: document pairs for rank correlations;
- ``_order_free``: totals per query (relevant, graded, judged documents, ...);
- ``_scans``: measures read document by document (ERR, bpref, infAP,
  binG, interpolated precision);
- ``_level_gains``: trec_eval's gains per relevance level against the ideal
  ranking (G, ndcg_rel, Rndcg);
- ``_curves``: a cutoff quantity at every cutoff (:class:`Curve`).
"""

from ._base import (
    LabelGain,
    LevelGain,
    OrderFree,
    Quantity,
    Relevance,
    exponential_parts,
    level_gain,
    power_of_two,
)
from ._curves import Curve, OrderFreeCurve, RaggedCurve, curve_of
from ._gains import ExpectedGain, GeometricGain, IdealGain, discount_sums, repeated_powers
from ._level_gains import NormalizedGainSum, RelevantNdcgMean, RNdcgMean
from ._order_free import CountInList, GradedInList, HasGain, MaxLabel, PositiveGain, RelevantInList
from ._pair_counts import PAIR_COUNTS, PairCounts
from ._positions import (
    Counted,
    HitProbability,
    Hits,
    HitsAtR,
    PrecisionSum,
    ReciprocalRank,
    multiple_of_r,
)
from ._scans import (
    CascadeGain,
    InferredPrecisionSum,
    InterpolatedPrecision,
    NonrelevantDiscountSum,
    PreferenceSum,
    rounded_half_away,
)

__all__ = [
    # the base classes and label functions
    "Quantity",
    "OrderFree",
    "LabelGain",
    "LevelGain",
    "Relevance",
    "exponential_parts",
    "level_gain",
    "power_of_two",
    # ranked quantities
    "CascadeGain",
    "Counted",
    "ExpectedGain",
    "GeometricGain",
    "HitProbability",
    "Hits",
    "HitsAtR",
    "InferredPrecisionSum",
    "InterpolatedPrecision",
    "NonrelevantDiscountSum",
    "NormalizedGainSum",
    "PairCounts",
    "PAIR_COUNTS",
    "PrecisionSum",
    "PreferenceSum",
    "ReciprocalRank",
    "RelevantNdcgMean",
    "RNdcgMean",
    # order-free totals
    "CountInList",
    "GradedInList",
    "HasGain",
    "IdealGain",
    "MaxLabel",
    "PositiveGain",
    "RelevantInList",
    # every cutoff at once
    "Curve",
    "OrderFreeCurve",
    "RaggedCurve",
    "curve_of",
    # the arithmetic the definitions finish with
    "discount_sums",
    "multiple_of_r",
    "repeated_powers",
    "rounded_half_away",
]
