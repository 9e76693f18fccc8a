"""The declared parameter table: what each argument accepts, how to fix it, and its docs.

Every public function calls :func:`check_parameters` at its top with the
options it takes; the table below is the one place that says what a valid
``k``, ``ties`` or ``relevance_level`` is. A wrong value raises a TypeError
(wrong type) or ValueError (wrong value) whose message names the function,
the argument, what it accepts and how to fix it. (scikit-learn's private
``validate_params`` is not used: it can be switched off from outside, and
its messages do not say the fix.)

The same entries document the arguments: :func:`document_parameters` writes
a public function's Parameters section from the table, in the order of its
signature, keeping the entries the function's docstring writes itself (its
own wording, where an argument means something special there).
"""

import math
import numbers
from collections.abc import Sequence
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


# AP@k's denominators: R (trec_eval's map_cut), or min(R, k) (LightGBM, XGBoost, Spark, ...).
AP_DENOMINATORS = ("R", "min(R,k)")


def ap_denominator_of(value):
    """``value`` (a str) without its whitespace, if it is one of :data:`AP_DENOMINATORS`, else None."""
    written = "".join(value.split())
    return written if written in AP_DENOMINATORS else None


def label_gain_levels(label_gain):
    """``label_gain`` as sorted ``((label, gain), ...)`` floats; None where it is not valid.

    A sequence gives label ``i`` the gain ``label_gain[i]``; a mapping gives
    each of its labels its gain. Labels must be distinct whole numbers >= 0,
    gains finite numbers >= 0, and at least one given.
    """
    pairs = list(label_gain.items()) if hasattr(label_gain, "items") else list(enumerate(label_gain))
    if not pairs or not all(_is_real(label) and _is_real(gain) for label, gain in pairs):
        return None
    levels = tuple(sorted((float(label), float(gain)) for label, gain in pairs))
    labels = [label for label, _ in levels]
    valid = (
        all(math.isfinite(gain) and gain >= 0 for _, gain in levels)
        and all(math.isfinite(label) and label >= 0 and label.is_integer() for label in labels)
        and len(set(labels)) == len(labels)
    )
    return levels if valid else None


def _is_label_gain(value):
    return value is None or hasattr(value, "items") or (
        isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))
    )


@dataclass(frozen=True)
class Parameter:
    """A declared parameter.

    Attributes
    ----------
    accepts : str or None
        What it accepts, completing "``name`` must be ...". None for the
        data arguments (``y_true``, ``qid``, ...), which the array checks
        validate with the data.
    fix : str or None
        How to correct a wrong value.
    has_type : callable
        ``has_type(value)``: the value has an acceptable type (else TypeError).
    is_valid : callable
        ``is_valid(value)``, given an acceptable type (else ValueError).
    type : str or None
        Its type in a numpydoc Parameters entry (the default is added from
        the function's signature).
    doc : str or None
        Its description in the Parameters entry of every public function that
        takes it, unless the function's docstring writes its own.
    name : str or None
        The argument's name in messages, where the table's key differs (two
        entries for one name: ``run_ties`` is ``evaluate_run``'s ``ties``).
    """

    accepts: str = None
    fix: str = None
    has_type: object = _anything
    is_valid: object = _anything
    type: str = None
    doc: str = None
    name: str = None

    def check(self, owner, name, value):
        """Raise a TypeError or ValueError naming ``owner`` and ``name`` unless ``value`` is valid."""
        if not self.has_type(value):
            raise TypeError(self._message(owner, name, value))
        if not self.is_valid(value):
            raise ValueError(self._message(owner, name, value))

    def _message(self, owner, name, value):
        if isinstance(value, np.ndarray):  # its numbers, not NumPy's repr
            value = value.tolist()
        shown = f"{value!r}" if not isinstance(value, type) else value.__name__
        return f"{owner}: {name}={shown} is not valid; {name} must be {self.accepts}. {self.fix}"


def _shown(value):
    """A value as a docstring shows it: strings in double quotes."""
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:_}" if _is_int(value) and abs(value) >= 10_000 else repr(value)


