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

from ._evaluate import UnevaluatedQueriesWarning, evaluate_run
from ._read import read_trec_qrels, read_trec_run
from ._write import write_trec_run

__all__ = [
    "UnevaluatedQueriesWarning",
    "evaluate_run",
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_run",
]
