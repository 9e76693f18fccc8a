"""Validation of the data arguments: labels, scores, query ids, weights, ``n_relevant``.

Options (``k``, ``ties``, ...) are checked against the declared table of
:mod:`.._params`; this module checks the arrays and returns them as a
:class:`RankingInput`. Arrays keep their own numeric dtype: integer labels
are not copied to floats, and integer scores are ranked by their exact
integer value (a float64 copy would merge 2**53 + 1 with 2**53).
"""

import math
import numbers
from collections.abc import Iterator, Mapping, MappingView
from dataclasses import dataclass

import numpy as np

from ._arrays import code_dtype, exact_numbers
from ._factorize import factorize_query_ids
from .._warnings import warn_caller


@dataclass(frozen=True)
class RankingInput:
    """Validated input, flat: one entry per document, with query codes.

    Attributes
    ----------
    y_true : ndarray of shape (n_documents,)
        Labels, numeric (booleans as uint8), finite and >= 0.
    y_score : ndarray of shape (n_documents,)
        Scores, numeric (booleans as uint8), finite.
    query_codes : ndarray of shape (n_documents,), int32 or int64
        ``query_ids[query_codes[i]]`` is the query of document ``i``.
    query_ids : ndarray of shape (n_queries,)
        The distinct query ids, in the order of their codes (not necessarily
        sorted: results are put in sorted order at the end); row numbers for
        2-D input.
    query_weights : ndarray of shape (n_queries,) or None
        Weight of each query in means.
    rows_are_queries : bool
        True for 2-D input: query ``q`` is the contiguous row block ``q``.
    score_range, label_range : tuple
        ``(min, max)`` of the scores and of the labels.
    query_names : ndarray or None
        Where ``query_ids`` are codes of the caller's own (``evaluate_run``'s
        sorted topic ids), ``query_names[query_ids[q]]`` is the id of query
        ``q`` that messages name; None: the ids are ``query_ids``.
    """

    y_true: np.ndarray
    y_score: np.ndarray
    query_codes: np.ndarray
    query_ids: np.ndarray
    query_weights: np.ndarray | None
    rows_are_queries: bool
    score_range: tuple
    label_range: tuple
    query_names: np.ndarray | None = None

    @property
    def n_queries(self):
        return self.query_ids.shape[0]

    def query_name(self, q):
        """The id of query ``q`` as messages name it: the user's, a Python value."""
        query = self.query_ids[q]
        return plain(query if self.query_names is None else self.query_names[query])


def check_array_like(values, name):
    """Raise a TypeError naming ``name`` unless ``values`` is an array-like of numbers or ids.

    None, iterators and generators (consumed by one look), sets and
    mappings (no order), strings and scalars are not: each has its fix.
    """
    if values is None:
        raise TypeError(f"{name} is None; pass an array-like with one value per document.")
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} is a string ({values!r}); pass an array-like of values.")
    if isinstance(values, (set, frozenset, Mapping)):
        what = "a mapping" if isinstance(values, Mapping) else "an unordered set"
        raise TypeError(
            f"{name} is a {type(values).__name__} ({what}); pass a list or array with one "
            "value per document, in the order of the documents."
        )
    if isinstance(values, (Iterator, MappingView)):
        raise TypeError(
            f"{name} is a {type(values).__name__}, not an array; pass a list or array, e.g. "
            f"list({name})."
        )
    scalar = getattr(values, "ndim", None) == 0  # NumPy scalars and 0-d arrays
    if scalar or not (hasattr(values, "__len__") or hasattr(values, "__array__")):
        raise TypeError(
            f"{name} must be an array-like with one value per document, got "
            f"{type(values).__name__} ({values!r:.60})."
        )


def _is_pandas(values):
    return type(values).__module__.startswith("pandas")


def as_array_like(values, name):
    """``values`` checked (see :func:`check_array_like`), as an array where that is needed.

    A masked array whose mask hides values, and a scipy.sparse matrix, raise
    an error naming ``name`` and the fix: their arrays would silently read
    masked values and treat sparse ones as one object. Another array-like
    that converts itself (``__array__``: torch tensors, JAX and xarray
    arrays) is taken as NumPy takes it, with ``numpy.asarray``.
    """
    if type(values).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"{name} is a scipy.sparse {type(values).__name__}: only y_true (2-D, one query "
            f"per row) and exclude may be sparse. Pass {name} dense: {name}.toarray()."
        )
    if isinstance(values, np.ma.MaskedArray):
        if np.ma.getmaskarray(values).any():
            raise ValueError(
                f"{name} is a masked array with {int(np.ma.count_masked(values))} masked "
                f"value(s), and the mask would be ignored. Leave those documents out of every "
                f"argument ({name}.compressed(), and the others indexed by ~{name}.mask), or "
                f"give them a value: {name}.filled(value)."
            )
        return np.ma.getdata(values)
    check_array_like(values, name)
    if isinstance(values, (list, tuple, np.ndarray)) or _is_pandas(values):
        return values
    if hasattr(values, "__array__"):
        return np.asarray(values)
    return values


