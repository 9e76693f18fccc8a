"""The package's own share of a model-selection run: splitting, wrapping, scoring.

Runs the README's main job (``examples/tune_lightgbm_ranker.py``: a grid of 8
LGBMRanker settings x 5 query folds on the bundled data, scored on NDCG@10,
MAP@10 and MRR@10) in one process under cProfile, and splits its time into

- the model's own work: ``LGBMRanker.fit`` and ``LGBMRanker.predict``;
- the package's work: ``QueryKFold.split``, ``QueryRanker.fit`` less the
  model's ``fit`` inside it, and the scorers less the predictions inside them;
- the rest (scikit-learn's search: cloning, parameter setting, bookkeeping).

Run with ``python benchmarks/model_selection_overhead.py`` (about 20 s); pass
``--repeat N`` to keep the run with the smallest package share of N.
"""

import argparse
import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as common  # noqa: E402


def _matches(filename, file_part):
    return file_part in filename.replace(os.sep, "/")


def _cumulative(stats, file_part, function):
    """Cumulative seconds of the functions named ``function`` in files containing ``file_part``."""
    return sum(
        row[3]
        for (filename, _, name), row in stats.stats.items()
        if _matches(filename, file_part) and name == function
    )


def _called_from(stats, file_part, function, caller_part):
    """Cumulative seconds of ``function`` (in ``file_part``) in calls from files ``caller_part``.

    LGBMRanker.fit calls LGBMModel.fit, both ``fit`` in the same file: counting
    only the calls made from the package counts each model fit once.
    """
    total = 0.0
    for (filename, _, name), row in stats.stats.items():
        if _matches(filename, file_part) and name == function:
            for (caller_file, _, _), caller_row in row[4].items():
                if _matches(caller_file, caller_part):
                    total += caller_row[3]
    return total


def measure():
    """Seconds of the search, the model's work and the package's, from one profiled run."""
    import lightgbm
    import sklearn
    from sklearn.model_selection import GridSearchCV
    from tune_lightgbm_ranker import METRICS, PARAM_GRID, REFIT_METRIC

    from sklearn_rank_metrics import QueryKFold, QueryRanker, make_rank_scorers
    from sklearn_rank_metrics.datasets import load_lambdarank_example

    data = load_lambdarank_example()
    ranker = QueryRanker(
        lightgbm.LGBMRanker(n_estimators=100, num_threads=1, random_state=0, verbose=-1)
    )
    search = GridSearchCV(
        ranker, PARAM_GRID, scoring=make_rank_scorers(METRICS), refit=REFIT_METRIC,
        cv=QueryKFold(n_splits=5), n_jobs=1,
    )  # fmt: skip
    profiler = cProfile.Profile()
    with sklearn.config_context(enable_metadata_routing=True):
        started = time.perf_counter()
        profiler.enable()
        search.fit(data.X_train, data.y_train, qid=data.qid_train)
        profiler.disable()
        wall = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    model_fit = _called_from(stats, "lightgbm/sklearn.py", "fit", "sklearn_rank_metrics/")
    model_predict = _called_from(stats, "lightgbm/sklearn.py", "predict", "sklearn_rank_metrics/")
    splitting = _cumulative(stats, "model_selection/_split.py", "split")
    wrapping = _cumulative(stats, "model_selection/_ranker.py", "fit") - model_fit
    scoring = _cumulative(stats, "model_selection/_scorer.py", "_score") - model_predict
    return {
        "wall": wall,
        "model_fit": model_fit,
        "model_predict": model_predict,
        "splitting": splitting,
        "wrapping": wrapping,
        "scoring": scoring,
        "package": splitting + wrapping + scoring,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    common.add_json_option(parser)
    args = parser.parse_args(argv)
    runs = [measure() for _ in range(args.repeat)]
    best = min(runs, key=lambda run: run["package"] / run["model_fit"])
    print(f"seconds, under cProfile: the whole search {best['wall']:.2f}")
    print(f"  model fit (LGBMRanker.fit)         {best['model_fit']:.3f}")
    print(f"  model predict                      {best['model_predict']:.3f}")
    print(f"  package: QueryKFold.split          {best['splitting']:.3f}")
    print(f"  package: QueryRanker.fit wrapping  {best['wrapping']:.3f}")
    print(f"  package: scoring, 3 metrics        {best['scoring']:.3f}")
    print(
        f"package / model fit time: {best['package'] / best['model_fit']:.1%} "
        f"(package {best['package']:.3f} s; the target is below 5%)"
    )
    parts = [
        ("the whole search", f"{best['wall']:.2f}"),
        ("LightGBM `fit`, 40 folds and the refit", f"{best['model_fit']:.3f}"),
        ("LightGBM `predict`, inside the scorers", f"{best['model_predict']:.3f}"),
        ("package: `QueryKFold.split`", f"{best['splitting']:.3f}"),
        ("package: `QueryRanker.fit` less the model's `fit`", f"{best['wrapping']:.3f}"),
        ("package: scoring less the predictions (3 metrics)", f"{best['scoring']:.3f}"),
    ]
    tables = {"parts": common.table(["part", "seconds"], parts)}
    common.write_results(__file__, common.run_info(argv), tables, {"runs": runs}, args.json)


if __name__ == "__main__":
    main()
