"""The list measures' declarations: their names, scope and the inputs they read.

They read top-k lists, not scores: the top-k front-ends compute them
(``retrieval/_list_measures.py``); here so that every name parser knows them
(``evaluate`` refers a list measure's name to those front-ends).
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ListMeasure:
    """A declared list measure: its scope and the inputs (keywords) it reads."""

    name: str
    scope: str  # "query": one value per list; "catalogue": one value of all the lists
    needs: tuple = ()
    # Which way a comparison counts a win: less popularity bias (ARP) and a less
    # concentrated exposure (Gini) are lower, as RecBole marks them.
    higher_is_better: bool = True


LIST_MEASURES = {
    measure.name: measure
    for measure in (
        ListMeasure("coverage", "catalogue"),
        ListMeasure("user_coverage", "query"),
        ListMeasure("gini", "catalogue", higher_is_better=False),
        ListMeasure("entropy", "catalogue"),
        ListMeasure("arp", "query", ("item_popularity",), higher_is_better=False),
        ListMeasure("aplt", "query", ("item_popularity",)),
        ListMeasure("novelty", "query", ("item_popularity",)),
        ListMeasure("ild", "query", ("item_vectors",)),
        ListMeasure("serendipity", "query", ("item_vectors", "history")),
    )
}

_NAME = re.compile(r"^\s*([A-Za-z_]+)\s*@\s*(\d+)\s*$")


def list_measure_name(name):
    """``(ListMeasure, k)`` of a name ``"measure@k"`` of a list measure, else None."""
    match = _NAME.match(name) if isinstance(name, str) else None
    if match is None or match[1].lower() not in LIST_MEASURES:
        return None
    return LIST_MEASURES[match[1].lower()], int(match[2])
