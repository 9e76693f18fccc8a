"""``compare`` and ``compare_results``: paired comparisons of ranking models over queries."""

from collections.abc import Mapping

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._engine._options import Options
from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine._warnings import warn_caller
from .._engine.prepare._prepare import Inputs
from ..metrics._evaluate import evaluate_requests, requests_for
from ..metrics._query_results import QueryResults, left_out_messages
from ._corrections import adjust
from ._resampling import (
    StudentizedBootstrapTest,
    bca_interval,
    bootstrap_means,
    check_generator,
    is_exact,
    tukey_hsd_pvalues,
)
from ._results import ComparisonResults, better_sign, outcomes
from ._tests import paired_pvalues

MIN_QUERIES = 25  # fewer queries than this: a warning (the tests have little power)

def _ids_text(ids, limit=10):
    shown = ", ".join(repr(value.item() if hasattr(value, "item") else value) for value in ids[:limit])
    more = f", ... ({len(ids)} in all)" if len(ids) > limit else ""
    return f"[{shown}{more}]"


def _check_options(owner, models, *, baseline, pairs, correction, **options):
    """Check the comparison's options against the parameter table, then how they combine."""
    check_parameters(owner, pairs=pairs, correction=correction, **options)
    if pairs == "all" and baseline is not None:
        raise ValueError(
            f"baseline={baseline!r} with pairs='all': all pairs have no baseline. Pass "
            "baseline=None, or pairs='baseline' to compare every model to the baseline."
        )
    if pairs == "all" and correction != "holm":
        raise ValueError(
            f"correction={correction!r} with pairs='all': the p-values of all pairs are "
            "adjusted by the randomized Tukey HSD, which controls the family-wise error "
            "itself; leave correction at its default."
        )
    if baseline is not None and baseline not in models:
        raise ValueError(
            f"{owner}: baseline must be one of the models {models}; got {baseline!r}."
        )


