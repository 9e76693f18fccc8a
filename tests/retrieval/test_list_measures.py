"""The beyond-accuracy list measures against brute-force references written from their definitions."""

import itertools
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_array

from sklearn_rank_metrics import QueryResults, evaluate_retrieval, evaluate_top_k
from sklearn_rank_metrics.comparison import compare_results

PER_QUERY = ("user_coverage", "arp", "aplt", "novelty", "ild", "serendipity")
CATALOGUE = ("coverage", "gini", "entropy")


def _case(seed, n_queries=7, n_items=13, width=5):
    rng = np.random.default_rng(seed)
    top = np.array([rng.permutation(n_items)[:width] for _ in range(n_queries)])
    lengths = rng.integers(0, width + 1, n_queries)
    lengths[0] = width  # at least one full list
    for row, length in enumerate(lengths):
        top[row, length:] = -1
    y_true = rng.integers(0, 3, (n_queries, n_items)) * (rng.random((n_queries, n_items)) < 0.4)
    history = rng.random((n_queries, n_items)) < 0.3
    rows, positions = np.nonzero(top >= 0)
    history[rows, top[rows, positions]] = False  # a listed item is not a past one
    y_true[history] = 0
    return dict(
        y_true=csr_array(y_true),
        top=top,
        popularity=rng.integers(1, 30, n_items).astype(float),
        vectors=rng.normal(size=(n_items, 4)),
        history=history,
    )


def _lists(top, k):
    return [[int(item) for item in row[:k] if item >= 0] for row in top]


def _cosine(vectors, i, j):
    a, b = vectors[i], vectors[j]
    return float(a @ b / math.sqrt((a @ a) * (b @ b)))


def _reference(name, case, k, short_head_items, exposure="count", unit="bits", level=1):
    """The measure from its definition: loops over lists, pairs and items."""
    lists, n_items = _lists(case["top"], k), case["popularity"].shape[0]
    popularity, vectors = case["popularity"], case["vectors"]
    if name in CATALOGUE:
        weight = {"count": lambda p: 1.0, "dcg": lambda p: 1 / math.log2(p + 1)}.get(
            exposure, lambda p: exposure ** (p - 1)
        )
        counts = Counter()
        for items in lists:
            for position, item in enumerate(items, start=1):
                counts[item] += weight(position)
        x = sorted(counts.get(item, 0.0) for item in range(n_items))
        if name == "coverage":
            return sum(1 for value in x if value > 0) / n_items
        total = sum(x)
        if name == "gini":
            return sum((2 * i - n_items - 1) * v for i, v in enumerate(x, start=1)) / (n_items * total)
        nats = -sum(v / total * math.log(v / total) for v in x if v > 0)
        return {"nats": nats, "bits": nats / math.log(2), "normalized": nats / math.log(n_items)}[unit]
    values = []
    labels = case["y_true"].toarray()
    for row, items in enumerate(lists):
        n = len(items)
        if name == "user_coverage":
            values.append(float(n == k))
        elif n == 0 or (name == "ild" and n < 2):
            values.append(np.nan)
        elif name == "arp":
            values.append(sum(popularity[i] for i in items) / n)
        elif name == "aplt":
            values.append(sum(i not in short_head_items for i in items) / n)
        elif name == "novelty":
            values.append(sum(-math.log2(popularity[i] / popularity.sum()) for i in items) / n)
        elif name == "ild":
            pairs = list(itertools.combinations(items, 2))
            values.append(sum(1 - _cosine(vectors, i, j) for i, j in pairs) / len(pairs))
        else:  # serendipity
            past = np.flatnonzero(case["history"][row])
            if not past.size:
                values.append(np.nan)
                continue
            total = 0.0
            for i in items:
                unexpected = 1 - sum(_cosine(vectors, i, j) for j in past) / past.size
                total += unexpected * (labels[row, i] >= level)
            values.append(total / n)
    return np.array(values)


def _elliot_head(popularity, share):
    """Elliot's short head: by decreasing popularity until the share of interactions is reached."""
    order = sorted(range(popularity.shape[0]), key=lambda item: (-popularity[item], item))
    head, left = set(), share * popularity.sum()
    for item in order:
        head.add(item)
        left -= popularity[item]
        if left <= 0:
            break
    return head


