"""The corpus of per-query values that a refactor must reproduce bit for bit.

``PYTHONPATH=<tree> python tests/_record_corpus.py --write`` runs every case
below on the tree it imports and writes the inputs, the calls and their
results to ``tests/data/unchanged_numbers.json.gz``;
``tests/test_unchanged_numbers.py`` replays the stored inputs on the
current tree and asserts the same results, bit for bit. Record on the
commit before a change of the engine, then change it.

Only the public API is called (``evaluate``, the metric functions,
``trec.evaluate_run``, the ``rank-eval`` command, ``RankingCurveDisplay``,
``dask.evaluate``, ``compare`` and ``compare_results``), so the corpus
replays on any layout of the package. The inputs are written from Python's
``random.Random`` (whose sequence is fixed across versions) and stored in
the corpus with the results: the test replays them, it never regenerates
them.

Values are stored exactly: arrays as their bytes and dtype, Python floats
as ``float.hex``. A case whose call raises stores the exception's type.
"""

import argparse
import base64
import contextlib
import gzip
import io
import json
import os
import platform
import random
import re
import runpy
import sys
import tempfile
import warnings

import numpy as np

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "unchanged_numbers.json.gz")

# Calls whose results depend on numpy's random generator (resampling tests):
# exact only where numpy's version is the one they were recorded with.
RANDOM = ("compare", "compare_results")


# ------------------------------------------------------------------ encoding
def encode(x):
    """A JSON-able form of ``x`` that keeps every bit, dtype and container type."""
    pd = sys.modules.get("pandas")  # a pandas object can only come from an imported pandas
    if x is None or isinstance(x, (bool, str)):
        return x
    if pd is not None and x is pd.NA:
        return {"NA": True}
    if isinstance(x, int) and not isinstance(x, np.integer):
        return {"int": str(x)}
    if isinstance(x, float) and not isinstance(x, np.floating):
        return {"float": x.hex()}
    if isinstance(x, np.generic):
        return {"scalar": encode(np.asarray(x).reshape(1)), "type": type(x).__name__}
    if isinstance(x, np.ndarray):
        shape = list(x.shape)
        if x.dtype.kind in "biufc":
            raw = base64.b64encode(np.ascontiguousarray(x).tobytes()).decode()
            return {"array": x.dtype.str, "shape": shape, "bytes": raw}
        return {"array": x.dtype.str, "shape": shape, "items": [encode(v) for v in x.ravel().tolist()]}
    if pd is not None and isinstance(x, pd.DataFrame):
        return {
            "frame": [encode(str(c)) for c in x.columns],
            "columns": [encode(x[c].to_numpy()) for c in x.columns],
            "index": encode(x.index.to_numpy()),
            "index_names": [encode(n) for n in x.index.names],
        }
    if isinstance(x, tuple):
        return {"tuple": [encode(v) for v in x]}
    if isinstance(x, list):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in x.items()]}
    raise TypeError(f"cannot encode {type(x).__name__}")


