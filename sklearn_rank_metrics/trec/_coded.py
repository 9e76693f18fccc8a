"""The join of a run and its qrels on codes, and its fast path from files.

:func:`evaluate_run` gives every retrieved document trec_eval's label (its
grade, or a negative code when it is unjudged) and every query a code into
the sorted query ids. :class:`JoinedRun` holds the outcome, whatever path made
it. :func:`read_joined` makes it from two files without a Python object per
line:

- both files are read by pyarrow's CSV reader into Arrow arrays
  (:func:`~._arrow.read_arrow_columns`);
- query ids get codes from runs of equal ids (TREC files are grouped by
  query), else from Arrow's dictionary encoding; only the distinct ids become
  Python strings;
- the files are put in one order of queries that both follow (the run's;
  :func:`_query_sequence`), which most files already are; a file that is
  not is reordered;
- the pairs are matched a block of queries at a time (:mod:`._join`): keys
  of the document ids' bytes and their queries, slot tables in the cache,
  every pair of each file checked to appear once, every match confirmed on
  the ids' bytes.

A repeated pair (or two pairs with one key), a failed confirmation or a file
pyarrow does not read exactly as pandas returns None, and the DataFrame path
then reads, checks (naming the line or the duplicate pair) and joins.
"""

import os
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .._engine.prepare._arrays import code_dtype, remap, run_starts
from .._engine._judgments import JUDGED_UNJUDGED, NOT_JUDGED
from .._engine._threads import call_threads
from ._arrow import numpy_values, read_arrow_columns
from ._files import last_line_field, read_bytes
from ._join import GroupedFile, StringRows, match_pairs, pairs_appear_once


class JoinedRun(NamedTuple):
    """A run joined with its qrels on codes.

    ``query_ids``: the sorted query ids of both (the order trec_eval prints),
    as a NumPy unicode array; ``run_queries`` and ``judged_queries``: the
    query code of every run and qrels row; ``grades``: the qrels' relevance;
    ``labels``: trec_eval's label of every run row; ``scores``: the run's
    scores (float64); ``doc_ids(rows)``: the document ids of run rows, as an
    object array of strings; ``run_name``: the run name of the run's last
    line (trec_eval's ``runid``), "" where the run has none.
    """

    query_ids: np.ndarray
    run_queries: np.ndarray
    judged_queries: np.ndarray
    grades: np.ndarray
    labels: np.ndarray
    scores: np.ndarray
    doc_ids: Callable
    run_name: str


def joint_query_codes(run_queries, run_ids, judged_queries, judged_ids):
    """``(query_ids, run_queries, judged_queries)``: both files' codes into the sorted ids.

    ``run_ids[run_queries]`` (``judged_ids[judged_queries]``) are the ids of
    the rows, one entry per distinct id.
    """
    run_ids, judged_ids = _unicode(run_ids), _unicode(judged_ids)
    query_ids = np.unique(np.concatenate((run_ids, judged_ids)))
    dtype = code_dtype(query_ids.shape[0])
    run_queries = remap(run_queries, np.searchsorted(query_ids, run_ids), dtype)
    judged_queries = remap(judged_queries, np.searchsorted(query_ids, judged_ids), dtype)
    return query_ids, run_queries, judged_queries


def _unicode(ids):
    """Ids (one per query) as a NumPy unicode array, which sorts and searches by code point."""
    if hasattr(ids, "to_pylist") and not hasattr(ids, "dtype"):  # an Arrow array
        ids = numpy_values(ids)
    return np.asarray(ids, dtype=object).astype(str).reshape(-1)


def judged_labels(n_rows, run_rows, judged_rows, grades):
    """trec_eval's label of each of ``n_rows`` run rows; ``run_rows`` are judged by ``judged_rows``.

    The label is the grade, ``JUDGED_UNJUDGED`` for a negative grade and
    ``NOT_JUDGED`` for a document the qrels do not judge for its query.
    """
    # The smallest integers that hold every grade and the negative codes.
    low = min(int(grades.min(initial=0)), JUDGED_UNJUDGED)
    dtype = np.result_type(np.min_scalar_type(low), np.min_scalar_type(int(grades.max(initial=0))))
    labels = np.full(n_rows, NOT_JUDGED, dtype=dtype)
    found = grades[judged_rows]
    labels[run_rows] = np.where(found >= 0, found, JUDGED_UNJUDGED)
    return labels