def _evaluate(case, metrics, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_top_k(
            case["y_true"], case["top"], metrics=metrics, item_popularity=case["popularity"],
            item_vectors=case["vectors"], history=case["history"], **options,
        )  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("name", PER_QUERY + CATALOGUE)
def test_measures_match_their_definitions(name, k, seed):
    case = _case(seed)
    metrics = [f"{name}@{k}"] + ([] if name in ("ild", "serendipity") else ["ild@5"])
    results = _evaluate(case, metrics, average=None)
    expected = _reference(name, case, k, _elliot_head(case["popularity"], 0.8))
    if name in CATALOGUE:
        assert results.catalogue[f"{name}@{k}"] == pytest.approx(expected, rel=1e-12)
        assert f"{name}@{k}" not in results.metrics
    else:
        np.testing.assert_allclose(results[f"{name}@{k}"], expected, rtol=1e-12, atol=1e-12)
        mean = _evaluate(case, metrics)[f"{name}@{k}"]
        if np.isnan(expected).all():  # ild@1: no list has a pair
            assert np.isnan(mean)
        else:
            assert mean == pytest.approx(np.nanmean(expected), rel=1e-12)


@pytest.mark.parametrize("exposure", ["count", "dcg", 0.85, 0.5])
@pytest.mark.parametrize("unit", ["bits", "nats", "normalized"])
def test_exposure_and_entropy_unit(exposure, unit):
    case = _case(11)
    results = _evaluate(case, ["gini@4", "entropy@4"], exposure=exposure, entropy_unit=unit)
    assert results["gini@4"] == pytest.approx(
        _reference("gini", case, 4, set(), exposure=exposure), rel=1e-12
    )
    assert results["entropy@4"] == pytest.approx(
        _reference("entropy", case, 4, set(), exposure=exposure, unit=unit), rel=1e-12
    )


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8, 1.0])
def test_short_head_share_and_mask(share):
    case = _case(3)
    head = _elliot_head(case["popularity"], share)
    expected = _reference("aplt", case, 5, head)
    np.testing.assert_allclose(
        _evaluate(case, ["aplt@5"], short_head=share, average=None)["aplt@5"], expected
    )
    mask = np.isin(np.arange(case["popularity"].shape[0]), list(head))
    np.testing.assert_allclose(
        _evaluate(case, ["aplt@5"], short_head=mask, average=None)["aplt@5"], expected
    )


def test_relevance_level_decides_what_serendipity_counts():
    case = _case(5)
    for level in (1, 2):
        results = _evaluate(case, ["serendipity@5"], relevance_level=level, average=None)
        expected = _reference("serendipity", case, 5, set(), level=level)
        np.testing.assert_allclose(results["serendipity@5"], expected, rtol=1e-12, atol=1e-12)


