"""The (query, document) pairs of a run found among its qrels', a block of queries at a time.

Both files come grouped: each query one run of rows, the qrels' queries in
the run's order, those the run lacks after them (:func:`~._coded.read_joined`
reorders the files where they are not). A *block* is a run of whole queries
of about ``BLOCK_ROWS`` rows of both files, small enough for the cache. In
each block:

- the document ids become rows of 64-bit words, read from the Arrow
  buffers (:class:`StringRows`), and each a 64-bit key of its words and its
  query (``string_keys`` of the engine's one hashing toolkit,
  ``_engine/prepare/_hashing.py``);
- the run's keys fill ``SlotTables`` (the same toolkit), where a key that finds its own
  value in the slot it lost is a repeated pair; the qrels' keys fill tables
  of their own for the same check, then are looked up in the run's;
- every match found is confirmed on the query and on the words of the
  document ids.

A repeated key (a pair twice in a file, or two pairs with one key), or a
match the words refuse, gives up: :func:`match_pairs` returns None and the
caller's exact path decides. :func:`pairs_appear_once` makes the same check
of repeated pairs on one file (the readers' check of duplicate pairs).
Blocks are independent and run on the call's threads; a block's temporaries
are a few arrays of its rows, never of the file's.
"""

from typing import NamedTuple

import numpy as np

from .._engine.prepare._hashing import SlotTables, string_keys

# Rows of both files per block: the keys, tables and words of one block (a
# few megabytes) stay in the cache, and each NumPy call has enough work that
# two threads, which take turns holding the interpreter between calls, both
# keep busy (measured on two cores at 1e6 and 1e7 run lines: 1.45-1.5x one
# thread's speed, against 0.85-1.35x with blocks half as large).
BLOCK_ROWS = 1 << 17

# _LOW_BYTES[k] keeps the low k bytes of a little-endian word.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=object).astype(np.uint64)
# A block's ids as rows of words may take this many times their own bytes
# (plus a megabyte); beyond that (a few very long ids among many short
# ones) the caller's exact path joins the files.
MAX_WORDS_SHARE = 8


class StringRows:
    """The document ids of an Arrow string column as rows of words, a range of rows at a time.

    Chunks are read where Arrow holds them (offsets and data buffers, no
    copy of the column); :meth:`words` gives the bytes of a range of rows as
    a matrix of little-endian words, a row per string, zero-padded.
    """

    def __init__(self, column):
        import pyarrow as pa

        chunks = getattr(column, "chunks", [column])
        self.bounds = np.cumsum([0] + [len(chunk) for chunk in chunks])
        self.offsets, self.data = [], []
        for chunk in chunks:
            _, offset_buffer, data_buffer = chunk.buffers()
            width = 8 if pa.types.is_large_string(chunk.type) else 4
            offsets = np.frombuffer(
                offset_buffer, dtype=f"<i{width}", count=len(chunk) + 1, offset=chunk.offset * width
            )
            self.offsets.append(offsets)
            self.data.append(
                np.zeros(0, np.uint8) if data_buffer is None else np.frombuffer(data_buffer, np.uint8)
            )

    def _pieces(self, start, stop):
        """``(chunk, offsets)`` of each chunk's part of rows ``start:stop``."""
        first = int(np.searchsorted(self.bounds, start, side="right")) - 1
        pieces = []
        while start < stop:
            end = min(stop, int(self.bounds[first + 1]))
            offsets = self.offsets[first][start - self.bounds[first] : end - self.bounds[first] + 1]
            pieces.append((first, offsets))
            start, first = end, first + 1
        return pieces

    def words(self, start, stop, scratch):
        """``(words, lengths)`` of rows ``start:stop``, or None for ids too long to hold so.

        ``words[i]`` holds string ``i``'s bytes as little-endian uint64 words
        (as many as the longest string needs), zero after its end: two
        strings are equal exactly when their lengths and rows of words are.
        None where the matrix would exceed ``MAX_WORDS_SHARE`` times the
        strings' own size (a few very long ids among short ones).
        ``scratch`` (a :class:`Scratch`) holds the bytes of strings of
        several lengths on their way.
        """
        pieces = self._pieces(start, stop)
        lengths = np.concatenate([np.diff(offsets) for _, offsets in pieces] + [np.zeros(0, int)])
        n = lengths.shape[0]
        longest = int(lengths.max()) if n else 0
        size = sum(int(offsets[-1] - offsets[0]) for _, offsets in pieces)
        n_words = -(-longest // 8)
        if n * n_words * 8 > MAX_WORDS_SHARE * size + (1 << 20):
            return None
        words = np.zeros((n, n_words), dtype=np.uint64)
        if n and int(lengths.min()) == longest:
            # Strings of one length lie end to end: a reshape of the bytes.
            matrix, row = words.view(np.uint8), 0
            for chunk, offsets in pieces:
                count = offsets.shape[0] - 1
                low, high = int(offsets[0]), int(offsets[-1])
                matrix[row : row + count, :longest] = self.data[chunk][low:high].reshape(count, longest)
                row += count
            return words, lengths
        # Strings of several lengths: their bytes end to end, eight zero bytes
        # after them, then the word at each string's start, masked to its end.
        data = scratch.buffer(size + 8)
        starts = np.empty(n, dtype=np.int64)
        position = row = 0
        for chunk, offsets in pieces:
            low, high, count = int(offsets[0]), int(offsets[-1]), offsets.shape[0] - 1
            data[position : position + high - low] = self.data[chunk][low:high]
            np.subtract(offsets[:-1], low - position, out=starts[row : row + count])
            position, row = position + high - low, row + count
        data[position : position + 8] = 0
        at_byte = np.ndarray((position + 1,), dtype="<u8", buffer=data, strides=(1,))
        for word in range(n_words):
            rows = np.flatnonzero(lengths > 8 * word)
            column = at_byte[starts[rows] + 8 * word]
            column &= _LOW_BYTES[np.minimum(lengths[rows] - 8 * word, 8)]
            words[rows, word] = column
        return words, lengths


class Scratch:
    """A byte buffer reused from block to block (one per thread), grown as needed."""

    def __init__(self):
        self._buffer = np.empty(0, dtype=np.uint8)

    def buffer(self, size):
        if self._buffer.shape[0] < size:
            self._buffer = np.empty(max(size, 2 * self._buffer.shape[0]), dtype=np.uint8)
        return self._buffer[:size]


class GroupedFile(NamedTuple):
    """One file's side of the join: rows grouped by query.

    ``queries``: the query code of every row; ``bounds[i]:bounds[i + 1]``:
    the rows of the ``i``-th query of the join's sequence (the run's queries
    in the run's order, then the queries only the qrels have; a query the
    file lacks has none); ``docs``: the document ids (:class:`StringRows`).
    """

    queries: np.ndarray
    bounds: np.ndarray
    docs: StringRows


def _blocks(*files):
    """``(first, last)`` query positions of each block: whole queries, about BLOCK_ROWS rows."""
    rows = sum(file.bounds for file in files)  # rows of the files before each query of the sequence
    cuts = np.searchsorted(rows, np.arange(BLOCK_ROWS, int(rows[-1]), BLOCK_ROWS))
    cuts = np.unique(np.concatenate(([0], cuts, [rows.shape[0] - 1])))
    return list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))


