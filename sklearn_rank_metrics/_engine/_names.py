"""Measure names: the package's, ir_measures' and trec_eval's, parsed into one spec.

A name is read in two steps. :func:`parse_name` turns the string into a
:class:`MeasureSpec` (the package definition it names, its cutoff, its own
relevance level and its parameters) from three tables of name forms, one
per syntax:

- the package's names, case-insensitive: ``ndcg@10``, ``map``, ``hit_rate@5``;
- ir_measures' syntax, ``Name(param=value, ...)@at``: ``nDCG@10``,
  ``P(rel=2)@5``, ``RBP(p=0.8)``, ``IPrec@0.3`` (:data:`IR_MEASURES`);
- trec_eval's printed names, ``name_param``: ``ndcg_cut_10``, ``P_5``,
  ``iprec_at_recall_0.30``, ``set_F``, ``rbp_p=0.8`` (:data:`TREC_MEASURES`,
  in trec_eval's own table order, which is its print order).

:func:`resolve_request` then looks the definition up in the engine's table
and makes the :class:`~._pipeline.Request`. :func:`parse_names` also expands
trec_eval's sets (``official``, ``all_trec``) and parameter lists
(``P.5,10``). An unknown name gets a suggestion by meaning first (a small
table of synonyms: ``hits`` is hit_rate, ``mean_reciprocal_rank`` is mrr),
then by spelling.
"""

import ast
import difflib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from ._definitions import ALIASES, METRICS
from ._params import is_cutoff
from ._pipeline import Request


@dataclass(frozen=True)
class MeasureSpec:
    """What one measure name asks for, before its definition is looked up.

    Attributes
    ----------
    name : str
        The name the results carry: the caller's string.
    definition : str
        The package definition it names, e.g. ``"precision"``.
    k : int or None
        The cutoff (``@k``, trec_eval's ``_k``), None for the whole list.
    level : float or None
        The relevance level of this measure alone (``rel=2``), None for the call's.
    options : tuple of (str, object)
        The measure's own parameters, sorted by name.
    """

    name: str
    definition: str
    k: int | None = None
    level: float | None = None
    options: tuple = ()

    def with_options(self, **options):
        """A copy with ``options`` added (replacing any of the same name)."""
        return replace(self, options=tuple(sorted({**dict(self.options), **options}.items())))


_PACKAGE_NAMES = {**ALIASES, **{name: name for name in METRICS}}

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:@\s*(\S+))?\s*$")
_CUTOFF = re.compile(r"[0-9]{1,19}")  # 2**63 - 1 has 19 digits
_IR_FORM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*$")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def valid_names():
    """Every accepted package name: the definitions', then the aliases."""
    return sorted(METRICS) + sorted(ALIASES)


def _cutoff(text, name, example):
    """The int cutoff written in ``text``, or a ValueError showing the right form."""
    # ASCII digits only: str.isdigit() takes '²', int() '٣'; and int() refuses 5,000 digits.
    if not _CUTOFF.fullmatch(text) or not is_cutoff(int(text)):
        raise ValueError(
            f"the cutoff in {name!r} must be a positive int of ASCII digits, at most 2**63 - 1, "
            f"e.g. {example!r}."
        )
    return int(text)


def _number(text, name):
    """The float written in ``text`` (trec_eval's parameter lists), or a ValueError."""
    if not _NUMBER.fullmatch(text.strip()):
        raise ValueError(f"the parameter {text!r} in {name!r} must be a number, e.g. '0.5'.")
    return float(text)


# ------------------------------------------------------------ ir_measures
# ``Name(param=value, ...)@at``: each measure's name, the definition it
# names, what ``@`` sets and which parameters it takes. A parameter's
# handler returns the spec with the parameter applied.


def _rel(spec, value, name):
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"rel in {name!r} must be a number, e.g. rel=2.")
    return replace(spec, level=value)


def _judged_only(spec, value, name):
    if value:
        raise ValueError(
            f"judged_only=True in {name!r} is not available: every retrieved document counts, "
            "unjudged ones as non-relevant (trec_eval's convention); drop judged_only, or "
            "remove the unjudged documents from the run first."
        )
    return spec


_DCG = {"log2": "linear", "exp-log2": "exponential"}


