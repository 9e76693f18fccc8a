"""What each kind of model's ``fit`` receives from :class:`QueryRanker`.

QueryRanker sorts the training rows, and the rows of every evaluation set, by
query id (stably), then hands the model the queries, weights and evaluation
sets in the form its ``fit`` takes them, by ``query_arg``:

- ``"group"`` (LightGBM): ``group`` query sizes; ``sample_weight`` per row;
  ``eval_X`` and ``eval_y`` (``eval_set`` before LightGBM 4.7) with
  ``eval_group`` sizes.
- ``"qid"`` (XGBoost): ``qid`` query numbers; ``sample_weight`` one per
  query; ``eval_set`` with ``eval_qid``.
- ``"group_id"`` (CatBoost): ``group_id`` query numbers; ``group_weight``
  per row, equal within a query; ``eval_set`` as ``Pool`` objects with their
  ``group_id``.
- None (pointwise models): ``sample_weight`` per row; ``eval_set``.

:func:`eval_sets` checks ``fit``'s ``eval_set`` and ``eval_qid`` first.

XGBoost's rankers take one weight per query, and CatBoost's pairwise losses
(its rankers' default) ignore row weights; their group weights must be equal
within a query. Row weights that vary within a query are therefore an error
for those two models, never silently averaged. LightGBM's lambdarank
multiplies each document's gradient and hessian by its row weight, so its
weights may vary.
"""

import copy
import inspect
from dataclasses import dataclass

import numpy as np
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _check_sample_weight

from .._engine.prepare._factorize import factorize_query_ids
from .._engine.prepare._validation import as_array_like

QUERY_ARGS = ("auto", "group", "qid", "group_id", None)

# fit arguments QueryRanker computes itself: in fit_params they would not
# follow the sorting of the rows. Each maps to what to pass instead.
_COMPUTED_BY_THE_WRAPPER = {
    "group": "Pass qid to QueryRanker.fit (or set qid_column).",
    "qid": "Pass qid to QueryRanker.fit (or set qid_column).",
    "group_id": "Pass qid to QueryRanker.fit (or set qid_column).",
    "sample_weight": "Pass sample_weight to QueryRanker.fit.",
    "group_weight": "Pass sample_weight to QueryRanker.fit, equal within each query.",
    "eval_set": "Pass eval_set to QueryRanker.fit.",
    "eval_X": "Pass eval_set to QueryRanker.fit.",
    "eval_y": "Pass eval_set to QueryRanker.fit.",
    "eval_group": "Pass eval_set and eval_qid to QueryRanker.fit.",
    "eval_qid": "Pass eval_set and eval_qid to QueryRanker.fit.",
    "eval_sample_weight": "QueryRanker does not take evaluation weights.",
    "sample_weight_eval_set": "QueryRanker does not take evaluation weights.",
}
# Other per-row (or per-pair) arguments of the boosters' fit: they would not
# follow the sorted rows, and QueryRanker does not take them.
_PER_ROW_ARGUMENTS = (
    "init_score", "eval_init_score",  # LightGBM
    "base_margin", "base_margin_eval_set",  # XGBoost
    "baseline", "pairs", "pairs_weight", "subgroup_id", "graph",  # CatBoost
)  # fmt: skip


@dataclass
class QueryRows:
    """Rows sorted by query: features, labels, query numbers and row weights.

    ``codes`` numbers the queries 0 .. n_queries - 1 in sorted query id order
    and is non-decreasing; ``query_ids[code]`` is the id of query ``code``.
    Without query ids (a pointwise model given none) ``codes`` and
    ``query_ids`` are None and the rows keep their order.
    """

    X: object
    y: object
    codes: np.ndarray = None
    query_ids: np.ndarray = None
    sample_weight: np.ndarray = None

    @property
    def query_sizes(self):
        return np.bincount(self.codes, minlength=len(self.query_ids))


def sort_by_query(X, y, qid, sample_weight=None):
    """:class:`QueryRows` of ``X, y`` with the rows sorted stably by ``qid``."""
    y = as_array_like(y, "y")  # no masked or sparse labels (the model would ignore a mask)
    if sample_weight is not None:
        sample_weight = _check_sample_weight(as_array_like(sample_weight, "sample_weight"), X)
    if qid is None:
        return QueryRows(X, y, sample_weight=sample_weight)
    codes, query_ids = factorize_query_ids(qid)
    if (np.diff(codes) < 0).any():  # not yet grouped in query id order
        order = np.argsort(codes, kind="stable")
        X, y, codes = _safe_indexing(X, order), _safe_indexing(y, order), codes[order]
        if sample_weight is not None:
            sample_weight = sample_weight[order]
    return QueryRows(X, y, codes, query_ids, sample_weight)


