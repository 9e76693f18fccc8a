"""Measure names in any of three syntaxes, read into requests: the entry of the name layer.

A name is read in two steps. :func:`parse_name` turns the string into a
:class:`~._package_names.MeasureSpec` (the package definition it names,
its cutoff, its own relevance level and its parameters), trying each
syntax's forms in turn:

- the package's names, case-insensitive: ``ndcg@10``, ``map``, ``hit_rate@5``
  (:mod:`._package_names`);
- ir_measures' syntax, ``Name(param=value, ...)@at``: ``nDCG@10``,
  ``P(rel=2)@5``, ``RBP(p=0.8)``, ``IPrec@0.3`` (:mod:`._ir_measures`);
- trec_eval's printed names, ``name_param``: ``ndcg_cut_10``, ``P_5``,
  ``iprec_at_recall_0.30``, ``set_F``, ``rbp_p=0.8`` (:mod:`._trec_names`).

:func:`resolve_request` then looks the definition up in the table and makes
the :class:`~._request.Request`. :func:`parse_names` also expands
trec_eval's sets (``official``, ``all_trec``) and parameter lists
(``P.5,10``). An unknown name gets a suggestion by meaning first (a small
table of synonyms: ``hits`` is hit_rate, ``mean_reciprocal_rank`` is mrr),
then by spelling.
"""

import difflib
import re
import warnings
from dataclasses import replace
from functools import partial

from ._ir_measures import parse_ir
from ._list_measures import LIST_MEASURES
from ._package_names import PACKAGE_NAMES, cutoff, no_cutoff, number, parse_package, valid_names
from ._request import Request
from ._table import METRICS
from ._trec_names import (
    TREC,
    TREC_KEYS,
    TREC_SETS,
    parse_trec,
    trec_display_name,
    trec_set,
    trec_spec,
)

# ------------------------------------------------------------ suggestions
# Other words for the offered measures: an unknown name is first read for
# its meaning (hits@10 means hit_rate@10), then for its spelling.
_SYNONYMS = {
    "hits": "hit_rate", "hit": "hit_rate", "hitrate": "hit_rate", "hit_ratio": "hit_rate",
    "success_rate": "hit_rate", "r": "recall", "rec": "recall", "sensitivity": "recall",
    "mean_reciprocal_rank": "mrr", "reciprocal_rank": "mrr", "mean_rr": "mrr",
    "prec": "precision", "pr": "precision", "avg_precision": "map",
    "average_precision": "map", "mean_average_precision": "map", "mean_ap": "map",
    "avgprec": "map", "normalized_dcg": "ndcg", "normalised_dcg": "ndcg", "n_dcg": "ndcg",
    "discounted_cumulative_gain": "dcg", "cumulative_gain": "cg",
    "normalized_discounted_cumulative_gain": "ndcg", "f_measure": "f1", "f_score": "f1",
    "fscore": "f1", "f1score": "f1", "f": "f1", "r_prec": "r_precision",
    "rprecision": "r_precision", "expected_reciprocal_rank": "err",
    "rank_biased_precision": "rbp", "binary_preference": "bpref", "inferred_ap": "infap",
    "inf_ap": "infap", "kendalltau": "kendall", "tau": "kendall", "capped_recall": "recall_cap",
    "recall_capped": "recall_cap", "judged_share": "judged",
}  # fmt: skip
_CUTOFF_TAIL = re.compile(r"(?:@.*|\(.*|_at_?(?:k|[0-9]+)|_?[0-9]+)$")


def _suggestion(name):
    """The offered measure closest to ``name`` in meaning, else in spelling (None: none)."""
    base = re.sub(r"[\s\-.]+", "_", name.strip().lower())
    for candidate in (base, _CUTOFF_TAIL.sub("", base)):
        if candidate in _SYNONYMS:
            return _SYNONYMS[candidate]
        if candidate in PACKAGE_NAMES:
            return candidate
    close = difflib.get_close_matches(_CUTOFF_TAIL.sub("", base), valid_names(), n=1, cutoff=0.5)
    return close[0] if close else None


def _unknown(name):
    base = _CUTOFF_TAIL.sub("", re.sub(r"[\s\-.]+", "_", name.strip().lower()))
    if base in LIST_MEASURES:
        return ValueError(
            f"{name!r} names a measure of top-k lists (beyond accuracy), written "
            f"'{base}@k' (e.g. '{base}@10'): evaluate_top_k computes it from lists of item "
            "ids, evaluate_retrieval from query and item vectors; evaluate ranks scores."
        )
    close = _suggestion(name)
    hint = f" Did you mean {close!r}?" if close else ""
    return ValueError(
        f"unknown metric {name!r}.{hint} Valid names: {', '.join(valid_names())}; "
        "append @k for a cutoff, e.g. 'ndcg@10'. ir_measures' names ('nDCG@10', "
        "'P(rel=2)@5') and trec_eval's ('ndcg_cut_10', 'P_5') are accepted too."
    )


# The forms in the order they are tried: ir_measures' names as it spells
# them (``RBP`` is its RBP, p=0.8), the package's names in any case, then
# trec_eval's names as it spells them, and both in any case.
_FORMS = (
    partial(parse_ir, any_case=False),
    parse_package,
    partial(parse_trec, any_case=False),
    partial(parse_ir, any_case=True),
    partial(parse_trec, any_case=True),
)