def _dcg(spec, value, name):
    if value not in _DCG:
        raise ValueError(
            f"dcg={value!r} in {name!r} is not available; dcg must be one of "
            f"{', '.join(map(repr, _DCG))} (gain label or 2**label - 1, log2 discount)."
        )
    return spec if _DCG[value] == "linear" else spec.with_options(gain="exponential")


def _gains(spec, value, name):
    """ir_measures' ``gains={grade: gain}``; it maps a negative gain to an unjudged document (0)."""
    if not isinstance(value, dict) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) for pair in value.items() for x in pair
    ):
        raise ValueError(
            f"gains in {name!r} must be a dict of relevance grade to gain, e.g. "
            "gains={0: 0, 1: 1, 2: 3}."
        )
    return spec.with_options(gains=tuple(sorted((k, max(v, 0)) for k, v in value.items())))


def _option(option):
    def handler(spec, value, name):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{option} in {name!r} must be a number, e.g. {option}=0.8.")
        return spec.with_options(**{option: float(value)})

    return handler


def _beta(spec, value, name):
    if isinstance(value, bool) or not isinstance(value, int | float) or value != 1:
        raise ValueError(
            f"beta={value!r} in {name!r} is not available: F is the harmonic mean of "
            "precision and recall (beta=1)."
        )
    return spec


def _cutoff_parameter(spec, value, name):
    return replace(spec, k=_cutoff(str(value), name, "P(cutoff=10)"))


def _relative(spec, value, name):
    return replace(spec, definition="recall_cap") if value else spec


def _returned_relevant(spec, value, name):
    return replace(_rel(spec, value, name), definition="num_rel_ret")


_REL = {"rel": _rel, "judged_only": _judged_only}


@dataclass(frozen=True)
class IrMeasure:
    """An ir_measures measure: its definition, what ``@`` sets, its parameters.

    ``at`` is ``"k"`` (the cutoff), an option name (``IPrec@0.3`` sets
    ``recall``) or None (no ``@``); ``at_required`` says whether ir_measures
    requires it; ``options`` are set by the name itself.
    """

    definition: str
    at: str | None = "k"
    at_required: bool = False
    parameters: dict = None
    options: tuple = ()

    def spec(self, name, arguments, at):
        spec = MeasureSpec(name, self.definition).with_options(**dict(self.options))
        parameters = {"cutoff": _cutoff_parameter, **(self.parameters or {})}
        if self.at != "k":
            parameters.pop("cutoff")
        for parameter, value in arguments.items():
            if parameter not in parameters:
                raise ValueError(
                    f"{name!r}: unknown parameter {parameter!r}; this measure takes "
                    f"{', '.join(sorted(parameters)) or 'no parameters'}."
                )
            spec = parameters[parameter](spec, value, name)
        if at is not None:
            if self.at is None:
                raise ValueError(f"{name!r}: this measure takes no @.")
            if self.at == "k":
                spec = replace(spec, k=_cutoff(at, name, f"{_IR_FORM.match(name).group(1)}@10"))
            else:
                spec = spec.with_options(**{self.at: _number(at, name)})
        return spec


_IR_MEASURES = {
    "nDCG": IrMeasure("ndcg", parameters={"dcg": _dcg, "gains": _gains, **_REL}),
    "P": IrMeasure("precision", at_required=True, parameters=_REL),
    "R": IrMeasure("recall", at_required=True, parameters=_REL),
    "AP": IrMeasure("map", parameters=_REL),
    "RR": IrMeasure("mrr", parameters=_REL),
    "Success": IrMeasure("hit_rate", at_required=True, parameters=_REL),
    "Judged": IrMeasure("judged"),
    "Bpref": IrMeasure("bpref", at=None, parameters={"rel": _rel}),
    "ERR": IrMeasure("err"),
    "RBP": IrMeasure("rbp", parameters={"p": _option("p"), "rel": _rel}, options=(("p", 0.8),)),
    "infAP": IrMeasure("infap", at=None, parameters={"rel": _rel}),
    "NumQ": IrMeasure("num_q", at=None),
    "NumRet": IrMeasure("num_ret", at=None, parameters={"rel": _returned_relevant}),
    "NumRelRet": IrMeasure("num_rel_ret", at=None, parameters={"rel": _rel}),
    "NumRel": IrMeasure("num_rel", at=None, parameters={"rel": _rel}),
    "IPrec": IrMeasure("iprec_at_recall", at="recall", at_required=True, parameters=_REL),
    "Rprec": IrMeasure("r_precision", at=None, parameters=_REL),
    "SetP": IrMeasure("precision", at=None, parameters={"relative": _relative, **_REL}),
    "SetRelP": IrMeasure("recall_cap", at=None, parameters=_REL),
    "SetR": IrMeasure("recall", at=None, parameters={"rel": _rel}),
    "SetF": IrMeasure("f1", at=None, parameters={"beta": _beta, **_REL}),
    "SetAP": IrMeasure("set_map", at=None, parameters=_REL),
}
# ir_measures' aliases of the same measures.
IR_MEASURES = {
    **_IR_MEASURES,
    **{alias: _IR_MEASURES[name] for alias, name in (
        ("NDCG", "nDCG"), ("Precision", "P"), ("Recall", "R"), ("MAP", "AP"), ("MRR", "RR"),
        ("BPref", "Bpref"), ("RPrec", "Rprec"),
    )},
}  # fmt: skip
_IR_LOWER = {name.lower(): name for name in IR_MEASURES}


