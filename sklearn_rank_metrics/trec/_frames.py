"""The join of a run and its qrels as DataFrames: given ones, or files pandas read.

The path ``evaluate_run`` takes for DataFrames, and for files the join on
Arrow arrays leaves to pandas (:class:`~._format.NeedsDataFramePath`): the
readers (:mod:`._read`) name a malformed line, :func:`join_frames` checks
each (query, document) pair appears once, naming the pair, and gives the
:class:`~._joined.JoinedRun`. Document ids are hashed once, the qrels' and
the run's together; query ids are coded once per file
(:func:`~._queries.frame_query_codes`), then jointly.
"""

import os

import numpy as np

from .._engine.prepare._validation import plain
from ._dicts import FlatPairs, flat_pairs, is_nested, nested_frame
from ._format import QRELS, RUN, number_problem, valid_values
from ._joined import JoinedRun, judged_labels
from ._order import single_precision
from ._queries import frame_query_codes, hashable, joint_query_codes
from ._read import check_pairs, first_missing, read_table, read_trec_qrels, read_trec_run


def _frame(pd, given, fmt, read, data=None):
    """``(frame, name)``: the qrels or run as a DataFrame, read from a path, a dict, or checked.

    ``data``: the bytes of the path ``given``, where read already. A
    ``{query_id: {doc_id: value}}`` dict becomes a frame (:mod:`._dicts`).

    Its (query_id, doc_id) pairs are checked to appear once by
    :func:`_joint_codes`, on the codes the join needs anyway.
    """
    if isinstance(given, (str, os.PathLike)):
        frame = read_table(given, fmt, "auto", read.__name__, check=False, data=data)
        return frame, os.fspath(given)
    if is_nested(given):
        given = flat_pairs(given, fmt)
    if isinstance(given, FlatPairs):
        return nested_frame(pd, given, fmt), f"the {fmt.kind} dict"
    if not isinstance(given, pd.DataFrame):
        raise TypeError(
            f"evaluate_run: the {fmt.kind} must be a path, a pandas DataFrame or a dict "
            f"{{query_id: {{doc_id: {fmt.evaluated[2]}}}}}, got {type(given).__name__}."
        )
    needed = [column for column in fmt.evaluated if column not in given.columns]
    if needed:
        raise ValueError(
            f"evaluate_run: the {fmt.kind} DataFrame has no column {', '.join(map(repr, needed))}; "
            f"it needs {', '.join(map(repr, fmt.evaluated))}, as "
            f"{read.__name__} returns them."
        )
    return given, f"the {fmt.kind} DataFrame"


def join_frames(pd, qrels, run, max_docs=None, trec_eval_version="10", data=(None, None)):
    """The :class:`JoinedRun` of the qrels and the run, DataFrames or paths read into them.

    ``data``: the bytes of the two paths, where read already.

    With ``max_docs``, a run that repeats a (query, document) pair is first
    cut to the top ``max_docs`` of each query in trec_eval's order (the
    documents ``-M`` evaluates), where a repeated pair is an error.
    """
    qrels, qrels_name = _frame(pd, qrels, QRELS, read_trec_qrels, data[0])
    run, run_name = _frame(pd, run, RUN, read_trec_run, data[1])
    has_name = "run_name" in run.columns and len(run)
    last_name = str(run["run_name"].iloc[-1]) if has_name else ""  # of the uncut run
    run_codes = None  # the run's query codes: coded once, here or in _joint_codes
    if max_docs is not None and len(run) > 1:
        run_codes = frame_query_codes(pd, _strings(pd, run, "query_id", run_name))
        run, run_codes = _top_of_each_query(pd, run, run_name, run_codes, max_docs,
                                            trec_eval_version)  # fmt: skip
    query_ids, run_queries, run_keys, judged_queries, judged_keys = _joint_codes(
        pd, run, qrels, run_name, qrels_name, run_codes
    )
    grades = _numbers(pd, qrels, "relevance", qrels_name, integers=True)
    labels = _run_labels(run_keys, judged_keys, grades)
    scores = _numbers(pd, run, "score", run_name, integers=False)
    doc_ids = run["doc_id"]
    return JoinedRun(
        query_ids=query_ids,
        run_queries=run_queries,
        judged_queries=judged_queries,
        grades=grades,
        labels=labels,
        scores=scores,
        doc_ids=lambda rows: doc_ids.iloc[rows].astype(str).to_numpy(dtype=object),
        run_name=last_name,
    )


