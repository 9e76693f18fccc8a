"""What a join of a run and its qrels gives, whichever path made it.

Both joins, on Arrow arrays (:mod:`._coded`) and on DataFrames
(:mod:`._frames`), give a :class:`JoinedRun`: every query a code into the
sorted query ids, every retrieved document trec_eval's label
(:func:`judged_labels`). ``evaluate_run``, ``rank-eval`` and the curve display
evaluate it (:func:`~._evaluate.evaluate_joined`).
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._engine._judgments import JUDGED_UNJUDGED, NOT_JUDGED


@dataclass(frozen=True)
class JoinedRun:
    """A run joined with its qrels on codes.

    ``query_ids``: the sorted query ids of both (the order trec_eval prints),
    as a NumPy unicode array; ``run_queries`` and ``judged_queries``: the
    query code of every run and qrels row; ``grades``: the qrels' relevance;
    ``labels``: trec_eval's label of every run row; ``scores``: the run's
    scores (float64); ``doc_ids(rows)``: the document ids of run rows, as an
    object array of strings; ``run_name``: the run name of the run's last
    line (trec_eval's ``runid``), "" where the run has none.
    """

    query_ids: np.ndarray
    run_queries: np.ndarray
    judged_queries: np.ndarray
    grades: np.ndarray
    labels: np.ndarray
    scores: np.ndarray
    doc_ids: Callable
    run_name: str


def judged_labels(n_rows, run_rows, judged_rows, grades):
    """trec_eval's label of each of ``n_rows`` run rows; ``run_rows`` are judged by ``judged_rows``.

    The label is the grade, ``JUDGED_UNJUDGED`` for a negative grade and
    ``NOT_JUDGED`` for a document the qrels do not judge for its query.
    """
    # The smallest integers that hold every grade and the negative codes.
    low = min(int(grades.min(initial=0)), JUDGED_UNJUDGED)
    dtype = np.result_type(np.min_scalar_type(low), np.min_scalar_type(int(grades.max(initial=0))))
    labels = np.full(n_rows, NOT_JUDGED, dtype=dtype)
    found = grades[judged_rows]
    labels[run_rows] = np.where(found >= 0, found, JUDGED_UNJUDGED)
    return labels
