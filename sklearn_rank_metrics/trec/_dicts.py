"""Runs and qrels as pytrec_eval and BEIR hold them: ``{query_id: {doc_id: value}}``.

A dict is flattened once (:func:`flat_pairs`): its ids, its values and each
query's count of documents gathered by C-level iteration over the dicts
(``itertools.chain``, ``map``), never a Python statement per document, its
pairs in the dict's order. What only a dict can get wrong is checked there
(a query mapped to something that is not a dict, a query without a
document, a value that is not a number, or is a bool), naming the query and
the document. Then, as for files:

- two dicts with string ids and valid values are joined on Arrow arrays
  (:func:`join_nested`, through :func:`~._coded.join_columns`), the query
  codes taken from the dicts' structure;
- otherwise (ids of other types, a value the DataFrame path must name,
  pyarrow absent, a dict beside a DataFrame or a path), the pairs become a
  DataFrame (:func:`nested_frame`) that :func:`~._frames.join_frames`
  checks (missing ids, scores that are not finite, grades that are not
  integers, two keys that read as one id) and joins as any frame, ids
  compared as text (``7`` is the id ``"7"``, as a file gives it).

A run dict has no rank and no line order beyond its documents' order: both
keep that order, so that ``ties="first"`` ranks equal scores in it, as a run
file :func:`~._write.write_trec_run` wrote from the same dict (by score,
equal scores in input order) reads back.
"""

from collections.abc import Mapping
from itertools import chain
from typing import NamedTuple

import numpy as np

from .._engine._threads import call_threads
from .._engine.prepare._arrays import code_dtype
from .._engine.prepare._validation import plain
from ._arrow import pyarrow_modules
from ._coded import join_columns
from ._format import MAX_EXACT_INTEGER, QRELS, RUN, NeedsDataFramePath, valid_values

# A value is a real number, and not a bool (Python's bool is an int).
_NUMBERS = (int, float, np.integer, np.floating)
_NOT_NUMBERS = (bool, np.bool_)


def is_nested(given):
    """Whether ``given`` is a run or qrels dict (a mapping of query ids to mappings)."""
    return isinstance(given, Mapping)


class FlatPairs(NamedTuple):
    """A ``{query_id: {doc_id: value}}`` dict's pairs, in its order.

    ``queries``: its query ids, once each; ``lengths``: each one's count of
    documents; ``docs``: the document ids, query by query; ``values``:
    NumPy's array of the values (float64, or int64 where all are integers).
    """

    queries: list
    lengths: np.ndarray
    docs: list
    values: np.ndarray

    def query_of_each(self):
        """The query id of every pair, an object array."""
        ids = np.fromiter(self.queries, dtype=object, count=len(self.queries))
        return np.repeat(ids, self.lengths)


def flat_pairs(given, fmt):
    """The :class:`FlatPairs` of a run (``fmt``: RUN) or qrels (QRELS) dict, checked.

    A TypeError for a query mapped to anything but a dict, or a value that
    is not a real number or is a bool; a ValueError for a query without a
    document; each naming the query (and the document).
    """
    queries, inner = list(given), list(given.values())
    if not all(issubclass(kind, Mapping) for kind in set(map(type, inner))):
        position = next(i for i, docs in enumerate(inner) if not isinstance(docs, Mapping))
        raise TypeError(
            f"evaluate_run: the {fmt.kind} dict maps query_id={plain(queries[position])!r} "
            f"to a {type(inner[position]).__name__}, not a dict; a {fmt.kind} dict maps each "
            f"query id to a dict {{doc_id: {fmt.evaluated[2]}}}, as pytrec_eval takes it."
        )
    lengths = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    empty = np.flatnonzero(lengths == 0)
    if empty.shape[0]:
        _raise_empty(queries[int(empty[0])], fmt)
    docs = list(chain.from_iterable(inner))
    values = list(chain.from_iterable([documents.values() for documents in inner]))
    pairs = FlatPairs(queries, lengths, docs, None)
    return pairs._replace(values=_numbers(values, pairs, fmt))


def _numbers(values, pairs, fmt):
    """The dict's values as NumPy numbers, as ``np.array`` would infer them, checked.

    int64 where all are integers (uint64 where NumPy's are beyond int64),
    else float64, without ``np.array``'s pass to infer the type: one pass
    finds the types, for the check too. A value that is not a real number,
    or is a bool, or a Python integer beyond int64, is an error naming its
    pair (``pairs``: the dict's, their values aside).
    """
    kinds = set(map(type, values))
    if not all(issubclass(kind, _NUMBERS) and not issubclass(kind, _NOT_NUMBERS) for kind in kinds):
        position = next(
            i for i, value in enumerate(values)
            if not isinstance(value, _NUMBERS) or isinstance(value, _NOT_NUMBERS)
        )  # fmt: skip
        value = values[position]
        what = f"not a number (a {type(value).__name__})"
        if isinstance(value, _NOT_NUMBERS):
            what = "a bool, not a number"
        expected = "an integer, as in a qrels file" if fmt is QRELS else "a finite number"
        _raise_at(pairs, position, fmt, TypeError,
                  f"the {fmt.evaluated[2]} {plain(value)!r} is {what}; it must be {expected}")
    if any(issubclass(kind, np.unsignedinteger) for kind in kinds):
        return np.array(values)  # uint64 beyond int64 ranks exactly, as a DataFrame's
    integers = all(issubclass(kind, (int, np.integer)) for kind in kinds)
    try:
        return np.fromiter(values, np.int64 if integers else np.float64, count=len(values))
    except OverflowError:  # a Python integer beyond int64
        position = next(i for i, value in enumerate(values) if abs(value) > np.iinfo(np.int64).max)
        _raise_at(pairs, position, fmt, ValueError,
                  f"the {fmt.evaluated[2]} {values[position]} is beyond int64; give it as a "
                  "float, as a file's numbers are read")  # fmt: skip


