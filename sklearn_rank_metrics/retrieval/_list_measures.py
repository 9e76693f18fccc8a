"""Beyond-accuracy measures of top-k lists: declared, parsed, computed per list or per catalogue.

A list measure reads only the lists (and what it declares it needs: item
popularity, item vectors, history), never an item's score: the top-k
front-ends compute them beside the accuracy measures. Per-list measures
give one value per query and enter :class:`QueryResults` like accuracy
measures; catalogue measures give one value of all the lists together
(:attr:`QueryResults.catalogue`).

Every kernel is a gather, a ``bincount`` or a sparse product over the
``n_queries x k`` listed cells: no item x item matrix, no Python loop over
queries or items. Similarities are cosines of unit vectors, so the mean
similarity of a list's pairs is ``(||sum of its vectors||^2 - n) / (n (n - 1))``.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .._engine.run._finalize import MetricResult
from .._engine.spec._list_measures import LIST_MEASURES, ListMeasure, list_measure_name
from ._list_inputs import check_nonzero, scaled_rows

# Values per block of the similarity products (the (rows, d) sums, or their stored cells).
_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class ListRequest:
    """One list measure cut at ``k``: ``name`` is ``"measure@k"``."""

    measure: ListMeasure
    k: int

    @property
    def name(self):
        return f"{self.measure.name}@{self.k}"


def split_list_measures(metrics, owner, width=None):
    """``(accuracy names, list requests, order)`` of ``metrics``; ``order``: every name, as returned.

    A list measure needs its cutoff (``"coverage@10"``) and, with lists of
    ``width`` items, ``k <= width``; the other names are left to the
    accuracy measures' parser, whose canonical names ``order`` holds as
    None (the caller fills them in).
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    accuracy, requests, order = [], [], []
    for given in names:
        parsed = list_measure_name(given)
        bare = given.strip().lower() if isinstance(given, str) else None
        if bare in LIST_MEASURES:
            raise ValueError(
                f"{owner}: {given!r} needs a cutoff: name the list length it reads, e.g. "
                f"'{bare}@10'."
            )
        if parsed is None:
            accuracy.append(given)
            order.append(None)
            continue
        request = ListRequest(*parsed)
        if request.k < 1:
            raise ValueError(f"{owner}: {given!r} has k={request.k}; k must be >= 1.")
        if width is not None and request.k > width:
            raise ValueError(
                f"{owner}: {given!r} reads the top {request.k} items of each list, but "
                f"top_items holds {width} per query; pass longer lists or a smaller k."
            )
        if request.name in order:
            raise ValueError(f"{owner}: metrics names {request.name!r} more than once.")
        requests.append(request)
        order.append(request.name)
    return accuracy, requests, order


def check_needs(requests, given, owner):
    """Raise, naming the measure and the keyword, where a measure's input is not given."""
    for request in requests:
        for keyword in request.measure.needs:
            if not given[keyword]:
                alternative = " (or item_categories=)" if keyword == "item_vectors" else ""
                raise ValueError(
                    f"{owner}: {request.name!r} needs {keyword}={alternative}: "
                    f"{_NEEDS_TEXT[keyword]}."
                )


_NEEDS_TEXT = {
    "item_popularity": "the interactions of each item in the training data, one per item",
    "item_vectors": "a vector of each item, compared by cosine",
    "history": "each query's past items, a boolean or sparse (n_queries, n_items) matrix",
}


def _exposure_weights(exposure, k):
    """The exposure of list positions 1..k: 1, ``1/log2(p+1)``, or ``patience**(p-1)``."""
    positions = np.arange(1, k + 1, dtype=np.float64)
    if isinstance(exposure, str):
        return np.ones(k) if exposure == "count" else 1.0 / np.log2(positions + 1)
    return float(exposure) ** (positions - 1)


def _item_exposure(items, valid, inputs):
    """The exposure of every item in the (cut) lists, weighted by the queries' weights.

    The weights are scaled by a power of two (exactly) to at most 1 first:
    Gini and entropy do not depend on the scale, and huge weights would
    overflow the sums to inf.
    """
    weights = np.broadcast_to(_exposure_weights(inputs.exposure, items.shape[1]), items.shape)
    query_weights = inputs.query_weights
    if query_weights is not None and query_weights.max() > 0:
        query_weights = np.ldexp(query_weights, -np.frexp(query_weights.max())[1])
        weights = weights * query_weights[:, None]
    return np.bincount(items[valid], weights=weights[valid], minlength=inputs.n_items)


