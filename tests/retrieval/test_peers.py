"""The recommender and retrieval peers' numbers, and the options of ours that reproduce them.

torchmetrics (its Retrieval* classes) and implicit (``ranking_metrics_at_k``)
are run on the same scores; neither breaks ties in a specified way
(``torch.topk``/``argsort``, implicit's top-k selection), so their scores
are tie-free except where a peer averages ties itself (torchmetrics' NDCG).
Scores are integers exact in float32, so both sides rank alike.

torchmetrics (1.9), per query, then the mean:
  ndcg@k, gain="linear", ties="average"    RetrievalNormalizedDCG(top_k=k) (graded, ties averaged)
  mrr@k                                     RetrievalMRR(top_k=k)
  recall@k                                  RetrievalRecall(top_k=k)
  precision@k                               RetrievalPrecision(top_k=k) (divides by k)
  hit_rate_item@k, per query                RetrievalPrecision(top_k=k, adaptive_k=True)
  hit_rate@k                                RetrievalHitRate(top_k=k)
  map (no cut)                              RetrievalMAP()
  map@k / recall@k                          RetrievalMAP(top_k=k) (AP over the relevant in the top k)
  no_relevant "zero" / "skip" / "one"       empty_target_action "neg" / "skip" / "pos"
Its AP, MRR, precision and recall count a relevant document only where its
score is > 0 (``torch.where(preds > 0, target, 0)``): the scores here are positive.

implicit (0.7), users without a test item skipped (no_relevant="skip"),
training items filtered (exclude=), binary relevance (any stored test pair):
  recall_cap@K, sample_weight=min(K, R)     "precision" (sum of hits / sum of min(K, R))
  map@K, ap_denominator="min(R,k)"          "map"
  ndcg@K on y_true != 0, gain="linear"      "ndcg" (binary gains, ideal of min(K, R) items)
  (no option)                               "auc" (an approximation from the top K)
"""

import inspect
import warnings

import numpy as np
import pytest
from scipy import sparse

import sklearn_rank_metrics as srm

from _retrieval_cases import flat_rows

EMPTY_TARGET = {"zero": "neg", "skip": "skip", "one": "pos"}


def tie_free_factors(rng, n_users, n_items, dims=4):
    """Integer factors whose scores are distinct within each user and exact in float32.

    The last dimension adds a distinct ``perm[j] < n_items`` to item ``j``'s
    score; the others, scaled by ``n_items``, cannot tie it back.
    """
    users = np.ones((n_users, dims + 1))
    users[:, :dims] = rng.integers(-3, 4, (n_users, dims))
    items = np.empty((n_items, dims + 1))
    items[:, :dims] = n_items * rng.integers(-3, 4, (n_items, dims))
    items[:, dims] = rng.permutation(n_items)
    assert np.abs(users @ items.T).max() < 2**24
    return users.astype(np.float32), items.astype(np.float32)


# ------------------------------------------------------------- torchmetrics
def _interactions(rng, n_queries, n_items, grades=(1,)):
    """Test labels (grades), a disjoint training mask, one query with no test item."""
    y_true = np.where(rng.random((n_queries, n_items)) < 0.15, rng.choice(grades, (n_queries, n_items)), 0)
    y_true[1] = 0
    exclude = (rng.random((n_queries, n_items)) < 0.3) & (y_true == 0)
    exclude[2, 4:] = True  # a query with 4 items left: fewer than most k
    y_true[2, 4:] = 0
    y_true[2, 0], exclude[2, 0] = 1, False
    return y_true, exclude


def _torchmetrics(metric_class, y_true, scores, exclude, **kwargs):
    """Per-query values of a torchmetrics Retrieval class on the rows left after ``exclude``."""
    torch = pytest.importorskip("torch")
    labels, preds, qid = flat_rows(y_true, scores, exclude)
    metric = metric_class(aggregation=lambda values, dim=None: values, **kwargs)
    metric.update(torch.from_numpy(np.ascontiguousarray(preds)), torch.from_numpy(labels),
                  indexes=torch.from_numpy(qid))  # fmt: skip
    return metric.compute().numpy()


