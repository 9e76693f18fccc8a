"""Cross-validation splitters that keep every query whole.

scikit-learn's default ``cv=5`` (``KFold``) cuts the rows into blocks
regardless of queries: a query can land half in training and half in the
test fold, and its test half is then ranked among fewer documents than it
has. ``GroupKFold`` and ``GroupShuffleSplit`` with ``groups=qid`` keep
queries whole; the splitters here do the same but read ``qid`` itself
(through metadata routing, requested by default, or from a column of X), so
that one ``fit(X, y, qid=qid)`` feeds splitter, estimator and scorer alike.

Query ids may come in any row order (interleaved queries are fine): folds
are made of queries, chosen from the sorted query ids and their sizes, so
reordering the rows does not change which queries go together.
"""

import numbers

import numpy as np
from sklearn.model_selection import BaseCrossValidator, GroupKFold, GroupShuffleSplit
from sklearn.utils import check_random_state

from ._routing import query_codes, resolve_qid

__all__ = ["QueryKFold", "QueryShuffleSplit", "RepeatedQueryKFold"]


class _QuerySplitter(BaseCrossValidator):
    """Shared part of the query splitters: where the query ids come from.

    Subclasses implement ``_split_queries(codes, n_queries)``, yielding
    ``(train, test)`` row indices from query numbers ``codes``.
    BaseCrossValidator provides ``set_split_request`` and the repr.
    """

    # Request qid by default in split, as GroupKFold requests groups (see
    # _routing.py for why this way). groups too: searches that pass groups
    # explicitly, None included (scikit-optimize's BayesSearchCV), would
    # otherwise be refused by routing as passing metadata nobody requested.
    __metadata_request__split = {"qid": True, "groups": True}

    def split(self, X, y=None, groups=None, qid=None):
        """Generate indices to split data into training and test set.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; holds the query ids if ``qid_column`` is set.
        y : array-like of shape (n_samples,), default=None
            Ignored; present for API consistency.
        groups : array-like of shape (n_samples,), default=None
            Query ids under scikit-learn's older name: without metadata
            routing, ``GridSearchCV.fit(X, y, groups=qid)`` reaches the
            splitter this way; with routing, ``split`` requests it by default
            beside ``qid``. Used only when ``qid`` is None.
        qid : array-like of shape (n_samples,), default=None
            Query id of every row; requested through metadata routing by
            default. Required unless ``groups`` or ``qid_column`` gives them.

        Yields
        ------
        train : ndarray
            The training set indices for that split, in row order.
        test : ndarray
            The testing set indices for that split, in row order.
        """
        if qid is None:
            qid = groups
        qid = resolve_qid(X, qid, self.qid_column, caller=type(self).__name__)
        codes, n_queries = query_codes(qid)
        yield from self._split_queries(codes, n_queries)

    def get_n_splits(self, X=None, y=None, groups=None, qid=None):
        """Return the number of splitting iterations, ``n_splits``.

        Parameters
        ----------
        X, y, groups, qid : object
            Ignored; present for API consistency.

        Returns
        -------
        n_splits : int
        """
        return self.n_splits


def _check_n_splits(n_splits, n_queries):
    if isinstance(n_splits, bool) or not isinstance(n_splits, numbers.Integral):
        raise TypeError(f"n_splits must be an int, got {n_splits!r}.")
    if n_splits < 2:
        raise ValueError(
            f"n_splits={n_splits}: cross-validation needs at least one train/test "
            "split, set n_splits=2 or more."
        )
    if n_splits > n_queries:
        raise ValueError(
            f"n_splits={n_splits} is more than the {n_queries} queries in the "
            "data; every fold needs at least one query."
        )