def decode(x):
    """The value :func:`encode` wrote (DataFrames come back as pandas DataFrames)."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, list):
        return [decode(v) for v in x]
    if "NA" in x:
        import pandas as pd

        return pd.NA
    if "int" in x:
        return int(x["int"])
    if "float" in x:
        return float.fromhex(x["float"])
    if "scalar" in x:
        return decode(x["scalar"])[0]
    if "array" in x:
        dtype = np.dtype(x["array"])
        if "bytes" in x:
            return np.frombuffer(base64.b64decode(x["bytes"]), dtype=dtype).reshape(x["shape"]).copy()
        items = [decode(v) for v in x["items"]]
        out = np.empty(len(items), dtype=dtype)
        out[:] = items
        return out.reshape(x["shape"])
    if "frame" in x:
        import pandas as pd

        columns = {decode(n): decode(c) for n, c in zip(x["frame"], x["columns"])}
        return pd.DataFrame(columns)
    if "tuple" in x:
        return tuple(decode(v) for v in x["tuple"])
    if "dict" in x:
        return {decode(k): decode(v) for k, v in x["dict"]}
    raise ValueError(f"cannot decode {x!r}")


# ------------------------------------------------------- results, canonical
def query_results(results):
    """Everything a QueryResults says, per metric: values, weights, skips, undefined, means."""
    per_metric = {}
    for name in results.metrics:
        per_metric[name] = {
            "values": np.asarray(results[name]),
            "weights": np.asarray(results.weights(name)),
            "skipped": results.skipped(name),
            "undefined": results.undefined(name),
            "aggregate": results.aggregate(name),
            "mean": results.mean(name),
        }
    return {
        "query_ids": np.asarray(results.query_ids),
        "metrics": tuple(results.metrics),
        "n_queries": results.n_queries,
        "per_metric": per_metric,
        "means": results.mean(),
    }


def canonical(result):
    """A QueryResults as :func:`query_results`; a dict of means as it is."""
    if hasattr(result, "query_ids") and hasattr(result, "metrics"):
        return {"QueryResults": query_results(result)}
    return result


# ------------------------------------------------------------------ runners
# Each runner takes the decoded stored arguments and calls the public API.
def run_evaluate(y_true, y_score, kwargs):
    import sklearn_rank_metrics as srm

    return canonical(srm.evaluate(y_true, y_score, **kwargs))


def run_function(function, y_true, y_score, kwargs):
    import sklearn_rank_metrics as srm

    return canonical(getattr(srm, function)(y_true, y_score, **kwargs))


def run_evaluate_run(qrels, run, mode, kwargs):
    """``evaluate_run`` on files (plain or gzipped) or on DataFrames of the same lines."""
    from sklearn_rank_metrics.trec import evaluate_run

    if mode == "frames":
        return canonical(evaluate_run(_qrels_frame(qrels), _run_frame(run), **kwargs))
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for name, text in (("qrels", qrels), ("run", run)):
            path = os.path.join(directory, name + (".gz" if mode == "gzip" else ""))
            with (gzip.open if mode == "gzip" else open)(path, "wb") as f:
                f.write(text.encode("utf-8"))
            paths.append(path)
        return canonical(evaluate_run(paths[0], paths[1], **kwargs))


def _qrels_frame(text):
    import pandas as pd

    rows = [line.split() for line in text.splitlines() if line.strip()]
    return pd.DataFrame({
        "query_id": [r[0] for r in rows], "iteration": [r[1] for r in rows],
        "doc_id": [r[2] for r in rows], "relevance": [int(r[3]) for r in rows],
    })  # fmt: skip


def _run_frame(text):
    import pandas as pd

    rows = [line.split() for line in text.splitlines() if line.strip()]
    return pd.DataFrame({
        "query_id": [r[0] for r in rows], "iteration": [r[1] for r in rows],
        "doc_id": [r[2] for r in rows], "rank": [int(r[3]) for r in rows],
        "score": [float(r[4]) for r in rows], "run_name": [r[5] for r in rows],
    })  # fmt: skip


def run_command(qrels, run, arguments):
    """``python -m sklearn_rank_metrics ARGUMENTS qrels run``: (exit status, stdout)."""
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for name, text in (("qrels", qrels), ("run", run)):
            path = os.path.join(directory, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            paths.append(path)
        out, err = io.StringIO(), io.StringIO()
        argv = sys.argv
        sys.argv = ["rank-eval", *arguments, *paths]
        status = 0
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                runpy.run_module("sklearn_rank_metrics", run_name="__main__", alter_sys=False)
        except SystemExit as stop:
            status = stop.code
        finally:
            sys.argv = argv
        return {"status": status, "stdout": out.getvalue()}


def _curve(display):
    return {
        "k": np.asarray(display.k_),
        "values": np.asarray(display.values_),
        "lower": None if display.lower_ is None else np.asarray(display.lower_),
        "upper": None if display.upper_ is None else np.asarray(display.upper_),
    }


def run_curve(y_true, y_score, kwargs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rank_metrics import RankingCurveDisplay

    try:
        return _curve(RankingCurveDisplay.from_predictions(y_true, y_score, **kwargs))
    finally:
        plt.close("all")


def run_curve_run(qrels, run, kwargs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rank_metrics import RankingCurveDisplay

    try:
        return _curve(RankingCurveDisplay.from_run(_qrels_frame(qrels), _run_frame(run), **kwargs))
    finally:
        plt.close("all")


def run_dask(frame, npartitions, kwargs):
    import dask
    import dask.dataframe as dd

    from sklearn_rank_metrics.dask import evaluate

    with dask.config.set(scheduler="synchronous"):
        ddf = dd.from_pandas(frame, npartitions=npartitions)
        result = evaluate(ddf, **kwargs)
        return result.compute() if hasattr(result, "compute") else result


def _comparison(comparison):
    per_query = {}
    for metric in comparison.metrics:
        frame = comparison.per_query(metric)
        per_query[metric] = frame
    return {"frame": comparison.to_frame(), "per_query": per_query}


def run_compare(y_true, y_scores, kwargs):
    import sklearn_rank_metrics as srm

    return _comparison(srm.compare(y_true, y_scores, **kwargs))


def run_compare_results(y_true, y_scores, qid, metrics, kwargs):
    import sklearn_rank_metrics as srm

    results = {
        name: srm.evaluate(y_true, y_score, qid=qid, metrics=metrics, average=None)
        for name, y_score in y_scores.items()
    }
    return _comparison(srm.compare_results(results, **kwargs))


RUNNERS = {
    "evaluate": run_evaluate,
    "function": run_function,
    "evaluate_run": run_evaluate_run,
    "command": run_command,
    "curve": run_curve,
    "curve_run": run_curve_run,
    "dask": run_dask,
    "compare": run_compare,
    "compare_results": run_compare_results,
}
# The extras each call needs (the test skips a case where one is absent).
EXTRAS = {
    "evaluate_run": ("pandas",),
    "command": (),
    "curve": ("matplotlib",),
    "curve_run": ("matplotlib", "pandas"),
    "dask": ("dask.dataframe", "pandas"),
    "compare": ("pandas",),
    "compare_results": ("pandas",),
}


def replay(case):
    """The encoded result of a stored case on the tree imported now ({"error": type} if it raised)."""
    arguments = decode(case["args"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = RUNNERS[case["call"]](*arguments)
        except Exception as error:  # noqa: BLE001 - the corpus records which error
            return {"error": type(error).__name__}
    return encode(result)


# ------------------------------------------------------------ the inputs
def offered_names():
    """The package's metric names and aliases, as the unknown-name error lists them.

    Definitions first (sorted), then aliases (sorted): the list is read as
    the two sorted runs it is.
    """
    import sklearn_rank_metrics as srm

    try:
        srm.evaluate([1, 0], [1, 0], metrics=["no-such-metric"])
    except ValueError as error:
        listed = re.search(r"Valid names: (.*?); append", str(error)).group(1).split(", ")
    else:
        raise AssertionError("an unknown metric name was accepted")
    cut = next(i for i in range(1, len(listed)) if listed[i] < listed[i - 1])
    return listed[:cut], listed[cut:]


def measure_lists(definitions, aliases):
    """The measure names of the evaluate cases: every definition bare and at k = 1, 3, 10."""
    import sklearn_rank_metrics as srm

    names = []
    for name in definitions:
        names.append(name)
        try:
            srm.evaluate([1, 0], [1, 0], metrics=[f"{name}@3"], ties="first")
        except ValueError as error:
            if "takes no @k" in str(error):
                continue
        names += [f"{name}@1", f"{name}@3", f"{name}@10"]
    # Measures with parameters, in the three syntaxes.
    names += [
        "iprec_at_recall_0.30", "IPrec@0.5", "Rprec_mult_0.50", "Rprec_mult_2.00",
        "11pt_avg", "nDCG@5", "P(rel=2)@5", "RBP(p=0.5)", "rbp_p=0.8",
        "ndcg_cut_5", "P_10", "map_cut_3", "recall_5", "success_1", "set_F", "set_P",
        "set_recall", "set_relative_P", "relative_P_5", "Judged@5", "ERR@4", "SetF",
        "nDCG(dcg='exp-log2')@4", "AP(rel=2)", "RR(rel=2)@3",
    ]  # fmt: skip
    return names


def flat_case(seed, *, n_queries=8, max_docs=12, labels=(0, 0, 1, 2, 3), scores=None,
              string_ids=False, grouped=False):  # fmt: skip
    """A flat ranking: (y_true, y_score, qid) lists, rows shuffled unless ``grouped``."""
    rng = random.Random(seed)
    ids = rng.sample(range(1, 90), n_queries)
    rows = []
    for i, q in enumerate(ids):
        n = 1 if i == 0 else rng.randint(2, max_docs)
        all_zero = i == 1 or rng.random() < 0.1
        for _ in range(n):
            label = 0 if all_zero else rng.choice(labels)
            score = rng.choice(scores) if scores else round(rng.random(), 1)
            rows.append((f"q{q:02d}" if string_ids else q, label, score))
    if grouped:
        rows.sort(key=lambda r: r[0])
    else:
        rng.shuffle(rows)
    return [r[1] for r in rows], [r[2] for r in rows], [r[0] for r in rows]


def matrix_case(seed, n_queries=6, n_docs=8):
    """2-D labels and scores, heavy ties, one row of zero labels."""
    rng = random.Random(seed)
    y_true = [[0 if i == 2 else rng.choice((0, 0, 1, 2, 3)) for _ in range(n_docs)] for i in range(n_queries)]
    y_score = [[rng.choice((0.0, 0.5, 1.0, 1.5)) for _ in range(n_docs)] for _ in range(n_queries)]
    return y_true, y_score


def trec_files(number):
    """A qrels and a run text, written by the trec_eval differential test's case writer."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _trec10

    with tempfile.TemporaryDirectory() as directory:
        qrels, run, _ = _trec10.write_case(directory, number)
        with open(qrels, encoding="utf-8") as f, open(run, encoding="utf-8") as g:
            return f.read(), g.read()


