"""Which measures a cut ranking answers: those that read only each query's top ``k``.

A measure cut at ``k`` whose value depends only on the documents ranked in
the top ``k`` (with the whole tie block at the cut) and on order-free totals
of the relevant documents (R, the ideal gains) can be computed from a
selection instead of a full sort: from each query's head and its labelled
documents (see ``prepare/_top_k.py``). The others need every document: a
whole-list measure, or one that counts the non-relevant documents a query
holds (fallout's N).
"""

# Definitions whose value at a cutoff reads the head and relevant totals only;
# tests/engine/test_top_k.py checks each against the full ranking, query for query.
HEAD_DEFINITIONS = frozenset({
    "ndcg", "dcg", "cg", "mrr", "map", "gm_map", "precision", "recall", "f1", "recall_cap",
    "hit_rate", "hit_rate_item", "err", "rbp",
})  # fmt: skip


def reads_head_only(request):
    """Whether ``request`` is a measure cut at ``k`` that reads only the top ``k`` and totals."""
    return request.k is not None and request.definition.name in HEAD_DEFINITIONS


def head_cutoff(requests):
    """The largest cutoff of ``requests`` when every one reads only its head, else None."""
    if all(reads_head_only(request) for request in requests):
        return max(request.k for request in requests)
    return None
