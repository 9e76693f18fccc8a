"""``RankingCurveDisplay``: a ranking metric at every cutoff k = 1 .. k_max, drawn as a curve."""

import inspect

import numpy as np

from .._engine._options import Options
from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine.prepare._prepare import Inputs
from .._engine.run._curve import curve_results
from .._engine.spec import CurveRequests
from ..metrics._query_results import query_results
from ..model_selection._response import ranking_scores
from ..trec._evaluate import RunOptions, curve_of_joined, evaluate_run, join_run
from ._list_curve import from_top_k
from ._curve_values import (
    CURVE_METRICS,
    _check_curve,
    _check_metric,
    _curve_results,
    _normal_band,
    _pyplot,
    _warn_if_falling_beyond_the_end,
)

__all__ = ["CURVE_METRICS", "RankingCurveDisplay"]

class RankingCurveDisplay:
    r"""A ranking metric at every cutoff: the metric@k curve of a model.

    The curve shows how a metric grows (recall, NDCG) or falls (precision)
    as more of each ranked list is read: ``values_[i]`` is the mean over
    queries of the metric at cutoff ``k_[i]``, exactly what the metric's
    function gives there (``ndcg_score(y_true, y_score, qid=qid, k=k)``).
    Create it with :meth:`from_predictions`, :meth:`from_estimator` or
    :meth:`from_run` (a TREC run and its qrels), which compute every cutoff
    in one pass and draw; call any of them again with
    ``ax=display.ax_`` to add another model to the same axes. All
    parameters are stored as attributes.

    .. math:: \mathrm{curve}(k) = \frac{1}{|Q|} \sum_{q \in Q} M_q@k,
              \qquad k = 1, \dots, k_{\max}

    The curve stops at the longest list (``k_max`` larger than it draws
    ``k = 1 ..`` that list's length), so a huge ``k_max`` costs what the
    lists cost: beyond it no metric changes but precision and f1, which
    divide by k and keep falling there; for these a ``k_max`` beyond the
    end warns, and the metric's function gives any cutoff.

    Parameters
    ----------
    k : array-like of shape (n_cutoffs,)
        The cutoffs, ``1 .. k_max`` (or ``1 ..`` the longest list, where shorter).
    values : array-like of shape (n_cutoffs,)
        The metric's mean over queries at each cutoff.
    metric : str
        The metric's name (``"ndcg"``), for the axis label.
    name : str, default=None
        The model's name, for the legend; None shows no legend entry.
    lower, upper : array-like of shape (n_cutoffs,), default=None
        The confidence band at each cutoff; None draws no band.
    confidence_level : float, default=None
        The band's confidence level (e.g. 0.95).

    Attributes
    ----------
    k_ : ndarray of shape (n_cutoffs,)
        The cutoffs.
    values_ : ndarray of shape (n_cutoffs,)
        The metric at each cutoff.
    lower_, upper_ : ndarray of shape (n_cutoffs,) or None
        The confidence band, None without one.
    line_ : matplotlib Line2D
        The curve.
    band_ : matplotlib PolyCollection or None
        The band (``Axes.fill_between``), None when none is drawn.
    ax_ : matplotlib Axes
        The axes of the curve.
    figure_ : matplotlib Figure
        The figure of the axes.

    See Also
    --------
    sklearn_rank_metrics.ndcg_score : The metric at one cutoff (and the others of
        :data:`CURVE_METRICS`).
    sklearn_rank_metrics.comparison.compare : Whether one model's metric is
        higher than another's, query by query.
    sklearn.metrics.PrecisionRecallDisplay : The display this one follows.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008 (the expected value over tied orderings at every cutoff).
    .. [2] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to
       Information Retrieval", Cambridge University Press, 2008, ch. 8
       (evaluation of ranked retrieval at cutoffs).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_rank_metrics import RankingCurveDisplay
    >>> display = RankingCurveDisplay(k=[1, 2, 3], values=[0.5, 0.6, 0.7], metric="ndcg")
    >>> display.plot(name="model").line_.get_ydata()
    array([0.5, 0.6, 0.7])
    """

    def __init__(
        self, *, k, values, metric, name=None, lower=None, upper=None, confidence_level=None
    ):
        self.k_ = np.asarray(k)
        self.values_ = np.asarray(values, dtype=np.float64)
        self.metric = metric
        self.name = name
        self.lower_ = None if lower is None else np.asarray(lower, dtype=np.float64)
        self.upper_ = None if upper is None else np.asarray(upper, dtype=np.float64)
        self.confidence_level = confidence_level

    def plot(self, ax=None, *, name=None, band_kwargs=None, **kwargs):
        """Draw the curve (and the band, if the display has one).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None draws on a new figure. An axes that already
            holds curves gets one more, and the legend lists them all.
        name : str, default=None
            The legend entry; None uses the display's ``name``.
        band_kwargs : dict, default=None
            Keyword arguments of ``Axes.fill_between`` for the band (its
            default: the line's color, ``alpha=0.2``).
        **kwargs
            Keyword arguments of ``Axes.plot`` for the line.

        Returns
        -------
        display : RankingCurveDisplay
            This display, with ``line_``, ``band_``, ``ax_`` and ``figure_``.

        Raises
        ------
        ImportError
            Without matplotlib: ``pip install 'sklearn-rank-metrics[plot]'``.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn_rank_metrics import RankingCurveDisplay
        >>> display = RankingCurveDisplay(k=[1, 2], values=[0.4, 0.5], metric="recall",
        ...                               lower=[0.3, 0.4], upper=[0.5, 0.6])
        >>> display.plot(name="ridge").ax_.get_ylabel()
        'recall@k'
        """
        plt = _pyplot("RankingCurveDisplay.plot")
        from matplotlib.ticker import MaxNLocator

        if ax is None:
            _, ax = plt.subplots()
        name = self.name if name is None else name
        line_kwargs = {"marker": "." if self.k_.shape[0] <= 30 else None}
        if name is not None:
            line_kwargs["label"] = name
        line_kwargs.update(kwargs)
        (self.line_,) = ax.plot(self.k_, self.values_, **line_kwargs)
        self.band_ = None
        if self.lower_ is not None and self.upper_ is not None:
            fill_kwargs = {"color": self.line_.get_color(), "alpha": 0.2, "linewidth": 0}
            fill_kwargs.update(band_kwargs or {})
            self.band_ = ax.fill_between(self.k_, self.lower_, self.upper_, **fill_kwargs)
        ax.set_xlabel("k (cutoff)")
        ax.set_ylabel(f"{self.metric}@k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if ax.get_legend_handles_labels()[1]:
            ax.legend(loc="best")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    @document_parameters(
        extra={
            "gain": "It applies to ndcg, dcg and cg.",
            "relevance_level": "It applies to the metrics of binary relevance.",
        }
    )
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        qid=None,
        metric="ndcg",
        k_max=20,
        gain="linear",
        relevance_level=1,
        n_relevant=None,
        ties="average",
        no_relevant="zero",
        sample_weight=None,
        confidence_band=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        r"""Compute a metric at every cutoff ``k = 1 .. k_max`` from scores, and draw it.

        The input is sorted once; every cutoff's value then comes from
        running sums along each query's ranking (per position: its gain,
        hit, precision or first-relevant probability, the expected value
        over tied orderings under ``ties="average"``), so ``k_max`` cutoffs
        cost about what one metric call costs. ``values_[i]`` equals the
        metric's function at ``k = k_[i]`` with the same options.

        .. math:: \mathrm{values\_}[k - 1] = \frac{1}{|Q|} \sum_{q \in Q} M_q@k

        Parameters
        ----------
        metric : str, default="ndcg"
            One of :data:`CURVE_METRICS` - ndcg, dcg, cg, mrr, map,
            precision, recall, f1, recall_cap, hit_rate, hit_rate_item,
            fallout (lower is better) - or an alias (ap, rr, p, hr, ...).
            Metrics without a cutoff raise a ValueError.
        k_max : int, default=20
            The largest cutoff: the curve has ``k = 1 .. k_max``, cut at the
            longest list (or at the largest ``n_relevant``, where larger),
            so a huge ``k_max`` costs nothing more. Beyond that end every
            metric keeps its last value but precision and f1 (``hits / k``,
            ``2 hits / (k + R)``), which go on falling: their curves stop
            there too, with a warning (see Warns).
        no_relevant : {"zero", "skip", "one"}, default="zero"
            Value of a query with no relevant document, as in the metric
            functions (one warning for the curve when queries are skipped).
        sample_weight : array-like, default=None
            Weights of the queries in the means, as in the metric functions.
        name : str, default=None
            The model's name in the legend.
        ax : matplotlib Axes, default=None
            Where to draw; ``ax=display.ax_`` adds this curve to another's.
        **kwargs
            Keyword arguments of ``Axes.plot`` for the line.

        Returns
        -------
        display : RankingCurveDisplay

        Warns
        -----
        UserWarning
            With ``metric`` precision or f1 and ``k_max`` beyond the
            longest list: the curve stops at that list's end ``L`` (where
            the value still falls as ``hits / k``); the metric's function
            gives any cutoff beyond it (``precision_at_k_score(y_true,
            y_score, qid=qid, k=k_max)``). No warning for ``k_max <= L``.
        UndefinedMetricWarning
            Once for the curve, where queries are left out (as the metric's
            function warns).

        See Also
        --------
        from_estimator : The same from a fitted model's scores of X.
        sklearn_rank_metrics.evaluate : Several metrics at chosen cutoffs.

        References
        ----------
        .. [1] F. McSherry and M. Najork, "Computing Information Retrieval
           Performance Measures Efficiently in the Presence of Tied Scores",
           ECIR 2008.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn_rank_metrics import RankingCurveDisplay, ndcg_score
        >>> y_true = [0, 3, 1, 1, 0, 2, 0]
        >>> y_score = [0.2, 0.9, 0.4, 0.1, 0.8, 0.3, 0.5]
        >>> qid = ["a", "a", "a", "b", "b", "b", "b"]
        >>> display = RankingCurveDisplay.from_predictions(
        ...     y_true, y_score, qid=qid, k_max=3, name="model")
        >>> display.k_
        array([1, 2, 3])
        >>> display.values_
        array([0.5       , 0.5       , 0.69004...])
        >>> float(ndcg_score(y_true, y_score, qid=qid, k=3))
        0.69004...
        >>> other = RankingCurveDisplay.from_predictions(
        ...     y_true, [0.1, 0.2, 0.3, 0.3, 0.2, 0.1, 0.0], qid=qid, k_max=3, name="other",
        ...     ax=display.ax_)
        >>> [text.get_text() for text in other.ax_.get_legend().get_texts()]
        ['model', 'other']
        """
        owner = f"{cls.__name__}.from_predictions"
        definition = _check_metric(metric, owner)
        k_max, level = _check_curve(k_max, confidence_band, owner)
        curve = CurveRequests(definition, k_max)
        options = Options.checked(
            owner, gain=gain, relevance_level=relevance_level, n_relevant=n_relevant,
            ties=ties, no_relevant=no_relevant,
        )  # fmt: skip
        inputs = Inputs(y_true, y_score, qid, sample_weight)
        per_cutoff = map(query_results, curve_results(curve, inputs, options))
        example = f"{definition.function}(y_true, y_score, qid=qid, k={k_max})"
        return cls._from_curve(curve, per_cutoff, level, owner, name, ax, kwargs, example)

    @classmethod
    @document_parameters()
    def from_run(
        cls,
        qrels,
        run,
        *,
        metric="ndcg",
        k_max=20,
        ties=None,
        relevance_level=1,
        missing_queries="ignore",
        max_docs=None,
        judged_only=False,
        trec_eval_version="10",
        confidence_band=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        r"""Compute a metric at every cutoff of a TREC run against its qrels, and draw it.

        Each cutoff is what :func:`~sklearn_rank_metrics.trec.evaluate_run`
        gives with the same options, from one pass: ``values_[k - 1]``
        equals ``evaluate_run(qrels, run, metrics=[f"{metric}@{k}"])`` (to
        the last bits of a double: the curve adds each query's terms as
        running sums).
        Judgments follow trec_eval: a judged document the run did not
        retrieve counts in R and in the ideal DCG, a retrieved document
        absent from the qrels is not relevant, the run's queries without
        judgments are left out.

        .. math:: \mathrm{values\_}[k - 1] = \frac{1}{|Q|} \sum_{q \in Q} M_q@k

        Parameters
        ----------
        qrels : str, path-like, pandas.DataFrame or dict
            The relevance judgments, as :func:`~sklearn_rank_metrics.trec.evaluate_run`
            takes them (a qrels file, columns ``query_id``, ``doc_id``,
            ``relevance``, or a dict ``{query_id: {doc_id: relevance}}``).
        run : str, path-like, pandas.DataFrame or dict
            The ranking, as ``evaluate_run`` takes it (a run file, columns
            ``query_id``, ``doc_id``, ``score``, or a dict ``{query_id:
            {doc_id: score}}``).
        metric : str, default="ndcg"
            One of :data:`CURVE_METRICS` (see :meth:`from_predictions`).
        k_max : int, default=20
            The largest cutoff: the curve has ``k = 1 .. k_max``, cut at the
            longest ranked list or the most documents a query has judged,
            whichever is larger, beyond which no value changes but
            precision's and f1's, which go on falling: their curves stop
            there too, with a warning (see Warns).
        ties : {"average", "trec_eval", "first", "optimistic", "pessimistic"}, default=None
            Documents of equal score, as in ``evaluate_run``; None takes
            ``evaluate_run``'s default.
        relevance_level, missing_queries, max_docs, judged_only, trec_eval_version
            As in ``evaluate_run``, with its defaults.
        name : str, default=None
            The legend entry; None uses the run's name (its last line's
            ``run_name``), no entry where the run has none.
        ax : matplotlib Axes, default=None
            Where to draw; ``ax=display.ax_`` adds this curve to another's.
        **kwargs
            Keyword arguments of ``Axes.plot`` for the line.

        Returns
        -------
        display : RankingCurveDisplay

        Warns
        -----
        UserWarning
            With ``metric`` precision or f1 and ``k_max`` beyond the curve's
            end ``L`` (the longest ranked or judged list): the curve stops
            at ``L``; ``evaluate_run(qrels, run, metrics=["precision@1000"])``
            gives any cutoff beyond it. No warning for ``k_max <= L``.

        See Also
        --------
        sklearn_rank_metrics.trec.evaluate_run : The measures at chosen cutoffs.
        from_predictions : The same from labels and scores.

        References
        ----------
        .. [1] trec_eval, the TREC evaluation program:
           https://github.com/usnistgov/trec_eval

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn_rank_metrics import RankingCurveDisplay
        >>> from sklearn_rank_metrics.datasets import load_trec_example
        >>> from sklearn_rank_metrics.trec import evaluate_run
        >>> qrels, run = load_trec_example()
        >>> display = RankingCurveDisplay.from_run(
        ...     qrels, run, metric="ndcg", k_max=10, ties="trec_eval")
        >>> display.line_.get_label(), display.values_.round(4)
        ('linear', array([0.8333, 0.785 , 0.7955, 0.7896, 0.7671, 0.7652, 0.7623, 0.7749,
               0.7863, 0.7909]))
        >>> evaluate_run(qrels, run, metrics=["ndcg@10"], ties="trec_eval")
        {'ndcg@10': 0.7908591892436426}
        """
        owner = f"{cls.__name__}.from_run"
        definition = _check_metric(metric, owner)
        k_max, level = _check_curve(k_max, confidence_band, owner)
        curve = CurveRequests(definition, k_max)
        if ties is None:
            ties = inspect.signature(evaluate_run).parameters["ties"].default
        options = RunOptions.checked(
            owner, ties=ties, relevance_level=relevance_level, missing_queries=missing_queries,
            max_docs=max_docs, judged_only=judged_only, trec_eval_version=trec_eval_version,
        )  # fmt: skip
        joined = join_run(qrels, run, max_docs=max_docs, trec_eval_version=trec_eval_version)
        if name is None and joined.run_name:
            name = joined.run_name

        per_cutoff = curve_of_joined(joined, curve, options, owner)
        example = f"evaluate_run(qrels, run, metrics=['{definition.name}@{k_max}'])"
        return cls._from_curve(curve, per_cutoff, level, owner, name, ax, kwargs, example)

    from_top_k = classmethod(from_top_k)

    @classmethod
    def _from_curve(cls, curve, per_cutoff, level, owner, name, ax, plot_kwargs, example, first_k=1):
        """The display of ``curve`` (its results ``per_cutoff``, see :func:`_curve_results`), drawn.

        ``example``: the call that gives the metric at one cutoff ``k_max``,
        for the warning of a precision or f1 curve that stops before it;
        ``first_k``: the first cutoff (ILD starts at 2, a pair).
        """
        definition = curve.definition
        means, spreads = _curve_results(definition, per_cutoff, band=level is not None)
        end = means.shape[0]
        _warn_if_falling_beyond_the_end(definition.name, end, curve.k_max, owner, example)
        lower = upper = None
        if level is not None:
            lower, upper = _normal_band(means, spreads, definition.name, level, owner)
        display = cls(
            k=np.arange(first_k, first_k + means.shape[0]),
            values=means,
            metric=definition.name,
            name=name,
            lower=lower,
            upper=upper,
            confidence_level=level,
        )
        return display.plot(ax=ax, **plot_kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        qid=None,
        metric="ndcg",
        k_max=20,
        response_method="auto",
        name=None,
        ax=None,
        **kwargs,
    ):
        r"""Score X with a fitted model, then compute and draw its metric@k curve.

        The model ranks by the package's rule (see
        :func:`~sklearn_rank_metrics.make_rank_scorer`): ``predict`` for
        rankers and regressors, ``decision_function`` or the probability of
        the positive class for binary classifiers, the expected grade for
        classifiers of graded labels.

        .. math:: \mathrm{values\_}[k - 1] = \frac{1}{|Q|} \sum_{q \in Q} M_q@k

        Parameters
        ----------
        estimator : fitted estimator
            A ranker, regressor or classifier, or a Pipeline ending in one.
        X : {array-like, sparse matrix} of shape (n_documents, n_features)
            The documents to score.
        y : array-like of shape (n_documents,)
            Their relevance labels.
        qid : array-like of shape (n_documents,), default=None
            Query id of every document; None means all form one query.
        metric : str, default="ndcg"
            One of :data:`CURVE_METRICS` (see :meth:`from_predictions`).
        k_max : int, default=20
            The largest cutoff: the curve has ``k = 1 .. k_max``, cut at the
            longest list, beyond which the metric keeps its value
            (precision and f1 keep falling: they warn, see
            :meth:`from_predictions`).
        response_method : str, default="auto"
            Which method ranks: ``"predict"``, ``"decision_function"``,
            ``"predict_proba"``, or ``"auto"``, the rule above.
        name : str, default=None
            The legend entry; None uses the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; ``ax=display.ax_`` adds this curve to another's.
        **kwargs
            The other keyword arguments of :meth:`from_predictions`
            (``gain``, ``relevance_level``, ``ties``, ``confidence_band``,
            ...) and of ``Axes.plot``.

        Returns
        -------
        display : RankingCurveDisplay

        See Also
        --------
        from_predictions : The same from scores.

        References
        ----------
        .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based
           evaluation of IR techniques", ACM Transactions on Information
           Systems 20(4), 2002.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import Ridge
        >>> from sklearn_rank_metrics import RankingCurveDisplay
        >>> from sklearn_rank_metrics.datasets import make_ranking
        >>> X, y, qid = make_ranking(n_queries=20, random_state=0)
        >>> model = Ridge().fit(X, y)
        >>> display = RankingCurveDisplay.from_estimator(model, X, y, qid=qid, k_max=10)
        >>> display.line_.get_label(), display.values_.shape
        ('Ridge', (10,))
        """
        check_parameters(f"{cls.__name__}.from_estimator", response_method=response_method)
        y_score = ranking_scores(estimator, X, response_method)
        name = type(estimator).__name__ if name is None else name
        return cls.from_predictions(
            y, y_score, qid=qid, metric=metric, k_max=k_max, name=name, ax=ax, **kwargs
        )
