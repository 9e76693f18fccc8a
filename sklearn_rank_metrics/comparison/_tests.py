"""The paired tests of a zero mean difference over queries, column by column."""

import numpy as np
from scipy import stats

from ._resampling import sign_flip_pvalues


def paired_pvalues(test, first, second, n_resamples, rng, bootstrap_test=None):
    """Two-sided p-values of the paired test ``test``, one per column.

    Parameters
    ----------
    test : {"permutation", "t", "bootstrap", "wilcoxon"}
    first, second : ndarray of shape (n_queries, n_columns)
        The per-query values of the two systems of each column.
    n_resamples : int
    rng : numpy.random.Generator
    bootstrap_test : StudentizedBootstrapTest, default=None
        The bootstrap test, already fed with the resamples (``test="bootstrap"``).

    Returns
    -------
    p_values : ndarray of shape (n_columns,)
        1 for a column whose differences are all zero (identical systems:
        no evidence of a difference; the t and Wilcoxon statistics are 0/0
        there).
    """
    differences = first - second
    live = np.any(differences != 0, axis=0)
    p_values = np.ones(differences.shape[1])
    if not live.any():
        return p_values
    if test == "permutation":
        p_values[live] = sign_flip_pvalues(differences[:, live], n_resamples, rng)
    elif test == "t":
        p_values[live] = stats.ttest_rel(first[:, live], second[:, live], axis=0).pvalue
    elif test == "wilcoxon":
        # Column by column: scipy picks the exact or the normal method from the zeros, ties
        # and size of its whole input, so one call over all columns would let one column's
        # ties change another's method (and p-value).
        p_values[live] = [stats.wilcoxon(column).pvalue for column in differences[:, live].T]
    else:
        p_values[live] = bootstrap_test.p_values()[live]
    return p_values
