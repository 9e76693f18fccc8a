"""Tune LightGBM's LGBMRanker with GridSearchCV on NDCG@10, folds that keep queries whole.

The data are LightGBM's own lambdarank example (bundled with the package):
201 training queries with 3,005 documents, 50 test queries with 768, 300
sparse features, relevance grades 0-4.

Three pieces make GridSearchCV rank-aware:

- ``QueryRanker`` sorts each training fold by query and hands LightGBM the
  fold's own ``group`` sizes;
- ``QueryKFold`` puts every query whole into one fold (the default ``cv=5``
  would cut queries in two);
- ``make_rank_scorers`` scores each test fold query by query, here NDCG@10
  (used to pick the model) with MAP@10 and MRR@10 beside it.

With metadata routing on, the query ids are passed once, to ``fit``, and
scikit-learn hands each of the three the ids of its own rows.

Run with::

    pip install -e ".[lightgbm]" && python examples/tune_lightgbm_ranker.py
"""

import time

import numpy as np
import sklearn
from lightgbm import LGBMRanker
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV

from sklearn_rank_metrics import QueryKFold, QueryRanker, make_rank_scorers, ndcg_score
from sklearn_rank_metrics.datasets import load_lambdarank_example

METRICS = ["ndcg@10", "map@10", "mrr@10"]
REFIT_METRIC = "ndcg@10"
PARAM_GRID = {
    "estimator__learning_rate": [0.05, 0.1],
    "estimator__num_leaves": [7, 31],
    "estimator__min_child_samples": [20, 50],
}


def format_params(params):
    """``learning_rate=0.05, ...``: the grid's parameters without the wrapper's prefix."""
    return ", ".join(f"{key.removeprefix('estimator__')}={value}" for key, value in params.items())


def print_ranked_results(search):
    """The cv_results_ table, best candidate first, one row per candidate."""
    results = search.cv_results_
    order = results[f"rank_test_{REFIT_METRIC}"].argsort(kind="stable")
    header = f"{'rank':>4}  " + "  ".join(f"{name:>15}" for name in METRICS) + "  parameters"
    print(header)
    print("-" * len(header))
    for candidate in order:
        scores = "  ".join(
            f"{results['mean_test_' + name][candidate]:.4f} ± "
            f"{results['std_test_' + name][candidate]:.3f}"
            for name in METRICS
        )
        rank = results[f"rank_test_{REFIT_METRIC}"][candidate]
        print(f"{rank:>4}  {scores}  {format_params(results['params'][candidate])}")


def main():
    started = time.perf_counter()
    # One switch for the whole script: qid then flows from fit() to the splitter,
    # the ranker and the scorers, which all request it by default.
    sklearn.set_config(enable_metadata_routing=True)

    data = load_lambdarank_example()
    X_train, y_train, qid_train = data.X_train, data.y_train, data.qid_train
    X_test, y_test, qid_test = data.X_test, data.y_test, data.qid_test

    ranker = QueryRanker(LGBMRanker(n_estimators=100, num_threads=1, random_state=0, verbose=-1))
    search = GridSearchCV(
        ranker,
        PARAM_GRID,
        scoring=make_rank_scorers(METRICS),
        refit=REFIT_METRIC,
        cv=QueryKFold(n_splits=5),
        n_jobs=2,  # two fits at a time, one LightGBM thread each
        verbose=3,  # one progress line per fit, with its scores
    )
    search.fit(X_train, y_train, qid=qid_train)

    print()
    print(f"Cross-validated results (5 query-grouped folds, ranked by {REFIT_METRIC}):")
    print_ranked_results(search)
    print()
    print(
        f"Best parameters: {format_params(search.best_params_)} "
        f"(mean {REFIT_METRIC} {search.best_score_:.4f})"
    )

    # search.score hands qid_test to the refit scorer: mean NDCG@10 over the test queries.
    test_ndcg = search.score(X_test, y_test, qid=qid_test)

    # Pointwise baseline: regress the grade, rank by the prediction.
    baseline = HistGradientBoostingRegressor(random_state=0)
    baseline.fit(X_train.toarray(), y_train)
    baseline_ndcg = ndcg_score(y_test, baseline.predict(X_test.toarray()), qid=qid_test, k=10)

    # How far a mean over this few queries moves by chance.
    per_query = ndcg_score(y_test, search.predict(X_test), qid=qid_test, k=10, average=None)
    standard_error = per_query.std(ddof=1) / np.sqrt(len(per_query))

    print()
    print(f"Held-out test NDCG@10 ({len(per_query)} queries, {X_test.shape[0]} documents):")
    print(f"  LGBMRanker, tuned and refit     {test_ndcg:.4f}")
    print(f"  HistGradientBoostingRegressor   {baseline_ndcg:.4f}  (pointwise baseline)")
    print(f"  standard error of such a mean   {standard_error:.4f}")
    print()
    print(f"Total time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