def _in_blocks(blocks, block_work, pool, n_threads):
    """``[block_work(first, last, scratch) for each block]``, or None where one returns None.

    The blocks run in a few tasks a thread, each a run of consecutive blocks
    with its own buffer (:class:`Scratch`); a task stops at its first None.
    """
    n_tasks = min(len(blocks), 4 * n_threads)
    tasks = [blocks[i * len(blocks) // n_tasks : (i + 1) * len(blocks) // n_tasks] for i in range(n_tasks)]

    def task(block_list):
        scratch, outcomes = Scratch(), []
        for first, last in block_list:
            outcome = block_work(first, last, scratch)
            if outcome is None:
                return None
            outcomes.append(outcome)
        return outcomes

    results = [task(t) for t in tasks] if pool is None else list(pool.map(task, tasks))
    if any(result is None for result in results):
        return None
    return [outcome for result in results for outcome in result]


def _block_keys(file, first, last, scratch):
    """``(keys, words, lengths, queries)`` of a file's rows of queries ``first:last``, or None.

    None where the ids are too long to hold as words (:meth:`StringRows.words`).
    """
    start, stop = int(file.bounds[first]), int(file.bounds[last])
    words = file.docs.words(start, stop, scratch)
    if words is None:
        return None
    queries = file.queries[start:stop]
    return string_keys(*words, queries), *words, queries


def _match_block(run, judged, first, last, scratch):
    """``(judged rows, run rows)`` of the pairs of queries ``first:last`` found in both, or None."""
    judged_block, run_block = (_block_keys(file, first, last, scratch) for file in (judged, run))
    if judged_block is None or run_block is None or SlotTables(judged_block[0]).repeated:
        return None
    ranked = SlotTables(run_block[0])
    if ranked.repeated:
        return None
    found = ranked.find(judged_block[0])
    judged_rows = np.flatnonzero(found >= 0)
    run_rows = found[judged_rows]
    # A key only proposes: the length, the bytes of the id and the query
    # confirm (words past the shorter matrix's are zero for ids of equal length).
    _, judged_words, judged_lengths, judged_queries = judged_block
    _, run_words, run_lengths, run_queries = run_block
    n_words = min(run_words.shape[1], judged_words.shape[1])
    confirm = [
        (run_lengths, judged_lengths),
        (run_words[:, :n_words], judged_words[:, :n_words]),
        (run_queries, judged_queries),
    ]
    for run_values, judged_values in confirm:
        if not np.array_equal(run_values[run_rows], judged_values[judged_rows]):
            return None
    return judged_rows + int(judged.bounds[first]), run_rows + int(run.bounds[first])


def match_pairs(run, judged, pool=None, n_threads=1):
    """``(judged_rows, run_rows)``: every pair of the qrels found in the run, or None.

    ``run`` and ``judged`` are :class:`GroupedFile` on the same sequence of
    queries. None when a pair appears twice in either file, or a hash
    collision leaves a doubt: the caller's exact path then decides.
    """

    def match(first, last, scratch):
        return _match_block(run, judged, first, last, scratch)

    pairs = _in_blocks(_blocks(run, judged), match, pool, n_threads)
    if pairs is None:
        return None
    pairs = [(np.zeros(0, np.int64), np.zeros(0, np.int64))] + pairs
    return np.concatenate([j for j, _ in pairs]), np.concatenate([r for _, r in pairs])


def pairs_appear_once(file, pool=None, n_threads=1):
    """Whether every (query, document) pair of a :class:`GroupedFile` appears once.

    True is certain; False means a pair may appear twice (or two pairs
    share a key, or ids are too long to hold as words): the caller's exact
    check then decides, and names the pair.
    """

    def once(first, last, scratch):
        block = _block_keys(file, first, last, scratch)
        return None if block is None or SlotTables(block[0]).repeated else True

    return _in_blocks(_blocks(file), once, pool, n_threads) is not None
