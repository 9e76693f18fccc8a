"""``RankingCurveDisplay.from_top_k``: a measure at every cutoff of given top-k lists."""

import warnings
from types import SimpleNamespace

import numpy as np

from .._engine._param_docs import document_parameters
from ..metrics._query_results import QueryResults
from ..retrieval import evaluate_top_k
from ._curve_values import _check_curve


def _per_cutoff(results, names):
    """Each cutoff's one-metric :class:`QueryResults`, as the other curves' passes yield them."""
    for name in names:
        yield QueryResults(
            results.query_ids, {name: results._results[name]}, results.query_weights
        )


@document_parameters()
def from_top_k(
    cls,
    y_true,
    top_items,
    *,
    top_scores=None,
    exclude=None,
    metric="ndcg",
    k_max=None,
    item_popularity=None,
    short_head=0.8,
    item_vectors=None,
    item_categories=None,
    history=None,
    exposure="count",
    entropy_unit="bits",
    gain="linear",
    relevance_level=1,
    ties="average",
    no_relevant="zero",
    leakage="raise",
    sample_weight=None,
    confidence_band=None,
    name=None,
    ax=None,
    **kwargs,
):
    r"""Compute a measure of top-k lists at every cutoff ``k = 1 .. k_max``, and draw it.

    The accuracy measures of :func:`~sklearn_rank_metrics.evaluate_top_k`
    and its list measures (``arp``, ``novelty``, ``ild``, ``coverage``,
    ``gini``, ...) alike: ``values_[k - 1]`` is ``evaluate_top_k(y_true,
    top_items, metrics=[f"{metric}@{k}"], ...)`` with the same options,

    .. math:: \mathrm{values\_}[k - 1] = \frac{1}{|Q|} \sum_{q \in Q} M_q@k

    for a measure of each list, and the catalogue's value at ``k`` for
    coverage, gini and entropy (which have no per-query values, hence no
    confidence band). The curve of ``ild``, which compares pairs, starts
    at ``k = 2``.

    Parameters
    ----------
    top_items : array-like of int, shape (n_queries, L)
        Each query's top items, best first, -1 padding a shorter list, as
        :func:`~sklearn_rank_metrics.evaluate_top_k` takes them.
    top_scores : array-like of shape (n_queries, L), default=None
        Their scores (ties), as ``evaluate_top_k`` takes them.
    metric : str, default="ndcg"
        A measure ``evaluate_top_k`` computes, without its cutoff.
    k_max : int, default=None
        The largest cutoff; None: the lists' length ``L``. Larger than ``L``
        is an error: nothing is known of the items beyond a list.
    name : str, default=None
        The model's name in the legend.
    ax : matplotlib Axes, default=None
        Where to draw; ``ax=display.ax_`` adds this curve to another's.
    **kwargs
        Keyword arguments of ``Axes.plot`` for the line.

    Returns
    -------
    display : RankingCurveDisplay

    See Also
    --------
    sklearn_rank_metrics.evaluate_top_k : The measures at chosen cutoffs.
    from_predictions : The accuracy measures of scores, at every cutoff.

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge, "Diversity, Serendipity, Novelty,
       and Coverage: A Survey and Empirical Analysis of Beyond-Accuracy
       Objectives in Recommender Systems", ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from scipy.sparse import csr_array
    >>> from sklearn_rank_metrics import RankingCurveDisplay
    >>> y_true = csr_array(np.array([[0, 1, 0, 1], [1, 0, 0, 0]]))
    >>> top_items = [[3, 2, 0], [2, 1, 0]]
    >>> display = RankingCurveDisplay.from_top_k(
    ...     y_true, top_items, metric="arp", item_popularity=[5, 1, 3, 2])
    >>> display.values_
    array([2.5       , 2.25      , 3.16666667])
    >>> RankingCurveDisplay.from_top_k(y_true, top_items, metric="coverage").values_
    array([0.5 , 0.75, 1.  ])
    """
    owner = f"{cls.__name__}.from_top_k"
    width = np.shape(top_items)[1] if np.ndim(top_items) == 2 else None
    if not isinstance(metric, str) or "@" in metric:
        raise ValueError(
            f"{owner}: metric={metric!r} must be a measure's name without its cutoff "
            "(e.g. 'ndcg', 'arp', 'coverage'); the curve's cutoffs are k = 1 .. k_max."
        )
    k_max, level = _check_curve(width if k_max is None else k_max, confidence_band, owner)
    # ILD compares pairs: a list cut at 1 has none, so its curve starts at k = 2.
    first_k = 2 if metric.strip().lower() == "ild" else 1
    if k_max < first_k:
        raise ValueError(f"{owner}: ild compares pairs of items: k_max must be at least 2.")
    names = [f"{metric}@{k}" for k in range(first_k, k_max + 1)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluate_top_k(
            y_true, top_items, top_scores=top_scores, exclude=exclude, metrics=names,
            item_popularity=item_popularity, short_head=short_head, item_vectors=item_vectors,
            item_categories=item_categories, history=history, exposure=exposure,
            entropy_unit=entropy_unit, gain=gain, relevance_level=relevance_level, ties=ties,
            no_relevant=no_relevant, leakage=leakage, sample_weight=sample_weight, average=None,
        )  # fmt: skip
    # Queries left out are said once for the curve (below), not once per cutoff.
    for category, message in dict.fromkeys((w.category, str(w.message)) for w in caught):
        if "left out of the mean" not in message:
            warnings.warn(message, category, stacklevel=2)
    computed = list(results.metrics) or list(results.catalogue)
    label = computed[0].rsplit("@", 1)[0]
    curve = SimpleNamespace(definition=SimpleNamespace(name=label), k_max=k_max)
    if results.catalogue:
        if level is not None:
            raise ValueError(
                f"{owner}: {label} is a value of the whole catalogue, with no per-query "
                "values to draw a band from; use confidence_band=None."
            )
        display = cls(k=np.arange(1, k_max + 1), values=list(results.catalogue.values()),
                      metric=label, name=name)  # fmt: skip
        return display.plot(ax=ax, **kwargs)
    per_cutoff = _per_cutoff(results, computed)
    example = f"evaluate_top_k(y_true, top_items, metrics=['{label}@{k_max}'])"
    return cls._from_curve(curve, per_cutoff, level, owner, name, ax, kwargs, example, first_k)
