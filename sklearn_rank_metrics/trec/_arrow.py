"""pyarrow's CSV reader for the TREC files it reads exactly as pandas' reader does.

pyarrow splits on one delimiter character, so its table is used only for files
whose fields are separated by single spaces or single tabs, each line holding
exactly as many fields as the format names, none empty (counted on the bytes:
fields no caller needs are split but never materialized); the values are
checked as pandas' are, and on any doubt :class:`~._format.NeedsDataFramePath`
sends the file to pandas, so the two paths give the same values and the same
errors.

:func:`read_table` gives the readers (:mod:`._read`) pyarrow's table of a
file; :func:`read_arrow_columns` gives the join on codes (:mod:`._coded`) the
fields ``evaluate_run`` needs as Arrow and NumPy arrays, with no Python object
per line. :func:`numpy_values`, :func:`arrow_positions` and
:func:`take_strings` move arrays between Arrow and NumPy without pandas.
"""

from concurrent.futures import Future

import numpy as np

from ._files import contains, normalize
from ._format import NeedsDataFramePath, valid_values


def pyarrow_modules(required):
    """``(pyarrow, pyarrow.compute, pyarrow.csv)``; pyarrow is optional.

    Without pyarrow: an ImportError naming the extra where it is
    ``required`` (``engine="pyarrow"``), else :class:`NeedsDataFramePath`.
    """
    try:
        # Imported on first use: pyarrow is an optional dependency.
        import pyarrow as pa
        import pyarrow.compute as pc
        from pyarrow import csv
    except ImportError as exc:
        if required:
            raise ImportError(
                "engine='pyarrow' needs pyarrow: pip install 'sklearn-rank-metrics[trec]'."
            ) from exc
        raise NeedsDataFramePath("pyarrow is not installed") from exc
    return pa, pc, csv


def read_table(modules, data, fmt, fields, pool, name=None):
    """pyarrow's table of the ``fields`` of ``fmt`` (indexes).

    Strings are ``string`` (UTF-8, checked), numbers float64, integers too
    (as pandas reads them: pyarrow's integer parser would take ``0x10`` for
    16; the caller checks they are integers). A line of another number of
    fields, a field pyarrow cannot convert, or an empty field anywhere
    (two delimiters in a row, one at a line's start or end, which pandas'
    whitespace separator reads otherwise) raises :class:`NeedsDataFramePath`.
    Fields not asked for are split but never converted or copied.

    With ``name`` (the file's), ``data`` are the bytes as read: most files
    need no :func:`~._files.normalize`, which is checked on a helper thread
    while pyarrow parses them, the empty fields counted there too; bytes
    that normalizing changes are normalized and parsed again, and a NUL byte
    raises, naming the file. The helper thread is one of ``pool``'s, the
    call's threads (None: the call may use one only, and pyarrow too).
    """
    helper = _InCallingThread() if pool is None else pool
    if name is not None:
        normalized = helper.submit(normalize, data, name)
        if normalized.done() and normalized.result() is not data:
            return read_table(modules, normalized.result(), fmt, fields, pool)
    delimiter, table = _delimiter(data), None
    if delimiter is not None:
        tokens = helper.submit(_token_count, data, delimiter)
        table = _parse(modules, data, fmt, fields, delimiter, pool is not None)
    if name is not None and normalized.result() is not data:
        return read_table(modules, normalized.result(), fmt, fields, pool)
    if delimiter is None:
        raise NeedsDataFramePath("the fields are not separated by single spaces or tabs")
    if table is None:
        raise NeedsDataFramePath("pyarrow's reader refused a line")
    # Every row has len(fmt.fields) fields: as many tokens exactly when none
    # is empty (and none when the other whitespace character appears).
    if tokens.result() != len(fmt.fields) * table.num_rows:
        raise NeedsDataFramePath("a line has an empty field, or both spaces and tabs")
    return table


class _InCallingThread:
    """An executor that runs each task at once, in the calling thread."""

    def submit(self, function, *args):
        future = Future()
        try:
            future.set_result(function(*args))
        except Exception as exc:  # raised again by future.result(), as a thread's would be
            future.set_exception(exc)
        return future


def _delimiter(data):
    """The whitespace character between fields: the first space or tab of the data, or None.

    pyarrow splits on one delimiter; where the other whitespace character is
    one too, it would take it for part of a field, so :func:`_token_count`
    checks that it appears nowhere (on the helper thread: the data are
    scanned to their end there, not here).
    """
    space = data.find(b" ")
    if data.find(b"\t", 0, len(data) if space < 0 else space) >= 0:
        return b"\t"
    return None if space < 0 else b" "


