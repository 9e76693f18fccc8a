"""One definition per metric: the table every name, option and document derives from.

Each :class:`MetricDefinition` says what a metric is (its one-query formula
and the tools it matches, for the documentation), how it is named
(``"ndcg"``, aliases, ``@k``), which shared options it takes, and how its
per-query values are computed: the ranked quantities it needs from the
kernels and the ``finalize`` step that combines them with order-free totals
(see :mod:`._evaluation`). The public functions, :func:`evaluate`, the
scorers, the metric table of the documentation and the tests' parametrization
all read this table, so adding a metric means adding its definition, its
kernel and its public function.
"""

import difflib
import re
from dataclasses import dataclass, field

import numpy as np

from ._params import is_cutoff
from ._results import QueryValues

# Which shared options a metric takes follows from what its value depends
# on: graded gains, binary relevance (label >= relevance_level) or label
# pairs. Written once here; ``ties`` and ``sample_weight`` apply to all.
FAMILY_OPTIONS = {
    "graded": ("gain", "ties", "no_relevant"),
    "binary": ("relevance_level", "n_relevant", "ties", "no_relevant"),
    "pairs": ("ties",),
}


# ------------------------------------------------------------ computations
# A computation lists the quantities a metric needs for a cutoff ``k``
# (``needs(evaluation, k)``) and combines them into per-query values
# (``finalize(evaluation, k)`` -> QueryValues). Quantities are named as in
# ``._evaluation``; "relevant" is the number of relevant documents listed.


@dataclass(frozen=True)
class Computation:
    needs: object
    finalize: object


def _ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


def _ndcg_needs(ev, k):
    scaled = ev.needs_scaled_gains
    return [("gain", k, True, scaled), ("ideal", k, scaled)]


def _ndcg(ev, k):
    scaled = ev.needs_scaled_gains
    ideal = ev.value(("ideal", k, scaled))
    return QueryValues(_ratio(ev.value(("gain", k, True, scaled)), ideal), no_relevant=ideal == 0)


def _unbounded(discounted):
    """DCG or CG: the raw (discounted) gain sum, which must fit in a float64."""

    def needs(ev, k):
        return [("gain", k, discounted, False), ("has_gain",)]

    def finalize(ev, k):
        values = ev.value(("gain", k, discounted, False))
        if not np.isfinite(values).all():
            other_gain = " gain='linear'," if ev.gain == "exponential" else ""
            raise ValueError(
                f"the {'discounted ' if discounted else ''}cumulative gain overflows float64: "
                f"with gain={ev.gain!r}, labels up to {ev.rq.labels.top:g} have gains too "
                f"large to add up. Use ndcg_score, which is exact for any labels,{other_gain} "
                "or smaller labels."
            )
        return QueryValues(values, no_relevant=~ev.value(("has_gain",)))

    return Computation(needs, finalize)


def _binary(kind, combine):
    """A metric of binary relevance: one ranked quantity combined with the relevant totals.

    ``combine(value, total_relevant, cutoffs, evaluation)`` returns the
    per-query values, or ``(values, pool_weights)``.
    """

    def needs(ev, k):
        return [(kind,) if kind == "hits_at_r" else (kind, k), ("relevant",)]

    def finalize(ev, k):
        total = ev.total_relevant()
        value = ev.value((kind,) if kind == "hits_at_r" else (kind, k))
        combined = combine(value, total, ev.cutoffs(k), ev)
        values, pool_weights = combined if isinstance(combined, tuple) else (combined, None)
        return QueryValues(values, no_relevant=total == 0, pool_weights=pool_weights)

    return Computation(needs, finalize)


def _items_hit(hits, total, cutoffs, ev):
    recommended = np.minimum(cutoffs, ev.rq.query_sizes).astype(np.float64)
    return hits / recommended, recommended


def _pairs(kendall):
    def needs(ev, k):
        return [("pairs", kendall)]

    def finalize(ev, k):
        counts = ev.value(("pairs", kendall))
        pairs, discordant = counts["pairs"], counts["discordant"]
        tied_score, tied_label, tied_both = (
            counts["tied_score"], counts["tied_label"], counts["tied_both"]
        )
        concordant = pairs - discordant - tied_score - tied_label + tied_both
        with np.errstate(divide="ignore", invalid="ignore"):
            if kendall:
                denominator = np.sqrt((pairs - tied_score) * (pairs - tied_label))
                values = np.where(denominator > 0, (concordant - discordant) / denominator, np.nan)
                reason = "a single document, or constant labels or scores"
            else:
                # Pairs of equal label agree with every ideal ordering; pairs of
                # tied score and different label count 1/2 (the expected value).
                agreeing = tied_label + concordant + 0.5 * (tied_score - tied_both)
                values = np.where(pairs > 0, agreeing / pairs, np.nan)
                reason = "a single document"
        return QueryValues(values, undefined_reason=reason)

    return Computation(needs, finalize)


