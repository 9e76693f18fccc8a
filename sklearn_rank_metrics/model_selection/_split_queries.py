"""Scored queries split from training queries: :class:`SplitQueryWarning` and its check.

A fitted :class:`~sklearn_rank_metrics.QueryRanker` remembers its training query ids and
sizes; when the package's scorers score it, :func:`warn_if_queries_were_split`
compares them with the scored rows' and warns, once per line of the user's
code, where cross-validation cut queries in two.
"""

import sys
import warnings

import numpy as np

from .._engine.prepare._factorize import factorize_query_ids


class SplitQueryWarning(UserWarning):
    """Scored queries were also training queries, with other rows: the folds split them.

    Issued when a fitted :class:`QueryRanker` is scored (by its ``score`` or
    by the package's scorers, also at the end of a pipeline or as a search's
    best estimator) on rows whose query ids include training query ids with
    another number of rows. Cross-validation that cuts queries in two
    (``KFold``, the default ``cv=5``) causes it, and its scores are inflated:
    the model was trained on part of each scored query. A query cut into two
    halves of equal size goes unnoticed. It points at the line that started
    the search or the scoring (not at scikit-learn's or the package's code)
    and, under Python's default filter, is shown once per such line, not
    once per fold (with ``n_jobs`` > 1, once per worker, printed by the
    worker); under an ``"always"`` filter, at every scoring. ``QueryRanker(...,
    warn_split_queries=False)`` switches the check off, for unrelated data
    that reuse training query ids.

    See Also
    --------
    QueryKFold : Folds that keep every query whole.
    QueryRanker : The wrapper that remembers its training queries.

    References
    ----------
    .. [1] scikit-learn User Guide, "Cross-validation iterators for grouped
       data", https://scikit-learn.org/stable/modules/cross_validation.html

    Examples
    --------
    >>> import warnings
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import KFold, cross_val_score
    >>> from sklearn_rank_metrics import QueryRanker, SplitQueryWarning
    >>> from sklearn_rank_metrics.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=20, random_state=0, interleave=True)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     with warnings.catch_warnings(record=True) as caught:
    ...         warnings.simplefilter("always")
    ...         _ = cross_val_score(QueryRanker(Ridge()), X, y, cv=KFold(3), params={"qid": qid})
    >>> any(issubclass(w.category, SplitQueryWarning) for w in caught)
    True
    """


SPLIT_QUERY_MESSAGE = (
    "Queries scored here were also training queries of this QueryRanker, with a different "
    "number of rows: the cross-validation split them between training and test, which "
    "inflates ranking scores. Pass cv=QueryKFold(...) (or GroupKFold(...) with groups=qid) "
    "so that every query stays whole. If these are other queries that reuse training query "
    "ids, silence this check with QueryRanker(..., warn_split_queries=False)."
)


# Modules whose frames are not the user's line: this package, scikit-learn, the
# libraries that run its folds or build searches on it, and the standard
# library's helpers on their way.
_TOOL_MODULES = frozenset(
    {
        "sklearn_rank_metrics", "sklearn", "joblib", "skopt", "optuna", "optuna_integration",
        "threading", "concurrent", "contextlib", "functools",
    }
)  # fmt: skip
# The lines (file, line number) a warning of this module was shown at.
_WARNED_AT = set()


def _filter_action(message, category, module, lineno):
    """The action of the first of ``warnings.filters`` matching, as Python picks it."""
    for action, text, filter_category, filter_module, filter_lineno in warnings.filters:
        if (
            (text is None or text.match(message))
            and issubclass(category, filter_category)
            and (filter_module is None or filter_module.match(module))
            and filter_lineno in (0, lineno)
        ):
            return action
    return warnings.defaultaction


def _warn_once_at_the_callers_line(message, category):
    """Warn at the user's line - the first frame outside the tools - once per line.

    A search scores its folds inside scikit-learn's and joblib's frames, and
    scikit-learn resets Python's record of shown warnings around every fold
    (it runs each under ``warnings.catch_warnings``), so Python's default
    filter would show the warning once per fold, located in package code.
    Here it is located at the line that started the search and shown once
    per line and process, as the default filter means it; under an
    ``"always"`` or ``"error"`` filter, every time. Without a user frame (a
    worker process or thread) it is shown once per process.
    """
    frame = sys._getframe(1)
    level = 2  # stacklevel 2 is the frame that called this function
    while frame is not None and (
        frame.f_globals.get("__name__", "").partition(".")[0] in _TOOL_MODULES
    ):
        frame = frame.f_back
        level += 1
    if frame is None:
        where, module, level = (None, 0), "", 2
    else:
        where = (frame.f_code.co_filename, frame.f_lineno)
        module = frame.f_globals.get("__name__", "<string>")
    action = _filter_action(message, category, module, where[1])
    if where in _WARNED_AT and action not in ("always", "error"):
        return
    _WARNED_AT.add(where)
    warnings.warn(message, category, stacklevel=level)


def _id_kind(query_ids):
    """"number" or "text": query ids of different kinds never name the same query."""
    return "number" if query_ids.dtype.kind in "iufb" else "text"


def warn_if_queries_were_split(training, qid):
    """Warn when a scored query id was a training query id with another number of rows.

    ``training``: the training ``(query ids, query sizes)``; ``qid``: the
    scored rows' query ids.
    """
    train_ids, train_sizes = training
    codes, query_ids = factorize_query_ids(qid)
    if _id_kind(train_ids) != _id_kind(query_ids):
        return  # numbers and text: never the same query
    _, in_training, in_scored = np.intersect1d(
        train_ids, query_ids, assume_unique=True, return_indices=True
    )
    sizes = np.bincount(codes, minlength=len(query_ids))
    if (train_sizes[in_training] != sizes[in_scored]).any():
        _warn_once_at_the_callers_line(SPLIT_QUERY_MESSAGE, SplitQueryWarning)