def read_joined(qrels_path, run_path, *, data=None):
    """The :class:`JoinedRun` of two files, or None where the DataFrame path must decide.

    ``data``: ``(qrels_bytes, run_bytes)`` as :func:`read_bytes` gave them,
    where the caller has read the files already (None: read them here).
    """
    qrels_data, run_data = data or (read_bytes(qrels_path), read_bytes(run_path))
    # One pool of the call's threads for reading (with pyarrow's) and joining,
    # sized by the lines of both files (about 50 bytes a line).
    with call_threads((len(qrels_data) + len(run_data)) // 50) as (pool, n_threads):
        return _read_joined(
            (qrels_data, os.fspath(qrels_path)), (run_data, os.fspath(run_path)), pool, n_threads
        )


def _read_joined(qrels_file, run_file, pool, n_threads):
    """:func:`read_joined` of ``(bytes, name)`` of each file, on the call's threads."""
    from ._read import QRELS, RUN

    qrels = read_arrow_columns(qrels_file[0], QRELS, qrels_file[1], pool)
    if qrels is None:
        return None
    run = read_arrow_columns(run_file[0], RUN, run_file[1], pool)
    if run is None:
        return None
    import pyarrow.compute as pc

    run_codes, run_ids, run_grouped = _query_codes(pc, run["query_id"])
    judged_codes, judged_ids, judged_grouped = _query_codes(pc, qrels["query_id"])
    query_ids, run_queries, judged_queries = joint_query_codes(
        run_codes, run_ids, judged_codes, judged_ids
    )
    grades = qrels["relevance"]
    run_docs, judged_docs = run["doc_id"], qrels["doc_id"]
    # The join needs each file grouped by query, the qrels' queries in the
    # run's order: most files are; others are reordered first.
    run_order = None if run_grouped else np.argsort(run_queries, kind="stable")
    grouped_queries = _take(run_queries, run_order)
    sequence = _query_sequence(grouped_queries, judged_queries, judged_grouped, query_ids.shape[0])
    if sequence is None:
        sequence, judged_order = _run_first_sequence(grouped_queries, judged_queries)
        judged_queries, grades = judged_queries[judged_order], grades[judged_order]
        judged_docs = _take_strings(pc, judged_docs, judged_order)
    pairs = match_pairs(
        _grouped_file(grouped_queries, sequence, _take_strings(pc, run_docs, run_order)),
        _grouped_file(judged_queries, sequence, judged_docs),
        pool,
        n_threads,
    )
    if pairs is None:
        return None  # a repeated pair, or a hash that proposed a wrong match
    judged_rows, run_rows = pairs
    if run_order is not None:
        run_rows = run_order[run_rows]
    return JoinedRun(
        query_ids,
        run_queries,
        judged_queries,
        grades,
        judged_labels(run_queries.shape[0], run_rows, judged_rows, grades),
        run["score"],
        lambda rows: numpy_values(_take_strings(pc, run_docs, rows)),
        last_line_field(run_file[0], RUN.fields.index("run_name")),
    )


def pairs_appear_once_in_columns(query_ids, doc_ids, pool, n_threads):
    """Whether every (query, document) pair of two Arrow string columns appears once.

    True is certain; False leaves the decision (and the naming of the pair)
    to the caller's exact check. Rows are grouped by query first where they
    are not.
    """
    import pyarrow.compute as pc

    codes, _, grouped = _query_codes(pc, query_ids)
    order = None if grouped else np.argsort(codes, kind="stable")
    codes = _take(codes, order)
    file = _grouped_file(codes, codes[run_starts(codes)], _take_strings(pc, doc_ids, order))
    return pairs_appear_once(file, pool, n_threads)


def _take(values, order):
    return values if order is None else values[order]


def _take_strings(pc, column, order):
    """``column[order]`` of an Arrow column, ``order`` a NumPy array of positions (or None)."""
    return column if order is None else pc.take(column, _arrow_positions(order))


def _arrow_positions(positions):
    """A NumPy array of positions as an Arrow int64 array, sharing its memory.

    Handed a NumPy array, pyarrow imports pandas (to check whether it is a
    pandas object): half a second that the ``rank-eval`` command does not pay.
    """
    import pyarrow as pa

    positions = np.ascontiguousarray(positions, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), positions.shape[0], [None, pa.py_buffer(positions)])