def _dimensions(values):
    """How many dimensions an array-like has, without converting a list to an array."""
    ndim = getattr(values, "ndim", None)
    if isinstance(ndim, int):
        return ndim
    first = values[0] if len(values) else None
    return 2 if hasattr(first, "__len__") and not isinstance(first, (str, bytes)) else 1


def _dense_ranks(numbers):
    """``numbers`` replaced by the rank of each among the distinct values: same order, same ties."""
    return np.unique(numbers, return_inverse=True)[1].reshape(numbers.shape).astype(np.int64)


def _exactly(values, array, name, ranks_only):
    """``array`` (float64 from a list or an object array, or long double), or an exact replacement.

    A float64 array NumPy made of integers beyond 2**53, or a long double
    array, may not hold the numbers given. Scores (``ranks_only``) only
    matter by their order, so they are replaced by their dense ranks; labels
    that float64 cannot hold raise a ValueError.
    """
    if array.dtype.itemsize > 8:  # long double
        numbers_, floats = array, array.astype(np.float64)
        exact = (floats == array).all()
    else:
        numbers_ = floats = exact_numbers(values, array)
        exact = numbers_.dtype.kind != "O"
    if exact:
        return floats
    if ranks_only:
        return _dense_ranks(numbers_)
    given = "Python numbers" if numbers_.dtype.kind == "O" else numbers_.dtype
    raise ValueError(
        f"{name} holds values that float64, in which labels are compared and gains computed, "
        f"cannot hold exactly (as {given}); give them as a NumPy array of dtype "
        "uint64 if they are integers below 2**64, else round them to float64 "
        f"(np.asarray({name}, dtype=np.float64)) if that is what is meant."
    )


def numeric_array(values, name, ranks_only=False):
    """``(array, (min, max))``: a 1-D or 2-D numeric array, finite; booleans as uint8.

    Integers keep their own dtype. Numbers float64 would round (integers
    beyond 2**53 that NumPy made floats, long doubles) are kept exactly as
    integers, replaced by their ranks (``ranks_only``: only their order
    matters) or refused (see :func:`_exactly`).
    """
    check_array_like(values, name)
    try:
        array = np.asarray(values)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} could not be converted to an array ({exc}); give a 1-D array with "
            "one value per document, or a rectangular 2-D array with one query per row."
        ) from None
    kind = array.dtype.kind
    from_numbers = kind == "O" or getattr(values, "dtype", None) is None  # lists and objects
    if kind == "O":
        try:
            array = array.astype(np.float64)
        except OverflowError:
            raise ValueError(
                f"{name} holds integers beyond the range of float64 (about 1.8e308); scale "
                "them down."
            ) from None
        except (TypeError, ValueError):
            kind = None
        else:
            kind = "f"
    if kind == "b":
        array = array.view(np.uint8)
    elif kind not in ("i", "u", "f"):
        raise TypeError(
            f"{name} must hold numbers, got values of dtype {np.asarray(values).dtype}; "
            "convert it to a numeric array."
        )
    if array.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be 1-D (one value per document, with qid) or 2-D "
            f"(one query per row), got an array of shape {array.shape}."
        )
    if array.size == 0:
        raise ValueError(f"{name} is empty: at least one document is needed.")
    # min and max propagate NaN and reach infinities: two passes, no temporary.
    low, high = array.min(), array.max()
    if kind == "f" and not (np.isfinite(low) and np.isfinite(high)):
        bad = "NaN" if np.isnan(low) or np.isnan(high) else "infinite"
        raise ValueError(
            f"{name} contains {bad} values; remove those documents or replace the "
            "values with finite numbers."
        )
    if kind == "f" and (from_numbers or array.dtype.itemsize > 8):
        exact = _exactly(values, array, name, ranks_only)
        if exact is not array:
            array, low, high = exact, exact.min(), exact.max()
    return array, (low, high)


def _weights(sample_weight, n_expected, per):
    sample_weight = as_array_like(sample_weight, "sample_weight")
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_expected:
        raise ValueError(
            f"sample_weight must be 1-D with one weight per {per} ({n_expected}), got "
            f"shape {weights.shape}."
        )
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight contains NaN or infinite values.")
    if (weights < 0).any():
        raise ValueError("sample_weight contains negative weights; weights must be >= 0.")
    return weights


