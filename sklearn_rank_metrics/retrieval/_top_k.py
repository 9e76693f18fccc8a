"""``evaluate_top_k``: metrics of top-k lists of item ids against a (sparse) label matrix."""

import numpy as np

from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine._warnings import warn_caller
from .._engine.prepare._arrays import code_dtype
from .._engine.prepare._sparse import drop_leakage, excluded_pairs, label_pairs
from .._engine.prepare._validation import RankingInput, numeric_array, plain, row_weights
from .._engine.run._run import evaluate_plain
from ..metrics._query_results import query_results, warn_left_out
from ..metrics._score_matrix import warn_leakage
from ._list_call import list_inputs, merged_results
from ._list_measures import split_list_measures
from ._requests import DEFAULT_METRICS, list_call, list_options

def _integer_items(top_items, n_items):
    """``top_items`` as a 2-D int64 array, checked: ids in ``[0, n_items)``, -1 padding at the end."""
    array = np.asarray(top_items)
    if array.ndim != 2:
        raise ValueError(
            f"top_items must be 2-D, one row of item ids per query, got shape {array.shape}."
        )
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"top_items must hold integer item ids (column indices of y_true, -1 for "
            f"padding), got dtype {array.dtype}; convert it, e.g. top_items.astype(int)."
        )
    items = array.astype(np.int64)
    bad = (items < -1) | (items >= n_items)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise ValueError(
            f"top_items of query (row) {plain(row)} holds item {plain(items[row, column])}, "
            f"outside the {n_items} columns of y_true (ids 0 to {n_items - 1}, -1 for padding)."
        )
    padded = items < 0
    reopened = padded[:, :-1] & ~padded[:, 1:]
    if reopened.any():
        row = int(np.argmax(reopened.any(axis=1)))
        raise ValueError(
            f"top_items of query (row) {row} has an item after a -1: -1 pads the end of a "
            "shorter list only; move its items to the front."
        )
    return items


def _check_distinct(items, valid):
    """Raise, naming the query and the item, where a list holds an item twice."""
    ordered = np.sort(np.where(valid, items, -1).astype(np.int32, copy=False), axis=1)
    twice = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    if twice.any():
        row, column = np.argwhere(twice)[0]
        raise ValueError(
            f"top_items of query (row) {plain(row)} lists item {plain(ordered[row, column])} "
            "twice; each item may appear once per list."
        )


def _list_scores(top_scores, items, valid):
    """Scores that rank each list as ``top_scores`` do (ties kept), or by position without them.

    Returns ``(scores, empty, missed)``: int64 scores of the listed items,
    from 2 up, and two below them, 0 for the labelled items a list does not
    hold and 1 for the positions a short list leaves empty. Only the order
    and the ties within each query matter to the engine: a row's score drops
    by one wherever ``top_scores`` does.
    """
    width = items.shape[1]
    if top_scores is None:
        return np.broadcast_to(np.arange(width + 1, 1, -1, dtype=np.int64), items.shape), 1, 0
    scores = np.asarray(top_scores)
    if scores.shape != items.shape:
        raise ValueError(
            f"top_scores must have the shape of top_items {items.shape}, got {scores.shape}."
        )
    listed, _ = numeric_array(np.where(valid, scores, 0), "top_scores", ranks_only=True)
    rising = (listed[:, 1:] > listed[:, :-1]) & valid[:, 1:]
    if rising.any():
        row, column = np.argwhere(rising)[0]
        raise ValueError(
            f"top_scores of query (row) {plain(row)} rise from {plain(listed[row, column])} to "
            f"{plain(listed[row, column + 1])} at position {column + 2}: each row must be "
            "non-increasing, in the order of top_items (sort both by score first)."
        )
    drops = np.zeros(items.shape, dtype=np.int64)
    drops[:, 1:] = listed[:, 1:] != listed[:, :-1]
    return width + 1 - np.cumsum(drops, axis=1), 1, 0


def _head_positions(ranks, valid, k):
    """The list positions a cut at ``k`` reads: the top ``k`` and the rest of the tie block at k."""
    width = ranks.shape[1]
    if k >= width:
        return valid
    kth = ranks[:, k - 1 : k]
    return valid & ((np.arange(width) < k) | (ranks == kth))


