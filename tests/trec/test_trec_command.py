"""The command line: ``python -m sklearn_rank_metrics`` / ``rank-eval``, trec_eval's text.

Its output is parsed back and compared with trec_eval's own per-query
values (through pytrec_eval) at the 4 printed decimals, on generated files
with string ids, judged documents the run missed, unjudged and negatively
judged retrieved documents, queries on one side only and graded judgments.
The text is checked line by line (widths, tabs, integers), then the
options, the errors and the exit status.
"""

import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from sklearn_rank_metrics.trec import read_trec_qrels, read_trec_run
from sklearn_rank_metrics.trec._command import main, trec_columns

# trec_eval's "%-22s\t%s\t%6.4f\n" (or "%ld" for a count).
LINE = re.compile(r"^(?P<name>\S+) *\t(?P<query>\S+)\t(?P<value>-?[0-9]+(?:\.[0-9]{4})?)$")
# Measures of the existing definitions, named as trec_eval names them.
MEASURES = ["map", "P.5,10", "recip_rank", "ndcg_cut.5,10", "Rprec", "recall.10", "set_P",
            "success.1,5", "ndcg", "map_cut.5"]  # fmt: skip


def write_case(directory, seed, *, grades=4, ties=False):
    """A qrels and a run file with every trec_eval situation (``ties``: few score values)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(9):
        query = f"topic-{q:02d}" if q % 3 else f"Q{q}"
        pool = [f"doc{rng.integers(0, 10**6)}-{i}" for i in range(25)]
        for rank, doc in enumerate(pool[: rng.integers(1, 20)]):
            score = rng.integers(0, 3) / 2 if ties else rng.random()
            run.append(f"{query} Q0 {doc} {rank + 1} {score:.12f} run-{seed}")
        for doc in rng.choice(pool, size=rng.integers(1, 15), replace=False):
            qrels.append(f"{query} 0 {doc} {rng.integers(-1, grades)}")
    run.append(f"no-judgments Q0 docX 1 1.0 run-{seed}")
    qrels.append("not-retrieved 0 docY 2")
    paths = os.path.join(directory, "qrels.txt"), os.path.join(directory, "run.txt")
    for path, lines in zip(paths, (qrels, run)):
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    return paths


@pytest.fixture
def case(tmp_path):
    return write_case(str(tmp_path), 0)


def run_command(*argv):
    """``main(argv)`` in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stderr
    sys.stderr = err
    try:
        status = main(list(argv), stdout=out)
    finally:
        sys.stderr = saved
    return status, out.getvalue(), err.getvalue()


def parse(text):
    """``[(name, query, value text)]`` of trec_eval's output, checking every line's format."""
    rows = []
    for line in text.splitlines():
        name, query, value = line.split("\t")
        assert len(name) >= 22 and name == name.strip().ljust(max(22, len(name.strip())))
        if name.strip() != "runid":
            assert LINE.match(line), line
        rows.append((name.strip(), query, value))
    return rows


def pytrec_eval_values(qrels_path, run_path, measures, **options):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = read_trec_qrels(qrels_path), read_trec_run(run_path)
    nested_qrels, nested_run = {}, {}
    for q, d, r in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
        nested_qrels.setdefault(q, {})[d] = int(r)
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]):
        nested_run.setdefault(q, {})[d] = float(s)
    evaluator = pytrec_eval.RelevanceEvaluator(nested_qrels, set(measures), **options)
    return evaluator.evaluate(nested_run)


def test_per_query_values_match_trec_eval(case):
    status, out, err = run_command("-q", *[f"-m{m}" for m in MEASURES], *case)
    assert status == 0, err
    rows = parse(out)
    reference = pytrec_eval_values(*case, MEASURES)
    per_query = [(n, q, v) for n, q, v in rows if q != "all"]
    assert {q for _, q, _ in per_query} == set(reference)
    for name, query, value in per_query:
        assert value == "%6.4f" % reference[query][name], (name, query)
    # The 'all' line is the mean over the evaluated queries.
    for name, query, value in rows:
        if query == "all":
            expected = np.mean([reference[q][name] for q in reference])
            assert float(value) == pytest.approx(expected, abs=5e-5)


def test_tied_scores_ranked_as_trec_eval_ranks_them(tmp_path):
    """Ties: score, then document id, both descending: per-query values equal trec_eval's."""
    paths = write_case(str(tmp_path), 5, ties=True)
    status, out, _ = run_command("-q", *[f"-m{m}" for m in MEASURES], *paths)
    assert status == 0
    reference = pytrec_eval_values(*paths, MEASURES)
    rows = [(n, q, v) for n, q, v in parse(out) if q != "all"]
    assert len(rows) > 100
    for name, query, value in rows:
        assert value == "%6.4f" % reference[query][name], (name, query)


