"""Tests for sklearn_rank_metrics.datasets."""

import gzip
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from sklearn_rank_metrics.datasets import load_lambdarank_example, load_trec_example, make_ranking

ORIGINAL_LAMBDARANK_DIR = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "lightgbm-lambdarank"
)


def _run_lengths(values):
    """Number of runs of equal consecutive values."""
    return 1 + int(np.count_nonzero(np.diff(values)))


# --------------------------------------------------------------------------
# make_ranking
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n_queries, docs_per_query, n_features", [(1, 1, 1), (3, 4, 2), (100, 20, 10)]
)
def test_make_ranking_shapes_and_dtypes(n_queries, docs_per_query, n_features):
    X, y, qid = make_ranking(
        n_queries=n_queries,
        docs_per_query=docs_per_query,
        n_features=n_features,
        random_state=0,
    )
    n_samples = n_queries * docs_per_query
    assert X.shape == (n_samples, n_features)
    assert y.shape == qid.shape == (n_samples,)
    assert X.dtype == np.float64
    assert y.dtype == qid.dtype == np.int64
    assert np.isfinite(X).all()
    # Contiguous by default, queries in id order.
    np.testing.assert_array_equal(
        qid, np.repeat(np.arange(n_queries), docs_per_query)
    )


def test_make_ranking_defaults():
    X, y, qid = make_ranking(random_state=0)
    assert X.shape == (2000, 10)
    assert np.unique(qid).tolist() == list(range(100))
    assert np.unique(y).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("n_grades", [2, 3, 5, 7])
