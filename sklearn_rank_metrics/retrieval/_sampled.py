"""Sampled metrics and their correction (Krichene and Rendle, KDD 2020).

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

from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine._warnings import warn_caller
from .._engine.prepare._validation import plain

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
def _sums(n_items, n_samples, sampling):
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


def _target(kind, k, n_items, n_samples, sampling):
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


def _check(owner, n_items, n_samples, method, gamma, sampling):
    check_parameters(owner, n_items=n_items, n_samples=n_samples, sampled_method=method,
                     gamma=gamma, sampling=sampling)  # fmt: skip
    if n_samples >= n_items:
        raise ValueError(
            f"{owner}: n_samples={n_samples} is not less than n_items={n_items}; a sample "
            "holds fewer negatives than the catalogue has other items: lower n_samples or "
            "check n_items (the full catalogue's size)."
        )


@document_parameters(
    returns="weights : ndarray of shape (n_samples + 1,)\n"
    "    ``weights[j - 1]`` is the estimate of a user whose held-out item has\n"
    "    sampled rank ``j``."
)
def sampled_metric_weights(
    *, n_items, n_samples, metric="recall@10", method="bv", gamma=0.01, sampling="with_replacement"
):
    r"""The weight of each sampled rank in a corrected sampled metric.

    :func:`correct_sampled_metric` averages these weights over the users'
    sampled ranks. They depend only on the catalogue's size, the sample's
    size, the metric and the method, so that one vector serves any number of
    users and models. The sums over the ``n_items`` full ranks are streamed
    in blocks of 8192 ranks: memory stays a few blocks (about 20 MB at 100
    samples), whatever ``n_items``.

    .. math::

        A_{rj} = P(\tilde r = j \mid r), \qquad
        w = \bigl((1 - \gamma) A^\top A + \gamma\, \mathrm{diag}(A^\top \mathbf 1)\bigr)^{-1}
            A^\top f

    with ``r = 1 .. n_items`` the full rank, ``j = 1 .. n_samples + 1`` the
    sampled rank and ``f(r)`` the metric; ``method="cls"`` is ``gamma = 0``
    and ``method="naive"`` gives ``w_j = f(j)``.

    Parameters
    ----------
    metric : str, default="recall@10"
        As in :func:`correct_sampled_metric`.
    method : {"bv", "cls", "naive"}, default="bv"
        As in :func:`correct_sampled_metric`.
    gamma : float, default=0.01
        As in :func:`correct_sampled_metric`; ignored by ``"cls"`` and ``"naive"``.

    Warns
    -----
    RuntimeWarning
        Where the system is singular to working precision (``"cls"`` with many
        samples): the warning counts the directions left out.

    See Also
    --------
    correct_sampled_metric : The corrected metric of sampled ranks.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020 (extended in Communications of the ACM
       65(7), 2022).

    Examples
    --------
    >>> from sklearn_rank_metrics import sampled_metric_weights
    >>> sampled_metric_weights(n_items=10, n_samples=2, metric="recall@1", method="naive")
    array([1., 0., 0.])
    >>> w = sampled_metric_weights(n_items=10_000, n_samples=100, metric="recall@10")
    >>> w.shape, w[:3].round(2)  # a sampled rank of 1 is often a full rank above 10
    ((101,), array([ 0.4 , -0.6 ,  0.27]))
    """
    owner = "sampled_metric_weights"
    _check(owner, n_items, n_samples, method, gamma, sampling)
    kind, k = parse_metric(owner, metric)
    return _weights(owner, kind, k, n_items, n_samples, method, gamma, sampling)


def _weights(owner, kind, k, n_items, n_samples, method, gamma, sampling):
    if method == "naive":
        return metric_values(kind, k, np.arange(1, n_samples + 2))
    gamma = 0.0 if method == "cls" else float(gamma)
    gram, mass = _sums(n_items, n_samples, sampling)
    weights, dropped = solve_weights(gram, mass, _target(kind, k, n_items, n_samples, sampling), gamma)
    if dropped:
        warn_caller(
            f"{owner}: the {method} system for n_items={n_items}, n_samples={n_samples} is "
            f"singular to working precision: {dropped} of its {n_samples + 1} directions were "
            "left out (the smallest weights that solve the rest). Its estimates have a high "
            "variance; method='bv' with gamma > 0 (the default 0.01) is well-posed.",
            RuntimeWarning,
        )
    return weights


def check_sampled_ranks(owner, sampled_ranks, n_samples):
    """``sampled_ranks`` as a 1-D int64 array of ranks 1..n_samples + 1; raise naming the user."""
    ranks = np.asarray(sampled_ranks)
    if ranks.ndim != 1:
        raise ValueError(
            f"{owner}: sampled_ranks must be 1-D, one rank per user, got shape {ranks.shape}."
        )
    if ranks.dtype.kind not in "iuf" or ranks.dtype == np.bool_:
        raise TypeError(
            f"{owner}: sampled_ranks must hold whole numbers (the 1-based rank of each "
            f"user's held-out item among it and its negatives), got dtype {ranks.dtype}."
        )
    with np.errstate(invalid="ignore"):
        bad = ~((ranks >= 1) & (ranks <= n_samples + 1) & (ranks == np.round(ranks)))
    if bad.any():
        user = int(np.argmax(bad))
        raise ValueError(
            f"{owner}: sampled_ranks of user (row) {user} is {plain(ranks[user])}, not a rank "
            f"from 1 to n_samples + 1 = {n_samples + 1}; pass each held-out item's 1-based "
            "rank among itself and its n_samples negatives (sample_ranks computes them)."
        )
    return ranks.astype(np.int64)


@document_parameters()
def correct_sampled_metric(
    sampled_ranks,
    *,
    n_items,
    n_samples,
    metric="recall@10",
    method="bv",
    gamma=0.01,
    sampling="with_replacement",
    average="mean",
):
    r"""Estimate a full-catalogue metric from sampled ranks, corrected for the sampling.

    Evaluating each user's held-out item among ``n_samples`` sampled
    negatives instead of all ``n_items`` items is fast, but the metric of the
    sampled rank (``method="naive"``) estimates something else than the
    metric of the full rank: its bias depends on the model, and it can
    reverse the order of two models [1]_. The corrections of [1]_ give each
    sampled rank ``j`` a weight ``w_j`` such that ``E[w_{r~} | r]`` stays
    close to the metric ``f(r)`` of the full rank, for every ``r``:

    .. math::

        \widehat{M} = \frac{1}{|U|} \sum_{u \in U} w_{\tilde r_u}, \qquad
        w = \arg\min_w \sum_{r=1}^{n} \Bigl[\bigl(\mathrm{E}[w_{\tilde r} \mid r] - f(r)\bigr)^2
            + \gamma\, \mathrm{Var}[w_{\tilde r} \mid r]\Bigr]

    that is ``w = ((1 - gamma) A^T A + gamma diag(A^T 1))^{-1} A^T f`` with
    ``A[r, j] = P(r~ = j | r)`` (:func:`sampled_metric_weights`). ``"bv"``
    trades the squared bias against the variance with ``gamma``; ``"cls"``
    (corrected least squares, ``gamma = 0``) minimises the bias alone, whose
    weights swing widely with many samples (high variance; singular to
    working precision at 100 samples, with a warning); ``"naive"`` is
    ``w_j = f(j)``. Every full rank counts equally (the paper's uniform
    prior).

    The metrics, of one relevant (held-out) item at full rank ``r``:
    ``recall@k`` ``1[r <= k]`` (the hit rate), ``precision@k``
    ``1[r <= k] / k``, ``ap@k`` ``1[r <= k] / r`` (MAP and MRR with one
    relevant item), ``ndcg@k`` ``1[r <= k] / log2(r + 1)``.

    The sampling model: the ``n_samples`` negatives are drawn uniformly
    among the ``n_items - 1`` other items, with replacement by default, so
    that ``r~ - 1`` given ``r`` is binomial with ``n_samples`` trials and
    probability ``(r - 1) / (n_items - 1)``, as in [1]_;
    ``sampling="without_replacement"`` for distinct negatives
    (hypergeometric). :func:`sample_ranks` draws either way. Tied scores:
    the estimate is of the metric averaged over the orderings of ties when
    the held-out item's place in its tie block is drawn at random (as
    ``sample_ranks`` does by default).

    Parameters
    ----------
    sampled_ranks : array-like of shape (n_users,)
        The 1-based rank of each user's held-out item among itself and its
        ``n_samples`` sampled negatives: whole numbers from 1 to
        ``n_samples + 1``.
    metric : str, default="recall@10"
        ``"recall@k"`` (or ``"hit_rate@k"``), ``"precision@k"``, ``"ap@k"``
        (or ``"map@k"``, ``"mrr@k"``) or ``"ndcg@k"``.
    method : {"bv", "cls", "naive"}, default="bv"
        The estimator: Krichene and Rendle's bias-variance trade-off, their
        corrected least squares, or the metric of the sampled rank.
    gamma : float, default=0.01
        The weight of the variance against the squared bias in ``"bv"``, from 0
        (``"cls"``) to 1 (the mean of ``f(r)`` given the sampled rank, under
        the uniform prior); [1]_ shows small values (0.01, 0.1) doing best.
        Ignored by the other methods.
    average : {"mean", None}, default="mean"
        ``"mean"``: the estimate, the mean over users; None: each user's
        estimate (their weight ``w_{r~}``; corrected estimates of one user
        may lie outside ``[0, 1]``, only their mean estimates the metric).

    Returns
    -------
    estimate : float or ndarray of shape (n_users,)
        The estimated metric, or each user's term of it with ``average=None``.

    See Also
    --------
    sample_ranks : Draw the negatives and rank each held-out item among them.
    sampled_metric_weights : The weights behind the estimate.
    evaluate_top_k : The exact metrics, from each user's full ranking's top k.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020 (extended in Communications of the ACM
       65(7), 2022).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics import correct_sampled_metric
    >>> ranks = np.array([1, 1, 2, 5, 40, 101])  # among 1 + 100 samples
    >>> round(correct_sampled_metric(ranks, n_items=10_000, n_samples=100, method="naive"), 3)
    0.667
    >>> round(correct_sampled_metric(ranks, n_items=10_000, n_samples=100), 3)
    0.027
    """
    owner = "correct_sampled_metric"
    _check(owner, n_items, n_samples, method, gamma, sampling)
    check_parameters(owner, average=average)
    kind, k = parse_metric(owner, metric)
    ranks = check_sampled_ranks(owner, sampled_ranks, n_samples)
    estimates = _weights(owner, kind, k, n_items, n_samples, method, gamma, sampling)[ranks - 1]
    if average is None:
        return estimates
    if estimates.shape[0] == 0:
        raise ValueError(f"{owner}: sampled_ranks is empty; pass one rank per user.")
    return float(estimates.mean())
