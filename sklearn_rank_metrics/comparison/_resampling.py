"""Resampling over queries, vectorized: sign flips, bootstrap counts, permutations within queries.

Every resampling scheme here draws its resamples in blocks of rows and
reduces each block with one matrix product (or one gather) before the next
block is drawn, so memory is a block (``_BLOCK_ELEMENTS`` entries), not
``n_resamples x n_queries``, and no Python loop runs per resample.

* Sign flips (the paired randomization test): row ``b`` of a block is a
  random 0/1 vector ``f``; the resampled sum of the differences is
  ``sum(d) - 2 f @ d``. With ``n_resamples >= 2**n_queries`` the rows are
  the binary digits of ``0 .. 2**n_queries - 1``: the exact test.
* Bootstrap: row ``b`` counts how often each query was drawn among ``n``
  draws with replacement; the resampled mean is ``counts @ x / n``. The
  draws are ``rng.integers(0, n, (rows, n))``, those of
  :func:`scipy.stats.bootstrap`.
* Permutations within queries (randomized Tukey HSD): a uniform permutation
  of the systems per (resample, query), by insertion, vectorized over both;
  queries are taken a few at a time, and one gathered row of a group's
  table (its queries' values summed, every choice of source systems)
  gives every metric of them at once.
"""

import math
import numbers

import numpy as np
from scipy.special import ndtr, ndtri

from .._engine._threads import call_threads

_BLOCK_ELEMENTS = 1 << 22  # entries of one block of resamples: 32 MB as float64
_RELATIVE_TOLERANCE = 1e-12  # resampled statistics this close to the observed one tie with it


