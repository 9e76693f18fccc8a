"""sklearn_rank_metrics.dask on a real two-process LocalCluster, against the in-memory evaluate."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
pytest.importorskip("pyarrow", reason="the dask extra is not installed")

from _distributed_data import (  # noqa: E402
    EXTREME_WEIGHT_METRICS,
    EXTREME_WEIGHTS,
    METRICS,
    assert_exact_means,
    assert_same_means,
    assert_same_per_query,
    assert_skips_counted_over_partitions,
    exact_weighted_means,
    extreme_weight_frame,
    in_memory,
    ranking_frame,
    write_parquet,
)
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402

from sklearn_rank_metrics.dask import evaluate  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module", params=[False, True], ids=["int_qid", "str_qid"])
def data(request, tmp_path_factory):
    frame = ranking_frame(string_ids=request.param, seed=int(request.param))
    path = write_parquet(frame, tmp_path_factory.mktemp("dask") / "rows")
    ddf = dd.read_parquet(path)
    assert ddf.npartitions > 1
    return frame, ddf


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic"])
def test_same_values_and_means_as_in_memory(client, data, ties):
    frame, ddf = data
    options = dict(ties=ties, no_relevant="skip", gain="exponential", relevance_level=2)
    reference = in_memory(frame, **options)
    values = evaluate(ddf, metrics=METRICS, average=None, **options)
    assert isinstance(values, dd.DataFrame)
    assert_same_per_query(values.compute(), reference)
    with pytest.warns(UndefinedMetricWarning) as record:
        means = evaluate(ddf, metrics=METRICS, **options)
    assert_same_means(means, reference)
    assert_skips_counted_over_partitions(record, reference)


@pytest.mark.parametrize("method", ["p2p", "disk", "tasks"])
def test_ties_first_keeps_each_querys_row_order(client, data, method):
    # "first" ranks tied documents in row order, which a shuffle need not keep
    # (the "disk" shuffle, dask's default without a distributed Client, does not).
    import dask

    frame, ddf = data
    options = dict(metrics=METRICS, ties="first", no_relevant="skip", sample_weight="w")
    reference = in_memory(frame, **options)
    average = in_memory(frame, **{**options, "ties": "average"})
    assert reference.mean("ndcg@5") != average.mean("ndcg@5")  # the order of ties matters
    scheduler = {} if method == "p2p" else {"scheduler": "threads"}
    with dask.config.set({"dataframe.shuffle.method": method, **scheduler}):
        for _ in range(3):  # the same numbers on every run
            assert_same_per_query(evaluate(ddf, average=None, **options).compute(), reference)
            with pytest.warns(UndefinedMetricWarning):
                assert_same_means(evaluate(ddf, **options), reference)


def test_ties_first_by_an_order_by_column(client, data):
    frame = data[0].assign(rank=np.arange(len(data[0]))[::-1])  # the rows in reverse order
    ddf = dd.from_pandas(frame, npartitions=3)
    reference = in_memory(frame.iloc[::-1], metrics=["ndcg@5", "mrr"], ties="first")
    means = evaluate(ddf, metrics=["ndcg@5", "mrr"], ties="first", order_by="rank")
    assert_same_means(means, reference)
    assert means != evaluate(ddf, metrics=["ndcg@5", "mrr"], ties="first")
    with pytest.raises(ValueError, match=r"order_by='rnk' is not a column"):
        evaluate(ddf, ties="first", order_by="rnk")
    # Declared whole queries are not shuffled: each partition keeps its rows' order.
    shuffled = dd.from_pandas(frame, npartitions=3).shuffle(on="qid").persist()
    in_order = in_memory(shuffled.compute(), metrics=["ndcg@5", "mrr"], ties="first")
    assert_same_means(evaluate(shuffled, metrics=["ndcg@5", "mrr"], ties="first",
                               partitioned_by_query=True), in_order)  # fmt: skip
    tied = ddf.assign(rank=1)
    with pytest.raises(ValueError, match=r"order_by='rank' has the value 1 on more than one row"):
        evaluate(tied, metrics=["mrr"], ties="first", order_by="rank")


def test_weights_and_n_relevant(client, data):
    frame, ddf = data
    ids = np.unique(frame["qid"].to_numpy())
    n_relevant = {q: 15 for q in ids[::2].tolist()}
    totals = frame.groupby("qid")["label"].max()
    n_relevant[totals.index[totals.to_numpy() == 0][0]] = 0  # no relevant document at all
    options = dict(n_relevant=n_relevant, sample_weight="w", metrics=["map@5", "recall@3", "dcg"])
    reference = in_memory(frame, **options)
    assert reference.query_weights is not None
    assert_same_per_query(evaluate(ddf, average=None, **options).compute(), reference)
    means = evaluate(ddf, **options)
    assert_same_means(means, reference)
    unweighted = in_memory(frame, metrics=["map@5"], n_relevant=n_relevant).mean("map@5")
    assert abs(means["map@5"] - unweighted) > 1e-6  # the weights did count


def test_partitioned_by_query(client, data):
    frame, ddf = data
    reference = in_memory(frame, metrics=["ndcg@3", "mrr"])
    shuffled = ddf.shuffle(on="qid").persist()
    means = evaluate(shuffled, metrics=["ndcg@3", "mrr"], partitioned_by_query=True)
    assert_same_means(means, reference)
    with pytest.raises(ValueError, match=r"partitioned_by_query=True, but \d+ query id"):
        evaluate(ddf, metrics=["ndcg@3"], partitioned_by_query=True)


def test_threaded_scheduler_gives_the_same_numbers(data):
    frame, ddf = data
    reference = in_memory(frame, metrics=["ndcg@5", "map"])
    import dask

    # (p2p, the shuffle dask picks while a Client exists, needs the distributed scheduler)
    with dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "tasks"}):
        assert_same_means(evaluate(ddf, metrics=["ndcg@5", "map"]), reference)


def test_arguments_are_checked_before_any_work(data):
    _, ddf = data
    with pytest.raises(ValueError, match=r"score='pred' is not a column"):
        evaluate(ddf, score="pred")
    with pytest.raises(ValueError, match="ndgc"):
        evaluate(ddf, metrics=["ndgc@5"])
    with pytest.raises(ValueError, match="ties"):
        evaluate(ddf, ties="random")
    with pytest.raises(ValueError, match="average must be 'mean' or None"):
        evaluate(ddf, average="median")


def test_unknown_n_relevant_key_raises(client, data):
    frame, ddf = data
    missing = "nope" if frame["qid"].dtype.kind != "i" else -1
    with pytest.raises(ValueError, match=r"n_relevant has 1 key\(s\) that are no query id"):
        evaluate(ddf, metrics=["map"], n_relevant={missing: 3})


def test_all_skipped_is_nan_with_warning(client, tmp_path):
    frame = ranking_frame(n_queries=6).assign(label=0)
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.warns(UndefinedMetricWarning, match="map is undefined"):
        means = evaluate(ddf, metrics=["map"], no_relevant="skip")
    assert np.isnan(means["map"])


def test_import_without_the_extra_names_it():
    code = "import sys; sys.modules['dask.dataframe'] = None; import sklearn_rank_metrics.dask"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    assert 'pip install "sklearn-rank-metrics[dask]"' in result.stderr


def test_grid_search_on_the_dask_joblib_backend(client, routing):
    joblib = pytest.importorskip("joblib")
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    from sklearn_rank_metrics import QueryKFold, make_rank_scorers
    from sklearn_rank_metrics.datasets import make_ranking

    X, y, qid = make_ranking(n_queries=30, docs_per_query=(4, 10), n_features=4,
                             interleave=True, random_state=0)  # fmt: skip

    def search(n_jobs):
        grid = GridSearchCV(
            Ridge(), {"alpha": [0.1, 1.0, 10.0]}, cv=QueryKFold(3), n_jobs=n_jobs,
            scoring=make_rank_scorers(["ndcg@5", "map", "mrr@3"]), refit="ndcg@5",
        )  # fmt: skip
        return grid.fit(X, y, qid=qid).cv_results_

    expected = search(None)
    with joblib.parallel_backend("dask"), warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        results = search(-1)
    scores = [key for key in expected if "test_" in key]
    assert len(scores) == 3 * (3 + 2 + 1)  # per metric: 3 splits, mean, std, rank
    for key in scores:
        np.testing.assert_array_equal(results[key], expected[key], err_msg=key)


@pytest.mark.parametrize("kind", list(EXTREME_WEIGHTS))
def test_extreme_weights_give_the_exact_means(client, kind):
    frame = extreme_weight_frame(EXTREME_WEIGHTS[kind])
    ddf = dd.from_pandas(frame, npartitions=3)
    means = evaluate(ddf, metrics=EXTREME_WEIGHT_METRICS, sample_weight="w")
    assert_exact_means(means, exact_weighted_means(frame))