def cases():
    """Every case: (id, call, arguments) with plain Python / numpy arguments."""
    definitions, aliases = offered_names()
    names = measure_lists(definitions, aliases)
    out = []

    def add(case_id, call, *arguments):
        out.append((case_id, call, list(arguments)))

    def add_evaluate(case_id, y_true, y_score, kw):
        """One case of the names the options allow, one per name they refuse (its error)."""
        refused = []
        if _raises(y_true, y_score, kw):
            refused = [name for name in kw["metrics"] if _raises(y_true, y_score, dict(kw, metrics=[name]))]
        remaining = [name for name in kw["metrics"] if name not in refused]
        groups = []
        while remaining:  # names that only refuse each other (gain) go to calls of their own
            group = []
            for name in remaining:
                if not group or not _raises(y_true, y_score, dict(kw, metrics=group + [name])):
                    group.append(name)
            groups.append(group)
            remaining = [name for name in remaining if name not in group]
        for i, group in enumerate(groups):
            add(case_id + (f"/{i}" if i else ""), "evaluate", y_true, y_score, dict(kw, metrics=group))
        for name in refused:
            add(f"{case_id}/refused/{name}", "evaluate", y_true, y_score, dict(kw, metrics=[name]))

    flat = flat_case(1)
    grouped = flat_case(1, grouped=True)
    strings = flat_case(2, string_ids=True)
    binary = flat_case(3, labels=(0, 0, 1))
    fractional = flat_case(4, labels=(0, 0.5, 1, 2.5))
    y2, s2 = matrix_case(5)
    ties_modes = ("average", "optimistic", "pessimistic", "first")

    # evaluate: every measure, tie mode, gain and no_relevant convention.
    for ties in ties_modes:
        for gain in ("linear", "exponential"):
            for no_relevant in ("zero", "skip", "one"):
                kw = dict(metrics=names, qid=flat[2], ties=ties, gain=gain, no_relevant=no_relevant, average=None)
                add_evaluate(f"evaluate/flat/{ties}/{gain}/{no_relevant}", flat[0], flat[1], kw)
        add_evaluate(f"evaluate/flat/{ties}/mean", flat[0], flat[1],
            dict(metrics=names, qid=flat[2], ties=ties))  # fmt: skip
        # Layouts.
        add_evaluate(f"evaluate/grouped/{ties}", grouped[0], grouped[1],
            dict(metrics=names, qid=grouped[2], ties=ties, average=None))  # fmt: skip
        add_evaluate(f"evaluate/strings/{ties}", strings[0], strings[1],
            dict(metrics=names, qid=strings[2], ties=ties, average=None))  # fmt: skip
        add_evaluate(f"evaluate/matrix/{ties}", y2, s2, dict(metrics=names, ties=ties, average=None))
        add_evaluate(f"evaluate/one-query/{ties}", flat[0][:9], flat[1][:9],
            dict(metrics=names, ties=ties, average=None))  # fmt: skip
        add_evaluate(f"evaluate/fractional/{ties}", fractional[0], fractional[1],
            dict(metrics=names, qid=fractional[2], ties=ties, average=None, gain="exponential"))  # fmt: skip
    # The binary-relevance options.
    for ties in ("average", "first"):
        for level in (1, 2, 0.5):
            add_evaluate(f"evaluate/relevance_level={level}/{ties}", flat[0], flat[1],
                dict(metrics=names, qid=flat[2], ties=ties, relevance_level=level, average=None))  # fmt: skip
        listed = {}
        for q, label in zip(binary[2], binary[0]):
            listed[q] = listed.get(q, 0) + (label >= 1)
        n_relevant = {q: listed[q] + i % 3 for i, q in enumerate(sorted(listed)[::2])}
        for no_relevant in ("zero", "skip", "one"):
            add_evaluate(f"evaluate/n_relevant/{ties}/{no_relevant}", binary[0], binary[1],
                dict(metrics=names, qid=binary[2], ties=ties, n_relevant=n_relevant,
                     no_relevant=no_relevant, average=None))  # fmt: skip
        weight_of = {q: float(1 + i % 4) / 2 for i, q in enumerate(sorted(set(flat[2])))}
        weights = np.array([weight_of[q] for q in flat[2]])
        add_evaluate(f"evaluate/sample_weight/{ties}", flat[0], flat[1],
            dict(metrics=names, qid=flat[2], ties=ties, sample_weight=weights, average=None))  # fmt: skip
        add_evaluate(f"evaluate/sample_weight/{ties}/mean", flat[0], flat[1],
            dict(metrics=names, qid=flat[2], ties=ties, sample_weight=weights))  # fmt: skip
        add_evaluate(f"evaluate/matrix/sample_weight/{ties}", y2, s2,
            dict(metrics=names, ties=ties, sample_weight=[1.0, 2.0, 0.5, 0.0, 3.0, 1.0], average=None))  # fmt: skip
        # dtypes: float32 labels and scores, integer scores (exact beyond 2**53), int labels.
        add_evaluate(f"evaluate/float32/{ties}", np.array(flat[0], dtype=np.float32),
            np.array(flat[1], dtype=np.float32), dict(metrics=names, qid=np.array(flat[2]), ties=ties, average=None))  # fmt: skip
        big = np.array([2**60 + int(s * 10) for s in flat[1]], dtype=np.int64)
        add_evaluate(f"evaluate/int-scores/{ties}", np.array(flat[0], dtype=np.int64), big,
            dict(metrics=names, qid=np.array(flat[2], dtype=np.int32), ties=ties, average=None))  # fmt: skip
        add_evaluate(f"evaluate/uint8-labels/{ties}", np.array(flat[0], dtype=np.uint8),
            np.array([int(s * 10) for s in flat[1]], dtype=np.int16), dict(metrics=names, qid=flat[2], ties=ties, average=None))  # fmt: skip
    # Each name alone, aliases included (the names table must still offer each).
    for name in definitions + aliases:
        add_evaluate(f"evaluate/name/{name}", flat[0], flat[1],
            dict(metrics=[name], qid=flat[2], ties="first", average=None))  # fmt: skip

    # The metric functions, each public one, with k.
    functions = {
        "ndcg_score": dict(gain=("linear", "exponential"), ignore_ties=(False, True)),
        "dcg_score": dict(gain=("linear", "exponential"), log_base=(2, 10), ignore_ties=(False, True)),
        "cg_score": dict(gain=("linear", "exponential")),
        "map_score": dict(relevance_level=(1, 2)),
        "mrr_score": dict(relevance_level=(1, 2)),
        "precision_at_k_score": dict(relevance_level=(1, 2)),
        "recall_at_k_score": dict(relevance_level=(1, 2)),
        "f1_at_k_score": dict(relevance_level=(1, 2)),
        "recall_cap_score": dict(relevance_level=(1, 2)),
        "hit_rate_score": dict(level=("query", "item")),
        "r_precision_score": dict(relevance_level=(1, 2)),
        "rank_correlation_score": dict(method=("rc", "kendall")),
    }
    whole_list = ("r_precision_score", "rank_correlation_score")
    for function, options in functions.items():
        for option, values in options.items():
            for value in values:
                for ties in ties_modes:
                    for k in (None,) if function in whole_list else (None, 1, 3, 5):
                        kw = {option: value, "ties": ties, "average": None}
                        if k is not None:
                            kw["k"] = k
                        if ties != "average" and option == "ignore_ties" and value:
                            continue
                        add(f"function/{function}/{option}={value}/{ties}/k={k}", "function",
                            function, flat[0], flat[1], dict(kw, qid=flat[2]))  # fmt: skip
        kw = {"k": 3} if function not in whole_list else {}
        add(f"function/{function}/matrix", "function", function, y2, s2, kw)
        add(f"function/{function}/strings/mean", "function", function, strings[0], strings[1],
            dict(kw, qid=strings[2]))  # fmt: skip
        add(f"function/{function}/skip", "function", function, flat[0], flat[1],
            dict(kw, qid=flat[2], average=None, **({} if function == "rank_correlation_score" else {"no_relevant": "skip"})))  # fmt: skip

    # evaluate_run on TREC files and DataFrames.
    # trec_eval's measures (its set all_trec, its names with parameter lists), and the
    # package's and ir_measures' names of the same and of other measures.
    ir_names = [
        "ndcg@10", "mrr", "precision@5", "recall@100", "nDCG@10", "P(rel=2)@5", "RBP(p=0.8)",
        "RBP", "IPrec@0.3", "Judged@10", "ERR@10", "AP(rel=2)", "SetF", "Bpref", "R@20",
        "Success@3", "err@5", "judged@5", "hit_rate_item@5", "dcg@5", "cg@5", "f1@5",
        "recall_cap@5",
    ]  # fmt: skip
    trec_lists = ["map", "infAP", "P.5,10", "ndcg_cut.5,10", "rbp.p=0.5", "Rprec_mult.0.5,1.5",
                  "iprec_at_recall.0.25", "relative_P.3", "success.1,5", "unj.5", "ndcg.1=2,2=5",
                  "utility.2,-1,0,0", "11pt_avg", "set_F", "G", "Rndcg", "ndcg_rel", "binG"]  # fmt: skip
    tie_free = ["all_trec"] + ir_names
    trec_measures = trec_lists + ir_names + ["gm_map", "rc", "kendall"]
    for number in trec_numbers(tie_free + trec_lists):
        qrels, run = trec_files(number)
        for version in ("10", "9"):
            for flags in ({}, {"missing_queries": "zero"}, {"judged_only": True}, {"max_docs": 5},
                          {"relevance_level": 2}, {"missing_queries": "zero", "judged_only": True}):  # fmt: skip
                kw = dict(metrics=tie_free, trec_eval_version=version, average=None, **flags)
                tag = ",".join(f"{k}={v}" for k, v in flags.items())
                add(f"evaluate_run/{number}/v{version}/{tag}", "evaluate_run", qrels, run, "files", kw)
        for ties in ("trec_eval", "average", "first", "optimistic", "pessimistic"):
            add(f"evaluate_run/{number}/frames/{ties}", "evaluate_run", qrels, run, "frames",
                dict(metrics=trec_measures, ties=ties, average=None))  # fmt: skip
        add(f"evaluate_run/{number}/gzip/mean", "evaluate_run", qrels, run, "gzip", dict(metrics=trec_lists))
        add(f"evaluate_run/{number}/official/mean", "evaluate_run", qrels, run, "files",
            dict(metrics=["official"]))  # fmt: skip
        add(f"evaluate_run/{number}/exponential", "evaluate_run", qrels, run, "files",
            dict(metrics=["nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')"], average=None))  # fmt: skip

    qrels, run = trec_files(3)  # a document twice in a query: an error, without max_docs
    add("evaluate_run/duplicate", "evaluate_run", qrels, run, "files", dict(metrics=["official"]))
    add("evaluate_run/duplicate/max_docs", "evaluate_run", qrels, run, "files",
        dict(metrics=["official"], max_docs=1))  # fmt: skip

    # The rank-eval command.
    qrels, run = trec_files(1)
    qrels5, run5 = trec_files(5)
    for i, arguments in enumerate((
        [], ["-q"], ["-q", "-m", "all_trec"], ["-c", "-q", "-m", "all_trec"],
        ["-J", "-M", "5", "-q", "-m", "P.5,10", "-m", "ndcg_cut.5,10"],
        ["-l", "2", "--trec-eval-version", "9", "-q", "-m", "official"],
        ["--trec-eval-version", "9", "-q", "-m", "all_trec"],
        ["-n", "-q", "-m", "nDCG@10", "-m", "P(rel=2)@5", "-m", "ndcg@10"],
        ["--format", "json", "-q", "-m", "ndcg@10", "-m", "map"],
        ["--format", "csv", "-q", "-m", "all_trec"],
    )):  # fmt: skip
        add(f"command/{i}", "command", qrels, run, arguments)
        add(f"command/{i}/shuffled", "command", qrels5, run5, arguments)

    # Curves.
    curve_metrics = ("ndcg", "dcg", "cg", "mrr", "map", "precision", "recall", "f1",
                     "recall_cap", "hit_rate", "hit_rate_item")  # fmt: skip
    for metric in curve_metrics:
        for ties in ("average", "first"):
            add(f"curve/{metric}/{ties}", "curve", flat[0], flat[1],
                dict(qid=flat[2], metric=metric, k_max=14, ties=ties))  # fmt: skip
        add(f"curve/{metric}/band", "curve", strings[0], strings[1],
            dict(qid=strings[2], metric=metric, k_max=6, confidence_band=0.9, no_relevant="skip"))  # fmt: skip
        add(f"curve_run/{metric}", "curve_run", qrels, run, dict(metric=metric, k_max=12))
    add("curve/ndcg/matrix", "curve", y2, s2, dict(metric="ndcg", k_max=5, gain="exponential"))
    add("curve_run/ndcg/band", "curve_run", qrels5, run5,
        dict(metric="ndcg", k_max=8, confidence_band=0.95, missing_queries="zero", trec_eval_version="9"))  # fmt: skip

    # dask: a small frame in a few partitions.
    frame = {"qid": np.array(flat[2]), "label": np.array(flat[0], dtype=float),
             "score": np.array(flat[1])}  # fmt: skip
    dask_metrics = ["ndcg@5", "map", "mrr@3", "recall@10", "precision@3", "num_q", "num_rel", "gm_map", "rc"]
    for npartitions in (1, 3):
        for kw in (dict(average=None), dict(), dict(ties="optimistic", gain="exponential"),
                   dict(no_relevant="skip", average=None)):  # fmt: skip
            tag = ",".join(f"{k}={v}" for k, v in kw.items())
            add(f"dask/{npartitions}/{tag}", "dask", _frame(frame), npartitions, dict(kw, metrics=dask_metrics))
    # ties="first" ranks tied documents in row order, which the shuffle of several
    # partitions does not keep: one partition only.
    add("dask/1/ties=first", "dask", _frame(frame), 1, dict(ties="first", metrics=dask_metrics))

    # compare and compare_results: p-values, intervals, per-query differences.
    rng = random.Random(7)
    y_scores = {name: [round(s + rng.random() * 0.4, 2) for s in flat[1]] for name in ("a", "b", "c")}
    for test in ("permutation", "t", "bootstrap", "wilcoxon"):
        for pairs in ("baseline", "all"):
            kw = dict(qid=flat[2], metrics=["ndcg@5", "map", "mrr"], test=test, pairs=pairs,
                      n_resamples=200, random_state=0)  # fmt: skip
            add(f"compare/{test}/{pairs}", "compare", flat[0], y_scores, kw)
    for correction in ("holm", "bonferroni", "fdr_bh", None):
        add(f"compare_results/{correction}", "compare_results", flat[0], y_scores, flat[2],
            ["ndcg@10", "map", "recall@5"], dict(correction=correction, test="t", random_state=1, n_resamples=100))  # fmt: skip
    return out