def test_sparse_vectors_and_categories_give_the_same_cosines():
    case = _case(2)
    rng = np.random.default_rng(0)
    categories = rng.integers(0, 3, case["popularity"].shape[0])
    one_hot = np.eye(3)[categories]
    dense = _evaluate(case, ["ild@5", "serendipity@5"], average=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sparse_vectors = evaluate_top_k(
            case["y_true"], case["top"], metrics=["ild@5", "serendipity@5"],
            item_vectors=csr_array(case["vectors"]), history=csr_array(case["history"]),
            average=None,
        )  # fmt: skip
        by_category = evaluate_top_k(
            case["y_true"], case["top"], metrics=["ild@5"], item_categories=categories,
            average=None,
        )  # fmt: skip
        by_one_hot = evaluate_top_k(
            case["y_true"], case["top"], metrics=["ild@5"], item_vectors=one_hot, average=None
        )
        multi_hot = evaluate_top_k(
            case["y_true"], case["top"], metrics=["ild@5"], item_categories=one_hot > 0,
            average=None,
        )  # fmt: skip
    for name in ("ild@5", "serendipity@5"):
        np.testing.assert_allclose(sparse_vectors[name], dense[name], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(by_category["ild@5"], by_one_hot["ild@5"], atol=1e-12)
    np.testing.assert_allclose(multi_hot["ild@5"], by_one_hot["ild@5"], atol=1e-12)


def test_sample_weight_weighs_exposure_and_means():
    case = _case(4)
    weights = np.arange(1, case["top"].shape[0] + 1, dtype=float)
    repeated = dict(case, top=np.repeat(case["top"], weights.astype(int), axis=0))
    repeated["history"] = np.repeat(case["history"], weights.astype(int), axis=0)
    repeated["y_true"] = csr_array(np.repeat(case["y_true"].toarray(), weights.astype(int), axis=0))
    metrics = ["gini@4", "entropy@4", "coverage@4", "arp@4", "ild@4"]
    weighted = _evaluate(case, metrics, sample_weight=weights)
    copies = _evaluate(repeated, metrics)
    for name in metrics:
        assert weighted[name] == pytest.approx(copies[name], rel=1e-12)


def test_evaluate_retrieval_lists_are_its_top_k():
    rng = np.random.default_rng(8)
    queries, items = rng.normal(size=(9, 5)), rng.normal(size=(20, 5))
    y_true = csr_array((rng.random((9, 20)) < 0.2).astype(int))
    history = rng.random((9, 20)) < 0.2
    metrics = ["ndcg@4", "coverage@4", "gini@3", "arp@4", "ild@4", "serendipity@4"]
    options = dict(item_popularity=rng.integers(1, 9, 20), history=history, exclude=history)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, top, scores = evaluate_retrieval(
            queries, items, y_true, metrics=metrics, return_top_k=4, leakage="exclude", **options
        )
        listed = evaluate_top_k(
            y_true, top, top_scores=scores, metrics=metrics, item_vectors=items,
            leakage="exclude", **options,
        )  # fmt: skip
        only_lists = evaluate_retrieval(
            queries, items, y_true, metrics=metrics[1:], leakage="exclude", **options
        )
    assert results == pytest.approx(listed, rel=1e-12)
    assert only_lists == pytest.approx({name: results[name] for name in metrics[1:]}, rel=1e-12)


def test_catalogue_values_in_query_results():
    case = _case(1)
    results = _evaluate(case, ["arp@3", "gini@3", "ndcg@3", "coverage@3"], average=None)
    assert results.metrics == ("arp@3", "ndcg@3")
    assert list(results.catalogue) == ["gini@3", "coverage@3"]
    assert list(results.mean()) == ["arp@3", "ndcg@3", "gini@3", "coverage@3"]
    assert results.mean("gini@3") == results.catalogue["gini@3"]
    with pytest.raises(KeyError, match=r"results.catalogue\['gini@3'\]"):
        results["gini@3"]
    assert "(catalogue)" in repr(results)
    assert results == _evaluate(case, ["ndcg@3", "arp@3", "coverage@3", "gini@3"], average=None)
    assert results != _evaluate(case, ["arp@3", "ndcg@3", "coverage@3"], average=None)
    with pytest.raises(ValueError, match="catalogue"):
        QueryResults.concat([results, results])
    ordered = _evaluate(case, ["arp@3", "gini@3", "ndcg@3", "coverage@3"])
    assert list(ordered) == ["arp@3", "gini@3", "ndcg@3", "coverage@3"]


def test_per_query_list_measures_enter_comparisons():
    case = _case(6, n_queries=30)
    other = dict(case, top=_case(7, n_queries=30)["top"])
    first = _evaluate(case, ["arp@5", "novelty@5", "coverage@5"], average=None)
    second = _evaluate(other, ["arp@5", "novelty@5", "coverage@5"], average=None)
    table = compare_results({"a": first, "b": second}, metrics=["novelty@5"])
    ids, differences = table.differences("novelty@5", model="b", baseline="a")
    expected = second["novelty@5"] - first["novelty@5"]  # queries with both lists defined
    np.testing.assert_array_equal(ids, np.flatnonzero(~np.isnan(expected)))
    np.testing.assert_allclose(differences, expected[~np.isnan(expected)])


def test_undefined_lists_are_counted():
    case = _case(0)
    case["top"][2] = -1
    with pytest.warns(Warning, match="ild@5: .* undefined"):
        results = evaluate_top_k(
            case["y_true"], case["top"], metrics=["ild@5"], item_vectors=case["vectors"],
            average=None,
        )  # fmt: skip
    assert np.isnan(results["ild@5"][2])
    assert results.undefined("ild@5")[0][2]


@pytest.mark.parametrize(
    "metrics, options, message",
    [
        (["coverage"], {}, "needs a cutoff"),
        (["arp@3"], {}, "needs item_popularity="),
        (["ild@3"], {}, r"needs item_vectors= \(or item_categories=\)"),
        (["serendipity@3"], {"item_vectors": np.ones((13, 2))}, "needs history="),
        (["gini@9"], {}, "top_items holds 5"),
        (["ild@3"], {"item_vectors": np.ones((13, 2)), "item_categories": np.zeros(13, int)},
         "exactly one"),
        (["aplt@3"], {"item_popularity": np.ones(13), "short_head": 1.5}, "short_head"),
        (["arp@3"], {"item_popularity": np.ones(12)}, "one number per item"),
        (["arp@3"], {"item_popularity": -np.ones(13)}, ">= 0"),
        (["gini@3"], {"exposure": 2.0}, "exposure"),
        (["entropy@3"], {"entropy_unit": "dits"}, "entropy_unit"),
        (["novelty@3"], {"item_popularity": np.zeros(13)}, "item_popularity 0"),
        (["ild@3"], {"item_vectors": np.zeros((13, 2))}, "all zeros"),
    ],
)  # fmt: skip
def test_errors_name_the_measure_and_the_fix(metrics, options, message):
    case = _case(0)
    with pytest.raises((ValueError, TypeError), match=message):
        evaluate_top_k(case["y_true"], case["top"], metrics=metrics, **options)


def test_an_unread_input_warns():
    case = _case(0)
    with pytest.warns(UserWarning, match="item_popularity is given, but no requested measure"):
        evaluate_top_k(case["y_true"], case["top"], metrics=["ndcg@3"], item_popularity=np.ones(13))


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 6), min_size=2, max_size=12),
    unit=st.sampled_from(["normalized"]),
)
def test_gini_and_normalized_entropy_stay_in_range(counts, unit):
    from hypothesis import assume

    assume(sum(counts) > 0)
    top = np.full((sum(counts), 1), -1)
    top[:, 0] = np.repeat(np.arange(len(counts)), counts)
    y_true = csr_array(np.zeros((top.shape[0], len(counts))))
    results = evaluate_top_k(
        y_true, top, metrics=["gini@1", "entropy@1"], entropy_unit=unit
    )
    n = len(counts)
    assert 0 <= results["gini@1"] <= 1 - 1 / n + 1e-12
    assert -1e-12 <= results["entropy@1"] <= 1 + 1e-12


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 5))
def test_order_within_a_list_changes_only_the_position_weighted_exposure(seed, k):
    case = _case(seed)
    rng = np.random.default_rng(seed)
    shuffled = case["top"].copy()
    for row in shuffled:
        n = int((row[:k] >= 0).sum())
        row[:n] = rng.permutation(row[:n])
    order_free = [f"{name}@{k}" for name in PER_QUERY + CATALOGUE]
    before = _evaluate(case, order_free, average=None)
    after = _evaluate(dict(case, top=shuffled), order_free, average=None)
    for name in before.metrics:
        np.testing.assert_allclose(after[name], before[name], rtol=1e-12, atol=1e-12)
    for name, value in before.catalogue.items():
        assert after.catalogue[name] == pytest.approx(value, rel=1e-12, abs=1e-12)


