"""The private evaluation engine, one module per job.

The flow runs one way: a public call's options -> ``_options.Options``
(checked against ``_params``); its data -> ``prepare`` (``_validation``
checks the arrays, ``_factorize`` codes query ids and labels, ``_sort`` ranks
documents by query and score, ``_segments`` cuts the ranking into chunks of
queries) -> ``run`` (plan the quantities ``_definitions`` says each metric
needs, compute them with ``_kernels`` over the chunks, finalize each
request's per-query values with what was left out; the judged and curve
runs are front-ends over it) -> plain per-metric results, which the public
layer wraps into ``QueryResults``. ``_threads`` decides how many threads a
call uses.
"""

from ._factorize import factorize_query_ids

__all__ = ["factorize_query_ids"]
