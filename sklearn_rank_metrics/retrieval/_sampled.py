"""Sampled metrics and their correction (Krichene and Rendle, KDD 2020): the public functions."""

import numpy as np

from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine._warnings import warn_caller
from .._engine.prepare._validation import plain
from ._sampled_model import (
    constrained_weights, metric_target, metric_values, parse_metric, rank_estimate_weights,
    solve_weights, sums,
)  # fmt: skip

_DEFAULT_GAMMA = 0.1  # "bv"'s gamma where the caller gives none


def _check(owner, n_items, n_samples, method, gamma, sampling):
    """Check the arguments; the ``gamma`` of ``method`` (0.1 for ``"bv"`` where None)."""
    check_parameters(owner, n_items=n_items, n_samples=n_samples, sampled_method=method,
                     gamma=gamma, sampling=sampling)  # fmt: skip
    if gamma is not None and method != "bv":
        raise ValueError(
            f"{owner}: gamma={plain(gamma)} is only used by method='bv', got "
            f"method='{method}'; leave gamma out (None) or pass method='bv'."
        )
    if n_samples >= n_items:
        raise ValueError(
            f"{owner}: n_samples={n_samples} is not less than n_items={n_items}; a sample "
            "holds fewer negatives than the catalogue has other items: lower n_samples or "
            "check n_items (the full catalogue's size)."
        )
    return _DEFAULT_GAMMA if gamma is None and method == "bv" else gamma


