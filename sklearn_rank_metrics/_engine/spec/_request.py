"""What one call asks for: its requests, and the facts its plan is made from.

A :class:`Request` is one measure to compute (a definition, a cutoff, a
relevance level, declared parameters), made from a name by :mod:`._names`
or by a metric function. :class:`CurveRequests` are those of a metric@k
curve. :class:`PlanContext` holds the call's options and the facts fixed
before the run (judged documents or not, ``n_relevant`` given or not,
whether gains are scaled): a computation's ``needs`` is a function of a
request and it alone. :class:`RunView` is what a computation's
``finalize`` reads from the run besides its quantities' values.
"""

from dataclasses import dataclass
from typing import Protocol

from .._options import exact_level
from ..quantities import GradedInList, RelevantInList
from ._definition import MetricDefinition

_DECLARED = object()  # Request.option's default: the definition's declared one


@dataclass(frozen=True)
class Request:
    """One metric to compute: the name its results carry, its definition, its cutoff.

    ``level`` is the relevance level this measure alone uses (``P(rel=2)@5``,
    trec_eval's ``-l``), None for the call's ``relevance_level``. ``options``
    holds the measure's own parameters as sorted ``(name, value)`` pairs
    (RBP's persistence, ERR's maximum grade, ...), hashable like the rest;
    a parameter not given takes its definition's declared default.
    """

    name: str
    definition: MetricDefinition
    k: int | None = None
    level: float | None = None
    options: tuple = ()

    def option(self, name, default=_DECLARED):
        """The value of the measure parameter ``name``: given, else ``default``, else declared."""
        options = dict(self.options)
        if name in options:
            return options[name]
        return self.definition.default(name) if default is _DECLARED else default

    def parameter(self, name):
        """The value of the declared parameter ``name``, checked against its declaration."""
        return self.definition.parameter(name).read(self)


@dataclass(frozen=True)
class CurveRequests:
    """The requests of a metric@k curve, ``k = 1 .. k_max``, made once the curve's end is known.

    The curve run (``run/_curve.py``) asks for those up to the cutoff
    beyond which nothing but k itself changes, so that a huge ``k_max``
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


@dataclass(frozen=True)
class PlanContext:
    """The call's options and the facts fixed before the run, which a plan reads.

    Attributes
    ----------
    gain : {"linear", "exponential"}
        The call's gain.
    relevance_level : int or float
        The call's relevance level (exact: see :func:`~.._options.exact_level`).
    n_relevant_given : bool
        Whether ``n_relevant`` gives totals of relevant documents.
    judged_top : float or None
        The largest grade of the judged documents (a TREC run's qrels), None
        where the ranking is not evaluated against judged documents.
    trec_eval_version : {"10", "9"}
        Whose conventions apply where trec_eval's versions differ.
    scaled_gains : bool
        Whether some query's unscaled DCG could overflow float64 (the ranked
        lists', or the judged documents'), so that NDCG scales its gains;
        False where no computation of the call reads it.
    label_gain : tuple
        The call's gain of each label, ``((label, gain), ...)``; () where the
        call gives none (the gain is ``gain``'s).
    ap_denominator : {"R", "min(R,k)"}
        What AP@k divides by.
    """

    gain: str = "linear"
    relevance_level: float = 1
    n_relevant_given: bool = False
    judged_top: float | None = None
    trec_eval_version: str = "10"
    scaled_gains: bool = False
    label_gain: tuple = ()
    ap_denominator: str = "R"

    @property
    def judged(self):
        """Whether the totals are those of judged documents (a TREC run's qrels)."""
        return self.judged_top is not None

    def level_of(self, request):
        """The relevance level of ``request``: its own, or the call's."""
        return self.relevance_level if request.level is None else exact_level(request.level)

    def relevant_set_quantities(self, ideal=False):
        """What the run's ``unlisted_relevant`` reads (``ideal``: and ``unknown_grades``).

        Nothing without ``n_relevant``.
        """
        if not self.n_relevant_given:
            return ()
        relevant = RelevantInList(self.relevance_level)
        return (relevant, GradedInList()) if ideal else (relevant,)


class RunView(Protocol):
    """What a computation's ``finalize`` reads from the run, besides its quantities' values.

    ``rq`` is the ranked queries (``query_sizes``, ``discount_cumsum``,
    ``labels.top``, ``input.query_name``); ``n_relevant`` the given totals
    (-1 where not given) or None. ``unlisted_relevant``, ``unlisted_gain``
    and ``unknown_grades`` read the quantities of
    :meth:`PlanContext.relevant_set_quantities`.
    """

    rq: object
    n_relevant: object

    def cutoffs(self, k): ...

    def total_relevant(self, level): ...

    def unlisted_relevant(self): ...

    def unlisted_gain(self, function): ...

    def unknown_grades(self, function): ...
