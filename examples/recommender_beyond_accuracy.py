"""Beyond accuracy: coverage, concentration and popularity bias of two recommenders.
=================================================================================

Two recommenders can be equally accurate and still recommend very
different things: one the same few best-sellers to everybody, the other a
wider share of the catalogue. This example compares

- a **most-popular** recommender: every user gets the ten most popular items
  they have not interacted with yet;
- an **item-kNN** recommender: an item's score for a user is the sum of its
  cosine similarities to the user's training items (item-item
  collaborative filtering, fitted with NumPy and SciPy in a few lines),

on held-out interactions, by their accuracy (NDCG@10, recall@10) and by
what their lists are made of:

- ``coverage@10``: the share of the catalogue that appears in at least one
  user's list (a catalogue-level value);
- ``gini@10``: how unequally the recommendations are spread over the items:
  0 when every item is recommended equally often, close to 1 when a few
  items take all the slots (catalogue-level);
- ``arp@10``: the average popularity (training interactions) of the
  recommended items; ``aplt@10``: the share of a list taken from the long
  tail (the items outside the short head that gathers 80% of the
  interactions); ``novelty@10``: the mean self-information
  ``-log2(popularity share)`` of the listed items, in bits: higher for
  rarer items. These three are per user, then averaged.

The data: implicit feedback of 2,000 users on 1,500 items with the skew of
real interaction logs (Zipf item popularity, log-normal user activity,
hidden tastes), generated here so that nothing downloads; a fifth of each
user's interactions is held out as the test set and the training items are
excluded from the lists.

Run with ``python examples/recommender_beyond_accuracy.py``.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.sparse import csr_array

from sklearn_rank_metrics import evaluate_retrieval, evaluate_top_k
from sklearn_rank_metrics.comparison import compare_results

rng = np.random.default_rng(0)
N_USERS, N_ITEMS, RANK = 2_000, 1_500, 16

popularity_prior = 1.0 / np.arange(1, N_ITEMS + 1) ** 1.1
activity = np.clip(np.round(rng.lognormal(mean=3.0, sigma=0.8, size=N_USERS)), 5, 400).astype(int)
tastes = rng.standard_normal((N_USERS, RANK))
traits = rng.standard_normal((N_ITEMS, RANK))

# Each user picks activity[u] distinct items with probability ~ prior * exp(affinity):
# the top of log-weights plus Gumbel noise is a weighted sample without replacement.
picks = np.log(popularity_prior) + 0.8 * tastes @ traits.T + rng.gumbel(size=(N_USERS, N_ITEMS))
order = np.argsort(-picks, axis=1)
users = np.repeat(np.arange(N_USERS), activity)
items = order[np.arange(N_ITEMS) < activity[:, None]]
held_out = rng.random(users.size) < 0.2


def interactions(mask):
    return csr_array((np.ones(mask.sum()), (users[mask], items[mask])), shape=(N_USERS, N_ITEMS))


train, test = interactions(~held_out), interactions(held_out)
item_popularity = np.asarray(train.sum(axis=0)).ravel()  # training interactions per item
print(f"{N_USERS} users x {N_ITEMS} items: {train.nnz} training and {test.nnz} test interactions")

# %%
# Two recommenders, as top-10 lists
# ---------------------------------
# The most-popular lists: the items by decreasing training count, each user's
# seen items skipped. The item-kNN scores are ``train @ S`` with ``S`` the
# items' cosine similarity (zero diagonal): as user and item "factors"
# (``train`` and ``S``), ``evaluate_retrieval`` scores them a block of users
# at a time, leaves each user's training items out, and returns the top 10.

by_count = np.argsort(-item_popularity, kind="stable")
seen = train.toarray()[:, by_count] > 0
popular_lists = by_count[np.argsort(seen, axis=1, kind="stable")[:, :10]]

columns = train.T.tocsr()
norms = np.sqrt(np.asarray(columns.multiply(columns).sum(axis=1)).ravel())
similarity = (columns @ columns.T).toarray() / np.maximum(np.outer(norms, norms), 1e-12)
np.fill_diagonal(similarity, 0.0)
_, knn_lists, knn_scores = evaluate_retrieval(
    train.toarray(), similarity, test, exclude=train, metrics=["ndcg@10"], return_top_k=10
)

# %%
# Accuracy and what the lists are made of
# ---------------------------------------
# The list measures are measure names beside the accuracy ones. They read
# the lists, and ``item_popularity`` (training interactions per item) for
# the popularity measures. With ``average=None`` each model's result holds
# the per-user values of the per-list measures (ndcg, recall, arp, aplt,
# novelty) and, in ``results.catalogue``, the catalogue-level ones
# (coverage, gini).

METRICS = ["ndcg@10", "recall@10", "coverage@10", "gini@10", "arp@10", "aplt@10", "novelty@10"]
results = {
    "most popular": evaluate_top_k(test, popular_lists, exclude=train, metrics=METRICS,
                                   item_popularity=item_popularity, average=None),
    "item-kNN": evaluate_top_k(test, knn_lists, top_scores=knn_scores, exclude=train, metrics=METRICS,
                               item_popularity=item_popularity, average=None),
}  # fmt: skip
means = {model: result.mean() for model, result in results.items()}

print(f"\n{'':<14}" + "".join(f"{name:>13}" for name in METRICS))
for model, values in means.items():
    print(f"{model:<14}" + "".join(f"{values[name]:>13.4f}" for name in METRICS))

# %%
# How to read the table:
#
# - **Accuracy.** NDCG@10 and recall@10 say how many held-out items each
#   list finds, and how high: item-kNN finds more than twice as many as the
#   most-popular lists.
# - **Coverage.** The most-popular recommender shows nearly the same ten
#   items to everybody (the next ones only to users who have seen those):
#   its lists cover under 2% of the catalogue. The item-kNN lists follow each
#   user's history and reach a much larger share of it.
# - **Gini.** Over all the slots of all the lists, the most-popular
#   recommender puts its exposure on a handful of items: its Gini index is
#   near the maximum ``1 - 1/n_items``. Item-kNN's is lower, yet still high:
#   popular items are similar to many others, so a neighbourhood model
#   inherits part of the popularity bias of its data.
# - **Popularity bias.** ``arp@10`` is in training interactions: how popular
#   a recommended item is on average. ``aplt@10`` is the share of a list
#   from the long tail: 0 for the most-popular lists, whose items are all in
#   the short head, and small for item-kNN too. ``novelty@10``, in bits,
#   grows as the listed items get rarer: one bit more is an item half as
#   popular.
#
# A figure of the same: each model's exposure as a Lorenz curve (the Gini
# index is one minus twice the area under it), and how popular the items it
# recommends are.

fig, (lorenz, spread) = plt.subplots(1, 2, figsize=(10, 3.8))
bins = np.linspace(0, np.log10(item_popularity.max()), 31)
for model, lists in [("most popular", popular_lists), ("item-kNN", knn_lists)]:
    exposure = np.sort(np.bincount(lists[lists >= 0], minlength=N_ITEMS))
    share = np.concatenate([[0.0], np.cumsum(exposure) / exposure.sum()])
    gini = means[model]["gini@10"]
    lorenz.plot(np.linspace(0, 1, N_ITEMS + 1), share, label=f"{model} (Gini {gini:.2f})")
    spread.hist(np.log10(item_popularity[lists[lists >= 0]]), bins=bins, histtype="step", linewidth=1.5,
                label=model)  # fmt: skip
lorenz.plot([0, 1], [0, 1], color="grey", linestyle=":", label="equal exposure")
lorenz.set(xlabel="share of the items (least recommended first)", ylabel="share of the recommendations",
           title="Exposure: Lorenz curves")  # fmt: skip
spread.set(xlabel="log10 training interactions of a recommended item", ylabel="recommendations",
           title="Popularity of the recommended items")  # fmt: skip
lorenz.legend(fontsize=8)
spread.legend(fontsize=8)
fig.tight_layout()

# %%
# Per-user values enter paired comparisons
# ----------------------------------------
# The per-list measures are per user, as NDCG is: ``compare_results`` pairs
# the two models user by user, with intervals, effect sizes and a paired
# test for each. Coverage and Gini have one value for the whole catalogue
# and no per-user spread to test: they stay in ``results["..."].catalogue``.

comparison = compare_results(results, metrics=["ndcg@10", "aplt@10", "novelty@10"], random_state=0)
print(comparison)
for model, result in results.items():
    print(f"{model:<14}" + "".join(f"  {name} {value:.4f}" for name, value in result.catalogue.items()))

# %%
# The paired test says whether item-kNN's lists are more novel user by user,
# not only on average; the wins and losses count the users whose lists got
# more (or less) novel. A recommender is chosen on both axes: the accuracy
# it gives up, if any, against the share of the catalogue it brings to its
# users.

plt.show()
