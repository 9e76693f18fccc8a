"""The beyond-accuracy list measures against RecBole, LensKit and Microsoft Recommenders.

Each peer runs for real where it installs (``pytest.importorskip``; the three
install with ``pip install --no-deps``, see ``.ci/run``), on random lists, with
exactly the options that the "Beyond accuracy" section of
docs/recommender_systems.md says reproduce it, and its stated deviations
asserted as stated.

RecBole 1.2.1 (``recbole.evaluator.metrics``), its item ids as y_true's
columns (0 is its padding item, never listed, counted in its num_items),
item_popularity its training Counter (interactions):
  coverage@k                                   ItemCoverage
  gini@k                                       GiniIndex
  entropy@k, entropy_unit="nats"               ShannonEntropy x number of distinct listed items
  arp@k                                        AveragePopularity
  aplt@k, short_head=(pop > t) | (pop == 0)    TailPercentage, tail_ratio t > 1
  aplt@k, short_head=(complement of its tail)  TailPercentage, tail_ratio in (0, 1]

LensKit 2025.8.1 (``lenskit.metrics``, through its ``RunAnalysis``):
  gini@k                                       ListGini(k, items=n_items)
  gini@k, exposure=b                           ExposureGini(k, items=n_items, weight=GeometricRankWeight(b))
  gini@k, exposure="dcg"                       ExposureGini(..., weight=LogRankWeight(offset=1))

Microsoft Recommenders 1.2.1 (``recommenders.evaluation.python_evaluation``),
each user's list as reco_df rows, train_df the training pairs:
  ild@k, item_vectors=features                 user_diversity(item_sim_measure="item_feature_vector")
  ild@k, item_vectors=train.T                  user_diversity (default co-occurrence similarity)
  serendipity@k, history=train, y_true=relevance   user_serendipity(col_relevance=...)
  novelty@1 of a one-item list                 historical_item_novelty
  coverage@k x n_items / items with a training interaction   catalog_coverage
  entropy@k (bits), novelty@k (full lists)     distributional_coverage, novelty (pandas < 3)
Recommenders' global means (``novelty``, ``distributional_coverage``) index a
labelled Series by position and fail on pandas 3; its per-user functions run
on both.

Elliot and WarpRec do not install here (WarpRec needs Python 3.12; Elliot is
not on PyPI): their Gini, entropy, short head, ARP and APLT are written from
their definitions, to check the conversions the docs state.
"""

from collections import Counter

import numpy as np
import pytest
from scipy.sparse import csr_array

from sklearn_rank_metrics import evaluate_top_k

SEEDS = [0, 1, 2, 3]


