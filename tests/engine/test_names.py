"""Measure names: the package's, ir_measures' and trec_eval's syntax resolve to the same measures.

ir_measures itself is the reference for its syntax and for trec_eval's
names (``ir_measures.parse_measure`` and ``parse_trec_measure``, where it
installs): each name must give the definition, cutoff, relevance level and
parameters that ir_measures reads from it.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank_metrics import evaluate, make_rank_scorer, make_rank_scorers
from sklearn_rank_metrics._engine.spec import parse_name, parse_names
from sklearn_rank_metrics._engine.spec._trec_names import TREC_SETS

# name -> (definition, k, level, options)
SPECS = {
    # the package's names, any case
    "ndcg@10": ("ndcg", 10, None, ()),
    "NDCG@10": ("ndcg", 10, None, ()),
    "map": ("map", None, None, ()),
    "hit_rate@5": ("hit_rate", 5, None, ()),
    "hr@3": ("hit_rate", 3, None, ()),
    "recall_cap@5": ("recall_cap", 5, None, ()),
    # ir_measures
    "nDCG@10": ("ndcg", 10, None, ()),
    "P@5": ("precision", 5, None, ()),
    "R@100": ("recall", 100, None, ()),
    "AP": ("map", None, None, ()),
    "AP@100": ("map", 100, None, ()),
    "MAP@100": ("map", 100, None, ()),
    "RR": ("mrr", None, None, ()),
    "RR@10": ("mrr", 10, None, ()),
    "P(rel=2)@5": ("precision", 5, 2, ()),
    "P(cutoff=5)": ("precision", 5, None, ()),
    "nDCG(dcg='exp-log2')@10": ("ndcg", 10, None, (("gain", "exponential"),)),
    "nDCG(dcg='log2')@10": ("ndcg", 10, None, ()),
    "Success@10": ("hit_rate", 10, None, ()),
    "Judged@10": ("judged", 10, None, ()),
    "Bpref": ("bpref", None, None, ()),
    "ERR@20": ("err", 20, None, ()),
    "RBP": ("rbp", None, None, (("p", 0.8),)),
    "RBP(p=0.9)": ("rbp", None, None, (("p", 0.9),)),
    "RBP(p=0.8,rel=2)": ("rbp", None, 2, (("p", 0.8),)),
    "infAP": ("infap", None, None, ()),
    "NumRelRet": ("num_rel_ret", None, None, ()),
    "NumRet": ("num_ret", None, None, ()),
    "NumRet(rel=2)": ("num_rel_ret", None, 2, ()),
    "NumRel": ("num_rel", None, None, ()),
    "NumQ": ("num_q", None, None, ()),
    "IPrec@0.3": ("iprec_at_recall", None, None, (("recall", 0.3),)),
    "Rprec": ("r_precision", None, None, ()),
    "SetP": ("precision", None, None, ()),
    "SetP(relative=True)": ("recall_cap", None, None, ()),
    "SetRelP": ("recall_cap", None, None, ()),
    "SetR": ("recall", None, None, ()),
    "SetF": ("f1", None, None, ()),
    "SetAP": ("set_map", None, None, ()),
    "success@10": ("hit_rate", 10, None, ()),
    # trec_eval
    "ndcg_cut_10": ("ndcg", 10, None, ()),
    "P_5": ("precision", 5, None, ()),
    "recall_100": ("recall", 100, None, ()),
    "map_cut_100": ("map", 100, None, ()),
    "recip_rank": ("mrr", None, None, ()),
    "success_10": ("hit_rate", 10, None, ()),
    "iprec_at_recall_0.30": ("iprec_at_recall", None, None, (("recall", 0.3),)),
    "Rprec_mult_0.20": ("rprec_mult", None, None, (("multiplier", 0.2),)),
    "11pt_avg": ("iprec_11pt_avg", None, None, ()),
    "set_P": ("precision", None, None, ()),
    "set_recall": ("recall", None, None, ()),
    "set_F": ("f1", None, None, ()),
    "set_F_1": ("f1", None, None, ()),
    "unj_10": ("unjudged", 10, None, ()),
    "utility_1,-2,0,0": ("utility", None, None, (("coefficients", (1.0, -2.0, 0.0, 0.0)),)),
    "set_map": ("set_map", None, None, ()),
    "set_relative_P": ("recall_cap", None, None, ()),
    "relative_P_5": ("recall_cap", 5, None, ()),
    "num_q": ("num_q", None, None, ()),
    "num_rel_ret": ("num_rel_ret", None, None, ()),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", None, None, ()),
    "gm_map": ("gm_map", None, None, ()),
    "gm_bpref": ("gm_bpref", None, None, ()),
    "bpref": ("bpref", None, None, ()),
    "binG": ("bing", None, None, ()),
    "G": ("g", None, None, ()),
    "ndcg": ("ndcg", None, None, ()),
    "ndcg_rel": ("ndcg_rel", None, None, ()),
    "Rndcg": ("rndcg", None, None, ()),
    "utility": ("utility", None, None, ()),
    "rbp_p=0.8": ("rbp", None, None, (("gains", "trec_eval"), ("p", 0.8))),
    "rbp_resid_p=0.95": ("rbp_resid", None, None, (("p", 0.95),)),
    "NDCG_CUT_10": ("ndcg", 10, None, ()),
    # gains per relevance level: trec_eval's level=gain pairs, ir_measures' gains
    "ndcg_1=3": ("ndcg", None, None, (("gains", ((1, 3.0),)),)),
    "G_2=9,1=3.5": ("g", None, None, (("gains", ((1, 3.5), (2, 9.0))),)),
    "Rndcg_0=1,1=-2": ("rndcg", None, None, (("gains", ((0, 1.0), (1, -2.0))),)),
    "ndcg_rel_4=0": ("ndcg_rel", None, None, (("gains", ((4, 0.0),)),)),
    "dcg_1=2": ("dcg", None, None, (("gains", ((1, 2.0),)),)),
    "nDCG(gains={0: 0, 1: 1, 2: 3})@10": ("ndcg", 10, None, (("gains", ((0, 0), (1, 1), (2, 3))),)),
    "normalized_gain": ("g", None, None, ()),
}


@pytest.mark.parametrize("name", list(SPECS))
def test_name_gives_its_spec(name):
    spec = parse_name(name)
    assert spec.name == name  # results carry the caller's string
    assert (spec.definition, spec.k, spec.level, spec.options) == SPECS[name]


# ir_measures' measure name -> the package definition, for the reference check.
IR_DEFINITIONS = {
    "nDCG": "ndcg", "P": "precision", "R": "recall", "AP": "map", "RR": "mrr",
    "Success": "hit_rate", "Judged": "judged", "Bpref": "bpref", "ERR": "err", "RBP": "rbp",
    "infAP": "infap", "NumRet": "num_ret", "NumRel": "num_rel", "NumQ": "num_q",
    "IPrec": "iprec_at_recall", "Rprec": "r_precision", "SetP": "precision", "SetR": "recall",
    "SetF": "f1", "SetAP": "set_map",
}  # fmt: skip


def _from_ir_measures(measure):
    """(definition, k, level, options) of an ir_measures measure object."""
    params = dict(measure.params)
    definition = IR_DEFINITIONS[measure.NAME]
    options = {}
    if measure.NAME == "NumRet" and "rel" in params:
        definition = "num_rel_ret"
    if params.get("relative"):
        definition = "recall_cap"
    if measure.NAME == "IPrec":
        options["recall"] = float(params["recall"])
    if measure.NAME == "RBP":
        options["p"] = float(params.get("p", 0.8))
    if "beta" in params and params["beta"] != 1:
        options["beta"] = float(params["beta"])
    if params.get("gains"):
        # ir_measures maps a negative gain to an unjudged document: gain 0
        options["gains"] = tuple(sorted((k, max(v, 0)) for k, v in params["gains"].items()))
    if params.get("dcg") == "exp-log2":
        options["gain"] = "exponential"
    level = params.get("rel")
    if level == 1:
        level = None  # ir_measures' default, the call's level here
    return definition, params.get("cutoff"), level, tuple(sorted(options.items()))


@pytest.mark.parametrize(
    "name",
    [n for n in SPECS if (m := re.fullmatch(r"([A-Za-z]+)(\(.*\))?(@.*)?", n))
     and m.group(1) in {*IR_DEFINITIONS, "MAP", "SetRelP", "NumRelRet", "NDCG"}],
)
def test_ir_measures_reads_the_same_measure(name):
    ir_measures = pytest.importorskip("ir_measures")
    spec = parse_name(name)
    expected = _from_ir_measures(ir_measures.parse_measure(name))
    level = None if spec.level == 1 else spec.level
    if name.startswith("NumRet("):
        level = spec.level
    assert (spec.definition, spec.k, level, spec.options) == expected


@pytest.mark.parametrize(
    "name",
    ["ndcg_cut_10", "P_5", "recall_100", "map_cut_100", "recip_rank", "success_10", "Rprec",
     "iprec_at_recall_0.30", "set_P", "set_recall", "set_map", "num_q", "num_rel", "num_ret",
     "num_rel_ret", "bpref", "infAP", "map", "set_relative_P"],
)  # fmt: skip
def test_trec_eval_names_read_as_ir_measures_reads_them(name):
    ir_measures = pytest.importorskip("ir_measures")
    (measure,) = ir_measures.parse_trec_measure(name)
    spec = parse_name(name)
    expected = _from_ir_measures(measure)
    assert (spec.definition, spec.k, spec.level, spec.options) == expected


def test_trec_eval_families_and_sets_expand_in_trec_eval_order():
    assert [s.name for s in parse_names(["P.10,5"])] == ["P_5", "P_10"]
    assert [s.k for s in parse_names("ndcg_cut.20,5")] == [5, 20]
    assert [s.name for s in parse_names(["iprec_at_recall.0.5"])] == ["iprec_at_recall_0.50"]
    names = [s.name for s in parse_names(["official"])]
    assert names == [
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", *[f"iprec_at_recall_{r / 10:.2f}" for r in range(11)],
        *[f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)],
    ]  # fmt: skip
    with pytest.warns(UserWarning, match="left out trec_eval.s relstring"):
        all_trec = parse_names(["all_trec"])
    assert {s.name for s in all_trec} >= set(names)
    assert TREC_SETS["official"][0] == "runid"


@pytest.mark.parametrize(
    "name, message",
    [
        ("hits@10", "Did you mean 'hit_rate'"),
        ("hit@5", "Did you mean 'hit_rate'"),
        ("mean_reciprocal_rank", "Did you mean 'mrr'"),
        ("precision_at_k", "Did you mean 'precision'"),
        ("precision_at_10", "Did you mean 'precision'"),
        ("avg_precision", "Did you mean 'map'"),
        ("mean_average_precision@10", "Did you mean 'map'"),
        ("R", "Did you mean 'recall'"),
        ("ndgc@10", "Did you mean 'ndcg'"),
        ("ndcg_5", "Did you mean 'ndcg'"),
        ("expected_reciprocal_rank", "Did you mean 'err'"),
        ("zzz", "Valid names: .*ndcg"),
        ("nDCG(dcg='exp')@10", "dcg='exp'.*'log2', 'exp-log2'"),
        ("nDCG(gains=[1, 3])@10", "gains in .* must be a dict of relevance grade to gain"),
        ("nDCG(gains={1: 'a'})@10", "must be a dict"),
        ("P(judged_only=True)@5", "judged_only=True .* not available"),
        ("P(foo=1)@5", "unknown parameter 'foo'"),
        ("P(rel=2@5", "unknown metric"),
        ("P(1)@5", "parameters must be named"),
        ("P@x", "the cutoff in 'P@x' must be a positive int"),
        ("P_0", "the cutoff in 'P_0' must be a positive int"),
        ("Bpref@10", "takes no @"),
        ("relstring", "'relstring' is not offered"),
        ("P_avgjg", "judgment groups"),
        ("ndcg_cut", "family of measures: name one, e.g. 'ndcg_cut_10'"),
        ("ndcg_p=3", "unknown parameter.*'p'.*gains per relevance level, level=gain"),
        ("rbp_q=0.5", "unknown parameter"),
        ("set_F_0.5", "beta=1"),
        ("SetF(beta=0.5)", "beta=0.5 .* not available"),
        ("11pt_avg_0.2,0.5,0.8", "the 11 levels"),
        ("r_precision@5", "takes no @k"),
    ],
)
def test_bad_names_say_what_is_meant(name, message):
    with pytest.raises(ValueError, match=message):
        parse_name(name)


def test_names_of_every_syntax_give_the_same_values():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 4, 60)
    y_score = rng.random(60)
    qid = np.repeat(np.arange(6), 10)
    groups = [
        ["precision@5", "P@5", "P_5", "p@5", "Precision@5", "P(cutoff=5)"],
        ["ndcg_cut_5", "nDCG@5", "ndcg@5", "NDCG@5"], ["recip_rank", "RR", "mrr", "MRR"],
        ["AP@5", "map_cut_5", "map@5"], ["R@5", "recall_5", "recall@5", "Recall@5"],
        ["Success@5", "success_5", "hit_rate@5"], ["Rprec", "r_precision", "RPrec"],
        ["set_P", "SetP", "precision"], ["SetF", "set_F", "f1"],
        ["relative_P_5", "recall_cap@5"], ["SetRelP", "set_relative_P", "recall_cap"],
    ]  # fmt: skip
    names = [name for group in groups for name in group]
    values = evaluate(y_true, y_score, qid=qid, metrics=names)
    assert list(values) == names
    for group in groups:
        assert len({values[name] for name in group}) == 1, group


def test_relevance_level_and_gain_in_the_name():
    rng = np.random.default_rng(1)
    y_true, y_score, qid = rng.integers(0, 4, 50), rng.random(50), np.repeat(np.arange(5), 10)
    values = evaluate(y_true, y_score, qid=qid, metrics=["P(rel=2)@5", "P@5"])
    assert values["P(rel=2)@5"] == evaluate(
        y_true, y_score, qid=qid, metrics=["P@5"], relevance_level=2
    )["P@5"]
    assert values["P@5"] != values["P(rel=2)@5"]
    exponential = evaluate(y_true, y_score, qid=qid, metrics=["nDCG(dcg='exp-log2')@10"])
    assert exponential["nDCG(dcg='exp-log2')@10"] == evaluate(
        y_true, y_score, qid=qid, metrics=["ndcg@10"], gain="exponential"
    )["ndcg@10"]
    with pytest.raises(ValueError, match="separate calls"):
        evaluate(y_true, y_score, qid=qid, metrics=["nDCG(dcg='exp-log2')@10", "ndcg@10"])


def test_evaluate_expands_trec_eval_lists_and_refuses_repeats():
    y_true, y_score = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]
    values = evaluate(y_true, y_score, metrics=["P.2,1"])
    assert values == {"P_1": 1.0, "P_2": 0.5}
    with pytest.raises(ValueError, match="'P_1' more than once"):
        evaluate(y_true, y_score, metrics=["P.2,1", "P_1"])


def test_scorers_take_every_syntax():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(2)
    X, y = rng.random((40, 3)), rng.integers(0, 3, 40)
    qid = np.repeat(np.arange(4), 10)
    model = Ridge().fit(X, y)
    scores = model.predict(X)
    for name in ["P(rel=2)@5", "ndcg_cut_5", "nDCG@5", "RR@3"]:
        scorer = make_rank_scorer(name)
        expected = evaluate(y, scores, qid=qid, metrics=[name])[name]
        assert scorer(model, X, y, qid=qid) == pytest.approx(expected)
    assert make_rank_scorer("ndcg", k=5)(model, X, y, qid=qid) == pytest.approx(
        evaluate(y, scores, qid=qid, metrics=["ndcg@5"])["ndcg@5"]
    )
    scorers = make_rank_scorers(["P_5", "Success@3"], relevance_level=2)
    assert scorers["P_5"](model, X, y, qid=qid) == pytest.approx(
        evaluate(y, scores, qid=qid, metrics=["P_5"], relevance_level=2)["P_5"]
    )


def test_name_table_of_the_docs():
    """Every name of docs/metrics.md's name table gives its row's definition."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text("utf-8")
    table = text.split("<!-- name table")[1].split("<!-- end of name table")[0]
    rows = [line.split("|")[1:-1] for line in table.splitlines()[3:]]
    assert len(rows) >= 30
    for definition, *cells in rows:
        for name in re.findall(r"`([^`]+)`", "".join(cells)):
            name = re.sub(r"(@|_)k$", r"\g<1>10", name)
            assert parse_name(name).definition == definition.strip(), name


@pytest.mark.parametrize("name", ["R(rel=-1)@5", "AP(rel=-1)", "P(rel=-0.5)@2", "AP(rel=0)"])
def test_a_negative_or_zero_rel_is_refused_as_relevance_level_is(name):
    # rel=-1 would count unjudged documents (negative labels) as relevant: recall 1.75.
    with pytest.raises(ValueError, match=r"rel=-?0?\.?\d* is not valid; rel must be a finite"):
        evaluate([1, 0, 2], [3.0, 2.0, 1.0], metrics=[name])


@pytest.mark.parametrize("name", ["R(rel=-1)@5", "AP(rel=-1)", "NumRel(rel=-2)"])
def test_a_negative_rel_is_refused_in_a_run_evaluation(name):
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.trec import evaluate_run

    qrels = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "x", "y", "b"],
                        "score": [4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    with pytest.raises(ValueError, match=r"rel=-\d is not valid; rel must be a finite number >= 0"):
        evaluate_run(qrels, run, metrics=[name])
    assert evaluate_run(qrels, run, metrics=["AP(rel=0)"])["AP(rel=0)"] == pytest.approx(0.75)
