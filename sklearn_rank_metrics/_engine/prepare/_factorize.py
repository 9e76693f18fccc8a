"""Query ids as small integer codes, in memory linear in the rows.

:func:`factorize_query_ids` maps query ids of any kind to codes
``0 .. n_queries - 1``, in sorted-id order (the order of ``numpy.unique``) or,
with ``sort=False``, in whatever order is cheapest (the engine sorts its
per-query results instead of renumbering every row):

- integers spanning a range at most an eighth of the rows (or 65,536
  values): a presence table over the range (the identity when ids are
  already ``0 .. n - 1``);
- ids in contiguous runs (rows grouped by query): the run values only;
- other numbers: a hash table in NumPy (:func:`_factorize_by_hashing`) from
  65,536 rows on, with pandas' hash table (else a sort) for smaller inputs
  and for the few ids that share a slot;
- ASCII ``<U`` strings of at most 8 characters: packed into one uint64 each
  (a character a byte) and factorized as numbers; other ``<U`` strings are
  hashed to uint64, factorized, and every row checked against its query's id;
- pandas categoricals: their codes; object arrays and pandas' other
  extension arrays (strings, nullable ints): pandas' hash table, grown with
  the distinct ids (NumPy's sort without pandas).

Work is done in blocks of rows so temporaries stay small; no table is sized
by an id range beyond a small fraction of the rows. Labels are coded in
:mod:`._labels`.
"""

import ctypes
import numbers

import numpy as np

from ._arrays import (
    code_dtype,
    exact_numbers,
    map_blocks,
    narrowed,
    one_row_per_code,
    remap,
    row_blocks,
    run_starts,
)
from ._hashing import hash_table, hash_words, slots, string_words, strings_of_words

# A presence table over an integer id range is used up to this many entries
# per row (plus a small constant): bounded memory whatever the ids.
_TABLE_FRACTION = 8
_SMALL_TABLE = 1 << 16


def _sorted(codes, uniques):
    """Relabel ``codes`` so that ``uniques`` is ascending; codes come back as int32/int64."""
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(order.shape[0], dtype=code_dtype(order.shape[0]))
    rank[order] = np.arange(order.shape[0])
    return remap(codes, rank, rank.dtype), uniques[order]


# ---------------------------------------------------------------- integers
def _offsets(block, low):
    """``block - low`` as intp, without overflowing the block's own dtype."""
    if block.dtype == np.uint64:
        return (block - np.uint64(low)).astype(np.intp)
    return np.subtract(block, low, dtype=np.int64).astype(np.intp, copy=False)


def _factorize_by_table(ids, low, span):
    """Integer ids in ``[low, low + span)``: a presence table over the range."""
    present = np.zeros(span, dtype=bool)
    for start, stop in row_blocks(ids.shape[0]):
        present[_offsets(ids[start:stop], low)] = True
    n_queries = int(np.count_nonzero(present))
    if low == 0 and n_queries == span and ids.dtype in (np.int32, np.int64):
        return ids, np.arange(span, dtype=ids.dtype)  # already the codes 0 .. n - 1
    code_of = np.cumsum(present, dtype=code_dtype(n_queries))
    code_of -= 1
    codes = np.empty(ids.shape[0], dtype=code_of.dtype)
    for start, stop in row_blocks(ids.shape[0]):
        np.take(code_of, _offsets(ids[start:stop], low), out=codes[start:stop])
    uniques = np.flatnonzero(present)
    if ids.dtype == np.uint64:
        return codes, uniques.astype(np.uint64) + np.uint64(low)
    return codes, (uniques + low).astype(ids.dtype)


def _factorize_by_runs(ids, starts):
    """Ids in few contiguous runs: factorize the run values, repeat their codes."""
    run_codes, uniques = _factorize_by_sorting(ids[starts])
    lengths = np.diff(np.append(starts, ids.shape[0]))
    return np.repeat(run_codes, lengths), uniques


def _factorize_by_sorting(ids):
    """``numpy.unique``, then codes by binary search, block by block."""
    uniques = np.unique(ids)
    codes = np.empty(ids.shape[0], dtype=code_dtype(uniques.shape[0]))
    for start, stop in row_blocks(ids.shape[0]):
        codes[start:stop] = np.searchsorted(uniques, ids[start:stop])
    return codes, uniques


