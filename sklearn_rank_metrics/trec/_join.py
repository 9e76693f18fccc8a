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
match the words refuse, gives up: :func:`match_pairs` returns None and the
caller's exact path decides. :func:`pairs_appear_once` makes the same check
of repeated pairs on one file (the readers' check of duplicate pairs).
Blocks are independent and run on the call's threads; a block's temporaries
are a few arrays of its rows, never of the file's.
"""

from typing import NamedTuple

import numpy as np

from .._engine._factorize import code_dtype

# Rows of both files per block: the keys, tables and words of one block (a
# few megabytes) stay in the cache, and each NumPy call has enough work that
# two threads, which take turns holding the interpreter between calls, both
# keep busy (measured on two cores at 1e6 and 1e7 run lines: 1.45-1.5x one
# thread's speed, against 0.85-1.35x with blocks half as large).
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
