"""Synthetic learning-to-rank data."""

import numbers

import numpy as np
from sklearn.utils import check_random_state, check_scalar

__all__ = ["make_ranking"]


def make_ranking(
    n_queries=100,
    docs_per_query=20,
    n_features=10,
    n_grades=5,
    noise=1.0,
    interleave=False,
    random_state=None,
):
    """Generate a random learning-to-rank problem with graded relevance.

    Each query gets a list of documents described by gaussian features. A
    hidden linear utility ``X @ coef`` is blurred with gaussian noise and cut,
    within each query, into ``n_grades`` equally populated relevance grades:
    the documents of a query with the highest noisy utility get grade
    ``n_grades - 1``, the lowest get grade 0.

    The documents of one query share a random gaussian shift of their
    features, so queries differ in their feature distribution and in the
    level of their utility. Because grades are assigned within each query,
    that shift does not decide which documents are relevant: as with real
    search data, a model has to order the documents of a query rather than
    recognise relevant documents in absolute terms.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries, at least 1.

    docs_per_query : int or tuple of (int, int), default=20
        Number of documents of each query, at least 1. A ``(low, high)``
        tuple draws each query's number of documents uniformly from the
        integers ``low`` to ``high``, both included.

    n_features : int, default=10
        Number of features, at least 1.

    n_grades : int, default=5
        Number of relevance grades, at least 2. Labels are the integers
        ``0`` to ``n_grades - 1``. A query of ``n`` documents gets every grade
        when ``n >= n_grades``, and ``n`` distinct grades otherwise.

    noise : float, default=1.0
        Standard deviation of the gaussian noise added to the utility, at
        least 0. The coefficients have unit norm, so the noise-free utility
        has unit standard deviation within each query whatever
        ``n_features``: ``noise`` is the noise-to-signal ratio. With
        ``noise=0`` the grades are a function of ``X`` alone.

    interleave : bool, default=False
        If False, the rows of each query are contiguous and queries come in
        the order of their ids. If True, the rows are shuffled, so the rows of
        different queries are interleaved.

    random_state : int, RandomState instance or None, default=None
        Determines random number generation for the data set. Pass an int
        for reproducible output across multiple function calls.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        The features of the documents; ``n_samples`` is the total number of
        documents of all queries.

    y : ndarray of shape (n_samples,), dtype int64
        The relevance grade of each document, from 0 (not relevant) to
        ``n_grades - 1`` (most relevant).

    qid : ndarray of shape (n_samples,), dtype int64
        The query id of each document, from 0 to ``n_queries - 1``.

    Raises
    ------
    ValueError
        If an argument is out of range; the message names the argument.
    TypeError
        If an argument has the wrong type.

    See Also
    --------
    sklearn.datasets.make_classification : The classification counterpart.
    load_lambdarank_example : A small real learning-to-rank data set.

    Examples
    --------
    >>> from sklearn_rank_metrics.datasets import make_ranking
    >>> X, y, qid = make_ranking(
    ...     n_queries=3, docs_per_query=4, n_features=2, n_grades=4, random_state=0
    ... )
    >>> X.shape, y.shape, qid.shape
    ((12, 2), (12,), (12,))
    >>> qid
    array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    >>> [sorted(y[qid == query].tolist()) for query in range(3)]
    [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]

    Queries of varying length, with their rows interleaved:

    >>> X, y, qid = make_ranking(
    ...     n_queries=50, docs_per_query=(5, 30), interleave=True, random_state=0
    ... )
    >>> qid[:8]
    array([22, 40, 22, 41, 39, 11, 26,  7])
    >>> sizes = np.bincount(qid)
    >>> X.shape == (sizes.sum(), 10), bool(sizes.min() >= 5 and sizes.max() <= 30)
    (True, True)
    """
    check_scalar(n_queries, "n_queries", numbers.Integral, min_val=1)
    docs_low, docs_high = _check_docs_per_query(docs_per_query)
    check_scalar(n_features, "n_features", numbers.Integral, min_val=1)
    check_scalar(n_grades, "n_grades", numbers.Integral, min_val=2)
    check_scalar(noise, "noise", numbers.Real, min_val=0.0)
    if not np.isfinite(noise):
        raise ValueError(f"noise must be finite, got {noise!r}.")
    rng = check_random_state(random_state)

    query_sizes = rng.randint(docs_low, docs_high + 1, size=n_queries).astype(np.int64)
    n_samples = int(query_sizes.sum())
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), query_sizes)

    coef = rng.standard_normal(n_features)
    coef /= np.linalg.norm(coef)
    query_shift = rng.standard_normal((n_queries, n_features))
    X = rng.standard_normal((n_samples, n_features)) + query_shift[qid]
    noisy_utility = X @ coef + noise * rng.standard_normal(n_samples)

    y = _grade_within_queries(noisy_utility, qid, query_sizes, n_grades)

    if interleave:
        shuffled_rows = rng.permutation(n_samples)
        X, y, qid = X[shuffled_rows], y[shuffled_rows], qid[shuffled_rows]
    return X, y, qid


def _check_docs_per_query(docs_per_query):
    """Validate ``docs_per_query`` and return it as inclusive ``(low, high)``."""
    if isinstance(docs_per_query, (tuple, list)):
        if len(docs_per_query) != 2:
            raise ValueError(
                "docs_per_query must be an int or a (low, high) tuple, "
                f"got {docs_per_query!r}."
            )
        low, high = docs_per_query
        check_scalar(low, "docs_per_query low", numbers.Integral, min_val=1)
        check_scalar(high, "docs_per_query high", numbers.Integral, min_val=low)
        return int(low), int(high)
    check_scalar(docs_per_query, "docs_per_query", numbers.Integral, min_val=1)
    return int(docs_per_query), int(docs_per_query)


def _grade_within_queries(utility, qid, query_sizes, n_grades):
    """Cut ``utility`` into ``n_grades`` equally populated bins within each query.

    ``qid`` holds ids ``0 .. len(query_sizes) - 1`` and ``query_sizes[q]`` is
    the number of rows of query ``q``; the rows need not be contiguous.
    """
    # Sorting by (qid, utility) puts each query's rows in a contiguous block,
    # in increasing utility, so a row's rank within its query is its position
    # in the sorted order minus the start of its query's block.
    sorted_rows = np.lexsort((utility, qid))
    query_starts = np.cumsum(query_sizes) - query_sizes
    rank_within_query = np.empty(len(utility), dtype=np.int64)
    rank_within_query[sorted_rows] = (
        np.arange(len(utility)) - query_starts[qid[sorted_rows]]
    )
    # Equal-frequency binning of ranks 0 .. n-1 of a query of n documents:
    # grade = floor(rank * n_grades / n), which reaches n_grades - 1 when
    # n >= n_grades.
    return rank_within_query * n_grades // query_sizes[qid]
