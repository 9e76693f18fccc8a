"""``ComparisonResults``: the table of a comparison, as text, pandas, Markdown, LaTeX or a chart."""

import numpy as np

from .._engine.spec import parse_name, resolve_request
from .._engine.spec._list_measures import list_measure_name

COLUMNS = (
    "model", "metric", "mean", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high",
    "effect_size", "p_value", "p_adjusted", "reject", "wins", "ties", "losses", "n_queries",
)  # fmt: skip

_TEST_NAMES = {
    "permutation": "paired randomization (sign-flip) test",
    "t": "paired t-test",
    "bootstrap": "paired studentized bootstrap test",
    "wilcoxon": "Wilcoxon signed-rank test",
}
_CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "fdr_bh": "Benjamini-Hochberg (FDR)",
    None: "no",
}


_TIE_TOLERANCE = 1e-12  # per-query differences this small are ties (rounding of equal values)


def outcomes(differences, better=1):
    """Wins, ties and losses of each column of per-query differences (ties within 1e-12).

    ``better``: 1 where a higher value is better, -1 where a lower one is
    (fallout), per column or for all: a win is a better query.
    """
    tie = np.abs(differences) <= _TIE_TOLERANCE
    oriented = differences * better
    return (oriented > 0) & ~tie, tie, (oriented < 0) & ~tie


def better_sign(metric):
    """1 where a higher value of the measure named ``metric`` is better, -1 where lower.

    A name no syntax reads (results made by hand) counts higher as better.
    """
    listed = list_measure_name(metric)
    if listed is not None:
        return 1 if listed[0].higher_is_better else -1
    try:
        definition = resolve_request(parse_name(metric)).definition
    except (TypeError, ValueError):
        return 1
    return 1 if definition.higher_is_better else -1


def _number(value, digits=4, sign=False):
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _p_value(value):
    if np.isnan(value):
        return ""
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def _interval(low, high, sign=False):
    if np.isnan(low) and np.isnan(high):
        return ""
    return f"[{_number(low, sign=sign)}, {_number(high, sign=sign)}]"


