"""``sample_ranks``: draw each user's negatives and rank the held-out item among them."""

import numpy as np

from .._engine._param_docs import document_parameters
from .._engine._params import check_parameters
from .._engine.prepare._validation import plain

_BLOCK_USERS = 16384  # users drawn at a time: their (users, n_samples) draws and scores
_TIE_CELLS = 1 << 22  # scores compared at a time when counting a tie block over whole rows


def _forbidden(owner, exclude, held_out, shape):
    """Sorted unique ``user * n_items + item`` keys of each user's held-out and excluded items."""
    n_users, n_items = shape
    keys = np.arange(n_users, dtype=np.int64) * n_items + held_out
    if exclude is None:
        return keys
    if hasattr(exclude, "tocsr"):  # scipy.sparse: the stored non-zeros
        matrix = exclude.tocsr()
        if matrix.shape != shape:
            raise ValueError(
                f"{owner}: exclude has shape {matrix.shape}, y_score {shape}; exclude must "
                "have one row per user and one column per item, as y_score."
            )
        stored = matrix.data != 0
        rows = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(matrix.indptr))[stored]
        columns = matrix.indices[stored]
    else:
        mask = np.asarray(exclude)
        if mask.dtype != np.bool_ or mask.shape != shape:
            raise ValueError(
                f"{owner}: exclude must be a scipy.sparse matrix or a boolean array of the "
                f"shape of y_score {shape}, got dtype {mask.dtype} and shape {mask.shape}."
            )
        rows, columns = np.nonzero(mask)
    leaked = columns == held_out[rows]
    if leaked.any():
        user = int(rows[np.argmax(leaked)])
        raise ValueError(
            f"{owner}: the held-out item {plain(held_out[user])} of user (row) {user} is also "
            "in exclude (train/test leakage); remove it from exclude or from held_out."
        )
    return np.unique(np.concatenate([keys, rows.astype(np.int64) * n_items + columns]))


def _floyd(rng, pool, n_samples):
    """``n_samples`` distinct draws from ``range(pool[u])`` per row: Floyd's algorithm.

    The loop runs over the samples, each step vectorised over the users; the
    set drawn is uniform over the subsets of size ``n_samples``.
    """
    draws = np.empty((pool.shape[0], n_samples), dtype=np.int64)
    for step in range(n_samples):
        top = pool - n_samples + step  # draw from 0..top
        value = rng.integers(0, top + 1)
        taken = (draws[:, :step] == value[:, None]).any(axis=1)
        draws[:, step] = np.where(taken, top, value)
    return draws


def _pools(forbidden, users, n_items):
    """The block's forbidden keys, as ``(row, item, starts)``, and each user's pool size."""
    first = users[0] * n_items
    lo, hi = np.searchsorted(forbidden, [first, (users[-1] + 1) * n_items])
    keys = forbidden[lo:hi] - first
    row = keys // n_items
    starts = np.searchsorted(row, np.arange(users.shape[0] + 1))
    return (row, keys % n_items, starts), n_items - np.diff(starts)


def allowed_items(blocked, n_items, draws):
    """The ``draws[u, s]``-th item (0-based) of each user's allowed items, by a binary search.

    The t-th allowed item of a row is ``t + #{i : f_i - i <= t}``, ``f_i`` the
    row's i-th forbidden item in increasing order: the keys ``f_i - i`` are
    sorted within a row, and offset by row so that one search serves all.
    """
    row, item, starts = blocked
    shifted = row * (n_items + 1) + item - (np.arange(row.shape[0]) - starts[row])
    local = np.arange(draws.shape[0])[:, None]
    below = np.searchsorted(shifted, local * (n_items + 1) + draws, side="right")
    return draws + below - starts[:-1, None]


def _draw_items(rng, blocked, pool, n_items, n_samples, sampling):
    """Items drawn uniformly, per user of a block, among its ``pool`` items not ``blocked``."""
    if sampling == "with_replacement":
        draws = rng.integers(0, pool[:, None], size=(pool.shape[0], n_samples))
    else:
        draws = _floyd(rng, pool, n_samples)
    return allowed_items(blocked, n_items, draws)