def parse_name(name):
    """The :class:`MeasureSpec` of one measure name, in any of the three syntaxes."""
    if not isinstance(name, str):
        raise TypeError(f"a metric name must be a string such as 'ndcg@10', got {name!r}.")
    for parse in _FORMS:
        spec = parse(name)
        if spec is not None:
            return spec
    raise _unknown(name)


def _raw(measure, spec):
    """The parameter of a spec of trec_eval's ``measure``, written so that it reads back exactly."""
    if measure.params == "cutoffs":
        return str(spec.k)
    options = dict(spec.options)
    if measure.params == "levels":
        return repr(options[measure.option])
    return spec.name[len(measure.name) + 1 :]


def _same_measure(spec, other):
    return (spec.definition, spec.k, spec.level, spec.options) == (
        other.definition, other.k, other.level, other.options
    )  # fmt: skip


def trec_key(measure, spec):
    """The key of trec_eval's ``measure`` of ``spec`` (named as printed), which reads back as it.

    The printed name itself, but where that names another measure: trec_eval's
    bare ``rbp`` (the package's ``rbp`` is binary RBP) is trec_eval 10's
    graded RBP under the key ``rbp_p=0.9``, and a rounded parameter is
    written in full (``iprec_at_recall_0.333``, printed ``iprec_at_recall_0.33``).
    """
    if spec.name in TREC_KEYS:
        return TREC_KEYS[spec.name]
    if spec.name == measure.name or _same_measure(parse_name(spec.name), spec):
        return spec.name  # a bare name other than rbp is the package's measure of that name
    return f"{measure.name}_{_raw(measure, spec)}"


def expand_trec(measure, params, printed=False):
    """The specs of trec_eval's ``-m measure.params`` (``params`` None: its defaults).

    Each spec's name is its key (:func:`trec_key`), or with ``printed`` the
    name trec_eval prints; a parameter list is read as trec_eval reads it
    (cutoffs sorted, duplicates dropped).
    """
    if not printed:
        specs = expand_trec(measure, params, printed=True)
        return [replace(spec, name=trec_key(measure, spec)) for spec in specs]
    if measure.params in ("cutoffs", "levels"):
        if params is None:
            values = measure.defaults
        else:
            convert = int if measure.params == "cutoffs" else float
            parsed = {}
            for value in params.split(","):
                key = (
                    cutoff(value, f"{measure.name}.{params}", f"{measure.name}.5,10")
                    if convert is int
                    else number(value, f"{measure.name}.{params}")
                )
                parsed.setdefault(key, value)
            values = [parsed[key] for key in sorted(parsed)]
        return [
            trec_spec(measure, value, trec_display_name(measure, value)) for value in values
        ]
    return [trec_spec(measure, params, trec_display_name(measure, params))]


def parse_names(names):
    """The specs of a list of names, expanding trec_eval's sets and parameter lists.

    ``official``, ``all_trec`` and ``set`` give the measures of trec_eval's
    set (in its order; those not offered are left out with a warning);
    ``P.5,10`` gives ``P_5`` and ``P_10``; any other name is one measure.
    """
    if isinstance(names, str):
        names = [names]
    specs = []
    for name in names:
        if isinstance(name, str) and name.strip() in TREC_SETS:
            measures, left_out = trec_set(name.strip(), skip_missing=True)
            if left_out:
                warnings.warn(
                    f"{name!r}: left out trec_eval's {', '.join(left_out)}, which this package "
                    "does not offer.",
                    UserWarning,
                    stacklevel=3,
                )
            specs += [spec for measure in measures for spec in expand_trec(measure, None)]
            continue
        base, dot, params = name.partition(".") if isinstance(name, str) else (name, "", "")
        if dot and base in TREC and TREC[base].params is not None:
            specs += expand_trec(TREC[base], params)
        else:
            specs.append(parse_name(name))
    return specs


def resolve_request(spec):
    """The :class:`~._request.Request` of a spec: its definition looked up in the engine's table."""
    definition = METRICS.get(spec.definition)
    if definition is None:
        raise ValueError(
            f"{spec.name!r} names the measure {spec.definition!r}, which this version of the "
            "package does not compute."
        )
    if spec.k is not None and not definition.takes_cutoff:
        no_cutoff(definition)
    return Request(spec.name, definition, spec.k, spec.level, spec.options)


def name_requests(names):
    """One :class:`~._request.Request` per measure the names give, in their order."""
    return [resolve_request(spec) for spec in parse_names(names)]


def call_gain(requests, gain):
    """The gain of the call: ``gain``, or the one every graded measure's name asks for.

    ``nDCG(dcg='exp-log2')@10`` asks for exponential gains; measures of one
    call share their gains, so names asking for different gains raise.
    """
    graded = [r for r in requests if r.definition.family == "graded"]
    gains = {r.option("gain", gain) for r in graded}
    if len(gains) > 1:
        asking = [r.name for r in graded if r.option("gain", gain) != gain]
        raise ValueError(
            f"{', '.join(map(repr, asking))} ask(s) for gain='exponential' while the other "
            f"graded measures use gain={gain!r}: evaluate them in separate calls, or pass "
            "gain='exponential' for all."
        )
    return gains.pop() if gains else gain

