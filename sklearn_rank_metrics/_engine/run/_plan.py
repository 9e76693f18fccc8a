"""Plan: which quantities the requests need, a function of each request and the plan's facts.

The one place the run layer asks a computation what it needs
(:meth:`~..spec.Computation.needs`): from the request and the call's
:class:`~..spec.PlanContext` (its options and the facts fixed before the
chunk pass), never from the evaluation itself. Finalizing hands each
computation back the values of what it asked for, in order.
"""

from dataclasses import dataclass

from .._params import PARAMETERS
from ..spec import check_bounded


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


@dataclass(frozen=True)
class Plan:
    """The requests' needs: the quantities of each request, in its computation's order."""

    context: object  # spec.PlanContext
    needs: tuple  # one tuple of quantities per request

    @classmethod
    def of(cls, evaluation, requests):
        context = evaluation.plan_context(requests)
        needs = tuple(
            tuple(request.definition.computation.needs(request, context)) for request in requests
        )
        return cls(context, needs)

    def quantities(self):
        """Every quantity planned, in order (repeats are computed once)."""
        return [quantity for needs in self.needs for quantity in needs]
