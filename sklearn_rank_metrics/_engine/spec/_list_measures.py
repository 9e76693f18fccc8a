"""The list measures' declarations: their names, scope and the inputs they read.

They read top-k lists, not scores: the top-k front-ends compute them
(``retrieval/_list_measures.py``); here so that every name parser knows them
(``evaluate`` refers a list measure's name to those front-ends).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class ListMeasure:
    """A declared list measure: its scope and the inputs (keywords) it reads."""

    name: str
    scope: str  # "query": one value per list; "catalogue": one value of all the lists
    needs: tuple = ()


LIST_MEASURES = {
    measure.name: measure
    for measure in (
        ListMeasure("coverage", "catalogue"),
        ListMeasure("user_coverage", "query"),
        ListMeasure("gini", "catalogue"),
        ListMeasure("entropy", "catalogue"),
        ListMeasure("arp", "query", ("item_popularity",)),
        ListMeasure("aplt", "query", ("item_popularity",)),
        ListMeasure("novelty", "query", ("item_popularity",)),
        ListMeasure("ild", "query", ("item_vectors",)),
        ListMeasure("serendipity", "query", ("item_vectors", "history")),
    )
}