def check_generator(random_state):
    """A :class:`numpy.random.Generator` from ``random_state``, in scikit-learn's conventions.

    None: fresh entropy; an int: a reproducible stream; a Generator: used as
    is; a RandomState: a Generator seeded from it (so the RandomState advances).
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if random_state is None or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
        and random_state >= 0
    ):  # fmt: skip
        return np.random.default_rng(random_state)
    raise ValueError(
        "random_state must be None, a non-negative int, a numpy.random.Generator or a "
        f"numpy.random.RandomState; got {random_state!r}."
    )


def _rows_per_block(width):
    return max(1, _BLOCK_ELEMENTS // max(width, 1))


# ----------------------------------------------------------------- sign flips
def _flip_blocks(n, n_resamples, rng):
    """Blocks of 0/1 rows (float64): all ``2**n`` of them in order, or ``n_resamples`` random ones."""
    rows = _rows_per_block(n)
    if n < 63 and n_resamples >= 2**n:
        shifts = np.arange(n, dtype=np.uint64)
        for start in range(0, 2**n, rows):
            codes = np.arange(start, min(start + rows, 2**n), dtype=np.uint64)
            yield ((codes[:, None] >> shifts) & np.uint64(1)).astype(np.float64)
        return
    n_bytes = (n + 7) // 8
    for start in range(0, n_resamples, rows):
        count = min(rows, n_resamples - start)
        packed = np.frombuffer(rng.bytes(count * n_bytes), dtype=np.uint8).reshape(count, n_bytes)
        yield np.unpackbits(packed, axis=1, count=n).astype(np.float64)


def is_exact(n, n_resamples):
    """Whether the sign-flip test enumerates all ``2**n`` flips instead of sampling."""
    return n < 63 and n_resamples >= 2**n


def sign_flip_pvalues(differences, n_resamples, rng):
    """Two-sided paired randomization test of a zero mean difference, column by column.

    Parameters
    ----------
    differences : ndarray of shape (n_queries, n_columns)
    n_resamples : int
    rng : numpy.random.Generator

    Returns
    -------
    p_values : ndarray of shape (n_columns,)
        ``b / 2**n`` when exact, else ``(b + 1) / (n_resamples + 1)``, where
        ``b`` counts the flips whose absolute sum reaches the observed one.
    """
    n = differences.shape[0]
    total = differences.sum(axis=0)
    threshold = np.abs(total) - _RELATIVE_TOLERANCE * np.abs(differences).sum(axis=0)
    extreme = np.zeros(differences.shape[1], dtype=np.int64)
    for flips in _flip_blocks(n, n_resamples, rng):
        resampled = total - 2.0 * (flips @ differences)
        extreme += (np.abs(resampled) >= threshold).sum(axis=0)
    if is_exact(n, n_resamples):
        return extreme / 2.0**n
    return (extreme + 1.0) / (n_resamples + 1.0)


# ------------------------------------------------------------------ bootstrap
def bootstrap_means(columns, n_resamples, rng, extra=None):
    """Means of bootstrap resamples of the queries (the rows), for every column at once.

    Parameters
    ----------
    columns : ndarray of shape (n_queries, n_columns)
        The per-query values whose resampled means are kept (for intervals).
    n_resamples : int
    rng : numpy.random.Generator
    extra : callable, default=None
        Called as ``extra(counts)`` on every block of counts, shape
        ``(rows, n_queries)``, for statistics reduced block by block.

    Returns
    -------
    means : ndarray of shape (n_resamples, n_columns)
    """
    n = columns.shape[0]
    rows = _rows_per_block(n)
    means = np.empty((n_resamples, columns.shape[1]))
    for start in range(0, n_resamples, rows):
        count = min(rows, n_resamples - start)
        drawn = rng.integers(0, n, size=(count, n))
        drawn += (np.arange(count) * n)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=count * n).reshape(count, n)
        counts = counts.astype(np.float64)
        means[start : start + count] = counts @ columns / n
        if extra is not None:
            extra(counts)
    return means


def _column_percentiles(sorted_values, fractions):
    """Linear-interpolation percentiles (NumPy's default) of each column at its own fraction."""
    n_resamples = sorted_values.shape[0]
    position = np.clip(fractions, 0.0, 1.0) * (n_resamples - 1)
    position = np.where(np.isnan(position), 0.0, position)
    below = np.floor(position).astype(np.intp)
    above = np.minimum(below + 1, n_resamples - 1)
    columns = np.arange(sorted_values.shape[1])
    low, high = sorted_values[below, columns], sorted_values[above, columns]
    return low + (high - low) * (position - below)


def bca_interval(values, resampled_means, confidence_level):
    """Bias-corrected and accelerated bootstrap interval of each column's mean.

    Efron and Tibshirani (1993), 14.3: ``z0`` from the share of resampled
    means below the observed mean (ties count half, as in
    :func:`scipy.stats.bootstrap`), the acceleration from the jackknife,
    which for a mean is ``sum(u**3) / (6 * sum(u**2) ** 1.5)`` with
    ``u = x - mean(x)``. A column whose resampled means are all equal has
    the interval ``[mean, mean]``.

    Parameters
    ----------
    values : ndarray of shape (n_queries, n_columns)
    resampled_means : ndarray of shape (n_resamples, n_columns)
    confidence_level : float

    Returns
    -------
    low, high : ndarray of shape (n_columns,)
        NaN where the interval is undefined (the observed mean outside every
        resampled mean).
    """
    observed = values.mean(axis=0)
    n_resamples = resampled_means.shape[0]
    share = (
        (resampled_means < observed).sum(axis=0) + (resampled_means <= observed).sum(axis=0)
    ) / (2.0 * n_resamples)
    centred = values - observed
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = ndtri(share)
        acceleration = (centred**3).sum(axis=0) / (6.0 * (centred**2).sum(axis=0) ** 1.5)
        z = ndtri((1.0 - confidence_level) / 2.0)
        low_fraction = ndtr(z0 + (z0 + z) / (1.0 - acceleration * (z0 + z)))
        high_fraction = ndtr(z0 + (z0 - z) / (1.0 - acceleration * (z0 - z)))
    ordered = np.sort(resampled_means, axis=0)
    low = _column_percentiles(ordered, low_fraction)
    high = _column_percentiles(ordered, high_fraction)
    undefined = ~(np.isfinite(low_fraction) & np.isfinite(high_fraction))
    low[undefined] = high[undefined] = np.nan
    constant = ordered[0] == ordered[-1]
    low[constant] = high[constant] = observed[constant]
    return low, high


class StudentizedBootstrapTest:
    """Two-sided paired bootstrap test of a zero mean difference (Sakai 2006; Efron and Tibshirani 16.4).

    The differences are shifted to mean 0 (the null hypothesis) and
    resampled; ``p = (b + 1) / (B + 1)`` where ``b`` counts the resamples
    whose t statistic ``mean* / (sd* / sqrt(n))`` reaches the observed
    ``|t|`` in absolute value. Fed block by block with the bootstrap counts
    of :func:`bootstrap_means`, so it shares their resamples.
    """

    def __init__(self, differences, n_resamples):
        n = differences.shape[0]
        self.n_resamples = n_resamples
        self.centred = differences - differences.mean(axis=0)
        self.columns = np.hstack([self.centred, self.centred**2])
        spread = np.sqrt((self.centred**2).sum(axis=0) / (n - 1) / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.threshold = np.abs(differences.mean(axis=0) / spread) * (1 - _RELATIVE_TOLERANCE)
        self.extreme = np.zeros(differences.shape[1], dtype=np.int64)

    def __call__(self, counts):
        n = counts.shape[1]
        width = self.centred.shape[1]
        sums = counts @ self.columns
        mean = sums[:, :width] / n
        variance = np.maximum(sums[:, width:] / n - mean**2, 0.0) * n / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            statistic = np.abs(mean / np.sqrt(variance / n))
        self.extreme += (statistic >= self.threshold).sum(axis=0)

    def p_values(self):
        return (self.extreme + 1.0) / (self.n_resamples + 1.0)


# ------------------------------------------------------- randomized Tukey HSD
_MAX_GROUP_ROWS = 1024  # rows of one group's table: a query group's source systems, every choice
_TABLE_BYTES = 1 << 20  # tables of one chunk of query groups
_GATHER_BYTES = 1 << 22  # values gathered from them in one step
_MAX_TASK_RESAMPLES = 1024  # resamples of one task: its own random stream, run on any thread


def _runs(radices, limit):
    """``radices`` cut into consecutive runs whose products are at most ``limit``."""
    runs, run, product = [], [], 1
    for radix in radices:
        if product * radix > limit and run:
            runs.append(run)
            run, product = [], 1
        run.append(radix)
        product *= radix
    return runs + [run] if run else runs


def _places(n_systems, count, rng):
    """Uniform places ``d_t`` in ``0 .. t`` for ``t = 1 .. n_systems - 1``: the insertion digits.

    One 31-bit draw covers a run of radices ``t + 1`` (all of them up to 12
    systems); it is cut into parts below ``2**16`` once, whose digits come
    out in 16-bit arithmetic (several times faster than 32-bit division).
    """
    for run in _runs(range(2, n_systems + 1), (1 << 31) - 1):
        code = rng.integers(0, math.prod(run), size=count, dtype=np.int32)
        parts = _runs(run, 1 << 16)
        for number, part in enumerate(parts):
            if number == len(parts) - 1:
                digits = code.astype(np.uint16)
            else:
                rest = code // math.prod(part)
                digits = (code - rest * math.prod(part)).astype(np.uint16)
                code = rest
            for radix in part[:-1]:
                quotient = digits // np.uint16(radix)
                yield digits - quotient * np.uint16(radix)
                digits = quotient
            yield digits


def random_permutations(n_systems, count, rng):
    """``count`` independent uniform permutations of ``range(n_systems)``, one per column.

    Insertion: the systems ``0, 1, ...`` are put in a row one by one, system
    ``t`` at a uniform place ``d_t`` among the ``t + 1`` places, the ones at
    or after it moving up; each sequence of places gives one permutation,
    each permutation once, so the ``n_systems!`` permutations are equally
    likely. The places are the mixed-radix digits of uniform draws; the
    moves are ``n_systems**2 / 2`` comparisons of small integers,
    vectorized over the columns.

    Parameters
    ----------
    n_systems : int
    count : int
    rng : numpy.random.Generator

    Returns
    -------
    order : ndarray of shape (n_systems, count)
        uint8 (uint16 beyond 256 systems). ``order[j, c]`` is the place of
        system ``j`` in the row ``c``; the inverse of a uniform permutation
        is uniform, so it serves as well as the system in place ``j``.
    """
    order = np.empty((n_systems, count), dtype=np.uint8 if n_systems <= 256 else np.uint16)
    order[0] = 0
    moved = np.empty((max(n_systems - 1, 0), count), dtype=bool)
    for system, place in enumerate(_places(n_systems, count, rng), start=1):
        order[system] = place
        np.less_equal(order[system], order[:system], out=moved[:system])
        order[:system] += moved[:system]
    return order


def _group_size(n_systems, row_bytes):
    """Queries per group: the most whose table (``n_systems**size`` rows) stays small."""
    size = 1
    while (
        n_systems ** (size + 1) <= _MAX_GROUP_ROWS and n_systems ** (size + 1) * row_bytes <= _TABLE_BYTES
    ):  # fmt: skip
        size += 1
    return size


def _group_tables(values):
    """Each group's values summed over its queries, for every choice of source system per query.

    ``values`` has shape (n_groups, size, n_systems, n_metrics); row
    ``(s_0 * n_systems + s_1) * n_systems + ...`` of a group's table is
    ``sum_r values[group, r, s_r]``.
    """
    n_groups, size, _, n_metrics = values.shape
    table = values[:, 0]
    for member in range(1, size):
        table = table[:, :, None, :] + values[:, member, None, :, :]
        table = table.reshape(n_groups, -1, n_metrics)
    return np.ascontiguousarray(table).view(np.dtype((np.void, 8 * n_metrics))).reshape(-1)


def _permuted_sums(tables, order, n_systems):
    """Each system's sum over the groups of the values the permutations in ``order`` give it.

    Parameters
    ----------
    tables : ndarray of shape (n_groups * n_systems**size,)
        The groups' tables (:func:`_group_tables`), rows of ``n_metrics`` float64.
    order : ndarray of shape (n_systems, size, n_groups, count)
        A permutation per query of each group and resample (as from
        :func:`random_permutations`): place ``j`` of resample ``b`` takes
        query ``r`` of group ``t`` from system ``order[j, r, t, b]``.

    Returns
    -------
    sums : ndarray of shape (n_systems, count * n_metrics)
    """
    _, size, n_groups, _ = order.shape
    rows = n_systems**size
    dtype = np.uint16 if n_groups * rows <= 1 << 16 else np.intp  # small integers: cheaper arithmetic
    index = order[:, 0].astype(dtype)
    for member in range(1, size):
        index *= n_systems
        index += order[:, member]
    index += (np.arange(n_groups, dtype=dtype) * dtype(rows))[:, None]
    return tables.take(index).view(np.float64).sum(axis=1)


def _task_sizes(n_resamples):
    """Resamples of each task: at most 1024, as equal as can be (the same for any number of threads)."""
    n_tasks = -(-n_resamples // _MAX_TASK_RESAMPLES)
    sizes = np.full(n_tasks, n_resamples // n_tasks)
    sizes[: n_resamples % n_tasks] += 1
    return sizes.tolist()


def tukey_hsd_pvalues(values, pairs, n_resamples, rng):
    """Randomized Tukey HSD over the paired design (Carterette 2012; Sakai 2014, 4.5).

    Under the null hypothesis that the systems are the same, the values of
    one query may be shuffled among the systems. Each resample shuffles
    every query independently by a uniform permutation (the same for every
    metric) and records, per metric, the range (max - min) of the systems'
    means; a pair's p-value is ``(b + 1) / (B + 1)`` with ``b`` the
    resamples whose range reaches the pair's observed absolute mean
    difference. One maximum over all systems: the p-values are adjusted for
    all pairs at once (family-wise error).

    Queries whose values are the same for every system add the same to
    every system's sum, whatever the shuffle, and are left out of the
    shuffles. The others are taken ``size`` at a time: a group's table holds
    the sum of its queries' values for every choice of source system per
    query, so one gathered row of all metrics serves ``size`` queries of a
    resample. The resamples are split into tasks of at most 1024, each with
    its own random stream spawned from ``rng``; chunk by chunk of query
    groups, the tasks run on the threads the call may use
    (:mod:`sklearn_rank_metrics._engine._threads`), each adding to its own
    sums, so the p-values do not depend on the number of threads.

    Parameters
    ----------
    values : ndarray of shape (n_queries, n_systems, n_metrics)
    pairs : sequence of (int, int)
        System indices ``(a, b)`` of each pair.
    n_resamples : int
    rng : numpy.random.Generator

    Returns
    -------
    p_values : ndarray of shape (n_metrics, n_pairs)
    """
    _, n_systems, n_metrics = values.shape
    first, second = np.array(pairs, dtype=np.intp).reshape(-1, 2).T
    sums = values.sum(axis=0)  # (n_systems, n_metrics)
    tolerance = _RELATIVE_TOLERANCE * np.abs(values).max(axis=1).sum(axis=0)
    threshold = np.abs(sums[first] - sums[second]).T - tolerance[:, None]  # (n_metrics, n_pairs)
    varying = values[np.any(values != values[:, :1], axis=(1, 2))]
    row_bytes = 8 * n_metrics
    size = _group_size(n_systems, row_bytes)
    n_groups = -(-len(varying) // size)
    grouped = np.zeros((n_groups * size, n_systems, n_metrics))  # padding queries of zeros add nothing
    grouped[: len(varying)] = varying
    grouped = grouped.reshape(n_groups, size, n_systems, n_metrics)
    counts = _task_sizes(n_resamples)
    children = np.random.SeedSequence(rng.integers(0, 2**63, size=4)).spawn(len(counts))
    streams = [np.random.default_rng(child) for child in children]
    resampled = [np.zeros((n_systems, count * n_metrics)) for count in counts]
    per_chunk = max(1, min(
        _TABLE_BYTES // (n_systems**size * row_bytes),
        _GATHER_BYTES // (n_systems * max(counts) * row_bytes),
        (1 << 16) // n_systems**size,  # row numbers in 16 bits
    ))  # fmt: skip

    def add_chunk(task, tables, n_chunk):
        order = random_permutations(n_systems, size * n_chunk * counts[task], streams[task])
        order = order.reshape(n_systems, size, n_chunk, counts[task])
        resampled[task] += _permuted_sums(tables, order, n_systems)

    with call_threads(len(varying) * n_resamples) as (pool, _):
        for start in range(0, n_groups, per_chunk):
            chunk = grouped[start : start + per_chunk]
            tables = _group_tables(chunk)
            jobs = [(task, tables, len(chunk)) for task in range(len(counts))]
            if pool is None:
                for job in jobs:
                    add_chunk(*job)
            else:
                list(pool.map(lambda job: add_chunk(*job), jobs))
    extreme = np.zeros(threshold.shape, dtype=np.int64)
    for count, task_sums in zip(counts, resampled):
        task_sums = task_sums.reshape(n_systems, count, n_metrics)
        spread = task_sums.max(axis=0) - task_sums.min(axis=0)  # (count, n_metrics)
        extreme += (spread[:, :, None] >= threshold).sum(axis=0)
    return (extreme + 1.0) / (n_resamples + 1.0)
