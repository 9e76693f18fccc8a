"""The metrics under test, derived from the package's one definition table.

Adding a metric to the table adds it to every test parametrized from here.
"""

import functools

import numpy as np

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine.quantities import NormalizedGainSum
from sklearn_rank_metrics._engine._params import PARAMETERS, check_parameters
from sklearn_rank_metrics._engine._options import Options
from sklearn_rank_metrics._engine.prepare import _labels, _segments
from sklearn_rank_metrics._engine.prepare._prepare import Inputs
from sklearn_rank_metrics._engine.quantities import _pair_counts
from sklearn_rank_metrics._engine.run import _evaluation, _run
from sklearn_rank_metrics._engine.run._curve import curve_results
from sklearn_rank_metrics._engine.run._run import evaluate_plain
from sklearn_rank_metrics._engine.spec import METRICS, Request
from sklearn_rank_metrics._engine.spec._gains import GainRatio, LevelGainMean
from sklearn_rank_metrics.metrics._query_results import QueryResults, query_results, warn_left_out

class _Cutoffs:
    """Requests of a curve evaluation, all computed (not only up to the curve's end)."""

    def __init__(self, requests, k_max):
        self.requests, self.k_max = list(requests), k_max

    def up_to(self, end):
        return self.requests

    def __iter__(self):
        return iter(self.requests)


def evaluate_requests(requests, y_true, y_score, *, qid=None, sample_weight=None, curve=None,
                      **options):  # fmt: skip
    """The engine's per-query results of ``requests``, warning as the public functions do.

    ``curve=k_max``: every request computed by the curve run (up to ``k_max``).
    """
    inputs, options = Inputs(y_true, y_score, qid, sample_weight), Options(**options)
    if curve is None:
        results = query_results(evaluate_plain(requests, inputs, options))
    else:
        parts = [query_results(part) for part in
                 curve_results(_Cutoffs(requests, curve), inputs, options)]  # fmt: skip
        metrics = {name: part._results[name] for part in parts for name in part.metrics}
        results = QueryResults(parts[0].query_ids, metrics, parts[0].query_weights)
    warn_left_out(results)
    return results


NAMES = tuple(METRICS)
GRADED = tuple(name for name, d in METRICS.items() if d.family == "graded")
BINARY = tuple(name for name, d in METRICS.items() if d.family == "binary")
PAIRS = tuple(name for name, d in METRICS.items() if d.family == "pairs")
WHOLE_LIST = tuple(name for name, d in METRICS.items() if not d.takes_cutoff)
UNBOUNDED = tuple(name for name, d in METRICS.items() if not d.bounded)
# Graded measures that also count relevant documents (label >= the relevance level,
# 1 by default): Rndcg's R levels. Scaling labels moves them across that level.
COUNTS_RELEVANT = tuple(
    name for name, d in METRICS.items() if getattr(d.computation, "r_levels", False)
)
# trec_eval's G divides each gain by log2(2 + C_i - S_i), cumulated gains added to
# 2: its value changes when the labels are scaled.
GAINS_IN_A_LOGARITHM = tuple(
    name for name, d in METRICS.items() if getattr(d.computation, "ranked", None) is NormalizedGainSum
)
# With n_relevant counting relevant documents outside the lists: measures of an
# ideal ranking take them for labels 0 and 1 only (else an error).
IDEAL_OF_BINARY_ONLY = tuple(
    name for name, d in METRICS.items() if isinstance(d.computation, GainRatio | LevelGainMean)
)
# Values that may be negative.
SIGNED = ("kendall", "utility")


def aggregate_of(name):
    """How the mean of ``name`` combines queries: "mean", "sum" or "geometric"."""
    return METRICS[name].aggregate


# Exact under ties="average" only where no tie block mixes documents they tell apart.
SCANNED = tuple(name for name, d in METRICS.items() if d.ties != "all")
WITH_NO_RELEVANT = tuple(name for name, d in METRICS.items() if "no_relevant" in d.options)

