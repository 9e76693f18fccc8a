"""The private evaluation engine, one package or module per stage of one flow.

The flow runs one way: a public call's options -> :class:`._options.Options`
(checked against ``_params``); the measure names -> ``spec`` (definitions,
declared parameters, the three name syntaxes) -> requests; the data ->
``prepare`` (``_validation`` checks them, ``_factorize`` codes query ids and
``_labels`` the labels, ``_sort`` ranks documents by query and score,
``_segments`` cuts the ranking into chunks of queries) -> ``run`` (plan the
quantities each request's computation needs, compute them with
``quantities`` over the chunks, finalize each request's per-query values
with what was left out as data; the judged and curve runs are front-ends
over the plain run) -> plain per-metric results, which the public layer
wraps into ``QueryResults``. ``_threads`` decides how many threads a call
uses.
"""
