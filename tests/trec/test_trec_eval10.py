"""``rank-eval`` against trec_eval 10 itself: its printed text, line for line.

The cases (:mod:`_trec10`) are qrels and run files written from a number,
with every flag and parameterised measures. Two tests compare them:

- against the recorded goldens, ``tests/data/trec_eval10.json.gz``: trec_eval
  10.0's stdout for each case, made by ``python tests/_trec10.py`` with a
  trec_eval binary (no binary needed here);
- against a trec_eval binary, named by the ``TREC_EVAL`` environment
  variable or found on PATH, on the goldens' cases and more (skipped
  without one).

Both compare text, identical but for trec_eval's ``relstring`` lines (a
string this package does not print). The tests below them check each
behaviour on its own, with the values trec_eval 10 prints.
"""

import os
import subprocess
import warnings

import numpy as np
import pytest

pytest.importorskip("pandas")

import _trec10
from test_trec_command import run_command

from sklearn_rank_metrics.trec import evaluate_run

GOLDENS = _trec10.read_goldens() if os.path.exists(_trec10.GOLDENS) else {}
# Cases compared with a binary beyond the goldens' (each takes some 10 ms).
MORE_CASES = range(0, 400)


def rank_eval(*argv):
    """``(status, stdout, stderr)`` of ``rank-eval argv`` in this process.

    With a trec_eval binary at hand, its stdout is checked to be the same
    wherever trec_eval prints numbers.
    """
    status, out, err = run_command(*argv)
    binary = _trec10.trec_eval_binary()
    if binary is not None:
        code, expected = _trec10.run_trec_eval(binary, argv[-2], argv[-1], list(argv[:-2]))
        if code == 0:
            assert (status, out) == (0, expected)
    return status, out, err


def test_goldens_are_recorded():
    assert len(GOLDENS) >= 100


@pytest.mark.parametrize("number", sorted(GOLDENS, key=int))
def test_text_equals_trec_eval_10_goldens(tmp_path, number):
    """rank-eval prints trec_eval 10.0's recorded stdout, character for character."""
    golden = GOLDENS[number]
    qrels, run, arguments = _trec10.write_case(str(tmp_path), int(number))
    assert _trec10.digest(qrels, run, arguments) == golden["digest"], (
        "the case's files changed: rerun python tests/_trec10.py with TREC_EVAL set"
    )
    status, out, err = rank_eval(*arguments, qrels, run)
    assert status == 0, err
    assert out == golden["stdout"]


# The measures whose values trec_eval takes from an empty ranking's leftovers
# under -J (0 / 0: -nan) and -c (rbp_resid_p=...'s placeholder residual).
LEFTOVER_MEASURES = ("iprec_at_recall", "iprec_11pt_avg", "rbp_resid")


def _golden_flag_cases():
    """The goldens' cases run with -J or -c, and their printed leftover measures."""
    import tempfile

    cases = []
    with tempfile.TemporaryDirectory() as directory:
        for number in sorted(GOLDENS, key=int):
            arguments = _trec10.write_case(directory, int(number))[2]
            if {"-J", "-c"} & set(arguments):
                cases.append(number)
    return cases


