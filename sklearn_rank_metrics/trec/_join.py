"""The (query, document) pairs of a run found among its qrels', a block of queries at a time.

Both files come grouped: each query one run of rows, the qrels' queries in
the run's order, those the run lacks after them (:func:`~._coded.read_joined`
reorders the files where they are not). A *block* is a run of whole queries
of about ``BLOCK_ROWS`` rows of both files, small enough for the cache. In
each block:

- every document id becomes a 64-bit key of its bytes and its query
  (:func:`string_keys`), read eight bytes at a time from the Arrow buffers
  (:class:`StringRows`);
- the run's keys fill :class:`SlotTables`, where a key that finds its own
  value in the slot it lost is a repeated pair; the qrels' keys fill tables
  of their own for the same check, then are looked up in the run's;
- every match found is confirmed on the query and on the bytes of the
  document ids (:func:`same_strings`).

A repeated key (a pair twice in a file, or two pairs with one key), or a
match the bytes refuse, gives up: :func:`match_pairs` returns None and the
caller's exact path decides. Blocks are independent and run on the call's
threads; a block's temporaries are a few arrays of its rows, never of the
file's.
"""

from typing import NamedTuple

import numpy as np

from .._engine._factorize import code_dtype

# Rows of both files per block: the keys, tables and bytes of one block stay in the cache.
BLOCK_ROWS = 1 << 16

_MIX = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xFF51AFD7ED558CCD)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT, _HALF = np.uint64(29), np.uint64(33)
# _LOW_BYTES[k] keeps the low k bytes of a little-endian word.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=object).astype(np.uint64)
# A level of slot tables where more than this share of the keys lost their
# slot means a hash unfit for these ids: the caller's exact path is faster.
_MAX_LOST_SHARE = 0.5


