"""Errors of the recommender and retrieval inputs: each names the query (row) or argument, and the fix."""

import re

import numpy as np
import pytest
from scipy import sparse

import sklearn_rank_metrics as srm

Y_TRUE = sparse.csr_array(np.array([[1, 0, 0, 2], [0, 1, 0, 0], [0, 0, 1, 0]]))
SCORES = np.arange(12.0).reshape(3, 4)
LISTS = [[1, 2], [0, 2], [0, 1]]
ONES_Q, ONES_I = np.ones((3, 2)), np.ones((4, 2))
# Pairs both labelled and excluded: (0, 0), (0, 3), (2, 2).
LEAKING = sparse.csr_array(np.array([[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 0]]))
M = ["ndcg@2"]


def _top_k(**given):
    return srm.evaluate_top_k(Y_TRUE, given.pop("top_items", LISTS), metrics=M, **given)


def _retrieval(queries=ONES_Q, items=ONES_I, **given):
    return srm.evaluate_retrieval(queries, items, Y_TRUE, **{"metrics": M, **given})


ERRORS = {
    # evaluate_top_k: the lists.
    "duplicate item": (lambda: _top_k(top_items=[[0, 1], [1, 1], [0, 2]]), ValueError,
                       "query (row) 1 lists item 1 twice"),
    "id past the catalogue": (lambda: _top_k(top_items=[[0, 1], [1, 4], [0, 2]]), ValueError,
                              "query (row) 1 holds item 4, outside the 4 columns"),
    "negative id": (lambda: _top_k(top_items=[[0, 1], [1, -2], [0, 2]]), ValueError,
                    "query (row) 1 holds item -2"),
    "-1 before an item": (lambda: _top_k(top_items=[[0, 1], [-1, 2], [0, 2]]), ValueError,
                          "query (row) 1 has an item after a -1"),
    "excluded item listed": (
        lambda: _top_k(exclude=np.array([[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], bool)),
        ValueError, "query (row) 1 lists item 2, which exclude marks",
    ),
    "rising top_scores": (lambda: _top_k(top_scores=[[2, 1], [1, 1], [0.5, 0.7]]), ValueError,
                          "top_scores of query (row) 2 rise from 0.5 to 0.7 at position 2"),
    "top_scores shape": (lambda: _top_k(top_scores=[[1, 0]]), ValueError,
                         "top_scores must have the shape of top_items (3, 2), got (1, 2)"),
    "float ids": (lambda: _top_k(top_items=np.array(LISTS, float)), TypeError,
                  "top_items must hold integer item ids"),
    "one list too few": (lambda: _top_k(top_items=LISTS[:2]), ValueError,
                         "top_items has 2 rows but y_true has 3"),
    "k past the lists": (lambda: srm.evaluate_top_k(Y_TRUE, LISTS, metrics=["ndcg@3"]),
                         ValueError, "'ndcg@3' needs the top 3 items of each query, but "
                         "top_items holds 2"),
    "uncut ndcg (top_k)": (lambda: srm.evaluate_top_k(Y_TRUE, LISTS, metrics=["ndcg"]),
                           ValueError, "evaluate_top_k: 'ndcg' cannot be computed from each "
                           "query's top k"),
    "r_precision (top_k)": (lambda: srm.evaluate_top_k(Y_TRUE, LISTS, metrics=["r_precision"]),
                            ValueError, "'r_precision' cannot be computed"),
    # Leakage, in every input.
    "leakage (evaluate)": (lambda: srm.evaluate(Y_TRUE, SCORES, exclude=LEAKING, metrics=M),
                           ValueError, "3 (query, item) pair(s) are both labelled in y_true "
                           "and excluded, e.g. row 0, column 0"),
    "leakage (top_k)": (lambda: _top_k(top_items=[[1, 2], [0, 2], [0, 1]], exclude=LEAKING),
                        ValueError, "3 (query, item) pair(s) are both labelled"),
    "leakage (retrieval)": (lambda: _retrieval(exclude=LEAKING), ValueError,
                            "3 (query, item) pair(s) are both labelled"),
    # evaluate's score matrix.
    "n_relevant with sparse": (lambda: srm.evaluate(Y_TRUE, SCORES, n_relevant={0: 3},
                                                    metrics=M), ValueError,  # fmt: skip
                               "evaluate: n_relevant cannot be combined with a sparse y_true"),
    "qid with sparse": (lambda: srm.evaluate(Y_TRUE, SCORES, qid=[0, 1, 2], metrics=M),
                        ValueError, "evaluate: qid is only for 1-D input"),
    "1-D y_score with exclude": (
        lambda: srm.evaluate([1, 0, 1], [0.1, 0.2, 0.3], exclude=np.array([True, False, False]),
                             metrics=M),  # fmt: skip
        ValueError, "y_score must be 2-D",
    ),
    "exclude shape": (lambda: srm.evaluate(Y_TRUE, SCORES, exclude=np.zeros((3, 3), bool),
                                           metrics=M), ValueError,  # fmt: skip
                      "exclude must be a boolean or sparse mask of shape (3, 4)"),
    "exclude not boolean": (lambda: srm.evaluate(Y_TRUE, SCORES, exclude=np.zeros((3, 4), int),
                                                 metrics=M), TypeError,  # fmt: skip
                            "exclude must be a boolean mask (or a scipy.sparse matrix), got "
                            "dtype int64; pass exclude != 0"),
    "y_true shape": (lambda: srm.evaluate(Y_TRUE, SCORES[:, :3], metrics=M), ValueError,
                     "y_true has shape (3, 4) but the scores are of shape (3, 3)"),
    "negative label": (
        lambda: srm.evaluate(sparse.csr_array(np.array([[1, -1, 0, 2], [0, 1, 0, 0],
                                                        [0, 0, 1, 0]])), SCORES, metrics=M),
        ValueError, "y_true holds negative labels, e.g. -1 at row 0, column 1",
    ),
    "cell stored twice": (
        lambda: srm.evaluate(sparse.coo_array((np.array([1, 1]), (np.array([0, 0]),
                             np.array([1, 1]))), shape=(3, 4)), SCORES, metrics=M),
        ValueError, "y_true stores 1 cell(s) twice, e.g. row 0, column 1",
    ),
    "NaN score": (lambda: srm.evaluate(Y_TRUE, np.where(SCORES == 5, np.nan, SCORES),
                                       metrics=M), ValueError,  # fmt: skip
                  "y_score contains NaN values"),
    "sparse y_score, dense y_true": (
        lambda: srm.evaluate(Y_TRUE.toarray(), sparse.csr_array(SCORES), metrics=M),
        TypeError, "y_score is a scipy.sparse csr_array: only y_true",
    ),
    "sparse y_score, sparse y_true": (
        lambda: srm.evaluate(Y_TRUE, sparse.csr_array(SCORES), metrics=M),
        TypeError, "y_score is a scipy.sparse csr_array: only y_true",
    ),
    # evaluate_retrieval: the vectors.
    "zero query vector (cosine)": (
        lambda: _retrieval(queries=np.array([[1.0, 0], [0, 0], [1, 1]]), similarity="cosine"),
        ValueError, "query_vectors row 1 is a zero vector",
    ),
    "zero item vector (cosine)": (
        lambda: _retrieval(items=np.array([[1.0, 0], [0, 1], [0, 0], [1, 1]]),
                           similarity="cosine"),  # fmt: skip
        ValueError, "item_vectors row 2 is a zero vector",
    ),
    "NaN in query vectors": (lambda: _retrieval(queries=np.array([[1.0, 0], [np.nan, 0], [1, 1]])),
                             ValueError, "query_vectors contains NaN values"),
    "NaN in item vectors": (
        lambda: _retrieval(items=np.array([[1.0, 0], [0, 1], [np.nan, 0], [1, 1]])),
        ValueError, "item_vectors contains NaN values",
    ),
    "infinite item vector": (
        lambda: _retrieval(items=np.array([[1.0, 0], [0, 1], [np.inf, 0], [1, 1]])),
        ValueError, "item_vectors contains infinite values",
    ),
    "overflowing similarity": (
        lambda: _retrieval(queries=np.full((3, 2), 1e200), items=np.full((4, 2), 1e200)),
        ValueError, "evaluate_retrieval: the similarities of query (row) 0 overflow float64",
    ),
    "mismatched dimensions": (lambda: _retrieval(items=np.ones((4, 3))), ValueError,
                              "query_vectors have 2 dimensions but item_vectors 3"),
    "one query vector too few": (lambda: _retrieval(queries=np.ones((2, 2))), ValueError,
                                 "y_true has shape (3, 4) but the scores are of shape (2, 4)"),
    "uncut map (retrieval)": (lambda: _retrieval(metrics=["map"]), ValueError,
                              "evaluate_retrieval: 'map' cannot be computed from each query's "
                              "top k: give a cutoff"),
    "fallout (retrieval)": (lambda: _retrieval(metrics=["fallout@2"]), ValueError,
                            "'fallout@2' cannot be computed"),
    "similarity": (lambda: _retrieval(similarity="l2"), ValueError,
                   "similarity='l2' is not valid; similarity must be one of 'dot', 'cosine'"),
    "return_top_k=0": (lambda: _retrieval(return_top_k=0), ValueError,
                       "return_top_k=0 is not valid"),
    "batch_size=0": (lambda: _retrieval(batch_size=0), ValueError, "batch_size=0 is not valid"),
    "err tied (retrieval)": (lambda: _retrieval(metrics=["err@2"]), ValueError,
                             "ERR has no closed form for its expected value"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_names_the_query_or_argument(case):
    call, error, message = ERRORS[case]
    with pytest.raises(error, match=re.escape(message)) as raised:
        call()
    assert "np." not in str(raised.value)  # the user's values, never numpy reprs


@pytest.mark.parametrize("path", ["evaluate", "evaluate_top_k", "evaluate_retrieval"])
def test_leakage_exclude_warns_counting_the_dropped_pairs(path):
    """leakage="exclude" drops the 3 leaking pairs (a warning counts them): the values without them."""
    calls = {
        "evaluate": lambda y, **o: srm.evaluate(y, SCORES, metrics=M, average=None, **o),
        "evaluate_top_k": lambda y, **o: srm.evaluate_top_k(y, LISTS, metrics=M, average=None,
                                                            **o),  # fmt: skip
        "evaluate_retrieval": lambda y, **o: srm.evaluate_retrieval(
            np.eye(3, 2), np.arange(8.0).reshape(4, 2), y, metrics=M, average=None, **o
        ),
    }
    with pytest.warns(UserWarning, match=re.escape("leakage='exclude' dropped 3 (query, item) pair(s)")):
        got = calls[path](Y_TRUE, exclude=LEAKING, leakage="exclude")
    kept = Y_TRUE.toarray() * ~LEAKING.toarray().astype(bool)
    want = calls[path](sparse.csr_array(kept), exclude=LEAKING)
    assert np.array_equal(got[M[0]], want[M[0]])
