"""Multiple-comparison corrections of the p-values of one family of tests."""

import numpy as np

CORRECTIONS = ("holm", "bonferroni", "fdr_bh", None)


def adjust(p_values, method):
    """Adjusted p-values of one family (the arithmetic of statsmodels' ``multipletests``).

    * ``"bonferroni"``: ``min(1, m p)``;
    * ``"holm"`` (step-down, Holm 1979): the i-th smallest p times
      ``m - i + 1``, made non-decreasing by a running maximum;
    * ``"fdr_bh"`` (step-up, Benjamini and Hochberg 1995): the i-th smallest
      p times ``m / i``, made non-decreasing by a running minimum from the
      largest; controls the false discovery rate, not the family-wise error;
    * None: unchanged.

    Parameters
    ----------
    p_values : ndarray of shape (m,)
    method : {"holm", "bonferroni", "fdr_bh", None}

    Returns
    -------
    adjusted : ndarray of shape (m,)
    """
    p_values = np.asarray(p_values, dtype=np.float64)
    m = p_values.shape[0]
    if method is None or m == 0:
        return p_values.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p_values * m)
    order = np.argsort(p_values, kind="stable")
    ranked = p_values[order]
    if method == "holm":
        stepped = np.maximum.accumulate(ranked * (m - np.arange(m)))
    elif method == "fdr_bh":
        stepped = np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1]
    else:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {method!r}.")
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted
