"""The run and the qrels as evaluate_run takes them (paths, DataFrames, dicts), joined.

:func:`join_run` chooses the join: on Arrow arrays for two files
(:mod:`._coded`) or two ``{query_id: {doc_id: value}}`` dicts
(:mod:`._dicts`), else on DataFrames (:mod:`._frames`), where the Arrow
path cannot vouch for its input (:class:`~._format.NeedsDataFramePath`).
``evaluate_run``, ``rank-eval`` and the curve display all join here.
"""

import os

from ._coded import read_joined
from ._dicts import FlatPairs, flat_pairs, is_nested, join_nested
from ._files import import_pandas, read_bytes
from ._format import QRELS, RUN, NeedsDataFramePath
from ._frames import join_frames


def join_run(qrels, run, *, max_docs=None, trec_eval_version="10"):
    """The :class:`~._joined.JoinedRun` of the qrels and the run, paths, DataFrames or dicts.

    Two paths are joined on Arrow arrays where pyarrow reads the files
    (:func:`~._coded.read_joined`), two ``{query_id: {doc_id: value}}``
    dicts where their ids are strings (:func:`~._dicts.join_nested`), else
    read into DataFrames and joined there (where the Arrow path raises
    :class:`~._format.NeedsDataFramePath`), with the readers' checks and
    errors. With ``max_docs``, a
    document repeated in a query is an error only within the query's top
    ``max_docs`` (trec_eval ``-M`` checks only those): a run with a repeated
    pair is cut there first.
    """
    data = (None, None)
    if is_nested(qrels) or is_nested(run):
        # Each dict is flattened (and checked) once, whichever path joins it.
        qrels = flat_pairs(qrels, QRELS) if is_nested(qrels) else qrels
        run = flat_pairs(run, RUN) if is_nested(run) else run
        if isinstance(qrels, FlatPairs) and isinstance(run, FlatPairs):
            try:
                return join_nested(qrels, run)
            except NeedsDataFramePath:
                pass  # pandas reads the ids as text, names a missing one or a bad value
    elif isinstance(qrels, (str, os.PathLike)) and isinstance(run, (str, os.PathLike)):
        # Each file is read once: where the DataFrame path must decide, it
        # parses the same bytes (a file changed between two reads would join
        # two versions of it).
        data = (read_bytes(qrels), read_bytes(run))
        try:
            return read_joined(qrels, run, data=data)  # no pandas import where pyarrow reads both
        except NeedsDataFramePath:
            pass  # pandas reads the files, names a malformed line or a repeated pair
    pd = import_pandas("evaluate_run")
    return join_frames(pd, qrels, run, max_docs, trec_eval_version, data)
