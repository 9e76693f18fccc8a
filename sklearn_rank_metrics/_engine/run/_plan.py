"""Plan: which quantities the requests need, checked before any data is read."""

from .._definitions import check_bounded
from .._params import PARAMETERS


def check_requests(requests, options, judged=False):
    """Check each request against the call's ``options``, before the data is validated.

    A measure's own level (ir_measures' ``rel=``) takes the values the call's
    ``relevance_level`` takes (``judged``: a TREC run's, where a negative
    one would make unjudged documents relevant).
    """
    level_parameter = PARAMETERS["judged_relevance_level" if judged else "relevance_level"]
    for request in requests:
        check_bounded(request.definition, options.no_relevant, request.name)
        if request.level is not None:
            level_parameter.check(request.name, "rel", request.level)


def needed_quantities(evaluation, requests):
    """The quantities the requests need, in order (repeats are computed once).

    The one place the run layer asks a computation what it needs.
    """
    return [
        quantity
        for request in requests
        for quantity in request.definition.computation.needs(evaluation, request)
    ]
