"""The judged run: a ranking evaluated against judged documents, as trec_eval does (a front-end).

A TREC run's totals (R, the ideal DCG, ...) are those of its judged
documents (see :mod:`.._judgments`), retrieved or not. This front-end aligns
the ranking with the :class:`~.._judgments.Judgments`, builds the evaluation
of the judged documents whose order-free totals the ranking's evaluation
takes, and runs the plain steps (:mod:`._run`) on it.
"""

from ..prepare._prepare import done, ranked_queries
from ..prepare._sort import rank_order
from ._evaluation import Evaluation
from ._plan import check_requests
from ._run import call, run


def judged_evaluation(this, judgments, kind=Evaluation, **extra):
    """The evaluation of the call ``this``'s ranking whose totals are those of ``judgments``.

    ``kind`` and ``extra``: a front-end's evaluation (the curve's) and its arguments.
    Judged queries the ranking missed come after the ranked ones (see
    :meth:`~.._judgments.Judgments.align`).
    """
    prepared = this.prepared
    data, judged_data = judgments.align(prepared.data)
    # Judged documents are grouped by query (their scores are all equal).
    by_query = done(
        rank_order, y_score=judged_data.y_score, y_true=judged_data.y_true,
        query_codes=judged_data.query_codes, n_queries=judged_data.n_queries, ties="average",
    )  # fmt: skip
    judged = Evaluation(
        ranked_queries(judged_data, by_query, "average"), this.options, n_relevant=None,
        pool=this.pool, chunk_rows=this.chunk_rows,
    )  # fmt: skip
    ranked = ranked_queries(data, prepared.ranking, prepared.ties)
    return this.evaluation(ranked, kind, judged=judged, **extra)


def evaluate_judged(requests, inputs, options, judgments):
    """Every request on a ranking of ``inputs`` against ``judgments``: a :class:`RunResults`.

    ``inputs.y_true`` holds the ranked documents' labels as
    :mod:`.._judgments` codes them; ``options`` is the call's
    :class:`~.._options.Options` (its ``trec_eval_version`` chooses between
    trec_eval's versions where they differ).
    """
    check_requests(requests, options, judged=True)
    with call(inputs, options, judgments) as this:
        return run(judged_evaluation(this, judgments), requests)