def _pandas_factorize(values, **options):
    """pandas' hash factorization, its table grown with the distinct values.

    ``pandas.factorize`` sizes its hash table for one entry per row (tens of
    bytes a row); ``factorize_array`` with a small size hint grows it only as
    distinct values come. Older pandas without that signature: ``factorize``.
    """
    import pandas as pd

    try:
        from pandas.core.algorithms import factorize_array

        return factorize_array(values, size_hint=1024, **options)
    except (ImportError, TypeError):
        return pd.factorize(values, **options)


def _factorize_exactly(ids):
    """``(codes, uniques)`` with uniques in any order: pandas' hash table, else a sort."""
    try:
        import pandas  # noqa: F401 - only whether it is installed
    except ImportError:
        return _factorize_by_sorting(ids)
    codes, uniques = _pandas_factorize(ids)
    return codes, np.asarray(uniques)


# A direct-mapped table of one slot per this many rows holds nearly every id
# of an input in its own slot. The first table tried has at most 2**20 slots
# (8 MB): beyond that random access leaves the cache. When the ids fill more
# than half of it, a table of one slot per 4 rows is tried.
_ROWS_PER_SLOT = 4
_MIN_SLOT_BITS, _CACHED_SLOT_BITS = 16, 20
# With more of the table occupied, most ids would share a slot.
_MAX_OCCUPANCY = 0.5
# Rows per block of the hash passes: their temporaries stay in the cache.
_HASH_BLOCK = 1 << 16


def _hash_blocks(n):
    return list(row_blocks(n, _HASH_BLOCK))


