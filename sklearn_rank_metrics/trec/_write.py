"""Writer of TREC run files."""

import csv
import os

import numpy as np

from ._files import import_pandas


def write_trec_run(path, query_id, doc_id, score, *, run_name="sklearn_rank_metrics", rank=None):
    """Write a TREC run file: ``query_id Q0 doc_id rank score run_name`` a line.

    Parameters
    ----------
    path : str or path-like
        The file to write; gzipped when its name ends with ``.gz``.
    query_id : array-like of shape (n_documents,)
        The query of each document; written as text (``str(value)``).
    doc_id : array-like of shape (n_documents,)
        The document ids; each (query_id, doc_id) pair at most once.
    score : array-like of shape (n_documents,)
        Finite real scores, higher ranks first. Written in the shortest form that
        reads back to the same float64 (Python's ``repr``), so
        :func:`read_trec_run` gives them back bit-identical.
    run_name : str, default="sklearn_rank_metrics"
        The run's name, the sixth field of every line.
    rank : array-like of shape (n_documents,), default=None
        Integer ranks to write as given, lines in the given order. None:
        each query's documents are written by descending score, ranked 1,
        2, ..., equal scores in their input order, queries in the order of
        their first document. (trec_eval ignores this field: it ranks by
        score, equal scores by descending doc_id.)

    Returns
    -------
    None
        The file is written.

    Raises
    ------
    ValueError
        When the arrays differ in length, a score is not finite, a rank is not an
        integer, a (query_id, doc_id) pair repeats, or an id or the run
        name is empty, holds whitespace, or (a query id) starts with ``#``,
        which readers take for a comment: such a file would not read back.

    See Also
    --------
    read_trec_run : Read a run file.

    References
    ----------
    .. [1] trec_eval, the run format it reads (``get_trec_results.c``):
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank_metrics.trec import read_trec_run, write_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt.gz")
    >>> write_trec_run(path, ["q1", "q1", "q2"], ["d1", "d2", "d1"], [0.1, 0.7, 3.0],
    ...                run_name="mine")
    >>> read_trec_run(path)
      query_id doc_id  score  rank run_name
    0       q1     d2    0.7     1     mine
    1       q1     d1    0.1     2     mine
    2       q2     d1    3.0     1     mine
    """
    pd = import_pandas("write_trec_run")
    query_id = _text(pd, query_id, "query_id")
    doc_id = _text(pd, doc_id, "doc_id")
    score = np.asarray(score)
    if score.ndim != 1 or score.dtype.kind not in "biuf":
        raise ValueError(
            f"score must be a 1-D array of real numbers, got dtype {score.dtype} and "
            f"shape {score.shape}."
        )
    score = score.astype(np.float64)
    lengths = {"query_id": len(query_id), "doc_id": len(doc_id), "score": len(score)}
    if rank is not None:
        rank = np.asarray(rank)
        if rank.ndim != 1 or rank.dtype.kind not in "biu":
            raise ValueError(
                f"rank must be a 1-D array of integers, got dtype {rank.dtype}; "
                "pass rank=None to rank by score."
            )
        lengths["rank"] = len(rank)
    if len(set(lengths.values())) > 1:
        raise ValueError(f"The arrays differ in length: {lengths}.")
    finite = np.isfinite(score)
    if not finite.all():
        position = int(np.argmin(finite))
        raise ValueError(
            f"score holds {score[position]} at position {position}; a run needs a finite "
            "number for every document."
        )
    _check_run_name(run_name)
    if query_id.str.startswith("#").any():
        first = query_id[query_id.str.startswith("#")].iloc[0]
        raise ValueError(f"query_id {first!r} starts with '#', which readers take for a comment.")
    duplicated = pd.DataFrame({"q": query_id, "d": doc_id}).duplicated().to_numpy()
    if duplicated.any():
        row = int(np.argmax(duplicated))
        raise ValueError(
            f"The pair (query_id={query_id.iat[row]!r}, doc_id={doc_id.iat[row]!r}) appears "
            "more than once; a run holds each document once per query."
        )
    if rank is None:
        codes, _ = pd.factorize(query_id, sort=False)  # queries in order of appearance
        order = np.lexsort((-score, codes))  # stable: equal scores keep input order
        codes = codes[order]
        starts = np.flatnonzero(np.diff(codes, prepend=-1))
        rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
        rank += 1
    else:
        order = np.arange(len(score))
        rank = rank.astype(np.int64)
    frame = pd.DataFrame(
        {
            "query_id": query_id.to_numpy()[order],
            "iteration": "Q0",
            "doc_id": doc_id.to_numpy()[order],
            "rank": rank,
            # NumPy writes the shortest text that reads back to the same double.
            "score": score[order].astype(str),
            "run_name": run_name,
        }
    )
    frame.to_csv(
        os.fspath(path),
        sep=" ",
        header=False,
        index=False,
        quoting=csv.QUOTE_NONE,
        lineterminator="\n",
        compression="gzip" if os.fspath(path).endswith(".gz") else None,
    )


def _text(pd, values, name):
    """Ids as a Series of str that a reader splits back into one field each."""
    values = pd.Series(np.asarray(values) if not hasattr(values, "dtype") else values)
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D.")
    text = values.astype(str).reset_index(drop=True)
    bad = (text.str.len() == 0) | text.str.contains(r"\s", regex=True)
    if bad.any():
        raise ValueError(
            f"{name} {text[bad].iloc[0]!r} is empty or holds whitespace; a TREC file "
            "separates its fields by whitespace."
        )
    return text


def _check_run_name(run_name):
    if not isinstance(run_name, str) or not run_name or any(c.isspace() for c in run_name):
        raise ValueError(
            f"run_name must be a non-empty string without whitespace, got {run_name!r}."
        )