class QueryKFold(_QuerySplitter):
    """K-fold cross-validation that never splits a query.

    Each query goes whole into one test fold, and every query is in exactly
    one test fold. The query ids come through metadata routing (``split``
    requests ``qid`` by default) or from ``qid_column``.

    With ``shuffle=False`` (the default) the folds are those of
    scikit-learn's ``GroupKFold(n_splits).split(X, groups=qid)``: the
    installed ``GroupKFold`` makes them, so they are identical to it on every
    scikit-learn release. It puts the queries, largest first, each into the
    fold with the fewest documents so far; how it orders queries of equal
    size differs between releases (1.4 sorts them unstably), so with ties in
    query sizes two releases can give different folds.

    With ``shuffle=True`` the folds are random but still balanced in
    documents, by an algorithm of this package (``GroupKFold`` takes
    ``shuffle`` only from scikit-learn 1.6 on, and balances the number of
    queries instead): number the queries 0 to ``n_queries - 1`` in sorted
    query id order, draw the order
    ``check_random_state(random_state).permutation(n_queries)``, and in that
    order put each query into the fold with the fewest documents so far (the
    lowest-numbered such fold on ties). The same ``random_state`` and query
    ids give the same folds on every release.

    Either way the folds depend only on the query ids and their sizes, not
    on the order of the rows.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2 and at most the number of queries.
    shuffle : bool, default=False
        Whether to fill the folds taking the queries in random order (see
        above) instead of as ``GroupKFold`` does.
    random_state : int, RandomState instance or None, default=None
        Randomness of the order when ``shuffle=True``; pass an int for the
        same folds on every call. Must be None when ``shuffle=False``.
    qid_column : int or str, default=None
        Column of X holding the query ids, instead of ``qid``.

    See Also
    --------
    QueryShuffleSplit : Random train/test splits of queries.
    sklearn.model_selection.GroupKFold : The same folds with ``groups=qid``.

    References
    ----------
    .. [1] scikit-learn User Guide, "Cross-validation iterators for grouped
       data" (GroupKFold), https://scikit-learn.org/stable/modules/cross_validation.html

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GroupKFold
    >>> from sklearn_rank_metrics.model_selection import QueryKFold
    >>> qid = np.array([1, 2, 1, 3, 2, 3, 3, 1])  # interleaved queries
    >>> X = np.zeros((8, 2))
    >>> for train, test in QueryKFold(n_splits=3).split(X, qid=qid):
    ...     print(test, qid[test])
    [3 5 6] [3 3 3]
    [0 2 7] [1 1 1]
    [1 4] [2 2]

    They are the folds of ``GroupKFold`` with ``groups=qid``:

    >>> folds = QueryKFold(n_splits=3).split(X, qid=qid)
    >>> group_folds = GroupKFold(n_splits=3).split(X, groups=qid)
    >>> all(
    ...     np.array_equal(test, group_test)
    ...     for (_, test), (_, group_test) in zip(folds, group_folds)
    ... )
    True

    In a search, with routing on, ``qid`` reaches the splitter, the estimator
    and the scorer from one ``fit`` call::

        sklearn.set_config(enable_metadata_routing=True)
        search = GridSearchCV(QueryRanker(LGBMRanker()), grid, cv=QueryKFold(),
                              scoring=make_rank_scorers(["ndcg@10"]))
        search.fit(X, y, qid=qid)
    """

    def __init__(self, n_splits=5, *, shuffle=False, random_state=None, qid_column=None):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.qid_column = qid_column

    def _split_queries(self, codes, n_queries):
        _check_n_splits(self.n_splits, n_queries)
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise TypeError(f"shuffle must be True or False, got {self.shuffle!r}.")
        if not self.shuffle and self.random_state is not None:
            raise ValueError(
                "Setting a random_state has no effect since shuffle is False; leave "
                "random_state=None or set shuffle=True."
            )
        if not self.shuffle:
            # The query codes number the queries in sorted id order, as
            # GroupKFold's np.unique(groups) does, so these are its folds.
            yield from GroupKFold(self.n_splits).split(codes, groups=codes)
            return
        yield from _balanced_random_folds(
            codes, n_queries, self.n_splits, check_random_state(self.random_state)
        )


def _balanced_random_folds(codes, n_queries, n_splits, random_state):
    """``(train, test)`` rows of folds filled with the queries in random order.

    The queries, numbered in sorted query id order, are taken in the order
    ``random_state.permutation(n_queries)``, each into the fold with the fewest
    documents so far (the lowest-numbered such fold on ties).
    """
    sizes = np.bincount(codes, minlength=n_queries)
    query_order = random_state.permutation(n_queries)
    fold_of_query = np.empty(n_queries, dtype=np.intp)
    fold_sizes = np.zeros(n_splits, dtype=np.int64)
    for query in query_order:
        lightest = int(np.argmin(fold_sizes))
        fold_of_query[query] = lightest
        fold_sizes[lightest] += sizes[query]
    fold_of_row = fold_of_query[codes]
    for fold in range(n_splits):
        in_test = fold_of_row == fold
        yield np.flatnonzero(~in_test), np.flatnonzero(in_test)