class StringRows:
    """The bytes of the rows of an Arrow string column, a range of rows at a time.

    Chunks are read where Arrow holds them (offsets and data buffers, no
    copy); :meth:`rows` copies the bytes of a range of rows end to end into
    a buffer the caller reuses.
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

    def rows(self, start, stop, scratch):
        """``(data, starts, lengths)`` of rows ``start:stop``.

        ``data`` holds their bytes end to end, then eight zero bytes (a word
        read at any string's start stays inside); ``scratch`` is a
        :class:`Scratch` whose buffer is reused and grown as needed.
        """
        first = int(np.searchsorted(self.bounds, start, side="right")) - 1
        pieces = []
        while start < stop:
            end = min(stop, int(self.bounds[first + 1]))
            offsets = self.offsets[first][start - self.bounds[first] : end - self.bounds[first] + 1]
            pieces.append((first, offsets))
            start, first = end, first + 1
        size = sum(int(offsets[-1] - offsets[0]) for _, offsets in pieces)
        data = scratch.buffer(size + 8)
        starts = np.empty(sum(offsets.shape[0] - 1 for _, offsets in pieces), dtype=np.int64)
        lengths = np.empty_like(starts)
        position = row = 0
        for chunk, offsets in pieces:
            low, high, count = int(offsets[0]), int(offsets[-1]), offsets.shape[0] - 1
            data[position : position + high - low] = self.data[chunk][low:high]
            np.subtract(offsets[:-1], low - position, out=starts[row : row + count])
            np.subtract(offsets[1:], offsets[:-1], out=lengths[row : row + count])
            position, row = position + high - low, row + count
        data[position : position + 8] = 0
        return data[: position + 8], starts, lengths


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


def _words(data):
    """Every 8-byte little-endian word of ``data``, one starting at each byte (a strided view)."""
    return np.ndarray((data.shape[0] - 7,), dtype="<u8", buffer=data, strides=(1,))


def string_keys(data, starts, lengths, queries):
    """A 64-bit key of each string and its query: equal for equal pairs, uniform in every bit.

    String ``i`` is ``data[starts[i] : starts[i] + lengths[i]]`` (strings end
    to end, eight zero bytes after the last, as :meth:`StringRows.rows`
    gives them). The key mixes in the query code, the length, then the
    bytes eight at a time as little-endian words (the last one padded with
    zeros), then finalizes in the manner of MurmurHash3, so that every bit
    depends on every input bit.
    """
    keys = queries.astype(np.uint64)
    with np.errstate(over="ignore"):
        keys *= _C2
        keys += lengths.astype(np.uint64) * _MIX
        if keys.shape[0]:
            words = _words(data)
            shortest, longest = int(lengths.min()), int(lengths.max())
            for word in range(-(-longest // 8)):
                if shortest == longest:
                    # Strings of one length: the word of every row is a strided view.
                    values = words[int(starts[0]) + 8 * word :: longest][: keys.shape[0]]
                    values = values & _LOW_BYTES[min(longest - 8 * word, 8)]
                    _absorb(keys, values)
                    continue
                rows = np.flatnonzero(lengths > 8 * word) if shortest <= 8 * word else None
                values = words[starts + 8 * word if rows is None else starts[rows] + 8 * word]
                values &= _LOW_BYTES[np.minimum((lengths if rows is None else lengths[rows]) - 8 * word, 8)]
                if rows is None:
                    _absorb(keys, values)
                else:
                    part = keys[rows]
                    _absorb(part, values)
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


def same_strings(data, starts, lengths, other_data, other_starts, other_lengths):
    """Whether string ``i`` of one buffer equals string ``i`` of the other, for every ``i``."""
    if not np.array_equal(lengths, other_lengths):
        return False
    words, other_words = _words(data), _words(other_data)
    longest = int(lengths.max()) if lengths.shape[0] else 0
    rows = np.arange(lengths.shape[0])
    for word in range(-(-longest // 8)):
        rows = rows[lengths[rows] > 8 * word]
        differ = words[starts[rows] + 8 * word] ^ other_words[other_starts[rows] + 8 * word]
        differ &= _LOW_BYTES[np.minimum(lengths[rows] - 8 * word, 8)]
        if differ.any():
            return False
    return True


def _slots(keys, level, bits):
    """Each key's slot in a level's table of ``2**bits`` slots.

    Level 0 takes the keys' high bits; each further level first multiplies
    them by an odd constant of its own, so that keys that shared a slot are
    spread again.
    """
    with np.errstate(over="ignore"):
        mixed = keys * np.uint64((0x9E3779B97F4A7C15 * level | 1) % 2**64) if level else keys.copy()
    mixed >>= np.uint64(64 - bits)
    return mixed.view(np.int64)


class SlotTables:
    """Where each of a block's keys is, found by scatter and gather.

    A level's table has at least twice as many slots as it places keys. One
    vectorized scatter gives each slot one of the keys hashed to it; the
    keys that lost their slot go to the next level, and so on until none is
    left (each level holds about a fifth of the one before). Equal keys
    share a slot at every level, so at some level one of them wins it and
    the other finds its own value there: ``repeated`` is then True, as it is
    when most keys of a level lost (a hash unfit for these ids). A slot
    whose key lost is marked *spilled*: a key looked up there may be further
    down.
    """

    def __init__(self, keys):
        self.keys = keys
        self.levels = []  # (bits, table of rows, spilled slots or None)
        self.repeated = False
        rows = np.arange(keys.shape[0], dtype=code_dtype(keys.shape[0]))
        level_keys = keys
        while rows.shape[0]:
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
                break
            pending = pending[~hit & spilled[slots]]
            if not pending.shape[0]:
                break
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
    data, starts, lengths = judged.docs.rows(judged_start, judged_stop, scratch[0])
    judged_queries = judged.queries[judged_start:judged_stop]
    judged_keys = string_keys(data, starts, lengths, judged_queries)
    if SlotTables(judged_keys).repeated:
        return None
    if run_start == run_stop:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    run_data, run_starts, run_lengths = run.docs.rows(run_start, run_stop, scratch[1])
    run_queries = run.queries[run_start:run_stop]
    ranked = SlotTables(string_keys(run_data, run_starts, run_lengths, run_queries))
    if ranked.repeated:
        return None
    found = ranked.find(judged_keys)
    judged_rows = np.flatnonzero(found >= 0)
    run_rows = found[judged_rows]
    # A key only proposes: the query and the bytes of the id confirm.
    if not np.array_equal(run_queries[run_rows], judged_queries[judged_rows]):
        return None
    if not same_strings(
        run_data, run_starts[run_rows], run_lengths[run_rows],
        data, starts[judged_rows], lengths[judged_rows],
    ):  # fmt: skip
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
        scratch = (Scratch(), Scratch())
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
