"""evaluate_run: a TREC run against its qrels, with trec_eval's conventions.

The reference is trec_eval itself (through pytrec_eval, where it installs) on
generated runs with string ids, judged documents the run missed, unjudged
and negatively judged retrieved documents, queries on one side only, graded
judgments and relevance levels; ``ties="average"`` is checked against the
mean over every order of the tied documents, each evaluated by trec_eval.
"""

import io
import itertools
import math
import os
import warnings

import numpy as np
import pytest
from _reference import trec_dict as _nested

pd = pytest.importorskip("pandas")

from sklearn_rank_metrics import evaluate  # noqa: E402
from sklearn_rank_metrics.trec import (  # noqa: E402
    UnevaluatedQueriesWarning,
    evaluate_run,
    read_trec_run,
    write_trec_run,
)
from sklearn_rank_metrics.trec._command import main  # noqa: E402

# Package name -> trec_eval's name, for measures both have.
TREC_NAMES = {
    "map": "map",
    "ndcg": "ndcg",
    "ndcg@10": "ndcg_cut_10",
    "ndcg@3": "ndcg_cut_3",
    "precision@5": "P_5",
    "precision@30": "P_30",
    "recall@10": "recall_10",
    "mrr": "recip_rank",
    "r_precision": "Rprec",
    "map@5": "map_cut_5",
    "hit_rate@5": "success_5",
}


def make_case(seed, *, n_queries=12, ties=False, grades=4, tie_values=4):
    """A run and qrels with every trec_eval situation, as DataFrames."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(n_queries):
        query = f"topic-{q:03d}" if q % 3 else f"Q{q}"
        pool = [f"doc{rng.integers(0, 10**6)}-{i}" for i in range(30)]
        retrieved = pool[: rng.integers(1, 25)]
        for doc in retrieved:
            score = rng.integers(0, tie_values) / 2 if ties else rng.random()
            run.append((query, doc, float(score)))
        # Judge part of the pool: retrieved or not, some negative (unjudged).
        for doc in rng.choice(pool, size=rng.integers(1, 20), replace=False):
            qrels.append((query, str(doc), int(rng.integers(-1, grades))))
    run.append(("no-judgments", "docX", 1.0))  # a run query without qrels
    qrels.append(("not-retrieved", "docY", 2))  # a judged query the run misses
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    return run, qrels


def trec_eval_values(run, qrels, measures, *, relevance_level=1, judged_only=False):
    """Per-query values from trec_eval (pytrec_eval), keyed by query then measure."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    wanted, families = set(), {}
    for measure in measures:
        family, _, cutoff = TREC_NAMES[measure].rpartition("_")
        if cutoff.isdigit():
            families.setdefault(family, set()).add(cutoff)
        else:
            wanted.add(TREC_NAMES[measure])
    wanted |= {f"{family}.{','.join(sorted(cutoffs))}" for family, cutoffs in families.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(
        _nested(qrels, "relevance"),
        wanted,
        relevance_level=int(relevance_level),
        judged_docs_only_flag=judged_only,
    )
    return evaluator.evaluate(_nested(run, "score"))


def assert_matches_trec_eval(results, reference, measures):
    assert list(results.query_ids) == sorted(reference)
    for measure in measures:
        expected = [reference[q][TREC_NAMES[measure]] for q in results.query_ids]
        np.testing.assert_allclose(results[measure], expected, rtol=1e-12, atol=1e-15)


MEASURES = list(TREC_NAMES)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("relevance_level", [1, 2])
def test_tie_free_run_matches_trec_eval(seed, relevance_level):
    run, qrels = make_case(seed)
    with pytest.warns(UnevaluatedQueriesWarning):
        results = evaluate_run(
            qrels, run, metrics=MEASURES, relevance_level=relevance_level, average=None
        )
    reference = trec_eval_values(run, qrels, MEASURES, relevance_level=relevance_level)
    assert_matches_trec_eval(results, reference, MEASURES)


@pytest.mark.parametrize("seed", range(3))
def test_judged_only_matches_trec_eval_J(seed):
    run, qrels = make_case(seed)
    with pytest.warns(UnevaluatedQueriesWarning):
        results = evaluate_run(qrels, run, metrics=MEASURES, judged_only=True, average=None)
    reference = trec_eval_values(run, qrels, MEASURES, judged_only=True)
    # trec_eval -J still evaluates a query whose retrieved documents are all unjudged.
    assert_matches_trec_eval(results, reference, MEASURES)


def test_judged_documents_the_run_missed_count_in_R_and_the_ideal_dcg():
    qrels = pd.DataFrame(
        {"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "relevance": [2, 1, 0, 1]}
    )
    run = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["b", "x", "c"],
                        "score": [3.0, 2.0, 1.0]})  # fmt: skip
    results = evaluate_run(qrels, run, metrics=["map", "recall@10", "ndcg", "r_precision"])
    # R = 3 (a, b, d); b is relevant at rank 1.
    assert results["map"] == pytest.approx(1 / 3)
    assert results["recall@10"] == pytest.approx(1 / 3)
    assert results["r_precision"] == pytest.approx(1 / 3)
    ideal = 2 + 1 / np.log2(3) + 1 / np.log2(4)
    assert results["ndcg"] == pytest.approx(1 / ideal)
    # The metric functions see only the retrieved documents: R = 1 there.
    in_list = evaluate([1, 0, 0], [3.0, 2.0, 1.0], metrics=["map", "ndcg"])
    assert in_list == {"map": 1.0, "ndcg": pytest.approx(1.0)}


