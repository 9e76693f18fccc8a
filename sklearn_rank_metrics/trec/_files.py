"""Bytes of a TREC file: plain or gzipped, whitespace and comments as trec_eval reads them.

A plain file is memory-mapped, not copied: the readers parse the page cache
itself (a 500 MB run costs no 500 MB copy). Its bytes are a read-only
:class:`mmap.mmap` or :class:`bytes` object; :func:`normalize` and the readers
use only what both offer (``find``, slices, the buffer protocol) and take a
copy where they change the bytes.
"""

import codecs
import gzip
import mmap
import os
import re
import sys

import numpy as np

GZIP_MAGIC = b"\x1f\x8b"

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
    """The file's bytes, decompressed when they start with gzip's magic bytes.

    A plain regular file is memory-mapped read-only (populated at once where
    the system offers it); an empty file, or one that cannot be mapped (a
    pipe), is read.
    """
    with open(os.fspath(path), "rb") as handle:
        data = _mapped(handle)
        if data is None:
            data = handle.read()
    if data[:2] == GZIP_MAGIC:
        data = gzip.decompress(data)
    return data


def _mapped(handle):
    """A read-only memory map of the open file, or None where it cannot be mapped."""
    try:
        if os.fstat(handle.fileno()).st_size == 0:
            return None
        if sys.platform == "win32":
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        # MAP_POPULATE maps every page at once: no page fault per 4 KiB read.
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        return mmap.mmap(handle.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
    except (OSError, ValueError):
        return None


def contains(data, pattern):
    """Whether ``data`` (bytes or a memory map) holds ``pattern``."""
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