def test_lines_come_in_trec_eval_order(case):
    """Measures in trec_eval's table order whatever the -m order; queries sorted as bytes."""
    status, out, _ = run_command("-q", "-m", "ndcg_cut.10,5", "-m", "map", "-m", "P.10,5", *case)
    assert status == 0
    rows = parse(out)
    names_per_query = ["map", "P_5", "P_10", "ndcg_cut_5", "ndcg_cut_10"]
    queries = sorted({q for _, q, _ in rows if q != "all"}, key=str.encode)
    expected = [(n, q) for q in queries for n in names_per_query]
    expected += [(n, "all") for n in names_per_query]
    assert [(n, q) for n, q, _ in rows] == expected
    assert out.endswith("\n") and "\r" not in out


def test_exact_text_of_one_line(case):
    status, out, _ = run_command("-m", "map", *case)
    assert status == 0
    value = pytrec_eval_values(*case, ["map"])
    mean = np.mean([v["map"] for v in value.values()])
    assert out == "map                   \tall\t%6.4f\n" % mean


def test_no_summary_and_relevance_level(case):
    status, out, _ = run_command("-q", "-n", "-l", "2", "-m", "P.5", "-m", "map", *case)
    assert status == 0
    rows = parse(out)
    assert rows and all(q != "all" for _, q, _ in rows)
    reference = pytrec_eval_values(*case, ["P.5", "map"], relevance_level=2)
    for name, query, value in rows:
        assert value == "%6.4f" % reference[query][name]


def test_max_docs_and_judged_only(case):
    qrels_path, run_path = case
    status, out, _ = run_command("-q", "-M", "3", "-m", "P.5", qrels_path, run_path)
    assert status == 0
    # -M 3: only the top 3 by score count (pytrec_eval has no -M; cut the file instead).
    run = read_trec_run(run_path).sort_values(["query_id", "score"], ascending=[True, False])
    cut = os.path.join(os.path.dirname(run_path), "cut.txt")
    with open(cut, "w") as f:
        for row in run.groupby("query_id").head(3).itertuples():
            f.write(f"{row.query_id} Q0 {row.doc_id} 1 {row.score!r} x\n")
    reference = pytrec_eval_values(qrels_path, cut, ["P.5"])
    for name, query, value in parse(out):
        if query != "all":
            assert value == "%6.4f" % reference[query][name]
    status, out, _ = run_command("-q", "-J", "-m", "P.5", qrels_path, run_path)
    reference = pytrec_eval_values(qrels_path, run_path, ["P.5"], judged_docs_only_flag=True)
    for name, query, value in parse(out):
        if query != "all":
            assert value == "%6.4f" % reference[query][name]


def test_complete_queries_average_in_zeros(case):
    """-c: the judged query the run misses is printed (-q) with 0 and counted in the mean."""
    status, out, _ = run_command("-q", "-c", "-m", "map", *case)
    assert status == 0
    rows = parse(out)
    assert ("map", "not-retrieved", "0.0000") in rows
    reference = pytrec_eval_values(*case, ["map"])
    values = [reference[q]["map"] for q in reference] + [0.0]
    assert [v for n, q, v in rows if q == "all"] == ["%6.4f" % np.mean(values)]
    status, out, err = run_command("-q", "-m", "map", *case)
    assert "not-retrieved" not in out
    # What was left out is said on stderr, one line each.
    assert err.count("rank-eval: warning: ") == 2 and "no-judgments" in err


def test_other_syntaxes_print_after_trec_eval_measures(case):
    status, out, _ = run_command("-m", "nDCG@10", "-m", "P(rel=2)@5", "-m", "map", *case)
    assert status == 0
    rows = parse(out)
    assert [n for n, _, _ in rows] == ["map", "nDCG@10", "P(rel=2)@5"]
    ndcg = pytrec_eval_values(*case, ["ndcg_cut.10"])
    p2 = pytrec_eval_values(*case, ["P.5"], relevance_level=2)
    assert rows[1][2] == "%6.4f" % np.mean([v["ndcg_cut_10"] for v in ndcg.values()])
    assert rows[2][2] == "%6.4f" % np.mean([v["P_5"] for v in p2.values()])


