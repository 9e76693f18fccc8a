"""The declared parameter table: what each option accepts, and how to fix a wrong value.

Every public function calls :func:`check_parameters` at its top with the
options it takes; the table below is the one place that says what a valid
``k``, ``ties`` or ``relevance_level`` is. A wrong value raises a TypeError
(wrong type) or ValueError (wrong value) whose message names the function,
the argument, what it accepts and how to fix it. (scikit-learn's private
``validate_params`` is not used: it can be switched off from outside, and
its messages do not say the fix.)
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _anything(value):
    return True


# Cutoffs are int64 inside the engine; a larger one is no use (it covers any list).
MAX_CUTOFF = 2**63 - 1


def is_cutoff(k):
    """Whether the int ``k`` is a valid cutoff: 1 to :data:`MAX_CUTOFF`."""
    return 1 <= k <= MAX_CUTOFF


@dataclass(frozen=True)
class Parameter:
    """A declared parameter.

    Attributes
    ----------
    accepts : str
        What it accepts, completing "``name`` must be ...".
    fix : str
        How to correct a wrong value.
    has_type : callable
        ``has_type(value)``: the value has an acceptable type (else TypeError).
    is_valid : callable
        ``is_valid(value)``, given an acceptable type (else ValueError).
    """

    accepts: str
    fix: str
    has_type: object = _anything
    is_valid: object = _anything

    def check(self, owner, name, value):
        """Raise a TypeError or ValueError naming ``owner`` and ``name`` unless ``value`` is valid."""
        if not self.has_type(value):
            raise TypeError(self._message(owner, name, value))
        if not self.is_valid(value):
            raise ValueError(self._message(owner, name, value))

    def _message(self, owner, name, value):
        shown = f"{value!r}" if not isinstance(value, type) else value.__name__
        return f"{owner}: {name}={shown} is not valid; {name} must be {self.accepts}. {self.fix}"


def options(*allowed, fix):
    """A parameter taking one of a few values (compared by identity for None)."""

    def is_valid(value):
        return any(
            value is option or (isinstance(value, str) and value == option) for option in allowed
        )

    return Parameter(f"one of {', '.join(map(repr, allowed))}", fix, is_valid=is_valid)


PARAMETERS = {
    "k": Parameter(
        "a positive int (at most 2**63 - 1) or None",
        "k=10 evaluates the top 10 documents of each query; k=None the whole list.",
        has_type=lambda k: k is None or _is_int(k),
        is_valid=lambda k: k is None or is_cutoff(k),
    ),
    "gain": options(
        "linear", "exponential",
        fix="'linear' uses the label as the gain (scikit-learn, trec_eval); 'exponential' "
        "uses 2**label - 1 (LightGBM, XGBoost).",
    ),
    "level": options(
        "query", "item",
        fix="'query' counts queries with a hit; 'item' counts relevant recommended items.",
    ),
    "method": options(
        "rc", "kendall", fix="'rc' is the share of agreeing pairs; 'kendall' Kendall's tau-b."
    ),
    "relevance_level": Parameter(
        "a finite number > 0",
        "A document is relevant iff its label >= relevance_level; the default is 1.",
        has_type=_is_real,
        is_valid=lambda level: math.isfinite(level) and level > 0,
    ),
    "judged_relevance_level": Parameter(
        "a finite number >= 0",
        "A judged document is relevant iff its grade >= relevance_level (trec_eval -l); "
        "the default is 1, 0 makes every judged document relevant.",
        has_type=_is_real,
        is_valid=lambda level: math.isfinite(level) and level >= 0,
    ),
    "missing_queries": options(
        "ignore", "zero",
        fix="Judged queries without a retrieved document are left out ('ignore', as "
        "trec_eval) or evaluated as empty rankings ('zero', as trec_eval -c).",
    ),
    "max_docs": Parameter(
        "None or a positive int",
        "max_docs=1000 evaluates the first 1000 documents of each query (trec_eval -M).",
        has_type=lambda n: n is None or _is_int(n),
        is_valid=lambda n: n is None or n >= 1,
    ),
    "judged_only": Parameter(
        "True or False",
        "judged_only=True drops unjudged documents before ranking (trec_eval -J).",
        has_type=lambda value: isinstance(value, bool),
    ),
    "n_relevant": Parameter(
        "None or a mapping {query id: number of relevant documents}",
        "Give the total number of relevant documents of each query, e.g. {'q1': 5}.",
        has_type=lambda value: value is None or hasattr(value, "items"),
    ),
    "ties": options(
        "average", "optimistic", "pessimistic", "first",
        fix="'average' is the exact expected value over the orderings of tied documents; "
        "'optimistic' and 'pessimistic' rank higher labels first and last inside a tie; "
        "'first' keeps tied documents in input order (LightGBM, XGBoost).",
    ),
    "run_ties": options(
        "average", "trec_eval", "first", "optimistic", "pessimistic",
        fix="'average' is the exact expected value over the orderings of tied documents; "
        "'trec_eval' breaks ties by document id, descending, as trec_eval; 'first' keeps "
        "the run's line order; 'optimistic' and 'pessimistic' rank higher grades first "
        "and last inside a tie.",
    ),
    "ignore_ties": Parameter(
        "True or False",
        "ignore_ties=True ranks tied documents as scikit-learn's ignore_ties=True does (the "
        "order of numpy.argsort, reversed); ties= chooses any other treatment of ties.",
        has_type=lambda value: isinstance(value, (bool, np.bool_)),
    ),
    "log_base": Parameter(
        "a finite number > 1",
        "The discount of rank i is 1 / log_base(i + 1); the default 2 is scikit-learn's and "
        "trec_eval's (a base <= 1 would give zero or negative discounts).",
        has_type=_is_real,
        is_valid=lambda base: math.isfinite(base) and base > 1,
    ),
    "no_relevant": options(
        "zero", "skip", "one",
        fix="A query without relevant documents scores 0 ('zero', as trec_eval and "
        "scikit-learn), is left out of the mean ('skip'), or scores 1 ('one').",
    ),
    "average": options(
        "mean", None,
        fix="'mean' returns the mean over queries; None the value of every query.",
    ),
    "response_method": options(
        "auto", "predict", "decision_function", "predict_proba",
        fix="'auto' ranks rankers and regressors by predict and classifiers by "
        "decision_function or predict_proba; a method name asks for that method.",
    ),
    "n_threads": Parameter(
        "a positive int, -1 or None",
        "-1 uses every CPU the process may use, 1 computes in the calling thread only, "
        "None leaves the setting unchanged.",
        has_type=lambda n: n is None or _is_int(n),
        is_valid=lambda n: n is None or n >= 1 or n == -1,
    ),
}  # fmt: skip


def check_parameters(owner, **values):
    """Check each keyword argument against its declared :data:`PARAMETERS` entry.

    Parameters
    ----------
    owner : str
        The public function or method checking its arguments, named in errors.
    **values
        The arguments to check, by parameter name.
    """
    for name, value in values.items():
        PARAMETERS[name].check(owner, name, value)
