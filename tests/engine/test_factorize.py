"""Query ids and labels as codes: every kind of id gives numpy.unique's answer."""

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine.prepare import _factorize, _labels
from sklearn_rank_metrics._engine.prepare._factorize import factorize_query_ids
from sklearn_rank_metrics._engine.prepare._labels import code_labels


def _pandas_major():
    try:
        import pandas as pd
    except ImportError:
        return 0
    return int(pd.__version__.split(".")[0])


def _ids(kind, rng, n=3000):
    """Query ids of one kind, interleaved unless the kind says otherwise."""
    draws = rng.integers(0, 40, n)
    if kind == "int64 dense from 0":
        return np.arange(40)[draws]
    if kind == "int64 sparse":
        return rng.integers(0, 10**12, 40)[draws]
    if kind == "int64 contiguous":
        return np.sort(rng.integers(-(2**62), 2**62, 40)[draws])
    if kind == "int8 negative":
        return np.array([-100, -3, 0, 7, 100], dtype=np.int8)[draws % 5]
    if kind == "int16 wide":
        return np.array([-32000, -5, 32000], dtype=np.int16)[draws % 3]
    if kind == "uint64 above 2**63":
        return (np.uint64(2**63) + rng.integers(0, 2**40, 40).astype(np.uint64))[draws]
    if kind == "float":
        return np.array([-0.0, 0.0, 1.5, -2.25, 1e300])[draws % 5]
    if kind == "ascii <U8":
        return np.array([f"q{i:07d}" for i in rng.integers(0, 10**7, 40)])[draws]
    if kind == "ascii <U16":
        return np.array([f"query-{i:010d}" for i in rng.integers(0, 10**9, 40)])[draws]
    if kind == "non-ascii":
        return np.array(["é", "e", "ü1", "ü", "日本", "a\u00e9b", "z"])[draws % 7]
    if kind == "latin-1 <U12":
        return np.array([f"é-{i:010d}" for i in rng.integers(0, 10**9, 40)])[draws]
    if kind == "cjk <U5":
        return np.array([f"日本{i:03d}" for i in rng.integers(0, 10**3, 40)])[draws]
    if kind == "object str":
        return np.array(["b", "a", "ab", "b "], dtype=object)[draws % 4]
    if kind == "object int":
        return np.array([3, 1, 2**70, -5], dtype=object)[draws % 4]
    if kind == "object str, one object a row":
        return np.array([f"q{draw}" for draw in draws], dtype=object)
    if kind == "object str, some shared":
        shared = np.array([f"q{draw}" for draw in range(40)], dtype=object)[draws]
        shared[::3] = [f"q{draw}" for draw in draws[::3]]  # equal values, other objects
        return shared
    raise ValueError(kind)


def ids_itemsize(kind):
    return _ids(kind, np.random.default_rng(0), n=1).dtype.itemsize


KINDS = ["int64 dense from 0", "int64 sparse", "int64 contiguous", "int8 negative", "int16 wide",
         "uint64 above 2**63", "float", "ascii <U8", "ascii <U16", "non-ascii", "latin-1 <U12",
         "cjk <U5",
         "object str", "object int", "object str, one object a row", "object str, some shared"]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_codes_equal_numpy_unique(kind):
    rng = np.random.default_rng(len(kind))
    ids = _ids(kind, rng)
    codes, uniques = factorize_query_ids(ids)
    expected_uniques, expected_codes = np.unique(ids, return_inverse=True)
    assert codes.dtype in (np.int32, np.int64)
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))
    assert uniques.tolist() == expected_uniques.tolist()


@pytest.mark.parametrize("as_list", [False, True])
def test_ids_overflowing_their_dtype_work_in_the_metrics(as_list):
    """Ranges that overflow the ids' own dtype (int8, int16, uint64 above 2**63)."""
    y_true, y_score = [1, 0, 0, 1], [0.2, 0.1, 0.3, 0.4]
    for qid in (
        np.array([-100, -100, 100, 100], dtype=np.int8),
        np.array([-32000, -32000, 32000, 32000], dtype=np.int16),
        np.array([2**63 + 1, 2**63 + 1, 2**64 - 1, 2**64 - 1], dtype=np.uint64),
    ):
        got = srm.mrr_score(y_true, y_score, qid=qid.tolist() if as_list else qid, average=None)
        np.testing.assert_array_equal(got, [1.0, 1.0])


def test_large_input_with_int16_ids_spanning_the_dtype():
    rng = np.random.default_rng(0)
    n = 300_000
    qid = rng.choice(np.array([-32768, -1, 0, 32767], dtype=np.int16), n)
    y_true, y_score = rng.integers(0, 3, n), rng.random(n)
    expected = srm.ndcg_score(y_true, y_score, qid=qid.astype(np.int64), k=5, average=None)
    np.testing.assert_array_equal(srm.ndcg_score(y_true, y_score, qid=qid, k=5, average=None), expected)