def _ir_arguments(text, name):
    """``{parameter: value}`` from ``p=0.8, rel=2`` (Python literals, as ir_measures reads them)."""
    if text is None or not text.strip():
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if call.args:
            raise ValueError("parameters must be named")
        return {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    except (SyntaxError, ValueError) as error:
        raise ValueError(
            f"could not read the parameters of {name!r} ({error}); write them as "
            "Name(param=value, ...)@cutoff, e.g. 'P(rel=2)@5'."
        ) from None


# ------------------------------------------------------------ trec_eval
# trec_eval's measures in its own table order (measures.c, which is its
# print order). ``params`` says what its parameter list is, as trec_eval's
# init procedure for it reads it: "cutoffs" (ints, one measure each:
# P_5, P_10), "levels" (floats, one measure each, printed "%3.2f":
# iprec_at_recall_0.10), "values" (floats, one measure: set_F_0.5),
# "pairs" (name=value, one measure: rbp_p=0.8) or None.


def _values_option(option, convert):
    def to_options(values, name):
        return {option: convert(values)}

    return to_options


def _only(defaults, what):
    """Parameters that may only be trec_eval's defaults (no option reads others)."""

    def to_options(values, name):
        if values != defaults:
            raise ValueError(f"the parameters in {name!r} are not available: {what}.")
        return {}

    return to_options


def _pairs_option(*accepted):
    def to_options(pairs, name):
        unknown = sorted(set(pairs) - set(accepted))
        if unknown:
            what = ", ".join(map(repr, accepted)) if accepted else "no parameters"
            raise ValueError(
                f"{name!r}: unknown parameter(s) {', '.join(map(repr, unknown))}; it takes "
                f"{what} here."
            )
        return pairs

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


def _gain_pairs(pairs, name):
    """trec_eval's ``level=gain`` pairs (``ndcg.1=3.5,2=9``): a gain per relevance level."""
    unknown = sorted(key for key in pairs if not re.fullmatch("[0-9]+", key))
    if unknown:
        raise ValueError(
            f"{name!r}: unknown parameter(s) {', '.join(map(repr, unknown))}; it takes gains "
            "per relevance level, level=gain, e.g. '1=3.5,2=9'."
        )
    return {"gains": tuple(sorted((int(key), value) for key, value in pairs.items()))}


_GAINS = _gain_pairs

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
                to_options=_values_option("coefficients", tuple)),
    TrecMeasure("11pt_avg", "iprec_11pt_avg", "values",
                to_options=_only(tuple(i / 10 for i in range(11)), "the 11 levels 0, 0.1, .. 1")),
    TrecMeasure("binG", "bing"),
    TrecMeasure("G", "g", "pairs", to_options=_GAINS),
    TrecMeasure("dcg", "dcg", "pairs", to_options=_GAINS),
    TrecMeasure("ideal_dcg", None, reason="the ideal DCG alone is not offered as a measure"),
    TrecMeasure("ndcg", "ndcg", "pairs", to_options=_GAINS),
    TrecMeasure("ndcg_rel", "ndcg_rel", "pairs", to_options=_GAINS),
    TrecMeasure("Rndcg", "rndcg", "pairs", to_options=_GAINS),
    TrecMeasure("ndcg_cut", "ndcg", "cutoffs", _CUTS),
    TrecMeasure("map_cut", "map", "cutoffs", _CUTS),
    TrecMeasure("relative_P", "recall_cap", "cutoffs", _CUTS),
    TrecMeasure("success", "hit_rate", "cutoffs", ("1", "5", "10")),
    TrecMeasure("set_P", "precision"),
    TrecMeasure("set_relative_P", "recall_cap"),
    TrecMeasure("set_recall", "recall"),
    TrecMeasure("set_map", "set_map"),
    TrecMeasure("set_F", "f1", "values", to_options=_only((1.0,), "F is taken with beta=1")),
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
    TrecMeasure("rbp", "rbp", "pairs", to_options=_pairs_option("p")),
    TrecMeasure("rbp_resid", "rbp_resid", "pairs", to_options=_pairs_option("p")),
    TrecMeasure("unj", "unjudged", "cutoffs", ("5", "10", "20")),
)  # fmt: skip
TREC = {measure.name: measure for measure in TREC_MEASURES}
# Longest first, so that ndcg_cut_10 is read as ndcg_cut, not ndcg.
_TREC_BY_LENGTH = sorted(TREC, key=len, reverse=True)