def draw_queries(rows, max_queries, random_state):
    """:class:`QueryRows` of at most ``max_queries`` whole queries drawn at random.

    The queries are drawn by number (sorted query id order), so the draw does
    not depend on the row order; the rows kept stay sorted by query, each
    query's rows in their order.
    """
    n_queries = len(rows.query_ids)
    if max_queries >= n_queries:
        return rows
    drawn = np.zeros(n_queries, dtype=bool)
    drawn[random_state.choice(n_queries, max_queries, replace=False)] = True
    kept = np.flatnonzero(drawn[rows.codes])
    new_code = np.cumsum(drawn) - 1  # the drawn queries renumbered 0 .. max_queries - 1
    return QueryRows(
        _safe_indexing(rows.X, kept),
        _safe_indexing(rows.y, kept),
        new_code[rows.codes[kept]],
        rows.query_ids[drawn],
        None if rows.sample_weight is None else rows.sample_weight[kept],
    )


def check_fit_keywords(keywords):
    """Refuse arguments of a booster's own ``fit`` given to ``QueryRanker.fit``, with the fix."""
    if not keywords:
        return
    fixes = []
    for key in keywords:
        fix = _COMPUTED_BY_THE_WRAPPER.get(key)
        if fix is None:
            fix = (
                f"An argument of the model's own fit goes in QueryRanker(..., "
                f"fit_params={{{key!r}: ...}}), which every fit of a search receives."
            )
        fixes.append(f"{key!r}: {fix}")
    raise TypeError(
        f"QueryRanker.fit got unexpected argument(s) {', '.join(map(repr, keywords))}; it "
        "takes X, y, qid, sample_weight, eval_set and eval_qid. " + " ".join(fixes)
    )


def detect_query_arg(model):
    """How ``model.fit`` takes queries: "qid", "group_id", "group" or None."""
    try:
        parameters = inspect.signature(model.fit).parameters
    except (AttributeError, TypeError, ValueError):
        return None
    # qid first: XGBRanker.fit takes both qid and group, and sorted qid is its
    # documented input. CatBoost's rankers take group_id.
    for query_arg in ("qid", "group_id", "group"):
        if query_arg in parameters:
            return query_arg
    return None


def final_step(estimator):
    """The model at the end of (possibly nested) pipelines."""
    while isinstance(estimator, Pipeline):
        estimator = estimator.steps[-1][1]
    return estimator


def fit_preprocessing(estimator, rows, eval_rows):
    """Fit the steps of (nested) pipelines before the model, in place.

    Transforms the training rows and every evaluation set through them, so
    that the model's evaluation sets look like its training data. Returns
    the model (the last step).
    """
    while isinstance(estimator, Pipeline):
        if len(estimator.steps) > 1:
            head = estimator[:-1]  # shares the step objects with estimator
            rows.X = head.fit_transform(rows.X, rows.y)
            for evaluation in eval_rows:
                evaluation.X = head.transform(evaluation.X)
            # A Pipeline with memory= fits clones: keep the fitted steps.
            estimator.steps = [*head.steps, estimator.steps[-1]]
        estimator = estimator.steps[-1][1]
    if estimator is None or isinstance(estimator, str):
        raise ValueError(
            f"The pipeline's last step is {estimator!r}; QueryRanker needs a model there, "
            "such as LGBMRanker() or Ridge()."
        )
    return estimator


def _query_weights(rows, model):
    """One weight per query from row weights equal within each query."""
    weights = rows.sample_weight
    first_rows = np.flatnonzero(np.r_[True, rows.codes[1:] != rows.codes[:-1]])
    per_query = weights[first_rows]
    differs = np.flatnonzero(weights != per_query[rows.codes])
    if differs.size:
        row = differs[0]
        query = rows.query_ids[rows.codes[row]]
        query = query.item() if isinstance(query, np.generic) else query  # 7, not np.int64(7)
        raise ValueError(
            f"sample_weight varies within query {query!r} (weights {per_query[rows.codes[row]]:g} "
            f"and {weights[row]:g}): {type(model).__name__} takes one weight per query. Give "
            "every row of a query the same weight (the query's weight), or use a model that "
            "weighs rows, such as LightGBM's LGBMRanker."
        )
    return per_query


