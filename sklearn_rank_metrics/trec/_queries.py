"""Query codes of the TREC files: each file's query ids coded once, then both files' jointly.

A file's query ids become codes once, by :func:`arrow_query_codes` (the
Arrow columns of the join on codes) or :func:`frame_query_codes` (a
DataFrame's column): from runs of equal ids where each query is one run of
lines, as in most TREC files (no hashing), else by hashing.
:func:`joint_query_codes` then maps both files' codes into the sorted query
ids of both, the order trec_eval prints its queries in, touching each
distinct id once and each row once.
"""

import numpy as np

from .._engine.prepare._arrays import code_dtype, remap
from ._arrow import arrow_positions, numpy_values


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


def arrow_query_codes(pc, column):
    """``(codes, ids, grouped)`` of an Arrow string column: ``ids[codes]`` are its values.

    From Arrow's runs of equal values (run-end encoding, chunk by chunk, a
    run that goes on in the next chunk joined to it) when each query is one
    run of lines (``grouped``), as in most TREC files; else from Arrow's
    dictionary encoding.
    """
    chunks = getattr(column, "chunks", [column])
    ends, values, rows = [], [], 0
    for chunk in chunks:
        encoded = pc.run_end_encode(chunk)
        ends.append(numpy_values(encoded.run_ends) + rows)
        values.append(encoded.values)
        rows += len(chunk)
    ends = np.concatenate(ends)
    values = _chunked(values, column.type)
    # A run that goes on in the next chunk: one run.
    goes_on = pc.equal(values.slice(1), values.slice(0, len(values) - 1))
    goes_on = numpy_values(goes_on)
    ids = values.take(arrow_positions(np.flatnonzero(np.concatenate(([True], ~goes_on)))))
    if pc.count_distinct(ids).as_py() == len(ids):
        ends = ends[np.concatenate((~goes_on, [True]))]
        lengths = np.diff(ends, prepend=0)
        return np.repeat(np.arange(len(ids), dtype=code_dtype(len(ids))), lengths), ids, True
    encoded = pc.dictionary_encode(column)  # chunked: one dictionary for every chunk
    chunks = getattr(encoded, "chunks", [encoded])
    codes = np.concatenate([numpy_values(chunk.indices) for chunk in chunks])
    return codes, chunks[-1].dictionary, False


def _chunked(arrays, arrow_type):
    import pyarrow as pa  # optional: only Arrow columns, made by pyarrow, come here

    return pa.chunked_array(arrays, type=arrow_type)


def frame_query_codes(pd, column):
    """``(codes, ids)`` of a DataFrame's query ids, ``ids[codes]`` the column's values.

    From runs of equal ids when each query is one run of lines, as in most
    TREC files (no hashing); else by hashing.
    """
    values = column.array
    if len(values) == 0:
        return np.zeros(0, dtype=np.intp), values
    change = np.asarray(values[1:] != values[:-1], dtype=bool)
    starts = np.flatnonzero(np.concatenate(([True], change)))
    ids = column.iloc[starts]
    if len(pd.unique(hashable(ids))) == len(starts):
        return np.cumsum(np.concatenate(([False], change))), ids.array
    return pd.factorize(hashable(column))


def hashable(column):
    """Python-stored strings as their object array (faster to hash); Arrow's as they are."""
    if column.dtype == object or getattr(column.dtype, "storage", None) == "python":
        return column.to_numpy(dtype=object)
    return column
