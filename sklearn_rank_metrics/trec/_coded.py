"""The join of two TREC files on Arrow arrays, without a Python object per line.

:func:`read_joined` makes the :class:`~._joined.JoinedRun` of a qrels and a
run file:

- both files are read by pyarrow's CSV reader into Arrow arrays
  (:func:`~._arrow.read_arrow_columns`);
- query ids get codes from runs of equal ids (TREC files are grouped by
  query), else from Arrow's dictionary encoding
  (:func:`~._queries.arrow_query_codes`); only the distinct ids become
  Python strings;
- the files are put in one order of queries that both follow (the run's;
  :func:`_query_sequence`), which most files already are; a file that is
  not is reordered;
- the pairs are matched a block of queries at a time (:mod:`._join`): keys
  of the document ids' bytes and their queries, slot tables in the cache,
  every pair of each file checked to appear once, every match confirmed on
  the ids' bytes.

A repeated pair (or two pairs with one key), a failed confirmation or a file
pyarrow does not read exactly as pandas raises
:class:`~._format.NeedsDataFramePath`; the DataFrame path (:mod:`._frames`)
then reads, checks (naming the line or the duplicate pair) and joins.
:func:`pairs_appear_once_in_columns` gives the readers the same check of
repeated pairs on one file.
"""

import os

import numpy as np

from .._engine.prepare._arrays import run_starts
from .._engine._threads import call_threads
from ._arrow import numpy_values, pyarrow_modules, read_arrow_columns, take_strings
from ._files import last_line_field, read_bytes
from ._format import QRELS, RUN, NeedsDataFramePath
from ._join import GroupedFile, StringRows, match_pairs, pairs_appear_once
from ._joined import JoinedRun, judged_labels
from ._order import take
from ._queries import arrow_query_codes, joint_query_codes


def read_joined(qrels_path, run_path, *, data=None):
    """The :class:`~._joined.JoinedRun` of two files.

    :class:`~._format.NeedsDataFramePath` where the DataFrame path must
    decide (a file pyarrow does not read as pandas, a pair that may repeat).

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
    qrels = read_arrow_columns(qrels_file[0], QRELS, qrels_file[1], pool)
    run = read_arrow_columns(run_file[0], RUN, run_file[1], pool)
    run_name = last_line_field(run_file[0], RUN.index("run_name"))
    return join_columns(qrels, run, run_name, pool, n_threads)


def join_columns(qrels, run, run_name, pool=None, n_threads=1):
    """The :class:`~._joined.JoinedRun` of the qrels' and the run's columns.

    ``qrels`` and ``run``: ``{column: values}`` as
    :func:`~._arrow.read_arrow_columns` gives them (ids as Arrow strings,
    numbers as NumPy arrays, checked), the query ids either as a
    ``"query_id"`` column or already coded, ``"query_codes"``: ``(codes,
    ids, grouped)`` as :func:`~._queries.arrow_query_codes` gives them
    (a dict's, :mod:`._dicts`). :class:`~._format.NeedsDataFramePath` where
    a pair may repeat, or a hash leaves a doubt.
    """
    _, pc, _ = pyarrow_modules(False)
    run_codes, run_ids, run_grouped = _query_codes(pc, run)
    judged_codes, judged_ids, judged_grouped = _query_codes(pc, qrels)
    query_ids, run_queries, judged_queries = joint_query_codes(
        run_codes, run_ids, judged_codes, judged_ids
    )
    grades = qrels["relevance"]
    run_docs, judged_docs = run["doc_id"], qrels["doc_id"]
    # The join needs each file grouped by query, the qrels' queries in the
    # run's order: most files are; others are reordered first.
    run_order = None if run_grouped else np.argsort(run_queries, kind="stable")
    grouped_queries = take(run_queries, run_order)
    sequence = _query_sequence(grouped_queries, judged_queries, judged_grouped, query_ids.shape[0])
    if sequence is None:
        sequence, judged_order = _run_first_sequence(grouped_queries, judged_queries)
        judged_queries, grades = judged_queries[judged_order], grades[judged_order]
        judged_docs = take_strings(pc, judged_docs, judged_order)
    pairs = match_pairs(
        _grouped_file(grouped_queries, sequence, take_strings(pc, run_docs, run_order)),
        _grouped_file(judged_queries, sequence, judged_docs),
        pool,
        n_threads,
    )
    if pairs is None:
        raise NeedsDataFramePath("a pair may repeat, or a hash proposed a wrong match")
    judged_rows, run_rows = pairs
    if run_order is not None:
        run_rows = run_order[run_rows]
    return JoinedRun(
        query_ids=query_ids,
        run_queries=run_queries,
        judged_queries=judged_queries,
        grades=grades,
        labels=judged_labels(run_queries.shape[0], run_rows, judged_rows, grades),
        scores=run["score"],
        doc_ids=lambda rows: numpy_values(take_strings(pc, run_docs, rows)),
        run_name=run_name,
    )


def _query_codes(pc, columns):
    """``(codes, ids, grouped)`` of the query ids of a file's (or a dict's) columns."""
    if "query_codes" in columns:
        return columns["query_codes"]
    return arrow_query_codes(pc, columns["query_id"])


def pairs_appear_once_in_columns(query_ids, doc_ids, pool, n_threads):
    """Whether every (query, document) pair of two Arrow string columns appears once.

    True is certain; False leaves the decision (and the naming of the pair)
    to the caller's exact check. Rows are grouped by query first where they
    are not.
    """
    _, pc, _ = pyarrow_modules(False)
    codes, _, grouped = arrow_query_codes(pc, query_ids)
    order = None if grouped else np.argsort(codes, kind="stable")
    codes = take(codes, order)
    file = _grouped_file(codes, codes[run_starts(codes)], take_strings(pc, doc_ids, order))
    return pairs_appear_once(file, pool, n_threads)


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
