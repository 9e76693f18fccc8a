"""The one evaluation path under the metric functions, ``evaluate`` and the scorers.

Validate and factorize once, sort once (in a worker thread for large inputs,
while the labels are coded and order-free totals summed), run every
requested metric's kernels in one pass over chunks of queries, then finish
each metric into a :class:`~._results.QueryResults`.
"""

import math
from concurrent.futures import Future
from dataclasses import replace

import numpy as np

from ._evaluation import Evaluation
from .prepare._labels import code_labels
from ._params import PARAMETERS
from ._results import QueryResults, finish
from .prepare._segments import RankedQueries
from .prepare._sort import argsort_scores, rank_order
from ._threads import call_threads
from .prepare._validation import check_n_relevant, check_ranking_input
from .spec import CurveRequests, check_bounded, exact_level

# Chunks of queries hold at most this many documents (fewer for smaller
# inputs, so that one chunk per thread in flight stays a small fraction of
# the input), and at least the minimum, so per-chunk overhead stays small.
_MAX_CHUNK_ROWS = 1 << 17
_MIN_CHUNK_ROWS = 1 << 12
_CHUNKS_PER_THREAD = 8


def chunk_rows(n_documents, n_threads):
    """About how many documents each chunk of queries holds."""
    if n_documents <= _MAX_CHUNK_ROWS:
        return _MAX_CHUNK_ROWS
    per_chunk = n_documents // (_CHUNKS_PER_THREAD * n_threads)
    return max(_MIN_CHUNK_ROWS, min(_MAX_CHUNK_ROWS, per_chunk))


def _size(values):
    """About how many values an array-like holds, to decide on threads before validating it.

    0 for what is not an array-like (None, a scalar, a generator): validation says what is wrong.
    """
    size = getattr(values, "size", None)
    if isinstance(size, int):
        return size
    shape = getattr(values, "shape", None)  # a torch tensor's size is a method
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        return math.prod(shape)
    try:
        first = values[0] if len(values) else None
        return len(values) * (len(first) if hasattr(first, "__len__") else 1)  # nested lists: 2-D
    except (TypeError, KeyError, IndexError):
        return 0


def _done(function, *args):
    future = Future()
    future.set_result(function(*args))
    return future


def _ranked_queries(data, ranking, ties):
    labels = code_labels(data.y_true, top=data.label_range[1], bottom=data.label_range[0])
    return RankedQueries(data, labels, ranking, ties)


def _sort_by_query(data):
    """Arguments of :func:`rank_order` that group documents by query (their scores are equal)."""
    return data.y_score, data.y_true, data.query_codes, data.n_queries, "average"


