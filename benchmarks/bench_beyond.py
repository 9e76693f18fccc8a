"""Beyond-accuracy list measures of top-k lists: coverage, concentration, popularity bias, diversity.

    python benchmarks/bench_beyond.py                   # Yelp2022's shape, a few minutes
    python benchmarks/bench_beyond.py --small           # a quick check, under a minute
    python benchmarks/bench_beyond.py --rounds 7 --keep /tmp/beyond-bench

The data (generated once per shape, ``--keep DIR`` keeps and reuses it) has
Yelp2022's shape by default: 72,488 users x 43,749 items, every user's top-20
list. Synthetic, seeded:

* item popularity Zipf-like (an item's weight ``1 / (rank + 10)``, the ranks
  shuffled over the ids); user activity log-normal, at least 5 interactions a
  user; about 1.5M training interactions (the history, a CSR matrix) drawn by
  that popularity; ``item_popularity`` is the training interactions per item;
* each user's top-20 list: 40 candidates drawn with probability proportional
  to ``item_popularity ** 1.2`` (popular items recommended beyond their share,
  as by most recommenders: a Gini index near 0.9), duplicates and the user's
  training items dropped, the first 20 kept (a shorter list is padded with
  -1);
* ``y_true``: 1 to 5 relevant items a user (binary), each one of the user's
  listed items with probability 0.3, else an item drawn by popularity;
* 64-d float32 item vectors (a direction all share, one of 32 genres'
  centroids, noise) and the items' genres as ``item_categories`` (one int an
  item).

Timed (``--only``; the section ``list_measures``), each in a fresh process,
``--rounds`` rounds taking turns (5 by default, the order reversed every
other round): ``evaluate_top_k`` with the list measures that need only the
lists and the popularity (coverage, user_coverage, gini, entropy, arp, aplt,
novelty) in one call; ``ild@20`` from the item vectors and from the genres;
``serendipity@20`` from the vectors and the history; the accuracy measures
ndcg@20 and recall@20 alone, and every measure in one call. Each beside a
NumPy reference written here from the definitions (a pairwise Gram matrix per
list for the ILD), whose values the package's must equal.

The section ``peers`` times the peers that import (skipped with a note
otherwise): RecBole's list metrics (its ``TailPercentage`` loops over every
cell in Python: timed on a hundredth of the users and multiplied by 100,
stated as such), and Recommenders' pandas ``diversity`` and ``serendipity``,
whose item-feature cosine cross-joins every item with every item: timed on a
small shape only.

A process loads the inputs, makes a small warm-up call (500 users), then one
timed call. Memory beyond the inputs: the peak resident set of the timed
call less the resident set before it (``bench_recommender.child``). The load
average and the CPU time of other processes during each call are recorded,
the machine being shared.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's package, not an installed one
from _common import run_info, table, versions, write_results  # noqa: E402
import bench_recommender  # noqa: E402
from bench_recommender import CPU_NOTE, add_shared_options, alternate, cpu_text, load, retable, save, summary  # noqa: E402

K = 20
POPULARITY = [f"{name}@{K}" for name in ("coverage", "user_coverage", "gini", "entropy", "arp", "aplt", "novelty")]
ACCURACY = [f"ndcg@{K}", f"recall@{K}"]
YELP = dict(users=72_488, items=43_749, pairs=1_500_000, dims=64)
SMALL = dict(users=5_000, items=4_000, pairs=100_000, dims=64)
PEER_SHAPE = dict(users=1_000, items=500, pairs=20_000, dims=64)  # Recommenders' cross join: n_items**2 rows
GENRES = 32
CANDIDATES = 40
LIST_BIAS = 1.2  # lists drawn by popularity ** LIST_BIAS
TARGETS = {"popularity": 1.0, "ild-vectors": 3.0}
RESULTS_FILE = Path(HERE) / "results" / "beyond.json"


# ---------------------------------------------------------------- the data


def _csr(users, items, shape):
    from scipy.sparse import csr_matrix

    return csr_matrix((np.ones(users.shape[0], dtype=np.float32), (users, items)), shape=shape)


def beyond_data(users, items, pairs, dims, seed=0):
    """``(train, test, top_items, popularity, vectors, genres)`` as the module docstring says."""
    rng = np.random.default_rng(seed)
    weight = 1.0 / (rng.permutation(items) + 10.0)
    activity = np.maximum(5, rng.lognormal(np.log(pairs / users) - 0.5, 1.0, users)).astype(np.int64)
    user = np.repeat(np.arange(users), activity)
    item = np.minimum(np.searchsorted(np.cumsum(weight) / weight.sum(), rng.random(user.shape[0])), items - 1)
    keys = np.unique(user * items + item)  # sorted: the training pairs, each once
    train = _csr(keys // items, keys % items, (users, items))
    popularity = np.bincount(keys % items, minlength=items).astype(np.float64)

    # Lists: candidates by popularity ** 0.6, first occurrences not in the history, 20 a user.
    chance = np.cumsum(popularity**LIST_BIAS)
    candidates = np.searchsorted(chance / chance[-1], rng.random((users, CANDIDATES)), side="right")
    candidates = np.minimum(candidates, items - 1)
    flat = (np.arange(users)[:, None] * items + candidates).ravel()
    order = np.argsort(flat, kind="stable")
    first = np.ones(flat.shape[0], dtype=bool)
    first[order[1:]] = flat[order[1:]] != flat[order[:-1]]
    seen = keys[np.minimum(np.searchsorted(keys, flat), keys.shape[0] - 1)] == flat
    keep = (first & ~seen).reshape(users, CANDIDATES)
    place = np.cumsum(keep, axis=1) - 1
    keep &= place < K
    top_items = np.full((users, K), -1, dtype=np.int64)
    rows, columns = np.nonzero(keep)
    top_items[rows, place[rows, columns]] = candidates[rows, columns]

    # Relevant items: some of the listed ones, the others by popularity (outside the history).
    n_relevant = rng.integers(1, 6, users)
    owner = np.repeat(np.arange(users), n_relevant)
    listed = top_items[owner, rng.integers(0, K, owner.shape[0])]
    drawn = np.searchsorted(np.cumsum(weight) / weight.sum(), rng.random(owner.shape[0]))
    relevant = np.where((rng.random(owner.shape[0]) < 0.3) & (listed >= 0), listed, np.minimum(drawn, items - 1))
    pairs_ = np.unique(owner * items + relevant)
    pairs_ = pairs_[keys[np.minimum(np.searchsorted(keys, pairs_), keys.shape[0] - 1)] != pairs_]
    test = _csr(pairs_ // items, pairs_ % items, (users, items))

    genres = rng.integers(0, GENRES, items)
    centroids = rng.standard_normal((GENRES, dims)).astype(np.float32)
    shared = rng.standard_normal(dims).astype(np.float32)  # a direction all items share, as embeddings do
    vectors = shared + centroids[genres] + 0.8 * rng.standard_normal((items, dims), dtype=np.float32)
    return train, test, top_items, popularity, vectors, genres


# ---------------------------------------------------------------- NumPy references, from the definitions


def _rowwise_mean(values, valid):
    """Mean over each row's valid positions (NaN for a row without any)."""
    length = valid.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(valid, values, 0.0).sum(axis=1) / length


