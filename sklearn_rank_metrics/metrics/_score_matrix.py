"""Query x item score matrices against sparse labels, with excluded items.

The front-end under ``evaluate`` and the metric functions when ``y_true`` is
a scipy.sparse matrix or ``exclude`` is given: the scores are read strip by
strip (``_engine/run/_strips.py``), each strip's excluded cells removed and,
when every measure is cut at ``k``, only each query's top ``k`` selected,
with the tie block at the cut whole. The values are those of the flat
ranking of every kept (query, item) pair, query for query.
"""

from .._engine._warnings import warn_caller
from .._engine.prepare._sparse import is_sparse
from .._engine.prepare._validation import row_weights
from .._engine.spec import head_cutoff
from .._engine.run._strips import evaluate_strips, float_scores, matrix_labels, matrix_strips


def is_score_matrix(inputs):
    """Whether ``inputs`` take the score-matrix path: sparse labels or excluded pairs."""
    return is_sparse(inputs.y_true) or inputs.exclude is not None


def check_matrix_options(options, owner):
    """Raise where an option has no meaning for a score matrix evaluated with excluded items."""
    if options.n_relevant is not None:
        raise ValueError(
            f"{owner}: n_relevant cannot be combined with a sparse y_true or exclude: R is "
            "the number of relevant items y_true holds for each row (excluded ones left "
            "out). Pass n_relevant=None."
        )
    if options.ignore_ties:
        raise ValueError(
            f"{owner}: ignore_ties=True (scikit-learn's order of tied scores) is not "
            "available with a sparse y_true or exclude; pass ties='first' for the order of "
            "the columns, or leave ties='average'."
        )


def warn_leakage(n_dropped):
    """Warn that ``leakage="exclude"`` dropped ``n_dropped`` labelled pairs (if any)."""
    if n_dropped:
        warn_caller(
            f"leakage='exclude' dropped {n_dropped} (query, item) pair(s) labelled in y_true "
            "that exclude also marks (train/test leakage): they are neither ranked nor "
            "relevant.",
            UserWarning,
        )


def evaluate_score_matrix(requests, inputs, options, owner="evaluate"):
    """The ``RunResults`` of ``requests`` on a 2-D score matrix with sparse labels or ``exclude``.

    ``inputs``: the call's :class:`~.._engine.prepare._prepare.Inputs`;
    ``options``: its checked :class:`~.._engine._options.Options`.
    """
    check_matrix_options(options, owner)
    if inputs.qid is not None:
        raise ValueError(
            f"{owner}: qid is only for 1-D input; a sparse y_true or exclude means one query "
            "per row. Pass qid=None."
        )
    scores, dtype = float_scores(inputs.y_score)
    weights = row_weights(inputs.sample_weight, scores.shape[0])
    matrix, n_dropped = matrix_labels(
        inputs.y_true, scores.shape, inputs.exclude, options.leakage, weights
    )
    warn_leakage(n_dropped)
    strips = matrix_strips(scores, dtype, head_cutoff(requests))
    return evaluate_strips(requests, matrix, strips, options, owner=owner)
