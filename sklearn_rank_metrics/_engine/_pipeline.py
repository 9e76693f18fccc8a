"""What a call asks the engine for: one :class:`Request` per measure, or a curve's.

The names (three syntaxes, see :mod:`._names`) resolve to requests; the run
layer (:mod:`.run`) computes them.
"""

from dataclasses import dataclass

from ._definitions import MetricDefinition


@dataclass(frozen=True)
class Request:
    """One metric to compute: the name its results carry, its definition, its cutoff.

    ``level`` is the relevance level this measure alone uses (``P(rel=2)@5``,
    trec_eval's ``-l``), None for the call's ``relevance_level``. ``options``
    holds the measure's own parameters as sorted ``(name, value)`` pairs
    (RBP's persistence, ERR's maximum grade, ...), hashable like the rest.
    """

    name: str
    definition: MetricDefinition
    k: int | None = None
    level: float | None = None
    options: tuple = ()

    def option(self, name, default=None):
        """The value of the measure parameter ``name``, or ``default``."""
        return dict(self.options).get(name, default)


@dataclass(frozen=True)
class CurveRequests:
    """The requests of a metric@k curve, ``k = 1 .. k_max``, made once the curve's end is known.

    The curve run (:func:`~.run._curve.curve_results`) asks for those up
    to the cutoff beyond which nothing but k itself changes (see
    :meth:`~.run._curve.CurveEvaluation.curve_end`), so that a huge ``k_max``
    over short lists costs what the lists cost, for every metric (the
    caller says so where a metric that divides by k would go on falling
    beyond that end). Iterating gives the curve's first request, what a
    call's options (its gain) are read from.
    """

    definition: MetricDefinition
    k_max: int

    def up_to(self, end):
        """The requests at ``k = 1 .. min(k_max, end)``."""
        name = self.definition.name
        return [
            Request(f"{name}@{k}", self.definition, k) for k in range(1, min(self.k_max, end) + 1)
        ]

    def __iter__(self):
        return iter(self.up_to(1))