def test_unjudged_and_negative_documents_are_not_relevant_at_level_zero():
    qrels = pd.DataFrame(
        {"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [0, -1, 1]}
    )
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["x", "b", "a", "c"],
                        "score": [4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    # Level 0: every judged document (a, c) is relevant; x is unjudged, b negative.
    results = evaluate_run(qrels, run, metrics=["precision@4", "map"], relevance_level=0)
    assert results["precision@4"] == pytest.approx(2 / 4)
    assert results["map"] == pytest.approx((1 / 3 + 2 / 4) / 2)


@pytest.mark.parametrize("seed", range(2))
def test_missing_queries_zero_matches_trec_eval_c(seed):
    run, qrels = make_case(seed)
    with pytest.warns(UnevaluatedQueriesWarning, match="no relevance judgments"):
        results = evaluate_run(qrels, run, metrics=MEASURES, missing_queries="zero", average=None)
    assert "not-retrieved" in results.query_ids
    missing = list(results.query_ids).index("not-retrieved")
    for measure in MEASURES:
        assert results[measure][missing] == 0.0
    # The other queries are trec_eval's, and the means count the empty ranking.
    reference = trec_eval_values(run, qrels, MEASURES)
    kept = np.array([q != "not-retrieved" for q in results.query_ids])
    for measure in MEASURES:
        expected = [reference[q][TREC_NAMES[measure]] for q in results.query_ids[kept]]
        np.testing.assert_allclose(results[measure][kept], expected, rtol=1e-12)
        assert results.mean(measure) == pytest.approx(np.sum(expected) / kept.shape[0])


def test_missing_queries_are_counted_in_warnings():
    run, qrels = make_case(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_run(qrels, run, metrics=["map"])
    messages = [str(w.message) for w in caught if w.category is UnevaluatedQueriesWarning]
    assert any("1 queries of the run have no relevance judgments" in m for m in messages)
    assert any("1 of the 13 judged queries have no retrieved document" in m for m in messages)


@pytest.mark.parametrize("max_docs", [1, 3, 10])
def test_max_docs_matches_trec_eval_M(max_docs):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = make_case(3, ties=True)
    with pytest.warns(UnevaluatedQueriesWarning):
        results = evaluate_run(
            qrels, run, metrics=["map", "precision@5", "ndcg"], ties="trec_eval",
            max_docs=max_docs, average=None,
        )  # fmt: skip
    # pytrec_eval has no -M: cut each query in trec_eval's order (score, then doc id, descending).
    kept = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    kept = kept.groupby("query_id").head(max_docs)
    evaluator = pytrec_eval.RelevanceEvaluator(_nested(qrels, "relevance"), {"map", "P.5", "ndcg"})
    reference = evaluator.evaluate(_nested(kept, "score"))
    for measure, name in [("map", "map"), ("precision@5", "P_5"), ("ndcg", "ndcg")]:
        expected = [reference[q][name] for q in results.query_ids]
        np.testing.assert_allclose(results[measure], expected, rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("layout", ["as generated", "ranked, queries in reverse id order"])
def test_trec_eval_ties_match_trec_eval_exactly(seed, layout):
    # A run ranked already (each query's lines in score order, as trec_eval
    # writes them) has its ties put in order in place, without a sort.
    run, qrels = make_case(seed, ties=True)
    if layout != "as generated":
        run = run.sort_values(["query_id", "score"], ascending=False, kind="stable")
    with pytest.warns(UnevaluatedQueriesWarning):
        results = evaluate_run(qrels, run, metrics=MEASURES, ties="trec_eval", average=None)
    reference = trec_eval_values(run, qrels, MEASURES)
    assert_matches_trec_eval(results, reference, MEASURES)


def _tie_orders(run):
    """Every run obtained by breaking each tie in one of its orders (distinct scores)."""
    groups = [list(group.index) for _, group in run.groupby(["query_id", "score"]) if len(group)]
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        scores = run["score"].to_numpy(dtype=float).copy()
        for order in orders:
            base = scores[order[0]]
            for step, row in enumerate(order):
                scores[row] = base + (len(order) - step) * 1e-3
        yield run.assign(score=scores)


@pytest.mark.parametrize("seed", range(3))
def test_average_ties_are_the_mean_over_every_order_of_trec_eval(seed):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 3,
                          "doc_id": ["a", "b", "c", "d", "z", "a", "e", "f"],
                          "relevance": rng.integers(-1, 3, size=8)})  # fmt: skip
    run = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 4,
                        "doc_id": ["a", "b", "c", "x", "d", "a", "e", "f", "g"],
                        "score": [2.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.5]})  # fmt: skip
    measures = ["map", "ndcg", "ndcg@3", "precision@5", "recall@10", "mrr", "r_precision"]
    results = evaluate_run(qrels, run, metrics=measures, ties="average", average=None)
    per_order = [
        trec_eval_values(broken, qrels, measures) for broken in _tie_orders(run)
    ]
    for measure in measures:
        expected = [
            np.mean([values[q][TREC_NAMES[measure]] for values in per_order])
            for q in results.query_ids
        ]
        np.testing.assert_allclose(results[measure], expected, rtol=1e-12, atol=1e-15)