def nested_frame(pd, pairs, fmt):
    """The DataFrame of a dict's :class:`FlatPairs`, with ``fmt``'s evaluated columns.

    Its rows are the dict's pairs in order, the ids as they are (the frame
    path reads them as text). The frame is marked as a dict's
    (``attrs["nested"]``), for messages that name a dict's pairs and fixes.
    """
    query_column, doc_column, value_column = fmt.evaluated
    frame = pd.DataFrame(
        {
            # Object columns: pandas would otherwise copy every id into an Arrow string.
            query_column: pd.Series(pairs.query_of_each(), dtype=object, copy=False),
            doc_column: pd.Series(np.fromiter(pairs.docs, object, len(pairs.docs)), dtype=object),
            value_column: pairs.values,
        },
        copy=False,
    )
    frame.attrs["nested"] = True
    return frame


def join_nested(qrels, run):
    """The :class:`~._joined.JoinedRun` of a qrels and a run dict (their :class:`FlatPairs`).

    Joined on Arrow arrays; :class:`~._format.NeedsDataFramePath` where
    the DataFrame path must decide (ids that are not all strings, a value
    it names, no pyarrow).
    """
    qrels, run = _columns(qrels, QRELS), _columns(run, RUN)
    with call_threads(len(qrels["doc_id"]) + len(run["doc_id"])) as threads:
        return join_columns(qrels, run, "", *threads)


def _columns(pairs, fmt):
    """The columns :func:`~._coded.join_columns` joins, of a dict's pairs; or NeedsDataFramePath."""
    pa, _, _ = pyarrow_modules(False)
    if not pairs.docs:
        raise NeedsDataFramePath("the dict holds no document")
    integers = fmt is QRELS
    values = pairs.values
    if values.dtype.kind == "f":
        values = values.astype(np.float64, copy=False)
        if not valid_values(values, integers):
            raise NeedsDataFramePath(f"a {fmt.evaluated[2]} is not a valid number")
    elif values.dtype.kind != "i":  # NumPy's uint64 beyond int64, which a DataFrame ranks exactly
        raise NeedsDataFramePath(f"a {fmt.evaluated[2]} is beyond int64")
    elif integers and np.abs(values).max() > MAX_EXACT_INTEGER:
        raise NeedsDataFramePath("a relevance grade is beyond 2**53")
    try:
        docs = pa.array(pairs.docs, type=pa.string())
        ids = pa.array(pairs.queries, type=pa.string())
    except (pa.ArrowException, UnicodeEncodeError):
        raise NeedsDataFramePath("an id is not a string") from None
    if docs.null_count or ids.null_count:
        raise NeedsDataFramePath("an id is missing")
    n_queries = len(pairs.queries)
    codes = np.repeat(np.arange(n_queries, dtype=code_dtype(n_queries)), pairs.lengths)
    return {
        "query_codes": (codes, ids, True),  # the dict's keys: distinct, each one run of pairs
        "doc_id": docs,
        fmt.evaluated[2]: values.astype(np.int64) if integers else values,
    }


def _raise_empty(query, fmt):
    """Raise for a query of the dict with no document, naming it."""
    if fmt.kind == "run":
        fix = (
            "leave the query out of the dict: a query the run lacks is left out of the means, "
            "or with missing_queries='zero' counts as an empty ranking, 0 (pytrec_eval's value "
            "of an empty dict)"
        )
    else:
        fix = "leave the query out of the dict (a query without judgments)"
    raise ValueError(
        f"evaluate_run: the {fmt.kind} dict maps query_id={plain(query)!r} to an empty dict; "
        f"a {fmt.kind} file cannot hold a query without a document: {fix}."
    )


def _raise_at(pairs, position, fmt, error, problem):
    """Raise ``error`` for the value at ``position`` of the dict's pairs, naming its pair."""
    query = pairs.queries[int(np.searchsorted(np.cumsum(pairs.lengths), position, side="right"))]
    raise error(
        f"evaluate_run: the {fmt.kind} dict, the pair (query_id={plain(query)!r}, "
        f"doc_id={plain(pairs.docs[position])!r}): {problem}."
    )
