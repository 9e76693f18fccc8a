"""Bytes of a TREC file: plain or gzipped, whitespace and comments as trec_eval reads them.

A plain file is read into memory of its own (an anonymous memory map, in
huge pages where offered), never mapped: a mapped file that another process
truncates while it is parsed kills the reading process (SIGBUS). Read, a
file truncated or grown meanwhile gives the bytes as read. A gzipped file
is inflated a block at a time, up to a bound (:data:`MAX_INFLATION` times
its size, at least :data:`MIN_INFLATED_BYTES`): a small file that inflates
to gigabytes (a "gzip bomb") raises instead of taking the machine's memory.
The bytes are an anonymous :class:`mmap.mmap`, :class:`bytes` or
:class:`bytearray`; :func:`normalize` and the readers use only what they
all offer (``find``, slices, the buffer protocol) and take a copy where
they change the bytes.
"""

import codecs
import gzip
import io
import mmap
import os
import re
import stat
import zlib

import numpy as np

GZIP_MAGIC = b"\x1f\x8b"
# A gzipped file inflates to at most MAX_INFLATION times its size, or to
# MIN_INFLATED_BYTES whatever its size. TREC files compress 3 to 15 times;
# gzip's own limit is about 1032 times, which only made-up data approach.
MAX_INFLATION = 100
MIN_INFLATED_BYTES = 1 << 26
_BLOCK = 1 << 20  # bytes inflated at a time

# C's isspace(): space, \t, \n, \v, \f, \r. pandas' whitespace separator knows
# only space and tab (and takes a lone \r for a line end), so the others
# become spaces: a CRLF line ends with a space, which is what trec_eval reads.
_TO_SPACE = bytes.maketrans(b"\v\f\r", b"   ")


def import_pandas(caller):
    """Import pandas, or raise an ImportError naming the extra that installs it."""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            f"{caller} needs pandas: pip install 'sklearn-rank-metrics[trec]' "
            "(pandas, and pyarrow for the fastest reading)."
        ) from exc
    return pandas


def read_bytes(path):
    """The file's bytes, inflated when they start with gzip's magic bytes.

    Raises a ValueError naming the file for a gzip that is truncated,
    corrupt or inflates past its bound; an OSError (naming the file, as
    ``open`` does) where the file cannot be read.
    """
    name = os.fspath(path)
    # Unbuffered: every byte is read where the reader says (no block read ahead).
    with open(name, "rb", buffering=0) as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):  # a pipe, a device: no size, no seeking
            data = handle.read()
            if data[: len(GZIP_MAGIC)] == GZIP_MAGIC:
                return _inflate(io.BytesIO(data), len(data), name)
            return data
        gzipped = handle.read(len(GZIP_MAGIC)) == GZIP_MAGIC
        handle.seek(0)
        if gzipped:
            return _inflate(handle, info.st_size, name)
        return _read_all(handle, info.st_size)


def _read_all(handle, size):
    """Every byte of an open regular file of ``size`` bytes, read into the process's memory."""
    if size == 0:
        return handle.read()  # empty, or a file that does not say its size (/proc)
    try:
        data = _anonymous_memory(size)
    except OSError as exc:  # ENOMEM: no address space for it
        raise MemoryError(
            f"{handle.name}: not enough memory to read its {size:,} bytes ({exc.strerror})."
        ) from None
    view = memoryview(data)
    filled = 0
    while filled < size:
        count = handle.readinto(view[filled:])
        if not count:
            break  # truncated since fstat: the bytes read are the file
        filled += count
    view.release()
    more = handle.read()  # grown since fstat: those bytes too
    if filled < size or more:
        return b"".join((data[:filled], more))
    return data


def _anonymous_memory(size):
    """``size`` bytes of writable memory not backed by a file, in huge pages where offered.

    Huge pages (2 MiB, where the system lets a process ask for them) make
    reading a file into memory about a third faster than 4 KiB pages: one
    page fault and one page to zero per 2 MiB.
    """
    if not hasattr(mmap, "MAP_ANONYMOUS"):  # Windows: anonymous memory all the same
        return mmap.mmap(-1, size)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            memory.madvise(mmap.MADV_HUGEPAGE)
        except OSError:  # a kernel without transparent huge pages
            pass
    return memory