def options(*allowed, fix, doc=None, name=None, accepts=None):
    """A parameter taking one of a few values (compared by identity for None)."""

    def is_valid(value):
        return any(
            value is option or (isinstance(value, str) and value == option) for option in allowed
        )

    choices = "{" + ", ".join(map(_shown, allowed)) + "}"
    accepts = accepts or f"one of {', '.join(map(repr, allowed))}"
    return Parameter(accepts, fix, is_valid=is_valid, type=choices, doc=doc, name=name)


def data(type, doc):
    """A data argument: documented here, checked with the arrays."""
    return Parameter(type=type, doc=doc)


def _level(value):
    return _is_real(value) and 0 < value < 1


def level(fix, doc):
    """A parameter taking a number strictly between 0 and 1 (a confidence or significance level)."""
    accepts = "a number strictly between 0 and 1"
    return Parameter(accepts, fix, has_type=_is_real, is_valid=_level, type="float", doc=doc)


def count(minimum, fix, doc):
    """A parameter taking a whole number >= ``minimum`` (a size or a count)."""
    accepts = "a positive int" if minimum == 1 else f"an int >= {minimum}"
    return Parameter(
        accepts, fix, has_type=_is_int, is_valid=lambda n: n >= minimum, type="int", doc=doc
    )


PARAMETERS = {
    "y_true": data(
        "array-like of shape (n_documents,) or (n_queries, n_documents_per_query), or "
        "scipy.sparse matrix",
        "True relevance labels, >= 0 (binary or graded; fractional grades are fine). 1-D: "
        "one label per document, queries given by ``qid``. 2-D: one query per row, as "
        "scikit-learn's ranking metrics take them; 2-D may be a scipy.sparse matrix or "
        "array (a recommender's held-out interactions: implicit zeros are not relevant).",
    ),
    "y_score": data(
        "array-like of the same shape as y_true",
        "Predicted scores; a higher score ranks a document higher. Integer scores are "
        "ranked by their exact value.",
    ),
    "qid": data(
        "array-like of shape (n_documents,)",
        "Query id of every document (ints or strings, rows in any order). Only with 1-D "
        "input; None means all documents form one query.",
    ),
    "sample_weight": data(
        "array-like",
        "Weights of the queries in the mean: one per row for 2-D input; for 1-D input one "
        "per document, equal within each query. Ignored with ``average=None``.",
    ),
    "exclude": data(
        "scipy.sparse matrix or boolean array of shape (n_queries, n_items)",
        "Pairs left out of each query's ranking (a recommender's training interactions): "
        "a stored non-zero or True cell removes that item from that row's ranking; it is "
        "neither ranked, nor relevant, nor counted in R. Only with 2-D input. None ranks "
        "every item.",
    ),
    "leakage": options(
        "raise", "exclude",
        fix="'raise' refuses a pair both labelled in y_true and excluded (train/test "
        "leakage); 'exclude' drops such pairs from y_true with a warning counting them.",
        doc="A pair both labelled in ``y_true`` (label > 0) and in ``exclude`` is an error "
        "that counts them (``\"raise\"``), or is dropped from ``y_true`` with a warning "
        "that counts them (``\"exclude\"``).",
    ),
    "k": Parameter(
        "a positive int (at most 2**63 - 1) or None",
        "k=10 evaluates the top 10 documents of each query; k=None the whole list.",
        has_type=lambda k: k is None or _is_int(k),
        is_valid=lambda k: k is None or is_cutoff(k),
        type="int",
        doc="Only the top ``k`` documents of each query count. None evaluates the whole "
        "list; a ``k`` larger than a list is allowed.",
    ),
    "gain": options(
        "linear", "exponential",
        fix="'linear' uses the label as the gain (scikit-learn, trec_eval); 'exponential' "
        "uses 2**label - 1 (LightGBM, XGBoost).",
        doc="Gain of a document with label ``rel``: ``rel`` (scikit-learn, trec_eval) or "
        "``2**rel - 1`` (Burges et al.; LightGBM, XGBoost).",
    ),
    "label_gain": Parameter(
        "None, a sequence of gains (label i gains label_gain[i], as LightGBM's label_gain) "
        "or a mapping {label: gain}: labels distinct whole numbers >= 0, gains finite "
        "numbers >= 0",
        "label_gain=[0, 1, 3, 7, 15] gives labels 0 to 4 LightGBM's default gains; "
        "label_gain={0: 0, 1: 1, 2: 5} names each label's gain. A negative gain would take "
        "NDCG out of [0, 1].",
        has_type=_is_label_gain,
        is_valid=lambda value: value is None or label_gain_levels(value) is not None,
        type="sequence or mapping of float",
        doc="The gain of each label, in place of ``gain``: a sequence (label ``i`` gains "
        "``label_gain[i]``, as LightGBM's ``label_gain``) or a mapping ``{label: gain}``. "
        "Gains are finite and >= 0; every label of ``y_true`` must be a whole number the "
        "sequence or mapping covers (else a ValueError naming the label). The ideal "
        "ranking of NDCG puts the largest gains first. None: the gain of ``gain``; with "
        "``label_gain``, ``gain`` must be left ``\"linear\"``.",
    ),
    "level": options(
        "query", "item",
        fix="'query' counts queries with a hit; 'item' counts relevant recommended items.",
        doc="Whether to count queries with a hit, or relevant recommended items.",
    ),
    "method": options(
        "rc", "kendall", fix="'rc' is the share of agreeing pairs; 'kendall' Kendall's tau-b.",
        doc="The agreement share RC, or Kendall's tau-b.",
    ),
    "relevance_level": Parameter(
        "a finite number > 0",
        "A document is relevant iff its label >= relevance_level; the default is 1.",
        has_type=_is_real,
        is_valid=lambda level: math.isfinite(level) and level > 0,
        type="float",
        doc="A document is relevant iff its label >= ``relevance_level`` (trec_eval's "
        "``-l``, ranx's ``rel_lvl``).",
    ),
    "judged_relevance_level": Parameter(
        "a finite number >= 0",
        "A judged document is relevant iff its grade >= relevance_level (trec_eval -l); "
        "the default is 1, 0 makes every judged document relevant.",
        has_type=_is_real,
        is_valid=lambda level: math.isfinite(level) and level >= 0,
        name="relevance_level",
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
        type="mapping of query id to int",
        doc="Total number of relevant documents of each query, for runs whose lists miss "
        "some. Every key must be a query id (row numbers for 2-D input); queries absent "
        "from the mapping use the count in their list.",
    ),
    "ties": options(
        "average", "optimistic", "pessimistic", "first",
        fix="'average' is the exact expected value over the orderings of tied documents; "
        "'optimistic' and 'pessimistic' rank higher labels first and last inside a tie; "
        "'first' keeps tied documents in input order (LightGBM, XGBoost).",
        doc='Documents with equal scores: ``"average"`` gives the exact expected value over '
        'all their orderings; ``"optimistic"`` and ``"pessimistic"`` rank higher labels '
        'first and last inside a tie, giving the bounds; ``"first"`` ranks them in input '
        "order (row order inside the query), as the stable sorts of LightGBM and XGBoost do.",
    ),
    "run_ties": options(
        "average", "trec_eval", "first", "optimistic", "pessimistic",
        fix="'average' is the exact expected value over the orderings of tied documents; "
        "'trec_eval' breaks ties by document id, descending, as trec_eval; 'first' keeps "
        "the run's line order; 'optimistic' and 'pessimistic' rank higher grades first "
        "and last inside a tie.",
        name="ties",
    ),
    "trec_eval_version": options(
        "10", "9",
        fix="'10' reproduces trec_eval 10.0 (scores in double precision, interpolated "
        "precision cut at round(recall R)); '9' reproduces trec_eval 9.0.x, pytrec_eval and "
        "ir_measures (scores in single precision, cut at floor(recall R + 0.9)).",
    ),
    "ignore_ties": Parameter(
        "True or False",
        "ignore_ties=True ranks tied documents as scikit-learn's ignore_ties=True does (the "
        "order of numpy.argsort, reversed); ties= chooses any other treatment of ties.",
        has_type=lambda value: isinstance(value, (bool, np.bool_)),
        type="bool",
    ),
    "log_base": Parameter(
        "a finite number > 1",
        "The discount of rank i is 1 / log_base(i + 1); the default 2 is scikit-learn's and "
        "trec_eval's (a base <= 1 would give zero or negative discounts).",
        has_type=_is_real,
        is_valid=lambda base: math.isfinite(base) and base > 1,
        type="float",
        doc="Base of the logarithm of the discount ``1 / log_base(i + 1)``, > 1: "
        "scikit-learn's option. DCG in base ``b`` is DCG in base 2 times ``log2(b)``; NDCG "
        "does not depend on the base.",
    ),
    "ap_denominator": Parameter(
        "'R' or 'min(R,k)' (spaces ignored)",
        "'R' divides AP@k by the query's relevant documents (trec_eval's map_cut, ranx); "
        "'min(R,k)' by min(R, k) (LightGBM, XGBoost, Spark, RecBole, implicit, "
        "Recommenders' map_at_k).",
        has_type=lambda value: isinstance(value, str),
        is_valid=lambda value: ap_denominator_of(value) is not None,
        type='{"R", "min(R,k)"}',
        doc='What AP@k divides by: ``"R"``, the query\'s relevant documents (trec_eval\'s '
        '``map_cut``, ranx), or ``"min(R,k)"``, at most ``k`` (LightGBM, XGBoost, Spark, '
        "RecBole, implicit, Recommenders' ``map_at_k``), so that a query with more than "
        "``k`` relevant documents can reach 1. Without a cutoff both are R; with "
        "``n_relevant``, R is the given total.",
    ),
    "no_relevant": options(
        "zero", "skip", "one",
        fix="A query without relevant documents scores 0 ('zero', as trec_eval and "
        "scikit-learn), is left out of the mean ('skip'), or scores 1 ('one').",
        doc="Value of a query with no relevant document (counting ``n_relevant``): 0 as in "
        "trec_eval, left out of the mean with a warning that counts such queries (NaN with "
        "``average=None``), or 1.",
    ),
    "average": options(
        "mean", None,
        accepts="'mean' or None",
        fix="'mean' returns the mean over queries; None the value of every query.",
        doc='``"mean"`` returns the (weighted) mean over queries; None the value of every '
        "query, in the order of ``numpy.unique(qid)`` (row order for 2-D input), NaN where "
        "a query was left out.",
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
    # evaluate_retrieval's options.
    "similarity": options(
        "dot", "cosine",
        fix="'dot' scores a pair by the dot product of its vectors (factor models, "
        "embeddings trained with it); 'cosine' by their cosine.",
    ),
    "return_top_k": Parameter(
        "a positive int or None",
        "return_top_k=100 also returns each query's top 100 items and scores.",
        has_type=lambda k: k is None or _is_int(k),
        is_valid=lambda k: k is None or is_cutoff(k),
    ),
    "batch_size": Parameter(
        "a positive int or None",
        "batch_size=1024 scores 1024 queries at a time; None sizes the blocks by the "
        "number of items.",
        has_type=lambda size: size is None or _is_int(size),
        is_valid=lambda size: size is None or size >= 1,
    ),
    # The list measures' inputs and options (evaluate_top_k, evaluate_retrieval).
    "item_popularity": data(
        "array-like of shape (n_items,)",
        "Interactions of each item in the training data (>= 0), for ``arp@k``, "
        "``aplt@k`` and ``novelty@k``.",
    ),
    "short_head": data(
        "float in (0, 1] or boolean array of shape (n_items,)",
        "The popular items ``aplt@k`` does not count: a share ``s`` takes the most popular "
        "items (ties: lower item id first) until their popularity reaches ``s`` of all "
        "interactions (Elliot's short head, 0.8); a mask marks them itself (RecBole's "
        "``tail_ratio=10``, whose tail holds only items seen in training, is "
        "``short_head=(item_popularity > 10) | (item_popularity == 0)``).",
    ),
    "item_vectors": data(
        "array-like or scipy.sparse matrix of shape (n_items, n_features)",
        "A vector of each item, for ``ild@k`` and ``serendipity@k``: two items' "
        "similarity is the cosine of their vectors (the columns of a training matrix give "
        "Recommenders' item co-occurrence similarity).",
    ),
    "item_categories": data(
        "array-like of int of shape (n_items,), or boolean or sparse (n_items, n_categories)",
        "The categories of each item, for ``ild@k`` and ``serendipity@k`` instead of item "
        "vectors: two items' similarity is the cosine of their category indicator vectors "
        "(1 for the same single category, 0 for different ones; -1: no category).",
    ),
    "history": data(
        "scipy.sparse matrix or boolean array of shape (n_queries, n_items)",
        "Each query's past items (a recommender's training interactions), for "
        "``serendipity@k``: a listed item is unexpected as far as it is unlike them.",
    ),
    "exposure": Parameter(
        "'count', 'dcg' or a patience strictly between 0 and 1",
        "exposure='count' counts each listed item once; 'dcg' weighs position p by "
        "1/log2(p + 1); 0.85 by 0.85**(p - 1) (LensKit's ExposureGini).",
        has_type=lambda value: isinstance(value, str) or _is_real(value),
        is_valid=lambda value: value in ("count", "dcg") if isinstance(value, str) else 0 < value < 1,
        type='{"count", "dcg"} or float',
        doc="What a listed item adds to its exposure in ``gini@k`` and ``entropy@k``: 1 "
        "(``\"count\"``), ``1/log2(p + 1)`` at position p (``\"dcg\"``), or a patience "
        "``b`` in (0, 1), ``b**(p - 1)``.",
    ),
    "entropy_unit": options(
        "bits", "nats", "normalized",
        fix="'bits' (log base 2), 'nats' (natural log) or 'normalized' (divided by the "
        "log of the number of items, in [0, 1]).",
        doc="The unit of ``entropy@k``: bits (log base 2), nats, or ``\"normalized\"`` by "
        "its largest value, ``log(n_items)``.",
    ),
    # The curve display's options.
    "k_max": Parameter(
        "a positive int, the largest cutoff of the curve",
        "k_max=20 draws k = 1 .. 20.",
        has_type=_is_int,
        is_valid=lambda k_max: k_max >= 1,
        type="int",
    ),
    "confidence_band": Parameter(
        "None (no band) or a confidence level between 0 and 1",
        "confidence_band=0.95 draws the 95% interval of the mean at every cutoff.",
        is_valid=lambda level: level is None or _level(level),
        type="float",
        doc="A confidence level such as 0.95 draws, at every cutoff, the normal-approximation "
        "interval of the mean over queries: ``mean -/+ z s / sqrt(n)``, ``s`` the standard "
        "deviation of the per-query values (``ddof=1``), ``n`` the queries with a value, "
        "``z`` the standard normal quantile of ``(1 + level) / 2``. It needs equal query "
        "weights and at least 2 queries. None: no band.",
    ),
    # The comparisons' options.
    "baseline": data(
        "str",
        'The model every other model is compared to; None: the first. Must be None with '
        '``pairs="all"``.',
    ),
    "pairs": options(
        "baseline", "all",
        accepts="'baseline' or 'all'",
        fix="'baseline' compares each model to the baseline; 'all' every pair of models.",
        doc='``"baseline"``: each model against the baseline (``m - 1`` comparisons per '
        'metric). ``"all"``: every pair of models, adjusted by a randomized Tukey HSD.',
    ),
    "test": options(
        "permutation", "t", "bootstrap", "wilcoxon",
        fix="The paired test of the p-values: the randomization test, the t-test, the "
        "studentized bootstrap test or the Wilcoxon signed-rank test.",
        doc="The paired two-sided test of the p-values, over queries: ``\"permutation\"``, "
        "the randomization test flipping the sign of each query's difference (exact, over "
        "all ``2**n_queries`` flips, when ``n_resamples >= 2**n_queries``; otherwise "
        "``p = (b + 1) / (n_resamples + 1)``, never 0); ``\"t\"``, the paired t-test "
        "(:func:`scipy.stats.ttest_rel`); ``\"bootstrap\"``, the studentized bootstrap test "
        "of the shifted differences; ``\"wilcoxon\"``, the Wilcoxon signed-rank test "
        "(:func:`scipy.stats.wilcoxon`), which tests whether the differences are symmetric "
        "about 0 - their median, not their mean.",
    ),
    "n_resamples": Parameter(
        "a positive int",
        "n_resamples=10_000 (the default) draws 10,000 resamples.",
        has_type=_is_int,
        is_valid=lambda n: n >= 1,
        type="int",
        doc="Resamples of the bootstrap intervals, the randomization and bootstrap tests and "
        "the Tukey HSD.",
    ),
    "confidence_level": level(
        "confidence_level=0.95 gives 95% intervals.",
        doc="Of the intervals, which are BCa bootstrap intervals over queries.",
    ),
    "correction": options(
        "holm", "bonferroni", "fdr_bh", None,
        fix="'holm' and 'bonferroni' control the family-wise error, 'fdr_bh' the false "
        "discovery rate (Benjamini-Hochberg); None leaves the p-values unadjusted.",
        doc="Adjustment of the p-values over the family of each metric: the comparisons to "
        "the baseline, which never enters its own family. With ``pairs=\"all\"`` the "
        "randomized Tukey HSD adjusts instead, and only the default is accepted.",
    ),
    "alpha": level(
        "alpha=0.05 rejects where p_adjusted <= 0.05.",
        doc="Significance level of ``reject``: ``p_adjusted <= alpha``.",
    ),
    "random_state": data(
        "int, numpy.random.Generator, RandomState or None",
        "The resampling's randomness; an int makes the result reproducible.",
    ),
    # The sampled metrics' options (correct_sampled_metric, sample_ranks).
    "n_items": count(
        2,
        "n_items is the number of items each held-out item is ranked among in the full "
        "catalogue, itself included (the catalogue less the user's excluded items).",
        doc="Items of the full ranking each held-out item's sampled rank stands for, the "
        "held-out item included: the catalogue, less the items a user never ranks.",
    ),
    "n_samples": count(
        1,
        "n_samples=100 draws 100 negatives per user, ranking the held-out item among 101.",
        doc="Sampled negatives per user: each held-out item is ranked among itself and "
        "``n_samples`` negatives. Less than ``n_items``.",
    ),
    "sampled_method": options(
        "bv", "cls", "least_squares", "rank_estimate", "naive",
        name="method",
        fix="'bv' trades squared bias against variance (gamma), 'least_squares' minimises the "
        "squared bias alone (bv with gamma=0), 'cls' is that least squares with weights "
        "that never increase with the sampled rank (w_1 >= ... >= w_(m+1)), 'rank_estimate' "
        "the metric of the estimated full rank; "
        "'naive' the metric of the sampled rank.",
    ),
    "gamma": Parameter(
        "None or a number from 0 to 1",
        "gamma weighs the variance against the squared bias of method='bv': None (the "
        "default) is 0.1, gamma=0 the unconstrained least squares (method='least_squares').",
        has_type=lambda gamma: gamma is None or _is_real(gamma),
        is_valid=lambda gamma: gamma is None or 0 <= gamma <= 1,
        type="float or None",
    ),
    "sampling": options(
        "with_replacement", "without_replacement",
        fix="'with_replacement' draws the negatives independently, so that the sampled rank "
        "is binomial given the full rank (Krichene & Rendle's model); 'without_replacement' "
        "draws distinct negatives (hypergeometric).",
        doc='How the negatives are drawn, uniformly among the items other than the held-out '
        'one: ``"with_replacement"``, independently (the sampled rank less 1 is binomial '
        "given the full rank, Krichene and Rendle's model), or ``\"without_replacement\"``, "
        "distinct (hypergeometric).",
    ),
    "sampled_ties": options(
        "random", "optimistic", "pessimistic",
        name="ties",
        fix="'random' places the held-out item uniformly at random in its block of tied "
        "scores (unbiased for the tie-averaged metric); 'optimistic' and 'pessimistic' "
        "first and last in it, the bounds.",
    ),
}  # fmt: skip


def check_parameters(owner, **values):
    """Check each keyword argument against its declared :data:`PARAMETERS` entry.

    Parameters
    ----------
    owner : str
        The public function or method checking its arguments, named in errors.
    **values
        The arguments to check, by the key of their entry (its ``name``, where
        it has one, is the argument's name in the messages).
    """
    for key, value in values.items():
        entry = PARAMETERS[key]
        entry.check(owner, entry.name or key, value)
