"""The metrics under test, derived from the package's one definition table.

Adding a metric to the table adds it to every test parametrized from here.
"""

import functools

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine._definitions import METRICS

NAMES = tuple(METRICS)
GRADED = tuple(name for name, d in METRICS.items() if d.family == "graded")
BINARY = tuple(name for name, d in METRICS.items() if d.family == "binary")
PAIRS = tuple(name for name, d in METRICS.items() if d.family == "pairs")
WHOLE_LIST = tuple(name for name, d in METRICS.items() if not d.takes_cutoff)
UNBOUNDED = tuple(name for name, d in METRICS.items() if not d.bounded)
WITH_NO_RELEVANT = tuple(name for name, d in METRICS.items() if "no_relevant" in d.options)

# The public functions, each once.
FUNCTIONS = tuple(
    getattr(srm, function) for function in dict.fromkeys(d.function for d in METRICS.values())
)
CUTOFF_FUNCTIONS = tuple(
    getattr(srm, function)
    for function in dict.fromkeys(d.function for d in METRICS.values() if d.takes_cutoff)
)


def function_of(name):
    """The public function computing the metric ``name``, with its naming options bound."""
    definition = METRICS[name]
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
