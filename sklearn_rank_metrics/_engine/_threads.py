"""Overlapping independent NumPy work on a small thread pool.

NumPy releases the GIL in sorts, gathers and ufunc loops, so two threads
really run in parallel on such work. Used for large inputs only: the sort
runs while order-free totals are summed, and metric kernels run on two
chunks of queries at a time. Results do not depend on the thread count.
"""

import os
from concurrent.futures import Future, ThreadPoolExecutor

# Below this many documents, threads cost more than they save.
MIN_ROWS_FOR_THREADS = 1 << 18

_executor = None


def n_threads():
    return max(1, min(2, os.cpu_count() or 1))


def _pool():
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=n_threads(), thread_name_prefix="srm")
    return _executor


def use_threads(n_rows):
    return n_threads() > 1 and n_rows >= MIN_ROWS_FOR_THREADS


def submit(function, *args, parallel):
    """Run ``function(*args)`` on the pool if ``parallel``, else now; return a Future."""
    if parallel:
        return _pool().submit(function, *args)
    future = Future()
    future.set_result(function(*args))
    return future


def map_ordered(function, items, *, parallel):
    """``[function(item) for item in items]``, on the pool if ``parallel``."""
    if parallel:
        return list(_pool().map(function, items))
    return [function(item) for item in items]
