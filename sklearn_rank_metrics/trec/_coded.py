"""The join of a run and its qrels on codes, and its fast path from files.

:func:`evaluate_run` gives every retrieved document trec_eval's label (its
grade, or a negative code when it is unjudged) and every query a code into
the sorted query ids. :class:`JoinedRun` holds the outcome, whatever path made
it. :func:`read_joined` makes it from two files without a Python object per
line:

- both files are read by pyarrow's CSV reader into Arrow arrays
  (:func:`~._arrow.read_arrow_columns`);
- query ids get codes from runs of equal ids (TREC files are grouped by
  query), else from Arrow's dictionary encoding; only the distinct ids become
  Python strings;
- document ids are hashed to 64 bits in NumPy, straight from the Arrow
  buffers (:func:`string_hashes`), and each (query, document) pair of either
  file to one 64-bit key;
- a table of the run's keys (:class:`KeyTable`, a region per query) finds
  every judged pair among the retrieved ones, and the keys of each file are
  checked to appear once.

A hash only proposes: every judgment found is confirmed by comparing the
query codes and the document ids themselves. A repeated key (a duplicate
pair, or two pairs with one hash), a failed confirmation or a file pyarrow
does not read exactly as pandas returns None, and the DataFrame path then
reads, checks (naming the line or the duplicate pair) and joins.
"""

import os
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .._engine._factorize import code_dtype
from .._engine._judgments import JUDGED_UNJUDGED, NOT_JUDGED
from ._arrow import read_arrow_columns
from ._files import normalize, read_bytes

_MIX = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xFF51AFD7ED558CCD)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT, _HALF = np.uint64(29), np.uint64(33)
# _LOW_BYTES[k] keeps the low k bytes of a little-endian word.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=object).astype(np.uint64)


class JoinedRun(NamedTuple):
    """A run joined with its qrels on codes.

    ``query_ids``: the sorted query ids of both (the order trec_eval prints),
    as a NumPy unicode array; ``run_queries`` and ``judged_queries``: the
    query code of every run and qrels row; ``grades``: the qrels' relevance;
    ``labels``: trec_eval's label of every run row; ``scores``: the run's
    scores (float64); ``doc_ids(rows)``: the document ids of run rows, as an
    object array of strings.
    """

    query_ids: np.ndarray
    run_queries: np.ndarray
    judged_queries: np.ndarray
    grades: np.ndarray
    labels: np.ndarray
    scores: np.ndarray
    doc_ids: Callable


def joint_query_codes(run_queries, run_ids, judged_queries, judged_ids):
    """``(query_ids, run_queries, judged_queries)``: both files' codes into the sorted ids.

    ``run_ids[run_queries]`` (``judged_ids[judged_queries]``) are the ids of
    the rows, one entry per distinct id.
    """
    run_ids, judged_ids = _unicode(run_ids), _unicode(judged_ids)
    query_ids = np.unique(np.concatenate((run_ids, judged_ids)))
    run_queries = np.searchsorted(query_ids, run_ids)[run_queries]
    judged_queries = np.searchsorted(query_ids, judged_ids)[judged_queries]
    return query_ids, run_queries, judged_queries


def _unicode(ids):
    """Ids (one per query) as a NumPy unicode array, which sorts and searches by code point."""
    if hasattr(ids, "to_numpy") and not hasattr(ids, "dtype"):  # an Arrow array
        ids = ids.to_numpy(zero_copy_only=False)
    return np.asarray(ids, dtype=object).astype(str).reshape(-1)


def judged_labels(n_rows, run_rows, judged_rows, grades):
    """trec_eval's label of each of ``n_rows`` run rows; ``run_rows`` are judged by ``judged_rows``.

    The label is the grade, ``JUDGED_UNJUDGED`` for a negative grade and
    ``NOT_JUDGED`` for a document the qrels do not judge for its query.
    """
    labels = np.full(n_rows, NOT_JUDGED, dtype=np.int64)
    found = grades[judged_rows]
    labels[run_rows] = np.where(found >= 0, found, JUDGED_UNJUDGED)
    return labels