def _ours(y_true, scores, exclude, name, no_relevant, **options):
    values = srm.evaluate(sparse.csr_array(y_true), scores, exclude=exclude, metrics=[name],
                          no_relevant=no_relevant, average=None, **options)[name]  # fmt: skip
    return values[~np.isnan(values)]


TORCHMETRICS = [
    # (torchmetrics class, its keyword arguments, our measure at k, our options)
    ("RetrievalNormalizedDCG", {}, "ndcg", {"gain": "linear"}),
    ("RetrievalMRR", {}, "mrr", {}),
    ("RetrievalRecall", {}, "recall", {}),
    ("RetrievalPrecision", {}, "precision", {}),
    ("RetrievalPrecision", {"adaptive_k": True}, "hit_rate_item", {}),
    ("RetrievalHitRate", {}, "hit_rate", {}),
]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("no_relevant", ["zero", "skip", "one"])
@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("peer, kwargs, name, options", TORCHMETRICS, ids=lambda v: str(v))
def test_torchmetrics(peer, kwargs, name, options, k, no_relevant):
    """Per query (its aggregation returning the values) and in the mean, to float32 precision."""
    torchmetrics = pytest.importorskip("torchmetrics")
    rng = np.random.default_rng(k)
    graded = name == "ndcg"
    y_true, exclude = _interactions(rng, 10, 25, grades=(1, 2, 3) if graded else (1,))
    users, items = tie_free_factors(rng, 10, 25)
    scores = (users @ items.T).astype(np.float64)
    scores = scores - scores.min() + 1.0  # positive: torchmetrics counts no hit at a score <= 0
    got = _torchmetrics(getattr(torchmetrics.retrieval, peer), y_true, scores, exclude, top_k=k,
                        empty_target_action=EMPTY_TARGET[no_relevant], **kwargs)  # fmt: skip
    ours = _ours(y_true, scores, exclude, f"{name}@{k}", no_relevant, **options)
    np.testing.assert_allclose(got, ours, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("k", [2, 5])
def test_torchmetrics_ndcg_averages_tied_scores(k):
    """RetrievalNormalizedDCG averages the gains of a tied block (McSherry and Najork): ties="average"."""
    torchmetrics = pytest.importorskip("torchmetrics")
    rng = np.random.default_rng(3)
    y_true, exclude = _interactions(rng, 12, 20, grades=(1, 2, 3))
    scores = rng.integers(1, 4, y_true.shape).astype(np.float64)  # heavy ties
    got = _torchmetrics(torchmetrics.retrieval.RetrievalNormalizedDCG, y_true, scores, exclude,
                        top_k=k)  # fmt: skip
    ours = _ours(y_true, scores, exclude, f"ndcg@{k}", "zero", ties="average")
    np.testing.assert_allclose(got, ours, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_torchmetrics_map(k):
    """RetrievalMAP: the precisions at the relevant documents of the top k, over how many there are.

    Uncut, that is AP (over R); cut at k, it is our map@k / recall@k (0
    without a hit): its denominator is the hits in the top k, not R nor
    min(R, k).
    """
    torchmetrics = pytest.importorskip("torchmetrics")
    rng = np.random.default_rng(10 + (k or 0))
    y_true, exclude = _interactions(rng, 10, 25)
    users, items = tie_free_factors(rng, 10, 25)
    scores = (users @ items.T).astype(np.float64)
    scores = scores - scores.min() + 1.0
    got = _torchmetrics(torchmetrics.retrieval.RetrievalMAP, y_true, scores, exclude, top_k=k)
    if k is None:
        want = _ours(y_true, scores, exclude, "map", "zero")
    else:
        ap = _ours(y_true, scores, exclude, f"map@{k}", "zero")
        recall = _ours(y_true, scores, exclude, f"recall@{k}", "zero")
        want = np.divide(ap, recall, out=np.zeros_like(ap), where=recall > 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# ------------------------------------------------------------------ implicit
def _takes(function, option):
    return option in inspect.signature(function).parameters


AP_DENOMINATOR = _takes(srm.evaluate_retrieval, "ap_denominator") or _takes(srm.evaluate,
                                                                          "ap_denominator")


def _implicit_case(seed, n_users=40, n_items=120, dims=4):
    implicit_als = pytest.importorskip("implicit.cpu.als")
    rng = np.random.default_rng(seed)
    users, items = tie_free_factors(rng, n_users, n_items, dims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # its advice on BLAS threads
        model = implicit_als.AlternatingLeastSquares(factors=dims + 1)
    model.user_factors, model.item_factors = users, items
    train = rng.random((n_users, n_items)) < 0.15
    test = (rng.random((n_users, n_items)) < np.linspace(0.0, 0.2, n_users)[:, None]) & ~train
    test[:3] = False  # users without a test item: implicit skips them
    test[3, :40] = ~train[3, :40]  # a user with more test items than K
    return model, users, items, sparse.csr_matrix(train.astype(np.float32)), sparse.csr_matrix(
        test.astype(np.float32)
    )


def _implicit(model, train, test, k):
    evaluation = pytest.importorskip("implicit.evaluation")
    return evaluation.ranking_metrics_at_k(model, train, test, K=k, show_progress=False)


def _retrieval(users, items, test, train, metrics, **options):
    """evaluate_retrieval on the factors; evaluate on their score matrix for an option it lacks."""
    y_true, exclude = (test != 0).astype(np.int8), train != 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the users without a test item, skipped
        if all(_takes(srm.evaluate_retrieval, option) for option in options):
            return srm.evaluate_retrieval(users, items, y_true, exclude=exclude, metrics=metrics,
                                          no_relevant="skip", **options)  # fmt: skip
        return srm.evaluate(y_true, users @ items.T, exclude=exclude.toarray(), metrics=metrics,
                            no_relevant="skip", **options)  # fmt: skip


@pytest.mark.parametrize("k", [1, 5, 10, 30])
def test_implicit_precision_and_ndcg(k):
    """implicit's "precision" is recall_cap@K pooled over users; its "ndcg" our ndcg@K, binary."""
    model, users, items, train, test = _implicit_case(k)
    theirs = _implicit(model, train, test, k)
    n_relevant = np.diff(test.indptr)
    ours = _retrieval(users, items, test, train, [f"recall_cap@{k}"],
                      sample_weight=np.minimum(k, n_relevant))  # fmt: skip
    np.testing.assert_allclose(ours[f"recall_cap@{k}"], theirs["precision"], rtol=1e-12)
    ours = _retrieval(users, items, test, train, [f"ndcg@{k}"], gain="linear")
    np.testing.assert_allclose(ours[f"ndcg@{k}"], theirs["ndcg"], rtol=1e-12)


@pytest.mark.skipif(not AP_DENOMINATOR, reason="the ap_denominator option is not in this version")
@pytest.mark.parametrize("k", [1, 5, 10, 30])
def test_implicit_map(k):
    """implicit's "map": the precisions at the hits of the top K over min(K, R)."""
    model, users, items, train, test = _implicit_case(k)
    theirs = _implicit(model, train, test, k)
    ours = _retrieval(users, items, test, train, [f"map@{k}"], ap_denominator="min(R,k)")
    np.testing.assert_allclose(ours[f"map@{k}"], theirs["map"], rtol=1e-12)


def test_implicit_map_is_not_ours_over_r():
    """Without that option our map@K divides by R: below implicit's wherever R > K."""
    model, users, items, train, test = _implicit_case(5)
    theirs = _implicit(model, train, test, 5)
    ours = _retrieval(users, items, test, train, ["map@5"])
    assert ours["map@5"] < theirs["map"]