@document_parameters(
    returns="weights : ndarray of shape (n_samples + 1,)\n"
    "    ``weights[j - 1]`` is the estimate of a user whose held-out item has\n"
    "    sampled rank ``j``."
)
def sampled_metric_weights(
    *, n_items, n_samples, metric="recall@10", method="bv", gamma=None, sampling="with_replacement"
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
        w_{\mathrm{bv}} = \bigl((1 - \gamma) A^\top A
            + \gamma\, \mathrm{diag}(A^\top \mathbf 1)\bigr)^{-1} A^\top f

    with ``r = 1 .. n_items`` the full rank, ``j = 1 .. n_samples + 1`` the
    sampled rank and ``f(r)`` the metric; ``"least_squares"`` is
    ``gamma = 0`` (the unconstrained least squares, minimal bias),
    ``"cls"`` the least squares constrained to ``w_1 >= w_2 >= ... >=
    w_{m+1}``, ``"rank_estimate"`` ``w_j = f(1 + (n - 1)(j - 1) // m)`` and
    ``"naive"`` ``w_j = f(j)``.

    The cost grows linearly with ``n_items``: about 1 s per million items
    at 100 samples with replacement (2 to 2.5 s without) on a 2-core machine;
    the sums are cached for the last few ``(n_items, n_samples, sampling)``.

    Parameters
    ----------
    metric : str, default="recall@10"
        As in :func:`correct_sampled_metric`.
    method : {"bv", "cls", "least_squares", "rank_estimate", "naive"}, default="bv"
        As in :func:`correct_sampled_metric`.
    gamma : float or None, default=None
        As in :func:`correct_sampled_metric`: ``"bv"``'s only (None is 0.1).

    Warns
    -----
    RuntimeWarning
        Where the least-squares system is singular to working precision
        (``"least_squares"`` with many samples): the warning counts the
        directions left out.

    See Also
    --------
    correct_sampled_metric : The corrected metric of sampled ranks.

    References
    ----------
    .. [1] Krichene and Rendle, KDD 2020, whose corrections these weights
       follow; the full reference is under :func:`correct_sampled_metric`.

    Examples
    --------
    >>> from sklearn_rank_metrics import sampled_metric_weights
    >>> sampled_metric_weights(n_items=10, n_samples=2, metric="recall@1", method="naive")
    array([1., 0., 0.])
    >>> w = sampled_metric_weights(n_items=10_000, n_samples=100, metric="recall@10")
    >>> w.shape, w[:3].round(3)  # a sampled rank of 1 is most often a full rank beyond 10
    ((101,), array([ 0.235, -0.149, -0.02 ]))
    """
    owner = "sampled_metric_weights"
    gamma = _check(owner, n_items, n_samples, method, gamma, sampling)
    kind, k = parse_metric(owner, metric)
    return _weights(owner, kind, k, n_items, n_samples, method, gamma, sampling)


def _weights(owner, kind, k, n_items, n_samples, method, gamma, sampling):
    if method == "naive":
        return metric_values(kind, k, np.arange(1, n_samples + 2))
    if method == "rank_estimate":
        return rank_estimate_weights(kind, k, n_items, n_samples)
    gram, mass = sums(n_items, n_samples, sampling)
    target = metric_target(kind, k, n_items, n_samples, sampling)
    if method == "cls":
        return constrained_weights(gram, target)
    weights, dropped = solve_weights(gram, mass, target, 0.0 if gamma is None else float(gamma))
    if dropped:
        warn_caller(
            f"{owner}: the {method} system for n_items={n_items}, n_samples={n_samples} is "
            f"singular to working precision: {dropped} of its {n_samples + 1} directions were "
            "left out (the smallest weights that solve the rest). Its estimates have a high "
            "variance; method='bv' with gamma > 0 (by default 0.1) is well-posed.",
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
    gamma=None,
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
    ``A[r, j] = P(r~ = j | r)`` (:func:`sampled_metric_weights`), every full
    rank counting equally (a uniform prior over the full ranks). The
    estimators, each a weight vector ``w`` (what the code computes):

    - ``"bv"``: the bias-variance trade-off above, ``gamma`` weighing the
      variance (Krichene and Rendle report that, in their MovieLens
      experiment at 100 samples, 0.1 ordered the models correctly most
      often overall of 1, 0.1, 0.01 and 0.001; 1 gives the mean of ``f(r)``
      given the sampled rank);
    - ``"least_squares"``: the unconstrained least squares
      ``min_w ||A w - f||^2``, the minimal-bias correction (``"bv"`` with
      ``gamma = 0``): its weights swing widely with many samples (high
      variance), and its system is singular to working precision at 100
      samples (a warning counts the directions left out);
    - ``"cls"``: the same least squares constrained to weights that never
      increase with the sampled rank, ``w_1 >= w_2 >= ... >= w_{m+1}`` (a
      better sampled rank never scores less; no other bound on the
      weights), solved exactly by bounded-variable least squares;
    - ``"rank_estimate"``: the metric of the full rank estimated from the
      sampled one, ``f(1 + (n - 1)(j - 1) // m)``;
    - ``"naive"``: ``w_j = f(j)``, the metric of the sampled rank as if it
      were the full rank.

    No estimator recovers the top of the full ranking the sample rarely
    reaches: at 1,000,000 items and 100 samples a sampled rank of 1 stands
    for any full rank up to about 10,000, and corrected Recall@10 estimates
    a smoothed share of that region, far closer than naive's but not the
    exact value (the docs' experiment shows both).

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
    method : {"bv", "cls", "least_squares", "rank_estimate", "naive"}, default="bv"
        The estimator: the bias-variance trade-off, the least squares with
        non-increasing weights, the unconstrained least squares (minimal
        bias), the rank estimate, or the metric of the sampled rank.
    gamma : float or None, default=None
        The weight of the variance against the squared bias in ``"bv"``,
        from 0 (``"least_squares"``'s weights) to 1 (the mean of ``f(r)``
        given the sampled rank, under the uniform prior); None is 0.1. Only
        ``"bv"`` takes it: a gamma with another method is an error.
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
    0.056
    """
    owner = "correct_sampled_metric"
    gamma = _check(owner, n_items, n_samples, method, gamma, sampling)
    check_parameters(owner, average=average)
    kind, k = parse_metric(owner, metric)
    ranks = check_sampled_ranks(owner, sampled_ranks, n_samples)
    estimates = _weights(owner, kind, k, n_items, n_samples, method, gamma, sampling)[ranks - 1]
    if average is None:
        return estimates
    if estimates.shape[0] == 0:
        raise ValueError(f"{owner}: sampled_ranks is empty; pass one rank per user.")
    return float(estimates.mean())
