"""The selection path: with every measure cut at k, only each query's head is sorted.

``rank_heads`` sorts the rows scored at least a bound at most each query's
k-th largest score, and the chunk pass reads those heads only. Every value
must be, query for query and bit for bit, the full sort's: the same call
with the selection switched off (a bound that never pays) is the reference.
"""

import numpy as np
import pytest

from sklearn_rank_metrics import dcg_score, evaluate, ndcg_score
from sklearn_rank_metrics._engine.prepare import _select
from sklearn_rank_metrics._engine.prepare._select import cut_after_heads, rank_heads
from sklearn_rank_metrics._engine.prepare._sort import rank_order

HEAD_METRICS = [
    "ndcg@{k}", "dcg@{k}", "cg@{k}", "mrr@{k}", "map@{k}", "gm_map@{k}", "precision@{k}",
    "recall@{k}", "f1@{k}", "recall_cap@{k}", "hit_rate@{k}", "hit_rate_item@{k}", "rbp@{k}",
]  # fmt: skip
TIES = ["average", "first", "optimistic", "pessimistic"]


def _scores(kind, n, rng):
    if kind == "tie-heavy":
        return np.floor(rng.random(n) * 6)
    if kind == "float32":
        return rng.normal(size=n).astype(np.float32)
    if kind == "int64":
        return rng.integers(-50, 50, n)
    if kind == "uint8":
        return rng.integers(0, 256, n).astype(np.uint8)
    if kind == "float16":
        return rng.random(n).astype(np.float16)
    if kind == "bool":
        return rng.random(n) < 0.3
    return rng.random(n)


def _data(scores, layout, rng, n_queries=60):
    """Labels 0-3, ``scores``, query ids: interleaved, grouped, ranked, strings, short lists."""
    sizes = rng.integers(1, 80, n_queries)
    if layout == "short":  # most lists shorter than the cutoffs
        sizes = rng.integers(1, 12, n_queries)
        sizes[:5] = 70
    qid = np.repeat(np.arange(n_queries), sizes)
    if layout not in ("grouped", "ranked"):
        qid = rng.permutation(qid)
    if layout == "strings":
        qid = np.array([f"q{q:03d}" for q in range(n_queries)])[qid]
    n = qid.shape[0]
    y_true = rng.choice(4, size=n, p=[0.55, 0.25, 0.12, 0.08]).astype(np.float64)
    y_score = _scores(scores, n, rng)
    if layout == "ranked":  # each query's rows by descending score, as a run file is
        order = np.lexsort((-y_score.astype(np.float64), qid))
        return y_true[order], y_score[order], qid[order]
    return y_true, y_score, qid


def _full_sort(monkeypatch):
    """Switch the selection off: no head leaves out enough rows to pay."""
    monkeypatch.setattr(_select, "_MIN_LEFT_OUT_SHARE", 0)


def _both(monkeypatch, call):
    """``call()`` on the selection path, then on the full sort: values or error messages."""

    def outcome():
        try:
            return call()
        except ValueError as error:
            return str(error)

    selected = outcome()
    with monkeypatch.context() as patch:
        _full_sort(patch)
        full = outcome()
    return selected, full


def _assert_same(selected, full, names):
    if isinstance(full, str) or isinstance(selected, str):
        assert selected == full
        return
    for name in names:
        a, b = np.asarray(selected[name]), np.asarray(full[name])
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("layout", ["interleaved", "grouped", "ranked", "strings", "short"])
@pytest.mark.parametrize(
    "scores", ["continuous", "tie-heavy", "float32", "int64", "uint8", "float16", "bool"]
)
def test_selection_gives_the_full_sorts_values(monkeypatch, scores, layout, ties):
    rng = np.random.default_rng([len(scores), len(layout), len(ties)])
    y_true, y_score, qid = _data(scores, layout, rng)
    names = [m.format(k=k) for k in (1, 5, 20) for m in HEAD_METRICS]
    selected, full = _both(
        monkeypatch,
        lambda: evaluate(y_true, y_score, qid=qid, metrics=names, ties=ties, average=None),
    )
    _assert_same(selected, full, names)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("scores", ["continuous", "tie-heavy"])
def test_err_and_its_tie_error_are_the_full_sorts(monkeypatch, scores, ties):
    """ERR under ``ties="average"`` refuses mixed tie blocks: the same message either way."""
    rng = np.random.default_rng(7)
    y_true, y_score, qid = _data(scores, "interleaved", rng)
    names = ["err@10", "ndcg@10"]
    selected, full = _both(
        monkeypatch,
        lambda: evaluate(y_true, y_score, qid=qid, metrics=names, ties=ties, average=None),
    )
    _assert_same(selected, full, names)


@pytest.mark.parametrize(
    "options",
    [
        {"gain": "linear"},
        {"relevance_level": 2},
        {"n_relevant": "given"},
        {"sample_weight": "per query"},
        {"labels": "huge"},  # gains scaled per query: the whole lists are ranked
        {"labels": "many values"},  # no label histogram: the whole lists are ranked
    ],
    ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()),
)
@pytest.mark.parametrize("ties", ["average", "first"])
def test_selection_under_options(monkeypatch, options, ties):
    rng = np.random.default_rng(3)
    y_true, y_score, qid = _data("tie-heavy", "interleaved", rng)
    options = dict(options)
    labels = options.pop("labels", None)
    if labels == "huge":
        y_true = y_true * 400.0
    elif labels == "many values":
        y_true = rng.integers(0, 100_000, y_true.shape[0]) / 1000.0
    if options.get("n_relevant") == "given":
        options["n_relevant"] = {int(q): int(rng.integers(20, 30)) for q in np.unique(qid)}
    if options.get("sample_weight") == "per query":
        options["sample_weight"] = (qid % 3 + 1).astype(np.float64)
    names = [m.format(k=10) for m in HEAD_METRICS]
    if labels is not None:
        names = [name for name in names if not name.startswith(("rbp", "gm_map"))]
    selected, full = _both(
        monkeypatch,
        lambda: evaluate(
            y_true, y_score, qid=qid, metrics=names, ties=ties, average=None, **options
        ),
    )
    _assert_same(selected, full, names)