def _factorize_by_hashing(ids, pool=None, give_up=False):
    """``(codes, uniques)``, uniques in any order, of 8-byte ids with many distinct values.

    A hash table in NumPy, for interleaved ids that no range table or run
    detection handles: each id goes to slot ``hash(id)`` of a table of about
    n/4 slots or fewer (one vectorized scatter; one id per slot, whichever
    came last), the occupied slots are numbered, and one more pass gives
    every row the number of its slot, and checks that the slot holds its own
    id - nearly all rows do. The ids that share a slot with another are
    factorized exactly (:func:`_factorize_exactly`), as are all of them when
    they fill more than half of the largest table (or, with ``give_up``,
    None is returned). Random access stays within the table, which is why
    this beats a general hash table on random-looking ids. Both passes run
    block by block on the call's threads.
    """
    n = ids.shape[0]
    if n < 1 << _MIN_SLOT_BITS:
        return _factorize_exactly(ids)
    keys = ids.view(np.uint64)
    blocks = _hash_blocks(n)
    most_bits = max((n // _ROWS_PER_SLOT).bit_length(), _MIN_SLOT_BITS)
    for bits in sorted({min(most_bits, _CACHED_SLOT_BITS), most_bits}):
        table, occupied = hash_table(keys, bits, blocks, pool)
        if np.count_nonzero(occupied) <= _MAX_OCCUPANCY * table.shape[0]:
            break
    else:
        return None if give_up else _factorize_exactly(ids)
    code_of_slot = np.cumsum(occupied, dtype=code_dtype(n))
    code_of_slot -= 1
    unique_keys = table[occupied]
    del table, occupied
    codes = np.empty(n, dtype=code_of_slot.dtype)
    resolved = np.empty(n, dtype=bool)

    def number(start, stop):
        block_codes = code_of_slot.take(slots(keys[start:stop], bits), out=codes[start:stop])
        # the distinct keys, unlike the table, are few enough to stay in the cache
        np.equal(unique_keys.take(block_codes), keys[start:stop], out=resolved[start:stop])

    map_blocks(number, blocks, pool)
    uniques = unique_keys.view(ids.dtype)
    del code_of_slot
    unresolved = np.flatnonzero(~resolved)
    if not unresolved.shape[0]:
        return codes, uniques
    other_codes, other_uniques = _factorize_exactly(ids[unresolved])
    codes[unresolved] = other_codes + uniques.shape[0]
    return codes, np.concatenate((uniques, np.asarray(other_uniques, dtype=ids.dtype)))


def factorize_numbers(ids, pool=None):
    """``(codes, uniques)`` of integer or float ids, uniques in any order."""
    n = ids.shape[0]
    if ids.dtype.kind in "iu":
        low, high = int(ids.min()), int(ids.max())
        span = high - low + 1
        if span <= max(n // _TABLE_FRACTION, _SMALL_TABLE):
            return _factorize_by_table(ids, low, span)
    starts = run_starts(ids, max_runs=n // 4)
    if starts is not None:
        return _factorize_by_runs(ids, starts)
    if ids.dtype.itemsize == 8:
        return _factorize_by_hashing(ids, pool)
    if ids.dtype.itemsize > 8:  # long double: a float64 copy would merge ids
        return _factorize_by_sorting(ids)
    wide = ids.astype(np.int64 if ids.dtype.kind in "iu" else np.float64)
    codes, uniques = _factorize_by_hashing(wide, pool)
    return codes, uniques.astype(ids.dtype)  # exact: the values came from that dtype


# ----------------------------------------------------------------- strings
# Characters up to U+00FF take a byte each, eight to a 64-bit word; others
# take their 4-byte code unit, two to a word.
_BYTE_CHARACTERS = 256
_STRING_BLOCK_BYTES = 1 << 20


def _factorize_packed(packed, pool, give_up=False):
    """``(codes, uniques)``, uniques in any order, of 8-byte words: runs, or hashing.

    ``give_up``: None instead of a slow exact factorization when nearly
    every row has a distinct word (see :func:`_factorize_by_hashing`).
    """
    starts = run_starts(packed, max_runs=packed.shape[0] // 4)
    if starts is None:
        return _factorize_by_hashing(packed, pool, give_up)
    return _factorize_by_runs(packed, starts)


def _factorize_unicode(ids, pool=None):
    """``(codes, uniques)`` of a NumPy ``<U`` array, uniques in any order.

    Each string becomes a row of 64-bit words (:func:`string_words`),
    bytewise when every character fits a byte. One word a string (up to 8
    such characters) is the id itself, factorized as a number; longer ones
    are hashed to one word, factorized, and every row's words are checked
    against those of its query's first row, so a hash collision cannot merge
    two ids (it falls back to ``numpy.unique``).
    """
    ids = np.ascontiguousarray(ids)
    n, width = ids.shape[0], ids.dtype.itemsize // 4
    if width == 0:
        return np.zeros(n, dtype=np.int32), ids[:1]
    # Blocks of about a megabyte of strings: each is read from memory once and
    # then packed, checked and hashed in cache.
    block = max(_STRING_BLOCK_BYTES // ids.dtype.itemsize, 1)
    blocks = list(row_blocks(n, block))
    hashed = np.empty(n, dtype=np.uint64)

    def units(source, start, stop):
        return source[start:stop].view(np.uint32).reshape(stop - start, width)

    def hash_block(start, stop, bytewise):
        block = units(ids, start, stop)
        if bytewise and block.shape[0] and int(block.max()) >= _BYTE_CHARACTERS:
            return False
        words = string_words(block, bytewise)
        hashed[start:stop] = words[:, 0] if words.shape[1] == 1 else hash_words(words)
        return True

    bytewise = all(map_blocks(lambda *block: hash_block(*block, True), blocks, pool))
    if not bytewise:
        map_blocks(lambda *block: hash_block(*block, False), blocks, pool)
    codes, words = _factorize_packed(hashed, pool)
    del hashed
    if width <= (8 if bytewise else 2):  # the words are the ids
        return codes, strings_of_words(words, width, bytewise)
    uniques = ids[one_row_per_code(codes, words.shape[0])]
    unique_words = string_words(units(uniques, 0, uniques.shape[0]), bytewise)

    def matches(start, stop):
        words = string_words(units(ids, start, stop), bytewise)
        return np.array_equal(words, unique_words[codes[start:stop]])

    if not all(map_blocks(matches, blocks, pool)):  # two ids with one hash
        uniques, codes = np.unique(ids, return_inverse=True)
        return codes.reshape(-1).astype(code_dtype(uniques.shape[0])), uniques
    return codes, uniques


# ------------------------------------------------------- objects and pandas
def _is_missing(value):
    """None, NaN, or pandas' NA / NaT."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and value != value


def _all_str_or_all_int(uniques):
    """Whether pandas' type inference (a loop in C) finds only str, or only ints."""
    try:
        from pandas.api.types import infer_dtype
    except ImportError:
        return False
    return infer_dtype(uniques, skipna=False) in ("string", "integer")


def _check_id_types(uniques):
    """Raise unless the distinct ids are all strings or all (non-bool) numbers."""
    if _all_str_or_all_int(uniques):
        return
    kinds = set()
    for value in uniques.tolist():
        if _is_missing(value):
            raise ValueError(
                "qid contains None or NaN; every document needs a query id. Drop those "
                "rows or give them an id."
            )
        if isinstance(value, str):
            kinds.add("str")
        elif isinstance(value, numbers.Number) and not isinstance(value, (bool, np.bool_)):
            kinds.add("number")
        elif isinstance(value, bytes):
            raise TypeError(
                f"qid holds bytes ({value!r}); decode them to str, e.g. "
                "np.char.decode(qid, 'utf-8')."
            )
        else:
            raise TypeError(
                f"qid values must be ints or strings, got {type(value).__name__} ({value!r})."
            )
    if len(kinds) > 1:
        raise TypeError(
            "qid mixes numbers and strings, so 1 and '1' would be different queries; "
            "convert all query ids to one type, e.g. qid.astype(str)."
        )


_str_len = getattr(np, "strings", np.char).str_len  # np.strings from NumPy 2.0


def _as_id_array(uniques):
    """Distinct ids (checked: one type) as a NumPy array of that type (``<U`` for text).

    NumPy strings drop trailing NUL characters, so ``"a"`` and ``"a\\x00"``,
    two ids to Python, would become one: that is an error, not a merge.
    """
    values = uniques.tolist()
    ids = np.asarray(values)
    if ids.dtype.kind == "f":
        return exact_numbers(values, ids)
    if ids.dtype.kind != "U":
        return ids
    lengths = np.fromiter(map(len, values), dtype=np.intp, count=len(values))
    if (_str_len(ids) != lengths).any() and np.unique(ids).shape[0] < ids.shape[0]:
        raise ValueError(
            "qid has ids that differ only in trailing NUL characters (such as 'a' and "
            "'a\\x00'), which NumPy strings cannot tell apart; remove the NUL characters."
        )
    return ids


def _factorize_object_values(ids):
    """``(codes, uniques)`` of an object array of str or numbers, by value."""
    try:
        import pandas  # noqa: F401 - only whether it is installed
    except ImportError:
        try:
            uniques, codes = np.unique(ids, return_inverse=True)
        except TypeError:  # str and numbers do not compare
            _check_id_types(np.asarray(list(set(ids.tolist())), dtype=object))
            raise
        _check_id_types(uniques)
        return codes.reshape(-1).astype(code_dtype(uniques.shape[0])), _as_id_array(uniques)
    from pandas.api.types import infer_dtype

    # Hashing merges 1 and True (equal in Python): look at the types of all rows first.
    kind = infer_dtype(ids, skipna=True)
    if kind == "boolean":
        raise TypeError("qid must hold ints or strings, got booleans; convert them, e.g. to int.")
    if kind == "mixed-integer":
        raise TypeError(
            "qid mixes numbers and strings or booleans, so 1 and '1' would be different "
            "queries and 1 and True one; convert all query ids to one type, e.g. "
            "qid.astype(str)."
        )
    codes, uniques = _pandas_factorize(ids, use_na_sentinel=False)
    uniques = np.asarray(uniques, dtype=object)
    _check_id_types(uniques)
    return narrowed(codes, code_dtype(uniques.shape[0])), _as_id_array(uniques)


def _object_addresses(ids):
    """The address of the object in each row (what ``id()`` gives), or None.

    A uint64 view of the array's data, valid while ``ids`` lives; None on
    platforms whose pointers are not 64 bits.
    """
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    data = (ctypes.c_uint64 * ids.shape[0]).from_address(ids.ctypes.data)
    return np.frombuffer(data, dtype=np.uint64)


def _factorize_objects(ids, pool=None):
    """``(codes, uniques)`` of an object array of str or numbers, uniques in any order.

    Rows that hold the same object (a column read from a file, or built by
    indexing a table of ids, repeats one str object per query) have the same
    id: such arrays are factorized by object address like 8-byte numbers,
    and only one object of each address is compared by value
    (:func:`_factorize_object_values`). Hashing every row's str, and reading
    it from wherever it lies in memory, costs many times more.
    """
    ids = np.ascontiguousarray(ids)
    n = ids.shape[0]
    addresses = _object_addresses(ids) if n >= 1 << _MIN_SLOT_BITS else None
    by_address = None if addresses is None else _factorize_packed(addresses, pool, give_up=True)
    del addresses
    if by_address is None:  # small, or nearly one object a row
        return _factorize_object_values(ids)
    object_codes, objects = by_address
    value_codes, uniques = _factorize_object_values(
        ids[one_row_per_code(object_codes, objects.shape[0])]
    )
    return remap(object_codes, value_codes, value_codes.dtype), uniques


def _factorize_categorical(categorical):
    """``(codes, uniques)`` of a pandas Categorical: its codes, unused categories dropped."""
    category_codes = np.asarray(categorical.codes)
    if category_codes.shape[0] and int(category_codes.min()) < 0:
        raise ValueError(
            "qid contains missing values; every document needs a query id. Drop those "
            "rows or give them an id."
        )
    categories = categorical.categories
    n_rows, n_categories = category_codes.shape[0], len(categories)
    if n_categories <= max(n_rows // _TABLE_FRACTION, _SMALL_TABLE):
        present = np.zeros(n_categories, dtype=bool)
        for start, stop in row_blocks(n_rows):
            present[category_codes[start:stop]] = True
        new_code = np.cumsum(present, dtype=code_dtype(n_categories))
        new_code -= 1
        codes, in_use = remap(category_codes, new_code, new_code.dtype), np.flatnonzero(present)
    else:
        # Far more categories than rows (a filtered frame): no table over them.
        codes, in_use = _factorize_by_sorting(category_codes)
    used = np.asarray(categories.take(in_use), dtype=object)
    _check_id_types(used)
    return codes, _as_id_array(used)


def _from_pandas(ids, pool):
    """``(codes, uniques)`` of pandas categoricals and extension arrays; None for the rest.

    NumPy-backed pandas data (int, float, object columns) take the NumPy path.
    """
    if not type(ids).__module__.startswith("pandas"):
        return None
    import pandas as pd  # already imported: ids is a pandas object

    if isinstance(ids.dtype, pd.CategoricalDtype):
        return _factorize_categorical(getattr(ids, "cat", ids))
    if isinstance(ids.dtype, np.dtype):
        return None
    # Strings, nullable ints, Arrow types: as objects (pandas' own string array
    # gives its object array without a copy), missing values as NA.
    values = ids.array if hasattr(ids, "array") else ids
    return _factorize_objects(np.asarray(values, dtype=object), pool)


def factorize_query_ids(qid, sort=True, pool=None):
    """Map query ids to codes: ``uniques[codes] == qid``.

    Parameters
    ----------
    qid : array-like of shape (n_samples,)
        Ints or strings (NumPy, pandas or lists), not a mix of both.
    sort : bool, default=True
        True: uniques sorted as ``numpy.unique`` sorts them. False: in any
        order, which spares renumbering every row when the caller can sort
        its per-query results instead.
    pool : concurrent.futures.Executor, default=None
        The call's threads, for the passes over large inputs.

    Returns
    -------
    codes : ndarray of shape (n_samples,), int32 or int64
    uniques : ndarray of shape (n_queries,)
    """
    codes, uniques = _factorize_any(qid, pool)
    if sort and uniques.shape[0] > 1 and not (uniques[1:] > uniques[:-1]).all():
        return _sorted(codes, uniques)
    return codes, uniques


def _factorize_any(qid, pool):
    """``(codes, uniques)`` of query ids, uniques in any order."""
    from_pandas = _from_pandas(qid, pool)
    if from_pandas is not None:
        return from_pandas
    ids = np.asarray(qid)
    if ids.dtype.kind == "U" and not isinstance(qid, np.ndarray):
        # NumPy turns a list like [1, "a"] into strings; check the values as given.
        ids = np.asarray(qid, dtype=object)
    if ids.ndim != 1:
        raise ValueError(f"qid must be 1-D, one query id per document; got shape {ids.shape}.")
    if ids.dtype.kind == "f" and not isinstance(qid, np.ndarray) and not np.isnan(ids).any():
        # A list of integers NumPy made float64 (rounding them): int64 or uint64 ids, or
        # Python's numbers when neither holds them all.
        ids = exact_numbers(qid, ids)
    kind = ids.dtype.kind
    if kind in "iu":
        return factorize_numbers(ids, pool)
    if kind == "f":
        if np.isnan(ids).any():
            raise ValueError(
                "qid contains NaN; every document needs a query id. Drop those rows or "
                "give them an id."
            )
        return factorize_numbers(ids + 0.0, pool)  # -0.0 and 0.0 are one query
    if kind == "U":
        return _factorize_unicode(ids, pool)
    if kind == "O":
        return _factorize_objects(ids, pool)
    fix = "np.char.decode(qid, 'utf-8')" if kind == "S" else "qid.astype(str)"
    raise TypeError(
        f"qid must hold ints or strings, got values of dtype {ids.dtype}; convert the "
        f"query ids, e.g. {fix}."
    )