def test_files_and_frames_give_the_same_numbers(tmp_path):
    run, qrels = make_case(1)
    run_path = tmp_path / "run.txt"
    write_trec_run(run_path, run["query_id"], run["doc_id"], run["score"], run_name="r")
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False))
    )
    with pytest.warns(UnevaluatedQueriesWarning):
        from_files = evaluate_run(qrels_path, run_path, metrics=MEASURES)
    with pytest.warns(UnevaluatedQueriesWarning):
        from_frames = evaluate_run(qrels, read_trec_run(run_path), metrics=MEASURES)
    assert from_files == from_frames


def test_errors_name_the_argument_and_the_fix():
    run, qrels = make_case(0)
    with pytest.raises(ValueError, match="no column 'score'"):
        evaluate_run(qrels, run.drop(columns="score"))
    with pytest.raises(ValueError, match="appears 2 times"):
        evaluate_run(qrels, pd.concat([run, run.iloc[:1]]))
    with pytest.raises(ValueError, match="no query of the run has relevance judgments"):
        evaluate_run(qrels.assign(query_id="other"), run)
    with pytest.raises(ValueError, match="missing_queries"):
        evaluate_run(qrels, run, missing_queries="all")
    with pytest.raises(ValueError, match="relevance_level"):
        evaluate_run(qrels, run, relevance_level=-1)
    with pytest.raises(ValueError, match="max_docs"):
        evaluate_run(qrels, run, max_docs=0)
    with pytest.raises(TypeError, match="a path, a pandas DataFrame or a dict"):
        evaluate_run(qrels, [("q", "d", 1.0)])


def _shuffled(frame, seed):
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def _sorted_run(run):
    """The run as most files hold it: grouped by query, scores descending."""
    return run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")


