"""Dense retrieval: evaluate_retrieval on embeddings against the matrix products alone.

    python benchmarks/bench_retrieval.py                       # 10,000 x 1,000,000 x 384: long
    python benchmarks/bench_retrieval.py --small               # a quick check
    python benchmarks/bench_retrieval.py --queries 1000 --keep /tmp/retrieval-bench

The data (generated once per shape, ``--keep DIR`` keeps and reuses it):
``--docs`` document embeddings of ``--dims`` float32 numbers, standard
normal (1.5 GB at 1,000,000 x 384); ``--queries`` queries, each with 1 to 5
planted relevant documents (grades 1 or 2) and its embedding their mean plus
Gaussian noise, so that a query's relevant documents are often, not always,
among its nearest. Seeded.

Timed, each in fresh processes, ``--rounds`` rounds taking turns (2 by
default; the order reversed every other round):

* ``evaluate_retrieval(Q, D, y_true, similarity=..., metrics=MEASURES,
  return_top_k=100)``: scoring block by block, each query's top 100 selected
  exactly (ties at the cut whole), ten measures at @10 and @100, the top-100
  ids and scores returned; once with ``similarity="cosine"`` and once with
  ``"dot"``;
* the matrix products alone: the same loop of ``Q[block] @ D.T`` with the
  package's default block (a strip of at most 1 GiB of scores: 214 float32
  queries at 1,000,000 documents with the top 100 selected by threshold)
  and nothing else; and the same with blocks of 256 queries, for reference.

Memory beyond the embeddings: the peak resident set of the timed call less
the resident set before it (embeddings and labels loaded). The machine's
load is recorded with every process.
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
from bench_recommender import CPU_NOTE, add_shared_options, alternate, cpu_ratio, cpu_text, load, retable, save, summary  # noqa: E402

MEASURES = ["ndcg@10", "ndcg@100", "mrr@10", "map@10", "map@100", "recall@10", "recall@100",
            "precision@10", "recall_cap@10", "hit_rate@10"]  # fmt: skip
TOP_K = 100
FULL = dict(queries=10_000, docs=1_000_000, dims=384)
SMALL = dict(queries=500, docs=200_000, dims=384)
LARGE_BLOCK = 256


def package_block(docs):
    """The queries evaluate_retrieval scores at a time by default (float32, top 100)."""
    from sklearn_rank_metrics._engine.prepare._top_k import strip_rows

    return strip_rows(docs, 4, TOP_K)
RESULTS_FILE = Path(HERE) / "results" / "retrieval.json"


def embeddings(queries, docs, dims, seed=0, noise=1.5):
    """``(Q, D, y_true)``: float32 embeddings and a CSR matrix of planted relevant documents."""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(seed)
    D = np.empty((docs, dims), dtype=np.float32)
    for start in range(0, docs, 1 << 16):
        rng.standard_normal(out=D[start : start + (1 << 16)], dtype=np.float32)
    n_relevant = rng.integers(1, 6, queries)
    query = np.repeat(np.arange(queries), n_relevant)
    doc = rng.integers(0, docs, query.shape[0])
    keys = np.unique(query.astype(np.int64) * docs + doc)  # a document drawn twice: once
    query, doc = keys // docs, keys % docs
    grade = rng.integers(1, 3, keys.shape[0]).astype(np.float32)
    y_true = csr_matrix((grade, (query, doc)), shape=(queries, docs))
    Q = np.zeros((queries, dims), dtype=np.float32)
    np.add.at(Q, query, D[doc])
    Q /= np.bincount(query, minlength=queries)[:, None]
    Q += noise * rng.standard_normal((queries, dims), dtype=np.float32)
    return Q, D, y_true


def contender(section, tool, folder):
    """``(inputs, warm_up, call)`` of one contender."""
    Q, D, y_true = (load(folder, name) for name in ("Q", "D", "y_true"))
    if tool.startswith("package"):
        from sklearn_rank_metrics import evaluate_retrieval

        similarity = tool.split("-")[1]

        def run(rows=slice(None)):
            values, _items, _scores = evaluate_retrieval(
                Q[rows], D, y_true[rows], similarity=similarity, metrics=MEASURES, return_top_k=TOP_K
            )
            return values

        return [Q, D, y_true], lambda: run(slice(0, 2)), run
    block = package_block(D.shape[0]) if tool == "matmul" else LARGE_BLOCK

    def run(rows=slice(None)):
        queries = Q[rows]
        for start in range(0, queries.shape[0], block):
            queries[start : start + block] @ D.T
        return {}

    return [Q, D, y_true], lambda: run(slice(0, 2)), run


def make_tables(raw):
    """The results file's table, computed from its raw measurements alone."""
    shape, runs = raw["shape"], raw["runs"]
    summaries = {tool: summary(r) for tool, r in runs.items()}
    base = summaries.get("matmul")
    labels = {
        "package-cosine": '`evaluate_retrieval(Q, D, y_true, similarity="cosine", return_top_k=100)`',
        "package-dot": '`evaluate_retrieval(Q, D, y_true, similarity="dot", return_top_k=100)`',
        "matmul": f"matrix products alone, `Q[block] @ D.T`, {package_block(shape['docs'])} queries a block (the package's)",
        "matmul-large": f"matrix products alone, {LARGE_BLOCK} queries a block",
    }  # fmt: skip
    rows = []
    for tool, label in labels.items():
        s = summaries.get(tool)
        if tool not in runs:
            continue
        if s is None:
            rows.append([label, "failed", "", "", "", "", "", ""])
            continue
        rows.append([
            label, f"{s['seconds']:.1f}", f"{s['seconds'] / base['seconds']:.2f}" if base else "",
            cpu_text(s), cpu_ratio(s, base), f"{s['peak_beyond'] / 1e6:,.0f}", f"{s['inputs_bytes'] / 1e6:,.0f}",
            "/".join(f"{x:.1f}" for x in s["other_cpu"]),
        ])  # fmt: skip
    rounds = max(len(r) for r in runs.values())
    title = (
        f"**Dense retrieval**: {shape['queries']:,} queries x {shape['docs']:,} documents x "
        f"{shape['dims']} dims float32, {raw['relevant']:,} planted relevant documents; ten measures "
        f"({', '.join(MEASURES)}) and each query's top 100; median of {rounds} fresh processes "
        f"each, the contenders alternating; BLAS on {raw.get('cpu_count', 2)} threads. {CPU_NOTE}"
    )
    header = ["call", "seconds (median)", "/ matrix products", "CPU s (median)", "CPU / products'", "MB beyond inputs",
              "inputs MB", "other processes' CPU"]  # fmt: skip
    return {"dense_retrieval": table(header, rows, title)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="500 queries x 200,000 documents")
    parser.add_argument("--queries", type=int)
    parser.add_argument("--docs", type=int)
    parser.add_argument("--dims", type=int)
    parser.add_argument("--tools", nargs="+", default=["package-cosine", "package-dot", "matmul", "matmul-large"])
    add_shared_options(parser, timeout=3600)
    args = parser.parse_args(argv)
    if args.child:
        return bench_recommender.child(*args.child, contender=contender)
    if args.retable:
        return retable(args.retable, make_tables)
    shape = dict(SMALL if args.small else FULL)
    shape.update({k: getattr(args, k) for k in shape if getattr(args, k) is not None})
    info = run_info(argv)
    info["versions"] = versions(["sklearn_rank_metrics", "scipy", "threadpoolctl"])
    with tempfile.TemporaryDirectory() as temporary:
        folder = (args.keep or Path(temporary)) / "_".join(str(shape[k]) for k in ("queries", "docs", "dims"))
        if not (folder / "done").exists():
            start = time.perf_counter()
            Q, D, y_true = embeddings(**shape)
            save(folder, Q=Q, D=D, y_true=y_true)
            del Q, D
            (folder / "done").write_text(f"{time.perf_counter() - start:.1f}")
        y_true = load(folder, "y_true")
        runs = alternate("dense_retrieval", args.tools, folder, args.rounds, args.timeout, script=__file__)
    info["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    raw = {"shape": shape, "relevant": int(y_true.nnz), "cpu_count": len(os.sched_getaffinity(0)), "runs": runs}
    tables = make_tables(raw)
    default = Path(tempfile.gettempdir()) / "retrieval-small.json" if args.small else RESULTS_FILE
    write_results(__file__, info, tables, raw, path=args.json or default)
    print(tables["dense_retrieval"]["title"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