def test_a_hash_collision_falls_back_to_an_exact_factorization(monkeypatch):
    """Long or non-ASCII strings are hashed; equal hashes of different ids must not merge them."""
    monkeypatch.setattr(_factorize, "hash_words", lambda words: np.zeros(words.shape[0], np.uint64))
    ids = np.array(["ü-long-query-id-1", "ü-long-query-id-2", "ü-long-query-id-1"])
    codes, uniques = factorize_query_ids(ids)
    np.testing.assert_array_equal(codes, [0, 1, 0])
    assert uniques.tolist() == ["ü-long-query-id-1", "ü-long-query-id-2"]


def test_pandas_ids():
    pd = pytest.importorskip("pandas")
    values = ["b", "a", "b", "c", "a"]
    expected = [1, 0, 1, 2, 0]
    for ids in (
        pd.Series(values, dtype=object),
        pd.Series(values, dtype="string"),
        pd.Series(values, dtype="category"),
        pd.Series(pd.Categorical(values, categories=["z", "c", "b", "a"])),  # unused, unsorted
        pd.Index(values),
        pd.Categorical(values),
        pd.Series(pd.Categorical(values, categories=[f"c{i}" for i in range(70000)] + ["a", "b", "c"])),
    ):
        codes, uniques = factorize_query_ids(ids)
        np.testing.assert_array_equal(codes, expected)
        assert uniques.tolist() == ["a", "b", "c"]
    codes, uniques = factorize_query_ids(pd.Series([5, 3, 5], dtype="Int64"))
    np.testing.assert_array_equal(codes, [1, 0, 1])
    assert uniques.tolist() == [3, 5]


@pytest.mark.parametrize(
    "ids, error, match",
    [
        (np.array([1.0, np.nan]), ValueError, "NaN"),
        (["a", None], ValueError, "None or NaN"),
        ([1, "1"], TypeError, "mixes numbers and strings"),
        (np.array([True, False]), TypeError, "ints or strings"),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), TypeError, "ints or strings"),
        (np.array([b"a", b"b"]), TypeError, "decode"),
        (np.array([b"a", "b"], dtype=object), TypeError, "decode"),
        (np.array([1, 1, True, True], dtype=object), TypeError, "1 and True one"),
        (np.array([True, True, 1, 1], dtype=object), TypeError, "1 and True one"),
        pytest.param(
            np.array(["a", "a\x00", "a"], dtype=object), ValueError, "trailing NUL",
            marks=pytest.mark.skipif(
                _pandas_major() < 3,
                reason="pandas before 3.0 hashes strings only up to their first NUL character",
            ),
        ),
    ],
)
def test_bad_ids(ids, error, match):
    with pytest.raises(error, match=match):
        factorize_query_ids(ids)


@pytest.mark.parametrize(
    "values, error, match",
    [
        (["a", "b", None], ValueError, "None or NaN"),
        (["a", "b", float("nan")], ValueError, "None or NaN"),
        ([1, 2, "1"], TypeError, "mixes numbers and strings"),
        ([1, 2, True], TypeError, "1 and True one"),
        (["a", b"b"], TypeError, "decode"),
        ([1.5, 2.5, 1.5], None, None),
    ],
)
def test_object_ids_factorized_by_address_are_checked_by_value(monkeypatch, values, error, match):
    """Rows holding the same object are grouped by address; the distinct objects are still
    type-checked, and NaN or None in one row is still an error."""
    monkeypatch.setattr(_factorize, "_MIN_SLOT_BITS", 1)
    table = np.array(values + ["padding"], dtype=object)[:-1]
    ids = table[np.random.default_rng(0).integers(0, len(values), 5000)]
    ids[-1] = table[-1]  # the odd one out occurs
    if error is None:
        codes, uniques = factorize_query_ids(ids)
        assert uniques.tolist() == sorted(set(values)) and (uniques[codes] == ids).all()
    else:
        with pytest.raises(error, match=match):
            factorize_query_ids(ids)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint16])