def trec_numbers(metrics):
    """One case number of each kind of the trec_eval test's files, whose run evaluates."""
    from sklearn_rank_metrics.trec import evaluate_run

    numbers = {}
    for number in range(100):
        if number % 7 in numbers:
            continue
        qrels, run = trec_files(number)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                run_evaluate_run(qrels, run, "files", dict(metrics=metrics))
            except ValueError:
                continue  # a duplicate document, a grade above ERR's max_grade
        numbers[number % 7] = number
    return sorted(numbers.values())


def _raises(y_true, y_score, kw):
    import sklearn_rank_metrics as srm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            srm.evaluate(y_true, y_score, **kw)
        except Exception:  # noqa: BLE001 - any error: the case records it
            return True
    return False


def _frame(columns):
    import pandas as pd

    return pd.DataFrame(columns)


def environment():
    """What decides the last bits besides the code: library versions and CPU features."""
    import scipy

    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as features
    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "machine": platform.machine(),
        "cpu": sorted(name for name, on in features.items() if on),
    }


def record():
    """The corpus: the environment, the offered names and every case with its result."""
    definitions, aliases = offered_names()
    records = []
    for case_id, call, arguments in cases():
        case = {"id": case_id, "call": call, "args": encode(arguments)}
        case["result"] = replay(case)
        records.append(case)
    return {"environment": environment(), "definitions": definitions, "aliases": aliases, "cases": records}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {CORPUS}")
    options = parser.parse_args()
    corpus = record()
    errors = [case["id"] for case in corpus["cases"] if "error" in case["result"]]
    print(f"{len(corpus['cases'])} cases, {len(errors)} of them errors; not refused names:")
    print("\n".join(case_id for case_id in errors if "/refused/" not in case_id))
    if options.write:
        with gzip.GzipFile(CORPUS, "wb", mtime=0) as f:
            f.write(json.dumps(corpus, separators=(",", ":")).encode())
        print(f"wrote {CORPUS} ({os.path.getsize(CORPUS)} bytes)")


if __name__ == "__main__":
    main()