def _grouped_file(queries, sequence, docs):
    """The :class:`~._join.GroupedFile` of a file grouped by query in ``sequence``'s order."""
    counts = np.bincount(queries, minlength=sequence.max(initial=-1) + 1)[sequence]
    return GroupedFile(queries, np.concatenate(([0], np.cumsum(counts))), StringRows(docs))


def _query_sequence(run_queries, judged_queries, judged_grouped, n_queries):
    """The queries of both files in one order that each file follows, or None.

    The run (grouped) gives the order of its queries; a query only the qrels
    have comes right after the last query before it in the qrels that the
    run has too. None where the qrels are not grouped, or order their shared
    queries otherwise than the run.
    """
    run_sequence = run_queries[run_starts(run_queries)]
    if not judged_grouped:
        return None
    judged_sequence = judged_queries[run_starts(judged_queries)]
    place = np.full(n_queries, -1, dtype=np.int64)
    place[run_sequence] = np.arange(run_sequence.shape[0])
    judged_place = place[judged_sequence]
    shared = judged_place[judged_place >= 0]
    if (shared[1:] <= shared[:-1]).any():
        return None
    only_judged = judged_place < 0
    # After the last shared query before it (-1: before the run's first query).
    after = np.maximum.accumulate(np.where(only_judged, -1, judged_place))[only_judged]
    order = np.lexsort(
        (
            np.concatenate((np.zeros(run_sequence.shape[0], np.int64), np.flatnonzero(only_judged))),
            np.concatenate((np.zeros(run_sequence.shape[0], bool), np.ones(after.shape[0], bool))),
            np.concatenate((np.arange(run_sequence.shape[0]), after)),
        )
    )
    return np.concatenate((run_sequence, judged_sequence[only_judged]))[order]


def _run_first_sequence(run_queries, judged_queries):
    """``(sequence, judged_order)``: the run's queries in its order, then the qrels' others.

    ``judged_order`` reorders the qrels rows by that sequence (stable).
    """
    run_sequence = run_queries[run_starts(run_queries)]
    others = np.setdiff1d(judged_queries, run_sequence)
    sequence = np.concatenate((run_sequence, others))
    place = np.empty(max(int(sequence.max(initial=-1)) + 1, 0), dtype=np.int64)
    place[sequence] = np.arange(sequence.shape[0])
    return sequence, np.argsort(place[judged_queries], kind="stable")


def _query_codes(pc, column):
    """``(codes, ids, grouped)`` of an Arrow string column: ``ids[codes]`` are its values.

    From Arrow's runs of equal values (run-end encoding, chunk by chunk, a
    run that goes on in the next chunk joined to it) when each query is one
    run of lines (``grouped``), as in most TREC files; else from Arrow's
    dictionary encoding.
    """
    import pyarrow as pa

    chunks = getattr(column, "chunks", [column])
    ends, values, rows = [], [], 0
    for chunk in chunks:
        encoded = pc.run_end_encode(chunk)
        ends.append(numpy_values(encoded.run_ends) + rows)
        values.append(encoded.values)
        rows += len(chunk)
    ends = np.concatenate(ends)
    values = pa.chunked_array(values, type=column.type)
    # A run that goes on in the next chunk: one run.
    goes_on = pc.equal(values.slice(1), values.slice(0, len(values) - 1))
    goes_on = numpy_values(goes_on)
    ids = values.take(_arrow_positions(np.flatnonzero(np.concatenate(([True], ~goes_on)))))
    if pc.count_distinct(ids).as_py() == len(ids):
        ends = ends[np.concatenate((~goes_on, [True]))]
        lengths = np.diff(ends, prepend=0)
        return np.repeat(np.arange(len(ids), dtype=code_dtype(len(ids))), lengths), ids, True
    encoded = pc.dictionary_encode(column)  # chunked: one dictionary for every chunk
    chunks = getattr(encoded, "chunks", [encoded])
    codes = np.concatenate([numpy_values(chunk.indices) for chunk in chunks])
    return codes, chunks[-1].dictionary, False
