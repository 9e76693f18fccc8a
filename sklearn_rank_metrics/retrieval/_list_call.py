"""What a top-k front-end does with list measures: split them from the accuracy names, check
their inputs, compute them on the lists, and merge everything into one result.
"""

import numpy as np

from .._engine._warnings import undefined_metric_warning, warn_caller
from .._engine.prepare._sparse import Pairs
from .._engine.spec._list_measures import LIST_MEASURES
from ..metrics._evaluate import requests_for
from ..metrics._query_results import QueryResults, warn_left_out
from ._list_inputs import (
    ListInputs,
    history_matrix,
    item_popularity_array,
    short_head_mask,
    unit_item_vectors,
)
from ._list_measures import check_needs, list_measure_results


def _readers(keyword):
    """The list measures that read the input ``keyword`` (item_categories stands for vectors)."""
    needed = "item_vectors" if keyword == "item_categories" else keyword
    return tuple(name for name, measure in LIST_MEASURES.items() if needed in measure.needs)


# The data keywords of the list measures, and their options with the measures that read them
# and their defaults: a keyword given (an option changed) that no requested measure reads warns.
LIST_KEYWORDS = {
    keyword: _readers(keyword)
    for keyword in ("item_popularity", "item_vectors", "item_categories", "history")
}
LIST_OPTIONS = {
    "short_head": (("aplt",), 0.8),
    "exposure": (("gini", "entropy"), "count"),
    "entropy_unit": (("entropy",), "bits"),
}


def _changed(value, default):
    return not (isinstance(value, (str, int, float)) and value == default)


def _warn_unread(measures, given, owner):
    """Warn where an input is given, or an option changed, that no requested measure reads."""
    unread = [
        (keyword, readers, "given")
        for keyword, readers in LIST_KEYWORDS.items()
        if given.get(keyword) is not None and not measures & set(readers)
    ]
    unread += [
        (option, readers, f"set to {given[option]!r}" if np.ndim(given[option]) == 0 else "given")
        for option, (readers, default) in LIST_OPTIONS.items()
        if _changed(given[option], default) and not measures & set(readers)
    ]
    for keyword, readers, how in unread:
        warn_caller(
            f"{owner}: {keyword} is {how}, but no requested measure reads it "
            f"({', '.join(f'{name}@k' for name in readers)} "
            f"{'does' if len(readers) == 1 else 'do'}); it was not used.",
            UserWarning,
        )


def list_inputs(requests, given, shape, labels, options, owner):
    """The checked :class:`ListInputs` of ``requests``; ``given``: the call's list keywords.

    ``labels``: the :class:`Pairs` of ``y_true`` (serendipity's relevance);
    ``options``: the call's :class:`Options` plus ``exposure``,
    ``entropy_unit`` and ``short_head`` in ``given``.
    """
    measures = {request.measure.name for request in requests}
    _warn_unread(measures, given, owner)
    present = {
        "item_popularity": given.get("item_popularity") is not None,
        "item_vectors": given.get("item_vectors") is not None
        or given.get("item_categories") is not None,
        "history": given.get("history") is not None,
    }
    check_needs(requests, present, owner)
    n_items = shape[1]
    popularity = head = vectors = history = relevant = None
    vectors_name = "item_vectors"
    if measures & set(LIST_KEYWORDS["item_popularity"]):
        popularity = item_popularity_array(given["item_popularity"], n_items)
    if "aplt" in measures:
        head = short_head_mask(given["short_head"], popularity)
    if measures & set(LIST_KEYWORDS["item_vectors"]):
        vectors, vectors_name = unit_item_vectors(
            given.get("item_vectors"), given.get("item_categories"), n_items, owner
        )
    if "serendipity" in measures:
        history = history_matrix(given["history"], shape)
        relevant_cells = labels.values >= options.relevance_level
        relevant = Pairs(labels.keys[relevant_cells], labels.values[relevant_cells], shape)
    return ListInputs(
        n_items=n_items, popularity=popularity, head=head, unit_vectors=vectors,
        vectors_name=vectors_name, history=history, relevant=relevant,
        exposure=given["exposure"], entropy_unit=given["entropy_unit"],
        query_weights=given.get("query_weights"),
    )  # fmt: skip


def _result_order(order, accuracy_names, accuracy_results):
    """Every measure's name in the order the caller named them (a set expanded in place)."""
    produced = iter(accuracy_results.metrics if accuracy_results is not None else ())
    names = iter(accuracy_names)
    ordered = []
    for name in order:
        if name is not None:
            ordered.append(name)
            continue
        count = len(requests_for([next(names)]))
        ordered.extend(next(produced) for _ in range(count))
    return ordered


def merged_results(accuracy, lists, order, n_rows, average):
    """The call's result: accuracy and list measures in the order named, warned about once.

    ``accuracy``: ``(names, QueryResults or None)``; ``lists``:
    ``(requests, items, valid, inputs)``. Returns ``{name: value}`` for
    ``average="mean"``, else a :class:`QueryResults` whose catalogue
    measures are in :attr:`QueryResults.catalogue`.
    """
    accuracy_names, accuracy_results = accuracy
    per_query, catalogue = list_measure_results(*lists)
    weights = lists[3].query_weights
    for name, (value, reason) in catalogue.items():
        if reason is not None:
            warn_caller(f"{name} is undefined ({reason}); its value is NaN.", undefined_metric_warning())
    ordered = _result_order(order, accuracy_names, accuracy_results)
    metric_results = {
        name: per_query[name] if name in per_query else accuracy_results._results[name]
        for name in ordered
        if name not in catalogue
    }
    results = QueryResults(
        np.arange(n_rows), metric_results, weights,
        {name: catalogue[name][0] for name in ordered if name in catalogue},
    )  # fmt: skip
    warn_left_out(results)
    if average == "mean":
        return {name: results.mean(name) for name in ordered}
    return results
