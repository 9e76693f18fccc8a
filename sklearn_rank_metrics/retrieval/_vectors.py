"""``evaluate_retrieval``: query and item vectors scored block by block, top items selected exactly."""

import numpy as np

from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine._threads import thread_limit
from .._engine.prepare._top_k import strip_rows
from .._engine.prepare._validation import numeric_array, plain, row_weights
from .._engine.run._strips import evaluate_strips, matrix_labels
from ..metrics._query_results import query_results, warn_left_out
from ..metrics._score_matrix import warn_leakage
from ._list_call import LIST_KEYWORDS, list_inputs, merged_results
from ._list_measures import split_list_measures
from ._requests import DEFAULT_METRICS, list_call, list_options

SIMILARITIES = ("dot", "cosine")


def _vectors(values, name):
    """``values`` as a 2-D float array (float32 kept, other numbers as float64), finite."""
    array, _ = numeric_array(values, name)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one vector per row), got shape {array.shape}.")
    if array.dtype != np.float32:
        array = array.astype(np.float64, copy=False)
    return array


def _inverse_norms(vectors, name):
    """``1 / ||v||`` of every row, for cosine similarity; a zero vector raises, naming its row."""
    norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64))
    if not norms.all():
        raise ValueError(
            f"{name} row {plain(np.argmin(norms))} is a zero vector, whose cosine similarity "
            "is undefined; drop it or use similarity='dot'."
        )
    return (1.0 / norms).astype(vectors.dtype)


def _finite_scores(scores, first_row):
    """Raise, naming the query, where a similarity overflowed (inf, or NaN from inf - inf)."""
    finite = np.isfinite(scores).all(axis=1)
    if not finite.all():
        raise ValueError(
            f"evaluate_retrieval: the similarities of query (row) "
            f"{plain(first_row + np.argmin(finite))} overflow {scores.dtype} (vectors too long "
            "for their dtype); scale the vectors down"
            + (", or pass them as float64." if scores.dtype == np.float32 else ".")
        )


class _TopLists:
    """Collects the top ``k`` items and scores of each query from the strips' heads."""

    def __init__(self, n_queries, k, dtype):
        self.k = k
        self.items = np.full((n_queries, k), -1, dtype=np.int64)
        self.scores = np.full((n_queries, k), np.nan, dtype=dtype)

    def see(self, first_row, scores, heads):
        """Keep the top ``k`` of each row of a strip's heads, by score, ties by item id.

        The heads come by row and item id: a table of each row's heads,
        stably sorted by score along its rows, keeps the item order within
        a tie. Rows whose head is a wide tie are sorted on their own.
        """
        rows, columns = heads.rows, heads.columns
        values = scores[rows, columns]
        counts = np.bincount(rows, minlength=scores.shape[0])
        first = np.cumsum(counts) - counts
        position = np.arange(rows.shape[0]) - first[rows]
        narrow = counts <= 4 * self.k
        taken = narrow[rows]
        width = int(counts[narrow].max()) if narrow.any() else 0
        table_rows = np.flatnonzero(narrow)
        slot = np.cumsum(narrow) - 1
        table = np.full((table_rows.shape[0], width), -np.inf, dtype=values.dtype)
        items = np.full(table.shape, -1, dtype=np.int64)
        table[slot[rows[taken]], position[taken]] = values[taken]
        items[slot[rows[taken]], position[taken]] = columns[taken]
        order = np.argsort(-table, axis=1, kind="stable")[:, : self.k]
        ranked_items = np.take_along_axis(items, order, axis=1)
        ranked_values = np.take_along_axis(table, order, axis=1)
        filled = ranked_items >= 0
        where = np.nonzero(filled)
        self.items[first_row + table_rows[where[0]], where[1]] = ranked_items[filled]
        self.scores[first_row + table_rows[where[0]], where[1]] = ranked_values[filled]
        wide = ~taken
        if wide.any():  # a wide tie: by score, then item id, with a sort of these cells only
            rows, columns, values = rows[wide], columns[wide], values[wide]
            order = np.lexsort((columns, -values, rows))
            rows, columns, values = rows[order], columns[order], values[order]
            rank = np.arange(rows.shape[0]) - np.searchsorted(rows, rows, side="left")
            kept = rank < self.k
            self.items[first_row + rows[kept], rank[kept]] = columns[kept]
            self.scores[first_row + rows[kept], rank[kept]] = values[kept]


