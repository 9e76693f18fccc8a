"""Small, single-threaded LightGBM and XGBoost rankers for the tests (skip where absent)."""

import pytest


def lgbm_ranker():
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.LGBMRanker(
        n_estimators=5,
        num_leaves=4,
        min_child_samples=2,
        num_threads=1,
        random_state=0,
        verbose=-1,
    )


def xgb_ranker():
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBRanker(n_estimators=5, max_depth=2, n_jobs=1, random_state=0)
