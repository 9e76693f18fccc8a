"""Query x item matrices held as pairs: sparse labels and the pairs a ranking leaves out.

A recommender's test interactions (``y_true``) and its training
interactions (``exclude``) are (n_queries, n_items) matrices that are almost
all zeros: a scipy.sparse matrix, or a dense array. Both are read here into
:class:`Pairs`, their stored cells as sorted int64 keys ``row * n_items +
column`` with a value each, so that the labels of any (query, item) pairs are
found with one ``searchsorted`` and a strip of queries is a contiguous slice.
Nothing here ranks: :mod:`._top_k` selects the ranked items and looks their
labels up here.
"""

from dataclasses import dataclass

import numpy as np

from ._validation import numeric_array, plain


def is_sparse(values):
    """Whether ``values`` is a scipy.sparse matrix or array."""
    return type(values).__module__.startswith("scipy.sparse")


@dataclass(frozen=True)
class Pairs:
    """The stored cells of an (n_queries, n_items) matrix, in row-major order.

    Attributes
    ----------
    keys : ndarray of int64
        ``row * n_items + column`` of every stored cell, strictly increasing.
    values : ndarray
        The value of each cell (labels: numeric, >= 0; a mask: all True).
    shape : tuple of int
        ``(n_queries, n_items)``.
    """

    keys: np.ndarray
    values: np.ndarray
    shape: tuple

    @property
    def n_items(self):
        return self.shape[1]

    def rows(self):
        """The row (query) of every stored cell."""
        return self.keys // self.n_items

    def row_bounds(self, first, stop):
        """``(start, end)``: the slice of the cells of rows ``first .. stop - 1``."""
        bounds = np.searchsorted(self.keys, np.array([first, stop]) * self.n_items)
        return int(bounds[0]), int(bounds[1])

    def find(self, keys):
        """``(where, found)``: per key of ``keys``, its position among the stored cells, and
        whether it is one (``where`` is meaningless where not found)."""
        if not self.keys.shape[0]:
            return np.zeros(keys.shape, dtype=np.intp), np.zeros(keys.shape, dtype=bool)
        where = np.minimum(np.searchsorted(self.keys, keys), self.keys.shape[0] - 1)
        return where, self.keys[where] == keys

    def contains(self, keys):
        """Per key of ``keys``: whether it is a stored cell."""
        return self.find(keys)[1]

    def lookup(self, keys, fill, found=None):
        """The values of the cells ``keys``; ``fill`` where a cell is not stored.

        ``found``: :meth:`find`'s answer for ``keys``, where the caller has it.
        """
        where, found = self.find(keys) if found is None else found
        values = np.full(keys.shape, fill, dtype=self.values.dtype)
        values[found] = self.values[where[found]]
        return values

    def name(self, key):
        """``(query, item)`` of the cell ``key``, as Python ints for messages."""
        return plain(key // self.n_items), plain(key % self.n_items)


def _increasing(keys):
    """Whether ``keys`` are strictly increasing (sorted, each once)."""
    return bool((keys[1:] > keys[:-1]).all())


def _coordinates(matrix):
    """``(rows, columns, values)`` of a scipy.sparse matrix's stored cells, as given.

    A CSR matrix's rows come from its row pointers, without a COO copy.
    """
    if matrix.format == "csr":
        indptr = np.asarray(matrix.indptr)
        rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(indptr))
        return rows, np.asarray(matrix.indices), np.asarray(matrix.data)
    coo = matrix.tocoo()
    return np.asarray(coo.row), np.asarray(coo.col), np.asarray(coo.data)


