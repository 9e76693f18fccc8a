"""Input validation: every check on user input lives here, once.

Public metric functions, :func:`~sklearn_rank_metrics.evaluate` and the scorers
all go through :func:`check_ranking_input`, so a bad argument gets the same
clear message whichever entry point received it.
"""

import numbers
from dataclasses import dataclass

import numpy as np

TIES = ("average", "optimistic", "pessimistic")
NO_RELEVANT = ("zero", "skip", "one")
GAINS = ("linear", "exponential")
AVERAGES = ("mean", None)


def check_option(value, name, allowed):
    """Raise a ValueError naming ``name`` unless ``value`` is one of ``allowed``."""
    if not any(value is a or (isinstance(value, str) and value == a) for a in allowed):
        raise ValueError(
            f"{name}={value!r} is not supported; use one of "
            f"{', '.join(repr(a) for a in allowed)}."
        )
    return value


def check_k(k, *, allow_cutoff=True, metric=None):
    """Validate the cutoff ``k``: a positive int, or None for the whole list."""
    if k is None:
        return None
    if not allow_cutoff:
        raise ValueError(
            f"{metric} compares whole rankings and takes no cutoff: got k={k!r}, "
            "pass k=None."
        )
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive int or None, got {k!r} ({type(k).__name__}).")
    if k < 1:
        raise ValueError(f"k must be a positive int (k >= 1) or None, got k={k}.")
    return int(k)


def check_relevance_level(relevance_level):
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, numbers.Real):
        raise TypeError(f"relevance_level must be a number, got {relevance_level!r}.")
    if not np.isfinite(relevance_level) or relevance_level <= 0:
        raise ValueError(
            "relevance_level must be a finite number > 0 (a document is relevant iff "
            f"its label >= relevance_level), got {relevance_level!r}."
        )
    return float(relevance_level)


def _as_float_array(values, name):
    """Convert to a float64 array, rejecting text, NaN and infinities."""
    try:
        array = np.asarray(values)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} could not be converted to an array ({exc}); give a 1-D array with "
            "one value per document, or a rectangular 2-D array with one query per row."
        ) from None
    if array.dtype.kind not in "biuf":
        if array.dtype.kind == "O":
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                array = None
        else:
            array = None
        if array is None:
            raise TypeError(
                f"{name} must hold numbers, got values of dtype "
                f"{np.asarray(values).dtype}; convert it to a numeric array."
            )
    array = np.asarray(array, dtype=np.float64)
    if array.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be 1-D (one value per document, with qid) or 2-D "
            f"(one query per row), got an array of shape {array.shape}."
        )
    if array.size == 0:
        raise ValueError(f"{name} is empty: at least one document is needed.")
    if not np.isfinite(array).all():
        bad = "NaN" if np.isnan(array).any() else "infinite"
        raise ValueError(
            f"{name} contains {bad} values; remove those documents or replace the "
            "values with finite numbers."
        )
    return array


def _factorize_qid(qid):
    """Return ``(codes, uniques)``: ``uniques[codes] == qid``, uniques sorted.

    Query ids may be ints, floats or strings, but not a mix of text and
    numbers (``1`` and ``"1"`` would silently be two queries).
    """
    given = qid
    qid = np.asarray(qid)
    if qid.dtype.kind == "U" and not isinstance(given, np.ndarray):
        # NumPy turns a list like [1, "a"] into strings; check the values as given.
        qid = np.asarray(given, dtype=object)
    if qid.ndim != 1:
        raise ValueError(f"qid must be 1-D, one query id per document; got shape {qid.shape}.")
    if qid.dtype.kind == "b":
        raise TypeError("qid must hold ints or strings, got booleans.")
    if qid.dtype.kind == "f" and np.isnan(qid).any():
        raise ValueError("qid contains NaN; every document needs a query id.")
    if qid.dtype.kind in "iuf":
        from ._sort import factorize_numeric

        return factorize_numeric(qid)
    if qid.dtype.kind == "U":
        from ._sort import factorize_strings

        return factorize_strings(qid)
    # Object arrays (pandas string columns): factorize first, then check the
    # types of the few unique values instead of every document.
    from ._sort import factorize_object, sort_factorization

    codes, uniques = factorize_object(qid)
    kinds = set()
    for value in uniques.tolist():
        if value is None or (isinstance(value, float) and np.isnan(value)):
            raise ValueError("qid contains None or NaN; every document needs a query id.")
        if isinstance(value, str):
            kinds.add("str")
        elif isinstance(value, numbers.Number) and not isinstance(value, bool):
            kinds.add("number")
        else:
            raise TypeError(
                f"qid values must be ints or strings, got {type(value).__name__} ({value!r})."
            )
    if len(kinds) > 1:
        raise TypeError(
            "qid mixes numbers and strings, so 1 and '1' would be different queries; "
            "convert all query ids to one type, e.g. qid.astype(str)."
        )
    return sort_factorization(codes, uniques)


