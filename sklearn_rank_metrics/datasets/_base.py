"""Loaders for the small data sets shipped with the package."""

import functools
import gzip
from importlib import resources

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.utils import Bunch

__all__ = ["load_lambdarank_example", "load_trec_example"]

LAMBDARANK_N_FEATURES = 300

LAMBDARANK_DESCR = """\
.. _lambdarank_example_dataset:

LightGBM lambdarank example data set
------------------------------------

A small real learning-to-rank data set: documents retrieved for search
queries, each described by 300 sparse features and graded for relevance to
its query from 0 (not relevant) to 4 (most relevant).

**Data Set Characteristics:**

:Training set: 201 queries, 3,005 documents (query ids 0-200)
:Test set: 50 queries, 768 documents (query ids 201-250)
:Number of features: 300, sparse, values in [0, 1]
:Relevance grades: 0, 1, 2, 3, 4
:Source: the LightGBM repository, ``examples/lambdarank``
:Licence: MIT, Copyright (c) Microsoft Corporation; the notice is shipped
    as ``data/LICENSE-lightgbm-lambdarank`` beside the data files.

Feature ``f{j}`` is feature index ``j + 1`` of the original svmlight files,
whose indices run from 1 to 300. The rows of a query are contiguous, in the
order of the original files.
"""


def load_lambdarank_example(*, return_X_y=False, as_frame=False):
    """Load the LightGBM lambdarank example data set (learning to rank).

    A small real data set of 201 training queries (3,005 documents) and 50
    test queries (768 documents), with 300 sparse features and relevance
    grades 0 to 4, taken from LightGBM's ``examples/lambdarank`` (MIT
    licence). It is shipped with the package, so no download is needed.

    Test queries are numbered after training queries (ids 201 to 250 against
    0 to 200), so the two sets can be concatenated without query ids
    colliding. The rows of each query are contiguous.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(X_train, y_train, qid_train, X_test, y_test,
        qid_test)`` instead of a Bunch.

    as_frame : bool, default=False
        If True, the features are a pandas DataFrame backed by sparse
        columns ``f0`` to ``f299``, the grades a Series named ``relevance``
        and the query ids a Series named ``qid``. Requires pandas.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object, with the following attributes.

        X_train : {scipy.sparse.csr_matrix, DataFrame} of shape (3005, 300)
            Features of the training documents, float64.
        y_train : {ndarray, Series} of shape (3005,)
            Relevance grades of the training documents, float64, 0 to 4.
        qid_train : {ndarray, Series} of shape (3005,)
            Query ids of the training documents, int64, 0 to 200.
        X_test : {scipy.sparse.csr_matrix, DataFrame} of shape (768, 300)
            Features of the test documents, float64.
        y_test : {ndarray, Series} of shape (768,)
            Relevance grades of the test documents, float64, 0 to 4.
        qid_test : {ndarray, Series} of shape (768,)
            Query ids of the test documents, int64, 201 to 250.
        feature_names : list of str
            The names of the features, ``f0`` to ``f299``.
        DESCR : str
            The full description of the data set.

    (X_train, y_train, qid_train, X_test, y_test, qid_test) : tuple
        If ``return_X_y`` is True.

    Raises
    ------
    ImportError
        If ``as_frame`` is True and pandas is not installed.

    See Also
    --------
    make_ranking : Synthetic ranking data of any size.
    sklearn_rank_metrics.model_selection.QueryRanker : Fit a ranker on such data.

    Notes
    -----
    The parsed data are cached for the life of the process; every call
    returns fresh copies, so modifying them does not affect later calls.

    Examples
    --------
    >>> from sklearn_rank_metrics.datasets import load_lambdarank_example
    >>> data = load_lambdarank_example()
    >>> data.X_train.shape, data.X_test.shape
    ((3005, 300), (768, 300))
    >>> data.qid_train[:5]
    array([0, 1, 1, 1, 1])
    >>> int(data.qid_test.min()), int(data.qid_test.max())
    (201, 250)
    >>> np.unique(data.y_train)
    array([0., 1., 2., 3., 4.])
    """
    train_arrays, test_arrays = _load_lambdarank_arrays()
    X_train, y_train, qid_train = (array.copy() for array in train_arrays)
    X_test, y_test, qid_test = (array.copy() for array in test_arrays)
    feature_names = [f"f{j}" for j in range(LAMBDARANK_N_FEATURES)]

    if as_frame:
        pd = _import_pandas("load_lambdarank_example(as_frame=True)")
        X_train, X_test = (
            pd.DataFrame.sparse.from_spmatrix(X, columns=feature_names)
            for X in (X_train, X_test)
        )
        y_train, y_test = (pd.Series(y, name="relevance") for y in (y_train, y_test))
        qid_train, qid_test = (
            pd.Series(qid, name="qid") for qid in (qid_train, qid_test)
        )

    if return_X_y:
        return X_train, y_train, qid_train, X_test, y_test, qid_test
    return Bunch(
        X_train=X_train,
        y_train=y_train,
        qid_train=qid_train,
        X_test=X_test,
        y_test=y_test,
        qid_test=qid_test,
        feature_names=feature_names,
        DESCR=LAMBDARANK_DESCR,
    )