def reference_popularity(top_items, popularity, n_items, short_head=0.8):
    """The seven popularity-free and popularity measures of ``POPULARITY``, means."""
    valid = top_items >= 0
    safe = np.where(valid, top_items, 0)
    exposure = np.bincount(top_items[valid], minlength=n_items).astype(np.float64)
    ascending = np.sort(exposure)
    p = exposure[exposure > 0] / exposure.sum()
    by_popularity = np.lexsort((np.arange(n_items), -popularity))  # ties: lower id first
    head_size = np.searchsorted(np.cumsum(popularity[by_popularity]), short_head * popularity.sum()) + 1
    head = np.zeros(n_items, dtype=bool)
    head[by_popularity[:head_size]] = True
    information = -np.log2(np.where(popularity > 0, popularity, np.nan) / popularity.sum())
    return {
        f"coverage@{K}": float(np.count_nonzero(exposure) / n_items),
        f"user_coverage@{K}": float(np.mean(valid.sum(axis=1) == K)),
        f"gini@{K}": float((2 * np.arange(1, n_items + 1) - n_items - 1) @ ascending / (n_items * ascending.sum())),
        f"entropy@{K}": float(-(p * np.log2(p)).sum()),
        f"arp@{K}": float(np.nanmean(_rowwise_mean(popularity[safe], valid))),
        f"aplt@{K}": float(np.nanmean(_rowwise_mean(~head[safe], valid))),
        f"novelty@{K}": float(np.nanmean(_rowwise_mean(information[safe], valid))),
    }


