"""The options of one public call, as one frozen object handed down the engine.

Each public entry point (the metric functions, ``evaluate``, the distributed
``evaluate``, ``compare``, the display, ``evaluate_run``) checks its
keyword arguments against the parameter table (:mod:`._params`) and builds
one :class:`Options`; below that, nothing is passed option by option. The
data arguments (labels, scores, query ids, weights) travel separately, in
:class:`~.prepare._prepare.Inputs`.
"""

import numbers
from dataclasses import dataclass, fields

from ._params import ap_denominator_of, check_parameters, label_gain_levels


def exact_level(level):
    """A relevance level as a Python int (whole numbers, kept exact) or float."""
    return int(level) if isinstance(level, numbers.Integral) else float(level)


@dataclass(frozen=True)
class Options:
    """How one call evaluates, whatever its metrics: checked values, with their defaults.

    Attributes
    ----------
    gain : {"linear", "exponential"}
        The gain of a label in the graded metrics (the call's, after the
        measures' names had their say: see :func:`~.spec._names.call_gain`).
    label_gain : sequence, mapping or None
        The gain of each label, as given (:attr:`gain_levels` reads it),
        in place of ``gain``.
    relevance_level : int or float
        A document is relevant iff its label >= this (binary metrics).
    n_relevant : mapping or None
        Relevant documents per query id, listed or not.
    ties : {"average", "optimistic", "pessimistic", "first"}
        How documents of equal score are ranked.
    no_relevant : {"zero", "one", "skip"}
        The value of a query without a relevant document.
    ignore_ties : bool
        scikit-learn's order of tied documents (``numpy.argsort`` reversed),
        in place of ``ties``.
    trec_eval_version : {"10", "9"}
        Whose conventions apply where trec_eval's versions differ.
    leakage : {"raise", "exclude"}
        What a pair both labelled and excluded means: an error, or a label
        dropped (with a warning).
    ap_denominator : str
        What AP@k divides by, as given (:attr:`ap_divides_by` reads it).
    """

    gain: str = "linear"
    relevance_level: float = 1.0
    n_relevant: object = None
    ties: str = "average"
    no_relevant: str = "zero"
    ignore_ties: bool = False
    trec_eval_version: str = "10"
    leakage: str = "raise"
    label_gain: object = None
    ap_denominator: str = "R"

    __hash__ = None  # n_relevant may be a dict

    @property
    def gain_levels(self):
        """``label_gain`` as sorted ``((label, gain), ...)``; () where not given."""
        return () if self.label_gain is None else label_gain_levels(self.label_gain)

    @property
    def ap_divides_by(self):
        """``ap_denominator`` without its whitespace: ``"R"`` or ``"min(R,k)"``."""
        return ap_denominator_of(self.ap_denominator)

    @classmethod
    def of(cls, given):
        """The options among the keyword arguments ``given`` (the data are not options)."""
        return cls(**{f.name: given[f.name] for f in fields(cls) if f.name in given})

    @classmethod
    def checked(cls, owner, **given):
        """Check ``given`` against the parameter table (errors name ``owner``); their options."""
        check_parameters(owner, **given)
        return cls.of(given)
