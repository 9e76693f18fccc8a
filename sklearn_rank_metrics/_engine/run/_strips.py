"""Score matrices, strip by strip: the run under sparse labels, excluded items and embeddings.

A query x item score matrix (a recommender's scores, or similarities a
front-end computes block by block from vectors) is evaluated in *strips* of
consecutive queries: each strip's excluded cells are set to ``-inf``, its
heads selected (``prepare/_top_k.py``: the top ``k`` with the tie block at
the cut, when every measure is cut; every cell otherwise), its labelled
items added, and the plain run evaluates that flat ranking. A query's values
never depend on the other queries of a run, so the strips' results,
concatenated, are the results of the whole matrix; the working set is one
strip, whatever the number of queries.
"""

from dataclasses import dataclass

import numpy as np

from ..prepare._sparse import drop_leakage, excluded_pairs, label_pairs
from .._threads import call_threads
from ..prepare._top_k import (
    STRIP_SCORES,
    Heads,
    head_cells,
    scored_strip_rows,
    strip_input,
    strip_rows,
)
from ..prepare._validation import as_array_like, numeric_array
from ..spec import head_cutoff
from ._finalize import concatenated, first_queries
from ._run import evaluate_plain


@dataclass(frozen=True)
class MatrixLabels:
    """What a score matrix is evaluated against.

    ``labels``: the :class:`~..prepare._sparse.Pairs` of y_true, excluded
    cells dropped; ``excluded``: the excluded cells' Pairs, or None;
    ``query_weights``: one weight per query (row), or None.
    """

    labels: object
    excluded: object = None
    query_weights: np.ndarray | None = None


def mask_excluded(scores, excluded, first_row):
    """Set the strip's excluded cells to ``-inf``; how many each row has (None: no mask)."""
    if excluded is None:
        return None
    n_rows, n_items = scores.shape
    start, end = excluded.row_bounds(first_row, first_row + n_rows)
    keys = excluded.keys[start:end]
    rows = keys // n_items - first_row
    scores[rows, keys % n_items] = -np.inf
    return np.bincount(rows, minlength=n_rows)


def evaluate_strips(requests, matrix, strips, options, *, owner="evaluate", on_heads=None):
    """The :class:`RunResults` of ``requests`` on a score matrix given as ``strips``.

    ``matrix``: a :class:`MatrixLabels`. ``strips`` yields ``(first_row,
    scores)``: consecutive blocks of rows covering the matrix, each a float
    array the strip may write (the caller's copy). ``on_heads``, where
    given, is ``(k, see)``: each strip's heads cover at least the top ``k``
    and ``see(first_row, scores, heads)`` sees them (to return the top
    items). Without ``requests`` only the heads are seen, and the result is
    None. ``owner`` names the caller in errors.
    """
    k = head_cutoff(requests) if requests else on_heads[0]
    if on_heads is not None:
        k = None if k is None else max(k, on_heads[0])
    parts = []
    with call_threads(STRIP_SCORES) as (pool, n_threads):
        for first_row, scores in strips:
            n_excluded = mask_excluded(scores, matrix.excluded, first_row)
            heads = strip_heads(scores, k, n_excluded, first_row, (pool, n_threads, owner))
            if on_heads is not None:
                on_heads[1](first_row, scores, heads)
            if requests:
                data = _strip_input(scores, heads, matrix, first_row)
                results = evaluate_plain(requests, data, options)
                parts.append(first_queries(results, scores.shape[0]))
    return concatenated(parts) if requests else None


def _strip_input(scores, heads, matrix, first_row):
    """The flat ranking of one strip: its heads, and its labelled items below them."""
    rows = scored_strip_rows(scores, heads, matrix.labels, first_row)
    weights = matrix.query_weights
    if weights is not None:
        weights = weights[first_row : first_row + scores.shape[0]]
    return strip_input(rows, first_row, scores.shape[0], weights)


def strip_heads(scores, k, n_excluded, first_row, threads):
    """:func:`head_cells` of a strip, its rows shared among the call's threads.

    ``threads``: ``(pool, n_threads, owner)``. NumPy's selection releases
    the interpreter, so the row blocks are selected in parallel; the heads
    are those of the whole strip, in the same order.
    """
    pool, n_threads, owner = threads
    n_rows = scores.shape[0]
    if pool is None or n_rows < 2 * n_threads:
        return head_cells(scores, k, n_excluded, first_row=first_row, owner=owner)
    bounds = np.linspace(0, n_rows, n_threads + 1).astype(np.int64)

    def select(start, stop):
        excluded = None if n_excluded is None else n_excluded[start:stop]
        return head_cells(
            scores[start:stop], k, excluded, first_row=first_row + start, owner=owner
        )

    parts = list(pool.map(select, bounds[:-1], bounds[1:]))
    return Heads(
        np.concatenate([part.rows + start for part, start in zip(parts, bounds)]),
        np.concatenate([part.columns for part in parts]),
        np.concatenate([part.valid for part in parts]),
    )


def matrix_labels(y_true, shape, exclude=None, leakage="raise", query_weights=None):
    """``(MatrixLabels, n_dropped)`` of a 2-D ``y_true`` (sparse or dense) and ``exclude``.

    ``shape``: the score matrix's. ``n_dropped``: the labelled cells
    ``leakage="exclude"`` dropped because they are excluded too (the caller
    warns); with ``leakage="raise"`` such cells raise.
    """
    labels = label_pairs(y_true, shape)
    excluded = None if exclude is None else excluded_pairs(exclude, shape)
    labels, n_dropped = drop_leakage(labels, excluded, leakage)
    return MatrixLabels(labels, excluded, query_weights), n_dropped


def float_scores(y_score, name="y_score"):
    """A 2-D score matrix validated (numeric, finite), and the float dtype its strips take.

    Floats keep their precision (float32 stays float32); integers and
    booleans are compared as float64, exactly while they are below 2**53.
    """
    scores, (low, high) = numeric_array(as_array_like(y_score, name), name, ranks_only=True)
    if scores.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (one query per row, one column per item) with a sparse "
            f"y_true or exclude, got shape {scores.shape}."
        )
    if scores.dtype.kind == "f":
        return scores, np.dtype(np.float32 if scores.dtype.itemsize <= 4 else np.float64)
    if max(abs(int(low)), abs(int(high))) > 2**53:
        raise ValueError(
            f"{name} holds integers beyond 2**53, which the selection of each query's top "
            "items compares as float64 and could tie; pass scores float64 holds exactly, "
            "e.g. their ranks."
        )
    return scores, np.dtype(np.float64)


def matrix_strips(scores, dtype, k=None):
    """``(first_row, strip)`` of a 2-D score array: float copies of consecutive row blocks.

    ``k``: the cutoff the strips' heads are selected at (None: whole rows).
    """
    step = strip_rows(scores.shape[1], dtype.itemsize, k)
    for first_row in range(0, scores.shape[0], step):
        yield first_row, np.array(scores[first_row : first_row + step], dtype=dtype)