@pytest.mark.parametrize("seed", range(3))
def test_interleaved_and_grouped_runs_give_the_same_numbers(seed):
    # Grouped runs take codes from runs of equal query ids and cut -M without a
    # sort; interleaved ones are hashed and sorted: both must agree, per query.
    run, qrels = make_case(seed, ties=True)
    measures = ["map", "ndcg", "precision@5", "recall@10", "mrr"]
    outcomes = []
    layouts = [(_sorted_run(run), qrels), (_shuffled(run, seed), _shuffled(qrels, seed))]
    for frame_run, frame_qrels in layouts:
        for max_docs in (None, 3):
            with pytest.warns(UnevaluatedQueriesWarning):
                outcomes.append(evaluate_run(frame_qrels, frame_run, metrics=measures,
                                             max_docs=max_docs, average=None))  # fmt: skip
    for grouped, interleaved in [(outcomes[0], outcomes[2]), (outcomes[1], outcomes[3])]:
        assert list(grouped.query_ids) == list(interleaved.query_ids)
        for measure in measures:
            np.testing.assert_array_equal(grouped[measure], interleaved[measure])
    assert not np.array_equal(outcomes[0]["map"], outcomes[1]["map"])  # -M cut something


def test_numeric_ids_are_compared_as_text(tmp_path):
    # A DataFrame of integer ids meets a file whose ids look like numbers:
    # trec_eval compares ids as text, so 7 and "7" are the same query, "007" another.
    qrels = pd.DataFrame({"query_id": [7, 7, 10, 10], "doc_id": [1, 2, 1, 3],
                          "relevance": [1, 0, 2, 1]})  # fmt: skip
    run_path = tmp_path / "run.txt"
    run_path.write_text(
        "7 Q0 1 1 0.9 r\n7 Q0 2 2 0.8 r\n10 Q0 3 1 0.7 r\n10 Q0 9 2 0.6 r\n007 Q0 1 1 1.0 r\n"
    )
    with pytest.warns(UnevaluatedQueriesWarning, match="1 queries of the run"):
        results = evaluate_run(qrels, run_path, metrics=["map", "recall@10"], average=None)
    assert list(results.query_ids) == ["10", "7"]  # sorted as text, as trec_eval prints them
    np.testing.assert_allclose(results["map"], [0.5, 1.0])
    np.testing.assert_allclose(results["recall@10"], [0.5, 1.0])