def test_make_ranking_every_query_has_equally_populated_grades(n_grades):
    docs_per_query = 14
    _, y, qid = make_ranking(
        n_queries=30,
        docs_per_query=docs_per_query,
        n_grades=n_grades,
        random_state=0,
    )
    assert y.min() == 0 and y.max() == n_grades - 1
    grade_counts = np.zeros((30, n_grades), dtype=np.int64)
    np.add.at(grade_counts, (qid, y), 1)
    # Quantile binning: each query has every grade, counts differ by at most 1.
    assert (grade_counts >= docs_per_query // n_grades).all()
    assert (grade_counts <= -(-docs_per_query // n_grades)).all()
    np.testing.assert_array_equal(grade_counts.sum(axis=1), docs_per_query)


@pytest.mark.parametrize("docs_per_query", [1, 2, 4])
def test_make_ranking_queries_shorter_than_n_grades_get_distinct_grades(
    docs_per_query,
):
    _, y, qid = make_ranking(
        n_queries=10, docs_per_query=docs_per_query, n_grades=5, random_state=0
    )
    for query in range(10):
        query_grades = y[qid == query]
        assert len(np.unique(query_grades)) == docs_per_query
        assert query_grades.min() == 0


def _centre_within_queries(X, qid):
    """Subtract from each row the mean of its query's rows."""
    query_means = np.zeros((qid.max() + 1, X.shape[1]))
    np.add.at(query_means, qid, X)
    query_means /= np.bincount(qid)[:, None]
    return X - query_means[qid]


@pytest.mark.parametrize(
    "noise, min_correlation, max_correlation", [(0.0, 0.9, 1.0), (10.0, 0.0, 0.3)]
)
def test_make_ranking_noise_controls_how_well_features_predict_grades(
    noise, min_correlation, max_correlation
):
    X, y, qid = make_ranking(n_queries=200, noise=noise, random_state=0)
    # Centring removes the per-query shift, leaving the within-query signal.
    X_centred = _centre_within_queries(X, qid)
    coef, *_ = np.linalg.lstsq(X_centred, y - y.mean(), rcond=None)
    correlation = np.corrcoef(X_centred @ coef, y)[0, 1]
    assert min_correlation < correlation < max_correlation


def test_make_ranking_random_state_reproducible():
    first = make_ranking(docs_per_query=(2, 9), interleave=True, random_state=42)
    again = make_ranking(
        docs_per_query=(2, 9), interleave=True, random_state=np.random.RandomState(42)
    )
    other_seed = make_ranking(docs_per_query=(2, 9), interleave=True, random_state=43)
    for first_array, again_array in zip(first, again):
        np.testing.assert_array_equal(first_array, again_array)
    assert not np.array_equal(first[0], other_seed[0])


def test_make_ranking_interleave_shuffles_rows_of_the_contiguous_data():
    n_queries = 20
    X_contiguous, y_contiguous, qid_contiguous = make_ranking(
        n_queries=n_queries, random_state=0
    )
    X_shuffled, y_shuffled, qid_shuffled = make_ranking(
        n_queries=n_queries, interleave=True, random_state=0
    )
    assert _run_lengths(qid_contiguous) == n_queries
    # Interleaved: far more runs than queries, so queries are not contiguous.
    assert _run_lengths(qid_shuffled) > 10 * n_queries
    np.testing.assert_array_equal(np.sort(qid_shuffled), qid_contiguous)
    # Same rows, only reordered: match rows by their (distinct) first feature.
    contiguous_order = np.argsort(X_contiguous[:, 0])
    shuffled_order = np.argsort(X_shuffled[:, 0])
    np.testing.assert_array_equal(
        X_shuffled[shuffled_order], X_contiguous[contiguous_order]
    )
    np.testing.assert_array_equal(
        y_shuffled[shuffled_order], y_contiguous[contiguous_order]
    )
    np.testing.assert_array_equal(
        qid_shuffled[shuffled_order], qid_contiguous[contiguous_order]
    )


@pytest.mark.parametrize("docs_per_query", [(3, 7), [3, 7]])
def test_make_ranking_varying_list_lengths(docs_per_query):
    n_queries = 200
    X, y, qid = make_ranking(
        n_queries=n_queries, docs_per_query=docs_per_query, random_state=0
    )
    query_sizes = np.bincount(qid, minlength=n_queries)
    assert X.shape[0] == y.shape[0] == query_sizes.sum()
    # Every length in [3, 7] is drawn, and nothing outside it.
    assert np.unique(query_sizes).tolist() == [3, 4, 5, 6, 7]
    assert _run_lengths(qid) == n_queries


def test_make_ranking_equal_bounds_give_fixed_length():
    fixed = make_ranking(n_queries=5, docs_per_query=6, random_state=0)
    from_range = make_ranking(n_queries=5, docs_per_query=(6, 6), random_state=0)
    for fixed_array, range_array in zip(fixed, from_range):
        np.testing.assert_array_equal(fixed_array, range_array)


@pytest.mark.parametrize(
    "bad_argument, argument_name",
    [
        ({"n_queries": 0}, "n_queries"),
        ({"docs_per_query": 0}, "docs_per_query"),
        ({"docs_per_query": (0, 3)}, "docs_per_query"),
        ({"docs_per_query": (5, 3)}, "docs_per_query"),
        ({"docs_per_query": (1, 2, 3)}, "docs_per_query"),
        ({"n_features": 0}, "n_features"),
        ({"n_grades": 1}, "n_grades"),
        ({"noise": -0.5}, "noise"),
        ({"noise": np.inf}, "noise"),
    ],
)
def test_make_ranking_invalid_argument_raises_value_error(bad_argument, argument_name):
    with pytest.raises(ValueError, match=argument_name):
        make_ranking(**bad_argument)


@pytest.mark.parametrize(
    "bad_argument, argument_name",
    [({"n_queries": 2.5}, "n_queries"), ({"docs_per_query": "20"}, "docs_per_query")],
)
def test_make_ranking_wrong_type_raises_type_error(bad_argument, argument_name):
    with pytest.raises(TypeError, match=argument_name):
        make_ranking(**bad_argument)


# --------------------------------------------------------------------------
# load_lambdarank_example
# --------------------------------------------------------------------------

SPLITS = {
    # split: (n_documents, n_queries, first query id)
    "train": (3005, 201, 0),
    "test": (768, 50, 201),
}
# The order of load_lambdarank_example(return_X_y=True).
RETURNED_NAMES = ("X_train", "y_train", "qid_train", "X_test", "y_test", "qid_test")


def _bundled_query_sizes(split):
    data_folder = resources.files("sklearn_rank_metrics.datasets") / "data"
    with (data_folder / f"rank.{split}.query.gz").open("rb") as compressed:
        with gzip.open(compressed) as query_file:
            return np.loadtxt(query_file, dtype=np.int64)


@pytest.fixture(scope="module")
def lambdarank():
    return load_lambdarank_example()


@pytest.mark.parametrize("split", SPLITS)
def test_load_lambdarank_example_shapes_and_dtypes(lambdarank, split):
    n_documents, _, _ = SPLITS[split]
    X, y, qid = (lambdarank[f"{name}_{split}"] for name in ("X", "y", "qid"))
    assert sp.issparse(X) and X.format == "csr"
    assert X.shape == (n_documents, 300)
    assert X.dtype == y.dtype == np.float64
    assert qid.dtype == np.int64
    assert y.shape == qid.shape == (n_documents,)
    assert np.unique(y).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("split", SPLITS)
def test_load_lambdarank_example_query_ids(lambdarank, split):
    _, n_queries, first_qid = SPLITS[split]
    qid = lambdarank[f"qid_{split}"]
    np.testing.assert_array_equal(
        np.unique(qid), np.arange(first_qid, first_qid + n_queries)
    )
    # Rows of a query are contiguous, queries in id order.
    assert (np.diff(qid) >= 0).all()
    np.testing.assert_array_equal(
        np.bincount(qid - first_qid), _bundled_query_sizes(split)
    )


def test_load_lambdarank_example_bunch_metadata(lambdarank):
    assert set(lambdarank) == {*RETURNED_NAMES, "feature_names", "DESCR"}
    assert lambdarank.feature_names == [f"f{j}" for j in range(300)]
    for fact in ("201", "3,005", "50", "768", "300", "MIT", "LightGBM"):
        assert fact in lambdarank.DESCR


def test_load_lambdarank_example_return_X_y(lambdarank):
    arrays = load_lambdarank_example(return_X_y=True)
    assert len(arrays) == len(RETURNED_NAMES)
    for name, array in zip(RETURNED_NAMES, arrays):
        expected = lambdarank[name]
        if sp.issparse(expected):
            assert sp.issparse(array) and (array != expected).nnz == 0
        else:
            np.testing.assert_array_equal(array, expected)


@pytest.mark.parametrize("return_X_y", [False, True])
def test_load_lambdarank_example_as_frame(lambdarank, return_X_y):
    pd = pytest.importorskip("pandas")
    loaded = load_lambdarank_example(as_frame=True, return_X_y=return_X_y)
    if not return_X_y:
        loaded = tuple(loaded[name] for name in RETURNED_NAMES)
    X_train, y_train, qid_train, X_test, y_test, qid_test = loaded
    for split, X, y, qid in [
        ("train", X_train, y_train, qid_train),
        ("test", X_test, y_test, qid_test),
    ]:
        assert isinstance(X, pd.DataFrame)
        assert list(X.columns) == [f"f{j}" for j in range(300)]
        assert all(isinstance(dtype, pd.SparseDtype) for dtype in X.dtypes)
        np.testing.assert_array_equal(
            X.sparse.to_dense().to_numpy(), lambdarank[f"X_{split}"].toarray()
        )
        assert isinstance(y, pd.Series) and y.name == "relevance"
        assert isinstance(qid, pd.Series) and qid.name == "qid"
        assert y.dtype == np.float64 and qid.dtype == np.int64
        np.testing.assert_array_equal(y.to_numpy(), lambdarank[f"y_{split}"])
        np.testing.assert_array_equal(qid.to_numpy(), lambdarank[f"qid_{split}"])


def test_load_lambdarank_example_as_frame_without_pandas(monkeypatch):
    # A None entry in sys.modules makes `import pandas` raise ImportError.
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="requires pandas"):
        load_lambdarank_example(as_frame=True)


def test_load_lambdarank_example_returns_copies():
    first = load_lambdarank_example()
    pristine = load_lambdarank_example()
    for split in SPLITS:
        first[f"X_{split}"].data[:] = -1.0
        first[f"y_{split}"][:] = -1.0
        first[f"qid_{split}"][:] = -1
    first.feature_names.clear()

    reloaded = load_lambdarank_example()
    for split in SPLITS:
        assert (reloaded[f"X_{split}"] != pristine[f"X_{split}"]).nnz == 0
        np.testing.assert_array_equal(reloaded[f"y_{split}"], pristine[f"y_{split}"])
        np.testing.assert_array_equal(
            reloaded[f"qid_{split}"], pristine[f"qid_{split}"]
        )
        assert not np.shares_memory(
            reloaded[f"X_{split}"].data, pristine[f"X_{split}"].data
        )
    assert len(reloaded.feature_names) == 300


@pytest.mark.skipif(
    not ORIGINAL_LAMBDARANK_DIR.is_dir(),
    reason="the original LightGBM lambdarank example files are not available in this checkout",
)
@pytest.mark.parametrize("split", SPLITS)
def test_load_lambdarank_example_matches_original_files(lambdarank, split):
    _, _, first_qid = SPLITS[split]
    X_original, y_original = load_svmlight_file(
        ORIGINAL_LAMBDARANK_DIR / f"rank.{split}", n_features=300
    )
    query_sizes = np.loadtxt(ORIGINAL_LAMBDARANK_DIR / f"rank.{split}.query", dtype=int)
    qid_original = first_qid + np.repeat(np.arange(len(query_sizes)), query_sizes)

    X = lambdarank[f"X_{split}"]
    assert X.shape == X_original.shape
    assert (X != X_original).nnz == 0
    np.testing.assert_array_equal(lambdarank[f"y_{split}"], y_original)
    np.testing.assert_array_equal(lambdarank[f"qid_{split}"], qid_original)


def test_trec_example_files_are_made_again_byte_for_byte(tmp_path):
    pytest.importorskip("pandas")
    from sklearn_rank_metrics.datasets._trec_example import write_trec_example

    shipped = load_trec_example()
    made = write_trec_example(tmp_path)
    for shipped_path, made_path in zip(shipped, made):
        assert Path(shipped_path).name == made_path.name
        assert Path(shipped_path).read_bytes() == made_path.read_bytes()


def test_trec_example_holds_what_it_is_meant_to_show():
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.trec import read_trec_qrels, read_trec_run

    qrels_path, run_path = load_trec_example()
    qrels, run = read_trec_qrels(qrels_path), read_trec_run(run_path)
    assert run["query_id"].nunique() == qrels["query_id"].nunique() == 8
    assert sorted(qrels["relevance"].unique()) == [0, 1, 2, 3]
    joined = run.merge(qrels, on=["query_id", "doc_id"], how="outer", indicator=True)
    counts = joined.groupby("query_id")["_merge"].value_counts().unstack()
    assert (counts["left_only"] == 2).all()  # retrieved, unjudged
    assert (counts["right_only"] > 0).all()  # judged, not retrieved
    relevant_missed = joined[(joined["_merge"] == "right_only") & (joined["relevance"] > 0)]
    assert len(relevant_missed) > 0
    # Ties of documents of different grades, whose order changes the numbers.
    tied = run[run.duplicated(["query_id", "score"], keep=False)].merge(qrels, how="left")
    assert tied.groupby(["query_id", "score"])["relevance"].nunique(dropna=False).gt(1).any()
    assert pd.api.types.is_string_dtype(run["query_id"])
