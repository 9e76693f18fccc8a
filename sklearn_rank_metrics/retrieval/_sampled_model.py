"""Sampled metrics' model and weights (Krichene and Rendle, KDD 2020): the private half.

A held-out item ranked among itself and ``m`` sampled negatives has a
sampled rank ``r~`` in ``1 .. m + 1``; its full rank ``r`` among all ``n``
items is unknown. Given ``r``, ``r~`` has a known distribution (the sampling
model), the matrix ``A[r, j] = P(r~ = j | r)``. A corrected metric replaces
``f(r)`` by a weight ``w[r~]`` chosen so that ``E[w[r~] | r]`` stays close to
``f(r)`` for every ``r``. The weights solve an ``(m + 1) x (m + 1)`` system
whose sums over the ``n`` full ranks are streamed block by block: the
``n x (m + 1)`` matrix ``A`` never exists.
"""

import functools
import math

import numpy as np

_BLOCK_ROWS = 8192  # full ranks per block: 8192 x 101 float64 = 6.6 MB at 100 samples
_EPS = np.finfo(np.float64).eps

# Metric names -> the metric f(r) of a held-out item at full rank r (one relevant item).
_KINDS = {
    "recall": "recall", "hit_rate": "recall", "hr": "recall", "hits": "recall",
    "precision": "precision", "p": "precision",
    "ap": "ap", "map": "ap", "mrr": "ap",
    "ndcg": "ndcg",
}  # fmt: skip
_VALID = "recall@k (hit_rate@k), precision@k, ap@k (map@k, mrr@k) or ndcg@k, k a positive int"


def parse_metric(owner, metric):
    """``(kind, k)`` of a metric name such as ``"recall@10"``; raise naming the valid ones."""
    if not isinstance(metric, str):
        raise TypeError(f"{owner}: metric={metric!r} is not valid; metric must be a str: {_VALID}.")
    name, _, cutoff = "".join(metric.split()).lower().partition("@")
    kind = _KINDS.get(name)
    if kind is None or not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(
            f"{owner}: metric={metric!r} is not valid; metric must be {_VALID}, e.g. "
            "metric='recall@10'."
        )
    return kind, int(cutoff)


def metric_values(kind, k, ranks):
    """``f(r)`` at each 1-based rank of ``ranks`` (float64), one relevant item per user."""
    ranks = np.asarray(ranks, dtype=np.float64)
    hit = ranks <= k
    if kind == "recall":
        return hit.astype(np.float64)
    if kind == "precision":
        return hit / k
    if kind == "ap":
        return np.where(hit, 1.0 / ranks, 0.0)
    return np.where(hit, 1.0 / np.log2(ranks + 1.0), 0.0)  # ndcg


def _log_choose(n, k):
    """``log C(n, k)`` for scalars or arrays of small ``k``, by ``gammaln`` (exact enough there)."""
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _falling_logs(tops, width):
    """``out[:, b] = log(a (a - 1) ... (a - b + 1))`` for each ``a`` of ``tops``, b = 0..width.

    A sum of at most ``width`` logarithms of whole numbers (no difference of
    two large ``gammaln`` values): about 1e-14 absolute error at any ``n``.
    -inf where ``b > a`` (the product holds a 0).
    """
    terms = np.subtract.outer(tops.astype(np.float64), np.arange(width, dtype=np.float64))
    np.maximum(terms, 0.0, out=terms)
    with np.errstate(divide="ignore"):
        np.log(terms, out=terms)
    out = np.zeros((tops.shape[0], width + 1))
    np.cumsum(terms, axis=1, out=out[:, 1:])
    return out


def sampled_rank_pmf(ranks, n_items, n_samples, sampling):
    """``P(r~ = j | r)`` for the full ranks ``ranks`` (rows) and ``j = 1 .. n_samples + 1``.

    ``"with_replacement"``: ``r~ - 1 ~ Binomial(m, (r - 1) / (n - 1))``;
    ``"without_replacement"``: ``r~ - 1 ~ Hypergeometric`` (``m`` draws from
    ``n - 1`` items of which ``r - 1`` rank above). Computed in log space.
    """
    from scipy.special import gammaln

    n, m = n_items, n_samples
    j = np.arange(m + 1, dtype=np.float64)
    ranks = np.asarray(ranks, dtype=np.int64)
    if sampling == "with_replacement":
        # log p and log(1 - p) from the whole numbers r - 1 and n - r: 1 - p computed in
        # floating point would lose digits where p is close to 1.
        with np.errstate(divide="ignore", invalid="ignore"):
            log_pmf = np.multiply.outer(np.log(ranks - 1.0) - math.log(n - 1), j)
            log_pmf += np.multiply.outer(np.log(float(n) - ranks) - math.log(n - 1), m - j)
        log_pmf += gammaln(m + 1.0) - gammaln(j + 1.0) - gammaln(m - j + 1.0)
        pmf = np.exp(log_pmf, out=log_pmf)
        pmf[ranks == 1] = j == 0  # p = 0 and p = 1: 0 * log(0) is 0 there, not NaN
        pmf[ranks == n] = j == m
        return pmf
    above = _falling_logs(ranks - 1, m)  # log (r-1)_j: the j items above among the draws
    below = _falling_logs(n - ranks, m)[:, ::-1]  # log (n-r)_(m-j): the others below
    total = math.fsum(math.log(n - 1 - i) for i in range(m))  # log (n-1)_m
    log_pmf = above + below
    log_pmf += _log_choose(m, j) - total
    return np.exp(log_pmf, out=log_pmf)