def _check_results(results, metrics):
    """The models, the metrics, and each model's results in the query order of the first."""
    if not isinstance(results, Mapping) or len(results) < 2:
        raise ValueError(
            "results must be a mapping of at least two model names to QueryResults, e.g. "
            "{'a': evaluate(y, score_a, qid=qid, average=None), 'b': ...}."
        )
    models = [str(name) for name in results]
    for name, result in results.items():
        if not isinstance(result, QueryResults):
            raise TypeError(
                f"results[{name!r}] is a {type(result).__name__}, not a QueryResults: compute "
                "it with evaluate(y_true, y_score, qid=qid, metrics=..., average=None)."
            )
    reference_name = next(iter(results))
    reference = results[reference_name]
    if metrics is None and reference.catalogue:
        warn_caller(
            f"{', '.join(reference.catalogue)}: one value of each model's whole set of lists, "
            "with no per-query values to pair, so not compared here; read them in each "
            "model's QueryResults.catalogue.",
            UserWarning,
        )
    metrics = list(reference.metrics) if metrics is None else [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: name at least one metric, e.g. ['ndcg@10'].")
    repeated = sorted({name for name in metrics if metrics.count(name) > 1}, key=str)
    if repeated:
        raise ValueError(f"metrics names {', '.join(map(repr, repeated))} more than once.")
    ids = reference.query_ids
    aligned = {}
    for name, result in results.items():
        absent = [metric for metric in metrics if metric not in result.metrics]
        catalogue = [metric for metric in absent if metric in result.catalogue]
        if catalogue:
            raise ValueError(
                f"{', '.join(map(repr, catalogue))}: one value of results[{name!r}]'s whole set "
                "of lists (QueryResults.catalogue), with no per-query values to compare; "
                "compare the per-query measures, and report the catalogue values beside them."
            )
        if absent:
            raise ValueError(
                f"results[{name!r}] has no values of {absent}; it has {list(result.metrics)}. "
                "Evaluate every model on the same metrics."
            )
        order = _query_order(name, result.query_ids, reference_name, ids)
        aligned[str(name)] = (result, order)
    return models, metrics, ids, aligned


def _query_order(name, query_ids, reference_name, reference_ids):
    """Positions in ``query_ids`` of the reference's queries; an error naming missing ids."""
    if query_ids.shape == reference_ids.shape and np.array_equal(query_ids, reference_ids):
        return None
    missing = np.setdiff1d(reference_ids, query_ids)
    extra = np.setdiff1d(query_ids, reference_ids)
    if missing.size or extra.size:
        problems = []
        if missing.size:
            problems.append(f"{name!r} lacks {missing.size} queries of {reference_name!r}: {_ids_text(missing)}")
        if extra.size:
            problems.append(f"{name!r} has {extra.size} queries that {reference_name!r} lacks: {_ids_text(extra)}")
        raise ValueError(
            "The results do not cover the same queries, and a paired comparison needs every "
            f"model on every query: {'; '.join(problems)}. Evaluate every model on the same "
            "data. For TREC runs, evaluate_run(qrels, run, missing_queries='zero', "
            "average=None) evaluates every judged topic in every run: a topic a run has no "
            "document for scores 0, as trec_eval -c scores it."
        )
    order = np.argsort(query_ids, kind="stable")
    return order[np.searchsorted(query_ids, reference_ids, sorter=order)]


def _metric_values(metric, models, aligned):
    """(n_queries, n_models) values of ``metric``; an error if queries are weighted unequally."""
    columns = []
    for name in models:
        result, order = aligned[name]
        values, weights = np.asarray(result[metric]), result.weights(metric)
        defined = ~np.isnan(values)
        if defined.any() and np.ptp(weights[defined]) > 0:
            raise ValueError(
                f"results[{name!r}] weighs the queries of {metric} unequally (sample_weight, or "
                "a metric pooled over items such as hit_rate_item), but the paired tests and "
                "intervals are over queries of equal weight. Evaluate without sample_weight, "
                "or compare a metric averaged over queries."
            )
        columns.append(values if order is None else values[order])
    return np.column_stack(columns)


def _analyse(values, pair_index, better, *, test, n_resamples, confidence_level, rng, all_pairs):
    """Means, intervals, differences, effect sizes and p-values of one group of metrics.

    ``values`` has shape (n_queries, n_models, n_metrics); the group's metrics
    share their queries, so they share every resample. ``better``: each
    metric's :func:`better_sign`, for the wins and losses.
    """
    n, n_models, n_metrics = values.shape
    first, second = np.array(pair_index, dtype=np.intp).reshape(-1, 2).T
    flat = values.reshape(n, n_models * n_metrics)  # column: model * n_metrics + metric
    a = values[:, first, :].reshape(n, -1)  # column: pair * n_metrics + metric
    b = values[:, second, :].reshape(n, -1)
    differences = a - b
    bootstrap_test = StudentizedBootstrapTest(differences, n_resamples) if test == "bootstrap" else None
    resampled = bootstrap_means(np.hstack([flat, differences]), n_resamples, rng, extra=bootstrap_test)
    ci_low, ci_high = bca_interval(flat, resampled[:, : flat.shape[1]], confidence_level)
    diff_low, diff_high = bca_interval(differences, resampled[:, flat.shape[1] :], confidence_level)
    p_values = paired_pvalues(test, a, b, n_resamples, rng, bootstrap_test)
    mean_difference = differences.mean(axis=0)
    spread = differences.std(axis=0, ddof=1)
    # A spread at the rounding level of the values is a constant difference (x + 0.1 - x
    # varies in its last bits): its ratio would be a huge number made of rounding errors.
    rounding = 64 * np.finfo(np.float64).eps * np.maximum(np.abs(a).max(axis=0), np.abs(b).max(axis=0))
    constant = spread <= rounding
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(constant, np.sign(mean_difference) * np.inf, mean_difference / spread)
    effect[constant & (np.abs(mean_difference) <= rounding)] = 0.0
    oriented = np.tile(better, len(first))  # column: pair * n_metrics + metric
    wins, ties, losses = (outcome.sum(axis=0) for outcome in outcomes(differences, oriented))
    per_model = {"mean": flat.mean(axis=0), "ci_low": ci_low, "ci_high": ci_high}
    per_pair = {
        "diff": mean_difference, "diff_ci_low": diff_low, "diff_ci_high": diff_high,
        "effect_size": effect, "p_value": p_values, "wins": wins, "ties": ties, "losses": losses,
    }  # fmt: skip
    shaped = {key: value.reshape(n_models, n_metrics) for key, value in per_model.items()}
    shaped.update({key: value.reshape(len(first), n_metrics) for key, value in per_pair.items()})
    if all_pairs:
        shaped["tukey"] = tukey_hsd_pvalues(values, list(zip(first, second)), n_resamples, rng).T
    return shaped


@document_parameters()
def compare_results(
    results,
    *,
    metrics=None,
    baseline=None,
    pairs="baseline",
    test="permutation",
    n_resamples=10_000,
    confidence_level=0.95,
    correction="holm",
    alpha=0.05,
    random_state=None,
):
    """Compare ranking models by their per-query results: paired tests, intervals, effect sizes.

    Every model is compared to the baseline (or every pair of models to
    each other) metric by metric, paired by query: the difference of two
    models on a query is the unit of the analysis.

    Parameters
    ----------
    results : mapping of str to QueryResults
        The per-query results of each model on the same queries, from
        :func:`~sklearn_rank_metrics.evaluate` with ``average=None``. The
        first model is the default baseline.
    metrics : str or sequence of str, default=None (the metrics of the first model)
        The metrics compared, as :func:`~sklearn_rank_metrics.evaluate`
        names them (``"ndcg@10"``, ``"map"``, ...).

    Returns
    -------
    comparison : ComparisonResults
        Prints as a table; ``to_frame()``, ``to_markdown()``,
        ``to_latex()``, ``plot_differences(metric)``.

    Raises
    ------
    ValueError
        If the results do not cover the same queries (the message names the
        missing query ids; TREC runs that miss topics are evaluated on every
        judged topic by ``evaluate_run(..., missing_queries="zero")``, a
        missing topic scoring 0), if a model lacks a metric, or if queries are
        weighted unequally (``sample_weight``; a pooled metric such as
        hit_rate_item): the tests are over queries of equal weight.

    Warns
    -----
    UserWarning
        When fewer than 25 queries are compared, and when queries are left
        out of a metric because their value is NaN in some model.

    See Also
    --------
    compare : The same from the scores of each model.
    ComparisonResults : The result.
    sklearn_rank_metrics.evaluate : The per-query results.

    Notes
    -----
    For each metric, every model is compared on the queries where every
    model has a value: a query that is NaN in some model (no relevant
    document under ``no_relevant="skip"``, or an undefined value) is left
    out of that metric for all models, with a warning that counts it, so
    that means and differences are over the same queries.

    * Mean: the mean over queries; interval: BCa bootstrap over queries
      (bias-corrected and accelerated; Efron and Tibshirani 1993, 14.3).
    * Difference: mean of the per-query differences ``model - baseline``,
      with its BCa interval from the same resamples of queries.
    * Effect size: ``mean(d) / sd(d)`` of the per-query differences ``d``
      (Cohen's d_z; the effect size of Sakai 2014), scale-free; 0 for
      identical models, infinite for a constant nonzero difference.
    * p-values: the paired ``test``; identical models (every difference 0)
      have p = 1. ``p_adjusted``: corrected over the metric's family.
    * Wins, ties, losses: queries where the model is better than, equal to
      (within 1e-12) or worse than the baseline: above or below it, below or
      above for a lower-is-better metric (fallout).

    The resamples are drawn in blocks and each block is reduced by one
    matrix product, so time is linear in ``n_resamples x n_queries`` and
    memory is one block plus ``n_resamples`` means per model and metric.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A Comparison of
       Statistical Significance Tests for Information Retrieval
       Evaluation", CIKM 2007.
    .. [2] J. Urbano, H. Lima and A. Hanjalic, "Statistical Significance
       Testing in Information Retrieval: An Empirical Analysis of Type I,
       Type II and Type III Errors", SIGIR 2019.
    .. [3] B. Carterette, "Multiple Testing in Statistical Analysis of
       Systems-Based Information Retrieval Experiments", ACM TOIS 30(1), 2012.
    .. [4] T. Sakai, "Statistical Reform in Information Retrieval?",
       SIGIR Forum 48(1), 2014.
    .. [5] B. Efron and R. J. Tibshirani, "An Introduction to the
       Bootstrap", Chapman & Hall, 1993.

    Examples
    --------
    >>> from sklearn_rank_metrics import evaluate
    >>> from sklearn_rank_metrics.comparison import compare_results
    >>> from sklearn_rank_metrics.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=30, random_state=0)
    >>> results = {
    ...     "first feature": evaluate(y, X[:, 0], qid=qid, metrics=["ndcg@5"], average=None),
    ...     "second feature": evaluate(y, X[:, 1], qid=qid, metrics=["ndcg@5"], average=None),
    ... }
    >>> comparison = compare_results(results, random_state=0)
    >>> frame = comparison.to_frame()
    >>> list(frame["model"]), int(frame["n_queries"][1])
    (['first feature', 'second feature'], 30)
    >>> bool(frame["p_value"][1] > 0)
    True
    """
    models, metrics, query_ids, aligned = _check_results(results, metrics)
    _check_options(
        "compare_results", models, baseline=baseline, pairs=pairs, test=test,
        n_resamples=n_resamples, confidence_level=confidence_level, correction=correction,
        alpha=alpha,
    )  # fmt: skip
    rng = check_generator(random_state)
    all_pairs = pairs == "all"
    if all_pairs:
        pair_index = [(j, i) for i in range(len(models)) for j in range(i + 1, len(models))]
    else:
        base = models.index(baseline) if baseline is not None else 0
        pair_index = [(j, base) for j in range(len(models)) if j != base]

    # Queries with a value in every model, metric by metric; metrics on the same queries form a group.
    per_query, groups = {}, {}
    for metric in metrics:
        values = _metric_values(metric, models, aligned)
        kept = ~np.isnan(values).any(axis=1)
        if not kept.all():
            warn_caller(
                f"{metric}: {int((~kept).sum())} of {kept.size} queries are left out of the "
                "comparison: their value is NaN in at least one model (no relevant document "
                "under no_relevant='skip', or undefined).",
                UserWarning,
            )
        if kept.sum() < 2:
            raise ValueError(
                f"{metric}: {int(kept.sum())} quer{'y' if kept.sum() == 1 else 'ies'} with a value "
                "in every model; a paired comparison needs at least 2 (and 25 or more to be useful)."
            )
        per_query[metric] = (query_ids[kept], values[kept])
        groups.setdefault(kept.tobytes(), []).append(metric)

    analysed, exact = {}, []
    for group in groups.values():
        n_queries = per_query[group[0]][1].shape[0]
        if n_queries < MIN_QUERIES:
            warn_caller(
                f"Only {n_queries} queries are compared ({', '.join(group)}): with fewer than "
                f"{MIN_QUERIES}, the tests have little power and the intervals are unreliable.",
                UserWarning,
            )
        values = np.stack([per_query[metric][1] for metric in group], axis=2)
        better = np.array([better_sign(metric) for metric in group])
        shaped = _analyse(
            values, pair_index, better, test=test, n_resamples=n_resamples,
            confidence_level=confidence_level, rng=rng, all_pairs=all_pairs,
        )  # fmt: skip
        exact.append(is_exact(n_queries, n_resamples))
        for position, metric in enumerate(group):
            analysed[metric] = {key: value[:, position] for key, value in shaped.items()}

    columns = _table(models, metrics, pair_index, analysed, per_query, correction, alpha, all_pairs)
    return ComparisonResults(
        models=models,
        baseline=None if all_pairs else models[pair_index[0][1]],
        pairs=[(models[j], models[i]) for j, i in pair_index],
        metrics=metrics,
        columns=columns,
        per_query=per_query,
        settings={
            "test": test, "correction": "tukey_hsd" if all_pairs else correction, "alpha": alpha,
            "confidence_level": confidence_level, "n_resamples": n_resamples, "exact": exact,
        },  # fmt: skip
    )


_PAIR_COLUMNS = ("diff", "diff_ci_low", "diff_ci_high", "effect_size", "p_value", "p_adjusted")


def _table(models, metrics, pair_index, analysed, per_query, correction, alpha, all_pairs):
    """The columns of the table: per metric, a row per model, then (all pairs) a row per pair."""
    rows = []
    for metric in metrics:
        result = analysed[metric]
        n_queries = per_query[metric][1].shape[0]
        p_adjusted = result["tukey"] if all_pairs else adjust(result["p_value"], correction)
        pair_rows = []
        for k, (j, i) in enumerate(pair_index):
            row = {key: result[key][k] for key in _PAIR_COLUMNS[:-1]}
            row.update(p_adjusted=p_adjusted[k], reject=int(p_adjusted[k] <= alpha))
            row.update({key: int(result[key][k]) for key in ("wins", "ties", "losses")})
            pair_rows.append((j, i, row))
        pair_of = {} if all_pairs else {j: row for j, _, row in pair_rows}
        for j, name in enumerate(models):
            rows.append(_row(name, None, metric, result, j, n_queries, pair_of.get(j)))
        if all_pairs:
            rows.extend(_row(models[j], models[i], metric, result, j, n_queries, row) for j, i, row in pair_rows)
    columns = {key: np.array([row[key] for row in rows]) for key in rows[0]}
    if not all_pairs:
        del columns["baseline"]
    else:
        columns = {"model": columns.pop("model"), "baseline": columns.pop("baseline"), **columns}
    for key in ("model", "metric", *(("baseline",) if all_pairs else ())):
        columns[key] = np.array([row[key] for row in rows], dtype=object)
    return columns


def _row(model, baseline, metric, result, j, n_queries, pair):
    row = {"model": model, "baseline": baseline, "metric": metric, "mean": result["mean"][j],
           "ci_low": result["ci_low"][j], "ci_high": result["ci_high"][j]}  # fmt: skip
    row.update({key: np.nan for key in _PAIR_COLUMNS})
    row.update(reject=-1, wins=-1, ties=-1, losses=-1)
    row.update(pair or {})
    row["n_queries"] = n_queries
    return row


def _score_mapping(y_scores):
    if hasattr(y_scores, "items") and not isinstance(y_scores, Mapping):  # a DataFrame
        y_scores = dict(y_scores.items())
    if not isinstance(y_scores, Mapping) or len(y_scores) < 2:
        raise ValueError(
            "y_scores must be a mapping of at least two model names to their scores, e.g. "
            "{'lightgbm': model_a.predict(X), 'ridge': model_b.predict(X)} (or a DataFrame "
            "with one column per model)."
        )
    return y_scores


@document_parameters()
def compare(
    y_true,
    y_scores,
    *,
    qid=None,
    metrics=("ndcg@10",),
    baseline=None,
    pairs="baseline",
    test="permutation",
    n_resamples=10_000,
    confidence_level=0.95,
    correction="holm",
    alpha=0.05,
    gain="linear",
    relevance_level=1,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    random_state=None,
):
    """Compare ranking models on the same queries: paired tests, intervals, effect sizes.

    Each model's scores are evaluated once (:func:`~sklearn_rank_metrics.evaluate`
    with ``average=None``) and the per-query results are compared by
    :func:`compare_results`: every model against the baseline, or every
    pair, metric by metric, paired by query.

    Parameters
    ----------
    y_scores : mapping of str to array-like
        Each model's scores, of the shape of ``y_true`` (a pandas DataFrame
        with one column per model also works). The first model is the
        default baseline.
    metrics : str or sequence of str, default=("ndcg@10",)
        The metrics compared, as :func:`~sklearn_rank_metrics.evaluate`
        names them (``"ndcg@10"``, ``"map"``, ...).
    gain, relevance_level, n_relevant, ties, no_relevant
        Passed to :func:`~sklearn_rank_metrics.evaluate` (same defaults).
        Query weights (``sample_weight``) are not taken: the tests
        compare means over queries of equal weight.

    Returns
    -------
    comparison : ComparisonResults
        Prints as a table; ``to_frame()``, ``to_markdown()``,
        ``to_latex()``, ``plot_differences(metric)``.

    See Also
    --------
    compare_results : The statistics, their conventions and references.
    ComparisonResults : The result.

    Notes
    -----
    The conventions (which interval, which effect size, queries left out,
    the families of the corrections) are those of :func:`compare_results`;
    ``docs/comparing_models.md`` explains the choices.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A Comparison of
       Statistical Significance Tests for Information Retrieval
       Evaluation", CIKM 2007.
    .. [2] T. Sakai, "Statistical Reform in Information Retrieval?",
       SIGIR Forum 48(1), 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics.comparison import compare
    >>> from sklearn_rank_metrics.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> noise = np.random.default_rng(0).normal(size=y.shape)
    >>> scores = {"noisy": y + 4 * noise, "less noisy": y + 2 * noise, "feature 0": X[:, 0]}
    >>> result = compare(y, scores, qid=qid, metrics=["ndcg@5"], random_state=0)
    >>> result.to_frame()[["model", "mean", "diff", "wins", "ties", "losses", "reject"]]
            model      mean      diff  wins  ties  losses  reject
    0       noisy  0.685...       NaN  <NA>  <NA>    <NA>    <NA>
    1  less noisy  0.808...  0.123...    37     3       0    True
    2   feature 0  0.665... -0.019...    20     0      20   False
    """
    y_scores = _score_mapping(y_scores)
    _check_options(
        "compare", [str(name) for name in y_scores], baseline=baseline, pairs=pairs, test=test,
        n_resamples=n_resamples, confidence_level=confidence_level, correction=correction,
        alpha=alpha,
    )  # fmt: skip
    options = Options.checked(
        "compare", gain=gain, relevance_level=relevance_level, n_relevant=n_relevant,
        ties=ties, no_relevant=no_relevant,
    )  # fmt: skip
    requests = requests_for(metrics)
    results, messages = {}, {}
    for name, y_score in y_scores.items():
        results[name] = evaluate_requests(requests, Inputs(y_true, y_score, qid), options)
        messages.update(dict.fromkeys(left_out_messages(results[name])))
    for message in messages:  # one warning per message, not one per model
        warn_caller(message, UndefinedMetricWarning)
    return compare_results(
        results, baseline=baseline, pairs=pairs, test=test, n_resamples=n_resamples,
        confidence_level=confidence_level, correction=correction, alpha=alpha,
        random_state=random_state,
    )  # fmt: skip