def test_ids_keep_their_dtype_in_the_results(monkeypatch, dtype):
    monkeypatch.setattr(_factorize, "_MIN_SLOT_BITS", 1)  # the hash table path too
    monkeypatch.setattr(_factorize, "_TABLE_FRACTION", 10**9)
    monkeypatch.setattr(_factorize, "_SMALL_TABLE", 0)
    ids = np.array([0.5, 7, 0.5, 3, 7, 9] * 5 if dtype == np.float32 else [5, 7, 5, 3, 7, 9] * 5, dtype=dtype)
    codes, uniques = factorize_query_ids(ids)
    assert uniques.dtype == dtype and uniques.tolist() == np.unique(ids).tolist()
    results = srm.evaluate(np.ones(30), np.arange(30.0), qid=ids, metrics=["mrr"], average=None)
    assert results.query_ids.dtype == dtype
    key = np.unique(ids)[0].item()
    assert srm.map_score(np.ones(30), np.arange(30.0), qid=ids, n_relevant={key: 20}) > 0


def test_pandas_missing_ids():
    pd = pytest.importorskip("pandas")
    for ids in (
        pd.Series(["a", None], dtype="string"),
        pd.Series([1, None], dtype="Int64"),
        pd.Series(["a", None], dtype="category"),
    ):
        with pytest.raises(ValueError, match="qid contains"):
            factorize_query_ids(ids)


# -------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "labels",
    [
        np.array([0, 4, 4, 2, 0, 255], dtype=np.int64),
        np.array([0, 4, 4, 2, 0, 1000], dtype=np.uint16),
        np.array([True, False, True]).view(np.uint8),
        np.array([0.0, 3.0, 1.0, 3.0]),
        np.array([0.0, 0.5, 0.25, 3.75, 0.5]),
        np.arange(400) / 100.0,
        np.array([0, 7, 10**6]),
        np.array([0.0, 1e300, 2.5]),
    ],
    ids=["int64", "uint16", "bool", "float whole", "fractional", "400 values", "large ints", "huge"],
)
def test_label_codes_index_the_sorted_distinct_labels(labels):
    coded = code_labels(labels)
    np.testing.assert_array_equal(coded.values, np.unique(labels).astype(float))
    np.testing.assert_array_equal(coded.values[coded.codes], labels)
    assert coded.codes.dtype.itemsize <= 2 and coded.top == labels.max()


def test_labels_with_more_distinct_values_than_a_code_holds_are_left_to_the_chunks():
    labels = np.random.default_rng(0).random(_labels.MAX_CODED_LABELS + 10)
    coded = code_labels(labels)
    assert coded.codes is None and coded.values is None and coded.top == labels.max()


@pytest.mark.parametrize("threads", [None, 3])
@pytest.mark.parametrize("first_table_bits", [3, 20])  # 3: too small, a larger table follows
@pytest.mark.parametrize("rows_per_slot", [1, 64, 10**6])  # fewer slots, more ids share one
@pytest.mark.parametrize(
    "kind",
    ["int64 sparse", "float", "ascii <U8", "ascii <U16", "non-ascii", "latin-1 <U12", "cjk <U5",
     "int8 negative", "object str", "object int", "object str, one object a row",
     "object str, some shared"],
)
def test_the_hash_table_path_gives_numpy_unique_codes(
    monkeypatch, kind, rows_per_slot, first_table_bits, threads
):
    """Large interleaved inputs are factorized by a hash table in NumPy (in blocks, on the
    call's threads); force it on small data."""
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import nullcontext

    monkeypatch.setattr(_factorize, "_MIN_SLOT_BITS", 1)
    monkeypatch.setattr(_factorize, "_CACHED_SLOT_BITS", first_table_bits)
    monkeypatch.setattr(_factorize, "_MAX_OCCUPANCY", {1: 0.5, 64: 1.0, 10**6: 0.0}[rows_per_slot])
    monkeypatch.setattr(_factorize, "_ROWS_PER_SLOT", rows_per_slot)
    monkeypatch.setattr(_factorize, "_HASH_BLOCK", 1000)  # several blocks
    monkeypatch.setattr(_factorize, "_STRING_BLOCK_BYTES", 1000 * ids_itemsize(kind))
    monkeypatch.setattr(_factorize, "_TABLE_FRACTION", 10**9)  # no range table for ints
    ids = _ids(kind, np.random.default_rng(rows_per_slot))
    if kind == "non-ascii":  # ASCII blocks first: the packing must give up on the last one
        ids = np.concatenate((np.array(["a", "bb", "c"])[np.arange(2500) % 3], ids[:500]))
    with ThreadPoolExecutor(threads) if threads else nullcontext() as pool:
        codes, uniques = factorize_query_ids(ids, pool=pool)
        unsorted_codes, unsorted_uniques = factorize_query_ids(ids, sort=False, pool=pool)
    expected_uniques, expected_codes = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))
    assert uniques.tolist() == expected_uniques.tolist()
    np.testing.assert_array_equal(unsorted_uniques[unsorted_codes], ids)  # any order, same ids
    assert sorted(unsorted_uniques.tolist()) == expected_uniques.tolist()