@pytest.mark.parametrize("number", _golden_flag_cases())
def test_evaluate_run_equals_trec_eval_10_goldens_under_j_and_c(tmp_path, number):
    """evaluate_run's per-query values and means, -nan included, are trec_eval's under -J and -c.

    The measures trec_eval takes from an empty ranking's leftovers: the
    interpolated precisions of a topic -J empties (0 / 0) and a
    parameterised rbp_resid of a topic -c adds.
    """
    from sklearn_rank_metrics.trec._command import _parser, _trec_number, trec_columns

    golden = GOLDENS[number]
    qrels, run, arguments = _trec10.write_case(str(tmp_path), int(number))
    parsed = _parser().parse_args([*arguments, qrels, run])
    columns = [
        column for column in trec_columns(parsed.m)[0]
        if column.request.definition.name in LEFTOVER_MEASURES
    ]  # fmt: skip
    if not columns:
        pytest.skip("no measure of an empty ranking's leftovers in this case")
    options = dict(
        metrics=[column.evaluated for column in columns],
        relevance_level=parsed.l,
        missing_queries="zero" if parsed.c else "ignore",
        max_docs=parsed.M,
        judged_only=parsed.J,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_query = evaluate_run(qrels, run, average=None, **options)
        means = evaluate_run(qrels, run, **options)
    expected = values(golden["stdout"])
    for column in columns:
        for query, value in zip(per_query.query_ids, per_query[column.evaluated]):
            assert _trec_number(value, False) == expected[(column.printed, str(query))], (
                column.printed, query,
            )  # fmt: skip
        got = _trec_number(means[column.evaluated], False)
        assert got == expected[(column.printed, "all")], column.printed


@pytest.fixture(scope="module")
def trec_eval():
    binary = _trec10.trec_eval_binary()
    if binary is None:
        pytest.skip("no trec_eval binary (set TREC_EVAL or put trec_eval on PATH)")
    version = subprocess.run([binary, "-v"], capture_output=True, text=True)
    if "version 10" not in version.stdout + version.stderr:
        pytest.skip(f"{binary} is not trec_eval 10")
    return binary


def test_text_equals_trec_eval_10_binary(trec_eval, tmp_path):
    """Every case where trec_eval 10 prints numbers: rank-eval prints the same text."""
    compared, differing = 0, []
    for number in MORE_CASES:
        qrels, run, arguments = _trec10.write_case(str(tmp_path), number)
        status, expected = _trec10.run_trec_eval(trec_eval, qrels, run, arguments)
        if status != 0:
            continue  # trec_eval stops (a judged topic the run lacks, without -c)
        compared += 1
        code, out, err = rank_eval(*arguments, qrels, run)
        if code != 0 or out != expected:
            differing.append((number, arguments, err or _first_difference(out, expected)))
    assert compared > len(MORE_CASES) * 0.9
    assert not differing, differing[:3]


def _first_difference(out, expected):
    for ours, theirs in zip(out.splitlines(), expected.splitlines()):
        if ours != theirs:
            return ours, theirs
    return len(out.splitlines()), len(expected.splitlines())


# ------------------------------------------------------------ each behaviour
def write(tmp_path, qrels, run):
    paths = str(tmp_path / "qrels"), str(tmp_path / "run")
    for path, lines in zip(paths, (qrels, run)):
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
    return paths


def values(text):
    """``{(measure, query): printed value}`` of trec_eval's text."""
    rows = (line.split("\t") for line in text.splitlines())
    return {(name.strip(), query): value for name, query, value in rows}


GRADED_QRELS = ["1 0 a 3", "1 0 b 1", "1 0 c 0", "1 0 d -1", "2 0 a 1", "2 0 x 2"]
GRADED_RUN = ["1 Q0 b 1 4 r", "1 Q0 a 2 3 r", "1 Q0 d 3 2 r", "1 Q0 z 4 1 r", "2 Q0 a 1 1 r"]


@pytest.mark.parametrize("flags", [[], ["-l", "2"], ["-l", "3"], ["-J"]])
def test_rbp_gains_are_grades_scaled_by_the_topic_largest(tmp_path, flags):
    """trec_eval 10's rbp: gain g / max grade of the topic (g where max <= 1), -l ignored."""
    paths = write(tmp_path, GRADED_QRELS, GRADED_RUN)
    status, out, _ = rank_eval(*flags, "-q", "-m", "rbp", *paths)
    assert status == 0
    got = values(out)
    got.update(values(rank_eval(*flags, "-q", "-m", "rbp.p=0.5", *paths)[1]))
    # Topic 1: grades 1, 3 at ranks 1, 2 of max 3; topic 2: grade 1 at rank 1 of max 2.
    rbp_1 = 0.1 * (1 / 3 + 0.9 * 1.0)
    rbp_2 = 0.1 * (1 / 2)
    assert got[("rbp", "1")] == f"{rbp_1:6.4f}"
    assert got[("rbp", "2")] == f"{rbp_2:6.4f}"
    assert got[("rbp", "all")] == f"{(rbp_1 + rbp_2) / 2:6.4f}"
    assert got[("rbp_p=0.5", "1")] == f"{0.5 * (1 / 3 + 0.5):6.4f}"


def test_rbp_of_other_syntaxes_keeps_binary_relevance(tmp_path):
    """The package's rbp and ir_measures' RBP count a relevant document 1 (at rel)."""
    import pandas as pd

    qrels = pd.DataFrame({"query_id": ["1"] * 2, "doc_id": ["a", "b"], "relevance": [3, 1]})
    run = pd.DataFrame({"query_id": ["1"] * 2, "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    got = evaluate_run(qrels, run, metrics=["rbp", "RBP(p=0.9)", "RBP(p=0.9,rel=2)"])
    assert got["rbp"] == pytest.approx(0.1 * 1.9)
    assert got["RBP(p=0.9)"] == pytest.approx(0.1 * 1.9)
    assert got["RBP(p=0.9,rel=2)"] == pytest.approx(0.1 * 0.9)


def test_one_key_one_measure_trec_eval_s_rbp_is_rbp_p_0_9(tmp_path):
    """trec_eval's graded rbp is ``rbp_p=0.9`` in evaluate_run, printed ``rbp`` by rank-eval."""
    paths = write(tmp_path, GRADED_QRELS, GRADED_RUN)
    rbp_1 = 0.1 * (1 / 3 + 0.9 * 1.0)  # grades over the topic's largest (see above)
    graded = (rbp_1 + 0.1 * (1 / 2)) / 2
    assert values(rank_eval("-m", "rbp", *paths)[1])[("rbp", "all")] == f"{graded:6.4f}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # relstring and the like are not offered
        every = evaluate_run(*paths, metrics="all_trec")
    assert "rbp" not in every
    assert every["rbp_p=0.9"] == pytest.approx(graded)
    binary = evaluate_run(*paths, metrics=["rbp"])["rbp"]
    assert binary == pytest.approx((0.1 * 1.9 + 0.1) / 2)  # relevant documents gain 1
    # Each key of every trec_eval measure, asked for alone, is the same measure.
    assert evaluate_run(*paths, metrics=list(every)) == every
    param = evaluate_run(*paths, metrics=["iprec_at_recall.0.333", "rbp.p=0.5"])
    assert list(param) == ["iprec_at_recall_0.333", "rbp_p=0.5"]
    assert evaluate_run(*paths, metrics=list(param)) == param


@pytest.mark.parametrize("flags", [["-c"], ["-J"], ["-c", "-J"]])
def test_set_p_of_an_empty_ranking_is_zero_and_averaged_in(tmp_path, flags):
    qrels = ["1 0 a 1", "2 0 b 1", "3 0 c 1"]
    run = ["1 Q0 a 1 2 r", "2 Q0 u 1 2 r"]  # topic 2: nothing judged; 3: missing
    paths = write(tmp_path, qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy divide warning
        status, out, err = rank_eval(*flags, "-q", "-m", "set_P", *paths)
    assert status == 0, err
    got = values(out)
    n = 3 if "-c" in flags else 2
    assert got[("set_P", "2")] == "0.0000"
    assert got[("set_P", "all")] == f"{1 / n:6.4f}"


def test_evaluate_run_set_p_of_an_empty_ranking(tmp_path):
    paths = write(tmp_path, ["1 0 a 1", "2 0 b 1"], ["1 Q0 a 1 2 r"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate_run(*paths, metrics=["set_P"], missing_queries="zero", ties="trec_eval")
    assert got == {"set_P": 0.5}


def test_interpolated_precision_of_a_ranking_emptied_by_j_prints_nan(tmp_path):
    """-J empties topic 2: trec_eval's 0 / 0 precision, printed -nan, averaged in."""
    qrels = ["1 0 a 1", "2 0 b 1", "2 0 c 1", "2 0 d 1"]
    run = ["1 Q0 a 1 2 r", "2 Q0 u 1 2 r"]
    paths = write(tmp_path, qrels, run)
    status, out, _ = rank_eval("-J", "-q", "-m", "iprec_at_recall.0,0.1,0.2", "-m",
                               "11pt_avg", *paths)  # fmt: skip
    got = values(out)
    assert got[("iprec_at_recall_0.00", "2")] == "  -nan"
    assert got[("iprec_at_recall_0.10", "2")] == "  -nan"  # round(0.3) = 0
    assert got[("iprec_at_recall_0.20", "2")] == "0.0000"  # round(0.6) = 1
    assert got[("11pt_avg", "2")] == "  -nan"
    assert got[("iprec_at_recall_0.00", "all")] == "  -nan"
    assert got[("iprec_at_recall_0.20", "all")] == "0.5000"


def test_parameterised_rbp_resid_of_a_missing_topic_under_c(tmp_path):
    """trec_eval -c ranks a placeholder document for a missing topic and resets only rbp_resid."""
    paths = write(tmp_path, ["1 0 a 1", "2 0 b 1"], ["1 Q0 a 1 2 r"])
    status, out, _ = rank_eval("-c", "-q", "-m", "rbp_resid", *paths)
    assert values(out)[("rbp_resid", "2")] == "0.0000"
    status, out, _ = rank_eval("-c", "-q", "-m", "rbp_resid.p=0.8", *paths)
    assert values(out)[("rbp_resid_p=0.8", "2")] == "1.0000"


@pytest.mark.parametrize(
    "flags, qrels, run",
    [
        (["-J"], ["1 0 a 1"], ["1 Q0 u 1 2 r"]),  # -J leaves no document
        (["-c"], ["1 0 a 1", "2 0 b 1"], ["3 Q0 a 1 2 r"]),  # -c, no run topic judged
        (["-c", "-J"], ["1 0 a 1"], ["1 Q0 u 1 2 r", "2 Q0 a 1 2 r"]),
    ],
)
def test_every_topic_empty_still_prints(tmp_path, flags, qrels, run):
    paths = write(tmp_path, qrels, run)
    status, out, err = rank_eval(*flags, "-q", "-m", "map", "-m", "P.5", "-m", "num_ret", *paths)
    assert status == 0, err
    got = values(out)
    assert got[("map", "all")] == "0.0000"
    assert got[("P_5", "all")] == "0.0000"
    assert got[("num_ret", "all")] == "0"


def test_no_judged_run_topic_without_c_is_an_error_that_names_c(tmp_path):
    paths = write(tmp_path, ["1 0 a 1"], ["3 Q0 a 1 2 r"])
    status, out, err = rank_eval("-m", "map", *paths)
    assert status == 7 and not out  # trec_eval's status when no query is evaluated
    assert "give -c" in err and "missing_queries" not in err
    with pytest.raises(ValueError, match="give missing_queries='zero'"):
        evaluate_run(*paths, metrics=["map"])


def test_left_out_warnings_name_the_command_flag(tmp_path):
    """rank-eval's warnings name -c, evaluate_run's missing_queries."""
    paths = write(tmp_path, ["1 0 a 1", "2 0 b 1"], ["1 Q0 a 1 2 r", "9 Q0 a 1 2 r"])
    status, out, err = rank_eval("-m", "map", *paths)
    assert status == 0
    assert "-c counts them as empty rankings" in err
    assert "missing_queries" not in err and "evaluate_run" not in err
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_run(*paths, metrics=["map"])
    assert any("missing_queries='zero' counts them" in str(w.message) for w in caught)


@pytest.mark.parametrize("flags", [["-J"], ["-J", "-c"], ["-c"]])
def test_evaluate_run_and_rank_eval_agree_on_empty_rankings(tmp_path, flags):
    """The values trec_eval takes from an empty ranking are evaluate_run's too, means included."""
    from sklearn_rank_metrics.trec._command import _trec_number

    qrels = ["1 0 a 1", "2 0 b 1", "2 0 c 1", "2 0 d 1", "3 0 e 1"]
    run = ["1 Q0 a 1 2 r", "2 Q0 u 1 2 r"]  # -J empties topic 2; -c adds topic 3
    paths = write(tmp_path, qrels, run)
    measures = ["iprec_at_recall_0.00", "iprec_at_recall_0.20", "11pt_avg", "rbp_resid_p=0.8"]
    status, out, err = rank_eval("-q", *flags, "-m", "iprec_at_recall.0,0.2", "-m", "11pt_avg",
                                 "-m", "rbp_resid.p=0.8", *paths)  # fmt: skip
    assert status == 0, err
    printed = values(out)
    options = dict(metrics=measures, judged_only="-J" in flags,
                   missing_queries="zero" if "-c" in flags else "ignore")  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per_query = evaluate_run(*paths, average=None, **options)
        means = evaluate_run(*paths, **options)
    for name in measures:
        for query, value in zip(per_query.query_ids, per_query[name]):
            assert _trec_number(value, False) == printed[(name, query)]
        assert _trec_number(means[name], False) == printed[(name, "all")]
    undefined = [w for w in caught if "0 / 0" in str(w.message)]
    if "-J" in flags:
        assert np.isnan(means["11pt_avg"]) and np.isnan(per_query["11pt_avg"][1])
        # Topic 3, added by -c, is empty too.
        expected = [False, True, True][: 2 + ("-c" in flags)]
        assert per_query.undefined("11pt_avg")[0].tolist() == expected
        # Once per call, naming the measures and the topics.
        assert len(undefined) == 2
        message = str(undefined[0].message)
        assert "'2'" in message and "iprec_at_recall_0.00" in message and "11pt_avg" in message
        # Topic 2: round(0.2 * 3) = 1, defined; topic 3 (-c): round(0.2 * 1) = 0.
        assert ("iprec_at_recall_0.20" in message) == ("-c" in flags)
    else:
        assert not undefined
        assert per_query["rbp_resid_p=0.8"].tolist() == [0.0, 1.0, 1.0]  # p + (1 - p)


def test_a_document_repeated_below_the_m_cut_is_not_an_error(tmp_path):
    """trec_eval -M checks for duplicates only in the top M of each topic."""
    qrels = ["1 0 a 1", "1 0 b 1"]
    run = ["1 Q0 a 1 3 r", "1 Q0 c 2 2 r", "1 Q0 a 3 1 r"]
    paths = write(tmp_path, qrels, run)
    status, out, err = rank_eval("-M", "2", "-q", "-m", "num_ret", "-m", "map", *paths)
    assert status == 0, err
    assert values(out)[("map", "1")] == "0.5000"
    status, out, err = rank_eval("-M", "3", "-m", "map", *paths)
    assert status != 0 and "duplicate docs" in err
    import pandas as pd

    frame = pd.read_csv(paths[1], sep=" ", header=None,
                        names=["query_id", "q0", "doc_id", "rank", "score", "run_name"])  # fmt: skip
    assert evaluate_run(paths[0], frame, metrics=["map"], max_docs=2) == {"map": 0.5}


def test_warnings_print_query_ids_as_text(tmp_path):
    paths = write(tmp_path, ["1 0 a 1"], ["1 Q0 a 1 2 r", "999 Q0 a 1 2 r"])
    status, out, err = rank_eval("-m", "map", *paths)
    assert status == 0
    assert "'999'" in err and "np.str_" not in err and ".py:" not in err


def test_means_are_added_left_to_right(tmp_path):
    """8 values of P_20 whose mean is 0.50625 in decimal: added left to right, it prints 0.5062.

    (NumPy's pairwise mean rounds the other way: 0.5063.)
    """
    qrels, run = [], []
    for q, hits in enumerate([4, 0, 11, 7, 19, 11, 16, 13]):
        for rank in range(20):
            run.append(f"q{q} Q0 d{rank:02d} {rank + 1} {20 - rank} r")
            qrels.append(f"q{q} 0 d{rank:02d} {int(rank < hits)}")
    paths = write(tmp_path, qrels, run)
    status, out, _ = rank_eval("-m", "P.20", *paths)
    assert values(out)[("P_20", "all")] == "0.5062"


def test_average_precision_adds_its_precisions_in_rank_order(tmp_path):
    """Relevant at ranks 1, 3-6 and 10 of R = 8: AP = 4.65 / 8, printed 0.5812 as trec_eval.

    (Its precisions added pairwise give 0.58125 exactly, printed 0.5813.)
    """
    pattern = "1011110001"
    qrels = [f"q 0 d{i} {bit}" for i, bit in enumerate(pattern)] + ["q 0 x1 1", "q 0 x2 1"]
    run = [f"q Q0 d{i} {i + 1} {10 - i} r" for i in range(len(pattern))]
    paths = write(tmp_path, qrels, run)
    status, out, _ = rank_eval("-q", "-m", "map", *paths)
    assert values(out)[("map", "q")] == "0.5812"


def test_evaluate_run_mean_of_an_undefined_value_is_nan_as_trec_eval_s(tmp_path):
    """Rndcg of a topic whose relevant documents gain nothing is trec_eval's -nan, and its mean."""
    from sklearn_rank_metrics.trec._command import _trec_number

    paths = write(tmp_path, ["1 0 a 1", "2 0 c 2"], ["1 Q0 a 1 2 r", "2 Q0 c 1 2 r"])
    status, out, err = rank_eval("-q", "-m", "Rndcg.1=0,2=1", *paths)
    assert status == 0, err
    printed = values(out)
    assert printed[("Rndcg_1=0,2=1", "1")] == "  -nan"
    assert printed[("Rndcg_1=0,2=1", "all")] == "  -nan"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mean = evaluate_run(*paths, metrics=["Rndcg_1=0,2=1"])["Rndcg_1=0,2=1"]
        per_query = evaluate_run(*paths, metrics=["Rndcg_1=0,2=1"], average=None)
    assert _trec_number(mean, False) == "  -nan"
    for query, value in zip(per_query.query_ids, per_query["Rndcg_1=0,2=1"]):
        assert _trec_number(value, False) == printed[("Rndcg_1=0,2=1", query)]
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2 and all("'1'" in m and "mean" in m for m in messages)