@dataclass(frozen=True)
class RankingInput:
    """Validated input, flat: one entry per document, with query codes.

    ``query_codes[i]`` indexes ``query_ids``, the sorted unique query ids;
    ``query_weights`` holds one weight per query (or None).
    """

    y_true: np.ndarray
    y_score: np.ndarray
    query_codes: np.ndarray
    query_ids: np.ndarray
    query_weights: np.ndarray | None


def check_ranking_input(y_true, y_score, qid=None, sample_weight=None):
    """Validate labels, scores, query ids and weights; return a :class:`RankingInput`.

    Parameters are those of every metric function. Raises a ValueError or
    TypeError that names the argument and the fix.
    """
    y_true = _as_float_array(y_true, "y_true")
    y_score = _as_float_array(y_score, "y_score")
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape, got {y_true.shape} and "
            f"{y_score.shape}."
        )
    if (y_true < 0).any():
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
        query_codes = np.repeat(np.arange(n_queries), n_docs)
        query_ids = np.arange(n_queries)
        query_weights = _check_query_weights(sample_weight, n_queries, "rows")
        return RankingInput(y_true.ravel(), y_score.ravel(), query_codes, query_ids, query_weights)

    n_samples = y_true.shape[0]
    if qid is None:
        query_codes = np.zeros(n_samples, dtype=np.intp)
        query_ids = np.zeros(1, dtype=np.intp)
    else:
        if len(qid) != n_samples:
            raise ValueError(
                f"qid has {len(qid)} entries but y_true has {n_samples}; pass one query "
                "id per document."
            )
        query_codes, query_ids = _factorize_qid(qid)
    query_weights = None
    if sample_weight is not None:
        doc_weights = _check_weight_values(sample_weight, n_samples, "documents")
        query_weights = _weights_per_query(doc_weights, query_codes, len(query_ids))
    return RankingInput(y_true, y_score, query_codes, query_ids, query_weights)


def _check_weight_values(sample_weight, n_expected, what):
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_expected:
        raise ValueError(
            f"sample_weight must be 1-D with one weight per {what[:-1]} "
            f"({n_expected} {what}), got shape {weights.shape}."
        )
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight contains NaN or infinite values.")
    if (weights < 0).any():
        raise ValueError("sample_weight contains negative weights; weights must be >= 0.")
    if not (weights > 0).any():
        raise ValueError("sample_weight is all zeros; at least one query needs a positive weight.")
    return weights


def _check_query_weights(sample_weight, n_queries, what):
    if sample_weight is None:
        return None
    return _check_weight_values(sample_weight, n_queries, what)


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
    if not (low > 0).any():
        raise ValueError("sample_weight is all zeros; at least one query needs a positive weight.")
    return low


def check_n_relevant(n_relevant, query_ids):
    """Map ``n_relevant`` (qid -> total relevant) onto the sorted ``query_ids``.

    Returns an int64 array with -1 for queries the mapping does not mention
    (they use the count found in the list).
    """
    if n_relevant is None:
        return None
    if not hasattr(n_relevant, "items"):
        raise TypeError(
            "n_relevant must be a mapping {query id: total number of relevant "
            f"documents}}, got {type(n_relevant).__name__}."
        )
    items = list(dict(n_relevant).items())
    totals = np.full(len(query_ids), -1, dtype=np.int64)
    if not items:
        return totals
    keys = np.asarray([key for key, _ in items])
    values = np.asarray([value for _, value in items])
    if values.dtype.kind not in "iu" and not (
        values.dtype.kind == "f" and np.isfinite(values).all() and (values == np.round(values)).all()
    ):
        raise TypeError("n_relevant values must be whole numbers of relevant documents.")
    if (values < 0).any():
        raise ValueError("n_relevant values must be >= 0.")
    numeric_keys = keys.dtype.kind in "iuf"
    numeric_ids = query_ids.dtype.kind in "iuf"
    if numeric_keys != numeric_ids:
        positions = np.zeros(0, dtype=np.intp)
        found = np.zeros(len(keys), dtype=bool)
    else:
        positions = np.searchsorted(query_ids, keys)
        positions = np.minimum(positions, len(query_ids) - 1)
        found = query_ids[positions] == keys
    if not found.any():
        raise ValueError(
            "none of the keys of n_relevant is a query id of qid (e.g. "
            f"{keys[0]!r} vs {query_ids[0]!r}); check that both use the same type "
            "(int or str) and the same ids."
        )
    totals[positions[found]] = values[found].astype(np.int64)
    return totals