def read_joined(qrels_path, run_path):
    """The :class:`JoinedRun` of two files, or None where the DataFrame path must decide."""
    from ._read import QRELS, RUN

    qrels = read_arrow_columns(normalize(read_bytes(qrels_path), os.fspath(qrels_path)), QRELS)
    if qrels is None:
        return None
    run = read_arrow_columns(normalize(read_bytes(run_path), os.fspath(run_path)), RUN)
    if run is None:
        return None
    import pyarrow.compute as pc

    query_ids, run_queries, judged_queries = joint_query_codes(
        *_query_codes(pc, run["query_id"]), *_query_codes(pc, qrels["query_id"])
    )
    n_queries = query_ids.shape[0]
    run_keys = pair_keys(run_queries, run["doc_id"])
    ranked = KeyTable(run_keys, run_queries, n_queries)
    del run_keys
    if ranked.repeated:
        return None
    judged_keys = pair_keys(judged_queries, qrels["doc_id"])
    if KeyTable(judged_keys, judged_queries, n_queries, find=False).repeated:
        return None
    # The qrels are the smaller file: each of their pairs is looked up among the run's.
    rows = ranked.find(judged_keys, judged_queries)
    del ranked, judged_keys
    judged_rows = np.flatnonzero(rows >= 0)
    run_rows = rows[judged_rows]
    # Confirm every judgment found (the table compared the queries): the same document id.
    same = pc.equal(pc.take(run["doc_id"], run_rows), pc.take(qrels["doc_id"], judged_rows))
    if pc.all(same).as_py() is False:
        return None
    grades = qrels["relevance"]
    docs = run["doc_id"]
    return JoinedRun(
        query_ids,
        run_queries,
        judged_queries,
        grades,
        judged_labels(run_queries.shape[0], run_rows, judged_rows, grades),
        run["score"],
        lambda rows: pc.take(docs, rows).to_numpy(zero_copy_only=False),
    )


def _query_codes(pc, column):
    """``(codes, ids)`` of an Arrow string column: ``ids[codes]`` are its values.

    From runs of equal ids when each query is one run of lines, as in most
    TREC files; else from Arrow's dictionary encoding.
    """
    n = len(column)
    change = pc.not_equal(column.slice(1), column.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.concatenate(([True], change)))
    ids = pc.take(column, starts)
    if pc.count_distinct(ids).as_py() == starts.shape[0]:
        return np.cumsum(np.concatenate(([False], change)), dtype=np.intp), ids
    encoded = pc.dictionary_encode(column)  # chunked: one dictionary for every chunk
    chunks = getattr(encoded, "chunks", [encoded])
    return np.concatenate([chunk.indices.to_numpy() for chunk in chunks]), chunks[-1].dictionary


def _finalize(x):
    """A finalizer in the manner of MurmurHash3's, in place: every input bit moves the high bits."""
    with np.errstate(over="ignore"):
        x ^= x >> _HALF
        x *= _C2
        x ^= x >> _SHIFT
    return x


def _absorb(hashes, words):
    """Mix one more word of each string into its hash, in place."""
    with np.errstate(over="ignore"):
        hashes ^= words
        hashes *= _C1
        hashes ^= hashes >> _SHIFT


def string_hashes(column, initial):
    """A 64-bit hash of every string of an Arrow string array (chunked or not), started per row.

    A function of the row's start value (an unsigned 64-bit integer) and of the
    string's bytes alone (the same in any chunk): the start value and the length,
    then the bytes eight at a time as little-endian words, the last one
    padded with zeros, each mixed in. Equal strings with equal initial values have
    equal hashes; others nearly never. Not finalized: its high bits are not
    yet uniform.
    """
    chunks = getattr(column, "chunks", [column])
    hashes, start = np.empty(len(column), dtype=np.uint64), 0
    for chunk in chunks:
        stop = start + len(chunk)
        hashes[start:stop] = _chunk_hashes(chunk, initial[start:stop])
        start = stop
    return hashes


