"""The run layer's core: per-query quantities of one ranking, in one pass over chunks of queries.

A metric (see :mod:`..spec`) combines named quantities
(:class:`~..quantities.Quantity`: ``Hits(k=10, level=1.0)``, ``IdealGain(k=10)``,
...). This module runs them, without knowing any of them:

- :class:`ChunkWork` is one chunk of whole queries and what its quantities
  share: heads of the ranking, label tables, block sums, totals, all cached
  under keys made of values (cutoffs, quantities), never of object ids;
- :class:`Evaluation` reads the order-free totals off the label histogram
  when it is small (while the sort may still run in another thread), runs
  every other requested quantity on every chunk in one pass (on the call's
  threads when there are some), and puts each quantity's per-chunk values
  into one array per call.

A query's values depend on that query alone: not on the number of threads,
the chunk size, or the other queries of the call (see :mod:`..quantities`).
The judged (TREC) and curve runs are front-ends over this one
(:mod:`._judged`, :mod:`._curve`).
"""

import math
from functools import cached_property

import numpy as np

from .. import quantities
from .._options import exact_level
from ..prepare._segments import QueryChunk, RankedValues
from ..quantities import LabelGain, OrderFree, Relevance, exponential_parts, power_of_two
from ..spec import PlanContext


# A query's gains are scaled (by a power of two) where its unscaled DCG
# could exceed this (float64 overflows at about 2**1024).
_MAX_UNSCALED_GAIN_TOTAL = 2.0**1000


def relevance_threshold(level, label_dtype, value_dtype=np.dtype(np.float64)):
    """``relevance_level`` in the labels' own precision.

    A float32 or float16 label written as ``0.7`` is the nearest value of its
    dtype, below 0.7 in float64; compared with the level rounded to the
    same dtype, it is relevant, as the user wrote it. Label values kept as
    integers (``value_dtype``, from 2**53 on) are compared with the level's
    ceiling as an exact int; float64 values with the smallest float64 at or
    above an integer level float64 cannot hold.
    """
    if value_dtype.kind in "iu":
        threshold = level if isinstance(level, int) else math.ceil(level)
        info = np.iinfo(value_dtype)
        if threshold > info.max:
            return math.inf
        return -math.inf if threshold < info.min else threshold
    if label_dtype.kind == "f" and label_dtype.itemsize < 8:
        with np.errstate(over="ignore"):
            return float(np.asarray(level, dtype=label_dtype))
    threshold = float(level)
    if isinstance(level, int) and threshold < level:  # float64 rounded it down
        threshold = float(np.nextafter(threshold, math.inf))
    return threshold


