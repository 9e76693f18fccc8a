"""Relevance labels as small integer codes into their sorted distinct values.

:func:`code_labels` maps relevance labels to uint8/uint16 codes into their
sorted distinct values, or leaves them to be coded chunk by chunk when there
are more distinct values than a uint16 holds (:class:`LabelCodes`). Work is
done in blocks of rows so temporaries stay small; no table is sized by a
label value beyond 65,536 entries.
"""

from dataclasses import dataclass

import numpy as np

from ._arrays import BLOCK, remap, row_blocks

# Labels with more distinct values than this are coded per chunk of queries.
MAX_CODED_LABELS = (1 << 16) - 1


@dataclass(frozen=True)
class LabelCodes:
    """Labels as codes into their sorted distinct values.

    ``values[codes] == labels``. Both are None when the labels have more
    than ``MAX_CODED_LABELS`` distinct values: they are then coded chunk by
    chunk of queries, from the ranked labels. ``top`` is the largest label.
    """

    codes: np.ndarray | None
    values: np.ndarray | None
    top: float
    # float64, or the labels' integer dtype where float64 would merge some of them
    value_dtype: np.dtype = np.dtype(np.float64)


# Integers from 2**53 on may differ by less than float64's spacing.
_FLOAT_EXACT_INTEGERS = float(2**53)


def label_value_dtype(labels, top):
    """The dtype label values are compared in: the labels' own integers from 2**53 on, else float64.

    Relevance (label >= relevance_level) is then exact for integers float64
    would round (2**53 + 1 and 2**53 are distinct labels); gains are float64
    either way.
    """
    if labels.dtype.kind in "iu" and top >= _FLOAT_EXACT_INTEGERS:
        return labels.dtype
    return np.dtype(np.float64)


def _compact(codes, counts):
    """Renumber codes so that only the values that occur have a code."""
    present = counts > 0
    if present.all():
        return codes, np.arange(present.shape[0], dtype=np.float64)
    new_code = np.cumsum(present, dtype=codes.dtype) - 1
    return remap(codes, new_code, codes.dtype), np.flatnonzero(present).astype(np.float64)


def _small_integer_codes(labels, top, bottom=0):
    """Codes ``label - bottom`` of whole-number labels in ``[bottom, top]``, or None.

    None if some labels are fractional; ``top - bottom`` must be below 65536.
    """
    top -= bottom
    dtype = np.uint8 if top < 256 else np.uint16
    if labels.dtype == dtype and not bottom:
        codes = labels
    else:
        codes = np.empty(labels.shape[0], dtype=dtype)
        for start, stop in row_blocks(labels.shape[0]):
            block = labels[start:stop]
            if bottom:
                block = block - block.dtype.type(bottom)  # in their dtype: exact, >= 0
            np.copyto(codes[start:stop], block, casting="unsafe")
            if block.dtype.kind == "f" and not np.array_equal(codes[start:stop], block):
                return None
    counts = np.zeros(top + 1, dtype=np.int64)
    for start, stop in row_blocks(codes.shape[0]):
        counts += np.bincount(codes[start:stop], minlength=top + 1)
    return _compact(codes, counts)


def _distinct_values(labels):
    """Sorted distinct labels, or None if there are more than ``MAX_CODED_LABELS``."""
    values = np.unique(labels[:BLOCK])
    for start, stop in row_blocks(labels.shape[0]):
        block = labels[start:stop]
        position = np.minimum(np.searchsorted(values, block), values.shape[0] - 1)
        missing = block[values[position] != block]
        if missing.shape[0]:
            values = np.union1d(values, missing)
            if values.shape[0] > MAX_CODED_LABELS:
                return None
    return values


def code_labels(labels, top=None, bottom=0):
    """Code relevance labels (validated: numeric, finite) as :class:`LabelCodes`.

    ``top``, the largest label, saves a pass when known; ``bottom`` is the
    smallest possible label (negative for the unjudged documents of a TREC run).
    """
    exact_top = labels.max() if top is None else top
    top = float(exact_top)  # a float16 top overflows beside 2**16
    value_dtype = label_value_dtype(labels, top)
    if top < 1 << 16 and bottom >= 0:
        small = _small_integer_codes(labels, int(top))
        if small is not None:
            return LabelCodes(*small, top)
    elif labels.dtype.kind in "iu" and int(exact_top) - int(bottom) < 1 << 16:
        # Integers from a negative bottom (unjudged documents), or in a narrow range
        # far from 0: shifted to start at 0, shifted back exactly.
        codes, offsets = _small_integer_codes(labels, int(exact_top), int(bottom))
        values = offsets.astype(labels.dtype) + labels.dtype.type(bottom)
        return LabelCodes(codes, values.astype(value_dtype), top, value_dtype)
    values = _distinct_values(labels)
    if values is None:
        return LabelCodes(None, None, top, value_dtype)
    codes = np.empty(labels.shape[0], dtype=np.uint8 if values.shape[0] <= 256 else np.uint16)
    for start, stop in row_blocks(labels.shape[0]):
        codes[start:stop] = np.searchsorted(values, labels[start:stop])
    return LabelCodes(codes, values.astype(value_dtype), top, value_dtype)
