"""What the top-k front-ends share: their options, and the measures a top-k list answers."""

from .._engine._options import Options
from .._engine.spec import reads_head_only
from .._engine.spec._heads import HEAD_DEFINITIONS
from ..metrics._evaluate import call_options, requests_for
from ..metrics._score_matrix import check_matrix_options

DEFAULT_METRICS = ("ndcg@10", "map@10", "mrr@10", "recall@10")


def list_options(owner, **given):
    """The checked :class:`Options` of a top-k front-end (``n_relevant`` has no place there)."""
    options = Options.checked(owner, **given)
    check_matrix_options(options, owner)
    return options


def list_call(metrics, options, owner, width=None):
    """``(requests, options)``: :func:`list_requests`, and the options their names' gain sets."""
    requests = list_requests(metrics, owner, width)
    return requests, call_options(requests, options)


def list_requests(metrics, owner, width=None):
    """The requests of ``metrics``, each a measure cut at a ``k`` that lists of ``width`` hold.

    A top-k list (or a selection of each query's top k) answers a measure
    that reads only the top ``k`` and the relevant items' totals; the
    others raise, naming the measure and the fix.
    """
    requests = requests_for(metrics, owner)
    for request in requests:
        if not reads_head_only(request):
            names = ", ".join(sorted(HEAD_DEFINITIONS))
            raise ValueError(
                f"{owner}: {request.name!r} cannot be computed from each query's top k: "
                f"give a cutoff (e.g. '{request.definition.name}@10') to one of {names}. "
                "For whole-list measures evaluate the full score matrix with evaluate()."
            )
        if width is not None and request.k > width:
            raise ValueError(
                f"{owner}: {request.name!r} needs the top {request.k} items of each query, "
                f"but top_items holds {width} per query; pass longer lists or a smaller k."
            )
    return requests
