"""What a model ranks by: one rule for the scorers and :class:`QueryRanker`.

A ranking metric orders documents by a score, so the score must tell
documents apart. A classifier's ``predict`` gives hard class labels, which
tie most documents of a query; the rule therefore never ranks a classifier
by ``predict``:

- rankers and regressors (anything that is not a classifier): ``predict``;
- classifiers with two classes: ``decision_function`` if they have it, else
  the probability of the positive class (the higher one, ``classes_[1]``)
  from ``predict_proba`` - the order of scikit-learn's ranking scorers such
  as ``"roc_auc"`` and ``"average_precision"``;
- classifiers on graded labels (more than two classes): the expected grade
  ``sum_c c * p(c)`` from ``predict_proba``, which ranks a likely 4 above a
  likely 1 where the most probable class would tie them (the classes must be
  numbers).
"""

import numpy as np
from sklearn.base import is_classifier

from .._engine._params import check_parameters

_NO_RESPONSE_FIX = (
    "Wrap the classifier in sklearn.calibration.CalibratedClassifierCV to give it "
    "predict_proba, or fit a regressor on the relevance labels instead."
)


def response_method_for(estimator, response_method="auto"):
    """The name of the method whose output ranks the documents for ``estimator``.

    Parameters
    ----------
    estimator : fitted estimator
        A ranker, regressor or classifier, or a Pipeline ending in one.
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, \
default="auto"
        ``"auto"`` applies the rule of this module; a method name asks for
        that method, and is checked against the estimator.

    Returns
    -------
    method : {"predict", "decision_function", "predict_proba"}

    Raises
    ------
    ValueError
        For ``"predict"`` on a classifier (hard labels),
        ``"decision_function"`` on a classifier with more than two classes,
        or a classifier's method on an estimator that is not a classifier.
    AttributeError
        For a classifier without the method the rule or
        ``response_method`` needs.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression, Ridge
    >>> from sklearn_rank_metrics.model_selection._response import response_method_for
    >>> X, y = np.arange(6.0).reshape(-1, 1), np.array([0, 0, 1, 1, 2, 2])
    >>> response_method_for(Ridge().fit(X, y))
    'predict'
    >>> response_method_for(LogisticRegression().fit(X, y > 0))
    'decision_function'
    >>> response_method_for(LogisticRegression().fit(X, y))
    'predict_proba'
    """
    check_parameters("response_method_for", response_method=response_method)
    name = type(estimator).__name__
    if not is_classifier(estimator):
        if response_method in ("auto", "predict"):
            return "predict"
        raise ValueError(
            f"response_method={response_method!r} needs a classifier, but {name} is not "
            "one; rankers and regressors are scored by predict: use "
            "response_method='auto' or 'predict'."
        )
    if response_method == "predict":
        raise ValueError(
            f"response_method='predict' would rank by the classifier {name}'s hard class "
            "labels, which tie most documents of a query; use 'auto', "
            "'decision_function' or 'predict_proba'."
        )
    n_classes = len(estimator.classes_)
    if response_method == "decision_function" and n_classes > 2:
        raise ValueError(
            f"response_method='decision_function' needs a classifier with two classes, "
            f"but {name} has {n_classes} (graded labels) and one decision value per "
            "class; use 'auto' or 'predict_proba' to rank by the expected grade."
        )
    if response_method != "auto":
        wanted = (response_method,)
    elif n_classes > 2:
        wanted = ("predict_proba",)  # the expected grade needs the probabilities
    else:
        wanted = ("decision_function", "predict_proba")
    for method in wanted:
        if hasattr(estimator, method):
            return method
    graded = f" on {n_classes} classes (graded labels)" if n_classes > 2 else ""
    raise AttributeError(
        f"The classifier {name}{graded} has no {' or '.join(wanted)}, so it cannot "
        "rank documents: its predict gives hard class labels, which tie most "
        f"documents of a query. {_NO_RESPONSE_FIX}"
    )


def scores_from_probabilities(proba, classes):
    """One ranking score per row from a classifier's ``predict_proba`` output.

    With two classes, the probability of the higher one (the positive
    class); with graded labels, the expected grade ``sum_c c * p(c)``.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities, columns in the order of ``classes``; a 1-D
        array is already the positive-class probability (as scikit-learn's
        scorers hand it over for two classes).
    classes : array-like of shape (n_classes,)
        The classifier's ``classes_``: the relevance grades, numbers.

    Returns
    -------
    scores : ndarray of shape (n_samples,)

    Raises
    ------
    TypeError
        For more than two classes that are not numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics.model_selection._response import scores_from_probabilities
    >>> scores_from_probabilities(np.array([[0.2, 0.8], [0.9, 0.1]]), [0, 1])
    array([0.8, 0.1])
    >>> scores_from_probabilities(np.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]]), [0, 1, 4])
    array([2., 1.])
    """
    proba = np.asarray(proba)
    if proba.ndim == 1:
        return proba
    if proba.shape[1] == 2:
        return proba[:, 1]
    try:
        grades = np.asarray(classes, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            "a classifier on graded labels is ranked by its expected grade, which needs "
            f"numeric class labels (relevance grades), got classes {list(classes)!r}. "
            "Encode the grades as numbers, or fit a regressor on them."
        ) from None
    return proba @ grades


def call_method(estimator, method, X, pos_label=None):
    """Call ``estimator.<method>(X)``; the signature of scikit-learn's scorers' method callers."""
    return getattr(estimator, method)(X)


def ranking_scores(estimator, X, response_method="auto", method_caller=call_method):
    """One ranking score per row of X, higher ranks first, by the rule of this module.

    Parameters
    ----------
    estimator : fitted estimator
        A ranker, regressor or classifier, or a Pipeline ending in one.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows to score.
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, \
default="auto"
        See :func:`response_method_for`.
    method_caller : callable, default=call_method
        ``method_caller(estimator, method_name, X, pos_label=None)`` returns
        the method's output; the default calls the method. scikit-learn's
        multi-metric scoring passes one that caches the output, so that
        several scorers share one prediction.

    Returns
    -------
    scores : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_rank_metrics.model_selection._response import ranking_scores
    >>> X, y = np.arange(6.0).reshape(-1, 1), np.array([0, 0, 1, 1, 2, 2])
    >>> binary = LogisticRegression().fit(X, y > 0)
    >>> bool(np.all(ranking_scores(binary, X) == binary.decision_function(X)))
    True
    >>> graded = LogisticRegression().fit(X, y)
    >>> bool(np.all(ranking_scores(graded, X) == graded.predict_proba(X) @ graded.classes_))
    True
    """
    method = response_method_for(estimator, response_method)
    response = method_caller(estimator, method, X, pos_label=None)
    if method == "predict_proba":
        return scores_from_probabilities(response, estimator.classes_)
    return response
