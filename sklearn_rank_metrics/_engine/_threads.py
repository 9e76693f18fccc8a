"""How many threads a call may use, and the threads of one call.

NumPy releases the GIL in sorts, gathers and ufunc loops, so threads really
run such work in parallel. A large input (``MIN_ROWS_FOR_THREADS`` rows or
more) is evaluated with a thread pool that lives only for the duration of the
call: no pool outlives it, so a process forked afterwards (multiprocessing,
joblib) starts with no stale threads, and concurrent callers each get their
own. Results never depend on the number of threads.

The number of threads is the smallest of: the CPUs this process may use
(``joblib.cpu_count()``: CPU affinity and cgroup quotas), ``OMP_NUM_THREADS``
when set (joblib sets it to 1 in its workers, so ``GridSearchCV(n_jobs=...)``
does not oversubscribe the machine), and the user's setting:
:func:`config_context` / :func:`set_config` ``n_threads`` (-1, the default,
for no limit of the user's), else the environment variable
``SKLEARN_RANK_METRICS_N_THREADS`` (which reaches worker processes). A call
takes one thread per ``MIN_ROWS_FOR_THREADS`` rows at most: threads take
turns holding the interpreter between their NumPy calls, so more of them
than the work fills slow a call down (measured on 16 cores: a 1e6-line TREC
run evaluated in 0.36 s on 16 threads, 0.22 s on 2).
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from ._params import check_parameters

# Below this many rows, starting threads costs more than they save; a call
# takes one thread per this many rows at most.
MIN_ROWS_FOR_THREADS = 1 << 18

ENVIRONMENT_VARIABLE = "SKLEARN_RANK_METRICS_N_THREADS"

_UNSET = object()
_defaults = {"n_threads": -1}  # set_config: for the whole process; -1: no limit of the user's
_overrides = threading.local()  # config_context: for the current thread


def get_config():
    """Return the current configuration of sklearn_rank_metrics.

    Returns
    -------
    config : dict
        ``{"n_threads": int}``: the user's limit on threads per call, -1 for
        none beyond the CPUs the process may use.

    See Also
    --------
    set_config : Set the configuration for the whole process.
    config_context : Set it for a block of code.

    References
    ----------
    .. [1] joblib documentation, ``joblib.cpu_count`` (CPU affinity and
       cgroup quotas) and the thread limits of joblib's workers,
       https://joblib.readthedocs.io

    Examples
    --------
    >>> import sklearn_rank_metrics
    >>> sklearn_rank_metrics.get_config()
    {'n_threads': -1}
    """
    n_threads = getattr(_overrides, "n_threads", _UNSET)
    return {"n_threads": _defaults["n_threads"] if n_threads is _UNSET else n_threads}


def set_config(n_threads=None):
    """Set the configuration of sklearn_rank_metrics for the whole process.

    As in :func:`sklearn.set_config`, an argument left at None is unchanged.

    Parameters
    ----------
    n_threads : int, default=None
        Most threads one call may use on large inputs; 1 computes
        everything in the calling thread. -1 (the initial setting): as many
        as the CPUs the process may use (CPU affinity and cgroup quotas),
        ``OMP_NUM_THREADS`` and the environment variable
        ``SKLEARN_RANK_METRICS_N_THREADS`` allow. None: unchanged.

    See Also
    --------
    get_config : The current configuration.
    config_context : Set it for a block of code only.

    References
    ----------
    .. [1] joblib documentation, ``joblib.cpu_count`` (CPU affinity and
       cgroup quotas) and the thread limits of joblib's workers,
       https://joblib.readthedocs.io

    Examples
    --------
    >>> import sklearn_rank_metrics
    >>> sklearn_rank_metrics.set_config(n_threads=1)
    >>> sklearn_rank_metrics.get_config()
    {'n_threads': 1}
    >>> sklearn_rank_metrics.set_config(n_threads=-1)
    """
    check_parameters("set_config", n_threads=n_threads)
    if n_threads is not None:
        _defaults["n_threads"] = n_threads


@contextmanager
def config_context(*, n_threads=None):
    """Set the configuration of sklearn_rank_metrics inside a ``with`` block.

    The setting applies to calls made from the current thread inside the
    block, and is restored when the block ends. As in
    :func:`sklearn.config_context`, an argument left at None is unchanged.

    Parameters
    ----------
    n_threads : int, default=None
        Most threads one call may use; -1 for no limit of the user's; None:
        unchanged. See :func:`set_config`.

    Yields
    ------
    None

    See Also
    --------
    set_config : Set the configuration for the whole process.

    References
    ----------
    .. [1] joblib documentation, ``joblib.cpu_count`` (CPU affinity and
       cgroup quotas) and the thread limits of joblib's workers,
       https://joblib.readthedocs.io

    Examples
    --------
    >>> import numpy as np
    >>> import sklearn_rank_metrics
    >>> with sklearn_rank_metrics.config_context(n_threads=1):
    ...     sklearn_rank_metrics.ndcg_score([[1, 0, 2]], [[0.3, 0.2, 0.1]])
    0.7...
    """
    check_parameters("config_context", n_threads=n_threads)
    previous = getattr(_overrides, "n_threads", _UNSET)
    if n_threads is not None:
        _overrides.n_threads = n_threads
    try:
        yield
    finally:
        if previous is _UNSET:
            vars(_overrides).pop("n_threads", None)  # nothing set when n_threads was None
        else:
            _overrides.n_threads = previous


def _positive_int(text):
    """The positive int that ``text`` spells in ASCII digits, else None.

    ``str.isdigit()`` is also true for characters such as '²', which ``int``
    refuses, and ``int`` also reads other scripts' digits.
    """
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) < 19):
        return None
    return int(text) or None


def _user_limit():
    """The user's limit: the configuration, else ``SKLEARN_RANK_METRICS_N_THREADS``; None for none.

    A value of the environment variable that is not a positive int or -1
    raises a ValueError naming it (ignoring it would silently run on every CPU).
    """
    user = get_config()["n_threads"]
    if user != -1:
        return user
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if text in ("", "-1"):
        return None
    n_threads = _positive_int(text)
    if n_threads is None:
        raise ValueError(
            f"the environment variable {ENVIRONMENT_VARIABLE}={text!r} is not valid; it must "
            "be a positive int in ASCII digits (the most threads one call may use) or -1 "
            "(no limit). Set it to e.g. 4, or unset it."
        )
    return n_threads


def thread_limit():
    """Threads a call may use: min(CPUs allowed, OMP_NUM_THREADS, user setting)."""
    from joblib import cpu_count  # a scikit-learn dependency; honours affinity and cgroups

    limits = [cpu_count()]
    # OMP_NUM_THREADS may be a list ("4,2"); a value OpenMP ignores is ignored here too.
    omp = _positive_int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0])
    if omp is not None:
        limits.append(omp)
    user = _user_limit()
    if user is not None:
        limits.append(user)
    return max(1, min(limits))


@contextmanager
def call_threads(n_rows):
    """``(pool, n_threads)`` for one call on ``n_rows`` rows; the pool is None for one thread.

    At most :func:`thread_limit` threads, and one per ``MIN_ROWS_FOR_THREADS``
    rows. The pool is shut down (its threads joined) when the block ends. The
    user's setting is checked whatever the size, so a wrong one is found on
    small inputs too.
    """
    _user_limit()
    n_threads = 1
    if n_rows >= MIN_ROWS_FOR_THREADS:
        n_threads = min(thread_limit(), -(-n_rows // max(MIN_ROWS_FOR_THREADS, 1)))
    if n_threads == 1:
        yield None, 1
        return
    with ThreadPoolExecutor(n_threads, thread_name_prefix="sklearn-rank-metrics") as pool:
        yield pool, n_threads
