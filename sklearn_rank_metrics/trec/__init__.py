"""TREC run and qrels files: read them, write runs, evaluate runs as trec_eval does.

:func:`read_trec_run` and :func:`read_trec_qrels` read the whitespace-separated
formats as trec_eval does (plain or gzipped, blank and ``#`` comment lines
skipped) into DataFrames with string ids, and raise a ValueError naming the
file and the line for a malformed line, or the pair for a duplicate (query,
document) pair. :func:`write_trec_run` writes a run that reads back exactly.
:func:`evaluate_run` scores a run against its qrels with trec_eval's
conventions (judged documents the run missed count in R and in the ideal
DCG; unjudged retrieved documents are not relevant).
These functions need pandas (``pip install 'sklearn-rank-metrics[trec]'``,
which also installs pyarrow, whose multithreaded reader reads most files
faster).
"""

from .._lazy import lazy_names

# Imported when first used (PEP 562): the rank-eval command, a module of
# this package, starts without importing the readers' pandas or the engine.
_MODULE_OF = {
    "UnevaluatedQueriesWarning": "._evaluate",
    "evaluate_run": "._evaluate",
    "read_trec_qrels": "._read",
    "read_trec_run": "._read",
    "write_trec_run": "._write",
}

__all__ = sorted(_MODULE_OF)

__getattr__, __dir__ = lazy_names(__name__, globals(), _MODULE_OF)