class ComparisonResults:
    """The comparison of ranking models over the same queries, metric by metric.

    Returned by :func:`compare` and :func:`compare_results`. One row per
    model and metric (and, with ``pairs="all"``, one per pair of models and
    metric): the model's mean and its confidence interval, and for a model
    compared to a baseline the mean difference with its interval, the
    standardized effect size, the p-value of the paired test, the p-value
    adjusted over the family of the metric, whether the null hypothesis is
    rejected at ``alpha``, and the queries the model wins, ties and loses.

    Printing it shows the table; :meth:`to_frame` returns it as a tidy
    pandas DataFrame, :meth:`to_markdown` and :meth:`to_latex` as text for a
    report or a paper, :meth:`plot_differences` draws the per-query
    differences.

    Parameters
    ----------
    models, baseline, pairs, metrics, columns
        The attributes of the same names.
    per_query : dict
        The per-query values and differences behind the table, read by
        :meth:`per_query`, :meth:`differences` and :meth:`plot_differences`.
    settings : dict
        The options of the comparison: ``test``, ``correction``, ``alpha``,
        ``confidence_level``, ``n_resamples`` (the attributes of the same
        names) and whether the p-values are exact (``exact``). Results come from :func:`compare` and
        :func:`compare_results`, not from this constructor.

    Attributes
    ----------
    models : tuple of str
        The models, in the order given.
    baseline : str or None
        The model the others are compared to; None with ``pairs="all"``.
    pairs : list of (str, str)
        Each comparison as ``(model, baseline)``; its difference is
        ``model - baseline``.
    metrics : tuple of str
    test : str
        The paired test of the p-values.
    correction : str or None
        The adjustment of ``p_adjusted``: "holm", "bonferroni", "fdr_bh",
        None, or "tukey_hsd" (``pairs="all"``).
    alpha, confidence_level : float
    n_resamples : int
    columns : dict of str to ndarray
        The table, column by column (the columns of :meth:`to_frame`); in
        the integer columns ``reject``, ``wins``, ``ties`` and ``losses``,
        -1 marks a row without a comparison (the baseline's).

    See Also
    --------
    compare : Evaluate several models' scores and compare them.
    compare_results : Compare per-query results already computed.

    References
    ----------
    .. [1] T. Sakai, "Statistical Reform in Information Retrieval?", SIGIR
       Forum 48(1), 2014 (report effect sizes and intervals with p-values).

    Examples
    --------
    >>> from sklearn_rank_metrics.comparison import compare
    >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
    >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}  # b right on 15 queries
    >>> result = compare(y_true, scores, qid=qid, metrics=["mrr"], random_state=0)
    >>> result.columns["diff"]
    array([ nan, 0.25])
    >>> result.columns["wins"], result.columns["ties"], result.columns["losses"]
    (array([-1, 15]), array([-1, 15]), array([-1,  0]))
    >>> bool(result.columns["reject"][1])
    True
    """

    def __init__(self, *, models, baseline, pairs, metrics, columns, per_query, settings):
        self.models = tuple(models)
        self.baseline = baseline
        self.pairs = list(pairs)
        self.metrics = tuple(metrics)
        self.columns = columns
        self._per_query = per_query  # metric -> (query_ids, values of shape (n, n_models))
        self.test = settings["test"]
        self.correction = settings["correction"]
        self.alpha = settings["alpha"]
        self.confidence_level = settings["confidence_level"]
        self.n_resamples = settings["n_resamples"]
        self._exact = settings["exact"]

    # ------------------------------------------------------------- values
    def per_query(self, metric):
        """The per-query values of every model on the queries compared for ``metric``.

        Parameters
        ----------
        metric : str

        Returns
        -------
        query_ids : ndarray of shape (n_queries,)
        values : ndarray of shape (n_queries, n_models)
            Column ``j`` is the model ``models[j]``.

        Examples
        --------
        >>> from sklearn_rank_metrics.comparison import compare
        >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
        >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}
        >>> query_ids, values = compare(y_true, scores, qid=qid, metrics=["mrr"]).per_query("mrr")
        >>> values[:2]
        array([[0.5, 1. ],
               [0.5, 1. ]])
        """
        try:
            query_ids, values = self._per_query[metric]
        except KeyError:
            raise KeyError(f"{metric!r} is not among the compared metrics {list(self.metrics)}.") from None
        return query_ids.copy(), values.copy()

    def differences(self, metric, model=None, baseline=None):
        """Per-query differences ``model - baseline`` of ``metric``, on the queries compared.

        Parameters
        ----------
        metric : str
        model : str, default=None
            None: the model of the first comparison.
        baseline : str, default=None
            None: the baseline of the comparison (with ``pairs="all"``, the
            first model other than ``model``).

        Returns
        -------
        query_ids : ndarray of shape (n_queries,)
        differences : ndarray of shape (n_queries,)

        Examples
        --------
        >>> from sklearn_rank_metrics.comparison import compare
        >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
        >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}
        >>> query_ids, differences = compare(y_true, scores, qid=qid, metrics=["mrr"]).differences("mrr")
        >>> differences[13:17]
        array([0.5, 0.5, 0. , 0. ])
        """
        model, baseline = self._pair(model, baseline)
        query_ids, values = self.per_query(metric)
        return query_ids, values[:, self.models.index(model)] - values[:, self.models.index(baseline)]

    def _pair(self, model, baseline):
        model = self.pairs[0][0] if model is None else model
        if model not in self.models:
            raise ValueError(f"model must be one of {list(self.models)}; got {model!r}.")
        if baseline is None:
            baseline = self.baseline if self.baseline is not None else self.models[0]
            if baseline == model:
                baseline = self.models[1]
        elif baseline not in self.models:
            raise ValueError(f"baseline must be one of {list(self.models)}; got {baseline!r}.")
        if baseline == model:
            raise ValueError(f"model and baseline are both {model!r}: name two different models.")
        return model, baseline

    # ------------------------------------------------------------- output
    def to_frame(self):
        """The table as a tidy pandas DataFrame, one row per model (or pair) and metric.

        Columns ``model, metric, mean, ci_low, ci_high, diff, diff_ci_low,
        diff_ci_high, effect_size, p_value, p_adjusted, reject, wins, ties,
        losses, n_queries``, and ``baseline`` after ``model`` with
        ``pairs="all"``. The rows of the baseline (and, with
        ``pairs="all"``, of each model alone) have NaN in the difference
        columns, ``reject`` and the counts of wins, ties and losses
        (pandas' nullable types).

        Returns
        -------
        frame : pandas.DataFrame

        Examples
        --------
        >>> from sklearn_rank_metrics.comparison import compare
        >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
        >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}
        >>> result = compare(y_true, scores, qid=qid, metrics=["mrr"], random_state=0)
        >>> result.to_frame()[["model", "metric", "mean", "diff", "wins", "losses"]]
          model metric  mean  diff  wins  losses
        0     a    mrr  0.50   NaN  <NA>    <NA>
        1     b    mrr  0.75  0.25    15       0
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "ComparisonResults.to_frame needs pandas: pip install pandas (or read the "
                "NumPy arrays of result.columns)."
            ) from None
        data = {}
        for name, column in self.columns.items():
            if name in ("wins", "ties", "losses", "n_queries"):
                data[name] = pd.array(np.where(column < 0, None, column).tolist(), dtype="Int64")
            elif name == "reject":
                data[name] = pd.array(
                    [None if value < 0 else bool(value) for value in column], dtype="boolean"
                )
            else:
                data[name] = column
        return pd.DataFrame(data)

    def _text_rows(self):
        """Header and rows of the table as strings, shared by print, Markdown and LaTeX."""
        percent = f"{self.confidence_level * 100:g}% CI"
        all_pairs = "baseline" in self.columns
        header = ["metric", "model", *(["vs"] if all_pairs else []), "mean", percent, "diff",
                  percent, "effect size", "p", "p adj.", "W/T/L", "n"]  # fmt: skip
        c = self.columns
        rows = []
        for i in range(len(c["model"])):
            compared = c["wins"][i] >= 0
            rows.append([
                c["metric"][i], c["model"][i], *([c["baseline"][i] or ""] if all_pairs else []),
                _number(c["mean"][i]), _interval(c["ci_low"][i], c["ci_high"][i]),
                _number(c["diff"][i], sign=True),
                _interval(c["diff_ci_low"][i], c["diff_ci_high"][i], sign=True),
                _number(c["effect_size"][i], digits=2, sign=True),
                _p_value(c["p_value"][i]),
                _p_value(c["p_adjusted"][i]) + ("*" if compared and c["reject"][i] else ""),
                f"{c['wins'][i]}/{c['ties'][i]}/{c['losses'][i]}" if compared else "",
                str(c["n_queries"][i]),
            ])  # fmt: skip
        return header, rows

    def _caption(self):
        test = _TEST_NAMES[self.test]
        if self.test == "permutation":
            flips = "all sign flips, exact" if all(self._exact) else f"{self.n_resamples} random sign flips"
            test = f"{test} ({flips})"
        elif self.test == "bootstrap":
            test = f"{test} ({self.n_resamples} resamples)"
        if self.correction == "tukey_hsd":
            test = f"{test}; randomized Tukey HSD over all pairs ({self.n_resamples} shuffles)"
        else:
            test = f"{test}; {_CORRECTION_NAMES[self.correction]} correction per metric"
        against = (
            f"against the baseline {self.baseline!r}" if self.baseline is not None else "all pairs"
        )
        return (
            f"Paired comparison over queries, {against}: {test}; * rejected at alpha="
            f"{self.alpha:g}. Intervals: BCa bootstrap over queries ({self.n_resamples} "
            "resamples). Effect size: mean difference / standard deviation of the "
            "differences (d_z)."
        )

    def __str__(self):
        header, rows = self._text_rows()
        widths = [max(len(row[j]) for row in [header, *rows]) for j in range(len(header))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                 for row in [header, *rows]]  # fmt: skip
        return "\n".join([self._caption(), *lines])

    __repr__ = __str__

    def to_markdown(self):
        """The table in Markdown (a pipe table), under its caption.

        Returns
        -------
        text : str

        Examples
        --------
        >>> from sklearn_rank_metrics.comparison import compare
        >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
        >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}
        >>> result = compare(y_true, scores, qid=qid, metrics=["mrr"], random_state=0)
        >>> print(result.to_markdown().splitlines()[2])
        | metric | model | mean | 95% CI | diff | 95% CI | effect size | p | p adj. | W/T/L | n |
        """
        header, rows = self._text_rows()
        lines = [f"| {' | '.join(row)} |" for row in [header, ["---"] * len(header), *rows]]
        return "\n".join([self._caption(), "", *lines])

    def to_latex(self):
        """The table as a LaTeX ``table`` (booktabs rules), with its caption.

        Returns
        -------
        text : str

        Examples
        --------
        >>> from sklearn_rank_metrics.comparison import compare
        >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
        >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}
        >>> result = compare(y_true, scores, qid=qid, metrics=["mrr"], random_state=0)
        >>> print(result.to_latex().splitlines()[3])
        \\toprule
        """

        def escape(text):
            for char, replacement in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"),
                                      ("_", r"\_"), ("#", r"\#"), ("$", r"\$"), ("<", r"$<$")):  # fmt: skip
                text = text.replace(char, replacement)
            return text

        header, rows = self._text_rows()
        body = [" & ".join(escape(cell) for cell in row) + r" \\" for row in rows]
        return "\n".join([
            r"\begin{table}", r"\centering",
            r"\begin{tabular}{" + "ll" + "r" * (len(header) - 2) + "}", r"\toprule",
            " & ".join(escape(cell) for cell in header) + r" \\", r"\midrule", *body,
            r"\bottomrule", r"\end{tabular}", rf"\caption{{{escape(self._caption())}}}",
            r"\end{table}",
        ])  # fmt: skip

    # ------------------------------------------------------------ picture
    def plot_differences(self, metric, ax=None, model=None, baseline=None):
        """Draw the per-query differences to the baseline, sorted: one bar per query.

        The topic-by-topic chart of IR papers: bar ``i`` is the ``i``-th
        largest difference ``model - baseline`` of ``metric`` (smallest, for
        a lower-is-better metric such as fallout), so wins are on the left,
        losses on the right and ties in between at height 0.

        Parameters
        ----------
        metric : str
        ax : matplotlib Axes, default=None
            Where to draw; None draws on a new figure. Needs matplotlib
            (the ``plot`` extra).
        model : str, default=None
            None: the model of the first comparison.
        baseline : str, default=None
            None: the baseline of the comparison (with ``pairs="all"``, the
            first model other than ``model``).

        Returns
        -------
        ax : matplotlib Axes
            ``ax.patches`` are the bars, in the sorted order.

        Examples
        --------
        >>> from sklearn_rank_metrics.comparison import compare
        >>> y_true, qid = [1, 0] * 30, [q for q in range(30) for _ in range(2)]
        >>> scores = {"a": [1, 2] * 30, "b": [2, 1] * 15 + [1, 2] * 15}
        >>> result = compare(y_true, scores, qid=qid, metrics=["mrr"], random_state=0)
        >>> ax = result.plot_differences("mrr")  # doctest: +SKIP
        >>> [bar.get_height() for bar in ax.patches][14:16]  # doctest: +SKIP
        [0.5, 0.0]
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError(
                "plot_differences needs matplotlib, the 'plot' extra: "
                "pip install 'sklearn-rank-metrics[plot]' (or pip install matplotlib)."
            ) from None
        model, baseline = self._pair(model, baseline)
        _, differences = self.differences(metric, model, baseline)
        better = better_sign(metric)
        ordered = np.sort(differences)[:: -better]
        if ax is None:
            _, ax = plt.subplots()
        wins, ties, losses = outcomes(ordered, better)
        colors = np.where(wins, "tab:blue", np.where(losses, "tab:red", "tab:gray"))
        ax.bar(np.arange(ordered.shape[0]), ordered, width=1.0, color=colors.tolist())
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"queries, sorted by difference ({ordered.shape[0]})")
        ax.set_ylabel(f"{metric}: {model} - {baseline}")
        ax.set_title(
            f"{model} vs {baseline}: {int(wins.sum())} wins, {int(ties.sum())} ties, "
            f"{int(losses.sum())} losses"
        )
        return ax