def test_duplicates_in_files_name_the_file(tmp_path):
    qrels_path, run_path = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels_path.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n")
    run_path.write_text("q1 Q0 d1 1 2 r\nq2 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\nq1 Q0 d1 3 0 r\n")
    with pytest.raises(ValueError, match=r"r\.txt: the pair \(query_id='q1', doc_id='d1'\) "
                                         r"appears 2 times in the run"):  # fmt: skip
        evaluate_run(qrels_path, run_path)
    qrels_path.write_text("q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(ValueError, match=r"q\.txt: the pair .* appears 2 times in the qrels"):
        evaluate_run(qrels_path, run_path)


def test_trec_eval_ties_order_unicode_doc_ids_by_their_bytes():
    # trec_eval breaks ties by strcmp on the ids' bytes (UTF-8: code point
    # order), not by any locale or case-folded order.
    docs = ["a", "Z", "é", "e", "É", "ｚ", "\U0001f600", "z", "ä", "0"]
    grades = [1, 0, 2, 0, 1, 3, 0, 2, 1, 0]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": grades})
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": 1.0})
    measures = ["map", "ndcg@3", "precision@5", "mrr"]
    results = evaluate_run(qrels, run, metrics=measures, ties="trec_eval", average=None)
    # Reference: the documents by descending UTF-8 bytes, as distinct scores.
    order = sorted(range(len(docs)), key=lambda i: docs[i].encode("utf-8"), reverse=True)
    expected = evaluate(np.array(grades)[order], -np.arange(len(docs), dtype=float),
                        metrics=measures)  # fmt: skip
    for measure in measures:
        assert results[measure][0] == pytest.approx(expected[measure], rel=1e-12)
    reference = trec_eval_values(run, qrels, ["map", "ndcg@3", "precision@5", "mrr"])
    assert_matches_trec_eval(results, reference, measures)


def test_trec_eval_9_ties_compare_scores_in_single_precision():
    # trec_eval 9 keeps scores as C floats: 1 and 1 + 1e-12 tie there and are
    # ordered by document id, descending; so does ties="trec_eval" (and -M)
    # with trec_eval_version="9". trec_eval 10 reads doubles: nothing ties.
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"],
                          "relevance": [1, 0, 0, 1]})  # fmt: skip
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"],
                        "score": [1.0 + 1e-12, 1.0, 0.5 + 2e-13, 0.5]})  # fmt: skip
    measures = ["map", "mrr", "ndcg@3"]
    nine = {"ties": "trec_eval", "trec_eval_version": "9"}
    results = evaluate_run(qrels, run, metrics=measures, average=None, **nine)
    # trec_eval 9's ranking: b, a (tie at 1.0f), d, c (tie at 0.5f).
    assert results["mrr"][0] == 0.5
    assert results["map"][0] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert_matches_trec_eval(results, trec_eval_values(run, qrels, measures), measures)
    # -M keeps trec_eval 9's first documents: b only, whatever the tie mode.
    cut = evaluate_run(qrels, run, metrics=["precision@1"], max_docs=1, trec_eval_version="9")
    assert cut["precision@1"] == 0.0
    # trec_eval 10 ranks a, b, c, d: no tie in double precision.
    ten = evaluate_run(qrels, run, metrics=["mrr", "map"], ties="trec_eval")
    assert ten == {"mrr": 1.0, "map": pytest.approx((1 + 2 / 4) / 2)}
    assert evaluate_run(qrels, run, metrics=["precision@1"], max_docs=1)["precision@1"] == 1.0
    # The other tie modes rank by the float64 scores, where nothing ties.
    assert evaluate_run(qrels, run, metrics=["mrr"])["mrr"] == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_interpolated_precision_of_either_trec_eval_version(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = make_case(seed, n_queries=20)
    levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    names = [f"iprec_at_recall_{r:.2f}" for r in levels]
    reference = pytrec_eval.RelevanceEvaluator(
        _nested(qrels, "relevance"), {"iprec_at_recall"}
    ).evaluate(_nested(run, "score"))
    with pytest.warns(UnevaluatedQueriesWarning):
        nine = evaluate_run(qrels, run, metrics=names, trec_eval_version="9", average=None)
    with pytest.warns(UnevaluatedQueriesWarning):
        ten = evaluate_run(qrels, run, metrics=names, average=None)
    for name in names:
        expected = [reference[q][name] for q in nine.query_ids]
        np.testing.assert_allclose(nine[name], expected, rtol=1e-12)
    # trec_eval 10 rounds recall R to the nearest count: 0.1 R = 1.2 cuts at the
    # first relevant document there, at the second in trec_eval 9.
    assert any(not np.array_equal(nine[name], ten[name]) for name in names)


# DataFrames are checked as the file readers check lines: a grade that is not
# an integer, a missing id or a score that is not finite raises, naming the
# frame, the column and the pair, never a silent cast.


def _frames(*, relevance=(2, 0), score=(2.0, 1.0), run_ids=("q1", "q1"), qrels_ids=("q1", "q1"),
            run_docs=("d1", "d2"), qrels_docs=("d1", "d2")):  # fmt: skip
    qrels = pd.DataFrame({"query_id": list(qrels_ids), "doc_id": list(qrels_docs),
                          "relevance": relevance})  # fmt: skip
    run = pd.DataFrame({"query_id": list(run_ids), "doc_id": list(run_docs), "score": score})
    return qrels, run


@pytest.mark.parametrize(
    "relevance, message",
    [
        ([1.5, 0.0], r"the relevance '1\.5' is not an integer \(up to 2\*\*53\)"),
        ([np.nan, 1.0], "the relevance is NaN"),
        ([np.inf, 1.0], r"the relevance 'inf' is not finite"),
        ([2.0**60, 1.0], r"the relevance '1\.15\d*e\+18' is not an integer \(up to 2\*\*53\)"),
        (pd.array([pd.NA, 1], dtype="Int64"), "the relevance is missing"),
        (np.array([2**53 + 1, 1]), r"the relevance is beyond 2\*\*53 \(9007199254740993\)"),
        (pd.array([1.5, 1.0], dtype="Float64"), r"the relevance '1\.5' is not an integer"),
    ],
)
def test_frame_grades_are_checked_as_the_qrels_reader_checks_them(tmp_path, relevance, message):
    qrels, run = _frames(relevance=relevance)
    with pytest.raises(ValueError, match=r"the qrels DataFrame, the pair \(query_id='q1', "
                                         r"doc_id='d1'\): " + message):  # fmt: skip
        evaluate_run(qrels, run, metrics=["map"])
    if isinstance(relevance, list) and not np.isnan(relevance[0]):
        # The file reader refuses the same grade with the same words.
        path = tmp_path / "qrels.txt"
        path.write_text(f"q1 0 d1 {relevance[0]!r}\n")
        with pytest.raises(ValueError, match=message):
            evaluate_run(path, run, metrics=["map"])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool", "float32", "Int64"])
def test_frame_grades_of_any_integer_or_whole_float_dtype(dtype):
    qrels, run = _frames(relevance=pd.array([1, 0], dtype=dtype))
    assert evaluate_run(qrels, run, metrics=["map", "ndcg"]) == {"map": 1.0, "ndcg": 1.0}


@pytest.mark.parametrize("values", [["1", "0"], ["high", "low"], [b"1", b"0"]])
def test_frame_grades_that_are_not_numbers_raise(values):
    qrels, run = _frames(relevance=pd.Series(values, dtype=object))
    with pytest.raises(TypeError, match="the relevance column of the qrels DataFrame holds"):
        evaluate_run(qrels, run, metrics=["map"])


@pytest.mark.parametrize("frame", ["qrels", "run"])
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_ids_raise_naming_the_frame_and_the_column(frame, column, missing):
    # As text, a missing id became a query (or document) called "nan": under
    # missing_queries="zero" a judged query "nan" averaged in (MAP 1.0 -> 0.5).
    ids = {"query_id": ["q1", "q2"], "doc_id": ["d1", "d9"]}
    ids[column] = [ids[column][0], missing]
    names = ("run" if frame == "run" else "qrels") + ("_ids" if column == "query_id" else "_docs")
    qrels, run = _frames(**{names: ids[column]})
    with pytest.raises(ValueError, match=rf"the {frame} DataFrame has no {column} at row 1 "
                                         rf".*dropna\(subset=\['{column}'\]\)"):  # fmt: skip
        evaluate_run(qrels, run, metrics=["map"], missing_queries="zero")


@pytest.mark.parametrize("score, message", [
    ([np.nan, 1.0], "the score is NaN"),
    ([-np.inf, 1.0], "the score '-inf' is not finite"),
    (pd.array([None, 1.0], dtype="Float64"), "the score is missing"),
])  # fmt: skip
def test_run_scores_must_be_finite(score, message):
    qrels, run = _frames(score=score)
    with pytest.raises(ValueError, match=r"the run DataFrame, the pair \(query_id='q1', "
                                         r"doc_id='d1'\): " + message):  # fmt: skip
        evaluate_run(qrels, run, metrics=["map"])
    with pytest.raises(TypeError, match="the score column of the run DataFrame holds string"):
        evaluate_run(qrels, run.assign(score=pd.Series(["2", "1"], dtype=object)))


BIG = 2**53


@pytest.mark.parametrize("ties", ["first", "average", "optimistic"])
def test_int64_scores_beyond_2_53_rank_exactly(ties):
    # float64 rounds 2**53 + 1 to 2**53: the relevant d1 tied with d2 and
    # MRR fell from 1.0 to 0.75 ("average") or 0.5.
    qrels, run = _frames(relevance=[1, 0], run_docs=("d2", "d1"), qrels_docs=("d1", "d2"),
                         score=np.array([BIG, BIG + 1], dtype=np.int64))  # fmt: skip
    assert evaluate_run(qrels, run, metrics=["mrr", "map"], ties=ties) == {"mrr": 1.0, "map": 1.0}
    # Extremes of int64: descending order without overflow, also for max_docs.
    extremes = run.assign(score=np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]))
    assert evaluate_run(qrels, extremes, metrics=["mrr"], ties=ties, max_docs=1) == {"mrr": 1.0}


