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

# Which shared options a metric takes follows from what its value depends
# on: graded gains, binary relevance (label >= relevance_level) or label
# pairs. Written once here; ``ties`` and ``sample_weight`` apply to all.
FAMILY_OPTIONS = {
    "graded": ("gain", "ties", "no_relevant"),
    "binary": ("relevance_level", "n_relevant", "ties", "no_relevant"),
    "pairs": ("ties",),
}


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
    def options(self):
        """The shared options this metric takes (besides ``k``, ``qid``, ``sample_weight``)."""
        return FAMILY_OPTIONS[self.family]


METRICS = {
    definition.name: definition
    for definition in (
        MetricDefinition(
            "ndcg", "ndcg_score", "graded",
            formula="DCG@k / IDCG@k",
            matches="scikit-learn `ndcg_score`, trec_eval `ndcg_cut`",
        ),
        MetricDefinition(
            "dcg", "dcg_score", "graded", bounded=False,
            formula="sum of gain(rel_i) / log2(i + 1) over the top k",
            matches="scikit-learn `dcg_score`",
        ),
        MetricDefinition(
            "cg", "cg_score", "graded", bounded=False,
            formula="sum of gain(rel_i) over the top k",
        ),
        MetricDefinition(
            "mrr", "mrr_score", "binary", aliases=("rr", "recip_rank"),
            formula="1 / rank of the first relevant document (0 beyond k)",
            matches="trec_eval `recip_rank`, ranx `mrr`",
        ),
        MetricDefinition(
            "map", "map_score", "binary", aliases=("ap",),
            formula="sum of P@i over relevant i <= k, divided by R",
            matches="trec_eval `map_cut`, ranx `map`",
        ),
        MetricDefinition(
            "precision", "precision_at_k_score", "binary", aliases=("p",),
            formula="hits@k / k (k even for shorter lists)",
            matches="trec_eval `P_k`, ranx `precision`",
        ),
        MetricDefinition(
            "recall", "recall_at_k_score", "binary",
            formula="hits@k / R",
            matches="trec_eval `recall_k`, ranx `recall`",
        ),
        MetricDefinition(
            "f1", "f1_at_k_score", "binary", aliases=("f1_score",),
            formula="2 P@k Recall@k / (P@k + Recall@k)",
            matches="ranx `f1`",
        ),
        MetricDefinition(
            "recall_cap", "recall_cap_score", "binary", aliases=("r_cap",),
            formula="hits@k / min(k, R)",
            matches="BEIR / MTEB `R_cap@k`",
        ),
        MetricDefinition(
            "hit_rate", "hit_rate_score", "binary", aliases=("hr", "hit_rate_query"),
            fixed_options={"level": "query"},
            formula="1 if a relevant document is in the top k, else 0",
            matches="ranx `hit_rate`",
        ),
        MetricDefinition(
            "hit_rate_item", "hit_rate_score", "binary", fixed_options={"level": "item"},
            formula="hits@k / min(k, n), pooled over queries",
        ),
        MetricDefinition(
            "r_precision", "r_precision_score", "binary", takes_cutoff=False,
            aliases=("rprec", "r-precision"),
            formula="hits@R / R",
            matches="trec_eval `Rprec`",
        ),
        MetricDefinition(
            "rc", "rank_correlation_score", "pairs", takes_cutoff=False,
            aliases=("rank_correlation",), fixed_options={"method": "rc"},
            formula="share of document pairs ordered as their labels",
            matches="Liu, *Learning to Rank for IR* (RC)",
        ),
        MetricDefinition(
            "kendall", "rank_correlation_score", "pairs", takes_cutoff=False,
            aliases=("kendall_tau",), fixed_options={"method": "kendall"},
            formula="Kendall's tau-b between labels and scores",
            matches="`scipy.stats.kendalltau`",
        ),
    )
}  # fmt: skip

ALIASES = {alias: definition.name for definition in METRICS.values() for alias in definition.aliases}

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:@\s*(\S+))?\s*$")


def valid_names():
    """Every accepted metric name: the definitions', then the aliases."""
    return sorted(METRICS) + sorted(ALIASES)


def definition_for(function, **options):
    """The definition a public function computes with its naming options (``level``, ``method``)."""
    for definition in METRICS.values():
        if definition.function == function and all(
            options.get(key) == value for key, value in definition.fixed_options.items()
        ):
            return definition
    raise KeyError((function, options))


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
    if not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"the cutoff in {name!r} must be a positive int, e.g. '{base}@10'.")
    return definition, int(cutoff)