def _lists(rng, n_users, n_items, width, short=False, first=0):
    """Each user's ``width`` distinct items among ``first .. first + n_items - 1``; a third of the
    lists shorter, none empty (LensKit's Gini fails on an empty list's untyped ids)."""
    top = np.array([first + rng.permutation(n_items)[:width] for _ in range(n_users)])
    if short:
        for row in rng.choice(n_users, n_users // 3, replace=False):
            top[row, rng.integers(1, width):] = -1
    return top


def _labels(rng, n_users, n_columns):
    """A test item for every user (the peers evaluate only those)."""
    y_true = (rng.random((n_users, n_columns)) < 0.2).astype(float)
    y_true[np.arange(n_users), rng.integers(0, n_columns, n_users)] = 1.0
    return csr_array(y_true)


# --- RecBole ---------------------------------------------------------------------------------


def _recbole(metric_classes, top, num_items, popularity, **config):
    """RecBole's values on ``top`` (its internal ids), metric_decimal_place 12."""
    pytest.importorskip("recbole.evaluator.metrics")
    torch = pytest.importorskip("torch")
    from recbole.evaluator import metrics as recbole_metrics
    from recbole.evaluator.collector import DataStruct

    data = DataStruct()
    data.set("rec.items", torch.from_numpy(top))
    data.set("data.num_items", num_items)
    # Its training Counter: items with an interaction only (an unseen item is absent).
    data.set("data.count_items", Counter({i: int(c) for i, c in enumerate(popularity) if c > 0}))
    config = {"topk": [top.shape[1]], "metric_decimal_place": 12, "tail_ratio": None, **config}
    values = {}
    for name in metric_classes:
        values.update(getattr(recbole_metrics, name)(config).calculate_metric(data))
    return {key.split("@")[0]: float(value) for key, value in values.items()}


def _recbole_case(seed, n_users=40, n_items=30, k=5):
    """RecBole ids 1..n_items (0: padding), full top-k lists, popularity with unseen items."""
    rng = np.random.default_rng(seed)
    top = _lists(rng, n_users, n_items, k, first=1)
    popularity = rng.integers(0, 25, n_items + 1)
    popularity[0] = 0
    popularity[top[0, 0]] = 0  # a listed item never seen in training
    return top, _labels(rng, n_users, n_items + 1), popularity


@pytest.mark.parametrize("seed", SEEDS)
def test_recbole_coverage_gini_entropy_arp(seed):
    top, y_true, popularity = _recbole_case(seed)
    k, num_items = top.shape[1], y_true.shape[1]
    theirs = _recbole(["ItemCoverage", "GiniIndex", "ShannonEntropy", "AveragePopularity"],
                      top, num_items, popularity)  # fmt: skip
    ours = evaluate_top_k(y_true, top, metrics=[f"coverage@{k}", f"gini@{k}", f"entropy@{k}", f"arp@{k}"],
                          item_popularity=popularity, entropy_unit="nats")  # fmt: skip
    assert ours[f"coverage@{k}"] == pytest.approx(theirs["itemcoverage"], abs=1e-12)
    assert ours[f"gini@{k}"] == pytest.approx(theirs["giniindex"], abs=1e-12)
    assert ours[f"arp@{k}"] == pytest.approx(theirs["averagepopularity"], abs=1e-12)
    # The deviation (RUCAIBox/RecBole#2165): the entropy in nats divided by the distinct items.
    distinct = np.unique(top).size
    assert ours[f"entropy@{k}"] / distinct == pytest.approx(theirs["shannonentropy"], abs=1e-12)
    assert ours[f"entropy@{k}"] != pytest.approx(theirs["shannonentropy"], abs=1e-3)


def _recbole_tail_by_share(popularity, ratio):
    """RecBole's tail for tail_ratio <= 1, as its docs state it: the int(ratio * m) (at least 1)
    least popular of the m items seen in training, ties by lower id."""
    seen = np.flatnonzero(popularity > 0)
    order = seen[np.lexsort((seen, popularity[seen]))]
    tail = np.zeros(popularity.shape[0], dtype=bool)
    tail[order[: max(int(seen.size * ratio), 1)]] = True
    return tail


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("tail_ratio", [0.1, 0.5, 5, 12])
def test_recbole_tail_percentage(seed, tail_ratio):
    """tail_ratio > 1: a count; an unseen item is not in its tail. <= 1: a share of the items."""
    top, y_true, popularity = _recbole_case(seed)
    k = top.shape[1]
    theirs = _recbole(["TailPercentage"], top, y_true.shape[1], popularity, tail_ratio=tail_ratio)
    if tail_ratio > 1:
        head = (popularity > tail_ratio) | (popularity == 0)
    else:
        head = ~_recbole_tail_by_share(popularity, tail_ratio)
    ours = evaluate_top_k(y_true, top, metrics=[f"aplt@{k}"], item_popularity=popularity, short_head=head)
    assert ours[f"aplt@{k}"] == pytest.approx(theirs["tailpercentage"], abs=1e-12)
    if tail_ratio > 1:  # short_head=popularity > t alone counts the listed unseen item as tail
        plain = evaluate_top_k(y_true, top, metrics=[f"aplt@{k}"], item_popularity=popularity,
                               short_head=popularity > tail_ratio)  # fmt: skip
        assert plain[f"aplt@{k}"] > theirs["tailpercentage"]


def test_recbole_counts_its_padding_item():
    """With y_true's columns the real items only (no padding column), coverage and Gini differ
    from RecBole's by its one extra item: coverage by n / (n + 1)."""
    top, y_true, popularity = _recbole_case(0)
    k, num_items = top.shape[1], y_true.shape[1]
    theirs = _recbole(["ItemCoverage"], top, num_items, popularity)
    ours = evaluate_top_k(y_true[:, 1:], top - 1, metrics=[f"coverage@{k}"])
    rescaled = ours[f"coverage@{k}"] * (num_items - 1) / num_items
    assert rescaled == pytest.approx(theirs["itemcoverage"], abs=1e-12)


# --- LensKit ---------------------------------------------------------------------------------


def _lenskit(top, n_items, k, exposures):
    """LensKit's ListGini or ExposureGini (per ``exposures``) over the lists, through RunAnalysis."""
    metrics = pytest.importorskip("lenskit.metrics")
    from lenskit.data import ItemList, ItemListCollection

    analysis = metrics.RunAnalysis()
    for number, exposure in enumerate(exposures):
        if exposure == "count":
            metric = metrics.ListGini(k, items=n_items)
        else:
            weight = (metrics.LogRankWeight(offset=1) if exposure == "dcg"
                      else metrics.GeometricRankWeight(exposure))  # fmt: skip
            metric = metrics.ExposureGini(k, items=n_items, weight=weight)
        analysis.add_metric(metric, label=f"exposure{number}")  # a label without dots
    recs = ItemListCollection.from_dict(
        {(user,): ItemList(item_ids=row[row >= 0], ordered=True) for user, row in enumerate(top)},
        key="user_id",
    )
    test = ItemListCollection.from_dict(
        {(user,): ItemList(item_ids=[0]) for user in range(top.shape[0])}, key="user_id"
    )
    values = analysis.measure(recs, test).global_metrics()
    return [float(values[f"exposure{number}"]) for number in range(len(exposures))]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [3, 6])