class QueryShuffleSplit(_QuerySplitter):
    """Random train/test splits of whole queries.

    Each split draws a random set of queries for the test set and takes the
    rest (or ``train_size`` of it) for training; splits may overlap. This is
    ``GroupShuffleSplit`` with ``groups=qid``, reading ``qid`` through
    metadata routing (requested by default) or from ``qid_column``;
    ``test_size`` and ``train_size`` count queries, not documents.

    Parameters
    ----------
    n_splits : int, default=5
        Number of re-shuffling and splitting iterations.
    test_size : float or int, default=None
        Share (float in (0, 1)) or number (int) of queries in the test set;
        None means 0.2, or the complement of ``train_size``.
    train_size : float or int, default=None
        Share or number of queries in the training set; None means the
        complement of ``test_size``.
    random_state : int, RandomState instance or None, default=None
        Pass an int for the same splits on every call.
    qid_column : int or str, default=None
        Column of X holding the query ids, instead of ``qid``.

    See Also
    --------
    QueryKFold : K-fold cross-validation by queries.
    sklearn.model_selection.GroupShuffleSplit : The same with ``groups=qid``.

    References
    ----------
    .. [1] scikit-learn User Guide, "Cross-validation iterators for grouped
       data" (GroupShuffleSplit), https://scikit-learn.org/stable/modules/cross_validation.html

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics.model_selection import QueryShuffleSplit
    >>> qid = np.array([1, 2, 1, 3, 2, 3, 4, 4])
    >>> splitter = QueryShuffleSplit(n_splits=2, test_size=0.25, random_state=0)
    >>> for train, test in splitter.split(np.zeros((8, 1)), qid=qid):
    ...     print(np.unique(qid[train]).tolist(), np.unique(qid[test]).tolist())
    [1, 2, 4] [3]
    [2, 3, 4] [1]
    """

    def __init__(
        self, n_splits=5, *, test_size=None, train_size=None, random_state=None, qid_column=None
    ):
        self.n_splits = n_splits
        self.test_size = test_size
        self.train_size = train_size
        self.random_state = random_state
        self.qid_column = qid_column

    def _split_queries(self, codes, n_queries):
        splitter = GroupShuffleSplit(
            n_splits=self.n_splits,
            test_size=self.test_size,
            train_size=self.train_size,
            random_state=self.random_state,
        )
        # GroupShuffleSplit draws from the sorted unique groups, so the
        # queries drawn do not depend on the row order.
        yield from splitter.split(codes, groups=codes)


class RepeatedQueryKFold(_QuerySplitter):
    """Query k-fold cross-validation repeated with different random folds.

    Each repeat is a :class:`QueryKFold` with ``shuffle=True``: every query
    goes whole into one test fold, every row is tested once per repeat, and
    the folds are balanced in documents. The repeats draw their query orders
    one after another from one random generator,
    ``check_random_state(random_state)``, so they differ from each other and
    the same ``random_state`` gives the same ``n_splits * n_repeats`` splits.
    This is to :class:`QueryKFold` what ``RepeatedKFold`` is to ``KFold``: a
    steadier estimate for few queries, at ``n_repeats`` times the cost.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds in each repeat, at least 2 and at most the number of
        queries.
    n_repeats : int, default=10
        Number of repeats, at least 1.
    random_state : int, RandomState instance or None, default=None
        Randomness of the folds; pass an int for the same splits on every
        call.
    qid_column : int or str, default=None
        Column of X holding the query ids, instead of ``qid``.

    See Also
    --------
    QueryKFold : One round of k-fold cross-validation by queries.
    sklearn.model_selection.RepeatedKFold : The same for rows.

    References
    ----------
    .. [1] scikit-learn User Guide, "Repeated K-Fold",
       https://scikit-learn.org/stable/modules/cross_validation.html

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics.model_selection import RepeatedQueryKFold
    >>> qid = np.array([1, 1, 2, 2, 3, 3, 4, 4])
    >>> cv = RepeatedQueryKFold(n_splits=2, n_repeats=2, random_state=0)
    >>> cv.get_n_splits()
    4
    >>> for train, test in cv.split(np.zeros((8, 1)), qid=qid):
    ...     print(np.unique(qid[test]).tolist())
    [2, 3]
    [1, 4]
    [1, 2]
    [3, 4]
    """

    def __init__(self, n_splits=5, *, n_repeats=10, random_state=None, qid_column=None):
        self.n_splits = n_splits
        self.n_repeats = n_repeats
        self.random_state = random_state
        self.qid_column = qid_column

    def _split_queries(self, codes, n_queries):
        _check_n_splits(self.n_splits, n_queries)
        _check_n_repeats(self.n_repeats)
        random_state = check_random_state(self.random_state)
        for _ in range(self.n_repeats):
            yield from _balanced_random_folds(codes, n_queries, self.n_splits, random_state)

    def get_n_splits(self, X=None, y=None, groups=None, qid=None):
        """Return the number of splitting iterations, ``n_splits * n_repeats``.

        Parameters
        ----------
        X, y, groups, qid : object
            Ignored; present for API consistency.

        Returns
        -------
        n_splits : int
        """
        _check_n_repeats(self.n_repeats)
        return self.n_splits * self.n_repeats


def _check_n_repeats(n_repeats):
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral):
        raise TypeError(f"n_repeats must be an int, got {n_repeats!r}.")
    if n_repeats < 1:
        raise ValueError(f"n_repeats={n_repeats}: set n_repeats=1 or more.")