# trec_eval's default measure parameters that differ from the package's.
# trec_eval 10's rbp takes the topic's grades as gains (see RankBiased).
_TREC_DEFAULT_OPTIONS = {"rbp": {"p": 0.9, "gains": "trec_eval"}, "rbp_resid": {"p": 0.9}}

# trec_eval's bare names that name another measure of the package: the key of trec_eval's
# measure in evaluate_run's results (and the measure rank-eval evaluates), a name that
# reads back as it. rank-eval prints the bare name, as trec_eval does.
_TREC_KEYS = {"rbp": "rbp_p=0.9"}

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
        pairs[key] = _number(value, name)
    return pairs


def trec_spec(measure, param, name):
    """The spec of trec_eval's ``measure`` with one parameter (None: its bare form)."""
    if measure.definition is None:
        raise ValueError(f"trec_eval's {measure.name!r} is not offered: {measure.reason}.")
    if measure.definition not in _PACKAGE_NAMES:
        raise ValueError(f"trec_eval's {measure.name!r} is not offered.")
    spec = MeasureSpec(name, measure.definition)
    spec = spec.with_options(**_TREC_DEFAULT_OPTIONS.get(measure.name, {}))
    if param is None:
        if measure.params in ("cutoffs", "levels"):
            example = trec_display_name(measure, measure.defaults[1])
            raise ValueError(
                f"trec_eval's {measure.name!r} is a family of measures: name one, e.g. "
                f"{example!r}, or several, e.g. '{measure.name}.{','.join(measure.defaults[:2])}'."
            )
        return spec
    if measure.params == "cutoffs":
        return replace(spec, k=_cutoff(param, name, trec_display_name(measure, 10)))
    if measure.params == "levels":
        return spec.with_options(**{measure.option: _number(param, name)})
    if measure.params == "values":
        values = tuple(_number(value, name) for value in param.split(","))
        return spec.with_options(**measure.to_options(values, name))
    if measure.params == "pairs":
        return spec.with_options(**measure.to_options(_pairs(param, name), name))
    raise ValueError(f"trec_eval's {measure.name!r} takes no parameters: write {measure.name!r}.")


_PARAM_FORMS = {
    "cutoffs": re.compile(r"[0-9]+"),
    "levels": _NUMBER,
    "values": re.compile(rf"(?:{_NUMBER.pattern})(?:,(?:{_NUMBER.pattern}))*"),
    "pairs": re.compile(rf"\w+=(?:{_NUMBER.pattern})(?:,\w+=(?:{_NUMBER.pattern}))*"),
}


def _parse_trec(name, any_case):
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
    "recall_capped": "recall_cap", "judged_share": "judged", "coverage": "judged",
}  # fmt: skip
_CUTOFF_TAIL = re.compile(r"(?:@.*|\(.*|_at_?(?:k|[0-9]+)|_?[0-9]+)$")


def _suggestion(name):
    """The offered measure closest to ``name`` in meaning, else in spelling (None: none)."""
    base = re.sub(r"[\s\-.]+", "_", name.strip().lower())
    for candidate in (base, _CUTOFF_TAIL.sub("", base)):
        if candidate in _SYNONYMS:
            return _SYNONYMS[candidate]
        if candidate in _PACKAGE_NAMES:
            return candidate
    close = difflib.get_close_matches(_CUTOFF_TAIL.sub("", base), valid_names(), n=1, cutoff=0.5)
    return close[0] if close else None


