"""How query ids reach scorers, splitters and :class:`QueryRanker`.

Two paths, shared by all three so that they behave alike:

- **metadata routing** (scikit-learn >= 1.4): ``qid`` is passed once, e.g.
  ``GridSearchCV(...).fit(X, y, qid=qid)``, and scikit-learn slices it for
  every fold. Our objects request ``qid`` by default, as ``GroupKFold``
  requests ``groups``, so no ``set_*_request`` call is needed.
- **a column of X** (``qid_column=``), which works with routing switched off:
  the query id travels with the rows through every split.

How the default request is declared: the scorer, a scikit-learn scorer
object, keeps it in ``_metadata_request``, the attribute from which every
release from 1.4 on reads a scorer's request (and where scikit-learn's own
``set_score_request`` stores one). ``QueryRanker`` and the splitters
declare it as ``GroupKFold`` declares ``groups``, with a class-level
``__metadata_request__<method>`` attribute. Overriding
``get_metadata_routing`` is not enough for them: scikit-learn 1.5 to 1.7
build the scorer of ``scoring=None`` from the estimator's request state
without calling it, while the class attribute is read by every release
from 1.4 on (and no private method of scikit-learn is overridden).
"""

import numpy as np
import sklearn
from sklearn.utils import _safe_indexing

from .._engine.prepare._factorize import factorize_query_ids
from .._engine.prepare._validation import as_array_like


def missing_qid_message(caller):
    """The error for a ranking step that received no query ids, with both fixes."""
    if sklearn.get_config()["enable_metadata_routing"]:
        routing_hint = (
            "Metadata routing is enabled, but qid did not arrive here: pass qid where the "
            "data enter, e.g. GridSearchCV(...).fit(X, y, qid=qid) or "
            "cross_validate(..., params={'qid': qid}), and do not switch the request "
            "off (set_score_request(qid=False), set_split_request(qid=False))."
        )
    else:
        routing_hint = (
            "Enable metadata routing with sklearn.set_config(enable_metadata_routing=True) "
            "and pass qid, e.g. GridSearchCV(...).fit(X, y, qid=qid) or "
            "cross_validate(..., params={'qid': qid})."
        )
    return (
        f"{caller} needs the query id of every row (qid) but got none; it will not "
        "treat all rows as one query, which would give a meaningless number. "
        f"{routing_hint} Alternatively, keep the query ids in a column of X and pass "
        "qid_column=<column> to make_rank_scorer(s), the splitter and QueryRanker."
    )


def column_position(X, qid_column):
    """Position of ``qid_column`` in X: an int as is, a name looked up in X.columns."""
    if isinstance(qid_column, str):
        columns = getattr(X, "columns", None)
        if columns is None:
            raise ValueError(
                f"qid_column={qid_column!r} is a column name, but X has no column names "
                f"({type(X).__name__}); pass a DataFrame or give the column's position "
                "as an int."
            )
        if qid_column not in columns:
            raise ValueError(f"qid_column={qid_column!r} is not a column of X.")
        position = columns.get_loc(qid_column)
        if not isinstance(position, (int, np.integer)):
            raise ValueError(f"qid_column={qid_column!r} names more than one column of X.")
        return int(position)
    if isinstance(qid_column, (bool, np.bool_)) or not isinstance(qid_column, (int, np.integer)):
        raise TypeError(
            "qid_column must be a column position (int) or a DataFrame column name "
            f"(str), got {qid_column!r}."
        )
    n_columns = X.shape[1]
    if not -n_columns <= qid_column < n_columns:
        raise ValueError(
            f"qid_column={qid_column} is out of range for X with {n_columns} columns."
        )
    return int(qid_column) % n_columns


def _as_2d(X):
    """X itself when it has a shape (arrays, sparse matrices, DataFrames), else an array."""
    X = X if hasattr(X, "shape") else np.asarray(X)
    if len(X.shape) != 2:
        raise ValueError(f"X must be 2-D to hold a query id column, got shape {X.shape}.")
    return X


def query_ids_from_column(X, qid_column):
    """The query id column of X as a 1-D array, checked to look like query ids."""
    X = _as_2d(X)
    position = column_position(X, qid_column)
    column = _safe_indexing(X, position, axis=1)
    if hasattr(column, "toarray"):  # a sparse column
        column = column.toarray()
    query_ids = np.asarray(column).reshape(-1)
    _check_query_column(query_ids, qid_column, position)
    return query_ids


def _check_query_column(query_ids, qid_column, position):
    """Refuse a column that cannot hold query ids: a feature read in their place.

    Tools that drop or reorder columns of X (``RFE``, ``RFECV``,
    ``SequentialFeatureSelector``) move the query id column, and the column
    then found at ``qid_column`` is a feature: non-integral numbers, or a
    different value in every row (every query a single row).
    """
    problem = None
    if query_ids.dtype.kind in "fc":
        finite = query_ids[np.isfinite(query_ids)]
        fractional = finite[finite != np.round(finite)]
        if fractional.size:
            problem = f"non-integral values such as {fractional[0]!r}"
    if problem is None and query_ids.shape[0] > 1:
        n_queries = len(factorize_query_ids(query_ids)[1])
        if n_queries == query_ids.shape[0]:
            problem = (
                f"a different value in each of its {n_queries} rows, so every query "
                "would be a single row"
            )
    if problem is not None:
        raise ValueError(
            f"qid_column={qid_column!r}: column {position} of X does not hold query ids "
            f"({problem}). {MOVED_QUERY_COLUMN_FIX}"
        )


MOVED_QUERY_COLUMN_FIX = (
    "A tool that drops or reorders the columns of X (RFE, RFECV, "
    "SequentialFeatureSelector) moves the query id column and leaves a feature in its "
    "place. Pass the query ids through metadata routing instead: "
    "sklearn.set_config(enable_metadata_routing=True), X without the query id column, "
    "and qid=qid where the data enter, e.g. RFE(...).fit(X, y, qid=qid)."
)


def drop_query_column(X, qid_column):
    """X without its query id column (X itself when ``qid_column`` is None)."""
    if qid_column is None:
        return X
    X = _as_2d(X)
    position = column_position(X, qid_column)
    keep = [column for column in range(X.shape[1]) if column != position]
    return _safe_indexing(X, keep, axis=1)


def resolve_qid(X, qid, qid_column, *, caller, required=True):
    """The query ids of X's rows, from ``qid`` or from ``qid_column``.

    Raises a ValueError naming ``caller`` when both or (if ``required``)
    neither are given, or when ``qid`` has the wrong length.
    """
    if qid is not None and qid_column is not None:
        raise ValueError(
            f"{caller} got query ids twice: as qid and as qid_column={qid_column!r}. "
            "Pass one of them (to stop routing qid here, set its request to False)."
        )
    if qid_column is not None:
        return query_ids_from_column(X, qid_column)
    if qid is None:
        if required:
            raise ValueError(missing_qid_message(caller))
        return None
    qid = np.asarray(as_array_like(qid, "qid"))
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    if qid.ndim != 1 or qid.shape[0] != n_rows:
        raise ValueError(
            f"{caller}: qid must hold one query id per row of X ({n_rows} rows), "
            f"got shape {qid.shape}."
        )
    return qid


def query_codes(qid):
    """``(codes, n_queries)``: query numbers 0 .. n_queries - 1 in sorted-id order.

    Validated as the metrics validate qid (no NaN, no mix of text and numbers).
    """
    codes, query_ids = factorize_query_ids(qid)
    return codes, len(query_ids)
