"""Pictures of ranking metrics: metric@k curves.

:class:`RankingCurveDisplay` draws a metric at every cutoff ``k = 1 .. k_max``
(NDCG@k, MAP@k, recall@k, ...) of one or several models on one axes, in the
style of scikit-learn's displays (:class:`sklearn.metrics.PrecisionRecallDisplay`),
optionally with a confidence band over queries. All the cutoffs come from one
pass over the data. Drawing needs matplotlib, the ``plot`` extra:
``pip install 'sklearn-rank-metrics[plot]'``; it is imported only when a
curve is drawn.
"""

from ._curve import CURVE_METRICS, RankingCurveDisplay

__all__ = ["CURVE_METRICS", "RankingCurveDisplay"]