def check_fit_params(fit_params, n_samples):
    """A deep copy of ``fit_params``, refusing arguments that would not follow the sorted rows.

    Those are the arguments the wrapper computes (queries, weights,
    evaluation sets) and any other per-row argument: a known one by name, an
    array with one value per training row by its length.
    """
    if fit_params is None:
        return {}
    if not isinstance(fit_params, dict):
        raise TypeError(f"fit_params must be a dict or None, got {type(fit_params).__name__}.")
    for key, value in fit_params.items():
        if key in _COMPUTED_BY_THE_WRAPPER:
            fix = _COMPUTED_BY_THE_WRAPPER[key]
        elif key in _PER_ROW_ARGUMENTS or (
            getattr(value, "ndim", 0) >= 1 and len(value) == n_samples
        ):
            fix = "QueryRanker does not take per-row fit arguments other than sample_weight."
        else:
            continue
        raise ValueError(
            f"fit_params must not set {key!r}: QueryRanker sorts the rows by query, and "
            f"an argument given here would not follow them. {fix}"
        )
    # Each fit its own copy: callbacks and other objects keep state.
    return copy.deepcopy(fit_params)


def model_fit_arguments(model, query_arg, rows, eval_rows, fit_params):
    """Keyword arguments of ``model.fit`` for the sorted training and evaluation rows."""
    arguments = {}
    if query_arg == "group":
        arguments["group"] = rows.query_sizes
    elif query_arg in ("qid", "group_id"):
        arguments[query_arg] = rows.codes
    if rows.sample_weight is not None:
        if query_arg == "qid":
            arguments["sample_weight"] = _query_weights(rows, model)
        elif query_arg == "group_id":
            arguments["group_weight"] = _query_weights(rows, model)[rows.codes]
        else:
            arguments["sample_weight"] = rows.sample_weight
    if eval_rows:
        arguments.update(_evaluation_arguments(model, query_arg, eval_rows, fit_params))
    return arguments


def _evaluation_arguments(model, query_arg, eval_rows, fit_params):
    try:
        parameters = inspect.signature(model.fit).parameters
    except (TypeError, ValueError):
        parameters = {"eval_set": None}  # let the model's fit decide
    if query_arg == "group_id":
        from catboost import Pool  # only CatBoost models take group_id

        # The Pools must know the categorical, text and embedding columns that
        # fit learns from fit_params or from the model's parameters.
        feature_kinds = {
            name: fit_params.get(name, model.get_params().get(name))
            for name in ("cat_features", "text_features", "embedding_features")
        }
        pools = [
            Pool(rows.X, rows.y, group_id=rows.codes, **feature_kinds) for rows in eval_rows
        ]
        return {"eval_set": pools}
    if "eval_X" in parameters:  # LightGBM >= 4.7, where eval_set is deprecated
        arguments = {
            "eval_X": tuple(rows.X for rows in eval_rows),
            "eval_y": tuple(rows.y for rows in eval_rows),
        }
    elif "eval_set" in parameters:
        arguments = {"eval_set": [(rows.X, rows.y) for rows in eval_rows]}
    else:
        raise TypeError(
            f"eval_set was given, but {type(model).__name__}.fit takes no evaluation sets; "
            "leave eval_set out for this model."
        )
    if query_arg == "group":
        arguments["eval_group"] = [rows.query_sizes for rows in eval_rows]
    elif query_arg == "qid":
        arguments["eval_qid"] = [rows.codes for rows in eval_rows]
    return arguments


def eval_sets(eval_set, eval_qid):
    """``[(X, y, qid or None), ...]`` from fit's eval_set and eval_qid, checked."""
    if eval_set is None:
        if eval_qid is not None:
            raise ValueError("eval_qid was given without eval_set; pass both or neither.")
        return []
    if not isinstance(eval_set, (list, tuple)) or not all(
        isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in eval_set
    ):
        raise TypeError("eval_set must be a list of (X, y) pairs, e.g. [(X_val, y_val)].")
    if eval_qid is None:
        eval_qid = [None] * len(eval_set)
    elif not isinstance(eval_qid, (list, tuple)) or len(eval_qid) != len(eval_set):
        raise ValueError(
            f"eval_qid must be a list with the query ids of each of the {len(eval_set)} "
            "evaluation set(s), e.g. eval_set=[(X_val, y_val)], eval_qid=[qid_val]."
        )
    return [(X, y, qid) for (X, y), qid in zip(eval_set, eval_qid)]
