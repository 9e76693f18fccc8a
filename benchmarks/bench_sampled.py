"""Sampled metrics: the correction's weights at a million items, and Krichene and Rendle's experiment.

    python benchmarks/bench_sampled.py              # 1e6 items, 100 samples, 10,000 users: about a minute
    python benchmarks/bench_sampled.py --small      # 1e5 items, a quick check

Four tables in ``benchmarks/results/sampled.json``:

* ``weights``: time (best of ``--repeat``) and peak traced memory
  (tracemalloc: the memory NumPy allocates beyond the inputs) of
  :func:`sampled_metric_weights` for recall@10 at ``--items`` items and
  ``--samples`` samples, each sampling model, the cache of the streamed sums
  cleared before every call; beside it, the size of the dense
  ``n_items x (n_samples + 1)`` float64 matrix the research code holds.
  ``ranks``: :func:`sample_ranks` on a dense 2,000 x 50,000 float32 score
  matrix with 1 % of the cells excluded.
* ``experiment``: the paper's experiment. Three synthetic models A, B and
  C, each the full-catalogue rank of the held-out item of ``--users``
  users, drawn from a mixture (seeded; see :data:`MODELS`): A is strong at
  the very top with a heavy tail (many held-out items anywhere in the
  catalogue), B mediocre, C mediocre everywhere (almost every held-out item
  in the top 6 %, few in the top 10). Their exact Recall@10 falls from A to
  C, while the naive sampled Recall@10 (about the share of the top 10 %) rises.
  For ``--repetitions`` independent samplings, each user's sampled rank is
  drawn from the sampling model given its full rank (with replacement: 1 +
  Binomial(n_samples, (r - 1) / (n_items - 1)), what sample_ranks draws;
  a 10,000 x 1e6 score matrix would take 80 GB), and the estimates of
  every method of :func:`correct_sampled_metric` computed (BV with its
  default gamma 0.1). ``experiment`` gives each model's exact Recall@10
  and each method's mean estimate, with the order of the means and how
  many repetitions keep the exact order of the three models; ``rmse`` each
  method's RMSE against the exact value.
"""

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's package, not an installed one
from _common import add_json_option, best_time, run_info, table, traced_peak_bytes, versions, write_results  # noqa: E402

RESULTS_FILE = Path(HERE) / "results" / "sampled.json"
FULL = dict(items=1_000_000, samples=100, users=10_000)
SMALL = dict(items=100_000, samples=100, users=2_000)
METHODS = ("naive", "rank_estimate", "least_squares", "cls", "bv")
LABELS = {"naive": "Naive", "rank_estimate": "Rank est.", "least_squares": "Least sq.", "cls": "CLS", "bv": "BV"}

# Each model: (share of users, lowest rank, highest rank, "uniform" or "log-uniform") per
# component; an int is a rank, a float a share of the catalogue (so that --small keeps the shape).
MODELS = {
    "A": [(0.12, 1, 10, "uniform"), (0.12, 11, 0.001, "log"), (0.76, 11, 1.0, "uniform")],
    "B": [(0.07, 1, 10, "uniform"), (0.10, 11, 0.001, "log"), (0.83, 0.005, 0.3, "log")],
    "C": [(0.04, 1, 10, "uniform"), (0.96, 0.005, 0.06, "log")],
}


def full_ranks(model, n_users, n_items, rng):
    """Full-catalogue ranks of the held-out items of ``n_users`` users of ``model``."""
    parts = []
    for share, low, high, shape in MODELS[model]:
        low, high = (bound * n_items if isinstance(bound, float) else bound for bound in (low, high))
        size = int(round(share * n_users))
        if shape == "uniform":
            parts.append(rng.integers(int(low), int(high) + 1, size))
        else:
            parts.append(np.exp(rng.uniform(np.log(low), np.log(high + 1), size)).astype(np.int64))
    return np.clip(np.concatenate(parts), 1, n_items)[:n_users]


def time_weights(items, samples, repeat):
    from sklearn_rank_metrics import sampled_metric_weights
    from sklearn_rank_metrics.retrieval import _sampled_model as _sampled

    rows = []
    for sampling in ("with_replacement", "without_replacement"):
        def call():
            _sampled.sums.cache_clear()
            return sampled_metric_weights(n_items=items, n_samples=samples, sampling=sampling)

        call()  # imports
        seconds, _ = best_time(call, repeat)
        peak = traced_peak_bytes(call)
        rows.append({"sampling": sampling, "seconds": seconds, "peak_bytes": peak})
    return rows


def time_sample_ranks(repeat, users=2_000, items=50_000, samples=100):
    import scipy.sparse as sp

    from sklearn_rank_metrics import sample_ranks

    rng = np.random.default_rng(0)
    scores = rng.random((users, items), dtype=np.float32)
    held = rng.integers(0, items, users)
    exclude = sp.random(users, items, density=0.01, format="csr", random_state=1)
    exclude[np.arange(users), held] = 0
    exclude.eliminate_zeros()
    seconds, _ = best_time(lambda: sample_ranks(scores, held, n_samples=samples, exclude=exclude, random_state=0), repeat)
    peak = traced_peak_bytes(lambda: sample_ranks(scores, held, n_samples=samples, exclude=exclude, random_state=0))
    return {"users": users, "items": items, "samples": samples, "seconds": seconds, "peak_bytes": peak,
            "scores_bytes": scores.nbytes, "excluded": int(exclude.nnz)}  # fmt: skip