def _coverage(items, valid, inputs):
    """The share of the catalogue in at least one list of positive weight (whatever the exposure)."""
    if inputs.query_weights is not None:
        valid = valid & (inputs.query_weights > 0)[:, None]
    listed = np.zeros(inputs.n_items, dtype=bool)
    listed[items[valid]] = True
    return float(np.count_nonzero(listed) / inputs.n_items)


def _gini(exposure):
    """Gini index of ``exposure`` over every item: ``sum (2i - n - 1) x_(i) / (n sum x)``."""
    n = exposure.shape[0]
    ordered = np.sort(exposure)
    return float(np.dot(2 * np.arange(1, n + 1) - n - 1.0, ordered) / (n * ordered.sum()))


def _entropy(exposure, unit):
    """Shannon entropy of the exposure shares, in ``unit`` (bits, nats, or / log n_items)."""
    shares = exposure[exposure > 0] / exposure.sum()
    nats = float(-np.dot(shares, np.log(shares)))
    if unit == "nats":
        return nats
    return float(nats / np.log(2.0) if unit == "bits" else nats / np.log(exposure.shape[0]))


def catalogue_value(request, items, valid, inputs, exposures):
    """``(value, why undefined or None)`` of a catalogue measure on the lists cut at its k.

    ``exposures``: the items' exposure at each k computed so far (Gini and
    entropy at one k share it).
    """
    if request.measure.name == "coverage":
        return _coverage(items, valid, inputs), None
    if request.k not in exposures:
        exposures[request.k] = _item_exposure(items, valid, inputs)
    exposure = exposures[request.k]
    if not exposure.sum() > 0:
        return float("nan"), "no item is listed (with a positive query weight)"
    if request.measure.name == "gini":
        return _gini(exposure), None
    if inputs.entropy_unit == "normalized" and inputs.n_items < 2:
        return float("nan"), "normalized entropy of a catalogue of one item"
    return _entropy(exposure, inputs.entropy_unit), None


def _listed_mean(values, valid, n_listed):
    """Per query: the mean of ``values`` over its listed cells (NaN for an empty list)."""
    totals = np.where(valid, values, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals / n_listed


def _popularity_values(name, items, valid, inputs):
    """ARP, APLT or novelty of each list: a mean over its listed items."""
    listed = np.where(valid, items, 0)
    if name == "arp":
        return inputs.popularity[listed]
    if name == "aplt":
        return (~inputs.head[listed]).astype(np.float64)
    zero = valid & (inputs.popularity[listed] == 0)
    if zero.any():
        row, position = np.argwhere(zero)[0]
        raise ValueError(
            f"novelty: item {int(items[row, position])}, listed for query (row) {int(row)}, "
            "has item_popularity 0, whose self-information -log2(0) is infinite "
            f"({int(zero.sum())} such listed cell(s)); smooth the counts (item_popularity "
            "+ 1) or leave never-seen items out of the lists."
        )
    return -np.log2(inputs.popularity[listed] / inputs.popularity.sum())


def _row_dots(left, right):
    """Row-wise dot products of two (rows, d) dense arrays or sparse matrices."""
    if sparse.issparse(left):
        return np.asarray(left.multiply(right).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", left, right)


def _row_blocks(costs, budget):
    """Consecutive ``(start, stop)`` rows whose costs add up to at most ``budget`` (a costlier row alone)."""
    ends = np.cumsum(costs)
    start, n_rows = 0, costs.shape[0]
    while start < n_rows:
        spent = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, spent + budget, side="right")), start + 1)
        yield start, stop
        start = stop


def _block_costs(name, items, valid, inputs):
    """Per list, the size of its rows of the products: ``d`` for dense vectors, else the stored
    cells of the sparse vectors it sums (its items', and its history's for serendipity)."""
    vectors = inputs.unit_vectors
    if not sparse.issparse(vectors):
        return np.full(items.shape[0], (2 if name == "serendipity" else 1) * vectors.shape[1] + 1)
    stored = np.diff(vectors.indptr)
    costs = np.where(valid, stored[np.where(valid, items, 0)], 0).sum(axis=1) + 1
    if name == "serendipity":
        history = inputs.history
        rows = np.repeat(np.arange(history.shape[0]), np.diff(history.indptr))
        costs = costs + np.bincount(rows, weights=stored[history.indices], minlength=costs.shape[0])
    return costs