def _parse(modules, data, fmt, fields, delimiter, use_threads):
    """pyarrow's CSV reader on ``data``, or None where it refuses a line.

    The caller decides: bytes that need normalizing are parsed again, others
    go to pandas.

    ``use_threads``: on Arrow's own thread pool (as many threads as CPUs).
    """
    pa, pc, csv = modules
    names = [str(field) for field in range(len(fmt.fields))]
    types = {str(field): pa.float64() for field in (*fmt.integers, *fmt.numbers)}
    kept = [str(field) for field in fields]
    try:
        return csv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),
            read_options=csv.ReadOptions(
                column_names=names, use_threads=use_threads, block_size=1 << 24
            ),
            parse_options=csv.ParseOptions(
                delimiter=delimiter.decode(),
                quote_char=False,
                escape_char=False,
                ignore_empty_lines=True,
            ),
            convert_options=csv.ConvertOptions(
                column_types={name: types.get(name, pa.string()) for name in kept},
                include_columns=kept,
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowException:
        return None  # a line of another number of fields, a field not a number, ...


def _token_count(data, delimiter):
    """How many tokens separated by ``delimiter`` and newlines ``data`` holds; -1 with the other.

    A token starts where a separator is followed by another byte (or the
    data starts with one); counted block by block, a megabyte at a time.
    -1 where the other whitespace character (tab for space, space for tab)
    appears, which pyarrow would read as part of a field.
    """
    if contains(data, b"\t" if delimiter == b" " else b" "):
        return -1
    data = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    # separator[0]: whether the byte before the block separates (the data's start does).
    separator = np.ones(min(step, data.shape[0]) + 1, dtype=bool)
    newline = np.empty(separator.shape[0] - 1, dtype=bool)
    count = 0
    for start in range(0, data.shape[0], step):
        block = data[start : start + step]
        size = block.shape[0]
        np.equal(block, delimiter[0], out=separator[1 : size + 1])
        np.equal(block, ord("\n"), out=newline[:size])
        separator[1 : size + 1] |= newline[:size]
        count += np.count_nonzero(separator[:size] > separator[1 : size + 1])
        separator[0] = separator[size]
    return count


def numpy_values(array):
    """A NumPy array of an Arrow array without nulls (chunked: the chunks concatenated).

    Numbers are views of the Arrow memory (read-only), booleans unpacked
    from their bits, strings an object array of Python strings. pyarrow's
    own ``to_numpy`` initialises its pandas support, importing pandas:
    half a second that the ``rank-eval`` command does not pay.
    """
    chunks = getattr(array, "chunks", None)
    if chunks is not None:
        parts = [numpy_values(chunk) for chunk in chunks]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.zeros(0, _numpy_type(array.type))
    if array.null_count:
        raise ValueError("numpy_values takes arrays without nulls")
    kind = _numpy_type(array.type)
    if kind is object:
        return np.array(array.to_pylist(), dtype=object)
    data = array.buffers()[1]
    if kind is bool:
        bits = np.frombuffer(data, dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little")[array.offset : array.offset + len(array)].view(
            bool
        )
    itemsize = np.dtype(kind).itemsize
    return np.frombuffer(data, dtype=kind, count=len(array), offset=array.offset * itemsize)


def _numpy_type(arrow_type):
    import pyarrow as pa  # optional: only Arrow arrays, made by pyarrow, come here

    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return object
    if pa.types.is_boolean(arrow_type):
        return bool
    return np.dtype(arrow_type.to_pandas_dtype()).type


def read_arrow_columns(data, fmt, name, pool):
    """``{column: values}`` of the columns ``evaluate_run`` needs.

    ``data``: the bytes of the file ``name`` as read (normalized here where
    they need it); ``pool``: the call's threads (None for one). The ids stay
    Arrow string arrays (chunked, no Python object per line); numbers are
    NumPy arrays, integers int64. Every value is checked as
    :func:`~._read.read_table` checks pandas' (integers up to 2**53, finite
    numbers), chunk by chunk; :class:`NeedsDataFramePath` sends the file to
    that reader, which reads it or names its first malformed line.
    """
    modules = pyarrow_modules(False)
    if not data:
        raise NeedsDataFramePath("the file is empty")
    numbered = (*fmt.integers, *fmt.numbers)
    fields = [field for field, column in fmt.columns if column in fmt.evaluated or field in numbered]
    table = read_table(modules, data, fmt, fields, pool, name)
    if not table.num_rows:
        raise NeedsDataFramePath("the file has no line")
    for field in numbered:  # the rank too, which the caller does not get
        for chunk in table[str(field)].chunks:
            if not valid_values(numpy_values(chunk), field in fmt.integers):
                raise NeedsDataFramePath(f"a {fmt.fields[field]} is not a valid number")
    columns = {}
    for field, column in fmt.columns:
        if column not in fmt.evaluated:
            continue
        values = table[str(field)]
        if field in numbered:
            values = numpy_values(values).astype(
                np.int64 if field in fmt.integers else np.float64, copy=False
            )
        columns[column] = values
    return columns


def take_strings(pc, column, order):
    """``column[order]`` of an Arrow column, ``order`` a NumPy array of positions (or None)."""
    return column if order is None else pc.take(column, arrow_positions(order))


def arrow_positions(positions):
    """A NumPy array of positions as an Arrow int64 array, sharing its memory.

    Handed a NumPy array, pyarrow imports pandas (to check whether it is a
    pandas object): half a second that the ``rank-eval`` command does not pay.
    """
    import pyarrow as pa  # optional: only the Arrow path, which has it, comes here

    positions = np.ascontiguousarray(positions, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), positions.shape[0], [None, pa.py_buffer(positions)])
