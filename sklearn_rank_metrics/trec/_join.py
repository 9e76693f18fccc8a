"""The (query, document) pairs of a run found among its qrels', a block of queries at a time.

Both files come grouped: each query one run of rows, the qrels' queries in
the run's order, those the run lacks after them (:func:`~._coded.read_joined`
reorders the files where they are not). A *block* is a run of whole queries
of about ``BLOCK_ROWS`` rows of both files, small enough for the cache. In
each block:

- the document ids become rows of 64-bit words, read from the Arrow
  buffers (:class:`StringRows`), and each a 64-bit key of its words and its
  query (:func:`string_keys`);
- the run's keys fill :class:`SlotTables`, where a key that finds its own
  value in the slot it lost is a repeated pair; the qrels' keys fill tables
  of their own for the same check, then are looked up in the run's;
- every match found is confirmed on the query and on the words of the
  document ids.

A repeated key (a pair twice in a file, or two pairs with one key), or a
match the bytes refuse, gives up: :func:`match_pairs` returns None and the
caller's exact path decides. Blocks are independent and run on the call's
threads; a block's temporaries are a few arrays of its rows, never of the
file's.
"""

from typing import NamedTuple

import numpy as np

from .._engine._factorize import code_dtype

# Rows of both files per block: the keys, tables and words of one block (a
# few megabytes) stay in the cache, and each NumPy call has enough work that
# two threads, which take turns holding the interpreter between calls, both
# keep busy (measured: 1.7x on two cores, against 1.2x with half as many).
BLOCK_ROWS = 1 << 17

_MIX = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xFF51AFD7ED558CCD)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT, _HALF = np.uint64(29), np.uint64(33)
# _LOW_BYTES[k] keeps the low k bytes of a little-endian word.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=object).astype(np.uint64)
# A level of slot tables where more than this share of the keys lost their
# slot means a hash unfit for these ids: the caller's exact path is faster.
_MAX_LOST_SHARE = 0.5
# Levels of slot tables; the keys left after them (about 1 % of a block) are sorted.
TABLE_LEVELS = 3
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
        chunks = getattr(column, "chunks", [column])
        self.bounds = np.cumsum([0] + [len(chunk) for chunk in chunks])
        self.offsets, self.data = [], []
        for chunk in chunks:
            _, offset_buffer, data_buffer = chunk.buffers()
            width = 8 if chunk.type.id == _large_string_id() else 4
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


def _large_string_id():
    import pyarrow as pa

    return pa.large_string().id


class Scratch:
    """A byte buffer reused from block to block (one per thread), grown as needed."""

    def __init__(self):
        self._buffer = np.empty(0, dtype=np.uint8)

    def buffer(self, size):
        if self._buffer.shape[0] < size:
            self._buffer = np.empty(max(size, 2 * self._buffer.shape[0]), dtype=np.uint8)
        return self._buffer[:size]


def string_keys(words, lengths, queries):
    """A 64-bit key of each string and its query: equal for equal pairs, uniform in every bit.

    ``words`` and ``lengths`` are :meth:`StringRows.words`'. The key mixes
    in the query code and the length, then each of the string's own words
    (never the zero words past its end, so that the key does not depend on
    the longest string beside it), then finalizes in the manner of
    MurmurHash3, so that every bit depends on every input bit.
    """
    keys = queries.astype(np.uint64)
    shortest = int(lengths.min()) if lengths.shape[0] else 0
    with np.errstate(over="ignore"):
        keys *= _C2
        keys += lengths.astype(np.uint64) * _MIX
        for word in range(words.shape[1]):
            if 8 * word < shortest:
                _absorb(keys, words[:, word])
                continue
            rows = np.flatnonzero(lengths > 8 * word)
            part = keys[rows]
            _absorb(part, words[rows, word])
            keys[rows] = part
        keys ^= keys >> _HALF
        keys *= _C2
        keys ^= keys >> _SHIFT
    return keys


def _absorb(keys, words):
    """Mix one more word of each string into its key, in place."""
    keys ^= words
    keys *= _C1
    keys ^= keys >> _SHIFT


def _slots(keys, level, bits):
    """Each key's slot in a level's table of ``2**bits`` slots.

    Level 0 takes the keys' high bits; each further level first multiplies
    them by an odd constant of its own, so that keys that shared a slot are
    spread again.
    """
    if level:
        with np.errstate(over="ignore"):
            keys = keys * np.uint64((0x9E3779B97F4A7C15 * level | 1) % 2**64)
    return np.right_shift(keys, np.uint64(64 - bits)).view(np.int64)