NDCG = Computation(_ndcg_needs, _ndcg)
# F1 = 2PR / (P + R) with P = hits/k and R = hits/total is 2 hits / (k + total):
# linear in the hits, so the expectation under ties stays exact.
COMPUTATIONS = {
    "ndcg": NDCG,
    "dcg": _unbounded(discounted=True),
    "cg": _unbounded(discounted=False),
    "mrr": _binary("reciprocal_rank", lambda rr, total, cutoffs, ev: rr),
    "map": _binary("precision_sum", lambda ps, total, cutoffs, ev: _ratio(ps, total)),
    "precision": _binary("hits", lambda hits, total, cutoffs, ev: hits / cutoffs),
    "recall": _binary("hits", lambda hits, total, cutoffs, ev: _ratio(hits, total)),
    "f1": _binary("hits", lambda hits, total, cutoffs, ev: 2.0 * hits / (cutoffs + total)),
    "recall_cap": _binary(
        "hits", lambda hits, total, cutoffs, ev: _ratio(hits, np.minimum(cutoffs, total))
    ),
    "hit_rate": _binary("hit", lambda hit, total, cutoffs, ev: hit),
    "hit_rate_item": _binary("hits", _items_hit),
    "r_precision": _binary("hits_at_r", lambda hits, total, cutoffs, ev: _ratio(hits, total)),
    "rc": _pairs(kendall=False),
    "kendall": _pairs(kendall=True),
}  # fmt: skip


@dataclass(frozen=True)
class MetricDefinition:
    """A named ranking metric.

    Attributes
    ----------
    name : str
        Name in :func:`evaluate` and the scorers, e.g. ``"ndcg"``.
    function : str
        The public function computing it, e.g. ``"ndcg_score"``.
    fixed_options : dict
        Options of that function the name fixes (``level="item"``).
    family : {"graded", "binary", "pairs"}
        What the value depends on; decides the options it takes.
    takes_cutoff : bool
        Whether ``@k`` / ``k=`` applies (False: whole lists only).
    bounded : bool
        Whether values lie in [0, 1], so ``no_relevant="one"`` makes sense.
    aliases : tuple of str
        Other names accepted for it.
    formula : str
        One query's value, for the documentation's metric table.
    matches : str
        Reference tools giving the same numbers.
    """

    name: str
    function: str
    family: str
    takes_cutoff: bool = True
    bounded: bool = True
    aliases: tuple = ()
    fixed_options: dict = field(default_factory=dict)
    formula: str = ""
    matches: str = ""

    @property
    def computation(self):
        """What the metric needs and how it combines it (see ``COMPUTATIONS``)."""
        return COMPUTATIONS[self.name]

    @property
    def options(self):
        """The shared options this metric takes (besides ``k``, ``qid``, ``sample_weight``)."""
        return FAMILY_OPTIONS[self.family]


