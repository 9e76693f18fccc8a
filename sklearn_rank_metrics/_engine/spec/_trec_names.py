"""trec_eval's measure names, its measure table (its print order) and its sets.

trec_eval prints ``name_param``: ``ndcg_cut_10``, ``P_5``,
``iprec_at_recall_0.30``, ``set_F``, ``rbp_p=0.8``. :data:`TREC_MEASURES`
is its own table of measures, in its order, which is its print order, with
what each one's parameter list is and the package definition it is (or why
none); :data:`TREC_SETS` its sets (``official``, ``all_trec``). A parameter
that a definition declares (RBP's ``p``, the recall level, the gains per
relevance level) is checked by that declaration.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from ._package_names import NUMBER, PACKAGE_NAMES, MeasureSpec, cutoff, number
from ._table import METRICS

# ``params`` says what a measure's parameter list is, as trec_eval's
# init procedure for it reads it: "cutoffs" (ints, one measure each:
# P_5, P_10), "levels" (floats, one measure each, printed "%3.2f":
# iprec_at_recall_0.10), "values" (floats, one measure: set_F_0.5),
# "pairs" (name=value, one measure: rbp_p=0.8) or None.


def _declared(definition, option):
    """Values that set the parameter ``option`` its definition declares, checked there."""

    def to_options(values, name):
        return {option: METRICS[definition].parameter(option).validate(values, name)}

    return to_options


def _fixed(definition, option):
    """Values of a declared parameter that only its default takes (``set_F``'s beta)."""

    def to_options(values, name):
        for value in values:
            METRICS[definition].parameter(option).validate(value, name)
        return {}

    return to_options


def _only(defaults, what):
    """Parameters that may only be trec_eval's defaults (no option reads others)."""

    def to_options(values, name):
        if values != defaults:
            raise ValueError(f"the parameters in {name!r} are not available: {what}.")
        return {}

    return to_options


def _declared_pairs(definition, *accepted):
    """``name=value`` pairs of the ``accepted`` parameters of ``definition``, checked there."""

    def to_options(pairs, name):
        unknown = sorted(set(pairs) - set(accepted))
        if unknown:
            what = ", ".join(map(repr, accepted)) if accepted else "no parameters"
            raise ValueError(
                f"{name!r}: unknown parameter(s) {', '.join(map(repr, unknown))}; it takes "
                f"{what} here."
            )
        declared = METRICS[definition].parameter
        return {key: declared(key).validate(value, name) for key, value in pairs.items()}

    return to_options


@dataclass(frozen=True)
class TrecMeasure:
    """One of trec_eval's measures (or families of measures).

    ``definition`` is None for a measure this package does not offer,
    ``reason`` says why. ``option`` is the option its parameters set (for
    "levels"), ``to_options`` turns its parameter list into options (for
    "values" and "pairs"); ``defaults`` its default parameters as trec_eval
    prints them; ``integer`` a count (printed ``%ld``); ``per_query`` False
    for a measure trec_eval prints only in the ``all`` lines.
    """

    name: str
    definition: str | None
    params: str | None = None
    defaults: tuple = ()
    option: str | None = None
    to_options: Callable | None = None
    integer: bool = False
    per_query: bool = True
    reason: str = ""


_PREFERENCES = "needs preference judgments, which this package does not read"
_GROUPS = "needs judgment groups (qrels_jg), which this package does not read"
_CUTS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
_RECALLS = ("0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1")


def _gain_pairs(definition):
    """trec_eval's ``level=gain`` pairs (``ndcg.1=3.5,2=9``): a gain per relevance level."""

    def to_options(pairs, name):
        unknown = sorted(key for key in pairs if not re.fullmatch("[0-9]+", key))
        if unknown:
            raise ValueError(
                f"{name!r}: unknown parameter(s) {', '.join(map(repr, unknown))}; it takes "
                "gains per relevance level, level=gain, e.g. '1=3.5,2=9'."
            )
        gains = tuple(sorted((int(key), value) for key, value in pairs.items()))
        METRICS[definition].parameter("gains").validate(gains, name)
        return {"gains": gains}

    return to_options


TREC_MEASURES = (
    TrecMeasure("runid", None, reason="the run's name, printed as text"),
    TrecMeasure("num_q", "num_q", integer=True, per_query=False),
    TrecMeasure("num_ret", "num_ret", integer=True),
    TrecMeasure("num_rel", "num_rel", integer=True),
    TrecMeasure("num_rel_ret", "num_rel_ret", integer=True),
    TrecMeasure("map", "map"),
    TrecMeasure("gm_map", "gm_map", per_query=False),
    TrecMeasure("Rprec", "r_precision"),
    TrecMeasure("bpref", "bpref"),
    TrecMeasure("recip_rank", "mrr"),
    TrecMeasure("iprec_at_recall", "iprec_at_recall", "levels", _RECALLS, option="recall"),
    TrecMeasure("P", "precision", "cutoffs", _CUTS),
    TrecMeasure("relstring", None, reason="a string of relevance values, not a number"),
    TrecMeasure("recall", "recall", "cutoffs", _CUTS),
    TrecMeasure("infAP", "infap"),
    TrecMeasure("gm_bpref", "gm_bpref", per_query=False),
    TrecMeasure(
        "Rprec_mult", "rprec_mult", "levels",
        ("0.2", "0.4", "0.6", "0.8", "1.0", "1.2", "1.4", "1.6", "1.8", "2.0"),
        option="multiplier",
    ),
    TrecMeasure("utility", "utility", "values",
                to_options=_declared("utility", "coefficients")),
    TrecMeasure("11pt_avg", "iprec_11pt_avg", "values",
                to_options=_only(tuple(i / 10 for i in range(11)), "the 11 levels 0, 0.1, .. 1")),
    TrecMeasure("binG", "bing"),
    TrecMeasure("G", "g", "pairs", to_options=_gain_pairs("g")),
    TrecMeasure("dcg", "dcg", "pairs", to_options=_gain_pairs("dcg")),
    TrecMeasure("ideal_dcg", None, reason="the ideal DCG alone is not offered as a measure"),
    TrecMeasure("ndcg", "ndcg", "pairs", to_options=_gain_pairs("ndcg")),
    TrecMeasure("ndcg_rel", "ndcg_rel", "pairs", to_options=_gain_pairs("ndcg_rel")),
    TrecMeasure("Rndcg", "rndcg", "pairs", to_options=_gain_pairs("rndcg")),
    TrecMeasure("ndcg_cut", "ndcg", "cutoffs", _CUTS),
    TrecMeasure("map_cut", "map", "cutoffs", _CUTS),
    TrecMeasure("relative_P", "recall_cap", "cutoffs", _CUTS),
    TrecMeasure("success", "hit_rate", "cutoffs", ("1", "5", "10")),
    TrecMeasure("set_P", "precision"),
    TrecMeasure("set_relative_P", "recall_cap"),
    TrecMeasure("set_recall", "recall"),
    TrecMeasure("set_map", "set_map"),
    TrecMeasure("set_F", "f1", "values", to_options=_fixed("f1", "beta")),
    TrecMeasure("num_nonrel_judged_ret", "num_nonrel_judged_ret", integer=True),
    *(TrecMeasure(name, None, reason=_PREFERENCES) for name in (
        "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
        "prefs_avgjg_imp",
    )),
    *(TrecMeasure(name, None, reason=_GROUPS)
      for name in ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")),
    TrecMeasure("yaap", None, reason="yaap is not offered"),
    TrecMeasure("rbp", "rbp", "pairs", to_options=_declared_pairs("rbp", "p")),
    TrecMeasure("rbp_resid", "rbp_resid", "pairs", to_options=_declared_pairs("rbp_resid", "p")),
    TrecMeasure("unj", "unjudged", "cutoffs", ("5", "10", "20")),
)  # fmt: skip
TREC = {measure.name: measure for measure in TREC_MEASURES}
# Longest first, so that ndcg_cut_10 is read as ndcg_cut, not ndcg.
_TREC_BY_LENGTH = sorted(TREC, key=len, reverse=True)

# What trec_eval's measure is beyond its definition's declared defaults:
# trec_eval 10's rbp takes the topic's grades as gains (see RankBiased).
_TREC_OPTIONS = {"rbp": {"gains": "trec_eval"}}

# trec_eval's bare names that name another measure of the package: the key of trec_eval's
# measure in evaluate_run's results (and the measure rank-eval evaluates), a name that
# reads back as it. rank-eval prints the bare name, as trec_eval does.
TREC_KEYS = {"rbp": f"rbp_p={METRICS['rbp'].default('p')}"}

TREC_SETS = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp",
        "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
        "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
}  # fmt: skip


def trec_display_name(measure, param):
    """The name trec_eval prints for ``measure`` with one parameter (None: the bare name)."""
    if param is None:
        return measure.name
    if measure.params == "cutoffs":
        return f"{measure.name}_{int(param)}"
    if measure.params == "levels":
        return f"{measure.name}_{float(param):3.2f}"
    return f"{measure.name}_{param}"


def _pairs(text, name):
    pairs = {}
    for item in text.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise ValueError(f"the parameters in {name!r} must be name=value pairs, e.g. 'p=0.8'.")
        pairs[key] = number(value, name)
    return pairs


def trec_spec(measure, param, name):
    """The spec of trec_eval's ``measure`` with one parameter (None: its bare form)."""
    if measure.definition is None:
        raise ValueError(f"trec_eval's {measure.name!r} is not offered: {measure.reason}.")
    if measure.definition not in PACKAGE_NAMES:
        raise ValueError(f"trec_eval's {measure.name!r} is not offered.")
    spec = MeasureSpec(name, measure.definition)
    spec = spec.with_options(**_TREC_OPTIONS.get(measure.name, {}))
    if param is None:
        if measure.params in ("cutoffs", "levels"):
            example = trec_display_name(measure, measure.defaults[1])
            raise ValueError(
                f"trec_eval's {measure.name!r} is a family of measures: name one, e.g. "
                f"{example!r}, or several, e.g. '{measure.name}.{','.join(measure.defaults[:2])}'."
            )
        return spec
    if measure.params == "cutoffs":
        return replace(spec, k=cutoff(param, name, trec_display_name(measure, 10)))
    if measure.params == "levels":
        checked = _declared(measure.definition, measure.option)
        return spec.with_options(**checked(number(param, name), name))
    if measure.params == "values":
        values = tuple(number(value, name) for value in param.split(","))
        return spec.with_options(**measure.to_options(values, name))
    if measure.params == "pairs":
        return spec.with_options(**measure.to_options(_pairs(param, name), name))
    raise ValueError(f"trec_eval's {measure.name!r} takes no parameters: write {measure.name!r}.")


_PARAM_FORMS = {
    "cutoffs": re.compile(r"[0-9]+"),
    "levels": NUMBER,
    "values": re.compile(rf"(?:{NUMBER.pattern})(?:,(?:{NUMBER.pattern}))*"),
    "pairs": re.compile(rf"\w+=(?:{NUMBER.pattern})(?:,\w+=(?:{NUMBER.pattern}))*"),
}


def parse_trec(name, any_case):
    """The spec of a trec_eval name (``P_5``, ``map``), None if it is not one."""
    fold = str.lower if any_case else str
    text = name.strip()
    names = {fold(trec_name): trec_name for trec_name in TREC}
    if fold(text) in names:
        return trec_spec(TREC[names[fold(text)]], None, name)  # a family raises
    for trec_name in _TREC_BY_LENGTH:
        measure, prefix = TREC[trec_name], fold(trec_name + "_")
        if measure.params is None or not fold(text).startswith(prefix):
            continue
        param = text[len(prefix) :]
        if _PARAM_FORMS[measure.params].fullmatch(param):
            return trec_spec(measure, param, name)
    return None


def offered(measure):
    """Whether the package computes trec_eval's ``measure``."""
    return measure.definition in METRICS


def trec_set(name, skip_missing):
    """The measures of trec_eval's set ``name`` (``official``, ``all_trec``, ``set``).

    ``runid`` is left out (it is no number). ``skip_missing`` leaves out
    the measures the package does not offer and returns their names too;
    otherwise they raise.
    """
    measures, left_out = [], []
    for measure_name in TREC_SETS[name][1:]:
        measure = TREC[measure_name]
        if not offered(measure) and skip_missing:
            left_out.append(measure_name)
        else:
            measures.append(measure)
    return measures, left_out

