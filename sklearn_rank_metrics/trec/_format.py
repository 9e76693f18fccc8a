"""The TREC file formats: what a run or qrels line holds, field by field (a leaf module).

Every other module of the package's TREC layer reads the formats here: the
pandas and pyarrow readers, the joins and ``evaluate_run``. A line's fields
are named (:attr:`Format.fields`); the kept ones become the DataFrame's
columns with the dtypes of :attr:`Format.dtypes`. Both readers read numbers
as float64 first and check them with :func:`valid_values`;
:func:`number_problem` says what is wrong with one of them.

:class:`NeedsDataFramePath` is how the fast path on Arrow arrays says that it
cannot vouch for a file (pyarrow would read it otherwise than pandas, a
duplicate pair, a hash that leaves a doubt): raised where the doubt arises,
caught once where the path is chosen, which then reads (or joins) with pandas.
"""

import math
from typing import NamedTuple

import numpy as np

from .._engine.prepare._arrays import BLOCK

ENGINES = ("auto", "pandas", "pyarrow")
# Integers read through float64 are exact up to 2**53.
MAX_EXACT_INTEGER = 2.0**53
# The dtypes of a kept field: ids and names are strings.
STRING, INTEGER, NUMBER = str, np.int64, np.float64


class Format(NamedTuple):
    """One TREC file format: its fields by name, the columns kept and their dtypes.

    Made by :func:`_format`, which derives the last three from ``fields`` and
    ``dtypes``, so that the readers' loops read them as plain tuples.
    """

    kind: str  # "run" or "qrels", for messages
    fields: tuple  # the name of each field of a line, in order
    dtypes: dict  # {column: dtype} of the kept fields, in the DataFrame's column order
    exact: bool  # exactly len(fields) fields a line (else at least)
    evaluated: tuple  # the columns evaluate_run needs of a DataFrame
    columns: tuple  # (field index, column name) of the kept fields, in column order
    integers: tuple  # the indexes of the fields that hold integers (read as float64, then int64)
    numbers: tuple  # the indexes of the fields that hold other numbers (float64)

    def index(self, name):
        """The position of the field ``name`` in a line."""
        return self.fields.index(name)


def _format(kind, fields, dtypes, *, exact, evaluated):
    columns = tuple((fields.index(name), name) for name in dtypes)
    return Format(
        kind, fields, dtypes, exact, evaluated, columns,
        integers=tuple(index for index, name in columns if dtypes[name] is INTEGER),
        numbers=tuple(index for index, name in columns if dtypes[name] is NUMBER),
    )  # fmt: skip


RUN = _format(
    "run",
    ("query_id", "iteration", "doc_id", "rank", "score", "run_name"),
    {"query_id": STRING, "doc_id": STRING, "score": NUMBER, "rank": INTEGER, "run_name": STRING},
    exact=False,
    evaluated=("query_id", "doc_id", "score"),
)
QRELS = _format(
    "qrels",
    ("query_id", "iteration", "doc_id", "relevance"),
    {"query_id": STRING, "doc_id": STRING, "relevance": INTEGER},
    exact=True,
    evaluated=("query_id", "doc_id", "relevance"),
)


class NeedsDataFramePath(Exception):
    """The Arrow path cannot vouch for a file or a join: pandas' path must decide.

    ``reason`` says why (pyarrow not installed, a line pyarrow would read
    otherwise than pandas, a pair that may repeat, ...). Never reaches the
    user: the choice of path catches it and reads the files with pandas,
    which then reads them, or names the malformed line or the duplicate pair.
    """

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def valid_values(values, integers):
    """Whether float64 values are finite, and with ``integers`` integers up to 2**53.

    Both readers read every number as float64 (as pandas does). Checked
    block by block: no temporary of the column's size.
    """
    for start in range(0, values.shape[0], BLOCK):
        block = values[start : start + BLOCK]
        if integers:
            if not (np.abs(block) <= MAX_EXACT_INTEGER).all() or (block != np.rint(block)).any():
                return False
        elif not np.isfinite(block).all():
            return False
    return True


def number_problem(column, text, value, integer):
    """What is wrong with the number ``value`` (written ``text``) of ``column``, or None.

    The metrics need finite numbers; with ``integer``, an integer up to 2**53.
    """
    if math.isnan(value):
        return f"the {column} is NaN"
    if math.isinf(value):
        return f"the {column} {text!r} is not finite (the metrics need finite numbers)"
    if integer and (not value.is_integer() or abs(value) > MAX_EXACT_INTEGER):
        return f"the {column} {text!r} is not an integer (up to 2**53)"
    return None
