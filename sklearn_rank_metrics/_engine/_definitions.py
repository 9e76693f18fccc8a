"""Metric names as IR tools write them (``"ndcg@10"``, ``"map"``), in one registry.

:func:`~sklearn_rank_metrics.evaluate` and the scorers both resolve names
here, so a name means the same thing everywhere.
"""

import difflib
import re
from dataclasses import dataclass, field

from ..metrics import _ranking


@dataclass(frozen=True)
class RegisteredMetric:
    """A named metric: its public function, computation (in ``_metric_values``) and fixed options."""

    name: str
    function: object
    computation: str
    takes_cutoff: bool = True
    unbounded: bool = False
    uses_relevance: bool = True  # binary relevance (relevance_level, n_relevant)
    uses_gain: bool = False
    fixed_options: dict = field(default_factory=dict)


_METRICS = [
    RegisteredMetric("ndcg", _ranking.ndcg_score, "ndcg", uses_relevance=False, uses_gain=True),
    RegisteredMetric("dcg", _ranking.dcg_score, "dcg", unbounded=True, uses_relevance=False, uses_gain=True),
    RegisteredMetric("cg", _ranking.cg_score, "cg", unbounded=True, uses_relevance=False, uses_gain=True),
    RegisteredMetric("mrr", _ranking.mrr_score, "mrr"),
    RegisteredMetric("map", _ranking.map_score, "map"),
    RegisteredMetric("precision", _ranking.precision_at_k_score, "precision"),
    RegisteredMetric("recall", _ranking.recall_at_k_score, "recall"),
    RegisteredMetric("f1", _ranking.f1_at_k_score, "f1"),
    RegisteredMetric("recall_cap", _ranking.recall_cap_score, "recall_cap"),
    RegisteredMetric("hit_rate", _ranking.hit_rate_score, "hit_rate"),
    RegisteredMetric(
        "hit_rate_item", _ranking.hit_rate_score, "hit_rate",
        fixed_options={"level": "item"},
    ),
    RegisteredMetric("r_precision", _ranking.r_precision_score, "r_precision", takes_cutoff=False),
    RegisteredMetric(
        "rc", _ranking.rank_correlation_score, "rank_correlation",
        takes_cutoff=False, uses_relevance=False,
    ),
    RegisteredMetric(
        "kendall", _ranking.rank_correlation_score, "rank_correlation",
        takes_cutoff=False, uses_relevance=False, fixed_options={"method": "kendall"},
    ),
]  # fmt: skip

METRICS = {metric.name: metric for metric in _METRICS}

ALIASES = {
    "ap": "map",
    "recip_rank": "mrr",
    "rr": "mrr",
    "p": "precision",
    "f1_score": "f1",
    "r_cap": "recall_cap",
    "hit_rate_query": "hit_rate",
    "hr": "hit_rate",
    "rprec": "r_precision",
    "r-precision": "r_precision",
    "rank_correlation": "rc",
    "kendall_tau": "kendall",
}

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:@\s*(\S+))?\s*$")


def valid_names():
    return sorted(METRICS) + sorted(ALIASES)


def resolve_metric(name):
    """Return ``(RegisteredMetric, k)`` for a name such as ``"ndcg@10"`` or ``"map"``."""
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
    metric = METRICS[base]
    cutoff = match.group(2)
    if cutoff is None:
        return metric, None
    if not metric.takes_cutoff:
        raise ValueError(f"{metric.name!r} compares whole lists and takes no @k: use {metric.name!r}.")
    if not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"the cutoff in {name!r} must be a positive int, e.g. '{base}@10'.")
    return metric, int(cutoff)