def _inflate(handle, size, name):
    """The inflated bytes of gzip data of ``size`` bytes (a seekable file), within the bound.

    Inflated a block at a time. gzip's trailer gives the inflated size (of
    the last member, modulo 2**32): the memory is taken at once where that
    size is right, within the bound either way, and grown where it is not.
    """
    bound = max(MIN_INFLATED_BYTES, MAX_INFLATION * size)
    handle.seek(max(size - 4, 0))
    data = bytearray(min(int.from_bytes(handle.read(4), "little"), bound + 1))
    handle.seek(0)
    filled = 0
    try:
        with gzip.GzipFile(fileobj=handle, mode="rb") as inflating:
            while True:
                if filled == len(data):
                    if filled > bound:
                        raise ValueError(
                            f"{name}: the gzip file inflates to more than {bound:,} bytes, "
                            f"over {MAX_INFLATION} times its {size:,} bytes; a TREC file "
                            "compresses far less, so it is refused rather than filling "
                            "memory. If it is a genuine run or qrels file, gunzip it: a "
                            "plain file has no such bound."
                        )
                    data += bytes(min(max(_BLOCK, filled // 2), bound + 1 - filled))
                # A block at a time: GzipFile.readinto inflates into a copy first.
                with memoryview(data)[filled : filled + _BLOCK] as view:
                    count = inflating.readinto(view)
                if not count:
                    del data[filled:]
                    return data
                filled += count
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ValueError(
            f"{name}: the gzip file is truncated or corrupt ({exc or type(exc).__name__}); "
            "`gzip -t` checks it."
        ) from None


def contains(data, pattern):
    """Whether ``data`` (bytes, a bytearray or a memory map) holds ``pattern``."""
    return data.find(pattern) >= 0


def is_blank(data):
    """Whether ``data`` holds nothing but whitespace."""
    return re.search(rb"\S", data) is None


def last_line_field(data, index):
    """Field ``index`` of the last line of ``data`` with fields (not a comment), or "".

    Read from the end, a few kilobytes at a time.
    """
    end, size = len(data), 1 << 12
    while True:
        start = max(0, end - size)
        lines = bytes(data[start:end]).split(b"\n")
        for line in reversed(lines if start == 0 else lines[1:]):  # the first may be cut
            fields = line.split()
            if fields and not fields[0].startswith(b"#"):
                return fields[index].decode("utf-8", "replace") if index < len(fields) else ""
        if start == 0:
            return ""
        size *= 4


def line_number(data, offset):
    """1-based number of the line holding byte ``offset``."""
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8, count=offset) == ord("\n"))) + 1


def normalize(data, name):
    """Bytes that pandas splits into the fields trec_eval sees, line numbers kept.

    Whitespace other than space, tab and newline becomes a space, and comment
    lines (first non-blank character ``#``) become empty lines (their
    newline kept, so line numbers stay), which every reader skips. A UTF-8
    byte order mark is dropped (pandas drops it, pyarrow would not). A NUL
    byte, which trec_eval does not allow, raises.
    """
    if data[: len(codecs.BOM_UTF8)] == codecs.BOM_UTF8:
        data = data[len(codecs.BOM_UTF8) :]
    nul = data.find(b"\0")
    if nul >= 0:
        raise ValueError(
            f"{name}, line {line_number(data, nul)}: the line holds a NUL "
            "byte; a TREC file is text."
        )
    if contains(data, b"\v") or contains(data, b"\f") or contains(data, b"\r"):
        data = bytes(data).translate(_TO_SPACE)
    if contains(data, b"#"):
        data = _empty_comment_lines(data)
    return data


def _empty_comment_lines(data):
    """Empty the lines whose first non-blank character is ``#`` (their newlines stay)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == ord("\n"))
    hashes = np.flatnonzero(buf == ord("#"))
    line = np.searchsorted(newlines, hashes)  # the line of each '#'
    first_of_line = np.ones(len(hashes), dtype=bool)
    first_of_line[1:] = line[1:] != line[:-1]
    hashes, line = hashes[first_of_line], line[first_of_line]
    starts = np.concatenate(([0], newlines + 1))[line]
    # Walk from each line's start over its leading blanks, all lines at once.
    position = starts.copy()
    walking = position < hashes
    while walking.any():
        byte = buf[position[walking]]
        blank = (byte == ord(" ")) | (byte == ord("\t"))
        if not blank.any():
            break
        position[np.flatnonzero(walking)[blank]] += 1
        walking = position < hashes
    comment = position == hashes
    if not comment.any():
        return data
    ends = np.append(newlines, len(buf))[line[comment]]
    starts = starts[comment]
    lengths = ends - starts
    inside = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    kept = np.ones(buf.shape[0], dtype=bool)
    kept[inside] = False
    return buf[kept].tobytes()