def _check_pools(owner, forbidden, n_users, n_items, n_samples, sampling):
    counts = np.bincount(forbidden // n_items, minlength=n_users)
    pool = n_items - counts
    need = 1 if sampling == "with_replacement" else n_samples
    if (pool < need).any():
        user = int(np.argmax(pool < need))
        raise ValueError(
            f"{owner}: user (row) {user} has {plain(pool[user])} items to draw negatives from "
            f"(the catalogue less its held-out and excluded items), fewer than {need}; lower "
            "n_samples, exclude fewer items or draw with replacement."
        )


def _check_inputs(owner, y_score, held_out):
    if hasattr(y_score, "tocsr"):
        raise TypeError(
            f"{owner}: y_score must be a dense (n_users, n_items) score matrix, got a "
            "scipy.sparse matrix; pass y_score.toarray(), or the scores block by block."
        )
    scores = np.asarray(y_score)
    if scores.ndim != 2 or scores.dtype.kind not in "iuf" or scores.shape[1] < 2:
        raise ValueError(
            f"{owner}: y_score must be a 2-D numeric array of scores, one row per user and "
            f"at least 2 items, got shape {scores.shape} and dtype {scores.dtype}."
        )
    items = np.asarray(held_out)
    if items.shape != (scores.shape[0],) or items.dtype.kind not in "iu":
        raise ValueError(
            f"{owner}: held_out must hold one integer item id (column of y_score) per user, "
            f"{scores.shape[0]} in all, got shape {items.shape} and dtype {items.dtype}."
        )
    bad = (items < 0) | (items >= scores.shape[1])
    if bad.any():
        user = int(np.argmax(bad))
        raise ValueError(
            f"{owner}: held_out of user (row) {user} is item {plain(items[user])}, outside the "
            f"{scores.shape[1]} columns of y_score (ids 0 to {scores.shape[1] - 1})."
        )
    return scores, items.astype(np.int64)


def _tie_blocks(scores, users, own, blocked, needed):
    """``T``: each ``needed`` user's allowed items (held-out one aside) tied with its held-out item.

    The row's items scoring ``own`` less its forbidden ones so scoring (the
    held-out item among them), counted over at most ``_TIE_CELLS`` cells of
    ``y_score`` at a time.
    """
    row, item, _ = blocked
    wanted = np.zeros(users.shape[0], dtype=bool)
    wanted[needed] = True
    keys = wanted[row]
    row, item = row[keys], item[keys]
    hit = scores[users[row], item] == own[row]
    counts = -np.bincount(row[hit], minlength=users.shape[0])[needed]
    step = max(1, _TIE_CELLS // scores.shape[1])
    for start in range(0, needed.shape[0], step):
        part = needed[start : start + step]
        counts[start : start + step] += np.count_nonzero(
            scores[users[part]] == own[part, None], axis=1
        )
    return counts


def _rank(owner, scores, users, held, drawn_items, rules, rng):
    """1-based rank of each held-out item among itself and the ``drawn_items``.

    ``rules`` is ``(ties, sampling, blocked)``, ``blocked`` the block's
    forbidden items (:func:`_pools`).
    """
    ties, sampling, blocked = rules
    own = scores[users, held]
    drawn = scores[users[:, None], drawn_items]
    unusable = np.isnan(drawn).any(axis=1) | np.isnan(own) if scores.dtype.kind == "f" else None
    if unusable is not None and unusable.any():
        at = int(np.argmax(unusable))
        item = held[at] if np.isnan(own[at]) else drawn_items[at][np.isnan(drawn[at])][0]
        raise ValueError(
            f"{owner}: y_score of user (row) {plain(users[at])} is NaN for item {plain(item)}; "
            "give every item a score (e.g. -inf for items never recommended)."
        )
    above = (drawn > own[:, None]).sum(axis=1)
    if ties == "optimistic":
        return above + 1
    tied = (drawn == own[:, None]).sum(axis=1)
    if ties == "pessimistic":
        return above + tied + 1
    if sampling == "without_replacement":  # distinct tied draws: a uniform place among them
        return above + rng.integers(0, tied + 1) + 1
    # With replacement an item drawn twice lies on one side both times: draw the number q of
    # the row's T tied items above the held-out one in a random order of the tie block, then
    # each tied draw lies above with probability q / T.
    needed = np.flatnonzero(tied)
    block = _tie_blocks(scores, users, own, blocked, needed)
    tied_above = np.zeros_like(above)
    tied_above[needed] = rng.binomial(tied[needed], rng.integers(0, block + 1) / block)
    return above + tied_above + 1


@document_parameters()
def sample_ranks(
    y_score,
    held_out,
    *,
    n_samples,
    exclude=None,
    ties="random",
    sampling="with_replacement",
    random_state=None,
):
    r"""Draw negatives for each user and rank the held-out item among them.

    For each user ``u`` (a row of ``y_score``), ``n_samples`` negatives are
    drawn uniformly among the items other than the held-out item
    ``held_out[u]`` and the user's excluded items, and the held-out item is
    ranked among itself and them by score. With ``ties="random"``:

    .. math::

        \tilde r_u = 1 + \#\{s : y_{u s} > y_{u h}\} + B_u, \qquad
        B_u \mid Q_u \sim \mathrm{Binomial}\bigl(t_u, Q_u / T_u\bigr), \quad
        Q_u \sim \mathrm{Uniform}\{0, \dots, T_u\}

    with replacement, ``t_u`` the draws tied with the held-out item ``h`` and
    ``T_u`` the user's allowed items (``h`` aside) tied with it in the whole
    row; without replacement ``B_u`` is uniform on ``0 .. t_u``. These are the
    sampled ranks that :func:`correct_sampled_metric` takes, drawn as its
    ``sampling`` model says (with the same ``sampling``).

    Ties: counting only the negatives scored strictly higher
    (``"optimistic"``) ranks a held-out item first among equal scores, which
    flatters a model that gives many items one score (a constant model would
    score a perfect hit rate); ``"pessimistic"`` ranks it last. The default
    ``"random"`` ranks it under a uniformly random order of its tie block
    (the allowed items with its score): ``Q_u`` of the ``T_u`` tied items
    lie above it, and a tied negative counts above it where it is one of
    them. With replacement a tied item drawn twice lies on the same side
    both times, hence the binomial given ``Q_u``, not an independent place
    per draw; without replacement the tied draws are distinct, and the
    held-out item's place among them is uniform. Either way the sampled rank
    follows the sampling model exactly for the full rank under a random
    order of ties, so that the corrected estimate is of the metric averaged
    over the orderings of ties (the package's ``ties="average"``). The two
    others give the bounds.

    No ``(n_users, n_items)`` array is made beyond ``y_score`` itself: the
    users are drawn in blocks, each drawing ``(block, n_samples)`` item
    indices among its allowed items (held-out and excluded items skipped by
    a binary search over the sorted exclusions) and gathering their scores.
    ``ties="random"`` with replacement also counts ``T_u`` over the whole row
    of each user with a tied draw, a few rows at a time.

    Parameters
    ----------
    y_score : array-like of shape (n_users, n_items)
        Each user's score of every item; a higher score ranks an item higher.
        NaN scores of the drawn or held-out items are an error.
    held_out : array-like of int of shape (n_users,)
        The held-out (relevant) item of each user: a column of ``y_score``.
    exclude : scipy.sparse matrix or boolean array of shape (n_users, n_items), default=None
        Items never drawn as negatives for a user (its training
        interactions): a stored non-zero or True cell. The held-out item may
        not be excluded. With exclusions, each user's full ranking covers the
        items not excluded: pass that count as ``correct_sampled_metric``'s
        ``n_items`` (its mean where users differ a little).
    ties : {"random", "optimistic", "pessimistic"}, default="random"
        Where the held-out item goes among the negatives with its score: its
        place in a uniformly random order of its tie block (exact, with or
        without replacement), first (the upper bound) or last (the lower
        bound).
    random_state : int, numpy.random.Generator, RandomState or None, default=None
        The draws' randomness; an int makes them reproducible. No global
        random state is used.

    Returns
    -------
    sampled_ranks : ndarray of int64 of shape (n_users,)
        The rank of each user's held-out item, from 1 to ``n_samples + 1``.

    See Also
    --------
    correct_sampled_metric : The corrected metric of these ranks.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics import sample_ranks
    >>> y_score = np.array([[0.9, 0.1, 0.5, 0.3], [0.2, 0.2, 0.2, 0.8]])
    >>> sample_ranks(y_score, [0, 3], n_samples=2, random_state=0)
    array([1, 1])
    >>> sample_ranks(y_score, [1, 0], n_samples=3, ties="pessimistic",
    ...              sampling="without_replacement", random_state=0)
    array([4, 4])
    """
    from ..comparison._resampling import check_generator  # imports the comparisons' SciPy

    owner = "sample_ranks"
    check_parameters(owner, n_samples=n_samples, sampled_ties=ties, sampling=sampling)
    scores, held = _check_inputs(owner, y_score, held_out)
    n_users, n_items = scores.shape
    rng = check_generator(random_state)
    forbidden = _forbidden(owner, exclude, held, scores.shape)
    _check_pools(owner, forbidden, n_users, n_items, n_samples, sampling)
    ranks = np.empty(n_users, dtype=np.int64)
    for start in range(0, n_users, _BLOCK_USERS):
        users = np.arange(start, min(start + _BLOCK_USERS, n_users))
        blocked, pool = _pools(forbidden, users, n_items)
        items = _draw_items(rng, blocked, pool, n_items, n_samples, sampling)
        rules = (ties, sampling, blocked)
        ranks[users] = _rank(owner, scores, users, held[users], items, rules, rng)
    return ranks
