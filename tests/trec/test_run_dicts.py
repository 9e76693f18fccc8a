"""evaluate_run on pytrec_eval's and BEIR's dicts: ``{query_id: {doc_id: value}}``.

A dict gives the numbers of the file ``write_trec_run`` writes from it, read
back: every measure of trec_eval's sets, per query and bit for bit, under
every tie mode, both trec_eval versions and trec_eval's options; and
pytrec_eval's own numbers on BEIR-shaped data. Errors name the query and the
document.
"""

import warnings

import numpy as np
import pytest
from _reference import trec_dict
from test_trec_evaluate import make_case

pd = pytest.importorskip("pandas")

from sklearn_rank_metrics.trec import evaluate_run, write_trec_run  # noqa: E402
from sklearn_rank_metrics.trec._dicts import flat_pairs, join_nested, nested_frame  # noqa: E402
from sklearn_rank_metrics.trec._format import QRELS, RUN  # noqa: E402
from sklearn_rank_metrics.trec._frames import join_frames  # noqa: E402

# The measures ties="average" computes exactly on any run (those of
# trec_eval's all_trec with a closed form under ties).
AVERAGE_MEASURES = [
    "map", "gm_map", "Rprec", "recip_rank", "P.5,10,30", "recall.5,100", "ndcg",
    "ndcg_cut.3,10", "map_cut.5,10", "success.1,5", "Rndcg", "set_F", "set_map",
    "rbp_p=0.9", "utility", "num_rel_ret", "Rprec_mult_0.60", "relative_P.5", "unj.5",
]  # fmt: skip
# The options of trec_eval evaluate_run takes, beside ties and the version.
OPTIONS = [
    {},
    {"max_docs": 5},
    {"judged_only": True},
    {"missing_queries": "zero"},
    {"relevance_level": 2},
]


def run_dict(seed, **case):
    """``(qrels, run)`` dicts with ties, unjudged and negative documents, one-sided queries."""
    run, qrels = make_case(seed, ties=True, **case)
    return trec_dict(qrels, "relevance"), trec_dict(run, "score")


def write_files(tmp_path, qrels, run):
    """The qrels file of a qrels dict, and the run file ``write_trec_run`` writes of a run dict."""
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    lines = [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]
    qrels_path.write_text("".join(lines))
    write_trec_run(
        run_path,
        [q for q, docs in run.items() for _ in docs],
        [d for docs in run.values() for d in docs],
        [s for docs in run.values() for s in docs.values()],
    )
    return qrels_path, run_path


