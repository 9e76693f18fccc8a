"""The spec layer: what a call asks for, before any data is read.

- :mod:`._definition`: :class:`MetricDefinition`, the declared measure
  :class:`Parameter` and the :class:`Computation` protocol (``needs`` from a
  request and a :class:`PlanContext`, ``finalize`` from the needed values);
- :mod:`._gains` and :mod:`._binary`: the computations, by family;
- :mod:`._table`: the definitions table, :data:`METRICS`;
- :mod:`._request`: :class:`Request`, :class:`CurveRequests`,
  :class:`PlanContext`;
- the names, in three syntaxes: :mod:`._package_names`,
  :mod:`._ir_measures`, :mod:`._trec_names` (trec_eval's measure table, its
  print order and its sets), and the entry :mod:`._names`
  (:func:`parse_names`, :func:`name_requests`, suggestions);
- :mod:`._heads`: which measures a selection of each query's top ``k``
  answers (:func:`head_cutoff`).

It imports the quantities it names (``..quantities``) and nothing of the run.
"""

from ._definition import (
    FAMILY_OPTIONS,
    Computation,
    MetricDefinition,
    Parameter,
    QueryValues,
    check_bounded,
)
from ._heads import head_cutoff, reads_head_only
from ._names import call_gain, name_requests, parse_name, parse_names, resolve_request
from ._request import CurveRequests, PlanContext, Request
from ._table import ALIASES, METRICS

__all__ = [
    "ALIASES",
    "FAMILY_OPTIONS",
    "METRICS",
    "Computation",
    "CurveRequests",
    "MetricDefinition",
    "Parameter",
    "PlanContext",
    "QueryValues",
    "Request",
    "call_gain",
    "check_bounded",
    "head_cutoff",
    "name_requests",
    "parse_name",
    "parse_names",
    "reads_head_only",
    "resolve_request",
]
