"""Recommender inputs: factors, top-k id lists and score matrices, against NumPy and implicit.

    python benchmarks/bench_recommender.py                  # MovieLens-20M's shape, several minutes
    python benchmarks/bench_recommender.py --small          # a quick check, under a minute
    python benchmarks/bench_recommender.py --only from_factors --rounds 3 --keep /tmp/rec-bench

The data (generated once per shape, ``--keep DIR`` keeps and reuses it) has
MovieLens-20M's shape by default: 138,493 users, 26,744 items, about 19M
interactions with a realistic popularity skew (item popularity falling as
``1 / rank``, user activity log-normal with at least 20 interactions a user),
users drawn to a few of ``rank - 1`` genres; each user's interactions split at
random 80/20 into training pairs (excluded from the ranking) and test pairs
(the relevant items; every user has at least one). Rank-64 float32 factors
score a user's genres and the items' popularity, so that the measures have
realistic values (NDCG@10 around 0.1-0.3). Binary labels. Seeded: the same
flags give the same data.

Sections (``--only``), each a table of ``benchmarks/results/recommender.json``:

* ``from_factors``: the six measures ``MEASURES`` from user and item factors
  with the training pairs excluded: ``evaluate_retrieval(U, V, test,
  exclude=train)`` against a NumPy baseline (:func:`numpy_baseline`: per block
  of users a matrix product, the training cells set to ``-inf``, one
  ``argpartition`` for the top 20 and the measures, ties not handled) and
  against implicit's ``ranking_metrics_at_k`` on the same factors (its model
  object built from them, not fitted; one call at ``K=10`` and one at
  ``K=20``, four measures each);
* ``top_k_lists``: ``evaluate_top_k`` of every user's top-100 item ids
  (those ``evaluate_retrieval(..., return_top_k=100)`` returns), with and
  without their scores, with the training pairs excluded;
* ``score_matrix``: a dense 5,000 x 20,000 float32 score matrix (rank-32
  factors) with a sparse ``y_true`` and ``exclude``: ``evaluate`` against the
  NumPy baseline on the same matrix;
* ``selection``: the flat engine on 1e7 rows (100,000 queries of 100
  documents, ``_common.generate``) with every measure cut at ``k <= 100``,
  against one ``np.argsort`` of the 1e7 float64 scores.

Every contender runs in a fresh process per round, the contenders taking
turns (their order reversed every other round, ``--rounds``, 2 by default),
so that a drift of the machine's speed falls on all. A process loads the
inputs, makes a small warm-up call, then one timed call. Memory beyond the
inputs: the process's peak resident set during the timed call less its
resident set before it (inputs loaded, modules imported; the high-water mark
reset through ``/proc/self/clear_refs``). The load average and the CPU time
of other processes during each call are recorded, the machine being shared.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's package, not an installed one
from _common import (  # noqa: E402
    add_json_option,
    emit,
    generate,
    peak_rss_bytes,
    reset_peak_rss,
    run_child,
    run_info,
    table,
    versions,
    write_results,
)

MEASURES = ["ndcg@10", "ndcg@20", "map@10", "recall@10", "recall@20", "mrr@10"]
MOVIELENS = dict(users=138_493, items=26_744, pairs=20_000_263, rank=64)
SMALL = dict(users=10_000, items=8_000, pairs=1_000_000, rank=64)
SCORE_MATRIX = dict(users=5_000, items=20_000, pairs=700_000, rank=32)
SELECTION_MEASURES = ["ndcg@10", "ndcg@100", "map@100", "recall@100", "precision@10", "mrr@10"]
TEST_SHARE = 0.2
RESULTS_FILE = Path(HERE) / "results" / "recommender.json"


# ---------------------------------------------------------------- the data


def interactions(users, items, pairs, rank, seed=0):
    """``(U, V, train, test)``: factors and CSR interaction matrices, as the module docstring says."""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(seed)
    genres = rank - 1
    popularity = 1.0 / (rng.permutation(items) + 10.0)  # 1 / rank, shuffled over the ids
    item_genre = rng.integers(0, genres, items)
    taste = rng.dirichlet(np.full(genres, 0.1), users)  # a few genres a user
    activity = 20 + np.minimum(rng.lognormal(np.log(1.3 * pairs / users - 20) - 0.72, 1.2, users), items // 2)
    user = np.repeat(np.arange(users), activity.astype(np.int64))
    # A genre by the user's taste, then an item of the genre by popularity;
    # one pair in four by popularity alone.
    cumulative = np.cumsum(taste, axis=1)
    cumulative[:, -1] = 1.0
    genre = np.searchsorted((cumulative + np.arange(users)[:, None]).ravel(), user + rng.random(user.shape[0]))
    genre = np.minimum(genre - user * genres, genres - 1)
    by_genre = np.lexsort((np.arange(items), item_genre))
    sorted_genre = item_genre[by_genre]
    sums = np.bincount(item_genre, popularity, genres)
    before = np.cumsum(sums) - sums  # popularity of the genres before each
    within = (np.cumsum(popularity[by_genre]) - before[sorted_genre]) / sums[sorted_genre]
    edges = np.minimum(within, 1.0) + sorted_genre  # genre g's items end at g + 1
    picked = np.searchsorted(edges, genre + rng.random(user.shape[0]))
    item = by_genre[np.minimum(picked, items - 1)]
    popular = rng.random(user.shape[0]) < 0.25
    overall = np.cumsum(popularity) / popularity.sum()
    item[popular] = np.minimum(np.searchsorted(overall, rng.random(popular.sum())), items - 1)
    keys = np.unique(user.astype(np.int64) * items + item)
    user, item = keys // items, keys % items
    first = np.append(True, user[1:] != user[:-1])  # each user's first pair is a test pair
    is_test = first | (rng.random(keys.shape[0]) < TEST_SHARE)

    def matrix(mask):
        ones = np.ones(int(mask.sum()), dtype=np.float32)
        return csr_matrix((ones, (user[mask], item[mask])), shape=(users, items))

    train, test = matrix(~is_test), matrix(is_test)
    counts = np.bincount(user[~is_test] * genres + item_genre[item[~is_test]], minlength=users * genres)
    liking = counts.reshape(users, genres) / np.maximum(train.getnnz(axis=1), 1)[:, None]
    U = np.empty((users, rank), dtype=np.float32)
    U[:, :genres] = liking + 0.05 * rng.standard_normal((users, genres))
    U[:, genres] = 0.3
    V = np.empty((items, rank), dtype=np.float32)
    V[:, :genres] = np.eye(genres)[item_genre] + 0.3 * rng.standard_normal((items, genres))
    log_popularity = np.log(popularity)
    V[:, genres] = (log_popularity - log_popularity.mean()) / log_popularity.std()
    return U, V, train, test


def save(folder, **arrays):
    """Save arrays and CSR matrices (as their three arrays) to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, value in arrays.items():
        if hasattr(value, "indptr"):
            np.save(folder / f"{name}_indptr.npy", value.indptr)
            np.save(folder / f"{name}_indices.npy", value.indices)
            np.save(folder / f"{name}_data.npy", value.data)
            np.save(folder / f"{name}_shape.npy", np.array(value.shape))
        else:
            np.save(folder / f"{name}.npy", value)


