"""Estimators for the tests.

Small, single-threaded LightGBM, XGBoost and CatBoost models (skipped where
absent; CatBoost writes no files), and scikit-learn models that record their
prediction calls.
"""

import pytest
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC


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


def catboost_model(kind="CatBoostRanker", **params):
    catboost = pytest.importorskip("catboost")
    defaults = dict(
        iterations=10, depth=3, thread_count=1, random_seed=0, verbose=0,
        allow_writing_files=False,  # no catboost_info/ folder in the working directory
    )  # fmt: skip
    return getattr(catboost, kind)(**{**defaults, **params})


# (method name, number of rows) of every prediction call of the recording
# models below, clones included; tests clear it first and run with n_jobs=1.
PREDICTION_CALLS = []
_ACTIVE_CALLS = []


def _recording(model_class, methods):
    """A subclass of ``model_class`` whose ``methods`` record their calls.

    Only the outermost call is recorded: predict_proba and predict call
    decision_function inside, which is no extra prediction of the model.
    """

    def recorded(method):
        def call(self, X):
            if not _ACTIVE_CALLS:
                PREDICTION_CALLS.append((method, X.shape[0]))
            _ACTIVE_CALLS.append(method)
            try:
                return getattr(model_class, method)(self, X)
            finally:
                _ACTIVE_CALLS.pop()

        call.__name__ = method
        return call

    name = f"Recording{model_class.__name__}"
    namespace = {method: recorded(method) for method in methods}
    return type(name, (model_class,), {**namespace, "__module__": __name__, "__qualname__": name})


RecordingRidge = _recording(Ridge, ["predict"])
RecordingLogisticRegression = _recording(
    LogisticRegression, ["predict", "decision_function", "predict_proba"]
)
RecordingLinearSVC = _recording(LinearSVC, ["predict", "decision_function"])
RecordingGaussianNB = _recording(GaussianNB, ["predict", "predict_proba"])