def _unknown(name):
    close = _suggestion(name)
    hint = f" Did you mean {close!r}?" if close else ""
    return ValueError(
        f"unknown metric {name!r}.{hint} Valid names: {', '.join(valid_names())}; "
        "append @k for a cutoff, e.g. 'ndcg@10'. ir_measures' names ('nDCG@10', "
        "'P(rel=2)@5') and trec_eval's ('ndcg_cut_10', 'P_5') are accepted too."
    )


# ------------------------------------------------------------ parsing


def _parse_package(name):
    match = _NAME.match(name)
    if match is None or match.group(1).lower() not in _PACKAGE_NAMES:
        return None
    base = match.group(1).lower()
    spec = MeasureSpec(name, _PACKAGE_NAMES[base])
    if match.group(2) is None:
        return spec
    definition = METRICS.get(spec.definition)
    if definition is not None and not definition.takes_cutoff:
        _no_cutoff(definition)
    return replace(spec, k=_cutoff(match.group(2), name, f"{base}@10"))


def _no_cutoff(definition):
    raise ValueError(
        f"{definition.name!r} compares whole lists and takes no @k: use {definition.name!r}."
    )


def _parse_ir(name, any_case):
    """The spec of an ir_measures name (``P(rel=2)@5``), None if it is not one."""
    match = _IR_FORM.match(name)
    if match is None:
        return None
    key = _IR_LOWER.get(match.group(1).lower()) if any_case else match.group(1)
    measure = IR_MEASURES.get(key)
    if measure is None:
        return None
    arguments = _ir_arguments(match.group(2), name)
    if measure.at_required and match.group(3) is None and "cutoff" not in arguments:
        return None  # P alone is the package's precision
    return measure.spec(name, arguments, match.group(3))


# The forms in the order they are tried: ir_measures' names as it spells
# them (``RBP`` is its RBP, p=0.8), the package's names in any case, then
# trec_eval's names as it spells them, and both in any case.
_FORMS = (
    partial(_parse_ir, any_case=False),
    _parse_package,
    partial(_parse_trec, any_case=False),
    partial(_parse_ir, any_case=True),
    partial(_parse_trec, any_case=True),
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
    if spec.name in _TREC_KEYS:
        return _TREC_KEYS[spec.name]
    if spec.name == measure.name or _same_measure(parse_name(spec.name), spec):
        return spec.name  # a bare name other than rbp is the package's measure of that name
    return f"{measure.name}_{_raw(measure, spec)}"


def expand_trec(measure, params, warn_left_out=None, printed=False):
    """The specs of trec_eval's ``-m measure.params`` (``params`` None: its defaults).

    Each spec's name is its key (:func:`trec_key`), or with ``printed`` the
    name trec_eval prints; a parameter list is read as trec_eval reads it
    (cutoffs sorted, duplicates dropped).
    """
    if not printed:
        specs = expand_trec(measure, params, warn_left_out, printed=True)
        return [replace(spec, name=trec_key(measure, spec)) for spec in specs]
    if measure.params in ("cutoffs", "levels"):
        if params is None:
            values = measure.defaults
        else:
            convert = int if measure.params == "cutoffs" else float
            parsed = {}
            for value in params.split(","):
                key = (
                    _cutoff(value, f"{measure.name}.{params}", f"{measure.name}.5,10")
                    if convert is int
                    else _number(value, f"{measure.name}.{params}")
                )
                parsed.setdefault(key, value)
            values = [parsed[key] for key in sorted(parsed)]
        return [
            trec_spec(measure, value, trec_display_name(measure, value)) for value in values
        ]
    return [trec_spec(measure, params, trec_display_name(measure, params))]


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
    """The :class:`~._pipeline.Request` of a spec: its definition looked up in the engine's table."""
    definition = METRICS.get(spec.definition)
    if definition is None:
        raise ValueError(
            f"{spec.name!r} names the measure {spec.definition!r}, which this version of the "
            "package does not compute."
        )
    if spec.k is not None and not definition.takes_cutoff:
        _no_cutoff(definition)
    return Request(spec.name, definition, spec.k, spec.level, spec.options)


def name_requests(names):
    """One :class:`~._pipeline.Request` per measure the names give, in their order."""
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


def resolve_metric(name):
    """``(MetricDefinition, k)`` for one name, as the scorers use it."""
    request = resolve_request(parse_name(name))
    return request.definition, request.k
