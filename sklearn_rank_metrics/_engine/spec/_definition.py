"""What a metric is: its definition, its declared parameters and the computation protocol.

A :class:`MetricDefinition` says what a metric is (its one-query formula and
the tools it matches, for the documentation), how it is named, which shared
options of the call it takes, which measure parameters of its own it
declares (:class:`Parameter`: RBP's ``p``, ERR's ``max_grade``, ...) and how
its per-query values are computed (:class:`Computation`). The table of every
definition is :mod:`._table`; the computations are in :mod:`._gains` and
:mod:`._binary`. Nothing here reads data: a computation's plan is a function
of the request and the call's :class:`~._request.PlanContext` alone.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real

import numpy as np

# Which shared options a metric takes follows from what its value depends
# on: graded gains, binary relevance (label >= relevance_level) or label
# pairs. Written once here; ``ties`` and ``sample_weight`` apply to all.
FAMILY_OPTIONS = {
    "graded": ("gain", "ties", "no_relevant"),
    "binary": ("relevance_level", "n_relevant", "ties", "no_relevant"),
    "pairs": ("ties",),
    # Counts and shares defined for every query (num_rel, judged@k, utility, fallout with
    # its value 1 without non-relevant documents): no no_relevant.
    "counts": ("relevance_level", "n_relevant", "ties"),
}


def is_number(value):
    """Whether ``value`` is a real number written as one (not a bool)."""
    return isinstance(value, Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class Parameter:
    """A measure parameter a definition declares: its name, type, default, check and doc.

    The name parsers validate the parameters a name gives through these
    declarations (:meth:`validate`), and the computations read them from
    the request (:meth:`read`), so that each parameter has one default, in
    one place: its definition's.

    Attributes
    ----------
    name : str
        The parameter's name, in the names (``RBP(p=0.8)``, ``rbp_p=0.8``).
    doc : str
        What its value must be, for the documentation and the errors, e.g.
        ``"a persistence in (0, 1)"``; for a parameter ``fixed`` to its
        default, why no other value is available.
    default : object
        Its value where the name does not give it (None: none).
    accepts : Callable
        Whether a value is of the parameter's type, as written in a name.
    convert : Callable
        The value the computation reads, from one of its type.
    check : Callable or None
        Whether a converted value is in range.
    fixed : bool
        Only the default is available (``beta=1``, ``judged_only=False``):
        the error says that other values are not available.
    syntax_defaults : tuple of (str, object)
        A default a name syntax gives it where that syntax's own tool
        defines one differently (ir_measures' ``RBP`` is ``p=0.8``), stated
        in ``doc``.
    """

    name: str
    doc: str
    default: object = None
    accepts: Callable = is_number
    convert: Callable = float
    check: Callable | None = None
    fixed: bool = False
    syntax_defaults: tuple = ()

    def validate(self, value, where):
        """``value`` converted, or a ValueError naming ``where`` (a measure name) and the range."""
        try:
            converted = self.convert(value) if self.accepts(value) else None
            ok = converted is not None and (self.check is None or self.check(converted))
        except (TypeError, ValueError):
            ok = False
        if ok:
            return converted
        if self.fixed:
            raise ValueError(f"{self.name}={value!r} in {where!r} is not available: {self.doc}.")
        raise ValueError(f"{where}: {self.name} must be {self.doc}, got {value!r}.")

    def read(self, request):
        """The request's value of this parameter (its default where not given), checked."""
        return self.validate(request.option(self.name), request.name)

    def syntax_default(self, syntax):
        """The default ``syntax`` gives the parameter (None: the declared one)."""
        return dict(self.syntax_defaults).get(syntax)


# Parameters of ir_measures' names that every measure of binary relevance takes.
REL = Parameter("rel", "a number, e.g. rel=2", accepts=is_number, convert=lambda v: v)
JUDGED_ONLY = Parameter(
    "judged_only",
    "every retrieved document counts, unjudged ones as non-relevant (trec_eval's convention); "
    "drop judged_only, or remove the unjudged documents from the run first",
    default=False,
    accepts=lambda value: True,
    convert=lambda value: value,
    check=lambda value: not value,
    fixed=True,
)


@dataclass
class QueryValues:
    """A metric's raw per-query values, before the ``no_relevant`` convention.

    Attributes
    ----------
    values : ndarray of shape (n_queries,)
    no_relevant : ndarray of bool or None
        Queries without a relevant document (all labels 0 for gain metrics).
    pool_weights : ndarray or None
        Extra weights of the mean (item hit rate pools its items).
    undefined_reason : str or None
        Why a NaN value is undefined (rank correlation of one document).
    """

    values: np.ndarray
    no_relevant: np.ndarray | None = None
    pool_weights: np.ndarray | None = None
    undefined_reason: str | None = None


class Computation:
    """How a metric's per-query values are computed: its plan, then its finish.

    :meth:`needs` names the quantities (see ``..quantities``) a request needs,
    from the request and the call's :class:`~._request.PlanContext` alone;
    quantities equal in value are computed once for every metric of a call.
    :meth:`finalize` combines their per-query values, in the order
    :meth:`needs` returned them, with what it reads from the run (see
    :class:`~._request.RunView`: cutoffs, relevant totals, query sizes).
    ``reads_scaled_gains``: whether its plan reads
    :attr:`~._request.PlanContext.scaled_gains` (the run decides it only then).
    """

    reads_scaled_gains = False

    def needs(self, request, plan):
        """The quantities, in the order ``finalize`` receives their values."""
        raise NotImplementedError

    def finalize(self, request, plan, values, run):
        """The per-query :class:`QueryValues` of the computed ``values``."""
        raise NotImplementedError

    @staticmethod
    def level(request, plan):
        """The relevance level of this request: its own, or the call's ``relevance_level``."""
        return plan.level_of(request)


@dataclass(frozen=True)
class MetricDefinition:
    """A named ranking metric.

    Attributes
    ----------
    name : str
        Name in :func:`evaluate` and the scorers, e.g. ``"ndcg"``.
    family : {"graded", "binary", "pairs", "counts"}
        What the value depends on; decides the options it takes.
    computation : Computation
        The quantities it needs and how it combines them.
    function : str or None
        The public function computing it, e.g. ``"ndcg_score"``; None for a
        metric computed by :func:`evaluate` and the scorers only.
    takes_cutoff : bool
        Whether ``@k`` / ``k=`` applies (False: whole lists only).
    bounded : bool
        Whether values lie in [0, 1], so ``no_relevant="one"`` makes sense.
    aliases : tuple of str
        Other names accepted for it.
    fixed_options : dict
        Options of that function the name fixes (``level="item"``).
    extra_options : tuple of str
        Shared options it takes beyond its family's: ``label_gain`` (the
        measures of gains per label), ``ap_denominator`` (AP).
    formula : str
        One query's value, for the documentation's metric table.
    matches : str
        Reference tools giving the same numbers.
    aggregate : {"mean", "sum", "geometric"}
        How :meth:`QueryResults.mean` combines the queries: the mean, the sum
        (counts, as trec_eval's summary line), or the geometric mean
        ``exp(mean(log(max(v, 1e-5))))`` (trec_eval's ``gm_map``).
    integer : bool
        Whether the value is a count (printed as an integer).
    ties : str
        The tie modes that are exact, for the documentation: "all", or a
        sentence saying when ``ties="average"`` is (the measures that have no
        closed form for their expectation over tied orderings).
    parameters : tuple of Parameter
        The measure parameters it declares, each with its one default.
    higher_is_better : bool
        Whether a larger value is a better ranking (False: fallout), as the
        scorers orient it.
    """

    name: str
    family: str
    computation: Computation
    function: str | None = None
    takes_cutoff: bool = True
    bounded: bool = True
    aliases: tuple = ()
    fixed_options: dict = field(default_factory=dict)
    extra_options: tuple = ()
    formula: str = ""
    matches: str = ""
    aggregate: str = "mean"
    integer: bool = False
    ties: str = "all"
    parameters: tuple = ()
    higher_is_better: bool = True

    @property
    def options(self):
        """The shared options this metric takes (besides ``k``, ``qid``, ``sample_weight``)."""
        return FAMILY_OPTIONS[self.family] + self.extra_options

    def parameter(self, name):
        """The declared :class:`Parameter` ``name``, or None where it declares none of that name."""
        return next((p for p in self.parameters if p.name == name), None)

    def default(self, name):
        """The declared default of the parameter ``name`` (None where undeclared)."""
        parameter = self.parameter(name)
        return None if parameter is None else parameter.default

    def syntax_defaults(self, syntax):
        """``{name: default}`` of the parameters whose default ``syntax`` defines otherwise."""
        return {
            p.name: p.syntax_default(syntax)
            for p in self.parameters
            if p.syntax_default(syntax) is not None
        }


def check_bounded(definition, no_relevant, name):
    """Reject ``no_relevant="one"`` for a metric without an upper bound (DCG, CG)."""
    if not definition.bounded and isinstance(no_relevant, str) and no_relevant == "one":
        raise ValueError(
            f"no_relevant='one' is not available for {name!r}, which has no upper bound; "
            "use 'zero' or 'skip'."
        )