@pytest.mark.parametrize("ties", TIES)
def test_dense_2d_input(monkeypatch, ties):
    rng = np.random.default_rng(11)
    y_true = rng.choice(4, size=(40, 90), p=[0.6, 0.2, 0.1, 0.1])
    y_score = np.floor(rng.random((40, 90)) * 30)
    names = ["ndcg@5", "map@10", "recall@10", "mrr@3"]
    selected, full = _both(
        monkeypatch,
        lambda: evaluate(y_true, y_score, metrics=names, ties=ties, average=None),
    )
    _assert_same(selected, full, names)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("layout", ["interleaved", "grouped", "ranked"])
@pytest.mark.parametrize("scores", ["continuous", "tie-heavy", "uint8"])
def test_rank_heads_ranks_each_querys_head_only(scores, layout, ties):
    """Each query's head is the start of the full ranking, its tie block at the cut whole.

    Grouped rows are selected (only rows above a bound are sorted), interleaved
    ones sorted and cut.
    """
    rng = np.random.default_rng(5)
    y_true, y_score, qid = _data(scores, layout, rng)
    n_queries, k = int(qid.max()) + 1, 10
    sizes = np.bincount(qid, minlength=n_queries)
    ranked = rank_heads(y_score, y_true, qid, n_queries, ties, k)
    order, head_sizes = ranked.order, ranked.head_sizes
    assert (head_sizes is None) == (layout != "grouped") or ties in ("optimistic", "pessimistic")
    if head_sizes is None:  # every row ranked: cut after the heads
        order, head_sizes = cut_after_heads(order, y_score, sizes, k)
    assert order.shape[0] == head_sizes.sum() < y_score.shape[0]
    label_key = {"optimistic": -y_true, "pessimistic": y_true}.get(ties, np.zeros_like(y_true))
    full = np.lexsort((np.arange(qid.shape[0]), label_key, -y_score.astype(np.float64), qid))
    starts = np.cumsum(sizes) - sizes
    head_starts = np.cumsum(head_sizes) - head_sizes
    for q in range(n_queries):
        head = order[head_starts[q] : head_starts[q] + head_sizes[q]]
        assert np.array_equal(head, full[starts[q] : starts[q] + head_sizes[q]])
        assert head_sizes[q] >= min(k, sizes[q])
        scores_q = y_score[qid == q]
        if head_sizes[q] < sizes[q]:  # the rows left out score below every head row
            assert scores_q[~np.isin(np.flatnonzero(qid == q), head)].max() < y_score[head].min()


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_metric_functions(monkeypatch, ignore_ties):
    """The metric functions run the plain evaluation too (``ignore_ties``: scikit-learn's order)."""
    rng = np.random.default_rng(13)
    y_true, y_score, qid = _data("tie-heavy", "interleaved", rng)
    selected, full = _both(
        monkeypatch,
        lambda: {
            "ndcg": ndcg_score(y_true, y_score, qid=qid, k=5, ignore_ties=ignore_ties,
                               average=None),
            "dcg": dcg_score(y_true, y_score, qid=qid, k=5, ignore_ties=ignore_ties,
                             average=None),
        },  # fmt: skip
    )
    _assert_same(selected, full, ["ndcg", "dcg"])


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("values", ["whole numbers", "halves", "one not round"])
def test_sort_of_round_scores_is_the_lexsort(values, ties):
    """Scores whose truncated keys lose no bit are ranked without re-checking collisions.

    Few round values (whole numbers stored as floats: tie-heavy scores) leave
    the bits the packed keys drop all zero; one other value makes the keys
    lossy again. Either way the order is the specification's lexsort.
    """
    rng = np.random.default_rng(17)
    n, n_queries = 5000, 40
    qid = rng.integers(0, n_queries, n)
    y_true = rng.integers(0, 3, n).astype(np.float64)
    y_score = rng.integers(-3, 1000, n).astype(np.float64)
    if values == "halves":
        y_score /= 2
    elif values == "one not round":
        y_score[7] = 0.1
    order, _ = rank_order(y_score, y_true, qid, n_queries, ties)
    label_key = {"optimistic": -y_true, "pessimistic": y_true}.get(ties, np.zeros(n))
    assert np.array_equal(order, np.lexsort((np.arange(n), label_key, -y_score, qid)))


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("scores", ["continuous", "tie-heavy"])
@pytest.mark.parametrize("layout", ["interleaved", "grouped"])
def test_measures_with_parameters_and_other_syntaxes(monkeypatch, layout, scores, ties):
    """Gains per grade, levels, persistence, and ir_measures' and trec_eval's names."""
    rng = np.random.default_rng(19)
    y_true, y_score, qid = _data(scores, layout, rng)
    names = [
        "ndcg(gains={0: 0, 1: 3.5, 2: 9})@10", "P(rel=2)@5", "nDCG@10", "ndcg_cut_10",
        "rbp(p=0.8,rel=2)@10", "mrr(rel=2)@10", "recall(rel=2)@20", "R@7",
    ]  # fmt: skip
    selected, full = _both(
        monkeypatch,
        lambda: evaluate(y_true, y_score, qid=qid, metrics=names, ties=ties, average=None),
    )
    _assert_same(selected, full, names)
