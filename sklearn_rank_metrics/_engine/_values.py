"""What a metric's computation yields: per-query values, before any convention is applied."""

from dataclasses import dataclass

import numpy as np


@dataclass
class QueryValues:
    """A metric's raw per-query values, before the ``no_relevant`` convention.

    Attributes
    ----------
    values : ndarray of shape (n_queries,)
    no_relevant : ndarray of bool or None
        Queries without a relevant document (all labels 0 for gain metrics).
    pool_weights : ndarray or None
        Extra weights of the mean (item hit rate pools its items).
    undefined_reason : str or None
        Why a NaN value is undefined (rank correlation of one document).
    """

    values: np.ndarray
    no_relevant: np.ndarray | None = None
    pool_weights: np.ndarray | None = None
    undefined_reason: str | None = None
