"""A matrix-factorization recommender: held-out interactions, training items excluded, ties.
=========================================================================================

Implicit feedback (who interacted with what) of 2,000 users on 1,500 items,
generated with the skew of real interaction logs: item popularity follows a
Zipf law (a few items take most interactions), user activity is log-normal
(most users have a handful of interactions, a few have hundreds), and each
user's choices follow a hidden taste of 16 dimensions. The public
interaction data sets (MovieLens, Last.fm) are downloads under their own
terms, and none ships with the package's dependencies: the example makes its
own, so that nothing downloads.

The protocol of recommender papers: a fifth of each user's interactions is
held out as the test set (sparse ``y_true``), the model learns from the
rest, and at test time every item is ranked for every user **except the
items the user interacted with in training** (``exclude=train``): those are
neither ranked nor relevant. Counting them would rank known items first and
call them false positives.

- A factor model: a truncated SVD of the training matrix (PureSVD), whose
  user and item factors go to ``evaluate_retrieval``.
- A popularity baseline: each user's 100 most popular unseen items, as
  top-k lists with their training counts as scores, to ``evaluate_top_k``.
- Ties: the popularity counts tie, and a model that scores every item the
  same (a constant scorer) ties everything. Item ids here are numbered by
  popularity, as preprocessed data sets often are: input order among tied
  items (``ties="first"``) then hands the constant scorer the popularity
  ranking for free, where ``ties="average"`` gives its honest expected value.

Run with ``python examples/recommender_matrix_factorization.py``.
"""

import numpy as np
from scipy.sparse import csr_array
from sklearn.decomposition import TruncatedSVD

from sklearn_rank_metrics import evaluate_retrieval, evaluate_top_k

rng = np.random.default_rng(0)
N_USERS, N_ITEMS, RANK = 2_000, 1_500, 16

# Item j is the (j+1)-th most popular a priori (Zipf); users' activity is log-normal.
popularity = 1.0 / np.arange(1, N_ITEMS + 1) ** 1.2
activity = np.clip(np.round(rng.lognormal(mean=3.0, sigma=0.9, size=N_USERS)), 5, 600).astype(int)
tastes = rng.standard_normal((N_USERS, RANK))
traits = rng.standard_normal((N_ITEMS, RANK))

# Each user picks activity[u] distinct items with probability ~ popularity * exp(affinity):
# the top of log-weights plus Gumbel noise is a weighted sample without replacement.
log_weights = np.log(popularity) + 1.0 * tastes @ traits.T
picks = log_weights + rng.gumbel(size=log_weights.shape)
order = np.argsort(-picks, axis=1)
kept = np.arange(N_ITEMS) < activity[:, None]
users = np.repeat(np.arange(N_USERS), activity)
items = order[kept]

# Hold out a fifth of each user's interactions (at least one) as the test set.
starts = np.cumsum(activity) - activity  # each user's first row: rows are grouped by user
shuffled = np.lexsort((rng.random(users.size), users))  # a random order within each user
position = np.empty(users.size, dtype=int)
position[shuffled] = np.arange(users.size) - starts[users]
in_test = position < np.maximum(1, activity[users] // 5)


def interactions(mask):
    return csr_array((np.ones(mask.sum()), (users[mask], items[mask])), shape=(N_USERS, N_ITEMS))


train, test = interactions(~in_test), interactions(in_test)
print(f"{N_USERS} users x {N_ITEMS} items: {train.nnz} training and {test.nnz} test interactions")
counts = np.asarray(train.sum(axis=0)).ravel()
print(f"the 10% most popular items hold {np.sort(counts)[::-1][:N_ITEMS // 10].sum() / counts.sum():.0%} "
      f"of the training interactions; users have {activity.min()} to {activity.max()}")  # fmt: skip

METRICS = ["ndcg@10", "recall@20", "map@10", "mrr@10", "hit_rate@10", "recall_cap@10"]

# %%
# A factor model: truncated SVD of the training matrix
# ----------------------------------------------------
# The user factors (U S) and item factors (V) score each (user, item) pair by
# their dot product, the SVD's reconstruction of the training matrix.
# ``evaluate_retrieval`` computes those scores a block of users at a time,
# sets each user's training items aside and selects the top of the rest.

svd = TruncatedSVD(n_components=32, random_state=0)
user_factors = svd.fit_transform(train)
item_factors = svd.components_.T
factor_model = evaluate_retrieval(user_factors, item_factors, test, exclude=train, metrics=METRICS)

# Without exclude, the training items the model reproduces fill the top of each list.
naive = evaluate_retrieval(user_factors, item_factors, test, metrics=METRICS)

# %%
# A popularity baseline as top-k lists
# ------------------------------------
# Each user's 100 most popular items they have not interacted with, and the
# training counts as their scores: the output form of many recommenders (ids
# and scores). ``evaluate_top_k`` reads R and the ideal DCG from ``test``, not
# from the lists, and checks that no list holds an excluded item.

by_count = np.argsort(-counts, kind="stable")
seen = train.toarray()[:, by_count] > 0  # each user's seen items, most popular first
first_unseen = np.argsort(seen, axis=1, kind="stable")[:, :100]
top_items = by_count[first_unseen]
top_scores = counts[top_items]
popularity_model = evaluate_top_k(test, top_items, top_scores=top_scores, exclude=train,
                                  metrics=METRICS)  # fmt: skip

print(f"\n{'':<26}" + "".join(f"{name:>14}" for name in METRICS))
for label, values in [("SVD factors, exclude=train", factor_model),
                      ("SVD factors, no exclude", naive),
                      ("popularity, top-100 lists", popularity_model)]:  # fmt: skip
    print(f"{label:<26}" + "".join(f"{values[name]:>14.4f}" for name in METRICS))

# %%
# Ties: tied popularity counts, and a constant scorer
# ---------------------------------------------------
# The counts of the less popular items tie often (many items were seen
# exactly 3 times). Coarser scores tie more: popularity in tiers (the count's
# power of two), and at the extreme a model that gives every item the same
# score. Under ``ties="average"`` each value is the expected value over every
# order of the tied items; ``"optimistic"`` and ``"pessimistic"`` are its
# bounds; ``"first"`` takes tied items in id order, which here is popularity
# order: the constant scorer then looks as good as the popularity model.

TIE_METRICS = ["ndcg@10", "recall@20", "mrr@10"]
ones = np.ones((N_USERS, 1))
scorers = {
    "popularity counts": counts[:, None],
    "popularity tiers": np.floor(np.log2(counts + 1))[:, None],
    "constant": np.ones((N_ITEMS, 1)),
}
print(f"\n{'scores':<19}{'ties':<13}" + "".join(f"{name:>11}" for name in TIE_METRICS))
for label, item_scores in scorers.items():
    for ties in ["average", "first", "optimistic", "pessimistic"]:
        values = evaluate_retrieval(ones, item_scores, test, exclude=train, ties=ties,
                                    metrics=TIE_METRICS)  # fmt: skip
        print(f"{label:<19}{ties:<13}" + "".join(f"{values[name]:>11.4f}" for name in TIE_METRICS))
