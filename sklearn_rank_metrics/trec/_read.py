"""Readers of TREC run and qrels files into pandas DataFrames.

pyarrow's reader reads the files it reads exactly as pandas' does
(:mod:`._arrow`); any other file, or one it has a doubt about
(:class:`~._format.NeedsDataFramePath`), is read by pandas' C reader, and a
malformed line is found by bisection and named. The formats, field by
field, are :mod:`._format`'s.
"""

import csv
import io
import os
import warnings

import numpy as np

from .._engine._threads import call_threads
from .._engine.prepare._validation import plain
from ._arrow import pyarrow_modules, read_table as read_arrow_table
from ._coded import pairs_appear_once_in_columns
from ._files import import_pandas, is_blank, line_number, normalize, read_bytes
from ._format import ENGINES, QRELS, RUN, NeedsDataFramePath, number_problem, valid_values
from ._queries import frame_query_codes, hashable


class _Unreadable(Exception):
    """A reader met a line it does not accept; the line is found afterwards."""


def read_trec_run(path, *, engine="auto"):
    """Read a TREC run file into a DataFrame, one row per retrieved document.

    A run line holds at least six fields separated by whitespace (spaces,
    tabs, any number of them)::

        query_id  iteration  doc_id  rank  score  run_name

    as trec_eval reads them: ``iteration`` (usually ``Q0``) is not kept,
    fields after ``run_name`` are ignored, blank lines and lines whose first
    non-blank character is ``#`` are skipped. The file may be gzipped
    (recognised by its first bytes, whatever its name).

    Parameters
    ----------
    path : str or path-like
        The run file, plain or gzipped.
    engine : {"auto", "pandas", "pyarrow"}, default="auto"
        Which reader splits the lines. ``"auto"`` uses pyarrow's CSV reader
        when pyarrow is installed and the file separates its fields by
        single spaces or single tabs, otherwise pandas' C reader;
        ``"pandas"`` always uses pandas'; ``"pyarrow"`` is ``"auto"`` that
        raises an ImportError without pyarrow. Every engine gives the same
        DataFrame and the same errors: whatever pyarrow would read
        differently (and any error) is read again by pandas. pyarrow's
        reader runs on Arrow's own thread pool unless the package's thread
        limit (``n_threads`` of :func:`~sklearn_rank_metrics.config_context`)
        is 1.

    Returns
    -------
    run : pandas.DataFrame
        Columns ``query_id`` and ``doc_id`` (strings, in the installed
        pandas' default string dtype: ``str`` from pandas 3 on, ``object``
        before), ``score`` (float64, read exactly: a score written with 17
        significant digits reads back bit-identical), ``rank`` (int64, as
        written; trec_eval ignores it and ranks by score) and ``run_name``
        (strings), in file order. An empty file, or one of blank and
        comment lines only, gives an empty DataFrame with these columns
        (trec_eval refuses an empty file).

    Raises
    ------
    ValueError
        On a malformed line, naming the file, the 1-based line number and
        what is wrong: fewer than six fields, a score that is not a finite
        number (NaN, ``inf``, ``1e400``: the metrics need finite scores), a
        rank that is not an integer. trec_eval reads any
        text as a score (``atof``: ``abc`` is 0) and ignores the rank; a
        silent 0 is never a score here. Also when the same (query_id,
        doc_id) pair appears twice, naming the pair: trec_eval stops on it
        (``duplicate docs``) for every query it evaluates. Also for a gzipped
        file that is truncated or corrupt, or that inflates to more than 100
        times its size (64 MiB at least: a "gzip bomb"), naming the file. A
        file truncated by another process while it is read gives the lines
        read (a line cut in the middle is a malformed line), never a crash.

    See Also
    --------
    read_trec_qrels : Read the relevance judgments.
    write_trec_run : Write a run in this format.

    References
    ----------
    .. [1] trec_eval, ``get_trec_results.c``: https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank_metrics.trec import read_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 Q0 d3 1 2.5 bm25\\nq1 Q0 d1\\t2  0.75 bm25\\n# a comment\\n")
    >>> run = read_trec_run(path)
    >>> run
      query_id doc_id  score  rank run_name
    0       q1     d3   2.50     1     bm25
    1       q1     d1   0.75     2     bm25
    >>> run.dtypes[["score", "rank"]].tolist()
    [dtype('float64'), dtype('int64')]
    """
    return read_table(path, RUN, engine, "read_trec_run")