def experiment(items, samples, users, repetitions, seed=0):
    from sklearn_rank_metrics import correct_sampled_metric

    rng = np.random.default_rng(seed)
    ranks = {model: full_ranks(model, users, items, rng) for model in MODELS}
    exact = {model: float(np.mean(r <= 10)) for model, r in ranks.items()}
    estimates = {model: {method: [] for method in METHODS} for model in MODELS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # least squares at 100 samples: left-out directions
        for _ in range(repetitions):
            for model, full in ranks.items():
                sampled = rng.binomial(samples, (full - 1) / (items - 1)) + 1
                for method in METHODS:
                    estimates[model][method].append(
                        correct_sampled_metric(sampled, n_items=items, n_samples=samples, method=method)
                    )
    return {"exact": exact, "estimates": estimates, "repetitions": repetitions, "seed": seed}


def _order(values):
    return "".join(sorted(values, key=lambda model: -values[model]))


def make_tables(raw):
    shape = raw["shape"]
    weights_rows = [
        [row["sampling"].replace("_", " "), f"{row['seconds']:.2f}", f"{row['peak_bytes'] / 1e6:.0f}",
         f"{shape['items'] * (shape['samples'] + 1) * 8 / 1e6:.0f}"]
        for row in raw["weights"]
    ]  # fmt: skip
    weights_table = table(
        ["Sampling", "Seconds", "Peak MB", "Dense A, MB"], weights_rows,
        f"Correction weights of recall@10, {shape['items']:,} items x {shape['samples']} samples "
        f"(best of {raw['repeat']}; peak traced memory), beside the dense matrix",
    )  # fmt: skip
    ranks = raw["sample_ranks"]
    ranks_table = table(
        ["Users", "Items", "Samples", "Seconds", "Peak MB"],
        [[f"{ranks['users']:,}", f"{ranks['items']:,}", ranks["samples"], f"{ranks['seconds']:.2f}",
          f"{ranks['peak_bytes'] / 1e6:.0f}"]],
        f"sample_ranks on a dense float32 score matrix ({ranks['scores_bytes'] / 1e6:.0f} MB) "
        f"with {ranks['excluded']:,} excluded pairs (best of {raw['repeat']}; peak traced memory)",
    )  # fmt: skip
    run = raw["experiment"]
    exact = run["exact"]
    values = {m: {model: np.array(run["estimates"][model][m]) for model in exact} for m in METHODS}
    means = {m: {model: float(values[m][model].mean()) for model in exact} for m in METHODS}
    truth = _order(exact)
    rows = [[model, f"{exact[model]:.4f}", *(f"{means[m][model]:.3g}" for m in METHODS)] for model in exact]
    rows.append(["Order", truth, *(_order(means[m]) for m in METHODS)])
    kept = []
    for method in METHODS:
        each = [_order({model: values[method][model][i] for model in exact}) == truth
                for i in range(run["repetitions"])]  # fmt: skip
        kept.append(f"{sum(each)}/{len(each)}")
    rows.append(["Kept", "", *kept])
    header = ["Model", "Exact", *(LABELS[m] for m in METHODS)]
    what = (f"{shape['users']:,} users, {shape['items']:,} items, {shape['samples']} samples, "
            f"{run['repetitions']} samplings")  # fmt: skip
    experiment_table = table(
        header, rows,
        f"Recall@10 of three models, {what}: the exact value and each method's mean estimate; "
        "the order of the means, and how many samplings keep the exact order",
    )  # fmt: skip
    rmse_rows = [
        [model, *(f"{np.sqrt(np.mean((values[m][model] - exact[model]) ** 2)):.3g}" for m in METHODS)]
        for model in exact
    ]
    rmse_table = table(
        ["Model", *(LABELS[m] for m in METHODS)], rmse_rows,
        f"RMSE of each method's Recall@10 against the exact value, {what}",
    )  # fmt: skip
    return {"weights": weights_table, "ranks": ranks_table, "experiment": experiment_table,
            "rmse": rmse_table}  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1e5 items, 2,000 users")
    for size in FULL:  # --items, --samples, --users
        parser.add_argument(f"--{size}", type=int)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls of the weights (best)")
    parser.add_argument("--retable", metavar="PATH", help="rewrite the tables of a results file from its raw numbers")
    add_json_option(parser)
    args = parser.parse_args(argv)
    if args.retable:
        path = Path(args.retable)
        run = json.loads(path.read_text())
        run["tables"] = make_tables(run["raw"])
        path.write_text(json.dumps(run, indent=1, default=float) + "\n")
        return 0
    shape = dict(SMALL if args.small else FULL)
    shape.update({k: getattr(args, k) for k in shape if getattr(args, k) is not None})
    info = run_info(argv)
    info["versions"] = versions(["sklearn_rank_metrics", "scipy"])
    info["note"] = "Recorded on the 2-core development machine (shared), no accelerator."
    start = time.perf_counter()
    raw = {
        "shape": shape, "repeat": args.repeat,
        "weights": time_weights(shape["items"], shape["samples"], args.repeat),
        "sample_ranks": time_sample_ranks(args.repeat),
        "experiment": experiment(shape["items"], shape["samples"], shape["users"], args.repetitions),
    }  # fmt: skip
    raw["seconds"] = time.perf_counter() - start
    info["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    tables = make_tables(raw)
    default = Path("/tmp/sampled-small.json") if args.small else RESULTS_FILE
    write_results(__file__, info, tables, raw, path=args.json or default)
    for name in tables:
        print(tables[name]["title"])
        print("\n".join(" | ".join(row) for row in [tables[name]["header"], *tables[name]["rows"]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
