"""Writer of TREC run files."""

import contextlib
import csv
import os
import secrets
import stat
import warnings

import numpy as np

from .._engine.prepare._sort import descending, merged_by_rounding
from ._files import import_pandas
from ._read import first_missing


def write_trec_run(path, query_id, doc_id, score, *, run_name="sklearn_rank_metrics", rank=None):
    """Write a TREC run file: ``query_id Q0 doc_id rank score run_name`` a line.

    Parameters
    ----------
    path : str or path-like
        The file to write; gzipped when its name ends with ``.gz``. It is
        written to a temporary file in the same folder, then renamed to
        ``path``: an interrupted or failed write leaves the file that was
        there (or none), never a cut-off run.
    query_id : array-like of shape (n_documents,)
        The query of each document; written as text (``str(value)``).
    doc_id : array-like of shape (n_documents,)
        The document ids; each (query_id, doc_id) pair at most once.
    score : array-like of shape (n_documents,)
        Finite real scores, higher ranks first. Floats are written in the
        shortest form that reads back to the same float64 (Python's
        ``repr``), so :func:`read_trec_run` gives them back bit-identical;
        integers digit for digit, also beyond 2**53, and ranked exactly
        (trec_eval and :func:`read_trec_run` read them as float64, which
        rounds integers beyond 2**53: a warning says when two different
        scores of a query would then tie).
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
        integer, a (query_id, doc_id) pair repeats, an id is missing
        (None, NaN), or an id or the run name is empty, holds whitespace,
        cannot be encoded as UTF-8 (a lone surrogate), or (a query id)
        starts with ``#``, which readers take for a comment: such a file
        would not read back. Nothing is written then.

    Warns
    -----
    UserWarning
        When two different integer scores of a query are equal as float64,
        as trec_eval and :func:`read_trec_run` read them.

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
    # Integers are written as they are (int64, exact beyond 2**53); others as float64.
    score = score.astype(np.float64 if score.dtype.kind in "bf" else score.dtype)
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
    codes, _ = pd.factorize(query_id, sort=False)  # queries in order of appearance
    _warn_rounded_scores(score, codes, query_id)
    if rank is None:
        order = np.lexsort((descending(score), codes))  # stable: equal scores keep input order
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
            # NumPy writes the shortest text that reads back to the same double,
            # and integers digit for digit.
            "score": score[order].astype(str),
            "run_name": run_name,
        }
    )
    del query_id, doc_id, score, codes, order, rank
    compression = "gzip" if os.fspath(path).endswith(".gz") else None

    def write(file):
        frame.to_csv(
            file,
            sep=" ",
            header=False,
            index=False,
            quoting=csv.QUOTE_NONE,
            lineterminator="\n",
            encoding="utf-8",
            compression=compression,
        )

    replace_file(path, write)


def replace_file(path, write):
    """Call ``write(name)`` to write a new file beside ``path``, then rename it to ``path``.

    The file appears whole or not at all: an interrupt, a full disk or an
    error leaves the file that was there (or none) and no temporary file
    (``os.replace`` is atomic within a folder). The temporary name is taken
    with ``O_EXCL``, so no other file is overwritten; ``write`` reopens it
    by name (pandas writes a path faster than a handle). A path that exists
    and is not a regular file (a pipe, ``/dev/stdout``) is written in place.
    The new file takes the mode of the file it replaces, else the default
    one (``0o666`` less the umask).
    """
    target = os.path.realpath(os.fspath(path))  # through a link, replace the file it names
    if os.path.exists(target) and not os.path.isfile(target):
        write(target)
        return
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        if os.path.isfile(target):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        write(temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _warn_rounded_scores(score, codes, query_id):
    """Warn where two different integer scores of a query read back as one double."""
    merged = merged_by_rounding(score, codes, np.float64)
    if merged is not None:
        first, second = merged
        warnings.warn(
            f"write_trec_run: the scores {int(score[first])} and {int(score[second])} of "
            f"query {query_id.iat[first]!r} are written exactly, but trec_eval and "
            "read_trec_run read scores as doubles, where they are equal (integers beyond "
            "2**53 round): there they tie, ordered by document id.",
            UserWarning,
            stacklevel=3,
        )


def _text(pd, values, name):
    """Ids as a Series of str that a reader splits back into one field each.

    A missing value (None, NaN, NA) is no id; an id must be non-empty, free
    of whitespace, and encodable as UTF-8 (a lone surrogate is not).
    """
    if not hasattr(values, "dtype"):
        values = np.asarray(values, dtype=object)  # None and NaN stay missing, not "nan"
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D.")
    try:
        values = pd.Series(values)
        position = first_missing(values)
        if position is not None:
            raise ValueError(
                f"{name} holds a missing value ({values.iat[position]}) at position "
                f"{position}; every document of a run needs a query id and a document id."
            )
        text = values.astype(str).reset_index(drop=True)
        if getattr(text.dtype, "storage", None) != "pyarrow":  # Arrow holds UTF-8 only
            "".join(text.tolist()).encode("utf-8")
    except UnicodeEncodeError as exc:
        ids = list(map(str, values.tolist()))  # the error path only: find the id
        position = next((i for i, value in enumerate(ids) if not _encodes(value)), 0)
        raise ValueError(
            f"{name} {ids[position]!r} at position {position} cannot be written as UTF-8 "
            f"({exc.reason}); a run file is UTF-8 text."
        ) from None
    bad = (text.str.len() == 0) | text.str.contains(r"\s", regex=True)
    if bad.any():
        raise ValueError(
            f"{name} {text[bad].iloc[0]!r} is empty or holds whitespace; a TREC file "
            "separates its fields by whitespace."
        )
    return text


def _encodes(text):
    """Whether ``text`` is encodable as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_run_name(run_name):
    if not isinstance(run_name, str) or not run_name or any(c.isspace() for c in run_name):
        raise ValueError(
            f"run_name must be a non-empty string without whitespace, got {run_name!r}."
        )
    if not _encodes(run_name):
        raise ValueError(
            f"run_name {run_name!r} cannot be written as UTF-8: a run file is UTF-8 text."
        )