def evaluated(qrels, run, **options):
    """``(results, warning messages)`` of evaluate_run per query."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluate_run(qrels, run, average=None, **options)
    return results, sorted(str(w.message) for w in caught)


def assert_same_results(results, expected):
    """The same queries, measures and values, bit for bit (NaN where NaN)."""
    np.testing.assert_array_equal(results.query_ids, expected.query_ids)
    assert results.metrics == expected.metrics
    for measure in expected.metrics:
        np.testing.assert_array_equal(results[measure], expected[measure], err_msg=measure)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("trec_eval_version", ["10", "9"])
@pytest.mark.parametrize("ties", ["trec_eval", "average", "first", "optimistic", "pessimistic"])
def test_dicts_give_the_numbers_of_the_files_written_from_them(
    tmp_path, ties, trec_eval_version, options
):  # fmt: skip
    qrels, run = run_dict(OPTIONS.index(options), n_queries=15)
    metrics = AVERAGE_MEASURES if ties == "average" else "all_trec"
    options = dict(options, ties=ties, trec_eval_version=trec_eval_version, metrics=metrics)
    from_dicts, messages = evaluated(qrels, run, **options)
    from_files, file_messages = evaluated(*write_files(tmp_path, qrels, run), **options)
    assert_same_results(from_dicts, from_files)
    assert messages == file_messages
    # The means too: trec_eval's arithmetic on the same values.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = evaluate_run(qrels, run, **options)
        assert means == pytest.approx(evaluate_run(*write_files(tmp_path, qrels, run), **options),
                                      rel=0, abs=0, nan_ok=True)  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_equal_scores_keep_the_dicts_order_under_first(seed):
    # trec_eval breaks the tie by document id; "first" keeps the dict's order,
    # as write_trec_run writes it (by score, equal scores in input order).
    qrels = {"q": {"a": 1, "c": 2}}
    docs = ["a", "b", "c", "d"]
    np.random.default_rng(seed).shuffle(docs)
    run = {"q": dict.fromkeys(docs, 1.0)}
    results = evaluate_run(qrels, run, metrics=["mrr", "ndcg@2"], ties="first", average=None)
    first = docs.index("a") if docs.index("a") < docs.index("c") else docs.index("c")
    assert results["mrr"][0] == 1 / (first + 1)
    trec = evaluate_run(qrels, run, metrics=["mrr"], ties="trec_eval")
    assert trec["mrr"] == 1 / 2  # d, c, b, a: c second


def test_integer_keys_are_the_ids_their_digits_write(tmp_path):
    qrels = {1: {10: 1, 11: 0, 12: 2}, 2: {20: 1}, 30: {7: 1}}
    run = {1: {10: 0.5, 12: 0.5, 13: 0.9}, 2: {20: 3, 21: 4}, 4: {1: 1.0}}
    text = ({str(q): {str(d): v for d, v in docs.items()} for q, docs in given.items()}
            for given in (qrels, run))  # fmt: skip
    options = {"metrics": ["map", "ndcg@10", "mrr", "recall@100"], "missing_queries": "zero"}
    expected, messages = evaluated(*write_files(tmp_path, qrels, run), **options)
    for given in [(qrels, run), tuple(text)]:
        results, given_messages = evaluated(*given, **options)
        assert_same_results(results, expected)
        assert given_messages == messages
    # NumPy's integers and floats, as a model's outputs hold them: float32
    # scores are the float64 numbers they hold, as write_trec_run writes them.
    numpy_run = {np.int64(q): {np.int32(d): np.float32(s + 0.1) for d, s in docs.items()}
                 for q, docs in run.items()}  # fmt: skip
    text_run = {str(q): {str(d): s for d, s in docs.items()} for q, docs in numpy_run.items()}
    expected = evaluated(*write_files(tmp_path, qrels, text_run), **options)[0]
    assert_same_results(evaluated(qrels, numpy_run, **options)[0], expected)
    assert_same_results(evaluated(qrels, text_run, **options)[0], expected)


@pytest.mark.parametrize("seed", range(2))
def test_a_dict_beside_a_dataframe_or_a_file(tmp_path, seed):
    run_frame, qrels_frame = make_case(seed)
    qrels, run = trec_dict(qrels_frame, "relevance"), trec_dict(run_frame, "score")
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    metrics = {"metrics": "official"}
    expected = evaluated(qrels_path, run_path, **metrics)
    for given in [(qrels_frame, run), (qrels, run_frame), (qrels_path, run), (qrels, run_path)]:
        results, messages = evaluated(*given, **metrics)
        assert_same_results(results, expected[0])
        assert messages == expected[1]


@pytest.mark.parametrize("seed", range(3))
def test_the_join_on_arrow_arrays_is_the_dataframe_join(seed):
    pytest.importorskip("pyarrow")
    qrels, run = run_dict(seed)
    qrels = dict(reversed(qrels.items()))  # the qrels' queries in another order than the run's
    qrels_pairs, run_pairs = flat_pairs(qrels, QRELS), flat_pairs(run, RUN)
    on_arrow = join_nested(qrels_pairs, run_pairs)
    on_frames = join_frames(pd, qrels_pairs, run_pairs)
    for field in ["query_ids", "run_queries", "labels", "scores"]:
        np.testing.assert_array_equal(getattr(on_arrow, field), getattr(on_frames, field))
    # The judgments, which the Arrow join puts in the run's order of queries.
    joins = (on_arrow, on_frames)
    judged = [np.lexsort((joined.grades, joined.judged_queries)) for joined in joins]
    for field in ["judged_queries", "grades"]:
        arrow_values, frame_values = (getattr(joined, field)[order]
                                      for joined, order in zip(joins, judged))
        np.testing.assert_array_equal(arrow_values, frame_values)
    rows = np.arange(on_arrow.run_queries.shape[0])[::-1]
    np.testing.assert_array_equal(on_arrow.doc_ids(rows), on_frames.doc_ids(rows))
    frame = nested_frame(pd, run_pairs, RUN)
    assert list(frame.columns) == ["query_id", "doc_id", "score"]
    assert len(frame) == sum(map(len, run.values()))


def test_integer_scores_rank_exactly_as_a_dataframes():
    # Every score an integer: int64, as a DataFrame's (beyond 2**53 too).
    big = 2**60
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": big, "b": big + 1}}
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [big, big + 1]})
    for ties in ["first", "average"]:
        expected = evaluate_run(qrels, frame, metrics=["mrr"], ties=ties)
        assert evaluate_run(qrels, run, metrics=["mrr"], ties=ties) == expected == {"mrr": 0.5}
    with pytest.raises(ValueError, match="the scores 1152921504606846976 and"):
        evaluate_run(qrels, run, metrics=["mrr"])


def test_the_curve_display_takes_dicts(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from sklearn_rank_metrics import RankingCurveDisplay

    qrels, run = run_dict(0)
    options = {"metric": "ndcg", "k_max": 10, "ties": "trec_eval"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_dicts = RankingCurveDisplay.from_run(qrels, run, **options)
        from_files = RankingCurveDisplay.from_run(*write_files(tmp_path, qrels, run), **options)
    np.testing.assert_array_equal(from_dicts.values_, from_files.values_)


def test_beir_shaped_dicts_match_pytrec_eval():
    # BEIR's form: string ids, graded qrels with zeros, dense-retrieval scores
    # (float32 values, some equal), queries judged but not retrieved and back.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    corpus = [f"doc{i}" for i in range(5000)]
    qrels, run = {}, {}
    for q in range(120):
        docs = rng.choice(corpus, 130, replace=False)
        scores = np.round(rng.normal(size=100), 2).astype(np.float32)  # ties
        if q % 10:
            run[f"q{q}"] = dict(zip(docs[:100].tolist(), scores.tolist()))
        judged = docs[rng.integers(0, 130, rng.integers(1, 6))] if q % 13 else docs[120:]
        if q % 7:
            qrels[f"q{q}"] = {str(d): int(rng.integers(0, 3)) for d in judged}
    names = {"ndcg@10": "ndcg_cut_10", "recall@100": "recall_100", "map@10": "map_cut_10",
             "mrr": "recip_rank"}  # fmt: skip
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.10", "recall.100", "map_cut.10", "recip_rank"}
    ).evaluate(run)
    with pytest.warns(UserWarning):  # queries on one side only
        results = evaluate_run(qrels, run, metrics=list(names), trec_eval_version="9",
                               average=None)  # fmt: skip
    assert list(results.query_ids) == sorted(reference)
    for measure, name in names.items():
        expected = [reference[q][name] for q in results.query_ids]
        np.testing.assert_allclose(results[measure], expected, rtol=1e-12, atol=1e-15)


_PAIR = r"the pair \(query_id='q1', doc_id='d1'\)"


@pytest.mark.parametrize("run, error, message", [
    ({"q1": {"d1": True}}, TypeError, _PAIR + ": the score True is a bool, not a number"),
    ({"q1": {"d1": np.bool_(False)}}, TypeError, _PAIR + ": the score False is a bool"),
    ({"q1": {"d1": None}}, TypeError, _PAIR + ": the score None is not a number"),
    ({"q1": {"d2": 1.0, "d1": "0.5"}}, TypeError, _PAIR + ": the score '0.5' is not a number"),
    ({"q1": {"d1": float("nan")}}, ValueError, _PAIR + ": the score is NaN"),
    ({"q1": {"d1": -np.inf}}, ValueError, _PAIR + ": the score '-inf' is not finite"),
    ({"q1": {"d1": -(2**70)}}, ValueError, _PAIR + ": the score -1180591620717411303424 is "
                                           "beyond int64; give it as a float"),
    ({"q1": [("d1", 1.0)]}, TypeError, "maps query_id='q1' to a list, not a dict"),
    ({"q0": {"d": 1.0}, "q1": {}}, ValueError, "maps query_id='q1' to an empty dict.*"
                                               "missing_queries='zero'"),
    ({None: {"d1": 1.0}}, ValueError, r"has no query_id in the pair \(query_id=None"),
    ({"q1": {float("nan"): 1.0}}, ValueError, r"has no doc_id in the pair \(query_id='q1', "
                                              "doc_id=nan"),
    ({1: {"d1": 1.0}, "1": {"d1": 2.0}}, ValueError, r"appears 2 times in the run.*1 and '1'"),
])  # fmt: skip
def test_malformed_run_dicts_raise_naming_the_query_and_the_document(run, error, message):
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(error, match=r"the run dict.*" + message):
        evaluate_run(qrels, run, metrics=["map"])


@pytest.mark.parametrize("qrels, error, message", [
    ({"q1": {"d1": 1.5}}, ValueError, _PAIR + ": the relevance '1.5' is not an integer"),
    ({"q1": {"d1": True}}, TypeError, _PAIR + ": the relevance True is a bool"),
    ({"q1": {"d1": "1"}}, TypeError, _PAIR + ": the relevance '1' is not a number"),
    ({"q1": {}}, ValueError, "maps query_id='q1' to an empty dict"),
    ({"q1": 1}, TypeError, "maps query_id='q1' to a int, not a dict"),
])  # fmt: skip
def test_malformed_qrels_dicts_raise_naming_the_query_and_the_document(qrels, error, message):
    with pytest.raises(error, match=r"the qrels dict.*" + message):
        evaluate_run(qrels, {"q1": {"d1": 1.0}}, metrics=["map"])


def test_whole_float_and_negative_grades_are_a_files_grades(tmp_path):
    qrels = {"q": {"a": 2.0, "b": -1, "c": 1}}
    run = {"q": {"a": 0.1, "b": 0.9, "x": 0.5}}
    expected = evaluated(*write_files(tmp_path, qrels, run), metrics="official")[0]
    assert_same_results(evaluated(qrels, run, metrics="official")[0], expected)


def test_empty_run_dict_is_an_empty_run():
    qrels = {"q1": {"d1": 1}}
    empty = pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    with pytest.raises(ValueError, match="no query of the run has relevance judgments"):
        evaluate_run(qrels, {}, metrics=["map"])
    expected = evaluate_run(qrels, empty, metrics=["map"], missing_queries="zero")
    assert evaluate_run(qrels, {}, metrics=["map"], missing_queries="zero") == expected


def test_other_inputs_name_every_form():
    with pytest.raises(TypeError, match=r"a path, a pandas DataFrame or a dict "
                                        r"\{query_id: \{doc_id: score\}\}, got list"):  # fmt: skip
        evaluate_run({"q": {"d": 1}}, [("q", "d", 1.0)], metrics=["map"])