def test_item_categories_ild_is_the_share_of_pairs_across_categories():
    case = _case(9)
    categories = np.random.default_rng(1).integers(0, 4, case["popularity"].shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_top_k(
            case["y_true"], case["top"], metrics=["ild@5"], item_categories=categories,
            average=None,
        )  # fmt: skip
    for row, items in enumerate(_lists(case["top"], 5)):
        pairs = list(itertools.combinations(items, 2))
        if pairs:
            across = sum(categories[i] != categories[j] for i, j in pairs) / len(pairs)
            assert results["ild@5"][row] == pytest.approx(across, abs=1e-12)


def test_comparisons_count_lower_popularity_as_the_win():
    case = _case(6, n_queries=30)
    popular = np.argsort(-case["popularity"], kind="stable")
    # The baseline lists the most popular items; the model lists the catalogue's tail.
    baseline = dict(case, top=np.tile(popular[:5], (30, 1)))
    model = dict(case, top=np.tile(popular[-5:], (30, 1)))
    results = {
        name: _evaluate(lists, ["arp@5", "aplt@5", "novelty@5"], average=None)
        for name, lists in (("tail", model), ("popular", baseline))
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_results(results, baseline="popular").to_frame()
    rows = table[table["model"] == "tail"].set_index("metric")
    assert (rows["wins"] == 30).all(), rows[["wins", "losses"]]


def test_coverage_counts_listed_items_whatever_the_exposure():
    lists = np.tile(np.arange(1200), (2, 1))
    y_true = np.zeros((2, 1200))
    y_true[0, 0] = 1
    for exposure in ("count", "dcg", 0.5, 1e-200):
        got = evaluate_top_k(y_true, lists, metrics=["coverage@1200"], exposure=exposure)
        assert got["coverage@1200"] == 1.0  # 0.5**1199 underflows: the item is listed all the same


def test_huge_query_weights_leave_gini_and_entropy_finite():
    y_true = np.eye(2, 4, dtype=int)
    metrics = ["gini@2", "entropy@2"]
    unit = evaluate_top_k(y_true, [[0, 1], [0, 2]], metrics=metrics, sample_weight=[1.0, 1.0])
    huge = evaluate_top_k(y_true, [[0, 1], [0, 2]], metrics=metrics, sample_weight=[1e308, 1e308])
    assert huge == unit == {"gini@2": 0.375, "entropy@2": 1.5}


def test_identical_directions_have_no_diversity_not_a_negative_one():
    case = _case(0)
    results = _evaluate(dict(case, vectors=np.ones((13, 3)) * 0.1), ["ild@5"], average=None)
    values = results["ild@5"][~np.isnan(results["ild@5"])]
    assert (values >= 0.0).all() and values.max() < 1e-14  # rounding, never below 0


def test_similarity_blocks_do_not_change_the_values(monkeypatch):
    from sklearn_rank_metrics.retrieval import _list_measures

    case = _case(12, n_queries=40)
    options = dict(item_vectors=csr_array(case["vectors"]), history=csr_array(case["history"]))
    metrics = ["ild@5", "serendipity@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = evaluate_top_k(case["y_true"], case["top"], metrics=metrics, average=None, **options)
        monkeypatch.setattr(_list_measures, "_BLOCK_CELLS", 7)  # a few lists a block
        blocks = evaluate_top_k(case["y_true"], case["top"], metrics=metrics, average=None, **options)
    for name in metrics:
        np.testing.assert_allclose(blocks[name], whole[name], rtol=1e-12, atol=1e-14)


def test_evaluate_retrieval_with_k_beyond_the_catalogue():
    rng = np.random.default_rng(2)
    queries, items = rng.normal(size=(30, 4)), rng.normal(size=(12, 4))
    y_true = csr_array((rng.random((30, 12)) < 0.2).astype(int))
    wide = evaluate_retrieval(queries, items, y_true, metrics=["coverage@500", "gini@500"])
    whole = evaluate_retrieval(queries, items, y_true, metrics=["coverage@12", "gini@12"])
    assert list(wide.values()) == list(whole.values())
    _, top, scores = evaluate_retrieval(queries, items, y_true, metrics=["ndcg@3"], return_top_k=20)
    assert top.shape == scores.shape == (30, 20)
    assert (top[:, 12:] == -1).all() and np.isnan(scores[:, 12:]).all()


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"item_categories": np.array([[1], [2]] * 6 + [[3]])}, TypeError, "must be boolean"),
        ({"item_popularity": np.ones((1, 13))}, ValueError, r"ravel\(\)"),
        ({"item_popularity": np.ones(13, dtype=bool)}, TypeError, "not booleans"),
        ({"top_scores": [[1.0]] * 7}, ValueError, "shape of top_items"),
    ],
)
def test_inputs_read_wrongly_before_raise(options, error, message):
    case = _case(0)
    metric = "ild@3" if "item_categories" in options else "arp@3"
    if "top_scores" in options:
        options = dict(options, item_popularity=case["popularity"])
    with pytest.raises(error, match=message):
        evaluate_top_k(case["y_true"], case["top"], metrics=[metric], **options)