def warn_cut_ties(ranks, valid, requests, ties):
    """Warn, counting the queries, where a tie block at a cut runs to the end of a full list.

    The items tied beyond the list are unknown, so the block's size, which
    ``ties="average"`` and the bounds read, is that of its listed part. Under
    ``"first"`` list order decides and nothing is unknown.
    """
    width = ranks.shape[1]
    if ties == "first" or not valid[:, -1].any():
        return
    cuts = sorted({request.k for request in requests if request.k < width})
    unsure = np.zeros(ranks.shape[0], dtype=bool)
    for k in cuts:
        unsure |= valid[:, -1] & (ranks[:, -1] == ranks[:, k - 1])
    if unsure.any():
        warn_caller(
            f"evaluate_top_k: the lists of {int(unsure.sum())} queries (e.g. row "
            f"{int(np.argmax(unsure))}) end inside the block of tied top_scores at a cut: "
            "items tied beyond the list, if any, are unknown, and the block counts only its "
            f"listed items under ties={ties!r}. Pass longer lists (evaluate_retrieval's "
            "return_top_k keeps the whole block only up to its length), or ties='first'.",
            UserWarning,
        )


def _grouped(parts, n_rows):
    """Where each part's rows go so that every query's rows are together, the parts in order.

    ``parts``: ``(rows, counts)`` per part, ``rows`` the (non-decreasing)
    query of each of its entries and ``counts`` their number per query.
    Returns each part's destinations and the total; a scatter, not a sort.
    """
    counts = np.stack([count for _, count in parts])
    starts = np.cumsum(counts.ravel(order="F")).reshape(counts.shape, order="F") - counts
    places = []
    for (rows, count), start in zip(parts, starts):
        first = np.cumsum(count) - count  # each query's first entry in the part
        places.append(start[rows] + np.arange(rows.shape[0]) - first[rows])
    return places, int(counts.sum())


def list_input(items, ranked, keep, labels, cut, query_weights):
    """The flat :class:`RankingInput` of the lists: per query its kept items, empty positions, missed labels.

    Rows come grouped by query and ranked (the engine finds them so and
    does not sort): the listed items in list order, as many empty
    positions (label 0) as a list shorter than ``cut`` (per query: ``k``, or
    the items its exclusions leave, if fewer) lacks, then the
    labelled items the list does not hold, from which R and the ideal DCG
    are counted like those of the items it does.
    """
    n_rows, n_items = items.shape[0], labels.n_items
    ranks, empty_score, missed_score = ranked
    rows, positions = np.nonzero(keep)
    listed_keys = rows * n_items + items[rows, positions]
    where, found = labels.find(listed_keys)
    missed = np.ones(labels.keys.shape[0], dtype=bool)
    missed[where[found]] = False
    missed_rows = labels.keys[missed] // n_items
    n_listed = np.bincount(rows, minlength=n_rows)
    n_empty = np.maximum(cut - n_listed, 0)
    empty_rows = np.repeat(np.arange(n_rows), n_empty)
    parts = [(rows, n_listed), (empty_rows, n_empty)]
    parts.append((missed_rows, np.bincount(missed_rows, minlength=n_rows)))
    (listed_at, empty_at, missed_at), total = _grouped(parts, n_rows)
    scores = np.empty(total, dtype=ranks.dtype)
    scores[listed_at], scores[empty_at], scores[missed_at] = (
        ranks[rows, positions], empty_score, missed_score
    )
    values = np.zeros(total, dtype=labels.values.dtype)
    values[listed_at] = labels.lookup(listed_keys, 0, (where, found))
    values[missed_at] = labels.values[missed]
    query_rows = np.repeat(np.arange(n_rows), n_listed + n_empty + parts[2][1])
    return RankingInput(
        y_true=values,
        y_score=scores,
        query_codes=query_rows.astype(code_dtype(n_rows)),
        query_ids=np.arange(n_rows),
        query_weights=query_weights,
        rows_are_queries=False,
        score_range=(scores.min(), scores.max()),
        label_range=(values.min(), values.max()),
    )


