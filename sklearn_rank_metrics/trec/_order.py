"""trec_eval's order of a run: its scores, its ties, its top ``-M`` documents of each query.

trec_eval ranks each query's documents by score, then by document id, both
descending (byte order), after reading the scores as doubles (trec_eval 9:
floats). :func:`trec_eval_ranking` puts a joined run in that order where
``ties="trec_eval"`` or ``max_docs`` asks for it; the engine then ranks the
rows with ``ties="first"``, which keeps it. The queries themselves come in
the order trec_eval prints them, their ids sorted
(:func:`~._queries.joint_query_codes`).
"""

import numpy as np

from .._engine.prepare._arrays import BLOCK, run_starts
from .._engine.prepare._segments import segment_ranks
from .._engine.prepare._sort import descending, merged_by_rounding, ranked_runs, tied_neighbours


def trec_eval_ranking(joined, rows, *, ties, max_docs, trec_eval_version):
    """``(rows, labels, scores)``: the joined run's rows in trec_eval's order where it matters.

    ``rows``: the run rows evaluated (None: all of them, in order). With
    ``ties="trec_eval"`` or ``max_docs``, the rows (or, for a run already in
    trec_eval's order, the labels of its tied documents) are put in
    trec_eval's order, and ``max_docs`` keeps the first of each query; with
    ``ties="trec_eval"`` the scores are those trec_eval compares. The
    joined run is left as it is.
    """
    labels, scores = joined.labels, joined.scores
    if ties != "trec_eval" and max_docs is None:
        return rows, labels, scores
    run_queries = joined.run_queries
    trec_scores = trec_eval_scores(scores, run_queries, joined.query_ids, trec_eval_version)
    in_order = in_trec_eval_order(take(run_queries, rows), take(trec_scores, rows))
    rows, labels = trec_eval_order(joined.doc_ids, run_queries, trec_scores, labels, rows, in_order)
    if max_docs is not None:
        first = first_per_query(take(run_queries, rows), take(trec_scores, rows), max_docs, in_order)
        rows = within(rows, first)
    return rows, labels, trec_scores if ties == "trec_eval" else scores


def take(values, rows):
    """``values[rows]``; ``values`` itself where ``rows`` is None (every row, in order)."""
    return values if rows is None else values[rows]


def within(rows, positions):
    """The rows at ``positions`` of ``rows`` (None: every row)."""
    return positions if rows is None else rows[positions]


def trec_eval_scores(scores, queries, query_ids, trec_eval_version):
    """The scores as trec_eval compares them; integers kept exact, where they rank the same.

    trec_eval reads a score as a double (trec_eval 9: a float). Float
    scores are rounded as it rounds them. Integer scores (a DataFrame's
    int64) are kept, and ranked exactly, where the rounding would merge no
    two different scores of a query (trec_eval's order is then theirs);
    otherwise trec_eval's numbers are not those of the scores given, and
    the error says so.
    """
    if scores.dtype.kind == "f":
        return single_precision(scores) if trec_eval_version == "9" else scores
    float_type, what = (np.float32, "single-precision floats") if trec_eval_version == "9" else (
        np.float64, "doubles"
    )
    merged = merged_by_rounding(scores, queries, float_type)
    if merged is not None:
        first, second = merged
        raise ValueError(
            f"evaluate_run: the scores {int(scores[first])} and {int(scores[second])} of "
            f"query {str(query_ids[queries[first]])!r} differ, but trec_eval "
            f"{trec_eval_version} reads scores as {what}, where they are equal (integers "
            f"beyond 2**{np.finfo(float_type).nmant + 1} round), so its order and numbers "
            "are not those of these scores. Pass ties='first' or 'average' (and no "
            "max_docs) to rank the integers exactly, or the scores as floats for "
            "trec_eval's numbers."
        )
    return scores


def single_precision(scores):
    """The scores as trec_eval 9 holds them: rounded to float32 (C ``float``), kept finite."""
    limit = np.finfo(np.float32).max
    rounded = np.empty(scores.shape[0], dtype=np.float64)
    for start in range(0, scores.shape[0], BLOCK):  # temporaries of a block only
        block = np.clip(scores[start : start + BLOCK], -limit, limit)
        rounded[start : start + BLOCK] = block.astype(np.float32)
    return rounded