def _unit(vectors):
    vectors = np.asarray(vectors, dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def reference_ild(top_items, vectors, block=4096):
    """Mean ILD: per list, the mean of 1 - cos over its pairs, from the pairwise Gram matrix."""
    unit = _unit(vectors)
    values = []
    for start in range(0, top_items.shape[0], block):
        items = top_items[start : start + block]
        valid = items >= 0
        listed = unit[np.where(valid, items, 0)] * valid[:, :, None]
        gram = listed @ listed.transpose(0, 2, 1)  # (block, K, K)
        m = valid.sum(axis=1)
        pairs_similarity = gram.sum(axis=(1, 2)) - np.trace(gram, axis1=1, axis2=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            values.append(np.where(m >= 2, 1.0 - pairs_similarity / (m * (m - 1)), np.nan))
    return {f"ild@{K}": float(np.nanmean(np.concatenate(values)))}


def reference_ild_categories(top_items, genres):
    """Mean ILD with one category an item: 1 - (pairs of the same category) / pairs."""
    valid = top_items >= 0
    n_genres = int(genres.max()) + 1
    rows = np.nonzero(valid)[0]
    counts = np.bincount(rows * n_genres + genres[top_items[valid]], minlength=top_items.shape[0] * n_genres)
    same = (counts * (counts - 1) / 2).reshape(top_items.shape[0], n_genres).sum(axis=1)
    m = valid.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(m >= 2, 1.0 - same / (m * (m - 1) / 2), np.nan)
    return {f"ild@{K}": float(np.nanmean(values))}


def reference_serendipity(top_items, vectors, history, test):
    """Mean serendipity: per listed item, (1 - mean cos to the user's history) x relevant, averaged."""
    unit = _unit(vectors)
    valid = top_items >= 0
    safe = np.where(valid, top_items, 0)
    history_size = np.diff(history.indptr)
    binary = history.copy()
    binary.data[:] = 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        history_mean = np.asarray(binary @ unit) / history_size[:, None]  # mean of cos = cos to the mean vector's sum
    similarity = np.einsum("ukd,ud->uk", unit[safe], history_mean)
    relevant = np.asarray(test[np.arange(top_items.shape[0])[:, None], safe].todense()) >= 1
    values = _rowwise_mean((1.0 - similarity) * relevant, valid)
    values[history_size == 0] = np.nan
    return {f"serendipity@{K}": float(np.nanmean(values))}


# ---------------------------------------------------------------- one contender, in a child process

PACKAGE_CALLS = {
    "popularity": "`evaluate_top_k(test, top_items, item_popularity=pop, metrics=[...])`: "
    + ", ".join(POPULARITY),
    "ild-vectors": f"`evaluate_top_k(test, top_items, item_vectors=V)`: ild@{K}, 64-d float32 vectors",
    "ild-categories": f"`evaluate_top_k(test, top_items, item_categories=genres)`: ild@{K}, one of {GENRES} genres an item",
    "serendipity": f"`evaluate_top_k(test, top_items, item_vectors=V, history=train)`: serendipity@{K}",
    "accuracy": f"`evaluate_top_k(test, top_items)`: {', '.join(ACCURACY)} (accuracy alone, for comparison)",
    "all": "every measure above in one call (vectors for ILD and serendipity)",
}
REFERENCE_OF = {"popularity": "numpy-popularity", "ild-vectors": "numpy-ild", "ild-categories": "numpy-ild-categories",
                "serendipity": "numpy-serendipity"}  # fmt: skip


def contender(section, tool, folder):
    """``(inputs, warm_up, call)`` of one contender: its inputs loaded, two functions."""
    folder = Path(folder)
    train, test = load(folder, "train"), load(folder, "test")
    top_items, popularity, vectors, genres = (load(folder, name) for name in ("top_items", "popularity", "V", "genres"))
    few = slice(0, min(500, top_items.shape[0]))
    if section == "peers":
        return peer(tool, train, test, top_items, popularity, vectors)
    inputs = [train, test, top_items, popularity]
    if tool in PACKAGE_CALLS:
        from sklearn_rank_metrics import evaluate_top_k

        keywords = {
            "popularity": dict(metrics=POPULARITY, item_popularity=popularity),
            "ild-vectors": dict(metrics=[f"ild@{K}"], item_vectors=vectors),
            "ild-categories": dict(metrics=[f"ild@{K}"], item_categories=genres),
            "serendipity": dict(metrics=[f"serendipity@{K}"], item_vectors=vectors, history=train),
            "accuracy": dict(metrics=ACCURACY),
            "all": dict(metrics=ACCURACY + POPULARITY + [f"ild@{K}", f"serendipity@{K}"], item_popularity=popularity,
                        item_vectors=vectors, history=train),
        }[tool]  # fmt: skip
        inputs += [vectors] if "item_vectors" in keywords else [genres] if "item_categories" in keywords else []

        def run(rows=slice(None)):
            given = {key: value[rows] if key == "history" else value for key, value in keywords.items()}
            return evaluate_top_k(test[rows], top_items[rows], **given)

        return inputs, lambda: run(few), run
    n_items = test.shape[1]
    run = {
        "numpy-popularity": lambda rows=slice(None): reference_popularity(top_items[rows], popularity, n_items),
        "numpy-ild": lambda rows=slice(None): reference_ild(top_items[rows], vectors),
        "numpy-ild-categories": lambda rows=slice(None): reference_ild_categories(top_items[rows], genres),
        "numpy-serendipity": lambda rows=slice(None): reference_serendipity(top_items[rows], vectors, train[rows],
                                                                            test[rows]),
    }[tool]  # fmt: skip
    inputs += [vectors] if tool in ("numpy-ild", "numpy-serendipity") else [genres] if "categories" in tool else []
    return inputs, lambda: run(few), run


# ---------------------------------------------------------------- peers


def recbole_config(tail_ratio=0.1):
    return {"topk": [K], "tail_ratio": tail_ratio, "metric_decimal_place": 6}


def peer(tool, train, test, top_items, popularity, vectors):
    """The peers' contenders: RecBole's list metrics and Recommenders' pandas diversity and serendipity."""
    inputs = [train, test, top_items, popularity]
    if tool == "recbole-tail":  # a hundredth of the users: its loop takes minutes at the full shape
        from recbole.evaluator.metrics import TailPercentage

        metric = TailPercentage(recbole_config())
        counts = {int(item): int(count) for item, count in enumerate(popularity) if count > 0}
        part = top_items[: max(1, top_items.shape[0] // 100)]

        def run(rows=slice(None)):
            values = metric.metric_info(metric.get_tail(part[rows], counts))
            return {f"tailpercentage@{K}": float(values[:, K - 1].mean())}

        return inputs, lambda: run(slice(0, 5)), run
    if tool == "recbole-others":  # coverage, average popularity, Gini index, Shannon entropy
        from recbole.evaluator import metrics

        config = recbole_config()
        counts = {int(item): int(count) for item, count in enumerate(popularity) if count > 0}
        n_items = test.shape[1]

        def run(rows=slice(None)):
            items = top_items[rows]
            average = metrics.AveragePopularity(config)
            return {
                f"itemcoverage@{K}": metrics.ItemCoverage(config).get_coverage(items, n_items),
                f"averagepopularity@{K}": float(average.metric_info(average.get_pop(items, counts))[:, K - 1].mean()),
                f"giniindex@{K}": metrics.GiniIndex(config).get_gini(items, n_items),
                f"shannonentropy@{K}": metrics.ShannonEntropy(config).get_entropy(items),
            }

        return inputs, lambda: run(slice(0, 50)), run
    if tool.startswith("recommenders-"):  # the small shape's data: an item x item cross join
        import pandas as pd
        from recommenders.evaluation import python_evaluation as pe

        users, positions = np.nonzero(top_items >= 0)
        reco = pd.DataFrame({"userID": users, "itemID": top_items[users, positions],
                             "relevance": np.asarray(test[users, top_items[users, positions]]).ravel() >= 1})  # fmt: skip
        reco["relevance"] = reco["relevance"].astype(np.float64)
        history = train.tocoo()
        train_df = pd.DataFrame({"userID": history.row, "itemID": history.col})
        features = pd.DataFrame({"itemID": np.arange(vectors.shape[0]), "features": list(vectors.astype(np.float64))})
        measure = tool.split("-", 1)[1]
        options = dict(item_feature_df=features, item_sim_measure="item_feature_vector")

        # Their per-user functions, averaged here: diversity() and serendipity() end with
        # Series[0], which pandas 3 reads as a label (KeyError: 0).
        def run(rows=None):
            if measure == "diversity":
                return {f"ild@{K}": float(pe.user_diversity(train_df, reco, **options)["user_diversity"].mean())}
            per_user = pe.user_serendipity(train_df, reco, col_relevance="relevance", **options)
            return {f"serendipity@{K}": float(per_user["user_serendipity"].mean())}

        return inputs + [vectors], lambda: None, run  # no warm-up: its results are cached by its inputs
    if tool.startswith("package-"):  # the package on the peers' small shape
        from sklearn_rank_metrics import evaluate_top_k

        measure = tool.split("-", 1)[1]
        extra = {"history": train} if measure == "serendipity" else {}

        def run(rows=None):
            return evaluate_top_k(test, top_items, metrics=[f"{measure}@{K}"], item_vectors=vectors, **extra)

        return inputs + [vectors], lambda: run(), run
    raise ValueError(f"no contender {tool!r} in section 'peers'")


# ---------------------------------------------------------------- the parent


def prepare(folder, shape):
    """Write the data of ``shape`` to ``folder`` (unless there); describe it."""
    done = folder / "done"
    if not done.exists():
        start = time.perf_counter()
        train, test, top_items, popularity, vectors, genres = beyond_data(**shape)
        save(folder, train=train, test=test, top_items=top_items, popularity=popularity, V=vectors, genres=genres)
        done.write_text(f"{time.perf_counter() - start:.1f}")
        print(f"# data of {shape} generated in {done.read_text()} s", file=sys.stderr)
    train, test, top_items, popularity = (load(folder, name) for name in ("train", "test", "top_items", "popularity"))
    descending = np.sort(popularity)[::-1]
    return {
        **shape, "train_pairs": int(train.nnz), "test_pairs": int(test.nnz),
        "short_lists": int((top_items[:, -1] < 0).sum()),
        "top_1pc_items_share": float(descending[: max(1, descending.shape[0] // 100)].sum() / descending.sum()),
        "items_never_trained": int((popularity == 0).sum()),
    }  # fmt: skip


def available(module):
    """Whether ``module`` imports (a peer installed but broken counts as absent)."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, timeout=300, check=False)
    return done.returncode == 0


def measure(args, root, shape):
    """Run the sections of ``args.only``; their raw measurements."""
    raw = {"cpu_count": len(os.sched_getaffinity(0))}
    folder = root / "_".join(str(shape[k]) for k in ("users", "items", "pairs", "dims"))
    raw["data"] = prepare(folder, shape)
    if "list_measures" in args.only:
        tools = [*PACKAGE_CALLS, *REFERENCE_OF.values()]
        tools = [tool for tool in tools if tool in (args.tools or tools)]
        raw["list_measures"] = {"runs": alternate("list_measures", tools, folder, args.rounds, args.timeout, __file__)}
    if "peers" in args.only:
        peers, notes = {}, {}
        for module, tools in {"recbole": ["recbole-tail", "recbole-others"],
                              "recommenders": ["recommenders-diversity", "recommenders-serendipity"]}.items():  # fmt: skip
            if available(module):
                peers.update(dict.fromkeys(tools, module))
            else:
                notes[module] = f"{module} does not import here: not timed"
        raw["peer_notes"] = notes
        big = [tool for tool in peers if tool.startswith("recbole")]
        if big:
            raw["peers"] = {"runs": alternate("peers", big, folder, max(1, args.rounds // 2), args.timeout, __file__)}
        small = [tool for tool in peers if tool.startswith("recommenders")]
        if small:
            peer_folder = root / "_".join(str(PEER_SHAPE[k]) for k in ("users", "items", "pairs", "dims"))
            raw["peer_data"] = prepare(peer_folder, PEER_SHAPE)
            tools = small + ["package-ild", "package-serendipity"]
            raw["peers_small"] = {"runs": alternate("peers", tools, peer_folder, max(1, args.rounds // 2),
                                                    args.timeout, __file__)}  # fmt: skip
    return raw


def agreement(values, reference):
    shared = [name for name in reference if name in values]
    if not shared:
        return "-"
    return f"{max(abs(values[name] - reference[name]) for name in shared):.1e}"


def rounds_of(raw, sections):
    """The most processes a contender of ``sections`` ran, as text."""
    counts = [len(r) for section in sections if section in raw for r in raw[section]["runs"].values()]
    return "none" if not counts else "1 process" if max(counts) == 1 else f"{max(counts)} processes"


def seconds_text(seconds):
    return f"{seconds:.3f}" if seconds < 1 else f"{seconds:.2f}" if seconds < 100 else f"{seconds:,.0f}"


def other_text(s):
    return "/".join(f"{x:.1f}" for x in s["other_cpu"])


def make_tables(raw):
    """The results file's tables, computed from its raw measurements alone."""
    tables = {}
    d = raw["data"]
    shape_text = (f"{d['users']:,} users x {d['items']:,} items, top-{K} lists ({d['short_lists']:,} shorter), "
                  f"{d['train_pairs']:,} training interactions (the history and the popularity), "
                  f"{d['test_pairs']:,} relevant pairs")  # fmt: skip
    if "list_measures" in raw:
        runs = raw["list_measures"]["runs"]
        summaries = {tool: summary(r) for tool, r in runs.items()}
        rows = []
        for tool, label in PACKAGE_CALLS.items():
            if tool not in runs:
                continue
            s = summaries[tool]
            reference = summaries.get(REFERENCE_OF.get(tool))
            if tool == "all":  # the references of its parts, ILD from the vectors
                parts = [summaries.get(other) for other in ("numpy-popularity", "numpy-ild", "numpy-serendipity")]
                reference = {"seconds": None, "values": {k: v for part in parts if part for k, v in part["values"].items()}}
            target = TARGETS.get(tool)
            if s is None:
                rows.append([label, "failed", "", "", "", "", "", ""])
                continue
            rows.append([
                label, seconds_text(s["seconds"]), f"<= {target:g} s" if target else "-", cpu_text(s),
                f"{s['peak_beyond'] / 1e6:,.0f}", seconds_text(reference["seconds"]) if reference and reference["seconds"] else "-",
                agreement(s["values"], reference["values"]) if reference else "-", other_text(s),
            ])  # fmt: skip
        rounds = max(len(r) for r in runs.values())
        tables["list_measures"] = table(
            ["call", "seconds (median)", "target", "CPU s (median)", "MB beyond inputs", "NumPy reference s",
             "max difference vs NumPy", "other processes' CPU"],
            rows,
            f"**List measures**: {shape_text}; median of {rounds} fresh processes each, the calls "
            f"alternating. The NumPy reference: the definitions written with NumPy in the benchmark "
            f"(a pairwise Gram matrix per list for ILD). {CPU_NOTE}",
        )  # fmt: skip
    if "peers" in raw or "peers_small" in raw or raw.get("peer_notes"):
        rows = []
        own = {tool: summary(r) for tool, r in raw.get("list_measures", {}).get("runs", {}).items()}
        if "peers" in raw:
            s = {tool: summary(r) for tool, r in raw["peers"]["runs"].items()}
            if s.get("recbole-tail"):
                users = max(1, d["users"] // 100)
                rows.append([
                    f"RecBole `TailPercentage` (tail_ratio=0.1), its Python loop over every cell", f"{users:,} users (1/100)",
                    seconds_text(s["recbole-tail"]["seconds"]), f"{seconds_text(s['recbole-tail']['seconds'] * 100)} (x 100)",
                    seconds_text(own["popularity"]["seconds"]) + " (the seven list measures, one call)" if own.get("popularity") else "-",
                ])  # fmt: skip
            if s.get("recbole-others"):
                rows.append([
                    "RecBole `ItemCoverage`, `AveragePopularity`, `GiniIndex`, `ShannonEntropy`", f"{d['users']:,} users",
                    seconds_text(s["recbole-others"]["seconds"]), seconds_text(s["recbole-others"]["seconds"]),
                    seconds_text(own["popularity"]["seconds"]) + " (the seven list measures, one call)" if own.get("popularity") else "-",
                ])  # fmt: skip
        if "peers_small" in raw:
            p = raw["peer_data"]
            s = {tool: summary(r) for tool, r in raw["peers_small"]["runs"].items()}
            small = f"{p['users']:,} users x {p['items']:,} items"
            for measure, label in [("diversity", "Recommenders `diversity` (item-feature cosine, pandas cross join)"),
                                   ("serendipity", "Recommenders `serendipity` (item-feature cosine)")]:  # fmt: skip
                theirs, ours = s.get(f"recommenders-{measure}"), s.get(f"package-{measure if measure != 'diversity' else 'ild'}")
                if theirs:
                    rows.append([
                        label, small, seconds_text(theirs["seconds"]),
                        f"not run: its cross join holds {d['items'] * (d['items'] + 1) // 2:,} item pairs",
                        f"{seconds_text(ours['seconds'])} on the same data, means "
                        f"{agreement(ours['values'], theirs['values'])} apart" if ours else "-",
                    ])  # fmt: skip
        for module, note in raw.get("peer_notes", {}).items():
            rows.append([module, "-", "-", "-", note])
        tables["peers"] = table(
            ["peer", "timed on", "seconds", "at the full shape", "the package"], rows,
            f"**Peers** on the same data ({d['users']:,} users x {d['items']:,} items, top-{K}), or on a small shape "
            "of the same generator where the peer cannot run at the full one; a fresh process each, the median of "
            f"{rounds_of(raw, ('peers', 'peers_small'))}. RecBole's time at the full shape is the timed one "
            "multiplied by 100: its loop is linear in the users. Recommenders: the mean of its per-user "
            "`user_diversity` and `user_serendipity` (its `diversity` and `serendipity` raise KeyError on pandas 3).",
        )  # fmt: skip
    return tables


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="5,000 users x 4,000 items: a quick check")
    parser.add_argument("--only", nargs="+", choices=["list_measures", "peers"], default=["list_measures", "peers"])
    for name in YELP:
        parser.add_argument(f"--{name}", type=int)
    parser.add_argument("--tools", nargs="+", help="list_measures: only these contenders")
    add_shared_options(parser, timeout=1800)
    parser.set_defaults(rounds=5)
    args = parser.parse_args(argv)
    if args.child:
        return bench_recommender.child(*args.child, contender=contender)
    if args.retable:
        return retable(args.retable, make_tables)
    shape = dict(SMALL if args.small else YELP)
    shape.update({k: getattr(args, k) for k in shape if getattr(args, k) is not None})
    info = run_info(argv)
    info["versions"] = versions(["sklearn_rank_metrics", "scipy", "recbole", "recommenders", "pandas"])
    with tempfile.TemporaryDirectory() as temporary:
        raw = measure(args, args.keep or Path(temporary), shape)
    info["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    tables = make_tables(raw)
    default = Path(tempfile.gettempdir()) / "beyond-small.json" if args.small else RESULTS_FILE
    write_results(__file__, info, tables, raw, path=args.json or default)
    for t in tables.values():
        print(t["title"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
