"""trec_eval's measures, ERR, RBP and judged@k against trec_eval itself and ir_measures.

pytrec_eval embeds trec_eval (version 9): it checks every measure per query on
random runs whose qrels judge every document (graded labels, relevance levels,
tie-free scores). Its ``iprec_at_recall`` and ``11pt_avg`` round the recall
levels as trec_eval 9 does; the package follows trec_eval 10, so those are
checked against the transcription of trec_eval's loop in tests/_reference.py,
whose trec_eval 9 variant is itself checked against pytrec_eval here.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _reference import (
    iprec_of,
    query_value,
    ranked_orderings,
    trec_g_of,
    trec_ndcg_of,
    trec_ndcg_rel_of,
    trec_rndcg_of,
    trec_v9_cut,
)
from _cases import evaluate_requests
from sklearn_rank_metrics._engine.spec import METRICS, Request
from sklearn_rank_metrics.metrics._query_results import QueryResults
from sklearn_rank_metrics.trec import evaluate_run

MULTIPLIERS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

# (package name, cutoff, measure parameters) -> trec_eval's per-query key.
TREC_KEYS = {
    ("num_q", None, ()): "num_q",
    ("num_ret", None, ()): "num_ret",
    ("num_rel", None, ()): "num_rel",
    ("num_rel_ret", None, ()): "num_rel_ret",
    ("num_nonrel_judged_ret", None, ()): "num_nonrel_judged_ret",
    ("map", None, ()): "map",
    ("gm_map", None, ()): "gm_map",
    ("bpref", None, ()): "bpref",
    ("gm_bpref", None, ()): "gm_bpref",
    ("infap", None, ()): "infAP",
    ("r_precision", None, ()): "Rprec",
    ("mrr", None, ()): "recip_rank",
    ("precision", 5, ()): "P_5",
    ("precision", 10, ()): "P_10",
    ("recall", 5, ()): "recall_5",
    ("ndcg", None, ()): "ndcg",
    ("ndcg", 5, ()): "ndcg_cut_5",
    ("map", 5, ()): "map_cut_5",
    ("hit_rate", 5, ()): "success_5",
    ("precision", None, ()): "set_P",
    ("recall", None, ()): "set_recall",
    ("f1", None, ()): "set_F",
    ("recall_cap", 5, ()): "relative_P_5",
    ("recall_cap", None, ()): "set_relative_P",
    ("set_map", None, ()): "set_map",
    ("bing", None, ()): "binG",
    ("utility", None, ()): "utility",
    ("ndcg_rel", None, ()): "ndcg_rel",
    ("rndcg", None, ()): "Rndcg",
    ("g", None, ()): "G",
    **{
        ("rprec_mult", None, (("multiplier", m),)): f"Rprec_mult_{m:.2f}"
        for m in MULTIPLIERS
    },
}
# trec_eval prints the per-query value of a geometric mean as its logarithm.
LOGGED = ("gm_map", "gm_bpref")


def _request(name, k=None, level=None, **options):
    label = name if k is None else f"{name}@{k}"
    label += "".join(f"[{key}={value}]" for key, value in sorted(options.items()))
    label += "" if level is None else f"(rel={level:g})"
    return Request(label, METRICS[name], k, level, tuple(sorted(options.items())))


def _requests(keys):
    return [_request(name, k, **dict(options)) for name, k, options in keys]


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


def random_run(seed, n_queries=6, max_docs=30, grades=(0, 0, 0, 1, 2, 3)):
    """Graded labels, tie-free scores, string ids; every document judged."""
    rng = np.random.default_rng(seed)
    y_true, y_score, qid = [], [], []
    for q in range(n_queries):
        n = int(rng.integers(1, max_docs))
        y_true += rng.choice(grades, n).tolist()
        y_score += (rng.permutation(n) + rng.random() / 2).tolist()
        qid += [f"q{q}"] * n
    return np.array(y_true), np.array(y_score), np.array(qid)


def as_trec(y_true, y_score, qid):
    qrels, run = {}, {}
    for i, (label, score, q) in enumerate(zip(y_true, y_score, qid)):
        qrels.setdefault(str(q), {})[f"d{i}"] = int(label)
        run.setdefault(str(q), {})[f"d{i}"] = float(score)
    return qrels, run


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(12))
def test_every_measure_matches_trec_eval_per_query(seed, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y_true, y_score, qid = random_run(seed)
    qrels, run = as_trec(y_true, y_score, qid)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, relevance_level=level).evaluate(run)
    requests = _requests(TREC_KEYS)
    results = _quiet(evaluate_requests, requests, y_true, y_score, qid=qid, relevance_level=level)
    for request, key in zip(requests, TREC_KEYS.values()):
        for q, value in zip(results.query_ids, results[request.name]):
            if request.definition.name in LOGGED:
                value = math.log(max(value, 1e-5))
            assert value == pytest.approx(expected[q][key], rel=1e-12, abs=1e-12), (key, q)


def test_the_means_are_trec_eval_s_summary():
    """Counts are summed and gm_* averaged geometrically, as trec_eval's 'all' line."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y_true, y_score, qid = random_run(3, grades=(0, 0, 0, 0, 0, 1))  # some queries score 0
    qrels, run = as_trec(y_true, y_score, qid)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
    results = _quiet(evaluate_requests, _requests(TREC_KEYS), y_true, y_score, qid=qid)
    for key, name, aggregate in [
        ("num_q", "num_q", "sum"), ("num_ret", "num_ret", "sum"), ("num_rel", "num_rel", "sum"),
        ("num_rel_ret", "num_rel_ret", "sum"), ("gm_map", "gm_map", "geometric"),
        ("gm_bpref", "gm_bpref", "geometric"), ("map", "map", "mean"),
    ]:  # fmt: skip
        values = [per_query[q][key] for q in sorted(per_query)]
        summary = pytrec_eval.compute_aggregated_measure(key, values)
        assert results.aggregate(name) == aggregate
        assert _quiet(results.mean, name) == pytest.approx(summary, rel=1e-12), key
    assert results.mean("num_q") == 6 and min(results["gm_map"]) < 1e-5