class SlotTables:
    """Where each of a block's keys is, found by scatter and gather.

    A level's table has at least twice as many slots as it places keys. One
    vectorized scatter gives each slot one of the keys hashed to it; the
    keys that lost their slot go to the next level (about a fifth of the
    keys a level), and those left after ``TABLE_LEVELS`` levels (about one
    in a hundred) to a sorted array. Equal keys share a slot at every
    level, so at some level one of them wins it and the other finds its own
    value there, or both reach the sorted array, where they are neighbours:
    ``repeated`` is then True, as it is when most keys of a level lost (a
    hash unfit for these ids). A slot whose key lost is marked *spilled*: a
    key looked up there may be further down.
    """

    def __init__(self, keys):
        self.keys = keys
        self.levels = []  # (bits, table of rows, spilled slots or None)
        self.repeated = False
        self.rest = self.rest_keys = None  # rows left after the tables, and their sorted keys
        rows = np.arange(keys.shape[0], dtype=code_dtype(keys.shape[0]))
        level_keys = keys
        while rows.shape[0] and len(self.levels) < TABLE_LEVELS:
            level = len(self.levels)
            bits = max(int(2 * rows.shape[0] - 1).bit_length(), 4)
            slots = _slots(level_keys, level, bits)
            table = np.full(1 << bits, -1, dtype=rows.dtype)
            table[slots] = rows
            winners = table[slots]
            lost = np.flatnonzero(winners != rows)
            spilled = None
            if lost.shape[0]:
                level_keys = level_keys[lost]
                if (
                    lost.shape[0] > _MAX_LOST_SHARE * max(rows.shape[0], 64)
                    or (level_keys == keys[winners[lost]]).any()
                ):
                    self.repeated = True
                    return
                spilled = np.zeros(1 << bits, dtype=bool)
                spilled[slots[lost]] = True
            self.levels.append((bits, table, spilled))
            rows = rows[lost]
        if rows.shape[0]:
            order = np.argsort(level_keys)
            self.rest, self.rest_keys = rows[order], level_keys[order]
            self.repeated = bool((self.rest_keys[1:] == self.rest_keys[:-1]).any())

    def find(self, keys):
        """The row of each key among the table's keys, -1 where it is not."""
        found = np.full(keys.shape[0], -1, dtype=np.int64)
        pending = np.arange(keys.shape[0])
        for level, (bits, table, spilled) in enumerate(self.levels):
            slots = _slots(keys[pending], level, bits)
            rows = table[slots]
            # An empty slot (-1) reads the last key: the row check refuses it.
            hit = (self.keys[rows] == keys[pending]) & (rows >= 0)
            found[pending[hit]] = rows[hit]
            if spilled is None:
                return found
            pending = pending[~hit & spilled[slots]]
        if self.rest is not None and pending.shape[0]:
            place = np.searchsorted(self.rest_keys, keys[pending])
            place = np.minimum(place, self.rest.shape[0] - 1)
            hit = self.rest_keys[place] == keys[pending]
            found[pending[hit]] = self.rest[place[hit]]
        return found


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


def _blocks(run, judged):
    """``(first, last)`` query positions of each block: whole queries, about BLOCK_ROWS rows."""
    rows = run.bounds + judged.bounds  # rows of both files before each query of the sequence
    cuts = np.searchsorted(rows, np.arange(BLOCK_ROWS, int(rows[-1]), BLOCK_ROWS))
    cuts = np.unique(np.concatenate(([0], cuts, [rows.shape[0] - 1])))
    return list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))


def _match_block(run, judged, first, last, scratch):
    """``(judged rows, run rows)`` of the pairs of queries ``first:last`` found in both, or None."""
    run_start, run_stop = int(run.bounds[first]), int(run.bounds[last])
    judged_start, judged_stop = int(judged.bounds[first]), int(judged.bounds[last])
    judged_words = judged.docs.words(judged_start, judged_stop, scratch)
    run_words = run.docs.words(run_start, run_stop, scratch)
    if judged_words is None or run_words is None:
        return None
    judged_queries = judged.queries[judged_start:judged_stop]
    judged_keys = string_keys(*judged_words, judged_queries)
    if SlotTables(judged_keys).repeated:
        return None
    run_queries = run.queries[run_start:run_stop]
    ranked = SlotTables(string_keys(*run_words, run_queries))
    if ranked.repeated:
        return None
    found = ranked.find(judged_keys)
    judged_rows = np.flatnonzero(found >= 0)
    run_rows = found[judged_rows]
    # A key only proposes: the query, the length and the bytes of the id
    # confirm (words past the shorter matrix's are zero for ids of equal length).
    n_words = min(run_words[0].shape[1], judged_words[0].shape[1])
    confirm = [
        (run_queries, judged_queries),
        (run_words[1], judged_words[1]),
        (run_words[0][:, :n_words], judged_words[0][:, :n_words]),
    ]
    for run_values, judged_values in confirm:
        if not np.array_equal(run_values[run_rows], judged_values[judged_rows]):
            return None
    return judged_rows + judged_start, run_rows + run_start


def match_pairs(run, judged, pool=None, n_threads=1):
    """``(judged_rows, run_rows)``: every pair of the qrels found in the run, or None.

    ``run`` and ``judged`` are :class:`GroupedFile` on the same sequence of
    queries. None when a pair appears twice in either file, or a hash
    collision leaves a doubt: the caller's exact path then decides.
    """
    blocks = _blocks(run, judged)
    # A few tasks a thread, each a run of consecutive blocks with its own buffers.
    n_tasks = min(len(blocks), 4 * n_threads)
    tasks = [blocks[i * len(blocks) // n_tasks : (i + 1) * len(blocks) // n_tasks] for i in range(n_tasks)]

    def task(block_list):
        scratch = Scratch()
        matched = []
        for first, last in block_list:
            pairs = _match_block(run, judged, first, last, scratch)
            if pairs is None:
                return None
            matched.append(pairs)
        return matched

    results = [task(t) for t in tasks] if pool is None else list(pool.map(task, tasks))
    if any(result is None for result in results):
        return None
    pairs = [pair for result in results for pair in result]
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate([j for j, _ in pairs]), np.concatenate([r for _, r in pairs])