def test_lenskit_gini(seed, k):
    rng = np.random.default_rng(seed)
    n_users, n_items = 30, 25
    top = _lists(rng, n_users, n_items, 6, short=True)
    y_true = _labels(rng, n_users, n_items)
    exposures = ["count", 0.85, 0.5, "dcg"]
    theirs = _lenskit(top, n_items, k, exposures)
    for exposure, their in zip(exposures, theirs):
        ours = evaluate_top_k(y_true, top, metrics=[f"gini@{k}"], exposure=exposure)[f"gini@{k}"]
        # ExposureGini sums float32 weights: its precision, not ours.
        tolerance = 1e-12 if exposure == "count" else 1e-6
        assert ours == pytest.approx(their, abs=tolerance), exposure


# --- Microsoft Recommenders ------------------------------------------------------------------


def _recommenders():
    return pytest.importorskip("recommenders.evaluation.python_evaluation")


def _frames(top, train, relevance=None):
    """train_df and reco_df (userID, itemID[, relevance]) of a training matrix and the lists."""
    import pandas as pd

    users, items = np.nonzero(train)
    train_df = pd.DataFrame({"userID": users, "itemID": items})
    rows, positions = np.nonzero(top >= 0)
    reco_df = pd.DataFrame({"userID": rows, "itemID": top[rows, positions], "prediction": 1.0})
    if relevance is not None:
        reco_df["relevance"] = relevance[rows, top[rows, positions]].astype(float)
    return train_df, reco_df