@functools.lru_cache(maxsize=8)
def sums(n_items, n_samples, sampling):
    """``(A^T A, A^T 1)`` over the full ranks 1..n, streamed in blocks of ranks (read-only)."""
    from scipy.linalg.blas import dsyrk

    width = n_samples + 1
    gram = np.zeros((width, width), order="F")
    mass = np.zeros(width)
    for start in range(1, n_items + 1, _BLOCK_ROWS):
        pmf = sampled_rank_pmf(
            np.arange(start, min(start + _BLOCK_ROWS, n_items + 1)), n_items, n_samples, sampling
        )
        # pmf.T is Fortran-ordered: BLAS's symmetric rank-k update adds pmf.T @ pmf in place
        # (upper triangle), twice as fast as a general product and without a copy.
        gram = dsyrk(1.0, pmf.T, beta=1.0, c=gram, trans=0, overwrite_c=True)
        mass += pmf.sum(axis=0)
    gram = np.triu(gram) + np.triu(gram, 1).T
    gram.flags.writeable = mass.flags.writeable = False
    return gram, mass


def metric_target(kind, k, n_items, n_samples, sampling):
    """``A^T f``: only the ranks where ``f(r) != 0`` (at most ``k``) contribute."""
    target = np.zeros(n_samples + 1)
    for start in range(1, min(k, n_items) + 1, _BLOCK_ROWS):
        ranks = np.arange(start, min(start + _BLOCK_ROWS, k + 1, n_items + 1))
        target += metric_values(kind, k, ranks) @ sampled_rank_pmf(ranks, n_items, n_samples, sampling)
    return target


def solve_weights(gram, mass, target, gamma):
    """Solve ``((1 - gamma) A^T A + gamma diag(A^T 1)) w = A^T f``; also the directions dropped.

    The symmetric system is scaled to a unit diagonal and solved by its
    eigen-decomposition; eigenvalues below ``(m + 1) * eps`` times the
    largest are left out (the minimum-norm solution of the scaled system),
    and their count returned, so that the caller can warn.
    """
    from scipy.linalg import eigh

    system = (1.0 - gamma) * gram + gamma * np.diag(mass)
    scale = np.sqrt(np.diag(system))
    values, vectors = eigh(system / np.outer(scale, scale))
    keep = values > values[-1] * system.shape[0] * _EPS
    coefficients = (vectors[:, keep].T @ (target / scale)) / values[keep]
    return (vectors[:, keep] @ coefficients) / scale, int((~keep).sum())


def constrained_weights(gram, target):
    """Minimise ``w^T G w - 2 w^T A^T f`` (the squared bias) subject to ``w_1 >= ... >= w_{m+1}``.

    The weights are ``w = U z`` with ``U`` upper-triangular ones: ``z_j >= 0``
    the steps between consecutive weights and ``z_{m+1}`` the last weight,
    free. ``G = R^T R`` from its eigen-decomposition (directions below
    rounding left out, as they change the objective by less than rounding)
    makes it a bounded least-squares problem, solved exactly by BVLS.
    """
    from scipy.linalg import eigh
    from scipy.optimize import lsq_linear

    values, vectors = eigh(gram)
    keep = values > values[-1] * gram.shape[0] * _EPS
    root = np.sqrt(values[keep])[:, None] * vectors[:, keep].T
    rhs = (vectors[:, keep].T @ target) / np.sqrt(values[keep])
    steps = np.triu(np.ones_like(gram))
    lower = np.zeros(gram.shape[0])
    lower[-1] = -np.inf
    found = lsq_linear(root @ steps, rhs, bounds=(lower, np.inf), method="bvls", tol=1e-13)
    if found.status <= 0:  # pragma: no cover - BVLS converges on these small problems
        raise RuntimeError(f"the constrained least squares did not converge: {found.message}")
    return steps @ found.x


def rank_estimate_weights(kind, k, n_items, n_samples):
    """The metric of the full rank estimated from the sampled one: ``f(1 + (n-1)(j-1) // m)``."""
    j = np.arange(n_samples + 1, dtype=np.int64)
    return metric_values(kind, k, 1 + (n_items - 1) * j // n_samples)