@pytest.mark.parametrize("version, low", [("10", BIG), ("9", 2**24)])
def test_int64_scores_trec_eval_would_round_together_raise(version, low):
    qrels, run = _frames(relevance=[1, 0], run_docs=("d2", "d1"), qrels_docs=("d1", "d2"),
                         score=np.array([low, low + 1], dtype=np.int64))  # fmt: skip
    with pytest.raises(ValueError, match=rf"the scores {low} and {low + 1} of query 'q1' differ, "
                                         rf"but trec_eval {version} reads"):  # fmt: skip
        evaluate_run(qrels, run, metrics=["mrr"], trec_eval_version=version)
    with pytest.raises(ValueError, match="differ, but trec_eval"):
        evaluate_run(qrels, run, metrics=["mrr"], ties="first", max_docs=5,
                     trec_eval_version=version)  # fmt: skip
    # In different queries they are no tie: trec_eval's order is theirs.
    qrels, run = _frames(relevance=[1, 1], run_ids=("q1", "q2"), qrels_ids=("q1", "q2"),
                         score=np.array([low, low + 1], dtype=np.int64))  # fmt: skip
    assert evaluate_run(qrels, run, metrics=["mrr"], trec_eval_version=version) == {"mrr": 1.0}


def test_int64_scores_trec_eval_ranks_as_their_doubles(seed=0):
    # Large integers that stay apart as doubles: trec_eval's order, exactly.
    run, qrels = make_case(seed, ties=True)
    as_int = run.assign(score=(run["score"] * 2).astype(np.int64) * 2**20 + 2**60)
    measures = ["map", "ndcg", "precision@5", "mrr"]
    with pytest.warns(UnevaluatedQueriesWarning):
        exact = evaluate_run(qrels, as_int, metrics=measures, average=None, max_docs=7)
    with pytest.warns(UnevaluatedQueriesWarning):
        doubles = evaluate_run(qrels, as_int.astype({"score": float}), metrics=measures,
                               average=None, max_docs=7)  # fmt: skip
    for measure in measures:
        np.testing.assert_array_equal(exact[measure], doubles[measure])