def test_csv_and_json(case):
    status, text, _ = run_command("-q", "-m", "map", "-m", "P.5", *case)
    status_csv, out_csv, _ = run_command("-q", "--format", "csv", "-m", "map", "-m", "P.5", *case)
    status_json, out_json, _ = run_command("--format", "json", "-q", "-m", "P.5", "-m", "map", *case)
    assert status == status_csv == status_json == 0
    table = pd.read_csv(io.StringIO(out_csv), dtype={"query_id": str})
    assert list(table.columns) == ["measure", "query_id", "value"]
    rows = parse(text)
    assert list(zip(table["measure"], table["query_id"])) == [(n, q) for n, q, _ in rows]
    assert ["%6.4f" % v for v in table["value"]] == [v for _, _, v in rows]
    document = json.loads(out_json)
    assert document["measures"] == ["map", "P_5"]
    assert document["run_id"] is None  # runid is printed with the official set only
    for name, query, value in rows:
        number = document["all"][name] if query == "all" else document["queries"][query][name]
        assert "%6.4f" % number == value


@pytest.mark.parametrize(
    "argv, message, expected",
    [
        (["-m", "map", "missing-qrels.txt", "RUN"], "missing-qrels.txt", 2),
        (["-m", "nosuch", "QRELS", "RUN"], "unknown metric 'nosuch'", 1),
        (["-m", "relstring", "QRELS", "RUN"], "not offered", 1),
        (["-m", "P.0", "QRELS", "RUN"], "cutoff", 1),
        (["-m", "map", "QRELS"], "required", 1),
        (["-l", "x", "QRELS", "RUN"], "invalid int", 1),
        (["-m", "map", "QRELS", "BAD"], "line 1", 2),
        # No query of the run is judged: nothing to evaluate without -c.
        (["-m", "map", "QRELS", "OTHER"], "give -c to score every judged query", 7),
        (["-m", "map", "EMPTY", "RUN"], "give -c to score every judged query", 7),
        (["-c", "-m", "map", "EMPTY", "RUN"], "no queries with both results and", 7),
    ],
)
def test_errors_are_one_line_with_trec_eval_status(case, tmp_path, argv, message, expected):
    """trec_eval's statuses: 1 for a bad option or measure, 2 for a file it cannot read,
    7 for no query evaluated ("No queries with both results and relevance info")."""
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1\n")
    other = tmp_path / "other.txt"
    other.write_text("not-judged Q0 d1 1 1.0 r\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    paths = {"QRELS": case[0], "RUN": case[1], "BAD": str(bad), "OTHER": str(other),
             "EMPTY": str(empty)}  # fmt: skip
    status, out, err = run_command(*[paths.get(a, a) for a in argv])
    assert status == expected and out == ""
    assert err.count("\n") == 1 and err.startswith("rank-eval: error: ") and message in err
    assert "missing_queries" not in err and "evaluate_run" not in err