def in_trec_eval_order(queries, scores):
    """Whether each query's rows are one run of lines, scores non-increasing (most run files).

    Ties are then neighbours and ranks are positions in the run of lines,
    found without a sort.
    """
    if queries.shape[0] < 2:
        return True
    first_codes = queries[run_starts(queries)]  # a query's code once per run of its rows
    if np.bincount(first_codes).max() > 1:
        return False
    return ranked_runs(scores, queries, first_codes.shape[0]) is not None


def trec_eval_order(doc_ids, run_queries, scores, labels, rows, in_order):
    """``(rows, labels)``: every tie's documents in trec_eval's order, descending doc id.

    trec_eval sorts by score, then by document id (byte order), both
    descending. Only documents that tie with another of their query need
    the second key: they are sorted among themselves and put back in the
    places they held, so that within every tie they come in trec_eval's
    order and the engine's input-order ties (``"first"``) follow it.

    ``in_order`` (:func:`in_trec_eval_order`): ties are neighbours, and
    only the labels of tied rows move (tied rows share their query and
    score), in a copy of ``labels`` (their own bytes, one or two a row: less
    than the positions of every row that reordering ``rows`` would take),
    and ``rows`` is returned as it is. Otherwise ties are found by sorting
    (query, score) pairs and ``rows`` is returned reordered, ``labels`` as
    they are.
    """
    queries, row_scores = take(run_queries, rows), take(scores, rows)
    if in_order:
        after = tied_neighbours(row_scores, queries)  # each tied with the row before
        tied = np.union1d(after - 1, after)
        first_of_tie = ~np.isin(tied, after, assume_unique=True)
    else:
        by_score = np.lexsort((row_scores, queries))
        same = np.flatnonzero(
            (queries[by_score][1:] == queries[by_score][:-1])
            & (row_scores[by_score][1:] == row_scores[by_score][:-1])
        )
        tied = np.sort(by_score[np.union1d(same, same + 1)])
        first_of_tie = None
    if not tied.shape[0]:
        return rows, labels
    tied_rows = within(rows, tied)
    # Document ids descending, then the ties' keys by stable sorts of their own.
    by_doc = _descending(doc_ids(tied_rows))
    if in_order:
        # Each tie keeps its places; its labels take the order of its documents.
        ordered = by_doc[np.argsort(np.cumsum(first_of_tie)[by_doc], kind="stable")]
        tie_labels = labels[tied_rows[ordered]]
        labels = labels.copy()  # the join's labels stay the documents'
        labels[tied_rows] = tie_labels
        return rows, labels
    ordered = by_doc[np.lexsort((-row_scores[tied][by_doc], queries[tied][by_doc]))]
    rows = np.arange(queries.shape[0]) if rows is None else rows.copy()
    rows[tied] = tied_rows[ordered]
    return rows, labels


def _descending(strings):
    """The positions of ``strings`` in descending order, equal strings in their own order.

    NumPy's fixed-width strings compare by code point, which is the order
    of their UTF-8 bytes (trec_eval's ``strcmp``), several times faster than
    Python strings; a stable ascending sort of the reversed strings, read
    backwards, keeps equal ones (a document repeated in a tie) in order.
    """
    reversed_text = np.asarray(strings, dtype=str)[::-1]
    return (reversed_text.shape[0] - 1 - np.argsort(reversed_text, kind="stable"))[::-1]


def first_per_query(queries, scores, max_docs, in_order):
    """Positions of the first ``max_docs`` documents of each query (rows in trec_eval's order)."""
    if in_order:
        lengths = _run_lengths(run_starts(queries), queries.shape[0])
        return np.flatnonzero(segment_ranks(lengths) < max_docs)
    order = np.lexsort((descending(scores), queries))
    sorted_queries = queries[order]
    starts = np.searchsorted(sorted_queries, sorted_queries, side="left")
    rank = np.arange(order.shape[0]) - starts
    return np.sort(order[rank < max_docs])


def _run_lengths(starts, n):
    """Lengths of the runs starting at ``starts`` in ``n`` rows."""
    return np.diff(np.append(starts, n))