def test_messages_name_the_topic_ids_as_text():
    qrels, run = _frames(relevance=[1, 0], run_ids=("q1", "q1"), qrels_ids=("q1", "q1"),
                         score=[1.0, 1.0])  # fmt: skip
    # The tie error named "query 0", an internal code.
    with pytest.raises(ValueError, match=r"\(e\.g\. in query 'q1'\)"):
        evaluate_run(qrels, run, metrics=["bpref"], ties="average")
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["999"], "doc_id": ["d1"],
                                            "relevance": [1]})])  # fmt: skip
    run = pd.concat([run, pd.DataFrame({"query_id": ["777"], "doc_id": ["d1"], "score": [1.0]})])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_run(qrels, run, metrics=["map"])
    messages = " ".join(str(w.message) for w in caught)
    assert "(e.g. '999')" in messages and "(e.g. '777')" in messages
    assert "np." not in messages
    # Integer ids of a DataFrame, in the duplicate pair and a bad grade: 7, not np.int64(7).
    qrels = pd.DataFrame({"query_id": [7, 7], "doc_id": [1, 1], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": [7], "doc_id": [1], "score": [1.0]})
    with pytest.raises(ValueError, match=r"the pair \(query_id=7, doc_id=1\) appears 2 times"):
        evaluate_run(qrels, run)
    with pytest.raises(ValueError, match=r"the pair \(query_id=7, doc_id=1\): the relevance"):
        evaluate_run(qrels.iloc[:1].assign(relevance=0.5), run)


def test_default_ties_are_trec_eval_s_as_rank_eval_s(tmp_path):
    # The default was ties="average": map 0.3874 where rank-eval and trec_eval
    # print 0.3805, and metrics="official" raised on any run with ties (bpref).
    run, qrels = make_case(2, ties=True)
    with pytest.warns(UnevaluatedQueriesWarning):
        results = evaluate_run(qrels, run, metrics=MEASURES, average=None)
    reference = trec_eval_values(run, qrels, MEASURES)
    assert_matches_trec_eval(results, reference, MEASURES)
    with pytest.warns(UnevaluatedQueriesWarning):
        official = evaluate_run(qrels, run, metrics="official")
    assert official["bpref"] == official["bpref"]  # defined
    # The command prints the same numbers from the same files.
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    write_trec_run(run_path, run["query_id"], run["doc_id"], run["score"], run_name="r")
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    out = io.StringIO()
    assert main(["-m", "map", "-m", "bpref", str(qrels_path), str(run_path)], stdout=out) == 0
    printed = {line.split()[0]: line.split()[2] for line in out.getvalue().splitlines()}
    with pytest.warns(UnevaluatedQueriesWarning):
        means = evaluate_run(qrels_path, run_path, metrics=["map", "bpref"])
    assert printed["map"] == f"{means['map']:.4f}" and printed["bpref"] == f"{means['bpref']:.4f}"
    # Means added left to right, as trec_eval adds them: P_20 of these 8
    # queries is 0.50625 in decimal, 0.50625000000000001 in NumPy's pairwise
    # mean (printed 0.5063) and just below 0.50625 added in order (0.5062).
    qrels_lines, run_lines = [], []
    for q, hits in enumerate([4, 0, 11, 7, 19, 11, 16, 13]):
        for rank in range(20):
            run_lines.append(f"q{q} Q0 d{rank:02d} {rank + 1} {20 - rank} r\n")
            qrels_lines.append(f"q{q} 0 d{rank:02d} {int(rank < hits)}\n")
    qrels_path.write_text("".join(qrels_lines))
    run_path.write_text("".join(run_lines))
    out = io.StringIO()
    assert main(["-m", "P.20", str(qrels_path), str(run_path)], stdout=out) == 0
    assert out.getvalue() == "P_20                  \tall\t0.5062\n"
    assert f"{evaluate_run(qrels_path, run_path, metrics=['P_20'])['P_20']:.4f}" == "0.5062"


def _trec_eval_10_cases():
    import _trec10

    return _trec10, _trec10.read_goldens() if os.path.exists(_trec10.GOLDENS) else {}


def test_evaluate_run_means_are_trec_eval_10_s_all_lines(tmp_path):
    """On the recorded trec_eval 10 cases, every mean prints as trec_eval's ``all`` line.

    A mean trec_eval prints as ``-nan`` (a query's 0 / 0) is NaN. Left out:
    ``num_rel`` under ``-c``, where trec_eval's number comes from what its
    code leaves behind (the whole qrels, whatever ``-l``).
    """
    from sklearn_rank_metrics.trec._command import _parser, trec_columns

    _trec10, goldens = _trec_eval_10_cases()
    if not goldens:
        pytest.skip("no recorded trec_eval 10 output")
    compared = 0
    for number in sorted(goldens, key=int):
        qrels, run, arguments = _trec10.write_case(str(tmp_path), int(number))
        parsed = _parser().parse_args([*arguments, qrels, run])
        if parsed.n:
            continue  # no 'all' lines
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            means = evaluate_run(
                qrels, run, metrics=parsed.m, relevance_level=parsed.l, max_docs=parsed.M,
                missing_queries="zero" if parsed.c else "ignore", judged_only=parsed.J,
            )  # fmt: skip
        columns = trec_columns(parsed.m)[0]
        printed = {}
        for line in goldens[number]["stdout"].splitlines():
            name, query, value = line.split("\t")
            if query == "all":
                printed[name.strip()] = value
        for column in columns:
            expected = printed[column.printed]
            if parsed.c and column.printed == "num_rel":
                continue
            mean = means[column.evaluated]
            if expected == "  -nan":
                assert math.isnan(mean), (number, arguments, column.printed)
                continue
            got = str(int(mean)) if column.integer else f"{mean:6.4f}"
            assert got == expected, (number, arguments, column.printed)
            compared += 1
    assert compared > 5000