def _top_of_each_query(pd, run, run_name, run_codes, max_docs, trec_eval_version):
    """``(run, run_codes)``: the lines in the top ``max_docs`` of their query, if a pair repeats.

    trec_eval ranks a query's lines by score, then document id, both
    descending, keeps the first ``-M`` of them, and only then checks that
    no document appears twice. ``run_codes``: ``(codes, ids)`` of the run's
    query ids (:func:`~._queries.frame_query_codes`), which rank the lines
    of each query together; returned for the lines kept, numbered again in
    their order of appearance there (as coding the cut run would number them).
    """
    codes, ids = run_codes
    docs = _strings(pd, run, "doc_id", run_name)
    if not pd.DataFrame({"q": codes, "d": docs.to_numpy()}).duplicated().any():
        return run, run_codes
    scores = run["score"].to_numpy(dtype=np.float64)
    if trec_eval_version == "9":
        scores = single_precision(scores)
    ranked = pd.DataFrame(
        {"q": codes, "s": scores, "d": docs.to_numpy()}
    ).sort_values(["q", "s", "d"], ascending=[True, False, False], kind="stable")
    queries = ranked["q"].to_numpy()
    rank = np.arange(queries.shape[0]) - np.searchsorted(queries, queries, side="left")
    kept = np.sort(ranked.index.to_numpy()[rank < max_docs])
    # Every query keeps a line (max_docs >= 1): renumber by first appearance.
    present, first = np.unique(codes[kept], return_index=True)
    appearing = present[np.argsort(first)]
    renumber = np.empty(max(len(ids), 1), dtype=np.intp)
    renumber[appearing] = np.arange(appearing.shape[0])
    return run.iloc[kept], (renumber[codes[kept]], ids[appearing])


def _joint_codes(pd, run, qrels, run_name, qrels_name, run_codes=None):
    """Codes of both files' ids, each (query, document) pair checked to appear once.

    ``run_codes``: ``(codes, ids)`` of the run's query ids where coded
    already (None: coded here).

    Returns ``(query_ids, run_queries, run_keys, judged_queries,
    judged_keys)``: the sorted query ids (the order trec_eval prints), the
    query code of every run and qrels row into them, and a key per row
    that is equal for the same (query, document) pair in both files.
    Document ids are hashed once, the qrels' and the run's together; query
    ids come from runs of equal ids where a file is grouped by query (most
    are), without hashing.
    """
    n_judged = len(qrels)
    both = pd.concat(
        [_strings(pd, qrels, "doc_id", qrels_name), _strings(pd, run, "doc_id", run_name)],
        ignore_index=True,
    )
    docs, doc_ids = pd.factorize(hashable(both))
    del both
    n_docs = max(len(doc_ids), 1)
    judged_queries, judged_ids = frame_query_codes(pd, _strings(pd, qrels, "query_id", qrels_name))
    check_pairs(qrels, QRELS, qrels_name, judged_queries, docs[:n_judged], n_docs)
    if run_codes is None:
        run_codes = frame_query_codes(pd, _strings(pd, run, "query_id", run_name))
    run_queries, run_ids = run_codes
    check_pairs(run, RUN, run_name, run_queries, docs[n_judged:], n_docs)
    query_ids, run_queries, judged_queries = joint_query_codes(
        run_queries, run_ids, judged_queries, judged_ids
    )
    run_keys = run_queries * np.int64(n_docs) + docs[n_judged:]
    judged_keys = judged_queries * np.int64(n_docs) + docs[:n_judged]
    return query_ids, run_queries, run_keys, judged_queries, judged_keys


def _strings(pd, frame, column, name):
    """A column of ids as strings (trec_eval compares ids as text); an error for a missing id.

    String columns are taken as they are. A missing value (NaN, None, NA)
    is no id: as text it would become a query or a document called "nan".
    """
    values = frame[column]
    if not isinstance(values.dtype, pd.StringDtype) and values.dtype == object:
        if pd.api.types.infer_dtype(values, skipna=False) == "string":
            return values  # no missing value: infer_dtype would say "mixed"
    row = first_missing(values)
    if row is not None and frame.attrs.get("nested"):
        pair = ", ".join(f"{key}={plain(frame[key].iat[row])!r}" for key in ("query_id", "doc_id"))
        raise ValueError(
            f"evaluate_run: {name} has no {column} in the pair ({pair}): a missing value is no "
            "id (as text it would be an id 'nan' or 'None'). Leave such keys out of the dict."
        )
    if row is not None:
        raise ValueError(
            f"evaluate_run: {name} has no {column} at row {row} (a missing value: "
            f"{values.iat[row]}); every row needs one. Drop such rows, e.g. with "
            f"frame.dropna(subset=[{column!r}]), or fill them in."
        )
    return values if isinstance(values.dtype, pd.StringDtype) else values.astype(str)


