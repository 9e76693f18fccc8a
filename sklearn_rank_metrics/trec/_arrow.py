"""pyarrow's CSV reader for the TREC files it reads exactly as pandas' reader does.

pyarrow splits on one delimiter character, so it is used only for files whose
fields are separated by single spaces or single tabs, each line holding exactly
as many fields as the format names; the caller checks the values as it checks
pandas' and reads the file again with pandas on any doubt, so the two paths
give the same DataFrame and the same errors.
"""

import io

import numpy as np

from .._engine._threads import thread_limit


def read_with_pyarrow(data, fmt, *, required):
    """A DataFrame of the fields by position, or None where pandas must read the file."""
    try:
        import pyarrow as pa
        from pyarrow import csv
    except ImportError as exc:
        if required:
            raise ImportError(
                "engine='pyarrow' needs pyarrow: pip install 'sklearn-rank-metrics[trec]'."
            ) from exc
        return None
    delimiter = _single_delimiter(data)
    if delimiter is None:
        return None
    names = [str(field) for field in range(len(fmt.fields))]
    kept = [str(field) for field, _ in fmt.columns]
    numbers = {str(field) for field in (*fmt.integers, *fmt.numbers)}
    try:
        table = csv.read_csv(
            io.BytesIO(data),
            read_options=csv.ReadOptions(
                column_names=names, use_threads=thread_limit() > 1, block_size=1 << 24
            ),
            parse_options=csv.ParseOptions(
                delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=True
            ),
            convert_options=csv.ConvertOptions(
                include_columns=kept,
                column_types={
                    name: pa.float64() if name in numbers else pa.string() for name in kept
                },
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowException):
        return None
    frame = table.to_pandas()
    frame.columns = [int(name) for name in frame.columns]
    return frame


def _single_delimiter(data):
    """" " or "\\t" when every field ends at exactly one of them, else None."""
    buf = np.frombuffer(data, dtype=np.uint8)
    space, tab = buf == ord(" "), buf == ord("\t")
    has_space, has_tab = bool(space.any()), bool(tab.any())
    if has_space == has_tab:  # both (mixed or padded) or neither (one field a line)
        return None
    delimiter = space if has_space else tab
    newline = buf == ord("\n")
    # A delimiter at a line's start or end, or two in a row, makes an empty field.
    after = delimiter[1:] & (delimiter[:-1] | newline[:-1])
    before = delimiter[:-1] & newline[1:]
    if delimiter[0] or delimiter[-1] or after.any() or before.any():
        return None
    return " " if has_space else "\t"