def similarity_strips(queries, items, similarity, batch_size):
    """``(first_row, scores)``: the similarities of consecutive blocks of queries with every item.

    Each block is one matrix product (BLAS, on at most the threads the
    package's configuration allows), ``batch_size`` queries at a time.
    """
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    query_scale = item_scale = None
    if similarity == "cosine":
        query_scale = _inverse_norms(queries, "query_vectors")
        item_scale = _inverse_norms(items, "item_vectors")
    dtype = np.result_type(queries.dtype, items.dtype)
    items_t = items.T.astype(dtype, copy=False)
    # |q . v| <= ||q|| ||v|| bounds every partial sum too: below the dtype's
    # largest number no product can overflow to inf or NaN, unchecked.
    bound = np.sqrt(np.einsum("ij,ij->i", queries, queries, dtype=np.float64).max()) * np.sqrt(
        np.einsum("ij,ij->i", items, items, dtype=np.float64).max()
    )
    may_overflow = not bound < np.finfo(dtype).max / 2
    for first_row in range(0, queries.shape[0], batch_size):
        block = queries[first_row : first_row + batch_size].astype(dtype, copy=False)
        # An overflow is not warned here: the selection raises on it, naming the query.
        with threadpool_limits(limits=thread_limit(), user_api="blas"), np.errstate(over="ignore", invalid="ignore"):
            scores = block @ items_t
            if similarity == "cosine":
                scores *= query_scale[first_row : first_row + batch_size, None]
                scores *= item_scale[None, :]
        if may_overflow:
            _finite_scores(scores, first_row)
        yield first_row, scores


