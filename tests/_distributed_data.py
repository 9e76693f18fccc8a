"""Data and in-memory references shared by the Dask and Spark tests."""

import warnings

import numpy as np
import pandas as pd
import pytest
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


# Query weights beyond float64's sums: huge (their sum overflows), subnormal
# (a value times one keeps a few bits) and both at once.
EXTREME_WEIGHTS = {
    "huge": [1e308, 1.5e308, 1e308, 1.7e308, 1e308, 1.2e308],
    "subnormal": [1e-320, 3e-320, 5e-324, 2e-321, 1e-320, 7e-322],
    "mixed": [1e308, 1e-320, 1.0, 3e307, 5e-324, 1e-300],
}
# Metrics of every kind of mean: arithmetic, pooled over items, geometric.
EXTREME_WEIGHT_METRICS = ["dcg@3", "ndcg", "mrr", "hit_rate_item@2", "gm_map"]


def extreme_weight_frame(weights):
    """One query of four documents per weight, the weight repeated on its rows."""
    rng = np.random.default_rng(7)
    n_queries, size = len(weights), 4
    qid = np.repeat(np.arange(n_queries) + 10, size)
    label = rng.integers(0, 3, size=qid.size)
    label[::size] = 1  # every query has a relevant document
    return pd.DataFrame(
        {
            "qid": qid,
            "label": label,
            "score": rng.integers(0, 5, size=qid.size) / 2,
            "w": np.repeat(np.asarray(weights, dtype=np.float64), size),
        }
    )


def exact_weighted_means(frame, metrics=EXTREME_WEIGHT_METRICS):
    """Each metric's weighted mean in exact rational arithmetic, rounded once to float64.

    The per-query values are the unweighted ones; the geometric mean is
    exp of the exact weighted mean of the logarithms, as trec_eval's.
    """
    from fractions import Fraction

    results = in_memory(frame, metrics=metrics)
    weights = frame.groupby("qid")["w"].first().sort_index().to_numpy()
    expected = {}
    for name in metrics:
        terms = np.asarray(results[name], dtype=np.float64)
        pool = results.weights(name)  # 1, or the items a query pools
        if results.aggregate(name) == "geometric":
            terms = np.log(np.maximum(terms, 1e-5))
        exact = [Fraction(float(w)) * Fraction(float(p)) for w, p in zip(weights, pool)]
        mean = sum(Fraction(float(t)) * w for t, w in zip(terms, exact)) / sum(exact)
        geometric = results.aggregate(name) == "geometric"
        expected[name] = float(np.exp(float(mean))) if geometric else float(mean)
    return expected


def assert_exact_means(means, expected):
    """Means equal the exact ones to a few units in the last place (sums round)."""
    assert list(means) == list(expected)
    for name, value in expected.items():
        assert means[name] == pytest.approx(value, rel=1e-13, abs=0), (name, means[name], value)