@pytest.mark.parametrize("seed", range(12))
def test_interpolated_precision_transcription_matches_trec_eval_9(seed):
    """The transcribed loop, with trec_eval 9's rounding, is pytrec_eval's; the package is trec_eval 10's."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y_true, y_score, qid = random_run(seed)
    qrels, run = as_trec(y_true, y_score, qid)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"}).evaluate(run)
    levels = [i / 10 for i in range(11)]
    requests = [_request("iprec_at_recall", recall=r) for r in levels]
    requests.append(_request("iprec_11pt_avg"))
    results = _quiet(evaluate_requests, requests, y_true, y_score, qid=qid)
    differ = 0
    for j, q in enumerate(results.query_ids):
        rows = qid == q
        ranked = y_true[rows][np.argsort(-y_score[rows])].tolist()
        R = sum(1 for x in ranked if x >= 1)
        if R == 0:
            continue
        nine = iprec_of(ranked, 1, R, levels, cut=trec_v9_cut)
        ten = iprec_of(ranked, 1, R, levels)
        for i, r in enumerate(levels):
            assert nine[i] == pytest.approx(expected[q][f"iprec_at_recall_{r:.2f}"], rel=1e-12)
            assert results[requests[i].name][j] == pytest.approx(ten[i], rel=1e-12)
        assert nine[0] == ten[0] and nine[-1] == ten[-1]  # recall 0 and 1 are the same in both
        assert results["iprec_11pt_avg"][j] == pytest.approx(sum(ten) / 11, rel=1e-12)
        differ += nine != ten
    assert differ  # the cases do tell the two roundings apart


def test_err_and_judged_match_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import ERR, Judged

    y_true, y_score, qid = random_run(5, grades=(0, 0, 1, 2, 3, 4))
    qid = np.char.replace(qid, "q", "")  # gdeval takes numeric topic ids
    qrels = [ir_measures.Qrel(str(q), f"d{i}", int(x)) for i, (x, q) in enumerate(zip(y_true, qid))]
    run = [ir_measures.ScoredDoc(str(q), f"d{i}", float(s)) for i, (s, q) in enumerate(zip(y_score, qid))]
    measures = [ERR @ 5, ERR @ 20, Judged @ 5]
    try:
        expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    except Exception as error:  # gdeval runs as a perl script
        pytest.skip(f"ir_measures cannot compute ERR here: {error}")
    results = srm.evaluate(y_true, y_score, qid=qid, metrics=["err@5", "err@20", "judged@5"], average=None)
    for j, q in enumerate(results.query_ids):
        assert results["err@5"][j] == pytest.approx(expected[(q, "ERR@5")], abs=1e-5)  # printed to 5 places
        assert results["err@20"][j] == pytest.approx(expected[(q, "ERR@20")], abs=1e-5)
        assert results["judged@5"][j] == expected[(q, "Judged@5")]


# ------------------------------------------------------------ options
def test_rbp_persistence_and_err_max_grade_are_measure_parameters():
    labels, scores = [1, 0, 3, 1], [4.0, 3.0, 2.0, 1.0]
    results = evaluate_requests(
        [_request("rbp"), _request("rbp", p=0.5), _request("rbp", 2, p=0.5),
         _request("err"), _request("err", max_grade=3), _request("rbp", level=2.0, p=0.5)],
        labels, scores,
    )  # fmt: skip
    assert results["rbp"] == pytest.approx(0.1 * (1 + 0.9**2 + 0.9**3))  # ranks 1, 3, 4
    assert results["rbp[p=0.5]"] == pytest.approx(0.5 * (1 + 0.5**2 + 0.5**3))
    assert results["rbp@2[p=0.5]"] == pytest.approx(0.5)
    assert results["rbp[p=0.5]"][0] != results["rbp@2[p=0.5]"][0]
    assert results["err"] == pytest.approx(query_value("err", labels, scores))
    stop = [1 / 8, 0, 7 / 8, 1 / 8]
    assert results["err[max_grade=3]"] == pytest.approx(
        stop[0] + (1 - stop[0]) * stop[2] / 3 + (1 - stop[0]) * (1 - stop[2]) * stop[3] / 4
    )
    # relevance level 2: only the label 3 at rank 3 counts
    assert results["rbp[p=0.5](rel=2)"] == pytest.approx(0.5 * 0.5**2)


@pytest.mark.parametrize(
    "request_, match",
    [
        (("rbp", None, {"p": 1.0}), "p must be a persistence in \\(0, 1\\)"),
        (("rbp", None, {"p": "x"}), "p must be"),
        (("iprec_at_recall", None, {}), "recall must be a recall level in \\[0, 1\\]"),
        (("iprec_at_recall", None, {"recall": 1.5}), "recall must be"),
        (("rprec_mult", None, {"multiplier": 0}), "multiplier must be a number above 0"),
        (("err", 10, {"max_grade": 3}), "label of 4 is above max_grade=3.*max_grade"),
        (("utility", None, {"coefficients": (1, 2)}), "coefficients must be 4 numbers"),
    ],
)
def test_bad_measure_parameters_raise_naming_them(request_, match):
    name, k, options = request_
    with pytest.raises(ValueError, match=match):
        evaluate_requests([_request(name, k, **options)], [4, 0, 1], [0.3, 0.2, 0.1])


def test_utility_and_rprec_mult_parameters():
    labels, scores = [1, 0, 1, 0, 0, 1], [6, 5, 4, 3, 2, 1]
    results = evaluate_requests(
        [_request("utility"), _request("utility", coefficients=(2, -1, -1, 0.5), num_docs=100),
         _request("rprec_mult", multiplier=0.5), _request("rprec_mult", multiplier=2.0)],
        labels, scores,
    )  # fmt: skip
    assert results.mean(results.metrics[0]) == 3 - 3
    assert results.mean(results.metrics[1]) == 2 * 3 - 3 - 0 + 0.5 * (100 + 3 - 6 - 3)
    assert results.mean(results.metrics[2]) == 1 / 2  # c = floor(1.5 + 0.9) = 2
    assert results.mean(results.metrics[3]) == 3 / 6  # c = floor(6.9) = 6


# --------------------------------------------------------------- ties
SCANNED = [name for name, d in METRICS.items() if d.ties != "all"]


def _scanned_request(name):
    return _request(name, recall=0.5) if name == "iprec_at_recall" else _request(name)


@pytest.mark.parametrize("name", SCANNED)
def test_measures_without_closed_form_are_exact_when_tied_documents_are_alike(name):
    """Blocks of equal labels (any block for ties it cannot tell apart) give the one value."""
    labels = [3, 3, 0, 0, 1, 2, 0, 0, 1]
    tied = [9, 9, 7, 7, 5, 4, 2, 2, 1]  # blocks {3, 3}, {0, 0}, {0, 0}
    distinct = [9, 8, 7, 6, 5, 4, 3, 2, 1]
    request = _scanned_request(name)
    got = evaluate_requests([request], labels, tied)[request.name]
    assert got == evaluate_requests([request], labels, distinct)[request.name]


@pytest.mark.parametrize("name", SCANNED)
def test_measures_without_closed_form_refuse_mixed_ties_under_average(name):
    labels, scores = [0, 2, 0, 1, 2], [1, 1, 0.5, 0.4, 0.3]  # relevant and not, tied at the top
    request = _scanned_request(name)
    with pytest.raises(ValueError, match="ties='average' cannot be exact.*ties='first'.*'optimistic'"):
        evaluate_requests([request], labels, scores, qid=["a"] * 5)
    for ties, first in (("optimistic", [2, 0]), ("pessimistic", [0, 2])):
        got = evaluate_requests([request], labels, scores, ties=ties)[request.name]
        alone = evaluate_requests([request], first + [0, 1, 2], [5, 4, 3, 2, 1])[request.name]
        np.testing.assert_array_equal(got, alone)


def test_err_ties_beyond_the_cutoff_do_not_matter():
    labels, scores = [3, 1, 0, 2, 0], [5, 4, 3, 1, 1]
    assert srm.evaluate(labels, scores, metrics="err@3") == srm.evaluate(
        labels, [5, 4, 3, 2, 1], metrics="err@3"
    )
    with pytest.raises(ValueError, match="ERR has no closed form"):
        srm.evaluate(labels, scores, metrics="err@5")


@pytest.mark.parametrize("name", ["judged", "unjudged", "rbp", "num_rel_ret", "num_nonrel_judged_ret"])
def test_linear_measures_are_exact_expectations_under_ties(name):
    """Against every ordering of the tied documents (the brute-force reference)."""
    labels, scores = [2, 0, 1, 0, 1, 3, 0], [1, 1, 1, 0.5, 0.5, 0.5, 0]
    for k in [None, 2, 4]:
        metric = name if k is None or name.startswith("num") else f"{name}@{k}"
        got = srm.evaluate(labels, scores, metrics=[metric], relevance_level=1)[metric]
        expected = query_value(name, labels, scores, k=None if name.startswith("num") else k)
        assert got == pytest.approx(expected, rel=1e-12)


def test_rbp_under_a_tie_block_straddling_the_cutoff():
    # 4 tied documents, 2 relevant, after one relevant; 2 positions inside k = 3
    got = srm.evaluate([1, 1, 0, 1, 0], [2, 1, 1, 1, 1], metrics="rbp@3")["rbp@3"]
    assert got == pytest.approx(0.1 * (1 + 0.5 * (0.9 + 0.81)))


# ------------------------------------------------------------ aggregates
def test_sums_and_geometric_means_survive_concat_and_weights():
    y_true, y_score, qid = random_run(7)
    names = ["num_rel", "gm_map", "map"]
    whole = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names, average=None)
    parts = [
        _quiet(srm.evaluate, y_true[qid == q], y_score[qid == q], qid=qid[qid == q], metrics=names,
               average=None)
        for q in np.unique(qid)
    ]  # fmt: skip
    joined = QueryResults.concat(parts)
    assert _quiet(joined.mean) == pytest.approx(_quiet(whole.mean), rel=1e-12)
    assert whole.mean("num_rel") == sum(x >= 1 for x in y_true)
    ap = np.maximum(whole["map"], 1e-5)
    assert whole.mean("gm_map") == pytest.approx(math.exp(np.mean(np.log(ap))), rel=1e-12)
    weighted = _quiet(srm.evaluate, y_true, y_score, qid=qid, metrics=names,
                      sample_weight=np.full(len(qid), 3.0))  # fmt: skip
    means = _quiet(whole.mean)
    assert weighted == pytest.approx({**means, "num_rel": 3 * means["num_rel"]}, rel=1e-12)


def test_definitions_declare_their_aggregate_and_counts():
    for name, definition in METRICS.items():
        assert definition.aggregate in ("mean", "sum", "geometric"), name
        assert definition.integer == name.startswith("num_"), name
        assert (definition.aggregate == "sum") == definition.integer, name


# -------------------------------------------------- runs against their qrels
RUN_MEASURES = {
    "num_q": "num_q", "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "gm_map": "gm_map", "bpref": "bpref",
    "gm_bpref": "gm_bpref", "infap": "infAP", "set_map": "set_map", "bing": "binG",
    "utility": "utility", "rprec_mult": "Rprec_mult_1.00", "map": "map", "r_precision": "Rprec",
    "ndcg": "ndcg", "ndcg_rel": "ndcg_rel", "rndcg": "Rndcg", "g": "G",
}  # fmt: skip


def random_qrels_and_run(seed, n_queries=8):
    """Judged documents the run misses, unjudged ones it retrieves, negative judgments."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        n_judged = int(rng.integers(1, 25))
        grades = rng.choice([-1, 0, 0, 0, 1, 2, 3], n_judged)
        qrels += [(f"q{q}", f"d{q}-{i}", int(g)) for i, g in enumerate(grades)]
        if q == 0:
            continue  # a judged query the run misses
        retrieved = [f"d{q}-{i}" for i in range(n_judged) if rng.random() < 0.7]
        retrieved += [f"u{q}-{i}" for i in range(int(rng.integers(0, 8)))]
        scores = rng.permutation(len(retrieved)) + rng.random() / 2
        run += [(f"q{q}", doc, float(s)) for doc, s in zip(retrieved, scores)]
    run.append(("q-unjudged", "x", 1.0))  # a query without judgments: left out
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    return qrels, run


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("missing_queries", ["ignore", "zero"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tied", [False, True])
def test_runs_with_unjudged_and_unretrieved_documents_match_trec_eval(
    seed, missing_queries, level, tied
):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_qrels_and_run(seed)
    if tied:  # trec_eval ranks tied scores by document id, descending
        run["score"] = np.floor(run["score"] / 3)
    judged = {}
    for q, doc, grade in qrels.itertuples(index=False):
        judged.setdefault(q, {})[doc] = grade
    ranked = {}
    for q, doc, score in run.itertuples(index=False):
        ranked.setdefault(q, {})[doc] = score
    if missing_queries == "zero":
        ranked.update({q: {} for q in judged if q not in ranked})
    expected = pytrec_eval.RelevanceEvaluator(judged, set(RUN_MEASURES.values()),
                                              relevance_level=level).evaluate(ranked)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_run(qrels, run, metrics=list(RUN_MEASURES), ties="trec_eval",
                                   missing_queries=missing_queries, relevance_level=level,
                                   average=None)  # fmt: skip
    assert sorted(results.query_ids) == sorted(expected)
    for name, key in RUN_MEASURES.items():
        for q, value in zip(results.query_ids, results[name]):
            if name in LOGGED:
                value = math.log(max(value, 1e-5))
            assert value == pytest.approx(expected[q][key], rel=1e-12, abs=1e-12), (key, q)


def test_judged_unjudged_and_rbp_residual_of_a_run():
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["a"] * 4, "doc_id": ["d1", "d2", "d3", "d4"],
                          "relevance": [1, 0, -1, 2]})  # fmt: skip
    run = pd.DataFrame({"query_id": ["a"] * 5, "doc_id": ["d1", "x", "d3", "d2", "y"],
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    # labels in rank order: 1, -1 (not judged), -2 (judged negative), 0, -1
    got = evaluate_run(qrels, run, metrics=["judged@2", "judged@4", "unjudged@10", "rbp",
                                                "rbp_resid", "bpref", "infap", "err@5"])  # fmt: skip
    p = 0.9
    assert got["judged@2"] == 0.5 and got["judged@4"] == 0.5 and got["unjudged@10"] == 0.3
    assert got["rbp"] == pytest.approx(0.1)
    assert got["rbp_resid"] == pytest.approx(p**5 + (1 - p) * (p + p**2 + p**4))
    # bpref: d1 relevant with no judged non-relevant above; d4 (relevant) not retrieved
    assert got["bpref"] == 0.5
    assert got["infap"] == 0.5
    assert got["err@5"] == pytest.approx(1 / 16)


# ---------------------------------------------- gains per relevance level
# pytrec_eval does not take trec_eval's level=gain parameters: the reference
# is the transcription of trec_eval's loops in tests/_reference.py.
GAIN_CHOICES = [
    {1: 3, 2: 9},  # trec_eval's example, without a gain less than 1 from another
    {0: 1, 1: -2},  # level 0 gains, a negative gain
    {3: 0, 2: 5},  # the top level gains nothing
    {0: -1.5, 1: 4.5, 2: 8.25, 3: 2},  # fractions, every level named
    {1: 0, 2: 0, 3: 0},  # no positive gain: Rndcg is undefined where there is relevance
]


def _trec_ranked_and_judged(qrels, run):
    """Per query: labels in trec_eval's rank order (-1 not judged) and the judged labels."""
    judged = {}
    for q, doc, grade in qrels.itertuples(index=False):
        judged.setdefault(q, {})[doc] = grade
    ranked = {}
    for q, doc, score in sorted(run.itertuples(index=False), key=lambda r: (r[0], -r[2], r[1])):
        ranked.setdefault(q, []).append(judged.get(q, {}).get(doc, -1))
    return {q: (ranked.get(q, []), list(labels.values())) for q, labels in judged.items()}


@pytest.mark.parametrize("gains", GAIN_CHOICES)
@pytest.mark.parametrize("seed", range(4))
def test_gains_per_level_match_trec_eval_s_loops(seed, gains):
    qrels, run = random_qrels_and_run(seed)
    param = ",".join(f"{level}={gain}" for level, gain in gains.items())
    names = [f"{measure}.{param}" for measure in ("ndcg", "dcg", "G", "ndcg_rel", "Rndcg")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_run(qrels, run, metrics=names, ties="trec_eval",
                               missing_queries="zero", average=None)  # fmt: skip
    assert list(results.metrics) == [f"{n.split('.')[0]}_{param}" for n in names]
    lists = _trec_ranked_and_judged(qrels, run)
    assert sorted(results.query_ids) == sorted(lists)
    checked = 0
    for j, q in enumerate(results.query_ids):
        ranked, judged = lists[q]
        dcg, ideal = trec_ndcg_of(ranked, judged, gains)
        expected = [
            dcg / ideal if ideal > 0 else 0.0,
            dcg,
            trec_g_of(ranked, judged, gains),
            trec_ndcg_rel_of(ranked, judged, gains),
            trec_rndcg_of(ranked, judged, 1, gains),
        ]
        for name, value in zip(results.metrics, expected):
            got = results[name][j]
            if math.isnan(value):
                assert math.isnan(got), (name, q)
            else:
                assert got == pytest.approx(value, rel=1e-12, abs=1e-12), (name, q)
            checked += 1
    assert checked == 5 * len(lists)


def test_default_gains_named_give_the_plain_measures():
    qrels, run = random_qrels_and_run(1)
    plain = ["ndcg", "G", "ndcg_rel", "Rndcg"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named = evaluate_run(qrels, run, metrics=[f"{m}.1=1,2=2,3=3" for m in plain], average=None)
        default = evaluate_run(qrels, run, metrics=plain, average=None)
    for name, other in zip(named.metrics, default.metrics):
        np.testing.assert_array_equal(named[name], default[other])


def test_gains_less_than_1_apart_raise_for_runs_and_sort_correctly_elsewhere():
    """trec_eval's comparison casts the difference of two gains to an int: 3.5 and 3 'tie'."""
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["a"] * 4, "doc_id": ["d1", "d2", "d3", "d4"],
                          "relevance": [1, 3, 0, 2]})  # fmt: skip
    run = pd.DataFrame({"query_id": ["a"] * 4, "doc_id": ["d3", "d2", "d1", "d4"],
                        "score": [4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    for name in ["ndcg.1=3.5", "G.1=0.5", "Rndcg.1=4.25,2=4.75", "nDCG(gains={1: 3.5})"]:
        with pytest.raises(ValueError, match="less than 1 apart.*trec_eval compares gains"):
            evaluate_run(qrels, run, metrics=[name])
    assert evaluate_run(qrels, run, metrics=["ndcg.1=4.5,2=8"])["ndcg_1=4.5,2=8"] > 0
    # Without judgments there is no trec_eval order to follow: the ideal is sorted by gain.
    from sklearn.metrics import ndcg_score

    labels, scores = np.array([1, 3, 0, 2, 1]), np.array([4.0, 3.0, 2.0, 1.0, 0.5])
    gains = {0: 0.0, 1: 3.5, 2: 0.25, 3: 3.0}
    got = srm.evaluate(labels, scores, metrics="nDCG(gains={1: 3.5, 2: 0.25})")
    mapped = np.array([[gains[x] for x in labels]])
    assert got["nDCG(gains={1: 3.5, 2: 0.25})"] == pytest.approx(ndcg_score(mapped, [scores]))


def test_ir_measures_custom_gains_match_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_qrels_and_run(2)
    qrels = qrels[qrels["query_id"] != "q0"]
    nDCG = ir_measures.nDCG
    measures = [nDCG(gains={0: 0, 1: 3, 2: 1, 3: 7}) @ 5, nDCG(gains={1: 0, 2: -1, 3: 2})]
    ir_qrels = [ir_measures.Qrel(q, d, int(g)) for q, d, g in qrels.itertuples(index=False)]
    ir_run = [ir_measures.ScoredDoc(q, d, float(s)) for q, d, s in run.itertuples(index=False)]
    expected = {(m.query_id, str(m.measure)): m.value
                for m in ir_measures.iter_calc(measures, ir_qrels, ir_run)}  # fmt: skip
    names = [str(m) for m in measures]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_run(qrels, run, metrics=names, average=None)
    compared = 0
    for j, q in enumerate(results.query_ids):
        for name in names:
            if (q, name) in expected:
                assert results[name][j] == pytest.approx(expected[(q, name)], rel=1e-12, abs=1e-12)
                compared += 1
    assert compared >= 8


@pytest.mark.parametrize("gains", [(), ((1, 4.0), (2, 0.0)), ((0, 1.0), (3, -2.0))])
def test_rndcg_is_the_exact_expectation_over_tied_orders(gains):
    """Linear in the gains at fixed ranks: against every ordering of the tied documents."""
    labels = [2, 0, 1, 3, 1, 0, 3, 2, 1]
    scores = [5, 5, 5, 4, 3, 3, 3, 3, 1]  # blocks of 3 and 4 mixing every grade
    request = _request("rndcg", gains=gains) if gains else _request("rndcg")
    got = evaluate_requests([request], labels, scores)[request.name][0]
    expected = sum(
        p * trec_rndcg_of(ranked, labels, 1, dict(gains))
        for ranked, p in ranked_orderings(tuple(map(float, labels)), tuple(map(float, scores)),
                                          "average")
    )  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-12)
    for other in ("g", "ndcg_rel"):
        with pytest.raises(ValueError, match="ties='average' cannot be exact"):
            evaluate_requests([_request(other, gains=gains)], labels, scores)
    # Documents of equal gain tied: G and ndcg_rel are exact too.
    alike = [0, 0, 0, 3, 1, 1, 1, 1, 2]
    for other in ("g", "ndcg_rel"):
        got = evaluate_requests([_request(other)], alike, scores)[other][0]
        expected = {"g": trec_g_of, "ndcg_rel": trec_ndcg_rel_of}[other](
            sorted(alike[:3], reverse=True) + [3] + alike[4:8] + [2], alike
        )
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", ["g", "ndcg_rel", "rndcg", "nDCG(gains={1: 2})"])
def test_gains_beyond_float64_raise(name):
    """Gains per level are never scaled: sums beyond float64 are an error, not a NaN."""
    with pytest.raises(ValueError, match="add up beyond float64.*gain='linear'"):
        srm.evaluate([1100, 1022, 0], [3, 2, 1], metrics=name, gain="exponential")


def test_g_refuses_gains_whose_sum_swallows_the_2_of_its_logarithm():
    assert srm.evaluate([10, 9, 0], [3, 2, 1], metrics="g", gain="exponential")["g"] == 1.0
    with pytest.raises(ValueError, match="loses the 2 in float64"):
        srm.evaluate([60, 59, 0], [3, 2, 1], metrics="g", gain="exponential")
