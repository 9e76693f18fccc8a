"""Public functions' Parameters sections, written from the declared parameter table.

:func:`document_parameters` gives every public function the table's entry
for each argument its docstring does not document itself, so that one
argument reads the same wherever it appears.
"""

import inspect
import re
import textwrap

from ._params import PARAMETERS, _shown

# -- Parameters sections written from the table ---------------------------------------------

_SECTIONS = (
    "Parameters", "Returns", "Yields", "Raises", "Warns", "Warnings", "See Also", "Notes",
    "References", "Examples", "Attributes", "Methods",
)  # fmt: skip
_WIDTH = 72  # a description's lines, its indent included


def _section_starts(lines):
    """``{section title: line index}`` of the numpydoc sections of a cleaned docstring."""
    return {
        line: i
        for i, line in enumerate(lines[:-1])
        if line in _SECTIONS and lines[i + 1] == "-" * len(line)
    }


def _entries(lines):
    """The entries of a Parameters section's lines: ``[(names, lines), ...]``."""
    entries = []
    for line in lines:
        if line and not line[0].isspace():
            names = line.split(" : ")[0].split(", ")
            entries.append(([name.lstrip("*") for name in names], [line]))
        elif entries:
            entries[-1][1].append(line)
    for _, body in entries:
        while not body[-1]:
            body.pop()
    return entries


def _table_entry(function, parameter, extra):
    entry = PARAMETERS.get(parameter.name)
    if entry is None or entry.doc is None:
        raise TypeError(
            f"{function.__qualname__}: argument {parameter.name!r} is documented neither in "
            "its docstring's Parameters section nor in the parameter table."
        )
    kind = entry.type
    if parameter.default is not inspect.Parameter.empty:
        kind = f"{kind}, default={_shown(parameter.default)}"
    text = " ".join(filter(None, [entry.doc, extra.get(parameter.name)]))
    # A literal (``p = (b + 1) / ...``) is not broken across lines.
    text = re.sub(r"``.+?``", lambda literal: literal[0].replace(" ", "\0"), text)
    wrapped = textwrap.fill(
        text, _WIDTH, initial_indent="    ", subsequent_indent="    ",
        break_long_words=False, break_on_hyphens=False,
    )  # fmt: skip
    return [f"{parameter.name} : {kind}", *wrapped.replace("\0", " ").split("\n")]


def document_parameters(*, returns=None, extra=None):
    """Write a function's Parameters (and Returns) section from :data:`PARAMETERS`.

    The decorated function's docstring keeps its summary, formula, notes,
    See Also, References and Examples; its Parameters section, if it has
    one, holds only the entries it writes itself. Every argument of the
    signature gets one entry, in signature order: the docstring's own, else
    the table's (its type, the signature's default, its doc). An argument
    documented nowhere is an error when the module is imported.

    Parameters
    ----------
    returns : str, optional
        The Returns section's text (entries, unindented), where the
        docstring has none.
    extra : dict, optional
        ``{argument: sentence}`` appended to the table's doc of an argument:
        what the argument means in this function beyond the shared text.
    """
    extra = extra or {}

    def decorate(function):
        if function.__doc__ is None:  # python -OO strips docstrings
            return function
        lines = inspect.cleandoc(function.__doc__).split("\n")
        starts = _section_starts(lines)
        after = sorted(i for title, i in starts.items() if title != "Parameters")
        if "Parameters" in starts:
            begin = starts["Parameters"]
            end = min([i for i in after if i > begin] + [len(lines)])
            own = _entries(lines[begin + 2 : end])
            del lines[begin:end]
        else:
            begin = min(after + [len(lines)])
            own = []
        entries, written = [], set()
        for parameter in inspect.signature(function).parameters.values():
            if parameter.name in ("self", "cls") or parameter.name in written:
                continue
            mine = [body for names, body in own if parameter.name in names]
            if mine:
                written.update(*[names for names, body in own if parameter.name in names])
                entries.extend(mine[0])
            else:
                entries.extend(_table_entry(function, parameter, extra))
        section = ["Parameters", "----------", *entries, ""]
        if returns is not None and "Returns" not in starts:
            section += ["Returns", "-------", *returns.strip("\n").split("\n"), ""]
        lines[begin:begin] = section
        function.__doc__ = "\n".join(lines)
        return function

    return decorate