def _similarity_values(name, items, valid, inputs):
    """ILD or serendipity of each list, from sums of unit item vectors (no item x item matrix).

    ILD: ``1 - (||s||^2 - n) / (n (n - 1))``, ``s`` the sum of a list's ``n``
    unit vectors. Serendipity: ``(sum of rel - (sum of rel * v) . h) / n``,
    ``h`` the mean unit vector of the query's history. Lists go in blocks
    whose products hold at most about ``_BLOCK_CELLS`` values, dense or
    sparse (sparse high-dimensional vectors cost what they store).
    """
    vectors = inputs.unit_vectors
    check_nonzero(vectors, items[valid], inputs.vectors_name, "a listed item")
    if name == "serendipity":
        check_nonzero(vectors, inputs.history.indices, inputs.vectors_name, "in a history")
    n_listed = valid.sum(axis=1)
    values = np.empty(items.shape[0])
    for first, stop in _row_blocks(_block_costs(name, items, valid, inputs), _BLOCK_CELLS):
        block = slice(first, stop)
        rows, positions = np.nonzero(valid[block])
        listed = items[block][rows, positions]
        indptr = np.concatenate([[0], np.cumsum(n_listed[block])])
        shape = (stop - first, inputs.n_items)
        n = n_listed[block].astype(np.float64)
        if name == "ild":
            one_hot = sparse.csr_array((np.ones(listed.shape[0]), listed, indptr), shape=shape)
            sums = one_hot @ vectors
            with np.errstate(invalid="ignore", divide="ignore"):
                similarity = (_row_dots(sums, sums) - n) / (n * (n - 1.0))
            # Rounding can take a mean cosine a few ulps beyond [-1, 1].
            values[block] = 1.0 - np.clip(similarity, -1.0, 1.0)
            continue
        relevance = inputs.relevant.contains((rows + first) * inputs.n_items + listed)
        relevance = relevance.astype(np.float64)
        weighted = sparse.csr_array((relevance, listed, indptr), shape=shape) @ vectors
        history = inputs.history[block]
        counts = np.diff(history.indptr).astype(np.float64)
        scale = np.divide(1.0, counts, out=np.zeros_like(counts), where=counts > 0)
        mean_history = scaled_rows(history @ vectors, scale)
        relevant_count = np.bincount(rows, weights=relevance, minlength=shape[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            values[block] = (relevant_count - _row_dots(weighted, mean_history)) / n
    return values


def _undefined(name, n_listed, inputs):
    """``(mask, reason)``: the lists whose value of the measure ``name`` is undefined."""
    if name == "user_coverage":
        return np.zeros(n_listed.shape, dtype=bool), None
    if name == "ild":
        return n_listed < 2, "fewer than two listed items"
    empty = n_listed == 0
    if name == "serendipity":
        no_history = np.diff(inputs.history.indptr) == 0
        return empty | no_history, "an empty list or an empty history"
    return empty, "an empty list"


def query_value(request, items, valid, inputs):
    """The :class:`MetricResult` of a per-list measure on the lists cut at its k."""
    name, k = request.measure.name, request.k
    items, valid = items[:, :k], valid[:, :k]
    n_listed = valid.sum(axis=1)
    undefined, reason = _undefined(name, n_listed, inputs)
    if name == "user_coverage":
        values = (n_listed >= k).astype(np.float64)
    elif name in ("ild", "serendipity"):
        values = _similarity_values(name, items, valid, inputs)
    else:
        values = _listed_mean(_popularity_values(name, items, valid, inputs), valid, n_listed)
    values = np.where(undefined, np.nan, values)
    values.flags.writeable = False
    skipped = np.zeros(values.shape, dtype=bool)
    return MetricResult(values, skipped, undefined, reason if undefined.any() else None, None)


def list_measure_results(requests, items, valid, inputs):
    """``(per-query {name: MetricResult}, catalogue {name: (value, why undefined)})``."""
    per_query, catalogue, exposures = {}, {}, {}
    for request in requests:
        cut = (items[:, : request.k], valid[:, : request.k])
        if request.measure.scope == "catalogue":
            catalogue[request.name] = catalogue_value(request, *cut, inputs, exposures)
        else:
            per_query[request.name] = query_value(request, items, valid, inputs)
    return per_query, catalogue
