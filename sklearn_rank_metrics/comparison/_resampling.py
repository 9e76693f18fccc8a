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
* Permutations within queries (randomized Tukey HSD): one Fisher-Yates
  shuffle of the systems per (resample, query), vectorized over both.
"""

import itertools
import numbers

import numpy as np
from scipy.special import ndtr, ndtri

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
_MAX_TABLE_SYSTEMS = 12  # up to here, shuffles come from two lookup tables (4 MB at 12 systems)


def _half_tables(n_systems):
    """Lookup tables of uniform permutations of ``range(n_systems)``, split in two halves.

    A uniform permutation is a uniform subset ``s`` of ``h = n_systems // 2``
    systems for the first ``h`` places, a uniform order ``p1`` of that subset
    and a uniform order ``p2`` of the rest. ``first[s * h! + p1]`` holds the
    first ``h`` places, ``second[s * (n - h)! + p2]`` the others.
    """
    half = n_systems // 2
    subsets = list(itertools.combinations(range(n_systems), half))
    orders_first = np.array(list(itertools.permutations(range(half))), dtype=np.intp).reshape(-1, half)
    orders_second = np.array(list(itertools.permutations(range(n_systems - half))), dtype=np.intp)
    chosen = np.array(subsets, dtype=np.int8).reshape(len(subsets), half)
    rest = np.array([[j for j in range(n_systems) if j not in subset] for subset in subsets], dtype=np.int8)
    first = chosen[:, orders_first].reshape(-1, half)
    second = rest[:, orders_second].reshape(-1, n_systems - half)
    return first, second, len(subsets)


def _shuffled_systems(count, n_systems, rng):
    """``count`` independent uniform permutations of ``range(n_systems)``, shape (count, n_systems).

    Two table lookups per permutation up to 12 systems; beyond, Fisher-Yates
    vectorized over the permutations, swapped through flat indices.
    """
    if n_systems <= _MAX_TABLE_SYSTEMS:
        first, second, n_subsets = _half_tables(n_systems)
        subset = rng.integers(0, n_subsets, size=count)
        n_first = first.shape[0] // n_subsets
        n_second = second.shape[0] // n_subsets
        order = np.empty((count, n_systems), dtype=np.int8)
        order[:, : first.shape[1]] = first[subset * n_first + rng.integers(0, n_first, size=count)]
        order[:, first.shape[1] :] = second[subset * n_second + rng.integers(0, n_second, size=count)]
        return order
    order = np.empty((n_systems, count), dtype=np.min_scalar_type(n_systems))
    order[:] = np.arange(n_systems)[:, None]
    flat = order.reshape(-1)
    columns = np.arange(count)
    for last in range(n_systems - 1, 0, -1):
        other = rng.integers(0, last + 1, size=count)
        other *= count
        other += columns
        kept = order[last].copy()
        order[last] = flat[other]
        flat[other] = kept
    return order.T


def tukey_hsd_pvalues(values, pairs, n_resamples, rng):
    """Randomized Tukey HSD over the paired design (Carterette 2012; Sakai 2014, 4.5).

    Under the null hypothesis that the systems are the same, the values of
    one query may be shuffled among the systems. Each resample shuffles
    every query independently (the same shuffles for every metric) and
    records, per metric, the range (max - min) of the systems' means; a
    pair's p-value is ``(b + 1) / (B + 1)`` with ``b`` the resamples whose
    range reaches the pair's observed absolute mean difference. One maximum
    over all systems: the p-values are adjusted for all pairs at once
    (family-wise error).

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
    n, n_systems, n_metrics = values.shape
    first, second = np.array(pairs, dtype=np.intp).T
    sums = values.sum(axis=0)  # (n_systems, n_metrics)
    tolerance = _RELATIVE_TOLERANCE * np.abs(values).max(axis=1).sum(axis=0)
    threshold = np.abs(sums[first] - sums[second]).T - tolerance[:, None]  # (n_metrics, n_pairs)
    by_metric = np.ascontiguousarray(np.moveaxis(values, 2, 0)).reshape(n_metrics, n * n_systems)
    offsets = (np.arange(n, dtype=np.intp) * n_systems)[:, None]
    rows = _rows_per_block(n * n_systems)
    extreme = np.zeros((n_metrics, len(pairs)), dtype=np.int64)
    for start in range(0, n_resamples, rows):
        count = min(rows, n_resamples - start)
        index = _shuffled_systems(count * n, n_systems, rng).reshape(count, n, n_systems)
        index = index + offsets  # where system j's value of query i comes from, per resample
        for metric in range(n_metrics):
            resampled = by_metric[metric].take(index).sum(axis=1)  # (count, n_systems)
            spread = resampled.max(axis=1) - resampled.min(axis=1)
            extreme[metric] += (spread[:, None] >= threshold[metric]).sum(axis=0)
    return (extreme + 1.0) / (n_resamples + 1.0)
