"""Judged documents: the relevance judgments a ranking is evaluated against.

A TREC run ranks the documents a system retrieved; the qrels judge documents
of each query, retrieved or not. trec_eval's measures count every judged
relevant document in R and in the ideal DCG, retrieved or not. So a ranking
evaluated against :class:`Judgments` takes its order-free totals (see
:class:`~.quantities.OrderFree`) from the judged documents of each query, and
its ranked quantities from the ranking, whose labels follow trec_eval:

- the judged relevance (``>= 0``) of a retrieved judged document;
- ``NOT_JUDGED`` (-1) for a retrieved document absent from the judgments;
- ``JUDGED_UNJUDGED`` (-2) for one judged with a negative value (trec_eval:
  in the pool, but not judged).

Negative labels are never relevant (``relevance_level`` must be >= 0 with
judgments), gain 0 and are not judged. Judged queries the ranking missed
are either left out or, with ``missing_queries="zero"`` (trec_eval ``-c``),
evaluated as empty rankings: they come after the ranked queries, with no
document, so their ranked quantities are those of an empty list.
"""

from dataclasses import dataclass, replace

import numpy as np

from .prepare._arrays import code_dtype

NOT_JUDGED = -1
JUDGED_UNJUDGED = -2


@dataclass(frozen=True)
class Judgments:
    """The judged documents of the queries of a ranking.

    Attributes
    ----------
    query_ids : ndarray of shape (n_judged,)
        Query id of every judged document, as in the ranking's ``qid``.
    labels : ndarray of shape (n_judged,)
        Its relevance; a negative value is in the pool but not judged.
    empty_queries : ndarray or None
        Ids of judged queries evaluated as empty rankings where the ranking
        holds no document of theirs (trec_eval ``-c``, or queries ``-J``
        emptied); the judgments of other queries missing from the ranking
        are dropped.
    query_names : ndarray or None
        Where the ranking's query ids are codes (a TREC run's topics),
        ``query_names[code]`` is the id that messages name.
    """

    query_ids: np.ndarray
    labels: np.ndarray
    empty_queries: np.ndarray | None = None
    query_names: np.ndarray | None = None

    def align(self, ranking):
        """``(ranking, judged)``: both on the same query codes.

        Both are :class:`~.prepare._validation.RankingInput`.

        Judged queries missing from the ranking are appended to its query ids
        (those of ``empty_queries``) or their judgments dropped. A ranked
        query without judgments gets one placeholder document of label
        ``NOT_JUDGED``, which counts in no total.
        """
        ranked_ids = ranking.query_ids
        order = np.argsort(ranked_ids, kind="stable")
        position = np.searchsorted(ranked_ids[order], self.query_ids)
        position = np.minimum(position, max(ranked_ids.shape[0] - 1, 0))
        found = ranked_ids[order][position] == self.query_ids
        codes = order[position].astype(np.int64)
        query_ids, labels = self.query_ids, self.labels
        all_ids = ranked_ids
        if self.empty_queries is not None and not found.all():
            empty = ~found & np.isin(query_ids, self.empty_queries)
            missing_ids, missing_codes = np.unique(query_ids[empty], return_inverse=True)
            codes[empty] = ranked_ids.shape[0] + missing_codes.reshape(-1)
            all_ids = np.concatenate((ranked_ids, missing_ids))
            found |= empty
        codes, labels = codes[found], labels[found]
        unjudged = np.bincount(codes, minlength=ranked_ids.shape[0]) == 0
        if unjudged.any():
            placeholders = np.flatnonzero(unjudged)
            codes = np.concatenate((codes, placeholders))
            labels = np.concatenate((labels, np.full(placeholders.shape[0], NOT_JUDGED)))
        n_queries = all_ids.shape[0]
        labels = np.asarray(labels)
        judged = replace(
            ranking,
            y_true=labels,
            y_score=np.zeros(labels.shape[0]),
            query_codes=codes.astype(code_dtype(n_queries)),
            query_ids=all_ids,
            query_weights=None,
            rows_are_queries=False,
            score_range=(0.0, 0.0),
            label_range=(float(labels.min()), float(labels.max())) if labels.size else (0.0, 0.0),
        )
        return replace(ranking, query_ids=all_ids), judged
