"""Per-query results: what every evaluation returns, and the one place that averages.

The run layer returns plain per-metric results (values, and the queries
left out of them, as data: see :mod:`.._engine.run._finalize`);
:class:`QueryResults` holds them for several metrics on the same queries,
with the query ids and weights, and computes every mean - the metric
functions, :func:`~sklearn_rank_metrics.evaluate` and the scorers all
average through :meth:`QueryResults.mean`. :func:`left_out_messages` says
what was left out, for the public functions to warn once.

Every mean is a weighted mean of per-query values, so results of disjoint
sets of queries (partitions of a large input) combine exactly, and results
of several models on the same queries pair up by query id.
"""

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from .._engine._warnings import undefined_metric_warning, warn_caller
from .._engine.run._finalize import MetricResult
from ._left_out import _queries, left_out_messages, skipped_message, warn_left_out
from ._means import aggregated, aggregation_terms, scaled_by_power_of_two

__all__ = [
    "QueryResults", "left_out_messages", "queries_taken", "query_results", "skipped_message",
    "values_replaced", "warn_left_out",
]  # fmt: skip


def query_results(run_results):
    """The :class:`QueryResults` of the run layer's plain results (``RunResults``)."""
    return QueryResults(run_results.query_ids, run_results.metrics, run_results.query_weights)


def queries_taken(results, rows):
    """The :class:`QueryResults` of the queries at ``rows`` (positions in ``results.query_ids``)."""
    taken = {}
    for name in results.metrics:
        result = results._results[name]
        taken[name] = replace(
            result,
            values=result.values[rows],
            skipped=result.skipped[rows],
            undefined=result.undefined[rows],
            pool_weights=None if result.pool_weights is None else result.pool_weights[rows],
        )
    weights = results.query_weights
    return type(results)(results.query_ids[rows], taken, None if weights is None else weights[rows])


def values_replaced(results, replaced, reason):
    """``results`` with the per-query values of some metrics replaced: ``{name: values}``.

    The NaN values among them are marked undefined, for ``reason``.
    """
    taken = dict(results._results)
    for name, values in replaced.items():
        values = np.array(values, dtype=np.float64)
        values.flags.writeable = False
        undefined = np.isnan(values) & ~taken[name].skipped
        taken[name] = replace(
            taken[name], values=values, undefined=undefined, undefined_reason=reason
        )
    return type(results)(results.query_ids, taken, results.query_weights)


def _read_only_copy(array):
    """A read-only copy: the results own their arrays, which no caller can change."""
    array = np.array(array)
    array.flags.writeable = False
    return array


def _same_ids(ids, other):
    """Whether two id arrays hold the same ids (strings never equal numbers)."""
    same_kind = (ids.dtype.kind in "US") == (other.dtype.kind in "US")
    return same_kind and ids.shape == other.shape and bool((ids == other).all())


# Keys that name a QueryResults attribute rather than a metric.
_ATTRIBUTE_FOR_KEY = {
    "qid": ("query_ids", "query ids"),
    "query_id": ("query_ids", "query ids"),
    "query_ids": ("query_ids", "query ids"),
    "sample_weight": ("query_weights", "query weights"),
    "query_weights": ("query_weights", "query weights"),
    "weights": ("query_weights", "query weights"),
}


