"""Doctests of the optional sub-packages are collected only where their extra is installed."""

import importlib.util

collect_ignore_glob = [
    f"sklearn_rank_metrics/{extra}/*"
    for extra, module in [("dask", "dask"), ("spark", "pyspark"), ("plot", "matplotlib")]
    if importlib.util.find_spec(module) is None
]