def read_trec_qrels(path, *, engine="auto"):
    """Read a TREC qrels file (relevance judgments) into a DataFrame.

    A qrels line holds exactly four fields separated by whitespace::

        query_id  iteration  doc_id  relevance

    as trec_eval reads them: the second field (``iteration``, usually ``0``,
    which trec_eval ignores) is not kept, and a line with a fifth field is
    malformed, as trec_eval says too. Blank lines and lines whose first
    non-blank character is ``#`` are skipped (trec_eval 10 skips such
    comments). The file may be gzipped (recognised by its first bytes).

    Parameters
    ----------
    path : str or path-like
        The qrels file, plain or gzipped.
    engine : {"auto", "pandas", "pyarrow"}, default="auto"
        Which reader splits the lines, as in :func:`read_trec_run`; every
        engine gives the same DataFrame and the same errors.

    Returns
    -------
    qrels : pandas.DataFrame
        Columns ``query_id`` and ``doc_id`` (strings, the installed pandas'
        default string dtype) and ``relevance`` (int64; negative grades are
        kept, as trec_eval keeps them: they count as not relevant), in file
        order. An empty file, or one of blank and comment lines only, gives
        an empty DataFrame with these columns (trec_eval refuses an empty
        file).

    Raises
    ------
    ValueError
        On a malformed line, naming the file, the 1-based line number and
        what is wrong: not four fields, a relevance that is not an integer
        (trec_eval reads ``1.5`` as 1 and ``abc`` as 0 with ``atol``). Also
        when the same (query_id, doc_id) pair is judged twice, naming the
        pair, as trec_eval stops on it (``duplicate docs``). A gzipped file
        that is truncated, corrupt or inflates past its bound raises as in
        :func:`read_trec_run`.

    See Also
    --------
    read_trec_run : Read a run.

    References
    ----------
    .. [1] trec_eval, ``get_qrels.c``: https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank_metrics.trec import read_trec_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 2\\nq1 0 d2 0\\nq1 0 d3 -1\\n")
    >>> read_trec_qrels(path)
      query_id doc_id  relevance
    0       q1     d1          2
    1       q1     d2          0
    2       q1     d3         -1
    """
    return read_table(path, QRELS, engine, "read_trec_qrels")


def read_table(path, fmt, engine, caller, *, check=True, data=None):
    """The file's DataFrame; ``check=False`` leaves the duplicate pairs to the caller.

    ``data``: the file's bytes where the caller has read them already.
    """
    pd = import_pandas(caller)
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}.")
    name = os.fspath(path)
    data = normalize(read_bytes(path) if data is None else data, name)
    if not data or is_blank(data):
        return _empty(pd, fmt)
    frame, unique = None, False
    if engine != "pandas":
        try:
            frame, unique = read_with_pyarrow(
                data, fmt, required=engine == "pyarrow", check_pairs=check
            )
        except NeedsDataFramePath:
            pass  # pandas reads the file, or names its first malformed line
    if frame is None:
        try:
            frame = _read_with_pandas(pd, data, fmt)
            if not _valid(frame, fmt):
                raise _Unreadable()
        except _Unreadable as exc:
            _raise_first_bad_line(pd, data, fmt, name, exc)
    frame = _finish(frame, fmt)
    if check and not unique:
        check_duplicates(pd, frame, fmt, name)
    return frame


