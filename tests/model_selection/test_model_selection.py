"""Tests for the query splitters QueryKFold and QueryShuffleSplit."""

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold

from sklearn_rank_metrics import QueryKFold, QueryShuffleSplit
from sklearn_rank_metrics.datasets import make_ranking

SPLITTERS = [
    QueryKFold(n_splits=4),
    QueryKFold(n_splits=3, shuffle=True, random_state=0),
    QueryShuffleSplit(n_splits=4, test_size=0.25, random_state=0),
]


def interleaved_qid(n_queries=25, seed=0, as_text=False):
    _, _, qid = make_ranking(
        n_queries=n_queries,
        docs_per_query=(1, 12),
        n_features=1,
        interleave=True,
        random_state=seed,
    )
    return np.char.add("q", qid.astype(str)) if as_text else qid


def queries_of_folds(splitter, qid, X=None):
    """The query ids of every (train, test) fold, as sets."""
    X = np.zeros((len(qid), 1)) if X is None else X
    return [
        (frozenset(qid[train].tolist()), frozenset(qid[test].tolist()))
        for train, test in splitter.split(X, qid=qid)
    ]


@pytest.mark.parametrize("splitter", SPLITTERS, ids=repr)
@pytest.mark.parametrize("as_text", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_no_fold_splits_a_query(splitter, as_text, seed):
    qid = interleaved_qid(seed=seed, as_text=as_text)
    folds = list(splitter.split(np.zeros((len(qid), 1)), qid=qid))
    assert len(folds) == splitter.get_n_splits()
    for train, test in folds:
        assert not set(qid[train]) & set(qid[test])
        assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)  # row order kept
        if isinstance(splitter, QueryKFold):
            # every row is either training or test
            assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(len(qid)))


@pytest.mark.parametrize("splitter", SPLITTERS, ids=repr)
def test_folds_do_not_depend_on_row_order(splitter):
    qid = interleaved_qid()
    shuffled = qid[np.random.RandomState(1).permutation(len(qid))]
    assert queries_of_folds(splitter, qid) == queries_of_folds(splitter, shuffled)


def test_query_kfold_tests_every_query_once_with_balanced_folds():
    qid = interleaved_qid(n_queries=40)
    folds = queries_of_folds(QueryKFold(n_splits=5), qid)
    test_queries = [test for _, test in folds]
    assert sorted(q for test in test_queries for q in test) == sorted(set(qid.tolist()))
    test_sizes = [np.isin(qid, list(test)).sum() for test in test_queries]
    # Largest-first greedy filling: folds within one query's size of each other.
    assert max(test_sizes) - min(test_sizes) <= np.bincount(qid).max()


def test_query_kfold_shuffle_follows_the_documented_algorithm():
    qid = interleaved_qid()
    query_ids, sizes = np.unique(qid, return_counts=True)
    # The docstring's rule: queries in sorted-id numbering, taken in the order
    # of the seeded permutation, each into the lightest fold (lowest on ties).
    expected = [set() for _ in range(3)]
    fold_sizes = [0, 0, 0]
    for query in np.random.RandomState(0).permutation(len(query_ids)):
        lightest = fold_sizes.index(min(fold_sizes))
        expected[lightest].add(query_ids[query].item())
        fold_sizes[lightest] += sizes[query]
    folds = queries_of_folds(QueryKFold(3, shuffle=True, random_state=0), qid)
    assert [set(test) for _, test in folds] == expected
    assert folds != queries_of_folds(QueryKFold(3, shuffle=True, random_state=1), qid)
    assert folds != queries_of_folds(QueryKFold(3), qid)


def test_query_shuffle_split_sizes_count_queries():
    qid = interleaved_qid(n_queries=20)
    for train, test in queries_of_folds(QueryShuffleSplit(3, test_size=5, random_state=0), qid):
        assert len(test) == 5 and len(train) == 15
    for train, test in queries_of_folds(
        QueryShuffleSplit(3, test_size=0.25, train_size=0.5, random_state=0), qid
    ):
        assert len(test) == 5 and len(train) == 10


