"""The one hashing toolkit: ids as 64-bit words, words as keys, keys as slots of tables.

Used where ids are too many or too scattered to sort: query ids factorized
by hashing (:mod:`._factorize`) and the (query, document) pairs a TREC run
shares with its qrels (``trec._join``). Every piece is a NumPy pass over a
block of rows:

- strings as rows of uint64 words: NumPy ``<U`` strings
  (:func:`string_words`; the Arrow strings of a file are read as words by
  ``trec._join.StringRows``);
- a row of words as one 64-bit key: :func:`hash_words` (fixed-width rows,
  NumPy's NUL padding included), :func:`string_keys` (rows of their own
  lengths, with a query code, finalized in the manner of MurmurHash3);
- a key's slot, from its top bits (Fibonacci hashing, :func:`slots`);
- tables filled by one vectorized scatter: :func:`hash_table` (one level,
  keys that share a slot left to the caller) and :class:`SlotTables`
  (levels, then a sorted rest; repeated keys detected).

A hash only proposes: every user confirms a match on the ids themselves,
and falls back to an exact path where a collision leaves a doubt.
"""

import numpy as np

from ._arrays import code_dtype, map_blocks

# Fibonacci hashing: the top bits of key * 2**64 / golden ratio. The constant
# is odd, so the product is a bijection on 64-bit words.
FIBONACCI = np.uint64(0x9E3779B97F4A7C15)
# Mixing of a word into a key: xor, multiply by an odd constant (a
# bijection), fold the high half down so that every bit of the word affects
# the low bits the next step multiplies. MurmurHash3's 64-bit constants.
WORD_MIX = np.uint64(0xFF51AFD7ED558CCD)
FINAL_MIX = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT, _HALF = np.uint64(29), np.uint64(33)


def _level_multiplier(level):
    """The odd constant that spreads the keys of a level of tables: :data:`FIBONACCI` at level 1."""
    return np.uint64((int(FIBONACCI) * level | 1) % 2**64)


def slots(keys, bits, level=1):
    """The slot of each uint64 key in a table of ``2**bits`` slots, as int64.

    Level 0 takes the keys' own top bits (keys already uniform in every
    bit, :func:`string_keys`); each further level first multiplies them by
    an odd constant of its own (level 1: Fibonacci hashing), so that keys
    that shared a slot at one level are spread again at the next.
    """
    shift = np.uint64(64 - bits)
    if not level:
        return np.right_shift(keys, shift).view(np.int64)
    with np.errstate(over="ignore"):
        hashed = keys * _level_multiplier(level)
    hashed >>= shift
    return hashed.view(np.int64)  # below 2**bits: the same value as a signed word


def hash_table(keys, bits, blocks, pool):
    """A table of ``2**bits`` slots, each holding one of the keys hashed to it (0 if none).

    Returns it with a mask of its occupied slots (a slot holds a nonzero key,
    or the key 0, which hashes to slot 0). Concurrent scatters leave one of
    the keys in a slot, which is all that is needed. ``blocks``: the
    ``(start, stop)`` row blocks, placed on the call's threads (``pool``).
    """
    table = np.zeros(1 << bits, dtype=np.uint64)

    def place(start, stop):
        table[slots(keys[start:stop], bits)] = keys[start:stop]
        return not keys[start:stop].all()

    has_zero = any(map_blocks(place, blocks, pool))
    occupied = table != 0
    occupied[0] |= has_zero
    return table, occupied


# ------------------------------------------------------- strings as words
def string_words(units, bytewise):
    """Rows of UCS-4 code units (2-D uint32) as rows of uint64 words.

    ``bytewise``: a byte a character (every code unit must be below 256);
    else two code units a word. The words of two rows are equal exactly when
    the strings are (NumPy pads ``<U`` strings with NULs).
    """
    rows, width = units.shape
    per_word = 8 if bytewise else 2
    n_words = -(-width // per_word)
    if not bytewise and width == 2 * n_words:
        return units.view(np.uint64)
    padded = np.zeros((rows, per_word * n_words), dtype=np.uint8 if bytewise else np.uint32)
    padded[:, :width] = units
    return padded.view(np.uint64)


def strings_of_words(words, width, bytewise):
    """The ``<U{width}`` strings that :func:`string_words` packed into one word each."""
    units = words.view(np.uint8 if bytewise else np.uint32).reshape(words.shape[0], -1)
    return np.ascontiguousarray(units[:, :width], dtype=np.uint32).view(f"<U{width}").reshape(-1)


# ------------------------------------------------------- words as keys
def hash_words(words):
    """A 64-bit hash of each row of uint64 words (fixed-width rows: every word counts)."""
    hashed = words[:, 0].copy()
    with np.errstate(over="ignore"):
        for position in range(1, words.shape[1]):
            hashed *= WORD_MIX
            hashed ^= hashed >> np.uint64(32)
            hashed ^= words[:, position]
    return hashed


def string_keys(words, lengths, queries):
    """A 64-bit key of each string and its query: equal for equal pairs, uniform in every bit.

    ``words`` holds each string's bytes as little-endian uint64 words, zero
    after its end, and ``lengths`` its length in bytes. The key mixes in the
    query code and the length, then each of the string's own words (never
    the zero words past its end, so that the key does not depend on the
    longest string beside it), then finalizes in the manner of MurmurHash3,
    so that every bit depends on every input bit.
    """
    keys = queries.astype(np.uint64)
    shortest = int(lengths.min()) if lengths.shape[0] else 0
    with np.errstate(over="ignore"):
        keys *= FINAL_MIX
        keys += lengths.astype(np.uint64) * FIBONACCI
        for word in range(words.shape[1]):
            if 8 * word < shortest:
                _absorb(keys, words[:, word])
                continue
            rows = np.flatnonzero(lengths > 8 * word)
            part = keys[rows]
            _absorb(part, words[rows, word])
            keys[rows] = part
        keys ^= keys >> _HALF
        keys *= FINAL_MIX
        keys ^= keys >> _SHIFT
    return keys


def _absorb(keys, words):
    """Mix one more word of each string into its key, in place."""
    keys ^= words
    keys *= WORD_MIX
    keys ^= keys >> _SHIFT


# ------------------------------------------------------- tables of levels
# A level of slot tables where more than this share of the keys lost their
# slot means a hash unfit for these ids: the caller's exact path is faster.
_MAX_LOST_SHARE = 0.5
# Levels of slot tables; the keys left after them (about 1 % of a block) are sorted.
TABLE_LEVELS = 3


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
            level_slots = slots(level_keys, bits, level)
            table = np.full(1 << bits, -1, dtype=rows.dtype)
            table[level_slots] = rows
            winners = table[level_slots]
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
                spilled[level_slots[lost]] = True
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
            level_slots = slots(keys[pending], bits, level)
            rows = table[level_slots]
            # An empty slot (-1) reads the last key: the row check refuses it.
            hit = (self.keys[rows] == keys[pending]) & (rows >= 0)
            found[pending[hit]] = rows[hit]
            if spilled is None:
                return found
            pending = pending[~hit & spilled[level_slots]]
        if self.rest is not None and pending.shape[0]:
            place = np.searchsorted(self.rest_keys, keys[pending])
            place = np.minimum(place, self.rest.shape[0] - 1)
            hit = self.rest_keys[place] == keys[pending]
            found[pending[hit]] = self.rest[place[hit]]
        return found