def read_with_pyarrow(data, fmt, *, required, check_pairs=False):
    """``(frame, unique)``: pyarrow's DataFrame of the kept fields, by position.

    ``unique``: with ``check_pairs``, whether every (query, document) pair
    is known to appear once (checked on the Arrow columns, a block of
    queries at a time); False leaves the check to the caller.
    :class:`~._format.NeedsDataFramePath` where pandas must read the file.
    """
    modules = pyarrow_modules(required)
    with call_threads(len(data) // 50) as (pool, n_threads):  # lines: about 50 bytes each
        table = read_arrow_table(modules, data, fmt, [field for field, _ in fmt.columns], pool)
        unique = check_pairs and table.num_rows > 0 and pairs_appear_once_in_columns(
            table[str(fmt.index("query_id"))], table[str(fmt.index("doc_id"))], pool, n_threads
        )
    frame = table.to_pandas()
    frame.columns = [int(name) for name in frame.columns]
    if not _valid(frame, fmt):
        raise NeedsDataFramePath("a number pyarrow read is not one pandas' reader accepts")
    return frame, unique


def _empty(pd, fmt):
    return pd.DataFrame({column: pd.Series([], dtype=dtype) for column, dtype in fmt.dtypes.items()})


def _pandas_options(pd, fmt, inferred):
    """read_csv's arguments, the fields named by position.

    A qrels line is read with one column more than it has, which a fifth
    field fills (pandas refuses ``usecols`` past the last field, so every
    column is read). The ``inferred`` string fields get no dtype: pandas
    then builds Arrow-backed strings several times faster than for ``str``.
    """
    n_columns = len(fmt.fields) + fmt.exact
    numbers = {*fmt.integers, *fmt.numbers}
    options = dict(
        sep=r"\s+",
        header=None,
        names=list(range(n_columns)),
        usecols=None if fmt.exact else [field for field, _ in fmt.columns],
        index_col=False,
        dtype={
            field: np.float64 if field in numbers else str
            for field in range(n_columns)
            if field not in inferred
        },
        na_filter=False,
        quoting=csv.QUOTE_NONE,
        engine="c",
    )
    if int(pd.__version__.split(".")[0]) < 3:
        # Before pandas 3 the default float parser is not correctly rounded.
        options["float_precision"] = "round_trip"
    return options


def _read_with_pandas(pd, data, fmt):
    # doc_id and run_name, mostly distinct or all equal, are left to pandas'
    # inference where strings are Arrow-backed, and read again as str in the
    # rare file where all of one column look like numbers ("007" must stay).
    inferred = (2, 5) if getattr(pd.Series(["x"]).dtype, "storage", None) == "pyarrow" else ()
    frame = _read_csv(pd, data, _pandas_options(pd, fmt, inferred))
    if any(not pd.api.types.is_string_dtype(frame[field]) for field in inferred if field in frame):
        frame = _read_csv(pd, data, _pandas_options(pd, fmt, ()))
    return frame


def _read_csv(pd, data, options):
    try:
        with warnings.catch_warnings():
            # A first line with more fields than named: the extra ones are dropped on purpose.
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            return pd.read_csv(io.BytesIO(data), **options)
    except (ValueError, pd.errors.ParserError) as exc:
        raise _Unreadable(str(exc)) from exc


def _valid(frame, fmt):
    """Whether every row of the fields read by position is a well-formed line."""
    if fmt.exact:
        # pandas reads a column more than a qrels line has, which a fifth field
        # fills; pyarrow refuses such a line itself.
        extra = frame.get(len(fmt.fields))
        if extra is not None and not (extra == "").to_numpy(dtype=bool).all():
            return False
    elif (frame[len(fmt.fields) - 1] == "").to_numpy(dtype=bool).any():
        return False  # a run line without run_name
    numbered = fmt.integers + fmt.numbers
    return all(valid_values(frame[field].to_numpy(), field in fmt.integers) for field in numbered)


def _finish(frame, fmt):
    frame = frame[[field for field, _ in fmt.columns]]
    frame = frame.astype({field: np.int64 for field in fmt.integers})
    frame.columns = [column for _, column in fmt.columns]
    return frame


def _raise_first_bad_line(pd, data, fmt, name, cause):
    """Find the first line the reader refuses by bisection, and say what is wrong with it."""
    lo, hi = 0, len(data)  # [lo, hi) starts a line and holds a refused line
    while True:
        middle = (lo + hi) // 2
        cut = data.rfind(b"\n", lo, middle) + 1
        if cut <= lo:
            cut = data.find(b"\n", middle, hi) + 1
        if cut <= lo or cut >= hi:
            break
        if _refused(pd, data[lo:cut], fmt):
            hi = cut
        else:
            lo = cut
    line = data[lo:hi].split(b"\n", 1)[0]
    problem = _diagnose(line, fmt) or f"the line could not be read ({cause})"
    raise ValueError(
        f"{name}, line {line_number(data, lo)}: {problem}. "
        f"A TREC {fmt.kind} line is: {' '.join(fmt.fields)}"
        f"{'' if fmt.exact else ' [ignored fields]'}."
    ) from None


def _refused(pd, data, fmt):
    if data.isspace():
        return False
    try:
        return not _valid(_read_with_pandas(pd, data, fmt), fmt)
    except _Unreadable:
        return True


def _diagnose(line, fmt):
    """What is wrong with one line, or None."""
    tokens = line.split()
    n = len(tokens)
    if n < len(fmt.fields) or fmt.exact and n > len(fmt.fields):
        need = "exactly" if fmt.exact else "at least"
        return f"{n} field{'s' * (n != 1)} where a {fmt.kind} line has {need} {len(fmt.fields)}"
    for field, column in fmt.columns:
        if field not in fmt.integers and field not in fmt.numbers:
            continue
        token = tokens[field].decode("utf-8", "replace")
        try:
            # Python also reads '1_0' and non-ASCII digits, which no TREC tool writes.
            value = float(token) if token.isascii() and "_" not in token else None
        except ValueError:
            value = None
        if value is None:
            return f"the {column} {token!r} is not a number"
        problem = number_problem(column, token, value, field in fmt.integers)
        if problem is not None:
            return problem
    return None


def check_duplicates(pd, frame, fmt, name):
    """Raise a ValueError naming a (query_id, doc_id) pair the frame holds twice."""
    queries, _ = frame_query_codes(pd, frame["query_id"])
    docs, unique_docs = pd.factorize(hashable(frame["doc_id"]))
    check_pairs(frame, fmt, name, queries, docs, len(unique_docs))


def check_pairs(frame, fmt, name, queries, docs, n_docs):
    """:func:`check_duplicates` on codes already computed: ``docs`` into ``n_docs`` ids."""
    if len(frame) < 2:
        return
    # Only documents that appear more than once can repeat a pair.
    repeated = np.bincount(docs, minlength=n_docs)[docs] > 1
    if not repeated.any():
        return  # every doc_id once in the file
    repeated = np.flatnonzero(repeated)
    keys = queries[repeated].astype(np.int64) * n_docs + docs[repeated]
    # An unstable sort finds whether a pair repeats; the stable one below names it.
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    row = repeated[order[same[0]]]
    query_id, doc_id = plain(frame["query_id"].iat[row]), plain(frame["doc_id"].iat[row])
    count = int((keys == keys[order[same[0]]]).sum())
    fix = "Keep one line per pair, e.g. with frame.drop_duplicates(['query_id', 'doc_id'])."
    if frame.attrs.get("nested"):  # a dict's keys are distinct, their text may not be
        fix = "Ids are compared as text: keys such as 1 and '1' of a dict are one id."
    raise ValueError(
        f"{name}: the pair (query_id={query_id!r}, doc_id={doc_id!r}) appears {count} times "
        f"in the {fmt.kind}; each document may appear once per query (trec_eval stops with "
        f"'duplicate docs'). {fix}"
    )


def first_missing(values):
    """The position of the first missing value (None, NaN, NA) of a Series, or None."""
    missing = values.isna().to_numpy(dtype=bool)
    return int(np.argmax(missing)) if missing.any() else None
