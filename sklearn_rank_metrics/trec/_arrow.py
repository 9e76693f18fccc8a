"""pyarrow's CSV reader for the TREC files it reads exactly as pandas' reader does.

pyarrow splits on one delimiter character, so its table is used only for files
whose fields are separated by single spaces or single tabs, each line holding
exactly as many fields as the format names; the values are checked as pandas'
are, and on any doubt the file is read again with pandas, so the two paths
give the same values and the same errors.

:func:`read_with_pyarrow` gives the DataFrame of :func:`~._read.read_trec_run`
and :func:`~._read.read_trec_qrels`; :func:`read_arrow_columns` gives
:func:`~._evaluate.evaluate_run` the fields it needs as Arrow and NumPy arrays,
with no Python object per line.
"""

from .._engine._threads import thread_limit
from ._files import contains


def _pyarrow(required):
    """``(pyarrow, pyarrow.compute, pyarrow.csv)``, or None when pyarrow is not installed."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        from pyarrow import csv
    except ImportError as exc:
        if required:
            raise ImportError(
                "engine='pyarrow' needs pyarrow: pip install 'sklearn-rank-metrics[trec]'."
            ) from exc
        return None
    return pa, pc, csv


def _read_table(modules, data, fmt, integer_type):
    """pyarrow's table of every field of ``fmt`` by position, or None where pandas must read.

    Strings are ``string`` (UTF-8, checked), ``fmt.numbers`` float64 and
    ``fmt.integers`` of ``integer_type``; a field pyarrow cannot convert, or
    an empty string field, gives None.
    """
    pa, pc, csv = modules
    # One delimiter throughout; where another whitespace character is one too,
    # pyarrow would take it for part of a field.
    has_space, has_tab = contains(data, b" "), contains(data, b"\t")
    if has_space == has_tab:
        return None
    names = [str(field) for field in range(len(fmt.fields))]
    types = {str(field): integer_type for field in fmt.integers}
    types.update({str(field): pa.float64() for field in fmt.numbers})
    try:
        table = csv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),
            read_options=csv.ReadOptions(
                column_names=names, use_threads=thread_limit() > 1, block_size=1 << 24
            ),
            parse_options=csv.ParseOptions(
                delimiter=" " if has_space else "\t",
                quote_char=False,
                escape_char=False,
                ignore_empty_lines=True,
            ),
            convert_options=csv.ConvertOptions(
                column_types={name: types.get(name, pa.string()) for name in names},
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowException:
        return None  # a line of another number of fields, a field not a number, ...
    # Two delimiters in a row, or one at a line's start or end, make an empty
    # field (an empty number is refused above); pandas reads such lines.
    for name in names:
        if name not in types and pc.min(pc.binary_length(table[name])).as_py() == 0:
            return None
    return table


def read_with_pyarrow(data, fmt, *, required):
    """A DataFrame of the fields by position, or None where pandas must read the file."""
    modules = _pyarrow(required)
    if modules is None:
        return None
    table = _read_table(modules, data, fmt, modules[0].float64())
    if table is None:
        return None
    kept = [str(field) for field, _ in fmt.columns]
    frame = table.select(kept).to_pandas()
    frame.columns = [int(name) for name in frame.columns]
    return frame


def read_arrow_columns(data, fmt):
    """``{column: values}`` of the columns ``evaluate_run`` needs, or None where pandas must read.

    The ids stay Arrow string arrays (chunked, no Python object per line);
    numbers are NumPy arrays, integers int64. Every value is checked as
    :func:`~._read.read_table` checks pandas' (integers up to 2**53, finite
    numbers); None sends the file to that reader, which reads it or names its
    first malformed line.
    """
    from ._read import valid_numbers

    modules = _pyarrow(False)
    if modules is None or not data:
        return None
    table = _read_table(modules, data, fmt, modules[0].int64())
    if table is None or not table.num_rows:
        return None
    numbers = {field: table[str(field)].to_numpy() for field in (*fmt.integers, *fmt.numbers)}
    if not valid_numbers(fmt, numbers):
        return None
    return {
        column: numbers.get(field, table[str(field)])
        for field, column in fmt.columns
        if column in fmt.evaluated
    }
