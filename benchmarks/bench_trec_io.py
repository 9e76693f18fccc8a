"""Reading a TREC run: read_trec_run against pandas.read_csv and pytrec_eval's parser.

    python benchmarks/bench_trec_io.py --rows 1e6 1e7 --repeat 3 --wait-quiet 60

Per size, a run file of ``--rows`` lines is written once to a temporary folder
(``--keep DIR`` keeps it there): 1000 documents a query, query ids ``q`` +
number, document ids ``doc-`` + 9 digits drawn from a pool of rows / 4
(distinct within a query, each shared by about 4 queries), ``Q0``, ranks 1..1000, scores
descending with 17 significant digits, one run name; fields separated by one
space, as most tools write them.

Timed on that file, each call ``--repeat`` times in turn, median:

* ``pandas.read_csv(path, sep=r"\\s+", header=None)``, the yardstick;
* ``read_trec_run(path, engine="pandas")``: pandas' C reader, the checks of
  every line and of duplicate (query, document) pairs;
* ``read_trec_run(path)`` (``engine="auto"``: pyarrow's reader where pyarrow
  is installed);
* ``pytrec_eval.parse_run``, where pytrec_eval is installed (its Python loop
  over the lines into a dict of dicts; ``--no-pytrec-eval`` leaves it out).

The ratio column is each time over read_csv's. Needs pandas; pyarrow and
pytrec_eval are measured when installed.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's package, not an installed one
import _common as common  # noqa: E402
from _common import median_times, versions, wait_for_quiet  # noqa: E402

DOCS_PER_QUERY = 1000


# Other shapes of run (bench_evaluate_run.py --shape): documents a query, and
# how a document number is written as an id.
SHAPES = {
    "benchmark": (DOCS_PER_QUERY, "doc- and 9 digits (13 bytes)"),
    "clueweb": (DOCS_PER_QUERY, "ClueWeb-like, 25 bytes: clueweb12-0123tw-45-67890"),
    "short-queries": (10, "D and up to 7 digits (lengths vary)"),
    "sparse-numeric": (100, "numbers of up to 12 digits, scattered (lengths vary)"),
}


def doc_ids(numbers, shape):
    """The ids of document numbers in one of the SHAPES (distinct for distinct numbers)."""
    if shape == "benchmark":
        return np.char.add("doc-", np.char.zfill(numbers.astype(str), 9))
    if shape == "clueweb":
        parts = [numbers // 10**7 % 10**4, numbers // 10**5 % 100, numbers % 10**5]
        text = [np.char.zfill(part.astype(str), width) for part, width in zip(parts, (4, 2, 5))]
        return np.char.add(np.char.add(np.char.add("clueweb12-", text[0]), "tw-"),
                           np.char.add(np.char.add(text[1], "-"), text[2]))  # fmt: skip
    if shape == "short-queries":
        return np.char.add("D", numbers.astype(str))
    # A bijection of [0, 10**12): the multiplier is prime to 10.
    return (numbers.astype(np.int64) * 982_451_653 % 10**12).astype(str)


def write_run(path, rows, seed=0, shape="benchmark"):
    """The benchmark run file described in the module docstring (or another of the SHAPES)."""
    import pandas as pd

    per_query = SHAPES[shape][0]
    rng = np.random.default_rng(seed)
    n_queries = max(1, rows // per_query)
    rows = n_queries * per_query
    query = np.repeat(np.arange(n_queries), per_query)
    # From a pool of rows / 4 documents (each retrieved for about 4 queries),
    # distinct within a query: a random offset per query plus the rank.
    pool = max(per_query, rows // 4)
    offset = rng.integers(0, pool, n_queries)[query]
    doc = rng.permutation(pool)[(offset + np.tile(np.arange(per_query), n_queries)) % pool]
    score = -np.sort(-rng.standard_normal((n_queries, per_query)), axis=1).ravel()
    frame = pd.DataFrame(
        {
            "query_id": np.char.add("q", query.astype(str)),
            "iteration": "Q0",
            "doc_id": doc_ids(doc, shape),
            "rank": np.tile(np.arange(1, per_query + 1), n_queries),
            "score": score.astype(str),  # shortest text that reads back exactly
            "run_name": "bench",
        }
    )
    frame.to_csv(path, sep=" ", header=False, index=False, lineterminator="\n")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=["1e6"], help="run lines, e.g. 1e6 1e7")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="write the run files into this folder and keep them")
    parser.add_argument("--no-pytrec-eval", action="store_true")
    parser.add_argument("--wait-quiet", type=float, default=0, help="seconds to wait at most")
    common.add_json_option(parser)
    args = parser.parse_args(argv)
    info = common.run_info(argv)

    import pandas as pd

    from sklearn_rank_metrics.trec import read_trec_run

    found = versions(["pandas", "numpy", "pyarrow", "pytrec_eval"])
    print("versions:", ", ".join(f"{k} {v}" for k, v in found.items()), f"| CPUs {os.cpu_count()}")
    try:
        import pytrec_eval
    except ImportError:
        pytrec_eval = None
    if args.no_pytrec_eval:
        pytrec_eval = None

    def parse_with_pytrec_eval(path):
        with open(path) as handle:
            return pytrec_eval.parse_run(handle)

    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_trec_io_"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'rows':>10} {'MB':>6}  {'reader':<40} {'median s':>9} {'ratio':>6}")
    header = ["run lines", "MB", "reader", "median s", "ratio to read_csv"]
    table_rows, raw = [], []
    for text in args.rows:
        path = folder / f"run_{text}.txt"
        rows = write_run(path, int(float(text)))
        megabytes = path.stat().st_size / 1e6
        calls = {
            'pandas.read_csv(sep=r"\\s+", header=None)': lambda: pd.read_csv(
                path, sep=r"\s+", header=None
            ),
            'read_trec_run(engine="pandas")': lambda: read_trec_run(path, engine="pandas"),
        }
        if "pyarrow" in found:
            calls['read_trec_run() (engine="auto": pyarrow)'] = lambda: read_trec_run(path)
        if pytrec_eval is not None:
            calls["pytrec_eval.parse_run"] = lambda: parse_with_pytrec_eval(path)
        if args.wait_quiet:
            wait_for_quiet(args.wait_quiet)
        medians, _, results = median_times(list(calls.values()), args.repeat)
        ours = results[1]
        assert len(ours) == rows and ours["score"].dtype == np.float64
        for (name, _), median in zip(calls.items(), medians):
            print(f"{rows:>10} {megabytes:>6.0f}  {name:<40} {median:>9.2f} {median / medians[0]:>6.2f}")
            table_rows.append([f"{rows:,}", f"{megabytes:.0f}", name, f"{median:.2f}", f"{median / medians[0]:.2f}"])
            raw.append({"rows": rows, "megabytes": megabytes, "reader": name, "median_s": median})
        if not args.keep:
            path.unlink()
    if not args.keep:
        folder.rmdir()
    common.write_results(__file__, info, {"readers": common.table(header, table_rows)},
                         {"versions": found, "rows": raw}, args.json)  # fmt: skip


if __name__ == "__main__":
    main()
