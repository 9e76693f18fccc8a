"""What the tests of the recommender and retrieval inputs share.

Each input (a score matrix with sparse labels and excluded pairs, top-k id
lists, query and item vectors) is compared with the flat engine on the same
materialized rows: one row per (query, item) pair that is not excluded, in
row-major order (so ``ties="first"`` reads the columns' order), evaluated by
``evaluate(y_true, y_score, qid=...)`` on 1-D input.
"""

import numpy as np
from scipy import sparse

import sklearn_rank_metrics as srm

# The measures a cut ranking answers (the package's HEAD_DEFINITIONS), each at
# several cutoffs below, at and above a list's length.
HEAD_MEASURES = (
    "ndcg", "dcg", "cg", "mrr", "map", "gm_map", "precision", "recall", "f1", "recall_cap",
    "hit_rate", "hit_rate_item", "err", "rbp",
)  # fmt: skip
TIES = ("average", "first", "optimistic", "pessimistic")


def head_metrics(ks, ties="average", measures=HEAD_MEASURES):
    """``name@k`` of every head measure and cutoff; err left out under ``ties="average"``."""
    return [
        f"{name}@{k}"
        for name in measures
        for k in ks
        if not (name == "err" and ties == "average")
    ]


def flat_rows(y_true, y_score, exclude=None):
    """``(labels, scores, qid)`` of every pair not excluded, row-major (dense inputs)."""
    y_true = dense(y_true)
    y_score = np.asarray(y_score)
    keep = np.ones(y_score.shape, bool) if exclude is None else ~dense(exclude).astype(bool)
    rows, columns = np.nonzero(keep)
    return y_true[rows, columns], y_score[rows, columns], rows


def dense(matrix):
    """A scipy.sparse matrix or array (or an array-like) as a dense ndarray."""
    return matrix.toarray() if sparse.issparse(matrix) else np.asarray(matrix)


def flat_results(y_true, y_score, metrics, exclude=None, sample_weight=None, **options):
    """Per-query results of the flat engine on the materialized rows: ``{query: {name: value}}``.

    A query whose every item is excluded has no row, hence no value here.
    ``sample_weight``: one weight per query (row of the matrix), repeated on its rows.
    """
    labels, scores, qid = flat_rows(y_true, y_score, exclude)
    if sample_weight is not None:
        options["sample_weight"] = np.asarray(sample_weight)[qid]
    results = srm.evaluate(labels, scores, qid=qid, metrics=metrics, average=None, **options)
    return results


def assert_same_per_query(results, expected, metrics, queries=None):
    """Per query, bit for bit: ``results`` (every row) against ``expected`` (the flat rows' queries)."""
    rows = np.asarray(expected.query_ids) if queries is None else np.asarray(queries)
    assert list(results.metrics) == list(expected.metrics)
    for name in metrics:
        got = np.asarray(results[name])[rows]
        want = np.asarray(expected[name])
        assert np.array_equal(got, want, equal_nan=True), (name, got, want)
        assert np.array_equal(results.weights(name)[rows], expected.weights(name)), name


def random_matrix(rng, n_queries, n_items, *, density=0.3, grades=(1, 2, 3), score_values=None,
                  exclude_density=0.2, all_excluded_row=False, empty_row=True):  # fmt: skip
    """``(y_true, y_score, exclude)``, dense: labels in ``grades``, a disjoint boolean mask.

    ``score_values``: draw scores from these (ties); None: random floats.
    One row has no relevant item where ``empty_row`` (its values are those
    of the no_relevant convention).
    """
    y_true = np.where(rng.random((n_queries, n_items)) < density,
                      rng.choice(grades, (n_queries, n_items)), 0)  # fmt: skip
    if empty_row and n_queries > 1:
        y_true[-1] = 0
    if score_values is None:
        y_score = rng.standard_normal((n_queries, n_items))
    else:
        y_score = rng.choice(np.asarray(score_values), (n_queries, n_items))
    exclude = (rng.random((n_queries, n_items)) < exclude_density) & (y_true == 0)
    if all_excluded_row:
        exclude[0] = True
        y_true[0] = 0
    return y_true, y_score, exclude


def power_of_two_vectors(rng, n, dims=16):
    """Integer vectors whose norms are powers of two: ``c * s``, ``s`` in {-1, 1}^dims, c in {1, 2, 4}.

    Their cosine similarities are exact in floating point (a dot product of
    small integers over a power of two), so the reference matrix is too;
    each vector's direction is drawn from few, so scores tie often.
    """
    signs = rng.choice([-1.0, 1.0], (n, dims))
    signs[:, : dims // 2] = 1.0  # few directions: ties across the catalogue
    return signs * rng.choice([1.0, 2.0, 4.0], (n, 1))


def similarity_matrix(queries, items, similarity):
    """The (n_queries, n_items) similarity matrix, as ``evaluate_retrieval``'s docstring defines it."""
    scores = queries @ items.T
    if similarity == "cosine":
        norms = np.linalg.norm(queries, axis=1)[:, None] * np.linalg.norm(items, axis=1)[None, :]
        scores = scores / norms
    return scores


def top_k_flat(y_true, top_items, top_scores=None, exclude=None):
    """``(labels, scores, qid)``: the flat rows ``evaluate_top_k`` stands for, row by row.

    Each query: its listed items (scored ``top_scores``, or by position),
    then one label-0 row per padding position an item could fill (up to
    the number of items the query has left after ``exclude``), then the
    labelled items the list does not hold, below them all.
    """
    y_true = dense(y_true)
    items = np.asarray(top_items)
    n_rows, width = items.shape
    left = np.full(n_rows, y_true.shape[1]) if exclude is None else (~dense(exclude)).sum(axis=1)
    scores = (np.broadcast_to(np.arange(width, 0, -1.0), items.shape) if top_scores is None
              else np.asarray(top_scores, float))  # fmt: skip
    labels, values, qid = [], [], []
    for row in range(n_rows):
        listed = items[row][items[row] >= 0]
        low = np.min(scores[row][: len(listed)], initial=0.0)
        missed = np.setdiff1d(np.flatnonzero(y_true[row]), listed)
        n_padding = max(min(width, left[row]) - len(listed), 0)
        labels += [*y_true[row, listed], *[0] * n_padding, *y_true[row, missed]]
        values += [*scores[row][: len(listed)], *[low - 1] * n_padding, *[low - 2] * len(missed)]
        qid += [row] * (len(listed) + n_padding + len(missed))
    return np.array(labels), np.array(values), np.array(qid)