class QueryResults(Mapping):
    """Per-query values of ranking metrics, with their query ids and weights.

    Returned by :func:`~sklearn_rank_metrics.evaluate` with ``average=None``.
    It is a read-only mapping from metric name to per-query values; the
    queries are in the order of :attr:`query_ids` (that of ``numpy.unique(qid)``,
    row order for 2-D input). A query left out of a metric (no relevant
    document under ``no_relevant="skip"``, or an undefined value) has the value
    NaN there, and :meth:`skipped` / :meth:`undefined` say which and why.
    Its arrays are read-only. Two results are equal (``==``) when they hold
    the same metrics with the same query ids, values (NaN at the same
    places) and weights.

    Parameters
    ----------
    query_ids : array-like of shape (n_queries,)
        The sorted unique query ids.
    metric_results : dict
        Metric name to the per-query results the engine computed for it.
        Results come from :func:`~sklearn_rank_metrics.evaluate` and
        :meth:`concat`, not from this constructor.
    query_weights : array-like of shape (n_queries,), default=None
        The weight of each query in means; None for equal weights.
    catalogue : dict of {str: float}, default=None
        Values of all the lists together (``coverage@k``, ``gini@k``,
        ``entropy@k``), from the top-k front-ends; None for none.

    Attributes
    ----------
    query_ids : ndarray of shape (n_queries,)
        Sorted unique query ids (read-only).
    metrics : tuple of str
        The metric names, in the order requested.
    query_weights : ndarray of shape (n_queries,) or None
        The weight of each query in means (``sample_weight``, read-only),
        None for equal weights.
    catalogue : dict of {str: float}
        Values of the whole set of lists rather than of each query
        (``coverage@k``, ``gini@k``, ``entropy@k`` of
        :func:`~sklearn_rank_metrics.evaluate_top_k`); empty otherwise.
        :meth:`mean` returns them beside the means; they have no per-query
        values, so they are not among :attr:`metrics`.

    See Also
    --------
    sklearn_rank_metrics.evaluate : Compute several metrics in one pass.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A Comparison of
       Statistical Significance Tests for Information Retrieval Evaluation",
       CIKM 2007 (why per-query values, paired by query, are the material of
       comparisons between systems).

    Examples
    --------
    >>> from sklearn_rank_metrics import evaluate
    >>> results = evaluate([2, 0, 1, 0, 0, 1], [0.9, 0.8, 0.1, 0.7, 0.2, 0.3],
    ...                    qid=["a", "a", "a", "b", "b", "b"],
    ...                    metrics=["ndcg@2", "mrr"], average=None)
    >>> results
    QueryResults(2 queries: ndcg@2 mean 0.6956, mrr mean 0.75)
    >>> results["mrr"]
    array([1. , 0.5])
    >>> results.query_ids
    array(['a', 'b'], dtype='<U1')
    >>> results.mean()
    {'ndcg@2': 0.69555..., 'mrr': 0.75}
    >>> results == evaluate([2, 0, 1, 0, 0, 1], [0.9, 0.8, 0.1, 0.7, 0.2, 0.3],
    ...                     qid=["a", "a", "a", "b", "b", "b"],
    ...                     metrics=["mrr", "ndcg@2"], average=None)
    True
    """

    def __init__(self, query_ids, metric_results, query_weights=None, catalogue=None):
        self._query_ids = _read_only_copy(query_ids)
        self._metrics = tuple(metric_results)
        self._query_weights = None if query_weights is None else _read_only_copy(query_weights)
        self._results = dict(metric_results)
        self._catalogue = dict(catalogue or {})

    @property
    def query_ids(self):
        """Sorted unique query ids (read-only)."""
        return self._query_ids

    def with_query_ids(self, query_ids):
        """The same results under other ids, one per query in the same order (e.g. names for codes)."""
        return type(self)(query_ids, dict(self._results), self._query_weights, self._catalogue)

    @property
    def metrics(self):
        """The metric names, in the order requested."""
        return self._metrics

    @property
    def catalogue(self):
        """Catalogue-level values, ``{name: value}`` (a copy): a value of all the lists together."""
        return dict(self._catalogue)

    @property
    def query_weights(self):
        """The weight of each query in means (read-only), None for equal weights."""
        return self._query_weights

    # ------------------------------------------------------------- mapping
    def __getitem__(self, name):
        """Per-query values of the metric ``name`` (read-only, NaN where left out)."""
        try:
            return self._results[name].values
        except (KeyError, TypeError):  # TypeError: an unhashable key
            pointer = _ATTRIBUTE_FOR_KEY.get(name) if isinstance(name, str) else None
            hint = f" The {pointer[1]} are in results.{pointer[0]}." if pointer else ""
            if isinstance(name, str) and name in self._catalogue:
                hint = (
                    f" {name} is a value of the whole catalogue, not of each query: "
                    f"results.catalogue[{name!r}]."
                )
            raise KeyError(
                f"{name!r} is not among the metrics of these results: {list(self.metrics)}.{hint}"
            ) from None

    def __iter__(self):
        return iter(self.metrics)

    def __len__(self):
        return len(self.metrics)

    @property
    def n_queries(self):
        """Number of queries."""
        return self.query_ids.shape[0]

    def __eq__(self, other):
        """Whether both hold the same metrics with the same values, ids and weights.

        Values are compared exactly, NaN equal to NaN at the same place (a
        query left out of both); weights as :meth:`weights` gives them, so
        equal weights given or left out compare equal.
        """
        if not isinstance(other, QueryResults):
            return NotImplemented
        if set(self.metrics) != set(other.metrics) or self._catalogue.keys() != other._catalogue.keys():
            return False
        if not all(
            np.array_equal(value, other._catalogue[name], equal_nan=True)
            for name, value in self._catalogue.items()
        ):
            return False
        if not _same_ids(self.query_ids, other.query_ids):
            return False
        return all(
            np.array_equal(self[name], other[name], equal_nan=True)
            and np.array_equal(self.weights(name), other.weights(name))
            and np.array_equal(self.skipped(name), other.skipped(name))
            for name in self.metrics
        )

    __hash__ = None  # compared by value, as a dict: not hashable

    # ---------------------------------------------------- what was left out
    def skipped(self, name):
        """Queries without a relevant document that ``no_relevant="skip"`` left out of ``name``.

        Returns
        -------
        mask : ndarray of bool, shape (n_queries,)
        """
        return self._results[name].skipped.copy()

    def undefined(self, name):
        """Queries whose value of ``name`` is undefined, and why.

        Returns
        -------
        mask : ndarray of bool, shape (n_queries,)
        reason : str or None
            E.g. "a single document" for rank correlation.
        """
        result = self._results[name]
        return result.undefined.copy(), result.undefined_reason

    def weights(self, name):
        """The weight of each query in the mean of ``name``.

        The query weight (``sample_weight``, else 1) times the pooling weight
        of pooled metrics (item hit rate: the items recommended); 0 for a
        query left out.

        Returns
        -------
        weights : ndarray of shape (n_queries,)

        Raises
        ------
        ValueError
            When a query weight times its pooling weight overflows float64
            (the means are still exact: they scale the weights first).
        """
        result = self._results[name]
        weights = np.ones(self.n_queries)
        with np.errstate(over="ignore"):
            if self.query_weights is not None:
                weights = weights * self.query_weights
            if result.pool_weights is not None:
                weights = weights * result.pool_weights
        weights[np.isnan(result.values)] = 0.0
        if np.isinf(weights).any():
            raise ValueError(
                f"the weights of {name} (sample_weight times the items each query pools) "
                "overflow float64; divide sample_weight by a large number, which changes "
                "no mean."
            )
        return weights

    def _scaled_weights(self, name):
        """``(weights / 2**e, e)`` for :meth:`weights`, computed without overflow.

        The query weights are scaled before the pooling weights multiply
        them (see :func:`scaled_by_power_of_two`); a query left out weighs 0.
        """
        result = self._results[name]
        weights, exponent = np.ones(self.n_queries), 0
        if self.query_weights is not None:
            weights, exponent = scaled_by_power_of_two(self.query_weights)
        if result.pool_weights is not None:
            weights, more = scaled_by_power_of_two(weights * result.pool_weights)
            exponent += more
        weights = np.where(np.isnan(result.values), 0.0, weights)
        return weights, exponent

    def aggregate(self, name):
        """How :meth:`mean` combines the queries of ``name``: "mean", "sum" or "geometric"."""
        return self._results[name].aggregate

    # ---------------------------------------------------------------- means
    def mean(self, name=None):
        """The weighted mean over queries of one metric, or of each.

        Queries left out (NaN) do not count. A metric with no query left to
        average is NaN, with a warning. Each metric is averaged as its
        definition says: the (weighted) arithmetic mean; the sum for counts
        (``num_rel``, ``num_q``, ... as trec_eval's summary line sums them;
        a query of weight 2 counts twice); or the (weighted) geometric
        mean for ``gm_map`` and ``gm_bpref``, ``exp(mean(log(max(v, 1e-5))))``
        as trec_eval computes it.

        Parameters
        ----------
        name : str, default=None
            The metric; None for all of them, and the :attr:`catalogue`
            values after them.

        Returns
        -------
        mean : float, or dict of {name: float}

        Raises
        ------
        ValueError
            When the mean overflows float64 although every value is finite
            (DCG or CG of huge labels), as one query's value does.
        """
        if name is None:
            return {**{metric: self.mean(metric) for metric in self.metrics}, **self._catalogue}
        if isinstance(name, str) and name in self._catalogue:
            return self._catalogue[name]
        values = self[name]
        # Scaled by a power of two: exact, and neither huge nor subnormal
        # weights overflow or lose bits when added up or multiplied.
        weights, exponent = self._scaled_weights(name)
        valid = weights > 0
        if not valid.any():
            warn_caller(
                f"{name} is undefined: no query has a defined value with a positive "
                "weight; returning NaN.",
                undefined_metric_warning(),
            )
            return float("nan")
        aggregate = self._results[name].aggregate
        values, weights = values[valid], weights[valid]
        values = aggregation_terms(values, aggregate)
        with np.errstate(over="ignore", invalid="ignore"):
            if aggregate == "sum":
                mean = float(np.ldexp(np.sum(values * weights), exponent))
            elif self.query_weights is None and self._results[name].pool_weights is None:
                mean = float(np.mean(values))
            else:
                mean = float(np.average(values, weights=weights))
        mean = aggregated(mean, aggregate)
        if not np.isfinite(mean):
            # Every value is finite: only a sum overflowed, as one query's DCG can.
            raise ValueError(
                f"the mean of {name} overflows float64: the per-query values (up to "
                f"{np.max(np.abs(values)):g}) or the weights are too large to add up. "
                "Use smaller labels, gain='linear', ndcg (exact for any labels) or smaller "
                "sample_weight; average=None gives the per-query values."
            )
        return mean

    # -------------------------------------------------------------- output
    def to_frame(self, long=False):
        """The per-query values as a pandas DataFrame.

        Parameters
        ----------
        long : bool, default=False
            False: one row per query (indexed by query id, named ``qid``), one
            column per metric. True: one row per (query, metric) pair, columns
            ``qid``, ``metric`` and ``value``.

        Returns
        -------
        frame : pandas.DataFrame
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "QueryResults.to_frame needs pandas: pip install pandas (or use "
                "results[name] and results.query_ids, which are NumPy arrays)."
            ) from None
        if not long:
            return pd.DataFrame(
                {name: np.array(self[name]) for name in self.metrics},
                index=pd.Index(self.query_ids, name="qid"),
            )
        n_metrics = len(self.metrics)
        return pd.DataFrame(
            {
                "qid": np.repeat(self.query_ids, n_metrics),
                "metric": np.tile(np.array(self.metrics, dtype=object), self.n_queries),
                "value": np.column_stack([self[name] for name in self.metrics]).ravel(),
            }
        )

    def __repr__(self):
        import warnings

        def shown_mean(name):
            try:
                return f"{self.mean(name):.4g}"
            except ValueError:  # the mean overflows
                return "overflows"

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", undefined_metric_warning())
            parts = [f"{name} mean {shown_mean(name)}" for name in self.metrics]
        left_out = {
            name: int((result.skipped | result.undefined).sum())
            for name, result in self._results.items()
        }
        parts += [f"{_queries(count)} left out of {name}" for name, count in left_out.items() if count]
        parts += [f"{name} {value:.4g} (catalogue)" for name, value in self._catalogue.items()]
        return f"QueryResults({_queries(self.n_queries)}: {', '.join(parts)})"

    # ---------------------------------------------------------- combining
    @classmethod
    def concat(cls, results):
        """Combine the results of disjoint sets of queries into one.

        Every mean is a weighted mean of per-query values, so the combined
        results give exactly the values, weights, left-out queries and means
        of one evaluation of all the queries together: this is how results
        of partitions of a large input (files, workers) are put together.

        Parameters
        ----------
        results : iterable of QueryResults
            Results for the same metrics (same names, same order), on
            disjoint query ids of one kind (all strings or all numbers).

        Returns
        -------
        combined : QueryResults
            The queries of all ``results``, in sorted query-id order, with
            their weights and what was left out of each metric, and why.

        Raises
        ------
        ValueError
            If ``results`` is empty, their metrics differ, their query ids
            are of different kinds, or a query id occurs in two of them.

        See Also
        --------
        sklearn_rank_metrics.evaluate : Per-query results with ``average=None``.

        References
        ----------
        .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to
           Information Retrieval", Cambridge University Press, 2008, ch. 8
           (mean of per-query values: each query counts once, whichever
           partition holds it).

        Examples
        --------
        >>> from sklearn_rank_metrics import QueryResults, evaluate
        >>> first = evaluate([2, 0, 1], [0.9, 0.8, 0.1], qid=["a"] * 3,
        ...                  metrics=["mrr"], average=None)
        >>> second = evaluate([0, 0, 1], [0.7, 0.2, 0.3], qid=["b"] * 3,
        ...                   metrics=["mrr"], average=None)
        >>> both = QueryResults.concat([second, first])
        >>> both.query_ids, both["mrr"]
        (array(['a', 'b'], dtype='<U1'), array([1. , 0.5]))
        >>> both.mean()
        {'mrr': 0.75}
        """
        results = list(results)
        if not results:
            raise ValueError("QueryResults.concat needs at least one QueryResults; got none.")
        with_catalogue = sorted({name for r in results for name in r._catalogue})
        if with_catalogue:
            raise ValueError(
                f"QueryResults.concat: {', '.join(with_catalogue)} are values of a whole set of "
                "lists (the catalogue's), which the parts' values do not combine into; "
                "evaluate all the lists together, or drop those measures from the parts."
            )
        metrics = results[0].metrics
        for other in results[1:]:
            if other.metrics != metrics:
                raise ValueError(
                    f"QueryResults.concat: all results must have the same metrics in the same "
                    f"order; got {list(metrics)} and {list(other.metrics)}. Evaluate every "
                    "part with the same metrics."
                )
        kinds = {"U" if r.query_ids.dtype.kind in "US" else r.query_ids.dtype.kind
                 for r in results if r.n_queries}  # fmt: skip
        if len(kinds) > 1 and not kinds <= {"i", "u"}:
            raise ValueError(
                "QueryResults.concat: the query ids are of different kinds "
                f"({', '.join(str(r.query_ids.dtype) for r in results)}); give every part "
                "query ids of one kind (all strings or all integers)."
            )
        query_ids = np.concatenate([r.query_ids for r in results])
        order = np.argsort(query_ids, kind="stable")
        query_ids = query_ids[order]
        repeated = query_ids[1:][query_ids[1:] == query_ids[:-1]]
        if repeated.size:
            shown = ", ".join(repr(q) for q in np.unique(repeated)[:5].tolist())
            raise ValueError(
                f"QueryResults.concat: {np.unique(repeated).size} query id(s) occur in more "
                f"than one of the results (e.g. {shown}); the results must be of disjoint "
                "queries - evaluate all the rows of a query together."
            )

        def joined(arrays, fill):
            if all(array is None for array in arrays):
                return None
            return np.concatenate(
                [np.full(r.n_queries, fill) if a is None else a for r, a in zip(results, arrays)]
            )[order]

        query_weights = joined([r.query_weights for r in results], 1.0)
        metric_results = {}
        for name in metrics:
            parts = [r._results[name] for r in results]
            values = np.concatenate([p.values for p in parts])[order]
            values.flags.writeable = False
            reasons = [p.undefined_reason for p in parts if p.undefined_reason is not None]
            metric_results[name] = MetricResult(
                values,
                np.concatenate([p.skipped for p in parts])[order],
                np.concatenate([p.undefined for p in parts])[order],
                reasons[0] if reasons else None,
                joined([p.pool_weights for p in parts], 1.0),
                parts[0].aggregate,
            )
        return cls(query_ids, metric_results, query_weights)
