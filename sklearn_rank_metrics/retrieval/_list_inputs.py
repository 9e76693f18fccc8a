"""The inputs of the list measures, checked: item popularity, the short head, item vectors, history.

Each is checked only when a requested measure reads it; every item vector
becomes a unit vector (a row of a dense array or of a CSR matrix), so that
cosine similarities are dot products and sums of them are never an item x
item matrix.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .._engine.prepare._sparse import excluded_pairs, is_sparse
from .._engine.prepare._validation import numeric_array, plain


@dataclass(frozen=True)
class ListInputs:
    """What the list measures read, checked (None where no requested measure reads it)."""

    n_items: int
    popularity: np.ndarray | None = None  # float64 (n_items,)
    head: np.ndarray | None = None  # bool (n_items,): the short head
    unit_vectors: object = None  # (n_items, d) float64 array or CSR matrix, unit (or zero) rows
    vectors_name: str = "item_vectors"
    history: object = None  # CSR (n_queries, n_items) of 0/1
    relevant: object = None  # Pairs of the relevant (query, item) cells, for serendipity
    exposure: object = "count"
    entropy_unit: str = "bits"
    query_weights: np.ndarray | None = None


def item_popularity_array(item_popularity, n_items):
    """``item_popularity`` as float64 ``(n_items,)``: finite numbers >= 0."""
    if np.asarray(item_popularity).dtype == np.bool_:
        raise TypeError(
            "item_popularity must count interactions (numbers >= 0), not booleans; pass the "
            "counts, e.g. train.sum(axis=0)."
        )
    popularity, _ = numeric_array(item_popularity, "item_popularity")
    if popularity.shape != (n_items,):
        hint = (
            " A sparse matrix's sum(axis=0) is (1, n_items): pass "
            "np.asarray(train.sum(axis=0)).ravel()."
            if popularity.shape == (1, n_items) else ""
        )
        raise ValueError(
            f"item_popularity must hold one number per item ({n_items}, the columns of "
            f"y_true), got shape {popularity.shape}.{hint}"
        )
    if popularity.shape[0] and popularity.min() < 0:
        item = int(np.argmin(popularity))
        raise ValueError(
            f"item_popularity of item {item} is {plain(popularity[item])}; popularity counts "
            "interactions and must be >= 0."
        )
    return popularity.astype(np.float64)


def short_head_mask(short_head, popularity):
    """The short head as a boolean mask: given as one, or the items taking a share of interactions.

    A share ``s`` in (0, 1]: the most popular items, by decreasing
    popularity (ties: lower item id first), up to and including the one at
    which their popularity reaches ``s`` of the total (Elliot's short head).
    """
    n_items = popularity.shape[0]
    if isinstance(short_head, (bool, np.bool_)) or not np.ndim(short_head):
        share = short_head
        if isinstance(share, (bool, np.bool_)) or not (
            isinstance(share, (int, float, np.number)) and 0 < share <= 1
        ):
            raise ValueError(
                f"short_head={share!r} is not valid; short_head must be a share of the "
                "interactions in (0, 1] (0.8: the most popular items that take 80% of "
                "them) or a boolean mask of the head items, one per item."
            )
        order = np.argsort(-popularity, kind="stable")
        taken = np.cumsum(popularity[order])
        total = taken[-1] if n_items else 0.0
        if total <= 0:
            raise ValueError(
                "item_popularity is all zeros: the short head, the most popular items, is "
                "undefined; pass the training interactions per item."
            )
        size = int(np.searchsorted(taken, share * total, side="left")) + 1
        head = np.zeros(n_items, dtype=bool)
        head[order[: min(size, n_items)]] = True
        return head
    head = np.asarray(short_head)
    if head.dtype != np.bool_ or head.shape != (n_items,):
        raise ValueError(
            f"short_head as a mask must be boolean, one per item ({n_items}), got dtype "
            f"{head.dtype} and shape {head.shape}; e.g. short_head=item_popularity > 10."
        )
    return head


def scaled_rows(matrix, scale):
    """Each row of a dense array or a CSR matrix (a new one) times its ``scale``."""
    if not sparse.issparse(matrix):
        return matrix * scale[:, None]
    scaled = sparse.csr_array(matrix, dtype=np.float64, copy=True)
    scaled.data *= np.repeat(scale, np.diff(scaled.indptr))
    return scaled


def _unit_rows(matrix):
    """``matrix`` (dense float64 or CSR) with every non-zero row scaled to length 1."""
    if sparse.issparse(matrix):
        matrix = sparse.csr_array(matrix, dtype=np.float64, copy=True)
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        squares = np.append(matrix.data**2, 0.0)
        norms = np.sqrt(np.add.reduceat(squares, matrix.indptr[:-1]) * (np.diff(matrix.indptr) > 0))
    else:
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    return scaled_rows(matrix, np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0))


def unit_item_vectors(item_vectors, item_categories, n_items, owner):
    """``(unit vectors, name)`` of the items, from ``item_vectors`` or ``item_categories``.

    Vectors: dense or sparse ``(n_items, d)``, compared by cosine.
    Categories: one int per item (>= 0; -1 for none), or a boolean or
    sparse multi-hot ``(n_items, n_categories)``, compared by the cosine of
    the items' category indicator vectors (1 for the same single category).
    """
    if (item_vectors is None) == (item_categories is None):
        raise ValueError(
            f"{owner}: ild and serendipity compare items by item_vectors (cosine) or by "
            "item_categories; give exactly one of them."
        )
    if item_vectors is not None:
        name = "item_vectors"
        if is_sparse(item_vectors):
            vectors = sparse.csr_array(item_vectors)
            if vectors.data.shape[0]:
                numeric_array(vectors.data, name)
        else:
            vectors, _ = numeric_array(item_vectors, name)
            vectors = vectors.astype(np.float64)
    else:
        name = "item_categories"
        if is_sparse(item_categories) or np.ndim(item_categories) == 2:
            if not is_sparse(item_categories) and np.asarray(item_categories).dtype != np.bool_:
                raise TypeError(
                    "item_categories as a matrix must be boolean (True: the item is in the "
                    f"category) or scipy.sparse, got dtype {np.asarray(item_categories).dtype}; "
                    "one category per item is a 1-D array (e.g. categories.ravel() of one "
                    "column), several a boolean (n_items, n_categories) matrix."
                )
            vectors = sparse.csr_array(item_categories)
            if vectors.dtype != np.bool_ and vectors.data.shape[0]:
                numeric_array(vectors.data, name)
            vectors = sparse.csr_array(vectors != 0, dtype=np.float64)
        else:
            categories, _ = numeric_array(item_categories, name)
            if categories.dtype.kind not in "iu" or (categories.size and categories.min() < -1):
                raise ValueError(
                    "item_categories as one category per item must hold integers >= 0 "
                    "(-1: no category); for several per item pass a boolean or sparse "
                    "(n_items, n_categories) matrix."
                )
            has = categories >= 0
            vectors = sparse.csr_array(
                (np.ones(int(has.sum())), (np.flatnonzero(has), categories[has])),
                shape=(categories.shape[0], int(categories.max(initial=-1)) + 1),
            )
    if vectors.ndim != 2 or vectors.shape[0] != n_items:
        raise ValueError(
            f"{name} must have one row per item ({n_items}, the columns of y_true), got "
            f"shape {vectors.shape}."
        )
    return _unit_rows(vectors), name


def check_nonzero(unit_vectors, items, name, where):
    """Raise, naming an item, where one of ``items`` has no direction (a zero vector)."""
    if sparse.issparse(unit_vectors):
        zero_items = np.diff(unit_vectors.indptr) == 0
    else:
        zero_items = ~unit_vectors.any(axis=1)
    zero = zero_items[items]
    if zero.any():
        item = plain(items[np.argmax(zero)])
        raise ValueError(
            f"{name} of item {item}, {where}, is all zeros: its cosine similarity to any "
            f"item is undefined ({int(zero.sum())} such item(s)); give it a vector (or a "
            "category), or leave it out of the lists."
        )


def history_matrix(history, shape):
    """``history`` (boolean or sparse ``(n_queries, n_items)``) as a 0/1 CSR matrix."""
    pairs = excluded_pairs(history, shape, name="history")
    rows, columns = np.divmod(pairs.keys, shape[1])
    return sparse.csr_array((np.ones(rows.shape[0]), (rows, columns)), shape=shape)
