"""Input -> prepared ranking: the first step of every evaluation.

:func:`prepare` validates the data arguments, factorizes the query ids (or
takes the codes a TREC run comes with), starts the one sort (in a worker
thread for large inputs, while the labels are coded and the label histogram
counted) and returns a :class:`Prepared` ranking that the run layer
(:mod:`..run`) evaluates. Nothing here knows a metric.
"""

import math
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from ._labels import code_labels
from ._segments import RankedQueries
from ._select import rank_heads
from ._sort import argsort_scores, rank_order
from ._validation import RankingInput, check_n_relevant, check_ranking_input


@dataclass(frozen=True)
class Inputs:
    """The data arguments of a call, as given: labels, scores, query ids, weights, excluded pairs.

    ``exclude``: a (queries x items) mask of pairs left out of the rankings
    of a 2-D input (a recommender's training interactions), or None.
    """

    y_true: object
    y_score: object
    qid: object = None
    sample_weight: object = None
    exclude: object = None

    def size(self):
        """About how many values ``y_score`` holds, to decide on threads before validating it.

        0 for what is not an array-like (None, a scalar, a generator): validation says why.
        """
        values = self.y_score
        size = getattr(values, "size", None)
        if isinstance(size, int):
            return size
        shape = getattr(values, "shape", None)  # a torch tensor's size is a method
        if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
            return math.prod(shape)
        try:
            first = values[0] if len(values) else None
            return len(values) * (len(first) if hasattr(first, "__len__") else 1)  # nested lists
        except (TypeError, KeyError, IndexError):
            return 0


@dataclass(frozen=True)
class Prepared:
    """A validated ranking, its sort under way: what the run layer evaluates.

    Attributes
    ----------
    data : RankingInput
        The validated arrays and query codes.
    ranking : concurrent.futures.Future
        Resolves to :func:`~._sort.rank_order`'s ``(order, tie_free)``, or
        to :func:`~._select.rank_heads`' result (see :func:`start_sort`).
    ties : str
        How tied documents are ranked ("first" under ``ignore_ties``).
    n_relevant : ndarray of shape (n_queries,) or None
        Given totals of relevant documents, -1 where not given.
    """

    data: RankingInput
    ranking: Future
    ties: str
    n_relevant: np.ndarray | None = None

    def ranked_queries(self):
        """The :class:`~._segments.RankedQueries`: labels coded, label histogram counted."""
        return ranked_queries(self.data, self.ranking, self.ties)


def done(function, *args, **kwargs):
    """A future already holding ``function(*args, **kwargs)``."""
    future = Future()
    future.set_result(function(*args, **kwargs))
    return future


def ranked_queries(data, ranking, ties):
    """``data`` ranked by the future ``ranking``, its labels coded."""
    labels = code_labels(data.y_true, top=data.label_range[1], bottom=data.label_range[0])
    return RankedQueries(data, labels, ranking, ties)


def start_sort(data, ties, pool=None, cutoff=None):
    """A future of :func:`~._sort.rank_order` of ``data`` (in ``pool`` where there is one).

    ``cutoff``: where every measure of the call reads only each list's top
    ``cutoff`` (and order-free totals), :func:`~._select.rank_heads` instead,
    which may rank the heads only.
    """
    arguments = dict(
        y_score=data.y_score,
        y_true=data.y_true,
        query_codes=data.query_codes,
        n_queries=data.n_queries,
        ties=ties,
        rows_are_queries=data.rows_are_queries,
        score_range=data.score_range,
    )
    function = rank_order
    if cutoff is not None:
        function = partial(rank_heads, cutoff=cutoff)
    if pool is None:
        return done(function, **arguments)
    return pool.submit(function, **arguments)


def prepare(inputs, options, pool=None, *, judged=False, query_names=None, cutoff=None):
    """Validate ``inputs`` (an :class:`Inputs`), start the sort; a :class:`Prepared` ranking.

    ``options``: the call's :class:`~.._options.Options` (``ties``,
    ``ignore_ties``, ``n_relevant``). ``pool``: the call's threads.
    ``judged``: the labels of a TREC run, where negative labels mark
    unjudged documents (see :mod:`.._judgments`). ``query_names``: where
    ``qid`` holds codes (a TREC run's topics), ``query_names[code]`` is the
    id that messages name. ``cutoff``: where every measure reads only the
    top ``cutoff`` of each list, that cutoff (see :func:`start_sort`).
    """
    data = check_ranking_input(
        inputs.y_true, inputs.y_score, inputs.qid, inputs.sample_weight, pool,
        unjudged_labels=judged,
    )  # fmt: skip
    if query_names is not None:
        data = replace(data, query_names=query_names)
    return prepare_input(data, options, pool, raw_scores=inputs.y_score, cutoff=cutoff)


def prepare_input(data, options, pool=None, *, raw_scores=None, cutoff=None):
    """:func:`prepare` of input validated already (a :class:`RankingInput`): a :class:`Prepared`.

    A front-end that builds the rows itself (a strip of a score matrix, see
    :mod:`._top_k`) starts here. ``raw_scores``: the scores as the caller
    gave them, which ``ignore_ties`` ranks as scikit-learn does (None: the
    validated ones). ``cutoff``: see :func:`start_sort`.
    """
    n_relevant = check_n_relevant(options.n_relevant, data.query_ids)
    ties = options.ties
    if options.ignore_ties:
        scores = argsort_scores(data.y_score if raw_scores is None else raw_scores, data)
        data = replace(data, y_score=scores, score_range=(1, int(scores.max())))
        ties = "first"
    return Prepared(data, start_sort(data, ties, pool, cutoff), ties, n_relevant)
