"""The curve run: metric@k for every ``k = 1 .. k_max`` from one pass (a front-end).

Every quantity with a cutoff is computed once at all cutoffs, as its
:class:`~..quantities.Curve` (no wider than the longest list, beyond which no
quantity changes; each query's curve ends with its own list), and each
cutoff's values are gathered from it when read: :class:`CurveEvaluation`
is the plain :class:`~._evaluation.Evaluation` with that one difference.
:func:`curve_results` yields the results of one cutoff at a time, so that
the values of every query at every cutoff are never held at once.
"""

import numpy as np

from ..quantities import curve_of
from ._evaluation import Evaluation
from ._judged import judged_evaluation
from ._plan import check_requests
from ._run import QueryOrder, call, compute, finalize


class CurveEvaluation(Evaluation):
    """An :class:`~._evaluation.Evaluation` whose quantities with a cutoff are curves to ``k_max``.

    :meth:`curve_end` says where a metric@k curve stops changing.
    """

    def __init__(self, ranked_queries, options, *, n_relevant, pool, chunk_rows, judged=None,
                 k_max):  # fmt: skip
        super().__init__(
            ranked_queries, options, n_relevant=n_relevant, pool=pool, chunk_rows=chunk_rows,
            judged=judged,
        )  # fmt: skip
        # As wide as the longest list a quantity is taken over: the ranked lists, and the
        # judged ones that the order-free totals (the ideal DCG) are taken over.
        longest = [self.rq.query_sizes.max(initial=0), 1]
        if judged is not None:
            longest.append(judged.rq.query_sizes.max(initial=0))
        self.curve_width = int(min(k_max, max(longest)))
        self.curve_k_max = k_max
        self._curves = {}  # quantity with a cutoff -> its curve
        self._columns = {}  # curve -> (k, its values at cutoff k), the last one read

    def curve_end(self):
        """The last cutoff of the curve at which a value can change but through k itself.

        Beyond the longest list no ranked quantity changes, nor beyond the
        most documents a query has judged (or relevant, ``n_relevant``) any
        total with a cutoff (the ideal DCG@k, ``min(k, R)``): the largest of
        these (the curve's width, or the largest ``n_relevant``), at most
        ``k_max``.
        """
        most_relevant = 0 if self.n_relevant is None else self.n_relevant.max(initial=0)
        return int(max(self.curve_width, min(self.curve_k_max, most_relevant)))

    def computed(self, quantity):
        """The quantity computed for ``quantity``: its curve, where it has a cutoff."""
        if getattr(quantity, "k", None) is None:
            return quantity
        curve = self._curves.get(quantity)
        if curve is None:
            curve = self._curves[quantity] = curve_of(quantity, self.curve_width)
        return curve

    def cutoffs(self, k):
        """Cutoff per query: ``k``, or the list length for ``k=None``.

        A curve's requests each ask for their own cutoff: only the curve's
        width is kept.
        """
        if k is None:
            return self.rq.query_sizes
        if k in self._cutoffs:
            return self._cutoffs[k]
        cutoffs = np.full(self.rq.n_queries, k, dtype=np.int64)
        if k == self.curve_width:
            self._cutoffs[k] = cutoffs
        return cutoffs

    def value(self, quantity):
        """The per-query values of a computed quantity: with a cutoff, its curve's column."""
        computed = self.computed(quantity)
        if computed is quantity:
            return self._values[quantity]
        # A column is gathered when asked for; the last one of each curve is
        # kept for the other requests at the same cutoff.
        k = min(quantity.k, self.curve_width)
        last = self._columns.get(computed)
        if last is None or last[0] != k:
            last = self._columns[computed] = (k, self._values[computed].column(k))
        return last[1]


def curve_results(curve_requests, inputs, options, judgments=None):
    """Yield the :class:`~._finalize.RunResults` of each cutoff of a metric@k curve, in order.

    ``curve_requests``: a :class:`~..spec.CurveRequests`, whose
    cutoffs stop at the curve's end (:meth:`CurveEvaluation.curve_end`);
    ``judgments``: a TREC run's (see :mod:`._judged`), or None.
    """
    check_requests(curve_requests, options, judged=judgments is not None)
    k_max = curve_requests.k_max
    with call(inputs, options, judgments) as this:
        if judgments is None:
            ranked = this.prepared.ranked_queries()
            evaluation = this.evaluation(ranked, CurveEvaluation, k_max=k_max)
        else:
            evaluation = judged_evaluation(this, judgments, CurveEvaluation, k_max=k_max)
        requests = curve_requests.up_to(evaluation.curve_end())
        plan = compute(evaluation, requests)
        queries = QueryOrder.of(evaluation.rq.input)
        for request, needs in zip(requests, plan.needs):
            yield finalize(evaluation, [request], [needs], plan.context, queries)
