"""Data and in-memory references shared by the Dask and Spark tests."""

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import evaluate

# Every family of the engine: graded, binary, pooled (hit_rate_item), pairwise (kendall).
METRICS = ["ndcg@5", "map", "mrr@3", "recall@4", "hit_rate_item@2", "kendall"]
N_FILES = 3


def ranking_frame(n_queries=60, seed=0, string_ids=False):
    """Rows in random order, many tied scores, some queries without a relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=n_queries)
    ids = rng.permutation(n_queries * 3)[:n_queries] + 10
    qid = np.repeat(ids, sizes)
    label = rng.integers(0, 4, size=qid.size) * (rng.random(qid.size) < 0.5)
    label[np.isin(qid, ids[:5])] = 0  # no relevant document
    weight_of = dict(zip(ids.tolist(), np.round(rng.random(n_queries) + 0.25, 3)))
    frame = pd.DataFrame(
        {
            "qid": [f"q{q}" for q in qid] if string_ids else qid,
            "label": label,
            "score": rng.integers(0, 6, size=qid.size) / 4,  # ties in most queries
            "w": [weight_of[q] for q in qid.tolist()],
        }
    )
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


def write_parquet(frame, directory):
    """Cut the rows (in their random order) into files: nearly every query spans several."""
    directory.mkdir(parents=True, exist_ok=True)
    file_of_row = np.zeros(len(frame), dtype=int)
    for index, part in enumerate(np.array_split(np.arange(len(frame)), N_FILES)):
        frame.iloc[part].to_parquet(directory / f"part-{index}.parquet", index=False)
        file_of_row[part] = index
    files_per_query = pd.Series(file_of_row).groupby(frame["qid"].to_numpy()).nunique()
    assert (files_per_query > 1).mean() > 0.5
    return directory


def in_memory(frame, metrics=METRICS, sample_weight=None, average=None, **options):
    """The in-memory evaluation of the same rows (warnings are checked elsewhere)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return evaluate(
            frame["label"].to_numpy(), frame["score"].to_numpy(), qid=frame["qid"].to_numpy(),
            metrics=metrics, average=average,
            sample_weight=None if sample_weight is None else frame[sample_weight].to_numpy(),
            **options,
        )  # fmt: skip


def assert_same_per_query(values, reference):
    """``values``: pandas frame indexed by query id (any order); bitwise equal to ``reference``."""
    values = values.sort_index()
    np.testing.assert_array_equal(values.index.to_numpy(), reference.query_ids)
    assert list(values.columns) == list(reference.metrics)
    for name in reference.metrics:
        np.testing.assert_array_equal(values[name].to_numpy(), reference[name])


def assert_same_means(means, reference):
    assert list(means) == list(reference.metrics)
    for name in reference.metrics:
        expected = reference.mean(name)
        assert abs(means[name] - expected) <= 1e-12 * abs(expected), (name, means[name], expected)


def assert_skips_counted_over_partitions(record, reference, name="map"):
    """The warning counts the queries left out of ``name`` over all partitions, as in memory."""
    skipped = int(reference.skipped(name).sum())
    assert skipped >= 5
    message = f"{name}: {skipped} of {reference.n_queries} queries"
    assert any(message in str(w.message) for w in record)
