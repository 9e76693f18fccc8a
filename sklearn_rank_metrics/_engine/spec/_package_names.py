"""The package's own measure names, and what every syntax reads a name into.

A name of the package (case-insensitive: ``ndcg@10``, ``map``, ``hr@5``)
names a definition of :data:`~._table.METRICS` or one of its aliases, and
``@k`` its cutoff. :class:`MeasureSpec` is what a name of any of the three
syntaxes is read into (this one, :mod:`._ir_measures`' and
:mod:`._trec_names`'), before :func:`~._names.resolve_request` makes it a
:class:`~._request.Request`; :func:`cutoff` and :func:`number` read the
numbers of every syntax.
"""

import re
from dataclasses import dataclass, replace

from .._params import is_cutoff
from ._table import ALIASES, METRICS


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


PACKAGE_NAMES = {**ALIASES, **{name: name for name in METRICS}}

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:@\s*(\S+))?\s*$")
_CUTOFF = re.compile(r"[0-9]{1,19}")  # 2**63 - 1 has 19 digits
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def valid_names():
    """Every accepted package name: the definitions', then the aliases."""
    return sorted(METRICS) + sorted(ALIASES)


def cutoff(text, name, example):
    """The int cutoff written in ``text``, or a ValueError showing the right form."""
    # ASCII digits only: str.isdigit() takes '²', int() '٣'; and int() refuses 5,000 digits.
    if not _CUTOFF.fullmatch(text) or not is_cutoff(int(text)):
        raise ValueError(
            f"the cutoff in {name!r} must be a positive int of ASCII digits, at most 2**63 - 1, "
            f"e.g. {example!r}."
        )
    return int(text)


def number(text, name):
    """The float written in ``text`` (trec_eval's parameter lists), or a ValueError."""
    if not NUMBER.fullmatch(text.strip()):
        raise ValueError(f"the parameter {text!r} in {name!r} must be a number, e.g. '0.5'.")
    return float(text)


def parse_package(name):
    """The spec of a package name (``ndcg@10``), None if it is not one."""
    match = _NAME.match(name)
    if match is None or match.group(1).lower() not in PACKAGE_NAMES:
        return None
    base = match.group(1).lower()
    spec = MeasureSpec(name, PACKAGE_NAMES[base])
    if match.group(2) is None:
        return spec
    definition = METRICS.get(spec.definition)
    if definition is not None and not definition.takes_cutoff:
        no_cutoff(definition)
    return replace(spec, k=cutoff(match.group(2), name, f"{base}@10"))


def no_cutoff(definition):
    raise ValueError(
        f"{definition.name!r} compares whole lists and takes no @k: use {definition.name!r}."
    )