class ChunkWork:
    """One chunk's computations, sharing heads, label tables, block sums and totals.

    The quantities' one window onto the call: a kernel reads the chunk, the
    values shared in it, and the few facts of the call below (thresholds,
    the gain, the documents totals are taken over), never the evaluation.
    """

    def __init__(self, chunk, evaluation):
        self.chunk = chunk
        self._evaluation = evaluation
        self.gain_name = evaluation.gain
        self.gain = LabelGain(evaluation.gain)
        self._shared = {}

    def threshold(self, level):
        """``level`` in the labels' own precision (see :func:`relevance_threshold`)."""
        return self._evaluation.threshold(level)

    @property
    def relevance_level(self):
        """The call's relevance level."""
        return self._evaluation.relevance_level

    def unlisted_gain(self, function):
        """The gain of a relevant document outside the lists (see :meth:`Evaluation.unlisted_gain`)."""
        return self._evaluation.unlisted_gain(function)

    def totals_chunk(self):
        """This chunk's queries over the documents totals are taken over.

        With judgments (a TREC run), their judged documents, retrieved or
        not; otherwise the chunk itself.
        """
        judged = self._evaluation.judged
        chunk = self.chunk
        return chunk if judged is None else type(chunk)(judged.rq, chunk.start, chunk.stop)

    @property
    def totals_discount_cumsum(self):
        """The cumulative discounts of the ranking totals are taken over."""
        return (self._evaluation.judged or self._evaluation).rq.discount_cumsum

    def shared(self, key, compute):
        """``compute()`` once per chunk for each key (a tuple of names and values)."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    @property
    def discount_cumsum(self):
        return self.chunk.parent.discount_cumsum

    def cutoffs(self, k):
        """Cutoff per query of the chunk: ``k``, or the list length for ``k=None``."""
        return self._evaluation.cutoffs(k)[self.chunk.start : self.chunk.stop]

    def _head_key(self, k):
        """None when ``k`` covers every list of the chunk, so such heads are shared."""
        return None if k is None or k >= self.chunk.query_sizes.max() else k

    def head(self, k):
        """The chunk's head at cutoff ``k`` (shared by every quantity at that cutoff)."""
        key = self._head_key(k)
        return self.shared(("head", key), lambda: self.chunk.head(self.cutoffs(key)))

    def label_table(self, function):
        """A :class:`~..quantities.LabelGain`-like function of the label values, as a table."""
        return self.chunk.label_table(function)

    def relevance(self, level):
        """The table of relevance (label >= ``level``, in the labels' precision)."""
        return self.label_table(Relevance(self._evaluation.threshold(level)))

    def block_sum(self, k, per_document):
        """``(sum of a LabelTable or RankedValues over each head block, head)``, shared."""
        head = self.head(k)
        name = getattr(per_document, "function", getattr(per_document, "name", None))
        key = ("block_sum", self._head_key(k), name)
        return self.shared(key, lambda: head.block_sum(per_document)), head

    def relevant_positions(self, k, level):
        """``(relevant, starts)`` of a head of single documents: where its relevant ones are.

        Codes are ordered as the labels, so relevance (label >= level) is a
        comparison of the ranked codes with the first relevant code.
        """
        key = self._head_key(k)
        threshold = self._evaluation.threshold(level)

        def compute():
            head = self.head(key)
            values = self.chunk.label_values
            # An int threshold in the values' own dtype: searchsorted would compare in float64.
            bound = threshold if isinstance(threshold, float) else values.dtype.type(threshold)
            first_relevant = np.searchsorted(values, bound)
            return head.flagged_per_query(head.codes() >= first_relevant)

        return self.shared(("relevant_positions", key, threshold), compute)

    def value(self, quantity):
        """A quantity's values for this chunk's queries: known for the call, or computed here."""
        known = self._evaluation.known_totals.get(quantity)
        if known is not None:
            return known[self.chunk.start : self.chunk.stop]
        return self.shared(quantity, lambda: quantity.compute(self))

    def total_relevant(self, level):
        """Relevant documents per query: in the list, or ``n_relevant`` where given."""
        in_list = self.value(quantities.RelevantInList(level))
        given = self._evaluation.given_relevant(level)
        if given is None:
            return in_list
        given = given[self.chunk.start : self.chunk.stop]
        return np.where(given >= 0, given, in_list)

    def unlisted_of_label_one(self):
        """Per query of the chunk: relevant documents outside its list, all its labels 0 or 1.

        See :meth:`Evaluation.unknown_grades`; needs ``n_relevant``.
        """
        level = self._evaluation.relevance_level
        in_list = self.value(quantities.RelevantInList(level))
        unlisted = self.total_relevant(level) > in_list
        return unlisted & (self.value(quantities.GradedInList()) == 0)

    def gain_exponents(self):
        """Per query of the chunk: the power of two its gains are divided by when scaled."""
        chunk = self.chunk
        return self.shared(
            "gain_exponents",
            lambda: self._evaluation.gain_exponents(
                chunk.label_values[chunk.per_query_max(chunk.ranked_codes)], chunk.query_sizes
            ),
        )

    def gains_of(self, codes, queries, scaled):
        """Gains of label codes of the chunk's queries ``queries``, scaled or not."""
        if not scaled:
            return self.label_table(self.gain).values[codes]
        labels = self.chunk.label_values[codes]
        return self._evaluation.scaled_gains(labels, self.gain_exponents()[queries])

    def scaled_gains(self):
        """Per-document gains in ranked order, scaled per query (see ``gain_exponents``)."""
        chunk = self.chunk
        return self.shared(
            "scaled_gains",
            lambda: RankedValues(
                "scaled_gains", self.gains_of(chunk.ranked_codes, chunk.row_query, scaled=True)
            ),
        )


