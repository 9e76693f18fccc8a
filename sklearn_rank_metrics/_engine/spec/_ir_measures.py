"""ir_measures' measure names: ``Name(param=value, ...)@at``.

``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``, ``IPrec@0.3``: each of
ir_measures' measures (:data:`IR_MEASURES`) names a package definition,
says what ``@`` sets and which parameters it takes. A parameter a
definition declares (RBP's ``p``, F's ``beta``) is checked by that
declaration, and where ir_measures defines its default otherwise (its RBP's
``p=0.8``) the declaration says so; the others (``rel``, ``cutoff``,
``dcg``, ``relative``) set the measure's level, cutoff, gain or definition.
"""

import ast
import re
from dataclasses import dataclass, replace

from ._definition import JUDGED_ONLY, REL
from ._package_names import MeasureSpec, cutoff, number
from ._table import METRICS

_IR_FORM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*$")


# A parameter's handler returns the spec with the parameter applied.
def _rel(spec, value, name):
    return replace(spec, level=REL.validate(value, name))


def _judged_only(spec, value, name):
    JUDGED_ONLY.validate(value, name)
    return spec


def _declared(parameter):
    """The handler of a parameter the measure's definition declares: checked there, then set."""

    def handler(spec, value, name):
        declared = METRICS[spec.definition].parameter(parameter)
        return spec.with_options(**{parameter: declared.validate(value, name)})

    return handler


def _checked(parameter):
    """The handler of a declared parameter that only its default takes: checked, nothing set."""

    def handler(spec, value, name):
        METRICS[spec.definition].parameter(parameter).validate(value, name)
        return spec

    return handler


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
    gains = tuple(sorted((k, max(v, 0)) for k, v in value.items()))
    METRICS[spec.definition].parameter("gains").validate(gains, name)
    return spec.with_options(gains=gains)


def _cutoff_parameter(spec, value, name):
    return replace(spec, k=cutoff(str(value), name, "P(cutoff=10)"))


def _relative(spec, value, name):
    return replace(spec, definition="recall_cap") if value else spec


def _returned_relevant(spec, value, name):
    return replace(_rel(spec, value, name), definition="num_rel_ret")


_REL = {"rel": _rel, "judged_only": _judged_only}


@dataclass(frozen=True)
class IrMeasure:
    """An ir_measures measure: its definition, what ``@`` sets, its parameters.

    ``at`` is ``"k"`` (the cutoff), a parameter's name (``IPrec@0.3`` sets
    ``recall``) or None (no ``@``); ``at_required`` says whether ir_measures
    requires it. The parameters its definition declares with a default of
    ir_measures' own (RBP's ``p``) take that default.
    """

    definition: str
    at: str | None = "k"
    at_required: bool = False
    parameters: dict = None

    def spec(self, name, arguments, at):
        defaults = METRICS[self.definition].syntax_defaults("ir_measures")
        spec = MeasureSpec(name, self.definition).with_options(**defaults)
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
                spec = replace(spec, k=cutoff(at, name, f"{_IR_FORM.match(name).group(1)}@10"))
            else:
                spec = _declared(self.at)(spec, number(at, name), name)
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
    "RBP": IrMeasure("rbp", parameters={"p": _declared("p"), "rel": _rel}),
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
    "SetF": IrMeasure("f1", at=None, parameters={"beta": _checked("beta"), **_REL}),
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


def parse_ir(name, any_case):
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

