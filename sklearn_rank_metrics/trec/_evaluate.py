"""``evaluate_run``: a TREC run scored against its qrels with trec_eval's conventions.

The run and the qrels are joined without a Python loop: query ids are
coded jointly (codes in sorted-id order, the order trec_eval prints), each
(query, document) pair of the run is found among the judged ones, and each
retrieved document gets trec_eval's label (its grade, or a negative code when
it is unjudged, see :mod:`sklearn_rank_metrics._engine._judgments`), in a
:class:`~._joined.JoinedRun`. Two files are joined on Arrow arrays with no
Python object per line (:mod:`._coded`), and so are two dicts
``{query_id: {doc_id: value}}`` (:mod:`._dicts`); DataFrames, and files and
dicts that path leaves to pandas (:class:`~._format.NeedsDataFramePath`, caught in
:func:`~._sources.join_run`), by factorizing the ids (:mod:`._frames`). The rows are put
in trec_eval's order where it matters (:mod:`._order`); the engine then ranks
the run once and takes R, the ideal DCG and every other total from the
judged documents.
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._engine._judgments import NOT_JUDGED, Judgments
from .._engine._options import Options
from .._engine._params import check_parameters
from .._engine._warnings import undefined_metric_warning, warn_caller
from .._engine.prepare._prepare import Inputs
from .._engine.prepare._validation import plain
from .._engine.quantities import rounded_half_away
from .._engine.run._curve import curve_results
from .._engine.run._judged import evaluate_judged
from .._engine.spec import call_gain
from ..metrics._evaluate import requests_for
from ..metrics._means import trec_means
from ..metrics._query_results import queries_taken, query_results, values_replaced, warn_left_out
from ._order import take, trec_eval_ranking, within
from ._sources import join_run

DEFAULT_MEASURES = ("map", "ndcg@10", "precision@10", "recall@100", "mrr")


class Spelling(NamedTuple):
    """How messages name the caller and its options: evaluate_run's, or rank-eval's flags."""

    prefix: str
    zero: str  # missing_queries="zero"
    judged_only: str


PYTHON = Spelling("evaluate_run: ", "missing_queries='zero'", "judged_only=True")
COMMAND = Spelling("", "-c", "-J")


class NoJudgedQueriesError(ValueError):
    """No query of the run has judgments (without ``missing_queries="zero"``)."""


class UnevaluatedQueriesWarning(UserWarning):
    """Queries of a run or of its qrels that :func:`evaluate_run` left out, with their count.

    Queries of the run without judgments are left out, as trec_eval leaves
    them out; judged queries the run did not retrieve are left out of the
    means unless ``missing_queries="zero"`` counts them as empty rankings.

    See Also
    --------
    evaluate_run : Evaluate a run against its qrels.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from sklearn_rank_metrics.trec import UnevaluatedQueriesWarning, evaluate_run
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"],
    ...                     "score": [1.0, 1.0]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     evaluate_run(qrels, run, metrics=["map"])
    {'map': 1.0}
    >>> caught[0].category is UnevaluatedQueriesWarning
    True
    """


def evaluate_run(
    qrels,
    run,
    *,
    metrics=DEFAULT_MEASURES,
    ties="trec_eval",
    relevance_level=1,
    missing_queries="ignore",
    max_docs=None,
    judged_only=False,
    trec_eval_version="10",
    average="mean",
):
    """Evaluate a TREC run against relevance judgments, as trec_eval does.

    Every judged document counts, retrieved or not: a relevant document
    the run missed counts in R (MAP, recall, R-precision) and in the ideal
    DCG (NDCG). A retrieved document absent from the qrels, or judged with
    a negative grade, is not relevant and gains 0. Queries follow
    trec_eval: those of the run without judgments are left out, those of
    the qrels the run has no document for are left out or count as an
    empty ranking (``missing_queries``), and a query without a relevant
    document scores 0.

    Parameters
    ----------
    qrels : str, path-like, pandas.DataFrame or dict
        The relevance judgments: a qrels file (plain or gzipped, read by
        :func:`read_trec_qrels`), a DataFrame with columns ``query_id``,
        ``doc_id`` (ids, compared as text) and ``relevance`` (integers, as
        in a qrels file; negative: in the pool but not judged), or a dict
        ``{query_id: {doc_id: relevance}}`` as pytrec_eval and BEIR hold
        them (see Notes).
    run : str, path-like, pandas.DataFrame or dict
        The ranking: a run file (read by :func:`read_trec_run`), a
        DataFrame with columns ``query_id``, ``doc_id`` and ``score``
        (finite numbers, higher ranks first; integers ranked exactly), or a
        dict ``{query_id: {doc_id: score}}``. The run's ``rank`` column is
        ignored, as trec_eval ignores it.
    metrics : str or sequence of str, default=("map", "ndcg@10", "precision@10", "recall@100", "mrr")
        Measure names, as :func:`~sklearn_rank_metrics.evaluate` takes them.
        Each result's key names its measure: trec_eval's sets (``"all_trec"``,
        ``"official"``) and lists (``"P.5,10"``) give trec_eval's names, but
        trec_eval's graded ``rbp`` is ``rbp_p=0.9`` (``rbp`` is the package's
        binary RBP; ``rank-eval`` prints trec_eval's ``rbp``).
    ties : {"trec_eval", "average", "first", "optimistic", "pessimistic"}, default="trec_eval"
        Documents of equal score: trec_eval's order, by score then document
        id, both descending (``"trec_eval"``: its numbers exactly, those of
        ``rank-eval``); the exact expected value over their orderings
        (``"average"``); the run's line order (``"first"``); the bounds
        (higher grades first or last).
    relevance_level : int or float, default=1
        A document is relevant iff its grade >= ``relevance_level``
        (trec_eval ``-l``); 0 makes every judged document relevant.
    missing_queries : {"ignore", "zero"}, default="ignore"
        Queries of the qrels with no retrieved document: left out of the
        means (trec_eval's default; a warning counts them) or evaluated as
        an empty ranking, 0 for most measures, ``set_P`` included (trec_eval
        ``-c``). A query ``judged_only`` or ``max_docs`` leaves without a
        document is an empty ranking too.
    max_docs : int, default=None
        Evaluate only the first ``max_docs`` documents of each query in
        trec_eval's order (score, then document id, descending), as
        trec_eval ``-M``; None evaluates all of them. As trec_eval, only
        those are checked to appear once: a document repeated below the
        cut is not an error.
    judged_only : bool, default=False
        Drop the unjudged retrieved documents before ranking, as trec_eval
        ``-J``. A query left without a document has trec_eval's 0 / 0
        interpolated precisions: NaN for ``iprec_at_recall`` at the levels
        whose cut ``round(recall R)`` is 0 and for ``11pt_avg`` (see Notes).
    trec_eval_version : {"10", "9"}, default="10"
        The trec_eval whose numbers ``ties="trec_eval"``, ``max_docs`` and
        interpolated precision reproduce where its versions differ: "10"
        (trec_eval 10.0) compares scores in double precision and cuts
        ``iprec_at_recall`` at ``round(recall R)``; "9" (trec_eval 9.0.x,
        and so pytrec_eval, and ir_measures for the measures it computes
        with pytrec_eval) compares scores in single
        precision (scores equal as float32 tie) and cuts at
        ``floor(recall R + 0.9)``.
    average : {"mean", None}, default="mean"
        ``"mean"`` returns ``{name: mean over queries}``, computed as
        trec_eval computes it (see Notes); None the
        :class:`~sklearn_rank_metrics.QueryResults` of every query, with
        the query ids as strings.

    Returns
    -------
    results : dict or QueryResults
        The mean of each measure over the evaluated queries, or the
        per-query results (``average=None``). A measure with a NaN value
        (trec_eval's ``-nan``) has the mean NaN, as trec_eval's.

    Raises
    ------
    ValueError
        When no query of the run has judgments (unless
        ``missing_queries="zero"``, which evaluates every judged query;
        ``rank-eval`` exits 7 there, naming ``-c``),
        when a DataFrame lacks a column or holds a (query, document) pair
        twice (a dict: two keys with one text, ``1`` and ``"1"``) (within the top ``max_docs``: trec_eval stops on ``duplicate
        docs``), or for an option outside its values. When a
        DataFrame has a missing query or document id (NaN, None), a
        relevance that is not an integer (1.5, NaN, inf), or a score that
        is not finite, naming the frame, the column and the pair, as the
        file readers name the line; the same for a dict, and a query of a
        dict mapped to an empty dict (no file holds one).
    TypeError
        When the relevance or score column does not hold numbers (strings);
        when a dict maps a query to anything but a dict, or holds a value
        that is not a real number or is a bool, naming the query and the
        document.

    Warns
    -----
    UnevaluatedQueriesWarning
        Counting the queries of the run without judgments, and with
        ``missing_queries="ignore"`` the judged queries the run has no
        document for: both are left out of the means.
    UndefinedMetricWarning
        Once per measure with values trec_eval gives as ``-nan`` (once per
        call for those ``judged_only`` leaves), naming the queries: their
        values are NaN and so is the mean.

    See Also
    --------
    read_trec_run, read_trec_qrels : Read the files.
    sklearn_rank_metrics.evaluate : The same measures on arrays of labels and scores.

    Notes
    -----
    Given two paths, with pyarrow installed, the files are read into Arrow
    arrays and joined on hashed (query, document) keys, every match
    confirmed on the ids themselves, without a Python object per line; a
    file pyarrow does not read exactly as pandas does, or a repeated pair,
    sends both files to pandas' readers, which name the malformed line or
    the duplicate pair. Both ways give the same numbers.

    A dict ``{query_id: {doc_id: value}}`` (pytrec_eval's and BEIR's form)
    gives the numbers of the file :func:`write_trec_run` writes from it, read
    back: ids are compared as text (an integer key ``7`` is the id ``"7"``
    of a file), every measure and tie mode is the file's, ``ties="first"``
    keeps each query's documents in the dict's order, and integer scores
    (every score of the dict an integer) rank exactly, as a DataFrame's. Two
    dicts with string ids are flattened in one pass of C-level iteration and
    joined on Arrow arrays as two files are, in about the time of the file
    path and less than pytrec_eval's; other ids take the DataFrame path.

    With the default ``ties="trec_eval"`` every measure equals trec_eval's,
    of the version ``trec_eval_version`` names, and the ``rank-eval``
    command's on the same files: a TREC user gets the numbers papers
    report, and every trec_eval measure (``metrics="official"``, bpref and
    interpolated precision included) is defined on any run. The means are
    trec_eval's arithmetic: the queries' values added left to right in
    trec_eval's query order (ids sorted as bytes) in double precision,
    then divided by their number, so that ``%.4f`` of a mean is the ``all``
    line trec_eval prints (``QueryResults.mean()``, NumPy's pairwise sum,
    can differ in the last bit and round the other way at four decimals).
    Where trec_eval's ``all`` line is not a mean of the measure,
    ``rank-eval`` prints trec_eval's line and ``evaluate_run`` the mean of
    the values as defined: where a query's value is 0 / 0 (trec_eval
    prints ``-nan``; the mean leaves that query out, with a warning); the
    interpolated precisions of a ranking ``judged_only`` empties (0 / 0 in
    trec_eval, 0 for an empty ranking here); and under
    ``missing_queries="zero"``, ``num_rel`` (trec_eval counts every
    judgment > 0 of the qrels, whatever ``relevance_level`` says) and
    ``rbp_resid`` with a parameter (trec_eval ranks a placeholder document
    for a query the run missed). trec_eval 9
    keeps scores in single precision (a C ``float``): scores that differ
    only beyond float32's 24 bits tie there, and are then ordered by
    document id; with ``trec_eval_version="9"``, ``"trec_eval"`` ranks by
    the scores rounded to float32 as well. trec_eval 10 reads them as
    doubles. ``"average"`` ranks by the float64 scores and differs from
    trec_eval only for runs with tied scores: trec_eval breaks ties by
    document id, which rewards document names, while ``"average"`` gives
    the exact expected value over every order of the tied documents
    (measures without a closed form then raise on a tie that matters).
    ``max_docs`` cuts each ranking in trec_eval's order (score, then
    document id) whatever ``ties`` says, so the documents evaluated are
    trec_eval's.

    Where trec_eval's value is 0 / 0 (printed ``-nan``), the value is NaN
    and the mean returned is NaN too, as trec_eval's mean of a ``-nan``:
    the interpolated precisions of a query ``judged_only`` leaves without a
    document, ``Rndcg`` where the relevant documents have no positive gain.
    ``average=None`` gives the same NaN values, which
    :meth:`~sklearn_rank_metrics.QueryResults.mean` leaves out. With
    ``missing_queries="zero"``, a parameterised ``rbp_resid_p=...`` of a
    query the run lacks is 1, the residual of the placeholder document
    trec_eval ranks there (plain ``rbp_resid`` is 0). These are
    ``rank-eval``'s values, per query and mean, with the same options.

    A run file's scores are read as float64, as trec_eval 10 reads them.
    A DataFrame's integer scores (int64) are ranked exactly, also beyond
    2**53, where float64 would round them. Under ``ties="trec_eval"`` (or
    with ``max_docs``), where trec_eval, reading such scores from a file,
    would round two different scores of a topic to one number, its numbers
    are not those of the scores given, and the call raises rather than
    choose: ``ties="first"`` or ``"average"`` rank the integers exactly.

    References
    ----------
    .. [1] trec_eval, the TREC evaluation program:
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_rank_metrics.trec import evaluate_run
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"],
    ...                       "doc_id": ["d1", "d2", "d9", "d4"],
    ...                       "relevance": [1, 0, 1, 1]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
    ...                     "doc_id": ["d1", "d3", "d4", "d5"],
    ...                     "score": [2.0, 1.0, 0.5, 0.7]})
    >>> evaluate_run(qrels, run, metrics=["map", "recall@10"])
    {'map': 0.5, 'recall@10': 0.75}
    >>> evaluate_run(qrels, run, metrics=["map"], average=None).to_frame()
        map
    qid
    q1  0.5
    q2  0.5

    The same run and qrels as pytrec_eval's (and BEIR's) dicts:

    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d9": 1}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 2.0, "d3": 1.0}, "q2": {"d4": 0.5, "d5": 0.7}}
    >>> evaluate_run(qrels, run, metrics=["map", "recall@10"])
    {'map': 0.5, 'recall@10': 0.75}
    """
    check_parameters("evaluate_run", average=average)
    options = RunOptions.checked(
        ties=ties, relevance_level=relevance_level, missing_queries=missing_queries,
        max_docs=max_docs, judged_only=judged_only, trec_eval_version=trec_eval_version,
    )  # fmt: skip
    requests = requests_for(metrics, "evaluate_run")
    joined = join_run(qrels, run, max_docs=max_docs, trec_eval_version=trec_eval_version)
    results = evaluate_joined(joined, requests, options)
    return results if average is None else trec_means(results)


@dataclass(frozen=True)
class RunOptions:
    """The options of :func:`evaluate_run` (and ``rank-eval``'s flags), checked once, as one object."""

    ties: str = "trec_eval"
    relevance_level: float = 1
    missing_queries: str = "ignore"
    max_docs: int | None = None
    judged_only: bool = False
    trec_eval_version: str = "10"

    @classmethod
    def checked(cls, owner="evaluate_run", **given):
        """Raise for an option it does not take, naming ``owner``, it and the fix; the options."""
        check_parameters(
            owner,
            missing_queries=given["missing_queries"],
            max_docs=given["max_docs"],
            judged_only=given["judged_only"],
            trec_eval_version=given["trec_eval_version"],
            judged_relevance_level=given["relevance_level"],
            run_ties=given["ties"],
        )
        return cls(**given)


@dataclass(frozen=True)
class JudgedRanking:
    """A joined run as the judged run's input: its rows in trec_eval's order, with their judgments.

    ``n_ranked``: each query's documents evaluated, where an empty ranking
    leaves values behind (``judged_only``, ``missing_queries="zero"``), else
    None. ``placeholder``: no document is left in any query, and the engine
    ranks one unjudged document of a query of no one's (code ``n_queries``),
    which the results leave out.
    """

    inputs: Inputs
    judgments: Judgments
    n_ranked: np.ndarray | None
    placeholder: bool

    def engine_options(self, requests, options):
        """The engine's :class:`Options` of these requests under the run's ``options``."""
        return Options(
            gain=call_gain(requests, "linear"), relevance_level=options.relevance_level,
            ties="first" if options.ties == "trec_eval" else options.ties,
            trec_eval_version=options.trec_eval_version,
        )  # fmt: skip


def judged_ranking(joined, options, spelling=PYTHON):
    """The :class:`JudgedRanking` of a joined run under ``options`` (a checked :class:`RunOptions`).

    ``spelling`` names the options in warnings and errors (:data:`COMMAND`:
    ``rank-eval``'s flags).
    """
    query_ids, run_queries = joined.query_ids, joined.run_queries
    n_queries = query_ids.shape[0]
    judged = _present(joined.judged_queries, n_queries)
    # The queries of the run with judgments, and the run rows evaluated, in
    # the order ranked (None: all of them, as they are).
    zero = options.missing_queries == "zero"
    ranked, rows = _judged_query_rows(run_queries, judged, query_ids, zero, spelling)
    rows, labels, scores = trec_eval_ranking(
        joined, rows, ties=options.ties, max_docs=options.max_docs,
        trec_eval_version=options.trec_eval_version,
    )  # fmt: skip
    # Queries evaluated whatever is left of their ranking: every judged query
    # under -c; otherwise those the run has (-J may leave them empty, as trec_eval).
    if zero:
        empty_queries = judged
    else:
        empty_queries = ranked
        _warn_unranked(judged, ranked, query_ids, spelling)
    if options.judged_only:
        rows = within(rows, np.flatnonzero(take(labels, rows) >= 0))
    labels, scores, queries = take(labels, rows), take(scores, rows), take(run_queries, rows)
    n_ranked = None
    if options.judged_only or zero:
        n_ranked = np.bincount(queries, minlength=n_queries)
    placeholder = not queries.shape[0]
    if placeholder:
        # No document left in any query (-J, -M 0, or -c with no run query judged):
        # every query is an empty ranking.
        labels, scores = np.array([NOT_JUDGED]), np.zeros(1)
        queries = np.array([n_queries], dtype=np.int64)
    judgments = Judgments(joined.judged_queries, joined.grades, empty_queries, query_names=query_ids)
    return JudgedRanking(Inputs(labels, scores, queries), judgments, n_ranked, placeholder)


def evaluate_joined(joined, requests, options, spelling=PYTHON):
    """The per-query :class:`QueryResults` of a joined run.

    ``options``: :func:`evaluate_run`'s, a checked :class:`RunOptions`;
    ``spelling`` names the options in warnings and errors (:data:`COMMAND`:
    ``rank-eval``'s flags). The judged run of the engine
    (:func:`~.._engine.run._judged.evaluate_judged`), then trec_eval's values
    of empty rankings (:func:`_leftover_values`).
    """
    ranking = judged_ranking(joined, options, spelling)
    engine_options = ranking.engine_options(requests, options)
    results = query_results(
        evaluate_judged(requests, ranking.inputs, engine_options, ranking.judgments)
    )
    query_ids, codes = joined.query_ids, results.query_ids
    if ranking.placeholder:
        results = queries_taken(results, np.arange(codes.shape[0] - 1))
        codes = results.query_ids
    warn_left_out(results, query_names=query_ids[codes])
    if ranking.n_ranked is not None:
        results = _leftover_values(results, requests, ranking.n_ranked[codes], joined.grades,
                                   joined.judged_queries, query_ids[codes], options,
                                   spelling)  # fmt: skip
    return results.with_query_ids(query_ids[codes])


def curve_of_joined(joined, curve, options, owner):
    """Each cutoff's :class:`QueryResults` of a metric@k curve of a joined run, in order.

    ``curve``: a :class:`~.._engine.spec.CurveRequests`; the curve run over
    the judged run (:func:`~.._engine.run._curve.curve_results`). ``owner``
    names the caller in errors.
    """
    ranking = judged_ranking(joined, options)
    if ranking.placeholder:
        # A curve's reduced means cannot leave the placeholder query out again.
        raise ValueError(
            f"{owner}: no document of the run is left to rank (max_docs, judged_only or "
            "missing_queries='zero' with no run query judged): a curve of empty rankings has "
            "no points; evaluate_run gives their values"
        )
    engine_options = ranking.engine_options(curve, options)
    per_cutoff = curve_results(curve, ranking.inputs, engine_options, ranking.judgments)
    return map(query_results, per_cutoff)


def _leftover_values(
    results, requests, n_ranked, grades, judged_queries, query_names, options, spelling
):  # fmt: skip
    """The values trec_eval takes from what its code leaves behind for an empty ranking.

    ``n_ranked``: the documents evaluated of each query of ``results``.

    - With ``judged_only`` (``-J``), a query left with no document has the
      interpolated precisions of 0 / 0, NaN, at each recall level whose cut
      (``round(recall R)``; trec_eval 9: ``floor(recall R + 0.9)``) is 0,
      all of them without a relevant document, and so an ``11pt_avg`` of
      NaN (m_iprec_at_recall.c, m_11pt_avg.c). Their means are NaN too, as
      trec_eval's, and one warning names the measures and the queries.
    - With ``missing_queries="zero"`` (``-c``) and without ``judged_only``,
      trec_eval ranks one unjudged placeholder document for a query the run
      missed, then resets the value named ``rbp_resid`` to 0; a
      parameterised ``rbp_resid_p=...`` keeps the placeholder's residual,
      ``p + (1 - p)`` (trec_eval.c).
    """
    relevance_level, missing_queries = options.relevance_level, options.missing_queries
    judged_only, trec_eval_version = options.judged_only, options.trec_eval_version
    empty = n_ranked == 0
    if not empty.any():
        return results
    replaced = {}
    for request in requests:
        name = request.definition.name
        values = np.array(results[request.name], dtype=np.float64)
        if judged_only and name == "iprec_11pt_avg":
            values[empty] = np.nan  # its first level, 0, always cuts at 0
        elif judged_only and name == "iprec_at_recall":
            level = relevance_level if request.level is None else request.level
            codes = results.query_ids  # R of each, counted over its judgments
            minlength = int(codes.max(initial=-1)) + 1
            total = np.bincount(judged_queries, grades >= level, minlength)[codes]
            recall = float(request.option("recall"))
            if trec_eval_version == "9":
                cut = np.floor(recall * total + 0.9)
            else:
                cut = rounded_half_away(recall * total)
            values[empty & (cut == 0)] = np.nan
        elif (
            missing_queries == "zero" and not judged_only and name == "rbp_resid"
            and request.name != name  # named with its parameter: rbp_resid_p=0.8
        ):  # fmt: skip
            p = float(request.option("p"))
            values[empty] = p + (1.0 - p) * 1.0
        else:
            continue
        replaced[request.name] = values
    undefined = [name for name, values in replaced.items() if np.isnan(values).any()]
    if undefined:
        queries = query_names[np.isnan([replaced[name] for name in undefined]).any(axis=0)]
        shown = ", ".join(repr(plain(query)) for query in queries[:5])
        warn_caller(
            f"{spelling.prefix}{spelling.judged_only} leaves {queries.shape[0]} judged queries "
            f"without a document ({shown}{', ...' if queries.shape[0] > 5 else ''}): their "
            f"{', '.join(undefined)} are 0 / 0, NaN (trec_eval -J prints -nan), and so are "
            "evaluate_run's means of these measures, as trec_eval's (QueryResults.mean leaves "
            "them out).",
            undefined_metric_warning(),
        )
    if not replaced:
        return results
    return values_replaced(results, replaced, f"0 / 0: no document left by {spelling.judged_only}")


def _judged_query_rows(run_queries, judged, query_ids, complete, spelling=PYTHON):
    """``(ranked, rows)``: the run's queries with judgments, and their rows (None for all).

    ``judged``: the sorted codes of the judged queries. The run's queries
    without judgments are counted in a warning. Without ``complete``
    (``missing_queries="zero"``, trec_eval ``-c``, which evaluates every
    judged query), a run none of whose queries is judged is a
    :class:`NoJudgedQueriesError`.
    """
    ran = _present(run_queries, query_ids.shape[0])
    ranked = np.intersect1d(ran, judged, assume_unique=True)
    if not ranked.shape[0] and not complete:
        also = "" if spelling.zero == "-c" else " (trec_eval -c)"
        raise NoJudgedQueriesError(
            f"{spelling.prefix}no query of the run has relevance judgments in the qrels; "
            "check that both use the same query ids (trec_eval stops here too), or give "
            f"{spelling.zero} to score every judged query as an empty ranking{also}."
        )
    if ranked.shape[0] == ran.shape[0]:
        return ranked, None
    unjudged = np.setdiff1d(ran, ranked, assume_unique=True)
    warn_caller(
        f"{spelling.prefix}{unjudged.shape[0]} queries of the run have no relevance "
        f"judgments and were left out, as trec_eval leaves them out (e.g. "
        f"{plain(query_ids[unjudged[0]])!r}).",
        UnevaluatedQueriesWarning,
    )
    keep = np.zeros(query_ids.shape[0], dtype=bool)
    keep[ranked] = True
    return ranked, np.flatnonzero(keep[run_queries])


def _warn_unranked(judged, ranked, query_ids, spelling=PYTHON):
    """Count the judged queries with no retrieved document, left out of the means.

    ``judged`` and ``ranked``: sorted distinct codes of the judged queries
    and of the run's queries with judgments.
    """
    missing = np.setdiff1d(judged, ranked, assume_unique=True)
    if missing.shape[0]:
        warn_caller(
            f"{spelling.prefix}{missing.shape[0]} of the {judged.shape[0]} judged queries have "
            f"no retrieved document and were left out of the means (e.g. "
            f"{plain(query_ids[missing[0]])!r}); {spelling.zero} counts them as empty "
            f"rankings{'' if spelling.zero == '-c' else ' (trec_eval -c)'}.",
            UnevaluatedQueriesWarning,
        )


def _present(queries, n_queries):
    """The sorted distinct codes of ``queries``, codes below ``n_queries``."""
    present = np.zeros(n_queries, dtype=bool)
    present[queries] = True
    return np.flatnonzero(present)