# The public functions, each once (a metric may have none: evaluate computes it).
FUNCTIONS = tuple(
    getattr(srm, function)
    for function in dict.fromkeys(d.function for d in METRICS.values() if d.function)
)
CUTOFF_FUNCTIONS = tuple(
    getattr(srm, function)
    for function in dict.fromkeys(
        d.function for d in METRICS.values() if d.function and d.takes_cutoff
    )
)


# Measure parameters the tests give the metrics that need one (the references take them too).
MEASURE_OPTIONS = {"iprec_at_recall": {"recall": 0.3}, "rprec_mult": {"multiplier": 1.4}}


@functools.cache
def _through_evaluate(name):
    """A metric without a public function, as one: ``evaluate`` with its name.

    Metrics with measure parameters (:data:`MEASURE_OPTIONS`) go through the
    engine's requests, which carry them.
    """

    def score(y_true, y_score, *, k=None, average="mean", **options):
        metric = name if k is None else f"{name}@{k}"
        if name in MEASURE_OPTIONS:
            checked = {key: value for key, value in options.items() if key in PARAMETERS}
            check_parameters("evaluate", average=average, **checked)
            request = Request(metric, METRICS[name], k, None, tuple(MEASURE_OPTIONS[name].items()))
            results = evaluate_requests([request], y_true, y_score, **options)
            return results.mean(metric) if average == "mean" else np.array(results[metric])
        results = srm.evaluate(y_true, y_score, metrics=[metric], average=average, **options)
        return results[metric] if average == "mean" else np.array(results[metric])

    score.__name__ = f"evaluate_{name}"
    return score


def function_of(name):
    """The public function computing the metric ``name``, with its naming options bound."""
    definition = METRICS[name]
    if definition.function is None:
        return functools.partial(_through_evaluate(name))
    return functools.partial(getattr(srm, definition.function), **definition.fixed_options)


# (test id, metric name, extra options): gain metrics once per gain.
VARIANTS = [
    variant
    for name in NAMES
    for variant in (
        [(f"{name}-{gain}", name, {"gain": gain}) for gain in ("linear", "exponential")]
        if name in GRADED
        else [(name, name, {})]
    )
]
VARIANT_IDS = [variant[0] for variant in VARIANTS]


def interleaving(qid, rng):
    """A random permutation of the rows that keeps each query's rows in their order."""
    qid = np.asarray(qid)
    slots = qid[rng.permutation(qid.shape[0])]  # the query each new position holds
    perm = np.empty(qid.shape[0], dtype=np.int64)
    for query in np.unique(qid):
        perm[slots == query] = np.flatnonzero(qid == query)
    return perm


def shuffled_rows(qid, rng, ties):
    """A random permutation of the rows that changes no value under ``ties``.

    Any permutation, except under ``ties="first"`` (input order inside a
    tie): there, one that keeps each query's rows in their order.
    """
    return interleaving(qid, rng) if ties == "first" else rng.permutation(len(qid))


# The engine's alternative paths, each forced by the module attributes it sets (monkeypatch).
PATHS = {
    "histogram": {},
    # The order-free totals (relevant counts, ideal DCG) from each chunk.
    "chunk totals": {(_segments, "_ROWS_PER_HISTOGRAM_CELL"): 10**12,
                     (_segments, "_SMALL_HISTOGRAM"): 0},
    # Label codes made chunk by chunk, as for more distinct labels than a uint16 holds.
    "chunk label codes": {(_labels, "MAX_CODED_LABELS"): 1},
    # Discordant pairs by radix partition instead of one count per label value.
    "radix pairs": {(_pair_counts, "_MAX_VALUES_FOR_COUNTS"): 1},
    # NDCG from gains divided per query by a power of two, as for huge labels.
    "scaled gains": {(_evaluation, "_MAX_UNSCALED_GAIN_TOTAL"): 0.0},
    # One query a chunk: results merged from many chunks, some with nothing to add.
    "one query a chunk": {(_run, "chunk_rows"): lambda n_documents, n_threads: 1},
}  # fmt: skip