@document_parameters()
def evaluate_retrieval(
    query_vectors,
    item_vectors,
    y_true,
    *,
    similarity="dot",
    exclude=None,
    metrics=DEFAULT_METRICS,
    return_top_k=None,
    batch_size=None,
    item_popularity=None,
    short_head=0.8,
    item_categories=None,
    history=None,
    exposure="count",
    entropy_unit="bits",
    gain="linear",
    label_gain=None,
    ap_denominator="R",
    relevance_level=1,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    average="mean",
):
    r"""Evaluate retrieval from query and item vectors: factors or embeddings, exact at the cut.

    The score of item ``j`` for query ``i`` is the similarity of their
    vectors,

    .. math::

        s_{ij} = q_i \cdot v_j \quad (\text{"dot"}), \qquad
        s_{ij} = \frac{q_i \cdot v_j}{\lVert q_i \rVert \, \lVert v_j \rVert}
        \quad (\text{"cosine"}).

    Scores are
    computed for ``batch_size`` queries at a time (one matrix product per
    block), each query's top ``k`` items selected exactly (a linear-time
    selection, not a sort, with every item tied with the ``k``-th kept), and
    the measures computed as :func:`evaluate` computes them on the full
    score matrix, query for query: the (n_queries, n_items) matrix is never
    held whole.

    Parameters
    ----------
    query_vectors : array-like of shape (n_queries, n_dims)
        One vector per query (user factors, query embeddings). float32
        stays float32; other numbers are read as float64.
    item_vectors : array-like of shape (n_items, n_dims)
        One vector per item (item factors, document embeddings). ``ild@k``
        and ``serendipity@k`` compare items by their cosine, unless
        ``item_categories`` is given.
    y_true : scipy.sparse matrix or array-like of shape (n_queries, n_items)
        Labels of every (query, item) pair, >= 0; implicit zeros are not
        relevant.
    similarity : {"dot", "cosine"}, default="dot"
        The score of a pair.
    exclude : scipy.sparse matrix or boolean array of shape (n_queries, n_items), default=None
        Pairs left out of each query's ranking (training interactions):
        neither ranked, nor relevant, nor in R.
    metrics : str or sequence of str, default=("ndcg@10", "map@10", "mrr@10", "recall@10")
        Measures cut at ``k``, as :func:`evaluate_top_k` takes them, the
        list measures included (``"coverage@10"``, ``"ild@10"``, ...): these
        read each query's top ``k`` items by score, ties broken by lower
        item id.
    return_top_k : int, default=None
        Also return each query's top ``return_top_k`` items (ties broken
        by item id) and their scores, as two (n_queries, return_top_k) arrays
        padded with -1 and NaN: ready for :func:`evaluate_top_k` or
        ``write_trec_run``.
    batch_size : int, default=None
        Queries scored at a time. None: blocks of at most 512 MiB of scores
        with what their selection adds (107 float32 queries at a million
        items), so memory beyond the vectors and labels is one such block
        whatever the number of queries.

    Returns
    -------
    results : dict or QueryResults
        ``{name: mean}``, or per query with ``average=None``.
    top_items, top_scores : ndarray of shape (n_queries, return_top_k)
        Only with ``return_top_k``: the items and scores, best first.

    See Also
    --------
    evaluate_top_k : Metrics of given top-k lists.
    evaluate : Metrics of a full score matrix (``exclude=`` too).

    Notes
    -----
    Ties at the cut are exact: a block of tied scores straddling position
    ``k`` is kept whole, so ``ties="average"`` gives the expected value over
    the orderings of the tie (two identical item vectors, or a constant
    scorer, get no credit for their order). The matrix products run on
    NumPy's BLAS with at most the threads :func:`set_config` allows
    (``threadpoolctl``). Excluded cells are set to ``-inf`` before the
    selection and never selected.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.
    .. [2] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020 (why every item is ranked, not a sample).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse import csr_array
    >>> from sklearn_rank_metrics import evaluate_retrieval
    >>> queries = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> items = np.array([[1.0, 0.1], [0.2, 1.0], [0.5, 0.5]])
    >>> y_true = csr_array(np.array([[1, 0, 0], [0, 0, 1]]))
    >>> evaluate_retrieval(queries, items, y_true, metrics=["mrr@2", "recall@1"])
    {'mrr@2': 0.75, 'recall@1': 0.5}
    """
    options = list_options(
        "evaluate_retrieval", similarity=similarity, return_top_k=return_top_k,
        batch_size=batch_size, gain=gain, label_gain=label_gain, ap_denominator=ap_denominator,
        relevance_level=relevance_level, ties=ties,
        no_relevant=no_relevant, leakage=leakage, average=average,
    )  # fmt: skip
    check_parameters("evaluate_retrieval", exposure=exposure, entropy_unit=entropy_unit)
    names, list_requests, order = split_list_measures(metrics, "evaluate_retrieval")
    requests = []
    if names:
        requests, options = list_call(names, options, "evaluate_retrieval")
    queries = _vectors(query_vectors, "query_vectors")
    items = _vectors(item_vectors, "item_vectors")
    if queries.shape[1] != items.shape[1]:
        raise ValueError(
            f"query_vectors have {queries.shape[1]} dimensions but item_vectors "
            f"{items.shape[1]}: both must be vectors of one space."
        )
    shape = (queries.shape[0], items.shape[0])
    weights = row_weights(sample_weight, shape[0])
    matrix, n_dropped = matrix_labels(y_true, shape, exclude, options.leakage, weights)
    warn_leakage(n_dropped)
    measures = {request.measure.name for request in list_requests}
    similar = measures & set(LIST_KEYWORDS["item_vectors"]) and item_categories is None
    given = dict(
        item_popularity=item_popularity, short_head=short_head,
        item_vectors=items if similar else None, item_categories=item_categories,
        history=history, exposure=exposure, entropy_unit=entropy_unit, query_weights=weights,
    )  # fmt: skip
    inputs = list_inputs(
        list_requests, given, shape, matrix.labels, options, "evaluate_retrieval"
    )
    top_k = max([request.k for request in list_requests] + [return_top_k or 0])
    if batch_size is None:
        k = max([request.k for request in requests] + [top_k])
        itemsize = np.result_type(queries.dtype, items.dtype).itemsize
        batch_size = strip_rows(shape[1], itemsize, k)
    strips = similarity_strips(queries, items, similarity, batch_size)
    top = None
    if top_k:  # no list holds more than the catalogue: a larger k keeps the columns it can fill
        top = _TopLists(shape[0], min(top_k, shape[1]), np.result_type(queries.dtype, items.dtype))
    results = evaluate_strips(
        requests, matrix, strips, options, owner="evaluate_retrieval",
        on_heads=None if top is None else (top.k, top.see),
    )  # fmt: skip
    results = None if results is None else query_results(results)
    if list_requests:
        lists = (list_requests, top.items, top.items >= 0, inputs)
        results = merged_results((names, results), lists, order, shape[0], average)
    else:
        warn_left_out(results)
        results = results.mean() if average == "mean" else results
    if return_top_k is None:
        return results
    padding = ((0, 0), (0, max(return_top_k - top.k, 0)))
    return (
        results,
        np.pad(top.items[:, :return_top_k], padding, constant_values=-1),
        np.pad(top.scores[:, :return_top_k], padding, constant_values=np.nan),
    )