def _chunk_hashes(chunk, initial):
    n = len(chunk)
    _, offset_buffer, data_buffer = chunk.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
    lengths = np.diff(offsets)
    first, size = int(offsets[0]), int(offsets[-1] - offsets[0])
    hashes = lengths.astype(np.uint64)
    with np.errstate(over="ignore"):
        hashes *= _MIX
        hashes += initial
    if not n or not size:
        return hashes
    data = np.frombuffer(data_buffer, dtype=np.uint8, count=size, offset=first)
    longest = int(lengths.max())
    n_words = -(-longest // 8)
    if int(lengths.min()) == longest:
        # Strings of one length lie end to end: rows of a matrix, padded to whole words.
        words = np.zeros((n, 8 * n_words), dtype=np.uint8)
        words[:, :longest] = data.reshape(n, longest)
        words = words.view("<u8")
        for word in range(n_words):
            _absorb(hashes, words[:, word])
        return hashes
    # Eight bytes read at any string's start: an unaligned view of the bytes,
    # eight zeros after the last.
    padded = np.zeros(size + 8, dtype=np.uint8)
    padded[:size] = data
    windows = np.ndarray((size + 1,), dtype="<u8", buffer=padded, strides=(1,))
    starts = offsets[:-1].astype(np.intp)
    starts -= first
    rows = None  # every row
    for word in range(n_words):
        if word and rows is None and int(lengths.min()) <= 8 * word:
            rows = np.flatnonzero(lengths > 8 * word)
        if rows is None:
            values = windows[starts]
            values &= _LOW_BYTES[np.minimum(lengths - 8 * word, 8)]
            _absorb(hashes, values)
        else:
            values = windows[starts[rows]]
            values &= _LOW_BYTES[np.minimum(lengths[rows] - 8 * word, 8)]
            part = hashes[rows]
            _absorb(part, values)
            hashes[rows] = part
            rows = rows[lengths[rows] > 8 * (word + 1)]
        starts += 8
    return hashes


def pair_keys(query_codes, doc_ids):
    """One 64-bit key per (query, document) pair, equal for equal pairs, uniform in every bit."""
    initial = query_codes.astype(np.uint64)
    with np.errstate(over="ignore"):
        initial *= _C2
    return _finalize(string_hashes(doc_ids, initial))


class KeyTable:
    """The row of each (query, 64-bit key) pair, found by scatter and gather.

    The table gives each query a region of twice as many slots as it has
    keys, so that the rows of a query (neighbours in a file grouped by
    query) meet in a few cache lines: a key's slot in its query's region is
    taken from its high bits. One vectorized scatter gives each slot one of
    the rows that share it; the keys that lost their slot go to a table of
    their own, which takes other bits of the keys, and so on until none is
    left (each level holds about a fifth of the one before). ``repeated``
    says whether a pair may appear twice: equal pairs share a slot at every
    level, so at some level one of them wins it and the other finds its own
    key there; a level where most keys lost (a hash unfit for these ids)
    counts too, and the caller then takes its exact path.
    """

    def __init__(self, keys, queries, n_queries, find=True, level=0):
        n = keys.shape[0]
        self.keys, self.queries = keys, queries
        # Level 0 reads the keys' high bits; each further level first
        # multiplies them by its own odd number.
        self.multiplier = np.uint64((0x9E3779B97F4A7C15 * level | 1) % 2**64)
        counts = np.bincount(queries, minlength=n_queries)
        self.sizes = 2 * counts.astype(np.uint64)
        self.starts = np.cumsum(self.sizes) - self.sizes
        slots = self._slots(keys, queries)
        rows = np.arange(n, dtype=code_dtype(n))
        table = np.full(2 * n + 1, -1, dtype=rows.dtype)
        table[slots] = rows
        winners = table[slots]
        lost = np.flatnonzero(winners != rows)
        lost_keys = keys[lost]
        self.repeated = 2 * lost.shape[0] > max(n, 64) or bool(
            ((lost_keys == keys[winners[lost]]) & (queries[lost] == queries[winners[lost]])).any()
        )
        self.lost_rows = lost
        self.lost = None
        if lost.shape[0] and not self.repeated:
            self.lost = KeyTable(lost_keys, queries[lost], n_queries, find, level + 1)
            self.repeated = self.lost.repeated
        if find:
            self.table = table
            self.spilled = np.zeros(table.shape[0], dtype=bool)
            self.spilled[slots[lost]] = True

    def _slots(self, keys, queries):
        """Each key's slot: in its query's region, at the place its high 32 bits say."""
        with np.errstate(over="ignore"):
            high = keys * self.multiplier if self.multiplier != 1 else keys.copy()
            high >>= np.uint64(32)
            high *= self.sizes[queries]
        high >>= np.uint64(32)
        high += self.starts[queries]
        return high.view(np.int64)

    def find(self, keys, queries):
        """The row of each (query, key) pair, -1 for a pair not in the table."""
        slots = self._slots(keys, queries)
        rows = self.table[slots]
        # An empty slot (-1) reads the last row: checked below.
        hit = (self.keys[rows] == keys) & (self.queries[rows] == queries)
        hit &= rows >= 0
        rows[~hit] = -1
        if self.lost is not None:
            maybe = np.flatnonzero(~hit & self.spilled[slots])
            found = self.lost.find(keys[maybe], queries[maybe])
            rows[maybe] = np.where(found >= 0, self.lost_rows[found], -1)
        return rows
