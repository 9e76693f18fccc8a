"""Factorizing query ids and sorting documents into ranked query segments.

This is the one place that sorts. Everything downstream works on the
segments it produces (:class:`~sklearn_rank_metrics._segments.RankedQueries`).
"""

import numpy as np

# Integer query ids spanning at most this many values per document are
# factorized with a bincount table instead of a sort.
_DENSE_RANGE_FACTOR = 4


def factorize_numeric(qid):
    """``(codes, uniques)`` for numeric query ids, uniques sorted ascending."""
    n = qid.shape[0]
    if qid.dtype.kind in "iu" and n:
        low, high = int(qid.min()), int(qid.max())
        span = high - low + 1
        if span <= _DENSE_RANGE_FACTOR * n + 1024:
            shifted = qid - low if low else qid
            present = np.bincount(shifted, minlength=span) > 0
            uniques = np.flatnonzero(present)
            code_of_value = np.cumsum(present, dtype=np.intp) - 1
            return code_of_value[shifted], (uniques + low).astype(qid.dtype, copy=False)
    try:
        import pandas as pd
    except ImportError:
        uniques, codes = np.unique(qid, return_inverse=True)
        return codes.reshape(-1), uniques
    codes, uniques = pd.factorize(qid, sort=True)
    return codes.astype(np.intp, copy=False), np.asarray(uniques)


def factorize_object(qid):
    """``(codes, uniques)`` for an object array of query ids, uniques unsorted.

    Missing values (None, NaN) are returned as uniques so that the caller can
    reject them with a clear message.
    """
    try:
        import pandas as pd
    except ImportError:
        first_index = {}
        codes = np.fromiter(
            (first_index.setdefault(value, len(first_index)) for value in qid.tolist()),
            dtype=np.intp,
            count=qid.shape[0],
        )
        uniques = np.empty(len(first_index), dtype=object)
        uniques[:] = list(first_index)
        return codes, uniques
    codes, uniques = pd.factorize(qid, use_na_sentinel=False)
    uniques = np.asarray(uniques, dtype=object)
    return codes.astype(np.intp, copy=False), uniques


def sort_factorization(codes, uniques):
    """Relabel ``codes`` so that ``uniques`` is sorted (as ``numpy.unique`` does)."""
    if uniques.dtype == object:
        # Same-typed values after validation: str or numbers, both orderable.
        kind = np.asarray(uniques.tolist())
        order = np.argsort(kind, kind="stable")
        uniques = kind[order]
    else:
        order = np.argsort(uniques, kind="stable")
        uniques = uniques[order]
    rank_of_code = np.empty_like(order)
    rank_of_code[order] = np.arange(order.shape[0])
    return rank_of_code[codes], uniques


def rank_order(ranking_input, ties):
    """Permutation of documents sorted by query, then by descending score.

    Inside a group of tied scores the order is by descending label for
    ``ties="optimistic"`` and ascending label for ``"pessimistic"``; for
    ``"average"`` it is arbitrary (kernels treat tied documents as
    exchangeable, so the order inside a tie never matters there).
    """
    y_true, y_score = ranking_input.y_true, ranking_input.y_score
    codes = ranking_input.query_codes
    neg_score = -y_score
    keys = [neg_score, codes]
    if ties == "optimistic":
        keys.insert(0, -y_true)
    elif ties == "pessimistic":
        keys.insert(0, y_true)

    n_docs = ranking_input.docs_per_row
    if n_docs is not None and ties == "average":
        # 2-D input: every row is one query already, sort within rows.
        by_row = np.argsort(neg_score.reshape(-1, n_docs), axis=1)
        by_row += np.arange(0, y_score.shape[0], n_docs)[:, None]
        return by_row.ravel()
    return np.lexsort(keys)
