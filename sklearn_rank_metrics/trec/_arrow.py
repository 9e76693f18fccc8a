"""pyarrow's CSV reader for the TREC files it reads exactly as pandas' reader does.

pyarrow splits on one delimiter character, so its table is used only for files
whose fields are separated by single spaces or single tabs, each line holding
exactly as many fields as the format names; the caller checks the values as it
checks pandas' and reads the file again with pandas on any doubt, so the two
paths give the same DataFrame and the same errors.
"""

import io

from .._engine._threads import thread_limit


def read_with_pyarrow(data, fmt, *, required):
    """A DataFrame of the fields by position, or None where pandas must read the file."""
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
    # One delimiter throughout; where another whitespace character is one too,
    # pyarrow would take it for part of a field.
    has_space, has_tab = b" " in data, b"\t" in data
    if has_space == has_tab:
        return None
    names = [str(field) for field in range(len(fmt.fields))]
    numbers = {str(field) for field in (*fmt.integers, *fmt.numbers)}
    try:
        table = csv.read_csv(
            io.BytesIO(data),
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
                column_types={
                    name: pa.float64() if name in numbers else pa.string() for name in names
                },
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
        if name not in numbers and pc.any(pc.equal(table[name], "")).as_py():
            return None
    kept = [str(field) for field, _ in fmt.columns]
    frame = table.select(kept).to_pandas()
    frame.columns = [int(name) for name in frame.columns]
    return frame