_DEFINITIONS = (
    MetricDefinition("ndcg", "ndcg_score", "graded", formula="`DCG@k / IDCG@k`, IDCG@k the DCG@k of the list sorted by decreasing label", matches="`sklearn.metrics.ndcg_score`, trec_eval `ndcg_cut` (with the list's own grades)"),
    MetricDefinition("dcg", "dcg_score", "graded", bounded=False, formula="`sum_{i <= min(k, n)} g(rel_i) / log2(i + 1)`", matches="`sklearn.metrics.dcg_score` (log_base=2)"),
    MetricDefinition("cg", "cg_score", "graded", bounded=False, formula="`sum_{i <= min(k, n)} g(rel_i)`"),
    MetricDefinition("mrr", "mrr_score", "binary", aliases=("rr", "recip_rank"), formula="`1 / rank` of the first relevant document if it is in the top `k`, else 0", matches="trec_eval `recip_rank`, ranx `mrr`"),
    MetricDefinition("map", "map_score", "binary", aliases=("ap",), formula="`(1 / R) sum_{i <= k, rel_i relevant} P@i`", matches="trec_eval `map` / `map_cut`, ranx `map`"),
    MetricDefinition("precision", "precision_at_k_score", "binary", aliases=("p",), formula="`hits@k / k` (k even for shorter lists)", matches="trec_eval `P_k`, ranx `precision`"),
    MetricDefinition("recall", "recall_at_k_score", "binary", formula="`hits@k / R`", matches="trec_eval `recall_k`, ranx `recall`"),
    MetricDefinition("f1", "f1_at_k_score", "binary", aliases=("f1_score",), formula="`2 P@k Recall@k / (P@k + Recall@k) = 2 hits@k / (k + R)`", matches="ranx `f1`"),
    MetricDefinition("recall_cap", "recall_cap_score", "binary", aliases=("r_cap",), formula="`hits@k / min(k, R)`", matches="BEIR / MTEB `R_cap@k`"),
    MetricDefinition("hit_rate", "hit_rate_score", "binary", aliases=("hr", "hit_rate_query"), fixed_options={"level": "query"}, formula="1 if `hits@k > 0` else 0", matches="ranx `hit_rate`"),
    MetricDefinition("hit_rate_item", "hit_rate_score", "binary", fixed_options={"level": "item"}, formula="`hits@k / min(k, n)`; the mean is pooled: `sum hits@k / sum min(k, n)`"),
    MetricDefinition("r_precision", "r_precision_score", "binary", takes_cutoff=False, aliases=("rprec", "r-precision"), formula="`hits@R / R`", matches="trec_eval `Rprec`"),
    MetricDefinition("rc", "rank_correlation_score", "pairs", takes_cutoff=False, aliases=("rank_correlation",), fixed_options={"method": "rc"}, formula="share of document pairs ordered as the labels; pairs of equal label agree", matches="Liu, *Learning to Rank for IR* (RC)"),
    MetricDefinition("kendall", "rank_correlation_score", "pairs", takes_cutoff=False, aliases=("kendall_tau",), fixed_options={"method": "kendall"}, formula="Kendall's tau-b between labels and scores", matches="`scipy.stats.kendalltau`"),
)  # fmt: skip

METRICS = {definition.name: definition for definition in _DEFINITIONS}

ALIASES = {alias: definition.name for definition in METRICS.values() for alias in definition.aliases}

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:@\s*(\S+))?\s*$")
_CUTOFF = re.compile(r"[0-9]{1,19}")  # 2**63 - 1 has 19 digits


def valid_names():
    """Every accepted metric name: the definitions', then the aliases."""
    return sorted(METRICS) + sorted(ALIASES)


def check_bounded(definition, no_relevant, name):
    """Reject ``no_relevant="one"`` for a metric without an upper bound (DCG, CG)."""
    if not definition.bounded and isinstance(no_relevant, str) and no_relevant == "one":
        raise ValueError(
            f"no_relevant='one' is not available for {name!r}, which has no upper bound; "
            "use 'zero' or 'skip'."
        )


def resolve_metric(name):
    """Return ``(MetricDefinition, k)`` for a name such as ``"ndcg@10"`` or ``"map"``.

    Raises a ValueError listing the valid names (and the closest one) for an
    unknown name, and one that shows the right form for a bad cutoff.
    """
    if not isinstance(name, str):
        raise TypeError(f"a metric name must be a string such as 'ndcg@10', got {name!r}.")
    match = _NAME.match(name)
    base = match.group(1).lower() if match else name
    base = ALIASES.get(base, base)
    if base not in METRICS:
        close = difflib.get_close_matches(base, valid_names(), n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"unknown metric {name!r}.{hint} Valid names: {', '.join(valid_names())}; "
            "append @k for a cutoff, e.g. 'ndcg@10'."
        )
    definition = METRICS[base]
    cutoff = match.group(2)
    if cutoff is None:
        return definition, None
    if not definition.takes_cutoff:
        raise ValueError(
            f"{definition.name!r} compares whole lists and takes no @k: use {definition.name!r}."
        )
    # ASCII digits only: str.isdigit() takes '²', int() '٣'; and int() refuses 5,000 digits.
    if not _CUTOFF.fullmatch(cutoff) or not is_cutoff(int(cutoff)):
        raise ValueError(
            f"the cutoff in {name!r} must be a positive int of ASCII digits, at most 2**63 - 1, "
            f"e.g. '{base}@10'."
        )
    return definition, int(cutoff)