def test_subprocess_module_and_help(case):
    completed = subprocess.run(
        [sys.executable, "-m", "sklearn_rank_metrics", "-q", "-m", "recip_rank", *case],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == run_command("-q", "-m", "recip_rank", *case)[1]
    failed = subprocess.run(
        [sys.executable, "-m", "sklearn_rank_metrics", "-m", "map", "nope", "nope"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.count("\n") == 1


def test_measure_marking_follows_trec_eval():
    """-m: first parameter list given wins, cutoffs sorted, duplicates dropped, families' defaults."""
    names = lambda argv: [c.printed for c in trec_columns(argv)[0]]
    assert names(["P.10,5,10"]) == ["P_5", "P_10"]
    assert names(["P", "P.20"]) == ["P_20"]
    assert names(["P.20", "P.5"]) == ["P_20"]
    assert names(["success"]) == ["success_1", "success_5", "success_10"]
    assert names(["recall"])[:2] == ["recall_5", "recall_10"]
    assert names(["set_F.1"]) == ["set_F_1"]
    # trec_eval prints its level parameters with 2 decimals; the value is kept exactly.
    columns = trec_columns(["Rprec"])[0]
    assert [(c.printed, c.evaluated) for c in columns] == [("Rprec", "Rprec")]


# trec_eval 10 changed these from the trec_eval 9 that pytrec_eval wraps ("int truncation
# to round/floor": lround(recall * R) where trec_eval 9 added 0.9 and truncated); their own
# tests check them against trec_eval 10's definition.
CHANGED_IN_TREC_EVAL_10 = ("11pt_avg", "Rprec_mult_", "iprec_at_recall_")
# trec_eval 10's all_trec has rbp, rbp_resid and unj_5/10/20, which pytrec_eval's has not.
NEW_IN_TREC_EVAL_10 = ("rbp", "rbp_resid", "unj_")


def _all_value(name, values):
    """The 'all' line as trec_eval computes it from pytrec_eval's per-query values."""
    if name in ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"):
        return "%ld" % sum(values)
    if name.startswith("gm_"):  # pytrec_eval gives log(max(v, 1e-5)) per query
        return "%6.4f" % np.exp(np.mean(values))
    return "%6.4f" % np.mean(values)


@pytest.mark.parametrize("version", ["10", "9"])
@pytest.mark.parametrize("measures", [[], ["-m", "official"], ["-m", "all_trec"]])
def test_official_and_all_trec_match_trec_eval(tmp_path, measures, version):
    qrels_path, run_path = write_case(str(tmp_path), 3)
    status, out, err = run_command(
        "-q", "--trec-eval-version", version, *measures, qrels_path, run_path
    )
    # With --trec-eval-version 9 every measure pytrec_eval has is compared, iprec included.
    changed = CHANGED_IN_TREC_EVAL_10 if version == "10" else ()
    assert status == 0
    rows = parse(out)
    reference = pytrec_eval_values(qrels_path, run_path, [measures[-1] if measures else "official"])
    compared = 0
    for name, query, value in rows:
        if name == "runid":
            assert (query, value) == ("all", "run-3")  # the run name of the file's last line
        elif name.startswith(NEW_IN_TREC_EVAL_10 + changed):
            continue
        elif query == "all":
            values = [reference[q][name] for q in reference]
            assert value == _all_value(name, values), name
            compared += 1
        else:
            expected = reference[query][name]
            integer = name.startswith("num_")
            assert value == ("%ld" % expected if integer else "%6.4f" % expected), (name, query)
            compared += 1
    assert compared > 100
    names = list(dict.fromkeys(name for name, _, _ in rows))
    official = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank"]
    assert names[: len(official)] == official  # per-query lines: num_q and gm_map are 'all' only
    summary = [name for name, query, _ in rows if query == "all"]
    assert summary[:7] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map"]
    if measures == ["-m", "all_trec"]:
        assert "relstring" in err and "P_5" in summary and "ndcg_cut_1000" in summary
        # trec_eval prints its measures in its table's order: G after binG, ndcg_rel and
        # Rndcg after ndcg, before the ndcg_cut family.
        printed = [name for name in summary if name in ("binG", "G", "ndcg", "ndcg_rel",
                                                        "Rndcg", "ndcg_cut_5")]  # fmt: skip
        assert printed == ["binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut_5"]
        assert "ndcg_rel" not in err and "Rndcg" not in err


def test_complete_num_rel_counts_the_whole_qrels(tmp_path):
    """-c: 'all' num_rel is trec_eval's count of judgments > 0 in the qrels, whatever -l says."""
    qrels_path, run_path = write_case(str(tmp_path), 4)
    qrels = read_trec_qrels(qrels_path)
    status, out, _ = run_command(
        "-c", "-l", "2", "-m", "num_rel", "-m", "num_q", qrels_path, run_path
    )
    assert status == 0
    rows = dict(((n, q), v) for n, q, v in parse(out))
    assert rows[("num_rel", "all")] == str(int((qrels["relevance"] > 0).sum()))
    assert rows[("num_q", "all")] == str(qrels["query_id"].nunique())
    status, out, _ = run_command("-l", "2", "-m", "num_rel", qrels_path, run_path)
    reference = pytrec_eval_values(qrels_path, run_path, ["num_rel"], relevance_level=2)
    assert parse(out) == [("num_rel", "all", "%ld" % sum(v["num_rel"] for v in reference.values()))]


@pytest.mark.parametrize(
    "ending",
    ["", "\n\n   \n", "# a comment\n", "\n#x Q0 d 1 1 not-this\n"],
    ids=["plain", "blank lines", "comment", "comment like a line"],
)
@pytest.mark.parametrize("separator", [" ", "  "], ids=["pyarrow's path", "pandas' path"])
def test_runid_is_the_run_name_of_the_last_line(tmp_path, ending, separator):
    """trec_eval's runid: the run name of the last line, whichever reader took the file."""
    qrels_path, run_path = write_case(str(tmp_path), 5)
    with open(run_path) as f:
        lines = f.read().splitlines()
    lines[-1] = lines[-1].replace("run-5", "last-name " + "x" * 5000)  # a long last line
    lines[0] = lines[0].replace("run-5", "first-name")
    with open(run_path, "w") as f:
        f.write("\n".join(line.replace(" ", separator) for line in lines) + "\n" + ending)
    status, out, _ = run_command("-m", "runid", "-m", "num_q", qrels_path, run_path)
    assert status == 0
    assert ("runid", "all", "last-name") in parse(out)