def _check_some_positive(query_weights):
    if not (query_weights > 0).any():
        raise ValueError("sample_weight is all zeros; at least one query needs a positive weight.")
    return query_weights


def row_weights(sample_weight, n_rows):
    """The weights of a 2-D input's queries (rows), checked; None where not given."""
    if sample_weight is None:
        return None
    return _check_some_positive(_weights(sample_weight, n_rows, "row"))


def _weights_per_query(doc_weights, query_codes, n_queries):
    """One weight per query from per-document weights that must agree within a query."""
    low = np.full(n_queries, np.inf)
    high = np.full(n_queries, -np.inf)
    np.minimum.at(low, query_codes, doc_weights)
    np.maximum.at(high, query_codes, doc_weights)
    if (low != high).any():
        raise ValueError(
            "sample_weight weighs queries, so all documents of one query need the "
            "same weight; some queries have documents with different weights."
        )
    return low


def _pandas_index(values):
    index = getattr(values, "index", None)
    return index if type(index).__module__.startswith("pandas") else None


def _warn_unaligned(**arguments):
    """Warn when pandas arguments have different indexes: they are matched by position.

    As in scikit-learn, the n-th value of each argument belongs to the n-th
    document whatever the index says; a user who sorted or filtered one
    Series and not the other would otherwise get a silently wrong number.
    """
    indexed = [(name, _pandas_index(values)) for name, values in arguments.items()]
    indexed = [(name, index) for name, index in indexed if index is not None]
    if len(indexed) < 2:
        return
    (first, index), others = indexed[0], indexed[1:]
    differ = [name for name, other in others if not other.equals(index)]
    if differ:
        warn_caller(
            f"{' and '.join(differ)} {'has an index' if len(differ) == 1 else 'have indexes'} "
            f"different from {first}'s; pandas arguments are matched by position, as in "
            f"scikit-learn, not by index label. To match them by label, align them first, e.g. "
            f"{differ[0]}.reindex({first}.index); to match by position without this warning, "
            "pass arrays (.to_numpy()).",
            UserWarning,
        )


def check_ranking_input(
    y_true, y_score, qid=None, sample_weight=None, pool=None, *, unjudged_labels=False
):
    """Validate labels, scores, query ids and weights; return a :class:`RankingInput`.

    Raises a ValueError or TypeError that names the argument and the fix.
    ``pool``, the call's threads, helps factorize large query ids.
    ``unjudged_labels`` admits the negative labels of unjudged documents
    (see :mod:`.._judgments`), which only the TREC evaluation builds.
    """
    _warn_unaligned(y_true=y_true, y_score=y_score, qid=qid, sample_weight=sample_weight)
    y_true, label_range = numeric_array(as_array_like(y_true, "y_true"), "y_true")
    y_score, score_range = numeric_array(
        as_array_like(y_score, "y_score"), "y_score", ranks_only=True
    )
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape, got {y_true.shape} and {y_score.shape}."
        )
    if y_true.ndim == 2 and y_true.shape[1] == 1:
        raise ValueError(
            f"y_true and y_score are 2-D with one column (shape {y_true.shape}): that is "
            f"{y_true.shape[0]} queries of one document each, whose values do not depend on "
            "the scores. For documents of one or more queries pass them 1-D, with qid "
            "naming each document's query (y_true.ravel(), y_score.ravel()); for one query "
            "per row, one column per document (y_true.reshape(1, -1))."
        )
    if label_range[0] < 0 and not unjudged_labels:
        raise ValueError(
            "y_true contains negative relevance labels; labels must be >= 0 "
            "(0 = not relevant, higher = more relevant)."
        )

    if y_true.ndim == 2:
        if qid is not None:
            raise ValueError(
                "qid is only for 1-D input; with 2-D y_true/y_score each row is one "
                "query already. Pass qid=None, or flatten the arrays and pass qid."
            )
        n_queries, n_docs = y_true.shape
        query_ids = np.arange(n_queries)
        query_codes = np.repeat(np.arange(n_queries, dtype=code_dtype(n_queries)), n_docs)
        query_weights = row_weights(sample_weight, n_queries)
        return RankingInput(
            y_true.ravel(), y_score.ravel(), query_codes, query_ids, query_weights, True,
            score_range, label_range,
        )  # fmt: skip

    n_samples = y_true.shape[0]
    if qid is None:
        query_codes = np.zeros(n_samples, dtype=np.int32)
        query_ids = np.zeros(1, dtype=np.intp)
    else:
        qid = as_array_like(qid, "qid")
        if _dimensions(qid) != 1:
            raise ValueError(
                f"qid must be 1-D, one query id per document, got {_dimensions(qid)} "
                "dimensions; pass a list, 1-D array or pandas Series (for a one-column "
                "DataFrame, its column: qid['name'])."
            )
        if len(qid) != n_samples:
            raise ValueError(
                f"qid has {len(qid)} entries but y_true has {n_samples}; pass one query "
                "id per document."
            )
        query_codes, query_ids = factorize_query_ids(qid, sort=False, pool=pool)
    query_weights = None
    if sample_weight is not None:
        doc_weights = _weights(sample_weight, n_samples, "document")
        query_weights = _check_some_positive(
            _weights_per_query(doc_weights, query_codes, query_ids.shape[0])
        )
    return RankingInput(
        y_true, y_score, query_codes, query_ids, query_weights, False, score_range, label_range
    )