QID_CASES = {
    # Six queries of three rows each, interleaved: every size ties.
    "interleaved_equal_sizes": np.tile(np.arange(6), 3),
    # Sizes 1 to 12 over 25 queries, many ties, interleaved.
    "interleaved_random_sizes": interleaved_qid(),
    "text_ids": interleaved_qid(seed=1, as_text=True),
    # Contiguous queries of 7 rows, which KFold(5) would cut in two.
    "contiguous": np.repeat(np.arange(12), 7),
}


@pytest.mark.parametrize("qid", QID_CASES.values(), ids=QID_CASES.keys())
@pytest.mark.parametrize("n_splits", [2, 3, 5])
def test_query_kfold_folds_are_group_kfolds(qid, n_splits):
    X = np.zeros((len(qid), 1))
    folds = list(QueryKFold(n_splits).split(X, qid=qid))
    expected = list(GroupKFold(n_splits).split(X, groups=qid))
    assert len(folds) == len(expected) == n_splits
    for (train, test), (expected_train, expected_test) in zip(folds, expected):
        np.testing.assert_array_equal(test, expected_test)
        np.testing.assert_array_equal(train, expected_train)


def test_qid_column_and_groups_are_other_ways_to_give_queries():
    qid = interleaved_qid()
    X = np.column_stack([np.ones(len(qid)), qid])
    expected = queries_of_folds(QueryKFold(3), qid)
    by_column = [
        (frozenset(qid[train].tolist()), frozenset(qid[test].tolist()))
        for train, test in QueryKFold(3, qid_column=1).split(X)
    ]
    by_groups = [
        (frozenset(qid[train].tolist()), frozenset(qid[test].tolist()))
        for train, test in QueryKFold(3).split(X, groups=qid)
    ]
    assert by_column == expected == by_groups


@pytest.mark.parametrize("splitter_class", [QueryKFold, QueryShuffleSplit])
def test_missing_qid_is_an_error(splitter_class):
    with pytest.raises(ValueError, match=f"{splitter_class.__name__} needs the query id"):
        next(splitter_class().split(np.zeros((10, 1))))


@pytest.mark.parametrize(
    "splitter, error, match",
    [
        (QueryKFold(n_splits=30), ValueError, "more than the 25 queries"),
        (QueryKFold(n_splits=1), ValueError, "at least one train/test split"),
        (QueryKFold(n_splits=2.0), TypeError, "n_splits must be an int"),
        (QueryKFold(random_state=0), ValueError, "no effect since shuffle is False"),
        (QueryKFold(shuffle="yes"), TypeError, "shuffle must be True or False"),
    ],
)
def test_invalid_query_kfold(splitter, error, match):
    qid = interleaved_qid()
    with pytest.raises(error, match=match):
        next(splitter.split(np.zeros((len(qid), 1)), qid=qid))


def test_invalid_qid_is_rejected_as_the_metrics_reject_it():
    with pytest.raises(TypeError, match="mixes numbers and strings"):
        next(QueryKFold(2).split(np.zeros((4, 1)), qid=np.array([1, "a", 2, "b"], dtype=object)))


@pytest.mark.parametrize("splitter_class", [QueryKFold, QueryShuffleSplit])
def test_splitters_request_qid_by_default(splitter_class):
    # Without routing enabled too: the request is what a router would read.
    assert splitter_class().get_metadata_routing().split.requests["qid"] is True


@pytest.mark.parametrize("splitter_class", [QueryKFold, QueryShuffleSplit])
def test_set_split_request_overrides_the_default(splitter_class, routing):
    splitter = splitter_class().set_split_request(qid=False)
    assert splitter.get_metadata_routing().split.requests["qid"] is False
    splitter = splitter_class().set_split_request(qid="query_id")
    assert splitter.get_metadata_routing().split.requests["qid"] == "query_id"


def test_repr():
    assert (
        repr(QueryKFold(3))
        == "QueryKFold(n_splits=3, qid_column=None, random_state=None, shuffle=False)"
    )