def _sorted_pairs(rows, columns, values, shape, name):
    """:class:`Pairs` of the cells ``(rows, columns)``; a cell given twice raises, naming it."""
    keys = rows.astype(np.int64) * shape[1] + columns.astype(np.int64)
    if not _increasing(keys):  # a canonical CSR matrix's cells come in order: no sort
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
    twice = np.flatnonzero(keys[1:] == keys[:-1])
    if twice.shape[0]:
        query, item = plain(keys[twice[0]] // shape[1]), plain(keys[twice[0]] % shape[1])
        raise ValueError(
            f"{name} stores {twice.shape[0]} cell(s) twice, e.g. row {query}, column {item}: "
            f"a sparse matrix in that state would add them up. Sum or drop the duplicates "
            f"first ({name}.sum_duplicates() adds them)."
        )
    return Pairs(keys, values, shape)


def label_pairs(y_true, shape=None):
    """The labels of a 2-D ``y_true``, sparse or dense, as :class:`Pairs` of its non-zero cells.

    Labels must be finite numbers >= 0; implicit zeros (and stored zeros)
    are not relevant. ``shape``: the shape ``y_score`` has, which a sparse
    ``y_true`` must have too.
    """
    if is_sparse(y_true):
        if len(y_true.shape) != 2:
            raise ValueError(f"sparse y_true must be 2-D (queries x items), got {y_true.shape}.")
        rows, columns, values = _coordinates(y_true)
        if values.shape[0]:
            values, _ = numeric_array(values, "y_true")
    else:
        dense, _ = numeric_array(y_true, "y_true")
        if dense.ndim != 2:
            raise ValueError(
                "y_true must be 2-D (one query per row, one column per item) with exclude, "
                f"top_items or item vectors; got shape {dense.shape}."
            )
        rows, columns = np.nonzero(dense)
        values = dense[rows, columns]
    shape = tuple(int(n) for n in y_true.shape) if shape is None else shape
    if tuple(y_true.shape) != tuple(shape):
        raise ValueError(
            f"y_true has shape {tuple(y_true.shape)} but the scores are of shape {tuple(shape)}: "
            "one row per query and one column per item in both."
        )
    if values.shape[0] and values.min() < 0:
        where = int(np.argmin(values))
        raise ValueError(
            f"y_true holds negative labels, e.g. {plain(values[where])} at row "
            f"{plain(rows[where])}, column {plain(columns[where])}; labels must be >= 0 "
            "(0 = not relevant, higher = more relevant)."
        )
    stored = values != 0
    return _sorted_pairs(rows[stored], columns[stored], values[stored], shape, "y_true")


def excluded_pairs(exclude, shape, name="exclude"):
    """The cells a boolean or sparse ``exclude`` mask marks, as :class:`Pairs` (values True).

    ``name``: the argument, in errors (``history`` is such a mask too).

    A sparse mask excludes its stored non-zero cells (training interaction
    counts will do); a dense one must be boolean, of the scores' shape.
    """
    if tuple(getattr(exclude, "shape", ())) != tuple(shape):
        raise ValueError(
            f"{name} must be a boolean or sparse mask of shape {tuple(shape)} (queries x "
            f"items, like the scores), got shape {getattr(exclude, 'shape', None)}."
        )
    if is_sparse(exclude):
        rows, columns, values = _coordinates(exclude)
        marked = values != 0
        rows, columns = rows[marked], columns[marked]
    else:
        mask = np.asarray(exclude)
        if mask.dtype != np.bool_:
            raise TypeError(
                f"{name} must be a boolean mask (or a scipy.sparse matrix), got dtype "
                f"{mask.dtype}; pass {name} != 0 for a matrix of interaction counts."
            )
        rows, columns = np.nonzero(mask)
    keys = rows.astype(np.int64) * shape[1] + columns.astype(np.int64)
    if not _increasing(keys):
        # Stored twice in a sparse mask means excluded all the same: keep each cell once.
        # (A sort and a look at neighbours: np.unique of integers hashes, ~100x slower.)
        keys = np.sort(keys)
        keys = keys[np.append(True, keys[1:] != keys[:-1])]
    return Pairs(keys, np.ones(keys.shape, dtype=bool), tuple(shape))


def drop_leakage(labels, excluded, leakage):
    """``labels`` without the excluded cells: an error, or ``(labels, count dropped)``.

    A cell both labelled (relevant in y_true) and excluded is test data the
    model was trained on: an error giving the count, unless ``leakage`` is
    ``"exclude"``, which drops those cells from the labels (the caller warns).
    """
    if excluded is None or not excluded.keys.shape[0]:
        return labels, 0
    both = excluded.contains(labels.keys)
    count = int(both.sum())
    if not count:
        return labels, 0
    if leakage != "exclude":
        query, item = labels.name(labels.keys[np.argmax(both)])
        raise ValueError(
            f"{count} (query, item) pair(s) are both labelled in y_true and excluded, e.g. "
            f"row {query}, column {item}: train/test leakage, the held-out interaction is "
            "also a training one. Remove those pairs from one of the two, or pass "
            "leakage='exclude' to drop them from y_true (a warning counts them)."
        )
    return Pairs(labels.keys[~both], labels.values[~both], labels.shape), count