def _numbers(pd, frame, column, name, *, integers):
    """The relevance grades (``integers``) or scores of a frame, as NumPy numbers, checked.

    Grades must be integers up to 2**53 in magnitude, as the qrels reader
    reads them (int64; float64 would round larger ones in gains and
    levels); scores finite numbers, integer scores kept as integers (int64,
    or uint64 beyond it) so that they rank exactly. An
    error names the column and the (query_id, doc_id) pair of the first
    value that is not, as the readers name the line.
    """
    values = frame[column]
    dtype = values.dtype
    if not isinstance(dtype, np.dtype) or dtype == object:  # pandas' own dtypes, objects
        kind = pd.api.types.infer_dtype(values, skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "boolean", "empty"):
            raise TypeError(
                f"evaluate_run: the {column} column of {name} holds {kind} values "
                f"(dtype {dtype}); it must hold numbers: convert it, e.g. with "
                f"frame[{column!r}].astype({'int' if integers else 'float'})."
            )
        row = first_missing(values)
        if row is not None:
            _raise_bad_number(frame, column, name, row, "is missing")
        values = values.to_numpy(dtype=np.int64 if kind in ("integer", "boolean") else np.float64)
    else:
        values = values.to_numpy()
    if values.dtype.kind not in "biuf":
        raise TypeError(
            f"evaluate_run: the {column} column of {name} has dtype {values.dtype}; it must "
            "hold real numbers."
        )
    if values.dtype.kind == "b":
        return values.astype(np.int64 if integers else np.float64)
    if values.dtype.kind in "iu":
        if integers:  # grades beyond 2**53 are refused, as the qrels reader refuses them
            beyond = (values > 2**53) | (values < -(2**53))
            if beyond.any():
                _raise_bad_number(frame, column, name, int(np.argmax(beyond)), "is beyond 2**53")
        if values.dtype == np.uint64 and values.max(initial=0) > np.iinfo(np.int64).max:
            return values  # scores beyond int64, ranked exactly
        return values.astype(np.int64)
    values = values.astype(np.float64)
    if not valid_values(values, integers):
        bad = ~np.isfinite(values)
        if integers:
            bad |= (np.abs(values) > 2.0**53) | (values != np.rint(values))
        _raise_bad_number(frame, column, name, int(np.argmax(bad)), values=values)
    return values


def _raise_bad_number(frame, column, name, row, problem=None, values=None):
    """Raise for the ``column`` value of row ``row`` of ``frame``, naming its pair."""
    if problem is None:
        value = float(values[row])
        problem = number_problem(column, repr(value), value, column == "relevance")
    else:
        problem = f"the {column} {problem} ({frame[column].iat[row]})"
    fix = (
        "relevance grades are integers, as in a qrels file (negative: judged, not relevant)"
        if column == "relevance"
        else "a run needs a finite score for every document"
    )
    raise ValueError(
        f"evaluate_run: {name}, the pair (query_id={plain(frame['query_id'].iat[row])!r}, "
        f"doc_id={plain(frame['doc_id'].iat[row])!r}): {problem}; {fix}."
    )


def _run_labels(run_keys, judged_keys, grades):
    """trec_eval's label of every retrieved document: its grade, or an unjudged code.

    The qrels' keys (one per pair) are sorted once and every run key is
    found among them by binary search: for a run grouped by query the
    searches of one query stay in its few judged keys.
    """
    if not judged_keys.shape[0]:
        return judged_labels(run_keys.shape[0], [], [], grades)
    order = np.argsort(judged_keys)
    sorted_keys = judged_keys[order]
    position = np.searchsorted(sorted_keys, run_keys)
    np.minimum(position, sorted_keys.shape[0] - 1, out=position)
    found = np.flatnonzero(sorted_keys[position] == run_keys)
    return judged_labels(run_keys.shape[0], found, order[position[found]], grades)