@pytest.mark.parametrize(
    "options, unread",
    [
        ({"short_head": 0.5}, "short_head is set to 0.5"),
        ({"exposure": "dcg"}, "exposure is set to 'dcg'"),
        ({"entropy_unit": "nats"}, "entropy_unit is set to 'nats'"),
        ({"history": np.zeros((7, 13), dtype=bool)}, "history is given"),
    ],
)
def test_an_unread_option_warns(options, unread):
    case = _case(0)
    with pytest.warns(UserWarning, match=unread):
        evaluate_top_k(case["y_true"], case["top"], metrics=["ndcg@3", "coverage@3"], **options)


def test_catalogue_values_are_not_compared_query_by_query():
    first = _evaluate(_case(6, n_queries=30), ["arp@5", "gini@5"], average=None)
    second = _evaluate(_case(7, n_queries=30), ["arp@5", "gini@5"], average=None)
    with pytest.warns(UserWarning, match="gini@5: one value of each model's whole set"):
        compare_results({"a": first, "b": second}, n_resamples=200)
    with pytest.raises(ValueError, match="QueryResults.catalogue"):
        compare_results({"a": first, "b": second}, metrics=["gini@5"])


@pytest.mark.parametrize("name", ["coverage@10", "gini_2", "Novelty@5", "ild"])
def test_evaluate_refers_list_measures_to_the_top_k_functions(name):
    from sklearn_rank_metrics import evaluate

    with pytest.raises(ValueError, match=r"measure of top-k lists .* evaluate_top_k"):
        evaluate([[1, 0]], [[0.2, 0.1]], metrics=[name])
