"""Array helpers that every preparation step and several kernels share.

The blocks of rows the blockwise loops work in (:func:`row_blocks`, on the
call's threads: :func:`map_blocks`), the dtype of codes
(:func:`code_dtype`), remapping codes without full-size temporaries
(:func:`remap`, :func:`narrowed`), the runs of equal keys
(:func:`run_starts`: query segments, tie blocks, label runs) and numbers
as NumPy makes them from lists (:func:`exact_numbers`).
"""

import numbers

import numpy as np

BLOCK = 1 << 16  # rows per block of the blockwise loops


def row_blocks(n, size=BLOCK):
    """``(start, stop)`` of the blocks of ``size`` rows that cover rows ``0 .. n - 1``."""
    return ((start, min(start + size, n)) for start in range(0, n, size))


def map_blocks(function, blocks, pool):
    """``[function(*block) for block in blocks]``, on the call's threads when there are some."""
    if pool is None:
        return [function(*block) for block in blocks]
    return list(pool.map(lambda block: function(*block), blocks))


def code_dtype(n_values):
    """The smallest signed dtype holding codes ``0 .. n_values - 1`` (int32 or int64)."""
    return np.int32 if n_values < 2**31 else np.int64


def remap(codes, mapping, dtype):
    """``mapping[codes]`` as ``dtype``, block by block (no full-size intp temporary)."""
    out = np.empty(codes.shape[0], dtype=dtype)
    for start, stop in row_blocks(codes.shape[0]):
        np.take(mapping, codes[start:stop], out=out[start:stop])
    return out


def narrowed(codes, dtype):
    """``codes.astype(dtype)``, block by block: no second full-size temporary."""
    if codes.dtype == dtype:
        return codes
    out = np.empty(codes.shape[0], dtype=dtype)
    for start, stop in row_blocks(codes.shape[0]):
        out[start:stop] = codes[start:stop]
    return out


def one_row_per_code(codes, n_codes):
    """A row index of each code ``0 .. n_codes - 1`` (codes all present)."""
    rows = np.empty(n_codes, dtype=np.intp)
    for start, stop in row_blocks(codes.shape[0]):
        rows[codes[start:stop]] = np.arange(start, stop)
    return rows


def run_starts(*sorted_keys, max_runs=None):
    """Indices where any of the keys changes from the row before, 0 included.

    The one way runs of equal values are found: query ids grouped by query,
    query segments, tie blocks, label runs. With ``max_runs``, None is
    returned when there are more runs, before any index array is allocated
    (an interleaved input would need one index per row).
    """
    n = sorted_keys[0].shape[0]
    change = np.empty(n, dtype=bool)
    change[:1] = True
    np.not_equal(sorted_keys[0][1:], sorted_keys[0][:-1], out=change[1:])
    for key in sorted_keys[1:]:
        change[1:] |= key[1:] != key[:-1]
    if max_runs is not None and np.count_nonzero(change) > max_runs:
        return None
    return np.flatnonzero(change)


# ------------------------------------------------- numbers as NumPy makes them
# float64 holds every integer up to this magnitude exactly.
_EXACT_FLOAT_INTEGERS = 2.0**53


def exact_numbers(source, floats):
    """``floats``, or the exact array of the numbers in ``source`` when ``floats`` rounds some.

    ``floats`` is NumPy's float64 conversion of ``source``, a list or an
    object array. NumPy turns a list mixing integers of 2**63 or more with
    negatives, or with floats, into float64, where integers beyond 2**53 may
    round: two query ids would merge, two scores tie. Only values of that
    magnitude are compared with the numbers they came from.

    Returns
    -------
    numbers : ndarray
        ``floats`` when it holds every number exactly; else an int64 or
        uint64 array when the numbers are integers one of them holds; else
        an object array of the numbers themselves (no numeric dtype holds
        them: the caller ranks them or raises).
    """
    if not floats.size or max(-floats.min(), floats.max()) < _EXACT_FLOAT_INTEGERS:
        return floats
    numbers_ = np.asarray(source, dtype=object)
    large = np.abs(floats) >= _EXACT_FLOAT_INTEGERS
    if (numbers_[large] == floats[large].astype(object)).all():
        return floats
    flat = numbers_.ravel().tolist()
    if all(isinstance(value, numbers.Integral) and not isinstance(value, bool) for value in flat):
        low, high = min(flat), max(flat)
        for dtype in (np.int64, np.uint64):
            limits = np.iinfo(dtype)
            if limits.min <= low and high <= limits.max:
                return np.asarray(numbers_, dtype=dtype)
    return numbers_