def plain(value):
    """A NumPy scalar as the Python value it holds, for messages (``5``, not ``np.int64(5)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _key_matches_ids(key, id_kind):
    """Whether a key of ``n_relevant`` has the type of the query ids (so it can name one)."""
    if id_kind == "U":
        return isinstance(key, str)
    if isinstance(key, (bool, np.bool_)):
        return False
    if id_kind in "iu":
        return isinstance(key, numbers.Integral)
    return isinstance(key, numbers.Real)


def _relevant_counts(values):
    """The values of ``n_relevant`` as int64, checked: whole numbers from 0 to 2**63 - 1."""
    for value in values:
        whole = isinstance(value, numbers.Integral) or (
            isinstance(value, numbers.Real) and math.isfinite(value) and value == round(value)
        )
        if not whole or isinstance(value, (bool, np.bool_)):
            raise TypeError(
                f"n_relevant values must be whole numbers of relevant documents, e.g. "
                f"{{'q1': 5}}; got {plain(value)!r}."
            )
        if not 0 <= value < 2**63:
            raise ValueError(
                f"n_relevant values must be counts from 0 to 2**63 - 1; got {plain(value)!r}."
            )
    return np.asarray([int(value) for value in values], dtype=np.int64)


def check_n_relevant(n_relevant, query_ids):
    """Map ``n_relevant`` (query id -> total relevant) onto ``query_ids`` (in code order).

    Every key must be a query id of the input, of the same type (``1`` does
    not name the query ``"1"``): a key that names no query raises a
    ValueError naming it, since it was most likely meant for one.

    Returns an int64 array with -1 for queries the mapping does not mention
    (they use the count found in the list), or None.
    """
    if n_relevant is None:
        return None
    items = list(n_relevant.items())
    totals = np.full(query_ids.shape[0], -1, dtype=np.int64)
    if not items:
        return totals
    keys = [key for key, _ in items]
    values = _relevant_counts([value for _, value in items])
    id_kind = query_ids.dtype.kind
    positions = np.zeros(len(keys), dtype=np.intp)
    found = np.zeros(len(keys), dtype=bool)
    typed = [i for i, key in enumerate(keys) if _key_matches_ids(key, id_kind)]
    if id_kind in "iu":
        # A key outside the ids' dtype names no query (and must not wrap around).
        limits = np.iinfo(query_ids.dtype)
        typed = [i for i in typed if limits.min <= keys[i] <= limits.max]
    if typed:
        # Strings keep their own width: casting to the ids' width would cut "b " to "b".
        typed_keys = np.asarray(
            [keys[i] for i in typed], dtype=None if id_kind == "U" else query_ids.dtype
        )
        order = np.argsort(query_ids, kind="stable")
        sorted_ids = query_ids[order]
        where = np.minimum(np.searchsorted(sorted_ids, typed_keys), query_ids.shape[0] - 1)
        positions[typed] = order[where]
        found[typed] = sorted_ids[where] == typed_keys
    if not found.all():
        unknown = np.flatnonzero(~found)
        key = keys[int(unknown[0])]
        raise ValueError(
            f"n_relevant has {unknown.shape[0]} key(s) that are not query ids of the input, "
            f"e.g. {plain(key)!r} (query ids look like {plain(query_ids[0])!r}: same type and "
            "value needed); remove or correct them. For the relevance judgments (qrels) of "
            "a TREC run, sklearn_rank_metrics.trec.evaluate_run takes the qrels themselves: "
            "it counts judged documents the run missed and handles judged queries the run "
            "missed as trec_eval does (missing_queries)."
        )
    totals[positions] = values
    return totals