@functools.lru_cache(maxsize=None)
def _load_lambdarank_arrays():
    """Parse the bundled files once: ``((X, y, qid) train, (X, y, qid) test)``.

    Callers must copy what they hand out: the arrays are shared by all calls.
    """
    train = _load_svmlight_with_queries("rank.train", first_qid=0)
    # Test ids continue after the training ids so the two sets never collide.
    train_qid = train[2]
    test = _load_svmlight_with_queries("rank.test", first_qid=int(train_qid.max()) + 1)
    return train, test


def _load_svmlight_with_queries(name, first_qid):
    """Read ``data/{name}.gz`` and its group sizes ``data/{name}.query.gz``.

    Query ids are numbered from ``first_qid`` in the order of the groups.
    """
    data_folder = resources.files(__package__) / "data"
    with (data_folder / f"{name}.gz").open("rb") as compressed:
        with gzip.open(compressed) as svmlight_file:
            # One-based because the files' indices run from 1 to 300; saying so
            # rather than letting "auto" guess keeps train and test aligned.
            X, y = load_svmlight_file(
                svmlight_file,
                n_features=LAMBDARANK_N_FEATURES,
                dtype=np.float64,
                zero_based=False,
            )
    with (data_folder / f"{name}.query.gz").open("rb") as compressed:
        with gzip.open(compressed) as query_file:
            query_sizes = np.loadtxt(query_file, dtype=np.int64, ndmin=1)
    query_ids = np.arange(first_qid, first_qid + len(query_sizes), dtype=np.int64)
    qid = np.repeat(query_ids, query_sizes)
    if len(qid) != X.shape[0]:
        raise RuntimeError(
            f"Corrupt bundled data: {name}.query.gz counts {len(qid)} documents, "
            f"{name}.gz holds {X.shape[0]}."
        )
    return X.tocsr(), y.astype(np.float64), qid


def _import_pandas(caller):
    """Import pandas, or raise an ImportError saying who needs it and how to get it."""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            f"{caller} requires pandas. Install it with `pip install pandas` "
            "or `pip install sklearn-rank-metrics[pandas]`."
        ) from exc
    return pandas


def load_trec_example():
    """Paths of a small TREC run and its qrels, shipped with the package.

    Eight topics (query ids ``"401"`` to ``"408"``), each with a pool of
    12 to 20 documents judged 0 (not relevant) to 3 (highly relevant), and
    a run that retrieves 10 documents a topic, ranked by a linear model's
    score. Built to show what trec_eval counts: judged documents the run
    did not retrieve (they count in R and in the ideal DCG), two retrieved
    documents a topic left unjudged (not relevant), and three ties of two
    documents of different grades (ties broken by document id in
    trec_eval, averaged over their orders by default here). The files
    (108 qrels lines, 80 run lines) are generated from
    :func:`make_ranking` by ``sklearn_rank_metrics/datasets/_trec_example.py``,
    which writes them again byte for byte.

    Returns
    -------
    qrels_path : str
        The qrels file ``trec_example.qrels``: ``query_id 0 doc_id grade``
        a line.
    run_path : str
        The run file ``trec_example.run``: ``query_id Q0 doc_id rank score
        run_name`` a line.

    See Also
    --------
    sklearn_rank_metrics.trec.evaluate_run : Evaluate the run against the qrels.
    sklearn_rank_metrics.trec.read_trec_run : Read the run into a DataFrame.
    make_ranking : The generator the files come from.

    Examples
    --------
    >>> from sklearn_rank_metrics.datasets import load_trec_example
    >>> from sklearn_rank_metrics.trec import evaluate_run, read_trec_run
    >>> qrels_path, run_path = load_trec_example()
    >>> read_trec_run(run_path).head(3)
      query_id    doc_id  score  rank run_name
    0      401  LA010014   2.38     1   linear
    1      401  LA010005   2.34     2   linear
    2      401  LA010016   2.34     3   linear
    >>> means = evaluate_run(qrels_path, run_path, metrics=["map", "ndcg@10"], ties="trec_eval")
    >>> {name: round(value, 4) for name, value in means.items()}
    {'map': 0.6207, 'ndcg@10': 0.7909}
    """
    folder = resources.files(__package__) / "data"
    return str(folder / "trec_example.qrels"), str(folder / "trec_example.run")
