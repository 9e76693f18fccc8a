"""Early stopping for LGBMRanker inside a query-grouped grid search.
=================================================================

A booster's number of trees is best chosen by early stopping: keep adding
trees while a validation set's NDCG@10 improves. In a search the validation
set must be whole queries that the search never splits or scores, so this
example holds out a fifth of the training queries for it (``QueryShuffleSplit``),
searches over the rest with ``QueryKFold``, and hands the validation set to
every fit through ``eval_set``/``eval_qid``:

- ``QueryRanker`` sorts the validation rows by query and passes LightGBM
  their ``eval_group`` sizes, as it does for the training rows;
- ``fit_params`` carries LightGBM's own fit options (the early stopping
  callback, the NDCG cutoff it watches) into every fit of the search;
- ``best_iteration_`` tells where each model stopped.

Every fold's model stops on the same validation set, which the search never
scores: the cross-validated scores stay honest, and the test queries are
touched once, at the end.

Run with::

    pip install -e ".[lightgbm]" && python examples/early_stopping_lightgbm.py
"""

import lightgbm
import numpy as np
import sklearn
from sklearn.model_selection import GridSearchCV

from sklearn_rank_metrics import QueryKFold, QueryRanker, QueryShuffleSplit, make_rank_scorers
from sklearn_rank_metrics.datasets import load_lambdarank_example

PARAM_GRID = {"estimator__num_leaves": [7, 31], "estimator__min_child_samples": [20, 50]}


def main():
    sklearn.set_config(enable_metadata_routing=True)
    data = load_lambdarank_example()
    X, y, qid = data.X_train, data.y_train, data.qid_train

    # A fifth of the training queries, whole, for early stopping only.
    search_rows, validation_rows = next(
        QueryShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(X, qid=qid)
    )
    validation = dict(
        eval_set=[(X[validation_rows], y[validation_rows])], eval_qid=[qid[validation_rows]]
    )

    ranker = QueryRanker(
        lightgbm.LGBMRanker(
            n_estimators=1000, learning_rate=0.05, num_threads=1, random_state=0, verbose=-1
        ),
        fit_params={
            "eval_at": [10],  # LightGBM watches NDCG@10 ...
            "callbacks": [lightgbm.early_stopping(30, verbose=False)],  # ... for 30 rounds
        },
    )
    search = GridSearchCV(
        ranker,
        PARAM_GRID,
        cv=QueryKFold(n_splits=5),
        scoring=make_rank_scorers(["ndcg@10", "map@10"]),
        refit="ndcg@10",
    )
    search.fit(X[search_rows], y[search_rows], qid=qid[search_rows], **validation)

    results = search.cv_results_
    print(f"{len(np.unique(qid[search_rows]))} queries searched in 5 folds, "
          f"{len(np.unique(qid[validation_rows]))} held out for early stopping")  # fmt: skip
    print(f"{'mean NDCG@10':>13}  {'mean MAP@10':>12}  parameters")
    for candidate in np.argsort(results["rank_test_ndcg@10"], kind="stable"):
        print(
            f"{results['mean_test_ndcg@10'][candidate]:>13.4f}  "
            f"{results['mean_test_map@10'][candidate]:>12.4f}  {results['params'][candidate]}"
        )

    best = search.best_estimator_
    n_trees = best.best_iteration_ + 1
    stopped = best.evals_result_["valid_0"]["ndcg@10"]
    print(
        f"\nRefit on all searched queries: early stopping kept {n_trees} trees of at most 1000 "
        f"(validation NDCG@10 {stopped[best.best_iteration_]:.4f}; "
        f"training stopped after {len(stopped)} rounds)"
    )
    test_ndcg = search.score(data.X_test, data.y_test, qid=data.qid_test)
    print(f"Held-out test NDCG@10 ({len(np.unique(data.qid_test))} queries): {test_ndcg:.4f}")


if __name__ == "__main__":
    main()
