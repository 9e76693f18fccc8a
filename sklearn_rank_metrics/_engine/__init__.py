"""The private evaluation engine, one module (or package) per job.

``_params`` checks the options; ``prepare`` makes the data arguments a
prepared ranking (``_validation`` checks them, ``_factorize`` codes query
ids and ``_labels`` the labels, ``_sort`` ranks documents by query and
score, ``_segments`` cuts the ranking into chunks of queries);
``quantities`` computes tie-exact per-query quantities, one module a
family; ``_evaluation`` runs them over the chunks; ``spec`` says what
each metric is, declares its parameters, what it needs and how it combines
it, and reads the measure names of three syntaxes into requests;
``_results`` finishes and averages; ``_pipeline`` is the one path through all of them; ``_threads``
decides how many threads a call uses.
"""

from .prepare._factorize import factorize_query_ids

__all__ = ["factorize_query_ids"]
