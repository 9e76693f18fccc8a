"""The plain run: prepared ranking -> quantities in one pass over chunks -> per-metric results.

:func:`evaluate_plain` is the run under the metric functions, ``evaluate``
and the scorers. The judged (TREC) run (:mod:`._judged`) and the curve run
(:mod:`._curve`) are front-ends over the same steps: :func:`call` (the
call's threads and prepared ranking), :func:`compute` (plan and chunk pass)
and :func:`finalize` (one request's results).
"""

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .._threads import call_threads
from ..prepare._prepare import prepare, prepare_input
from ..spec import head_cutoff
from ._evaluation import Evaluation
from ._finalize import RunResults, finalized
from ._plan import Plan, check_requests

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


@dataclass(frozen=True)
class Call:
    """One call's prepared ranking, options and threads: what its evaluations share."""

    prepared: object  # prepare._prepare.Prepared
    options: object  # _options.Options
    pool: object  # concurrent.futures.Executor or None
    chunk_rows: int

    def evaluation(self, ranked_queries, kind=Evaluation, **extra):
        """``kind`` (a front-end's evaluation) of ``ranked_queries``, with the call's settings."""
        return kind(
            ranked_queries, self.options, n_relevant=self.prepared.n_relevant, pool=self.pool,
            chunk_rows=self.chunk_rows, **extra,
        )  # fmt: skip


@contextmanager
def call(inputs, options, judgments=None, cutoff=None):
    """The :class:`Call` of ``inputs`` (prepared on the call's threads, which it holds).

    ``inputs``: the caller's :class:`~..prepare._prepare.Inputs`, or a
    validated :class:`~..prepare._validation.RankingInput` (a front-end's rows).
    ``cutoff``: where every measure reads only the top ``cutoff`` of each
    list (:func:`~..spec.head_cutoff`), that cutoff: only the heads may be sorted.
    """
    validated = not hasattr(inputs, "size")
    n_documents = inputs.y_score.shape[0] if validated else inputs.size()
    with call_threads(n_documents) as (pool, n_threads):
        if validated:
            prepared = prepare_input(inputs, options, pool, cutoff=cutoff)
        else:
            names = None if judgments is None else judgments.query_names
            prepared = prepare(
                inputs, options, pool, judged=judgments is not None, query_names=names,
                cutoff=cutoff,
            )  # fmt: skip
        yield Call(prepared, options, pool, chunk_rows(n_documents, n_threads))


def compute(evaluation, requests):
    """Plan the requests' quantities and compute them, in one pass over the chunks: the :class:`Plan`."""
    plan = Plan.of(evaluation, requests)
    if plan.context.scaled_gains:  # per-query scales read the whole lists
        evaluation.rq.rank_whole_lists()
    quantities = plan.quantities()
    evaluation.precompute_order_free(quantities)  # meanwhile, the sort runs
    evaluation.compute(quantities)
    return plan


@dataclass(frozen=True)
class QueryOrder:
    """The queries of an evaluation in sorted-id order (numpy.unique's), with their weights.

    Codes number the queries in whatever order factorizing found cheapest;
    ``order`` puts them in sorted-id order (None: they are already).
    """

    query_ids: np.ndarray
    query_weights: np.ndarray | None
    order: np.ndarray | None

    @classmethod
    def of(cls, data):
        query_ids, query_weights, order = data.query_ids, data.query_weights, None
        if query_ids.shape[0] > 1 and not (query_ids[1:] > query_ids[:-1]).all():
            order = np.argsort(query_ids, kind="stable")
            query_ids = query_ids[order]
            query_weights = None if query_weights is None else query_weights[order]
        return cls(query_ids, query_weights, order)

    def results(self, metrics):
        """A :class:`RunResults` of these queries."""
        return RunResults(self.query_ids, metrics, self.query_weights)


def finalize(evaluation, requests, needs, context, queries):
    """The :class:`RunResults` of ``requests`` (each with its planned ``needs``) on ``queries``.

    ``context``: the plan's :class:`~..spec.PlanContext`; ``queries``: a :class:`QueryOrder`.
    """
    return queries.results({
        request.name: finalized(evaluation, request, needed, context, queries.order)
        for request, needed in zip(requests, needs)
    })  # fmt: skip


def run(evaluation, requests):
    """Compute and finalize ``requests`` on ``evaluation``: a :class:`RunResults`."""
    plan = compute(evaluation, requests)
    queries = QueryOrder.of(evaluation.rq.input)
    return finalize(evaluation, requests, plan.needs, plan.context, queries)


def evaluate_plain(requests, inputs, options):
    """Every request on one prepared ranking of ``inputs``: a :class:`RunResults`.

    ``inputs``: :class:`~..prepare._prepare.Inputs` (validated here), or a
    :class:`~..prepare._validation.RankingInput` a front-end built;
    ``options``: the call's :class:`~.._options.Options`, already checked
    against the parameter table.
    """
    check_requests(requests, options)
    with call(inputs, options, cutoff=head_cutoff(requests)) as this:
        return run(this.evaluation(this.prepared.ranked_queries()), requests)