class Evaluation:
    """One ranking and the options shared by every metric computed on it.

    Parameters
    ----------
    ranked_queries : RankedQueries
    options : Options
        The call's options: the gain, the relevance level metrics of binary
        relevance use (each quantity names its own) and trec_eval's version,
        whose cutoffs interpolated precision takes where its versions differ
        (see :class:`~..quantities.InterpolatedPrecision`).
    n_relevant : ndarray of shape (n_queries,) or None
        Given totals of relevant documents, -1 where not given.
    pool : concurrent.futures.Executor or None
        The call's threads for the chunk pass.
    chunk_rows : int
        About how many documents a chunk of queries holds.
    judged : Evaluation or None
        The judged documents of the same queries (a TREC run's qrels, see
        :mod:`._judged`): every order-free total is computed over them
        instead of the ranked lists, so judged documents the ranking left out
        count in R and in the ideal DCG. None: the totals are those of the
        ranked lists.
    """

    def __init__(self, ranked_queries, options, *, n_relevant, pool, chunk_rows, judged=None):
        self.rq = ranked_queries
        self.options = options
        self.gain = options.gain
        self.relevance_level = exact_level(options.relevance_level)
        self.trec_eval_version = options.trec_eval_version
        self.n_relevant = n_relevant
        self.pool = pool
        self.chunk_rows = chunk_rows
        self.judged = judged
        self.known_totals = {}
        self._gain_exponents = None  # per query, from the histogram, when gains are scaled
        self._values = {}
        self._cutoffs = {}

    def computed(self, quantity):
        """The quantity computed for ``quantity``: itself (a curve evaluation: its curve)."""
        return quantity

    def cutoffs(self, k):
        """Cutoff per query: ``k``, or the list length for ``k=None`` (one array per ``k``)."""
        if k is None:
            return self.rq.query_sizes
        if k not in self._cutoffs:
            self._cutoffs[k] = np.full(self.rq.n_queries, k, dtype=np.int64)
        return self._cutoffs[k]

    def threshold(self, level):
        """The relevance threshold of ``level`` in the labels' precision."""
        return relevance_threshold(level, self.rq.input.y_true.dtype, self.rq.labels.value_dtype)

    def label_table(self, function):
        """``function`` of the global label values, as a table."""
        return self.rq.label_table(function, self.rq.labels.values)

    @cached_property
    def needs_scaled_gains(self):
        """Whether some query's unscaled DCG could overflow float64 (so NDCG scales its gains).

        With judged documents, theirs too (NDCG refuses such gains there:
        see ``spec._gains``).
        """
        top = self.rq.labels.top
        largest_gain = LabelGain(self.gain)(np.array([top]))[0]
        with np.errstate(over="ignore"):
            scaled = not largest_gain * self.rq.query_sizes.max(initial=0) < _MAX_UNSCALED_GAIN_TOTAL
        return scaled or (self.judged is not None and self.judged.needs_scaled_gains)

    def plan_context(self, requests):
        """The :class:`~..spec.PlanContext` of this evaluation: its options and fixed facts.

        Whether gains are scaled is decided only where a request's plan reads it.
        """
        reads_scaled = any(r.definition.computation.reads_scaled_gains for r in requests)
        return PlanContext(
            gain=self.gain,
            relevance_level=self.relevance_level,
            n_relevant_given=self.n_relevant is not None,
            judged_top=None if self.judged is None else self.judged.rq.labels.top,
            trec_eval_version=self.trec_eval_version,
            scaled_gains=reads_scaled and self.needs_scaled_gains,
            label_gain=self.options.gain_levels,
            ap_denominator=self.options.ap_divides_by,
        )

    def gain_exponents(self, max_labels, query_sizes):
        """Per query: ``e`` such that its gains divided by ``2**e`` add up below float64's limit.

        ``e = 0`` (no scaling, so exactly the unscaled gains) for a query
        whose own largest gain times its size is below the limit: whether a
        query is scaled depends on that query alone.
        """
        with np.errstate(over="ignore"):
            largest = LabelGain(self.gain)(max_labels)
            fits = largest * query_sizes < _MAX_UNSCALED_GAIN_TOTAL
        if self.gain == "exponential":
            mantissa, whole = exponential_parts(max_labels)
            exponent = whole + (mantissa > 1)  # the ceiling, exact for any labels
        else:
            exponent = np.frexp(max_labels)[1].astype(np.int64)
        return np.where(fits, 0, exponent)

    def scaled_gains(self, labels, exponents):
        """Gains of ``labels`` over ``2**exponents``: exactly the unscaled gains times that."""
        if self.gain == "exponential":
            mantissa, whole = exponential_parts(labels)
            return power_of_two(mantissa, whole - exponents) - power_of_two(1.0, -exponents)
        return np.ldexp(labels, -exponents)

    def gains_of(self, codes, queries, scaled):
        """Gains of global label codes of the queries ``queries``, scaled or not."""
        values = self.rq.labels.values
        if not scaled:
            return self.label_table(LabelGain(self.gain)).values[codes]
        if self._gain_exponents is None:
            max_labels = values[self.rq.label_histogram.max_codes()]
            self._gain_exponents = self.gain_exponents(max_labels, self.rq.query_sizes)
        return self.scaled_gains(values[codes], self._gain_exponents[queries])

    def precompute_order_free(self, quantities):
        """Read the order-free totals the quantities need off the label histogram, if small.

        Runs before the chunk pass, while the sort may still be running.
        With ``judged`` documents, every order-free total comes from them.
        """
        quantities = [self.computed(quantity) for quantity in quantities]
        if self.judged is not None:
            order_free = [q for q in dict.fromkeys(quantities) if isinstance(q, OrderFree)]
            self.judged.precompute_order_free(order_free)
            self.judged.compute(order_free)
            for quantity in order_free:
                self.known_totals[quantity] = self.judged.value(quantity)
            return
        histogram = self.rq.label_histogram
        if histogram is None:
            return
        for quantity in dict.fromkeys(quantities):
            if isinstance(quantity, OrderFree) and quantity not in self.known_totals:
                total = quantity.from_histogram(self, histogram)
                if total is not None:
                    self.known_totals[quantity] = total

    def compute(self, quantities):
        """Compute the quantities not yet known, all in one pass over the chunks."""
        todo = []
        for quantity in dict.fromkeys(self.computed(quantity) for quantity in quantities):
            if quantity in self.known_totals:
                self._values[quantity] = self.known_totals[quantity]
            elif quantity not in self._values:
                todo.append(quantity)
        if not todo:
            return

        def compute_chunk(bounds):
            work = ChunkWork(QueryChunk(self.rq, *bounds), self)
            return [work.value(quantity) for quantity in todo]

        bounds = self.rq.chunk_bounds(self.chunk_rows)
        if self.pool is None:
            per_chunk = [compute_chunk(chunk) for chunk in bounds]
        else:
            per_chunk = list(self.pool.map(compute_chunk, bounds))
        for index, quantity in enumerate(todo):
            parts = [chunk_parts[index] for chunk_parts in per_chunk]
            for chunk_parts in per_chunk:
                chunk_parts[index] = None  # each part freed once joined
            self._values[quantity] = quantity.join(self.rq.n_queries, bounds, parts)

    def value(self, quantity):
        """The per-query values of a computed quantity."""
        return self._values[quantity]

    def given_relevant(self, level):
        """``n_relevant`` (-1 where not given), or None; a ValueError at another level.

        ``n_relevant`` counts the documents relevant at the call's
        ``relevance_level``: a measure at its own level (``R(rel=2)@5``)
        cannot know how many documents outside the list are relevant at it.
        """
        if self.n_relevant is None:
            return None
        if level != self.relevance_level:
            raise ValueError(
                f"n_relevant counts the documents relevant at relevance_level="
                f"{self.relevance_level!r}, and a measure asks for another level "
                f"({level!r}, its rel=); compute it in a call with "
                f"relevance_level={level!r} and n_relevant counted at that level."
            )
        return self.n_relevant

    def unlisted_relevant(self):
        """Per query: whether ``n_relevant`` counts relevant documents the list does not hold.

        Needs :meth:`~..spec.PlanContext.relevant_set_quantities` computed. All False
        without ``n_relevant``.
        """
        if self.n_relevant is None:
            return np.zeros(self.rq.n_queries, dtype=bool)
        level = self.relevance_level
        return self.total_relevant(level) > self.value(quantities.RelevantInList(level))

    def unlisted_gain(self, function):
        """The gain of the relevant documents ``n_relevant`` counts outside the lists, or None.

        In a query of labels 0 and 1 (relevant at a ``relevance_level`` <=
        1, label 0 of no positive gain) they have label 1: its gain under
        ``function`` (0 where not positive). None without ``n_relevant``, or
        where the call's level or gains leave their labels unknown. Whether
        a query's labels are 0 and 1 is its own: see :meth:`unknown_grades`.
        """
        if self.n_relevant is None:
            return None
        gains = function(np.array([0.0, 1.0]))
        if gains[0] > 0 or self.relevance_level > 1:
            return None
        return max(float(gains[1]), 0.0)

    def unknown_grades(self, function):
        """Per query: relevant documents outside its list whose grades its ideal ranking needs.

        Those of a query with a label other than 0 and 1 (its own labels,
        whatever the other queries' are), or of every query where
        :meth:`unlisted_gain` is None. Needs
        ``PlanContext.relevant_set_quantities(ideal=True)`` computed.
        """
        unlisted = self.unlisted_relevant()
        if not unlisted.any() or self.unlisted_gain(function) is None:
            return unlisted
        return unlisted & (self.value(quantities.GradedInList()) > 0)

    def total_relevant(self, level):
        """Relevant documents per query: in the list, or ``n_relevant`` where given.

        Raises a ValueError when ``n_relevant`` is below what the list holds.
        """
        in_list = self.value(quantities.RelevantInList(level))
        if self.given_relevant(level) is None:
            return in_list
        given = self.n_relevant >= 0
        too_few = given & (self.n_relevant < in_list)
        if too_few.any():
            q = int(np.flatnonzero(too_few)[0])
            raise ValueError(
                f"n_relevant[{self.rq.input.query_name(q)!r}] = {int(self.n_relevant[q])} is "
                f"below the {int(in_list[q])} relevant documents (label >= "
                f"{level:g}) in that query's list; n_relevant counts all "
                "relevant documents, listed or not."
            )
        return np.where(given, self.n_relevant, in_list)