def evaluate_requests(
    requests,
    y_true,
    y_score,
    *,
    qid=None,
    gain="linear",
    relevance_level=1.0,
    n_relevant=None,
    ties="average",
    no_relevant="zero",
    sample_weight=None,
    ignore_ties=False,
    judgments=None,
    trec_eval_version="10",
    curve=None,
    reduce=None,
    query_names=None,
):
    """Compute every request on one validated, sorted input.

    Options must already be checked against the parameter table; the data
    arguments are validated here. ``ignore_ties=True`` ranks each query as
    scikit-learn's ``ignore_ties=True`` does (:func:`~._sort.argsort_scores`),
    in place of ``ties``. ``judgments`` (a :class:`~._judgments.Judgments`)
    evaluates the ranking against judged documents, as trec_eval does: the
    totals (R, ideal DCG, ...) are theirs; ``trec_eval_version`` chooses
    between trec_eval's versions where they differ. ``curve=k_max``
    computes every quantity with a cutoff at all cutoffs ``1 .. k_max`` in
    one pass (metric@k curves: requests at those cutoffs share it).
    ``reduce``: each request's per-query results (a one-metric
    :class:`~._results.QueryResults`) are passed to ``reduce`` as soon as
    they are finished, and only what it returns is kept, so that many
    requests (a curve's cutoffs) never hold their per-query values at once.
    ``query_names``: where ``qid`` holds codes of the caller's (evaluate_run's
    topics), ``query_names[code]`` is the id that messages name.
    With ``curve``, ``requests`` may be a :class:`CurveRequests`: its
    cutoffs stop at the curve's end.

    Returns
    -------
    results : QueryResults, or the list of ``reduce``'s returns, one per request
    """
    # A measure's own level (ir_measures' rel=) takes the values the call's
    # relevance_level takes: a negative one would make unjudged documents relevant.
    level_parameter = PARAMETERS["judged_relevance_level" if judgments else "relevance_level"]
    for request in requests:
        check_bounded(request.definition, no_relevant, request.name)
        if request.level is not None:
            level_parameter.check(request.name, "rel", request.level)
    n_documents = _size(y_score)
    with call_threads(n_documents) as (pool, n_threads):
        data = check_ranking_input(
            y_true, y_score, qid, sample_weight, pool, unjudged_labels=judgments is not None
        )
        if query_names is not None:
            data = replace(data, query_names=query_names)
        n_relevant = check_n_relevant(n_relevant, data.query_ids)
        if ignore_ties:
            scores = argsort_scores(y_score, data)
            data = replace(data, y_score=scores, score_range=(1, int(scores.max())))
            ties = "first"
        sort_arguments = (
            data.y_score,
            data.y_true,
            data.query_codes,
            data.n_queries,
            ties,
            data.rows_are_queries,
            data.score_range,
        )
        if pool is None:
            ranking = _done(rank_order, *sort_arguments)
        else:
            ranking = pool.submit(rank_order, *sort_arguments)
        options = dict(
            gain=gain,
            relevance_level=exact_level(relevance_level),
            pool=pool,
            chunk_rows=chunk_rows(n_documents, n_threads),
            trec_eval_version=trec_eval_version,
        )
        judged = None
        if judgments is not None:
            # Judged queries the ranking missed come after the ranked ones (see _judgments).
            data, judged_data = judgments.align(data)
            judged = Evaluation(
                _ranked_queries(
                    judged_data, _done(rank_order, *_sort_by_query(judged_data)), "average"
                ),
                n_relevant=None,
                **options,
            )
        evaluation = Evaluation(
            _ranked_queries(data, ranking, ties),
            n_relevant=n_relevant,
            judged=judged,
            curve=curve,
            **options,
        )
        if isinstance(requests, CurveRequests):
            requests = requests.up_to(evaluation.curve_end())
        plan = evaluation.plan_context(requests)
        needed = [request.definition.computation.needs(request, plan) for request in requests]
        quantities = [quantity for needs in needed for quantity in needs]
        evaluation.precompute_order_free(quantities)  # meanwhile, the sort runs
        evaluation.compute(quantities)
        # Codes number the queries in whatever order factorizing found cheapest;
        # results come in sorted-id order (numpy.unique's).
        query_ids, query_weights, order = data.query_ids, data.query_weights, None
        if query_ids.shape[0] > 1 and not (query_ids[1:] > query_ids[:-1]).all():
            order = np.argsort(query_ids, kind="stable")
            query_ids = query_ids[order]
            query_weights = None if query_weights is None else query_weights[order]
        metric_results = {}
        reduced = []
        trec_names = None
        if judgments is not None and query_names is not None:

            def trec_names(rows):
                codes = query_ids[rows]  # a placeholder's code, past the names, is never NaN
                return query_names[codes[codes < query_names.shape[0]]]

        for request, needs in zip(requests, needed):
            values = request.definition.computation.finalize(
                request, plan, [evaluation.value(quantity) for quantity in needs], evaluation
            )
            result = finish(request.name, values, no_relevant, order,
                            request.definition.aggregate, trec_names)  # fmt: skip
            if reduce is None:
                metric_results[request.name] = result
            else:
                reduced.append(reduce(QueryResults(query_ids, {request.name: result}, query_weights)))
    if reduce is not None:
        return reduced
    return QueryResults(query_ids, metric_results, query_weights)