def _recommenders_case(seed, n_users=12, n_items=15, width=5, short=True, connected=False):
    """Lists, a training matrix disjoint from them, item feature vectors, test labels.

    ``connected``: a training user (with no list) who has every item, so that every two items
    co-occur and have a training interaction.
    """
    rng = np.random.default_rng(seed)
    top = _lists(rng, n_users, n_items, width, short=short)
    train = rng.random((n_users, n_items)) < 0.3
    rows, positions = np.nonzero(top >= 0)
    train[rows, top[rows, positions]] = False  # Recommenders refuses a listed training pair
    if connected:
        top = np.vstack([top, np.full((1, width), -1)])
        train = np.vstack([train, np.ones((1, n_items), dtype=bool)])
    features = rng.normal(size=(n_items, 4))
    labels = (rng.random(train.shape) < 0.4) & ~train
    return top, train, features, labels


def _by_user(frame, column, n_users):
    values = np.full(n_users, np.nan)
    values[frame["userID"].to_numpy()] = frame[column].to_numpy()
    return values


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_diversity_from_feature_vectors(seed):
    evaluation = _recommenders()
    import pandas as pd

    top, train, features, labels = _recommenders_case(seed)
    train_df, reco_df = _frames(top, train)
    item_features = pd.DataFrame({"itemID": np.arange(features.shape[0]), "features": list(features)})
    theirs = evaluation.user_diversity(train_df, reco_df, item_feature_df=item_features,
                                       item_sim_measure="item_feature_vector")  # fmt: skip
    k = top.shape[1]
    ours = evaluate_top_k(csr_array(labels.astype(float)), top, metrics=[f"ild@{k}"],
                          item_vectors=features, average=None)[f"ild@{k}"]  # fmt: skip
    # Recommenders leaves a user with fewer than two items out; ours is NaN there.
    np.testing.assert_allclose(ours, _by_user(theirs, "user_diversity", top.shape[0]), rtol=1e-12)


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_diversity_and_serendipity_from_co_occurrence(seed):
    """Its default similarity, item co-occurrence in train_df, is the cosine of the items'
    columns of the training matrix: ``item_vectors=train.T``."""
    evaluation = _recommenders()
    top, train, _, labels = _recommenders_case(seed, short=False, connected=True)
    train_df, reco_df = _frames(top, train, relevance=labels)
    k, n_users = top.shape[1], top.shape[0]
    vectors = csr_array(train.T.astype(float))
    ours = evaluate_top_k(csr_array(labels.astype(float)), top, metrics=[f"ild@{k}", f"serendipity@{k}"],
                          item_vectors=vectors, history=csr_array(train), average=None)  # fmt: skip
    diversity = evaluation.user_diversity(train_df, reco_df)
    np.testing.assert_allclose(ours[f"ild@{k}"], _by_user(diversity, "user_diversity", n_users), rtol=1e-12)
    serendipity = evaluation.user_serendipity(train_df, reco_df, col_relevance="relevance")
    theirs = _by_user(serendipity, "user_serendipity", n_users)
    np.testing.assert_allclose(ours[f"serendipity@{k}"], theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("relevance", ["labels", "none"])
def test_recommenders_serendipity_from_feature_vectors(seed, relevance):
    """col_relevance gives y_true at the listed pairs; without it every listed item counts as
    relevant: y_true of ones."""
    evaluation = _recommenders()
    import pandas as pd

    top, train, features, labels = _recommenders_case(seed)
    if relevance == "none":
        labels = np.ones(train.shape, dtype=bool)
    train_df, reco_df = _frames(top, train, relevance=labels if relevance == "labels" else None)
    item_features = pd.DataFrame({"itemID": np.arange(features.shape[0]), "features": list(features)})
    theirs = evaluation.user_serendipity(
        train_df, reco_df, item_feature_df=item_features, item_sim_measure="item_feature_vector",
        col_relevance="relevance" if relevance == "labels" else None,
    )
    k, n_users = top.shape[1], top.shape[0]
    ours = evaluate_top_k(csr_array(labels.astype(float)), top, metrics=[f"serendipity@{k}"],
                          item_vectors=features, history=csr_array(train), average=None)  # fmt: skip
    theirs = _by_user(theirs, "user_serendipity", n_users)
    np.testing.assert_allclose(ours[f"serendipity@{k}"], theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_item_novelty_and_catalog_coverage(seed):
    evaluation = _recommenders()
    top, train, _, labels = _recommenders_case(seed, connected=True)
    train_df, reco_df = _frames(top, train)
    popularity = train.sum(axis=0).astype(float)
    # Each item alone in a list: novelty@1 is the item's novelty.
    n_items = train.shape[1]
    singletons = np.arange(n_items)[:, None]
    ours = evaluate_top_k(csr_array(np.eye(n_items)), singletons, metrics=["novelty@1"],
                          item_popularity=popularity, average=None)["novelty@1"]  # fmt: skip
    theirs = evaluation.historical_item_novelty(train_df, reco_df)
    theirs = theirs.set_index("itemID")["item_novelty"].reindex(range(n_items))
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    # catalog_coverage divides by the items seen in training, not by the catalogue.
    k = top.shape[1]
    coverage = evaluate_top_k(csr_array(labels.astype(float)), top, metrics=[f"coverage@{k}"])
    coverage = coverage[f"coverage@{k}"]
    assert coverage * n_items / np.count_nonzero(popularity) == pytest.approx(
        evaluation.catalog_coverage(train_df, reco_df), abs=1e-12
    )


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_distributional_coverage_and_novelty(seed):
    pandas = pytest.importorskip("pandas")
    if int(pandas.__version__.split(".")[0]) >= 3:
        pytest.skip("Recommenders' global means index a labelled Series by position: pandas < 3 only")
    evaluation = _recommenders()
    top, train, _, labels = _recommenders_case(seed, short=False, connected=True)
    train_df, reco_df = _frames(top, train)
    k = top.shape[1]
    ours = evaluate_top_k(csr_array(labels.astype(float)), top, metrics=[f"entropy@{k}", f"novelty@{k}"],
                          item_popularity=train.sum(axis=0).astype(float))  # fmt: skip
    distributional = evaluation.distributional_coverage(train_df, reco_df)
    assert ours[f"entropy@{k}"] == pytest.approx(distributional, abs=1e-12)
    assert ours[f"novelty@{k}"] == pytest.approx(evaluation.novelty(train_df, reco_df), abs=1e-12)


# --- Elliot and WarpRec (not installable here: their formulas, as their source computes them) --


def _elliot_warprec(top, n_items):
    """Elliot's and WarpRec's Gini and Shannon entropy, written from their definitions."""
    lists = [row[row >= 0] for row in top]
    counts = Counter(int(item) for items in lists for item in items)
    total = sum(len(items) for items in lists)
    ascending = sorted(counts.values())
    offset = n_items - len(ascending)  # never-listed items rank first, at zero
    weighted = sum((2 * (j + offset + 1) - n_items - 1) * count / total for j, count in enumerate(ascending))
    rescaled = weighted / (n_items - 1)
    # Elliot: each listed item weighs 1 / its list's length; its "sales novelty" in bits.
    weight = Counter()
    for items in lists:
        for item in items:
            weight[int(item)] += 1 / len(items)
    elliot_entropy = sum(w * -np.log2(counts[i] / total) for i, w in weight.items()) / len(lists)
    warprec_entropy = -sum(c / total * np.log(c / total) for c in counts.values())
    return {"elliot_gini": 1 - rescaled, "warprec_gini": rescaled,
            "elliot_entropy": elliot_entropy, "warprec_entropy": warprec_entropy}  # fmt: skip


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("short", [False, True])
def test_elliot_and_warprec_rescalings(seed, short):
    rng = np.random.default_rng(seed)
    n_users, n_items, k = 20, 30, 5
    top = _lists(rng, n_users, n_items, k, short=short)
    y_true = _labels(rng, n_users, n_items)
    theirs = _elliot_warprec(top, n_items)
    ours = evaluate_top_k(y_true, top, metrics=[f"gini@{k}", f"entropy@{k}"])
    nats = evaluate_top_k(y_true, top, metrics=[f"entropy@{k}"], entropy_unit="nats")[f"entropy@{k}"]
    scale = n_items / (n_items - 1)
    assert theirs["warprec_gini"] == pytest.approx(ours[f"gini@{k}"] * scale, abs=1e-12)
    assert theirs["elliot_gini"] == pytest.approx(1 - ours[f"gini@{k}"] * scale, abs=1e-12)
    assert theirs["warprec_entropy"] == pytest.approx(nats, abs=1e-12)
    # Elliot's entropy weighs an item by 1 / its list's length: bits only where lists are full.
    if short:
        assert theirs["elliot_entropy"] != pytest.approx(ours[f"entropy@{k}"], abs=1e-6)
    else:
        assert theirs["elliot_entropy"] == pytest.approx(ours[f"entropy@{k}"], abs=1e-12)


def _elliot_short_head(popularity, share=0.8):
    """Elliot's short head: items by decreasing popularity (stable), until the remaining
    share of the interactions reaches 0 or below."""
    head, left = [], share * popularity.sum()
    for item in sorted(range(popularity.size), key=lambda i: -popularity[i]):
        head.append(item)
        left -= popularity[item]
        if left <= 0:
            break
    return head


def _warprec_short_head(popularity, share=0.8):
    """WarpRec's short head: up to the first item whose cumulative popularity exceeds the share."""
    order = np.argsort(-popularity, kind="stable")
    return order[: np.flatnonzero(np.cumsum(popularity[order]) > share * popularity.sum())[0] + 1]


@pytest.mark.parametrize("seed", SEEDS)
def test_elliot_short_head_arp_and_aplt(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items, k = 20, 30, 5
    train = rng.random((60, n_items)) < rng.random(n_items) ** 3  # a popularity skew
    popularity = train.sum(axis=0)  # distinct training users, Elliot's and WarpRec's popularity
    top = _lists(rng, n_users, n_items, k, short=True)
    tail = np.setdiff1d(np.arange(n_items), _elliot_short_head(popularity))
    lists = [row[row >= 0] for row in top]
    aplt = np.mean([np.isin(items, tail).sum() / len(items) for items in lists])
    arp = np.mean([popularity[items].mean() for items in lists])
    ours = evaluate_top_k(_labels(rng, n_users, n_items), top, metrics=[f"aplt@{k}", f"arp@{k}"],
                          item_popularity=popularity)  # fmt: skip
    assert ours[f"aplt@{k}"] == pytest.approx(aplt, abs=1e-12)
    assert ours[f"arp@{k}"] == pytest.approx(arp, abs=1e-12)
    # Elliot's head and WarpRec's differ only where the cumulative count hits the share exactly.
    assert sorted(_warprec_short_head(popularity)) == sorted(_elliot_short_head(popularity)) or (
        np.isclose(np.sort(popularity)[::-1].cumsum(), 0.8 * popularity.sum()).any()
    )


def test_warprec_short_head_is_strict():
    popularity = np.array([5.0, 3.0, 2.0])  # the first two take exactly 80%
    assert list(_elliot_short_head(popularity)) == [0, 1]
    assert list(_warprec_short_head(popularity)) == [0, 1, 2]
    ours = evaluate_top_k(csr_array(np.eye(3)), np.array([[0], [1], [2]]), metrics=["aplt@1"],
                          item_popularity=popularity, average=None)  # fmt: skip
    assert ours["aplt@1"].tolist() == [0.0, 0.0, 1.0]  # Elliot's: item 2 is the tail