def load(folder, name):
    """An array or a CSR matrix saved by :func:`save`."""
    from scipy.sparse import csr_matrix

    folder = Path(folder)
    if (folder / f"{name}.npy").exists():
        return np.load(folder / f"{name}.npy")
    data, indices, indptr, shape = (np.load(folder / f"{name}_{part}.npy") for part in ("data", "indices", "indptr", "shape"))
    return csr_matrix((data, indices, indptr), shape=tuple(shape))


def nbytes(*values):
    return sum(
        v.data.nbytes + v.indices.nbytes + v.indptr.nbytes if hasattr(v, "indptr") else v.nbytes
        for v in values
    )


# ---------------------------------------------------------------- the NumPy baseline


def block_rows(n_items):
    """Users a block: the package's default strip, 2**24 scores."""
    return max(1, (1 << 24) // n_items)


def factor_blocks(U, V, block):
    """``(first_row, scores)`` of ``U @ V.T``, ``block`` users at a time."""
    for start in range(0, U.shape[0], block):
        yield start, U[start : start + block] @ V.T


def numpy_baseline(blocks, test, train, measures=MEASURES):
    """Mean of each ``name@k`` in ``measures`` (ndcg, map, recall, precision, mrr), ties not handled.

    ``blocks`` yields ``(first_row, scores)``, writable float blocks of the
    score matrix. Training cells go to ``-inf``, one ``argpartition`` takes
    each user's top ``K``, which are sorted by score; binary labels, every
    user with at least one test item.
    """
    K = max(int(name.split("@")[1]) for name in measures)
    discount = 1.0 / np.log2(np.arange(2, K + 2))
    ideal = np.cumsum(discount)
    totals = dict.fromkeys(measures, 0.0)
    for start, scores in blocks:
        n_rows, n_items = scores.shape
        train_rows = train[start : start + n_rows]
        rows = np.repeat(np.arange(n_rows), np.diff(train_rows.indptr))
        scores[rows, train_rows.indices] = -np.inf
        top = np.argpartition(scores, n_items - K, axis=1)[:, n_items - K :]
        order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
        top = np.take_along_axis(top, order, axis=1)
        labels = test[start : start + n_rows]
        hits = np.take_along_axis(labels.toarray() > 0, top, axis=1)
        relevant = np.diff(labels.indptr)
        for name in measures:
            metric, k = name.split("@")
            h = hits[:, : int(k)]
            if metric == "ndcg":
                values = (h @ discount[: int(k)]) / ideal[np.minimum(relevant, int(k)) - 1]
            elif metric == "recall":
                values = h.sum(axis=1) / relevant
            elif metric == "precision":
                values = h.sum(axis=1) / int(k)
            elif metric == "map":
                values = (h * np.cumsum(h, axis=1) / np.arange(1, int(k) + 1)).sum(axis=1) / relevant
            elif metric == "mrr":
                values = np.where(h.any(axis=1), 1.0 / (h.argmax(axis=1) + 1), 0.0)
            totals[name] += values.sum()
    return {name: total / test.shape[0] for name, total in totals.items()}


# ---------------------------------------------------------------- one contender, in a child process


def contender(section, tool, folder, n_threads=None):
    """``(inputs, warm_up, call)`` of one tool in one section: inputs loaded, two functions."""
    folder = Path(folder)
    if section in ("from_factors", "top_k_lists", "score_matrix"):
        U, V, train, test = (load(folder, name) for name in ("U", "V", "train", "test"))
        inputs = [U, V, train, test]
        few = slice(0, min(500, U.shape[0]))
    if section == "from_factors" and tool == "package":
        from sklearn_rank_metrics import evaluate_retrieval

        def run(rows=slice(None)):
            return evaluate_retrieval(U[rows], V, test[rows], exclude=train[rows], metrics=MEASURES)

        return inputs, lambda: run(few), run
    if section == "from_factors" and tool == "package-top100":
        from sklearn_rank_metrics import evaluate_retrieval

        def run(rows=slice(None)):
            values, items, scores = evaluate_retrieval(
                U[rows], V, test[rows], exclude=train[rows], metrics=MEASURES, return_top_k=100
            )
            if rows == slice(None):
                np.save(folder / "top_items.npy", items)
                np.save(folder / "top_scores.npy", scores)
            return values

        return inputs, lambda: run(few), run
    if section == "from_factors" and tool == "numpy":
        block = block_rows(V.shape[0])

        def run(rows=slice(None)):
            return numpy_baseline(factor_blocks(U[rows], V, block), test[rows], train[rows])

        return inputs, lambda: run(few), run
    if section == "from_factors" and tool.startswith("implicit"):
        from implicit.cpu.als import AlternatingLeastSquares
        from implicit.evaluation import ranking_metrics_at_k

        # Not fitted: the given factors. num_threads=0 (the default): its top-k on every core.
        model = AlternatingLeastSquares(factors=U.shape[1], num_threads=0)
        model.user_factors, model.item_factors = U, V
        K = int(tool.split("@")[1])

        def run(rows=slice(None)):
            if rows != slice(None):
                model.user_factors = U[rows]
            try:
                values = ranking_metrics_at_k(model, train[rows], test[rows], K=K, show_progress=False)
            finally:
                model.user_factors = U
            return {f"{name}@{K}": float(value) for name, value in values.items()}

        return inputs, lambda: run(few), run
    if section == "top_k_lists":
        from sklearn_rank_metrics import evaluate_top_k

        items = np.load(folder / "top_items.npy")
        scores = np.load(folder / "top_scores.npy") if tool != "package-no-scores" else None
        exclude = train if tool == "package-exclude" else None
        inputs += [items] + ([] if scores is None else [scores])

        def run(rows=slice(None)):
            return evaluate_top_k(
                test[rows], items[rows], top_scores=None if scores is None else scores[rows],
                exclude=None if exclude is None else exclude[rows], metrics=MEASURES,
            )  # fmt: skip

        return inputs, lambda: run(few), run
    if section == "score_matrix":
        y_score = U @ V.T
        inputs.append(y_score)
        if tool == "package":
            from sklearn_rank_metrics import evaluate

            def run(rows=slice(None)):
                return evaluate(test[rows], y_score[rows], exclude=train[rows], metrics=MEASURES)
        else:
            block = block_rows(y_score.shape[1])

            def run(rows=slice(None)):
                part = y_score[rows]
                blocks = ((s, part[s : s + block].copy()) for s in range(0, part.shape[0], block))
                return numpy_baseline(blocks, test[rows], train[rows])

        return inputs, lambda: run(few), run
    if section == "selection":
        y_true, y_score, qid = (np.load(folder / f"{name}.npy") for name in ("y_true", "y_score", "qid"))
        if tool == "package":
            from sklearn_rank_metrics import evaluate

            def run(n=None):
                return evaluate(y_true[:n], y_score[:n], qid=qid[:n], metrics=SELECTION_MEASURES)
        else:

            def run(n=None):
                np.argsort(y_score[:n])
                return {}

        return [y_true, y_score, qid], lambda: run(10_000), run
    raise ValueError(f"no contender {tool!r} in section {section!r}")


def cpu_seconds():
    """CPU seconds of this process so far, all its threads (user and system)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(section, tool, folder, contender=contender):
    """Child side: load, warm up, reset the memory high-water mark, time one call, emit.

    ``contender(section, tool, folder)`` gives ``(inputs, warm_up, call)``.
    """
    inputs, warm_up, call = contender(section, tool, folder)
    warm_up()
    base = reset_peak_rss()
    cpu = cpu_seconds()
    start = time.perf_counter()
    values = call()
    seconds = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    values = values if isinstance(values, dict) else {}
    emit({
        "seconds": seconds, "cpu_s": cpu, "peak_beyond": peak_rss_bytes() - base, "inputs_bytes": nbytes(*inputs),
        "values": {name: float(value) for name, value in values.items()},
        "load_after": os.getloadavg()[0],
    })  # fmt: skip


# ---------------------------------------------------------------- the parent


def prepare(folder, section, shape):
    """Write the section's data to ``folder`` (unless there); describe it."""
    done = folder / "done"
    if section == "selection":
        if not done.exists():
            y_true, y_score, qid = generate(shape["rows"])
            save(folder, y_true=y_true, y_score=y_score, qid=qid)
            done.write_text("")
        return {"rows": shape["rows"], "queries": shape["rows"] // 100}
    if not done.exists():
        start = time.perf_counter()
        U, V, train, test = interactions(**shape)
        save(folder, U=U, V=V, train=train, test=test)
        done.write_text(f"{time.perf_counter() - start:.1f}")
        print(f"# data of {shape} generated in {done.read_text()} s", file=sys.stderr)
    train, test = load(folder, "train"), load(folder, "test")
    popular = np.sort(np.asarray((train + test).sum(axis=0)).ravel())[::-1]
    return {
        **shape, "train_pairs": int(train.nnz), "test_pairs": int(test.nnz),
        "top_1pc_items_share": float(popular[: max(1, popular.shape[0] // 100)].sum() / popular.sum()),
        "min_test_per_user": int(np.diff(test.indptr).min()),
    }  # fmt: skip


def alternate(section, tools, folder, rounds, timeout, script=__file__):
    """Run every tool ``rounds`` times, each in a fresh process, taking turns; their results.

    ``script`` is run as ``python script --child section tool folder``.
    """
    runs = {tool: [] for tool in tools}
    for round_ in range(rounds):
        for tool in tools if round_ % 2 == 0 else tools[::-1]:
            result = run_child([script, "--child", section, tool, str(folder)], timeout)
            print(f"# {section} {tool}: {result}", file=sys.stderr)
            runs[tool].append(result)
    return runs


def summary(runs):
    """Median seconds and memory of a tool's processes (None where every one failed)."""
    good = [run for run in runs if "error" not in run]
    if not good:
        return None
    return {
        "seconds": statistics.median(run["seconds"] for run in good),
        "seconds_all": [run["seconds"] for run in good],
        "peak_beyond": statistics.median(run["peak_beyond"] for run in good),
        "inputs_bytes": good[0]["inputs_bytes"],
        "values": good[-1]["values"],
        # Processes of older runs did not record their CPU time: the median of those that did.
        "cpu_seconds": statistics.median(cpus) if (cpus := [run["cpu_s"] for run in good if "cpu_s" in run]) else None,
        "cpu_recorded": len(cpus),
        "other_cpu": [round(run["other_cpu"], 2) for run in good],
        "load": [round(run["load_before"], 2) for run in good],
    }


def agreement(values, reference, names):
    """The largest difference of the means ``names`` shared with the reference, as text."""
    shared = [name for name in names if name in values and name in reference]
    if not shared:
        return "-"
    return f"{max(abs(values[name] - reference[name]) for name in shared):.1e}"


def cpu_text(s):
    seconds = s.get("cpu_seconds")
    return "-" if seconds is None else f"{seconds:.2f}" if seconds < 10 else f"{seconds:.1f}"


def cpu_ratio(s, base):
    if s.get("cpu_seconds") is None or not base or base.get("cpu_seconds") is None:
        return "-"
    return f"{s['cpu_seconds'] / base['cpu_seconds']:.2f}"


def rows_of(summaries, baseline, labels, names):
    rows = []
    base = summaries.get(baseline)
    for tool, label in labels.items():
        s = summaries.get(tool)
        if s is None:
            rows.append([label, "failed or not installed"] + [""] * (len(HEADER) - 2))
            continue
        ratio = f"{s['seconds'] / base['seconds']:.2f}" if base else ""
        compared = names
        if tool.startswith("implicit"):  # its precision and map are not the package's
            compared = [name for name in names if name.startswith("ndcg")]
        rows.append([
            label, f"{s['seconds']:.2f}", ratio, cpu_text(s), cpu_ratio(s, base), f"{s['peak_beyond'] / 1e6:,.0f}",
            f"{s['inputs_bytes'] / 1e6:,.0f}", agreement(s["values"], summaries[baseline]["values"], compared)
            if base and tool != baseline else "-", "/".join(f"{x:.1f}" for x in s["other_cpu"]),
        ])  # fmt: skip
    return rows


HEADER = ["contender", "seconds (median)", "/ NumPy", "CPU s (median)", "CPU / NumPy's", "MB beyond inputs", "inputs MB",
          "max mean difference vs NumPy", "other processes' CPU"]  # fmt: skip
CPU_NOTE = (
    "CPU s: the process's user and system seconds during the call, all its threads (the median "
    "of the processes that recorded it)."
)
SECTIONS = ["from_factors", "top_k_lists", "score_matrix", "selection"]


def summaries_of(runs):
    """Each tool's :func:`summary`, and implicit's two calls together."""
    summaries = {tool: summary(r) for tool, r in runs.items()}
    if summaries.get("implicit@10") and summaries.get("implicit@20"):
        a, b = summaries["implicit@10"], summaries["implicit@20"]
        summaries["implicit"] = {
            "seconds": a["seconds"] + b["seconds"], "peak_beyond": max(a["peak_beyond"], b["peak_beyond"]),
            "cpu_seconds": None if a.get("cpu_seconds") is None or b.get("cpu_seconds") is None
            else a["cpu_seconds"] + b["cpu_seconds"],
            "inputs_bytes": a["inputs_bytes"], "values": {**a["values"], **b["values"]},
            "other_cpu": [max(x, y) for x, y in zip(a["other_cpu"], b["other_cpu"])],
        }  # fmt: skip
    return summaries


def make_tables(raw):
    """The results file's tables, computed from its raw measurements alone."""
    tables = {}
    if "from_factors" in raw:
        runs = raw["from_factors"]["runs"]
        summaries = summaries_of(runs)
        if raw.get("return_top_k_100"):  # timed once, when the top_k_lists section made its lists
            summaries["package-top100"] = summary(raw["return_top_k_100"])
        labels = {
            "package": "`evaluate_retrieval(U, V, test, exclude=train)`, six measures",
            "package-top100": "the same with `return_top_k=100` (one process, before the top-k lists)",
            "numpy": "NumPy baseline: matmul + argpartition per block, ties not handled",
            "implicit@10": "implicit `ranking_metrics_at_k`, K=10 (four measures)",
            "implicit@20": "implicit `ranking_metrics_at_k`, K=20 (four measures)",
            "implicit": "implicit, both calls (@10 and @20)",
        }
        labels = {tool: label for tool, label in labels.items() if tool in summaries}
        d = raw["data"]
        rounds = max(len(r) for r in runs.values())
        tables["from_factors"] = table(HEADER, rows_of(summaries, "numpy", labels, MEASURES), (
            f"**From factors**: {d['users']:,} users x {d['items']:,} items, rank {d['rank']} float32, "
            f"{d['train_pairs']:,} training pairs excluded, {d['test_pairs']:,} test pairs; "
            f"measures {', '.join(MEASURES)}; median of {rounds} fresh processes each, the "
            f"contenders alternating. {CPU_NOTE} implicit compares on ndcg@10 and ndcg@20 only (its precision "
            "and map divide by min(K, R)); it runs its top-k on every core (model num_threads=0) "
            "and its metric loop on one thread (num_threads=1, its default); BLAS on "
            f"{raw.get('cpu_count', 2)} threads for all."
        ))  # fmt: skip
    if "top_k_lists" in raw:
        summaries = summaries_of(raw["top_k_lists"]["runs"])
        labels = {
            "package": "`evaluate_top_k(test, top_items, top_scores=top_scores)`",
            "package-no-scores": "`evaluate_top_k(test, top_items)` (list order is the rank)",
            "package-exclude": "`evaluate_top_k(test, top_items, top_scores=..., exclude=train)`",
        }
        rows = [
            [label, f"{summaries[t]['seconds']:.2f}", cpu_text(summaries[t]), f"{summaries[t]['peak_beyond'] / 1e6:,.0f}",
             f"{summaries[t]['inputs_bytes'] / 1e6:,.0f}", "/".join(f"{x:.1f}" for x in summaries[t]["other_cpu"])]
            for t, label in labels.items() if summaries.get(t)
        ]  # fmt: skip
        d = raw["data"]
        tables["top_k_lists"] = table(
            ["call", "seconds (median)", "CPU s (median)", "MB beyond inputs", "inputs MB", "other processes' CPU"],
            rows,
            f"**From top-100 id lists**: {d['users']:,} users x 100 item ids (and float32 scores), "
            f"{d['test_pairs']:,} test pairs in a sparse y_true over {d['items']:,} items; the six measures. {CPU_NOTE}",
        )  # fmt: skip
    if "score_matrix" in raw:
        runs = raw["score_matrix"]["runs"]
        summaries = summaries_of(runs)
        labels = {
            "package": "`evaluate(test, y_score, exclude=train)`, six measures",
            "numpy": "NumPy baseline: argpartition per block, ties not handled",
        }
        d = raw["score_matrix_data"]
        tables["score_matrix"] = table(HEADER, rows_of(summaries, "numpy", labels, MEASURES), (
            f"**Dense score matrix, sparse labels**: y_score {d['users']:,} x {d['items']:,} float32 "
            f"(rank-{d['rank']} factors' products, part of the inputs), {d['test_pairs']:,} test and "
            f"{d['train_pairs']:,} excluded training pairs in sparse matrices; median of "
            f"{max(len(r) for r in runs.values())} fresh processes each, alternating. {CPU_NOTE}"
        ))  # fmt: skip
    if "selection" in raw:
        summaries = summaries_of(raw["selection"]["runs"])
        p, a = summaries["package"], summaries["argsort"]
        rows = int(raw["selection_data"]["rows"])
        tables["selection"] = table(
            ["call", "seconds (median)", "/ argsort", "CPU s (median)", "CPU / argsort's", "MB beyond inputs"],
            [[f"`evaluate(y_true, y_score, qid=qid)`: {', '.join(SELECTION_MEASURES)}",
              f"{p['seconds']:.3f}", f"{p['seconds'] / a['seconds']:.2f}", cpu_text(p), cpu_ratio(p, a),
              f"{p['peak_beyond'] / 1e6:,.0f}"],
             ["`np.argsort(y_score)` (float64)", f"{a['seconds']:.3f}", "1.00", cpu_text(a), "1.00",
              f"{a['peak_beyond'] / 1e6:,.0f}"]],
            f"**The selection path**: {rows:.0e} interleaved rows, {rows // 100:,} queries of "
            f"100 documents, every measure cut at k <= 100; median of fresh processes, alternating. {CPU_NOTE}",
        )  # fmt: skip
    return tables


def measure(args, root, shape, matrix_shape, rows):
    """Run the sections of ``args.only``; their raw measurements."""
    raw = {"cpu_count": len(os.sched_getaffinity(0))}  # the CPUs this process may use
    name = "_".join(str(shape[k]) for k in ("users", "items", "pairs", "rank"))
    factors = root / f"factors_{name}"
    if {"from_factors", "top_k_lists"} & set(args.only):
        raw["data"] = prepare(factors, "factors", shape)
    if "from_factors" in args.only:
        from importlib.util import find_spec

        tools = ["package", "numpy"]
        if find_spec("implicit") is not None:
            tools += ["implicit@10", "implicit@20"]
        tools = [tool for tool in tools if tool in (args.tools or tools)]
        raw["from_factors"] = {"runs": alternate("from_factors", tools, factors, args.rounds, args.timeout)}
    if "top_k_lists" in args.only:
        if not (factors / "top_items.npy").exists():
            runs = alternate("from_factors", ["package-top100"], factors, 1, args.timeout)
            raw["return_top_k_100"] = runs["package-top100"]
        tools = ["package", "package-no-scores", "package-exclude"]
        raw["top_k_lists"] = {"runs": alternate("top_k_lists", tools, factors, args.rounds, args.timeout)}
    if "score_matrix" in args.only:
        name = "_".join(str(matrix_shape[k]) for k in ("users", "items", "pairs", "rank"))
        folder = root / f"factors_{name}"
        raw["score_matrix_data"] = prepare(folder, "factors", matrix_shape)
        runs = alternate("score_matrix", ["package", "numpy"], folder, max(args.rounds, 3), args.timeout)
        raw["score_matrix"] = {"runs": runs}
    if "selection" in args.only:
        folder = root / f"flat_{int(rows)}"
        raw["selection_data"] = prepare(folder, "selection", {"rows": int(rows)})
        runs = alternate("selection", ["package", "argsort"], folder, max(args.rounds, 3), args.timeout)
        raw["selection"] = {"runs": runs}
    return raw


def add_shared_options(parser, timeout):
    """The options both benchmark scripts take: rounds, timeout, data kept, retable, JSON path."""
    parser.add_argument("--rounds", type=int, default=2, help="fresh processes per contender, alternating")
    parser.add_argument("--timeout", type=float, default=timeout, help="seconds a process may take")
    parser.add_argument("--keep", type=Path, help="keep the generated data here and reuse it")
    parser.add_argument("--retable", type=Path, metavar="PATH", help="rewrite PATH's tables from its raw numbers")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    add_json_option(parser)


def retable(path, make_tables):
    """Rewrite the tables of the results file ``path`` from its raw numbers."""
    import json

    run = json.loads(path.read_text())
    run["tables"] = make_tables(run["raw"])
    path.write_text(json.dumps(run, indent=1, default=float) + "\n")
    return 0


def main(argv=None):
    import json
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="small shapes: a quick check")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=SECTIONS)
    parser.add_argument("--users", type=int, help="from_factors and top_k_lists: users (rows)")
    parser.add_argument("--items", type=int, help="items (columns)")
    parser.add_argument("--pairs", type=int, help="interactions before the split")
    parser.add_argument("--rank", type=int, help="factors' rank")
    parser.add_argument("--rows", type=float, default=1e7, help="selection: flat rows")
    parser.add_argument(
        "--update", action="store_true",
        help="replace the sections run in the existing results file, keep its others",
    )  # fmt: skip
    parser.add_argument("--tools", nargs="+", help="from_factors: only these contenders (package, numpy, implicit@10, implicit@20)")
    add_shared_options(parser, timeout=1200)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    if args.retable:
        return retable(args.retable, make_tables)
    shape = dict(SMALL if args.small else MOVIELENS)
    shape.update({k: getattr(args, k) for k in shape if getattr(args, k) is not None})
    matrix_shape = dict(SCORE_MATRIX, users=1_000, items=4_000, pairs=140_000) if args.small else SCORE_MATRIX
    rows = 1e5 if args.small else args.rows
    info = run_info(argv)
    info["versions"] = versions(["sklearn_rank_metrics", "scipy", "implicit", "threadpoolctl"])
    path = Path(args.json) if args.json else (
        Path(tempfile.gettempdir()) / "recommender-small.json" if args.small else RESULTS_FILE
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as temporary:
        raw = measure(args, args.keep or Path(temporary), shape, matrix_shape, rows)
    info["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.update and path.exists():
        # The earlier run's facts stay; this run is listed as an update of some sections.
        earlier = json.loads(path.read_text())
        update = {key: info[key] for key in ("date", "command", "commit", "load_average_after")}
        update["sections"], update["load_average"] = args.only, info["machine"]["load_average"]
        runs = {**earlier["raw"].get("from_factors", {}).get("runs", {}), **raw.get("from_factors", {}).get("runs", {})}
        raw = {**earlier["raw"], **raw}
        if runs:  # --tools: the contenders not rerun keep their earlier runs
            raw["from_factors"] = {"runs": runs}
        info = {k: v for k, v in earlier.items() if k not in ("script", "tables", "raw")}
        info["updates"] = [*earlier.get("updates", []), update]
    tables = make_tables(raw)
    write_results(__file__, info, tables, raw, path=path)
    for t in tables.values():
        print(t["title"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
