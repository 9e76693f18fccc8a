"""Tune LightGBM's LGBMRanker with GridSearchCV on NDCG@10, folds that keep queries whole.
=======================================================================================

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

What is tuned is what matters for a boosted ranker:

- the number of trees, by early stopping on a fifth of the training
  queries, held out whole and never searched or scored (every fit of the
  search stops on them);
- the learning rate, the number of leaves and ``min_child_samples``, by
  the grid search on the other queries;
- the gains: LightGBM's lambdarank (and its own NDCG) weigh grade g by
  2**g - 1 unless told otherwise, while the NDCG@10 scored here (the
  package's default) weighs it by g; ``label_gain`` gives LightGBM the
  gains of the metric it is tuned for.

The tuned settings are then refit on all training queries with the number
of trees early stopping chose, and compared on the test queries with an
untuned LGBMRanker and a pointwise baseline, query by query: with 50 test
queries a difference has to be about twice its standard error to be more
than chance, and the output says whether it is.

Run with::

    pip install -e ".[lightgbm]" && python examples/tune_lightgbm_ranker.py
"""

import time

import lightgbm
import numpy as np
import sklearn
from lightgbm import LGBMRanker
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV

from sklearn_rank_metrics import (
    QueryKFold,
    QueryRanker,
    QueryShuffleSplit,
    make_rank_scorers,
    ndcg_score,
)
from sklearn_rank_metrics.datasets import load_lambdarank_example

METRICS = ["ndcg@10", "map@10", "mrr@10"]
REFIT_METRIC = "ndcg@10"
PARAM_GRID = {
    "estimator__learning_rate": [0.05, 0.1],
    "estimator__num_leaves": [7, 31],
    "estimator__min_child_samples": [10, 50],
}
MAX_TREES = 300
PATIENCE = 50  # rounds without a better validation NDCG@10 before a fit stops
# label_gain[g] is the gain of grade g: g, as in the NDCG@10 scored here
# (LightGBM's default is 2**g - 1). LightGBM wants one entry per possible grade.
LINEAR_GAIN = list(range(32))


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


def lgbm_ranker(**params):
    """A single-threaded LGBMRanker (the search runs two fits at a time)."""
    return LGBMRanker(num_threads=1, random_state=0, verbose=-1, **params)


def compare(name, per_query, reference, reference_name):
    """One line: the mean NDCG@10 and its paired difference to ``reference``, with the verdict."""
    difference = per_query - reference
    standard_error = difference.std(ddof=1) / np.sqrt(len(difference))
    if abs(difference.mean()) > 2 * standard_error:
        verdict = "above" if difference.mean() > 0 else "below"
        verdict = f"{verdict} {reference_name}, beyond chance"
    else:
        verdict = f"within chance of {reference_name}"
    print(
        f"  {name:<34}{per_query.mean():.4f}  {difference.mean():+.4f} ± {standard_error:.4f}"
        f"  ({verdict})"
    )
    return abs(difference.mean()) > 2 * standard_error


def main():
    started = time.perf_counter()
    # One switch for the whole script: qid then flows from fit() to the splitter,
    # the ranker and the scorers, which all request it by default.
    sklearn.set_config(enable_metadata_routing=True)

    data = load_lambdarank_example()
    X, y, qid = data.X_train, data.y_train, data.qid_train
    X_test, y_test, qid_test = data.X_test, data.y_test, data.qid_test

    # A fifth of the training queries, whole, only for early stopping.
    searched, stopping = next(
        QueryShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(X, qid=qid)
    )
    early_stopping = dict(eval_set=[(X[stopping], y[stopping])], eval_qid=[qid[stopping]])

    ranker = QueryRanker(
        lgbm_ranker(n_estimators=MAX_TREES, label_gain=LINEAR_GAIN),
        fit_params={
            "eval_at": [10],  # LightGBM watches its NDCG@10 (with label_gain's gains)
            "callbacks": [lightgbm.early_stopping(PATIENCE, verbose=False)],
        },
    )
    search = GridSearchCV(
        ranker,
        PARAM_GRID,
        scoring=make_rank_scorers(METRICS),
        refit=REFIT_METRIC,
        cv=QueryKFold(n_splits=5),
        n_jobs=2,  # two fits at a time, one LightGBM thread each
        verbose=3,  # one progress line per fit, with its scores
    )
    search.fit(X[searched], y[searched], qid=qid[searched], **early_stopping)

    n_trees = search.best_estimator_.best_iteration_ + 1
    print()
    print(
        f"Cross-validated results ({len(np.unique(qid[searched]))} queries in 5 query-grouped "
        f"folds, ranked by {REFIT_METRIC}; every fit stopped early on "
        f"{len(np.unique(qid[stopping]))} other queries):"
    )
    print_ranked_results(search)
    print()
    print(
        f"Best parameters: {format_params(search.best_params_)} "
        f"(mean {REFIT_METRIC} {search.best_score_:.4f}); refit on the searched queries, "
        f"early stopping kept {n_trees} trees of at most {MAX_TREES}"
    )

    # The tuned settings with the trees early stopping chose, on all training queries.
    best = {key.removeprefix("estimator__"): value for key, value in search.best_params_.items()}
    tuned = QueryRanker(lgbm_ranker(n_estimators=n_trees, label_gain=LINEAR_GAIN, **best))
    tuned.fit(X, y, qid=qid)
    # LightGBM's defaults: 100 trees, 31 leaves, learning rate 0.1, gains 2**g - 1.
    untuned = QueryRanker(lgbm_ranker()).fit(X, y, qid=qid)
    # Pointwise baseline: regress the grade, rank by the prediction.
    baseline = HistGradientBoostingRegressor(random_state=0).fit(X.toarray(), y)

    def per_query_ndcg(scores):
        return ndcg_score(y_test, scores, qid=qid_test, k=10, average=None)

    baseline_ndcg = per_query_ndcg(baseline.predict(X_test.toarray()))
    untuned_ndcg = per_query_ndcg(untuned.predict(X_test))
    tuned_ndcg = per_query_ndcg(tuned.predict(X_test))
    print()
    print(
        f"Held-out test NDCG@10 ({len(baseline_ndcg)} queries, {X_test.shape[0]} documents), "
        "with the paired difference ± its standard error:"
    )
    baseline_name = "HistGradientBoostingRegressor"
    print(f"  {baseline_name:<34}{baseline_ndcg.mean():.4f}  (pointwise baseline)")
    compare("LGBMRanker, untuned", untuned_ndcg, baseline_ndcg, "the baseline")
    beyond = compare("LGBMRanker, tuned", tuned_ndcg, baseline_ndcg, "the baseline")
    beyond |= compare("LGBMRanker, tuned vs untuned", tuned_ndcg, untuned_ndcg, "the untuned")
    position = "above" if tuned_ndcg.mean() > baseline_ndcg.mean() else "below"
    print()
    print(
        f"Tuning moved LGBMRanker's test NDCG@10 by {tuned_ndcg.mean() - untuned_ndcg.mean():+.4f}"
        f", to {position} the pointwise baseline."
    )
    if not beyond:
        print(
            f"Neither difference is beyond chance: on {len(baseline_ndcg)} test queries a "
            "difference must exceed about twice its standard error to be more than chance, "
            "and the candidates' cross-validated scores differ by less than their spread over "
            "the folds. These data are too few queries to call one of the models better."
        )
    print()
    print(f"Total time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