@document_parameters()
def evaluate_top_k(
    y_true,
    top_items,
    *,
    top_scores=None,
    exclude=None,
    metrics=DEFAULT_METRICS,
    item_popularity=None,
    short_head=0.8,
    item_vectors=None,
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
    r"""Evaluate top-k lists of item ids against every relevant item of each query.

    A recommender's (or a retriever's) output is, per query (user), the
    ids of its top ``L`` items. Each measure ``name@k`` (``k <= L``) reads
    the first ``k`` items of a list; the relevant items, R and the ideal
    DCG come from ``y_true``, which holds every relevant item, listed or not:

    .. math::

        \mathrm{recall@k} = \frac{|\{\text{relevant items in the top } k\}|}{R},
        \qquad
        \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{DCG@k} \text{ of the ideal list}}

    and likewise for every measure cut at ``k`` that ``evaluate`` computes
    (ndcg, dcg, cg, mrr, map, gm_map, precision, recall, f1, recall_cap,
    hit_rate, hit_rate_item, err, rbp). The value of each query is what
    ``evaluate`` gives for the flat ranking of its listed items followed by
    its unlisted ones.

    Beyond accuracy, the list measures read only the lists ``L_u`` (the
    first ``k`` listed items of query ``u``), with the item popularity
    ``\phi`` (``item_popularity``), unit item vectors ``\hat v`` (cosine;
    ``item_vectors`` or ``item_categories``) and each query's history
    ``H_u``; per query:

    .. math::

        \mathrm{arp} = \frac{1}{|L_u|} \sum_{i \in L_u} \phi_i, \quad
        \mathrm{aplt} = \frac{|L_u \setminus \mathrm{head}|}{|L_u|}, \quad
        \mathrm{novelty} = \frac{1}{|L_u|} \sum_{i \in L_u}
            -\log_2 \frac{\phi_i}{\sum_j \phi_j},

        \mathrm{ild} = \frac{2}{|L_u| (|L_u| - 1)} \sum_{\{i, j\} \subset L_u}
            (1 - \hat v_i \cdot \hat v_j), \quad
        \mathrm{serendipity} = \frac{1}{|L_u|} \sum_{i \in L_u}
            \mathrm{rel}_{ui} \Big(1 - \frac{1}{|H_u|} \sum_{j \in H_u}
            \hat v_i \cdot \hat v_j\Big),

    ``user_coverage`` is 1 where a list holds ``k`` items; and of the
    catalogue of ``n`` items, with ``x_j`` the exposure of item ``j`` in all
    the lists (``exposure``) and ``x_{(i)}`` in increasing order:

    .. math::

        \mathrm{coverage} = \frac{|\{j : x_j > 0\}|}{n}, \quad
        \mathrm{gini} = \frac{\sum_{i=1}^{n} (2i - n - 1)\, x_{(i)}}{n \sum_j x_j}, \quad
        \mathrm{entropy} = -\sum_j p_j \log p_j, \; p_j = \frac{x_j}{\sum_l x_l}.

    Their conventions, and the options that reproduce RecBole, LensKit,
    Elliot and Recommenders, are in the user guide's "Beyond accuracy"
    section.

    Parameters
    ----------
    y_true : scipy.sparse matrix or array-like of shape (n_queries, n_items)
        Labels of every (query, item) pair, >= 0; implicit zeros are not
        relevant. Columns are the item ids ``top_items`` holds.
    top_items : array-like of int, shape (n_queries, L)
        Each query's top items, best first, as column indices of
        ``y_true``; a list shorter than ``L`` is padded with -1 at its end.
        An item listed twice, an id outside ``[0, n_items)`` or an excluded
        item raises, naming the query.
    top_scores : array-like of shape (n_queries, L), default=None
        The scores of the listed items, non-increasing along each row (an
        error otherwise): equal scores are tied and ranked by ``ties``.
        None: list order is the rank, without ties.
    exclude : scipy.sparse matrix or boolean array of shape (n_queries, n_items), default=None
        Pairs that are neither relevant nor allowed in a list (a
        recommender's training interactions). A listed excluded item raises.
    metrics : str or sequence of str, default=("ndcg@10", "map@10", "mrr@10", "recall@10")
        Measures cut at ``k <= L``, as ``evaluate`` names them (``"ndcg@10"``,
        ``"nDCG@10"``, ``"ndcg_cut_10"``), and the list measures
        ``coverage@k``, ``user_coverage@k``, ``gini@k``, ``entropy@k``,
        ``arp@k``, ``aplt@k``, ``novelty@k``, ``ild@k`` and
        ``serendipity@k``.

    Returns
    -------
    results : dict or QueryResults
        ``{name: mean}`` (a catalogue measure's value as it is), or per
        query with ``average=None`` (query ids are the row numbers; the
        catalogue measures in :attr:`QueryResults.catalogue`).

    See Also
    --------
    evaluate_retrieval : The top items selected from query and item vectors.
    evaluate : The same measures from a full score matrix.

    Notes
    -----
    Positions a short list leaves empty count as non-relevant: P@k divides
    by ``k``, and a relevant item the list does not hold is never ranked
    within ``k``. The tie block at the cut is what ``top_scores`` say; a
    list cut inside a block of tied scores cannot tell the items beyond it.

    A list measure reads the list as it is shown, position by position:
    ``top_scores`` and ``ties`` decide the accuracy measures' credit for
    tied items, not which items a list shows in its first ``k``. A list
    measure divides by the items listed, not by ``k``; a query
    whose value is undefined (an empty list, ild of fewer than two items,
    serendipity without history) is NaN, left out of the mean with a
    warning that counts such queries. A listed item of popularity 0 makes
    novelty infinite and raises; an item whose vector is zero has no cosine
    and raises. Queries weigh the exposure by ``sample_weight``.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008.
    .. [2] M. Kaminskas and D. Bridge, "Diversity, Serendipity, Novelty,
       and Coverage: A Survey and Empirical Analysis of Beyond-Accuracy
       Objectives in Recommender Systems", ACM TiiS 7(1), 2016.
    .. [3] H. Abdollahpouri, R. Burke and B. Mobasher, "Controlling
       Popularity Bias in Learning-to-Rank Recommendation", RecSys 2017
       (APLT); H. Yin et al., "Challenging the Long Tail Recommendation",
       VLDB 2012 (ARP).
    .. [4] P. Castells, S. Vargas and J. Wang, "Novelty and Diversity Metrics
       for Recommender Systems: Choice, Discovery and Relevance", 2011.
    .. [5] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen,
       "Improving Recommendation Lists Through Topic Diversification", WWW
       2005 (intra-list similarity).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse import csr_array
    >>> from sklearn_rank_metrics import evaluate_top_k
    >>> y_true = csr_array(np.array([[0, 1, 0, 1, 0], [1, 0, 0, 0, 0]]))
    >>> top_items = [[3, 2, 0], [4, 2, -1]]
    >>> evaluate_top_k(y_true, top_items, metrics=["recall@3", "mrr@3"])
    {'recall@3': 0.25, 'mrr@3': 0.5}
    >>> evaluate_top_k(y_true, top_items, metrics=["coverage@2", "arp@2"],
    ...                item_popularity=[9, 1, 4, 2, 0])
    {'coverage@2': 0.6, 'arp@2': 2.5}
    """
    options = list_options(
        "evaluate_top_k", gain=gain, label_gain=label_gain, ap_denominator=ap_denominator,
        relevance_level=relevance_level, ties=ties,
        no_relevant=no_relevant, leakage=leakage, average=average,
    )  # fmt: skip
    labels = label_pairs(y_true)
    n_rows, n_items = labels.shape
    items = _integer_items(top_items, n_items)
    if items.shape[0] != n_rows:
        raise ValueError(
            f"top_items has {items.shape[0]} rows but y_true has {n_rows}: one list per query."
        )
    check_parameters("evaluate_top_k", exposure=exposure, entropy_unit=entropy_unit)
    names, list_requests, order = split_list_measures(metrics, "evaluate_top_k", items.shape[1])
    requests = []
    if names:
        requests, options = list_call(names, options, "evaluate_top_k", width=items.shape[1])
    valid = items >= 0
    _check_distinct(items, valid)
    excluded = None if exclude is None else excluded_pairs(exclude, labels.shape)
    if excluded is not None:
        rows, positions = np.nonzero(valid)
        listed = excluded.contains(rows * n_items + items[rows, positions])
        if listed.any():
            row, item = plain(rows[listed][0]), plain(items[rows[listed][0], positions[listed][0]])
            raise ValueError(
                f"top_items of query (row) {row} lists item {item}, which exclude marks for "
                f"that query ({int(listed.sum())} listed excluded pair(s) in all); remove "
                "excluded items from the lists before evaluating them."
            )
    labels, n_dropped = drop_leakage(labels, excluded, options.leakage)
    warn_leakage(n_dropped)
    weights = row_weights(sample_weight, n_rows)
    given = dict(
        item_popularity=item_popularity, short_head=short_head, item_vectors=item_vectors,
        item_categories=item_categories, history=history, exposure=exposure,
        entropy_unit=entropy_unit, query_weights=weights,
    )  # fmt: skip
    inputs = list_inputs(list_requests, given, labels.shape, labels, options, "evaluate_top_k")
    lists = (list_requests, items, valid, inputs)
    ranked = _list_scores(top_scores, items, valid)  # checked whichever measures read them
    if not requests:
        return merged_results((names, None), lists, order, n_rows, average)
    k = max(request.k for request in requests)
    if top_scores is not None:
        warn_cut_ties(ranked[0], valid, requests, options.ties)
    keep = _head_positions(ranked[0], valid, k)
    # A list holds no more than the items a query's exclusions leave: no empty
    # position beyond them (hit_rate_item pools min(k, items left), as evaluate does).
    cut = np.full(n_rows, k, dtype=np.int64)
    if excluded is not None:
        left = n_items - np.bincount(excluded.rows(), minlength=n_rows)
        cut = np.minimum(cut, left)
    data = list_input(items, ranked, keep, labels, cut, weights)
    results = query_results(evaluate_plain(requests, data, options))
    if list_requests:
        return merged_results((names, results), lists, order, n_rows, average)
    warn_left_out(results)
    return results.mean() if average == "mean" else results
