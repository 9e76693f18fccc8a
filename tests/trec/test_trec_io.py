"""TREC run and qrels files: reading as trec_eval does, errors, writing, round trips."""

import gzip
import math
import os
import re
import signal
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pd = pytest.importorskip("pandas")

from sklearn_rank_metrics.trec import read_trec_qrels, read_trec_run, write_trec_run  # noqa: E402
from sklearn_rank_metrics.trec._arrow import read_arrow_columns  # noqa: E402
from sklearn_rank_metrics.trec._format import QRELS, RUN, NeedsDataFramePath  # noqa: E402
from sklearn_rank_metrics.trec._read import read_with_pyarrow  # noqa: E402

try:
    import pyarrow  # noqa: F401

    HAS_PYARROW = True
except ImportError:
    HAS_PYARROW = False

ENGINES = [
    "pandas",
    "auto",
    pytest.param(
        "pyarrow",
        marks=pytest.mark.skipif(not HAS_PYARROW, reason="pyarrow is not installed"),
    ),
]
HYPOTHESIS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _write(tmp_path, content, name="file.txt"):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


# --- a straightforward reference: one line at a time, trec_eval's rules -------------


def reference_read(data, kind):
    """Rows as tuples, or ValueError("line N") for the first malformed line.

    Fields are split on C's isspace (bytes.split), lines on "\\n"; blank lines
    and lines whose first field starts with '#' are skipped.
    """
    rows = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        tokens = line.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        if len(tokens) < (6 if kind == "run" else 4) or kind == "qrels" and len(tokens) > 4:
            raise ValueError(f"line {number}")
        try:
            if kind == "run":
                score, rank = float(tokens[4]), float(tokens[3])
                if not math.isfinite(score) or not rank.is_integer():
                    raise ValueError
                rows.append(
                    (tokens[0].decode(), tokens[2].decode(), score, int(rank), tokens[5].decode())
                )
            else:
                relevance = float(tokens[3])
                if not relevance.is_integer():
                    raise ValueError
                rows.append((tokens[0].decode(), tokens[2].decode(), int(relevance)))
        except ValueError:
            raise ValueError(f"line {number}") from None
    return rows


def _rows(frame):
    return list(frame.itertuples(index=False, name=None))


# --- reading --------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "content",
    [
        "q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run\nq2 Q0 d1 1 -3e-5 run\n",
        "q1\tQ0\td1\t1\t2.5\trun\nq1\tQ0\td2\t2\t1.5\trun\nq2\tQ0\td1\t1\t-3e-5\trun",
        "  q1   Q0 d1\t 1  2.5   run  \n\n\t\nq1 Q0 d2 2 1.5 run\r\nq2 Q0 d1 1 -3e-5 run\r\n",
        "q1\vQ0\fd1 1 2.5 run\nq1 Q0 d2 2 1.5 run\rq2\nq2 Q0 d1 1 -3e-5 run",
        "# header\nq1 Q0 d1 1 2.5 run x y z\n  # indented comment\nq1 Q0 d2 2 1.5 run 7\n"
        "q2 Q0 d1 1 -3e-5 run\n",
    ],
    ids=["spaces", "tabs", "mixed-crlf-blank", "vt-ff-lone-cr", "comments-extra-fields"],
)
def test_read_run_whitespace_comments_extra_fields(tmp_path, content, engine):
    run = read_trec_run(_write(tmp_path, content), engine=engine)
    assert list(run.columns) == ["query_id", "doc_id", "score", "rank", "run_name"]
    assert run.dtypes["score"] == np.float64 and run.dtypes["rank"] == np.int64
    assert _rows(run) == [
        ("q1", "d1", 2.5, 1, "run"),
        ("q1", "d2", 1.5, 2, "run"),
        ("q2", "d1", -3e-5, 1, "run"),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_ids_stay_text(tmp_path, engine):
    """Ids that look like numbers or missing values are kept as written."""
    ids = ["007", "NA", "nan", "null", "1e5", "True", "-", '"q"', "d#1"]
    content = "".join(f"{i} Q0 {i} {r} 1.0 run\n" for r, i in enumerate(ids, 1))
    run = read_trec_run(_write(tmp_path, content), engine=engine)
    assert run["query_id"].tolist() == ids
    assert run["doc_id"].tolist() == ids
    assert run["query_id"].dtype == pd.Series(["x"]).dtype  # the pandas default for text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ids", [["007", "1", "2"], ["nan", "NaN", "inf"], ["True", "False", "1"]])
def test_ids_that_all_look_like_numbers_stay_text(tmp_path, ids, engine):
    content = "".join(f"{i} Q0 {i} 1 1.0 {i}\n" for i in ids)
    run = read_trec_run(_write(tmp_path, content), engine=engine)
    for column in ["query_id", "doc_id", "run_name"]:
        assert run[column].tolist() == ids
        assert run[column].dtype == pd.Series(["x"]).dtype
    qrels = read_trec_qrels(_write(tmp_path, "".join(f"{i} 0 {i} 1\n" for i in ids)), engine=engine)
    assert qrels["doc_id"].tolist() == ids


@pytest.mark.parametrize("engine", ENGINES)
def test_gzip_found_by_magic_bytes(tmp_path, engine):
    content = b"q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run\n"
    plain = read_trec_run(_write(tmp_path, content), engine=engine)
    hidden = read_trec_run(_write(tmp_path, gzip.compress(content), "run.txt"), engine=engine)
    named = read_trec_run(_write(tmp_path, gzip.compress(content), "run.gz"), engine=engine)
    not_gzip = read_trec_run(_write(tmp_path, content, "plain.gz"), engine=engine)
    for frame in (hidden, named, not_gzip):
        pd.testing.assert_frame_equal(frame, plain)
    qrels = read_trec_qrels(_write(tmp_path, gzip.compress(b"q1 0 d1 1\n"), "q"), engine=engine)
    assert _rows(qrels) == [("q1", "d1", 1)]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes need POSIX")
@pytest.mark.parametrize("compress", [False, True])
def test_a_pipe_is_read_as_a_file(tmp_path, compress):
    """A named pipe (a shell's <(zcat run.gz)) cannot be memory-mapped: it is read instead."""
    import os
    import threading

    content = b"q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run\n"
    expected = read_trec_run(_write(tmp_path, content))
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(
        target=lambda: pipe.write_bytes(gzip.compress(content) if compress else content)
    )
    writer.start()
    try:
        pd.testing.assert_frame_equal(read_trec_run(pipe), expected)
    finally:
        writer.join()


@pytest.mark.parametrize("engine", ENGINES)
def test_read_qrels(tmp_path, engine):
    content = "q1 0 d1 2\nq1 Q0 d2 0\n\nq1 0 d3 -1\nq2\t0\td1\t1.0\n"
    qrels = read_trec_qrels(_write(tmp_path, content), engine=engine)
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    assert qrels.dtypes["relevance"] == np.int64
    assert _rows(qrels) == [("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d3", -1), ("q2", "d1", 1)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("reader", "content", "line", "problem"),
    [
        (read_trec_run, "q Q0 d 1 1 r\n\n# c\nq Q0 e 2 1\n", 4, "5 fields where a run line has"),
        (read_trec_run, "q Q0 d 1 1\nq Q0 e 2 1 r\n", 1, "5 fields where a run line has"),
        (read_trec_run, "q Q0 d 1 1 r\nq Q0\n", 2, "2 fields where"),
        (read_trec_run, "q Q0 d 1 1 r\nq Q0 e 2 abc r\n", 2, "the score 'abc' is not a number"),
        (read_trec_run, "q Q0 d 1 nan r\n", 1, "the score is NaN"),
        (read_trec_run, "q Q0 d 1 1 r\nq Q0 e 2 1e400 r\n", 2, "the score '1e400' is not finite"),
        (read_trec_run, "q Q0 d 1 1 r\nq Q0 e 2 -inf r\n", 2, "the score '-inf' is not finite"),
        (read_trec_run, "q Q0 d 1 1 r\nq Q0 e 2 1_0 r\n", 2, "the score '1_0' is not a number"),
        (read_trec_run, "q Q0 d 1 \u0661 r\n", 1, "the score '\u0661' is not a number"),
        (read_trec_run, "q Q0 d 1 1 r\nq Q0 e 1.5 1 r\n", 2, "the rank '1.5' is not an integer"),
        (read_trec_run, "q Q0 d x 1 r\n", 1, "the rank 'x' is not a number"),
        (read_trec_qrels, "q 0 d 1\nq 0 e 1 extra\n", 2, "5 fields where a qrels line has exactly"),
        (read_trec_qrels, "q 0 d 1 extra\nq 0 e 1\n", 1, "5 fields where a qrels line has exactly"),
        (read_trec_qrels, "q 0 d 1\nq 0 e 1 x y z\n", 2, "7 fields where a qrels line has exactly"),
        (read_trec_qrels, "q 0 d 1\nq 0 e\n", 2, "3 fields where a qrels line has exactly 4"),
        (read_trec_qrels, "q 0 d 1\nq 0 e high\n", 2, "the relevance 'high' is not a number"),
        (read_trec_qrels, "q 0 d 1\nq 0 e 0.5\n", 2, "the relevance '0.5' is not an integer"),
    ],
)
def test_malformed_line_names_file_line_and_problem(tmp_path, reader, content, line, problem, engine):
    path = _write(tmp_path, content)
    with pytest.raises(ValueError) as info:
        reader(path, engine=engine)
    message = str(info.value)
    assert message.startswith(f"{path}, line {line}: ")
    assert problem in message


@pytest.mark.parametrize("engine", ENGINES)
def test_malformed_line_far_into_a_large_file(tmp_path, engine):
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1 / (i + 1)!r} run" for i in range(200_000)]
    lines[123_456] = "q Q0 d 1 one run"
    path = _write(tmp_path, "\n".join(lines))
    with pytest.raises(ValueError, match=r", line 123457: the score 'one' is not a number"):
        read_trec_run(path, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_utf8_ids_and_byte_order_mark(tmp_path, engine):
    content = "\ufeffq1 Q0 dé 1 1.0 run\nq1 Q0 d\u6587 2 0.5 run\n".encode()
    run = read_trec_run(_write(tmp_path, content), engine=engine)
    assert _rows(run) == [("q1", "dé", 1.0, 1, "run"), ("q1", "d\u6587", 0.5, 2, "run")]


def test_nul_byte_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"line 2: the line holds a NUL byte"):
        read_trec_run(_write(tmp_path, b"q Q0 d 1 1 r\nq Q0 \0 2 1 r\n"))


@pytest.mark.parametrize("engine", ENGINES)
def test_duplicate_pair_is_refused(tmp_path, engine):
    run = "q1 Q0 d1 1 3 r\nq2 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d1 3 1 r\n"
    with pytest.raises(ValueError, match=r"\(query_id='q1', doc_id='d1'\) appears 2 times in the run"):
        read_trec_run(_write(tmp_path, run), engine=engine)
    # Interleaved and split queries: the pair is found across the blocks too.
    run = "q1 Q0 d1 1 3 r\nq2 Q0 d2 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 d1 2 1 r\nq1 Q0 d1 3 1 r\n"
    with pytest.raises(ValueError, match=r"\(query_id='q1', doc_id='d1'\) appears 2 times"):
        read_trec_run(_write(tmp_path, run), engine=engine)
    fine = "q1 Q0 d1 1 3 r\nq2 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\n"
    assert len(read_trec_run(_write(tmp_path, fine), engine=engine)) == 3
    qrels = "q1 0 d1 1\nq1 0 d1 0\n"
    with pytest.raises(ValueError, match=r"\(query_id='q1', doc_id='d1'\) appears 2 times in the qrels"):
        read_trec_qrels(_write(tmp_path, qrels), engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("content", ["", "\n\n  \n", "# only a comment\n"])
def test_empty_file_gives_empty_frame(tmp_path, content, engine):
    run = read_trec_run(_write(tmp_path, content), engine=engine)
    assert run.shape == (0, 5)
    assert run.dtypes["score"] == np.float64 and run.dtypes["rank"] == np.int64
    assert run["query_id"].dtype == pd.Series(["x"]).dtype
    qrels = read_trec_qrels(_write(tmp_path, content), engine=engine)
    assert qrels.shape == (0, 3) and qrels.dtypes["relevance"] == np.int64


def test_unknown_engine(tmp_path):
    with pytest.raises(ValueError, match="engine must be one of"):
        read_trec_run(_write(tmp_path, "q Q0 d 1 1 r\n"), engine="polars")


def test_missing_pandas_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"sklearn-rank-metrics\[trec\]"):
        read_trec_run(_write(tmp_path, "q Q0 d 1 1 r\n"))


@pytest.mark.skipif(not HAS_PYARROW, reason="pyarrow is not installed")
def test_pyarrow_reads_single_separator_files_only():
    assert read_with_pyarrow(b"q Q0 d 1 1.5 r\n", RUN, required=True)[0] is not None
    assert read_with_pyarrow(b"q\tQ0\td\t1\t1.5\tr", RUN, required=True)[0] is not None
    for data in [
        b"q  Q0 d 1 1.5 r\n",  # doubled delimiter
        b" q Q0 d 1 1.5 r",  # leading
        b"q Q0 d 1 1.5 r \n",  # trailing
        b"q Q0\td 1 1.5 r",  # mixed
        b"q  d 1 1.5 r",  # five fields, one of them empty to pyarrow
        b"q Q0 d 1 1.5 r\n\tq",
        b"q  Q0 5 1.5 r\n",  # five fields; to pyarrow, six of the right types, one empty
        b"q Q0 d 1 1.5 \n",  # five fields, the empty sixth one never materialized
    ]:
        with pytest.raises(NeedsDataFramePath):
            read_with_pyarrow(data, RUN, required=True)
        with pytest.raises(NeedsDataFramePath):
            read_arrow_columns(data, RUN, "run.txt", None)
    with pytest.raises(NeedsDataFramePath):  # empty iteration
        read_arrow_columns(b"q  d 1\n", QRELS, "qrels.txt", None)
    assert read_arrow_columns(b"q 0 d 1\n", QRELS, "qrels.txt", None) is not None
    # Extra fields: pandas reads the file.
    with pytest.raises(NeedsDataFramePath):
        read_with_pyarrow(b"q Q0 d 1 1.5 r x\n", RUN, required=True)


@pytest.mark.skipif(HAS_PYARROW, reason="pyarrow is installed")
def test_pyarrow_engine_without_pyarrow(tmp_path):
    with pytest.raises(ImportError, match=r"engine='pyarrow' needs pyarrow"):
        read_trec_run(_write(tmp_path, "q Q0 d 1 1 r\n"), engine="pyarrow")


# --- generated files against the reference -----------------------------------------

_ID = st.text(alphabet="abcXYZ019_-.:#/", min_size=1, max_size=6).filter(
    lambda s: not s.startswith("#")
)
_SEPARATOR = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t"])
_SCORE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def run_files(draw):
    queries = draw(st.lists(_ID, min_size=1, max_size=4, unique=True))
    single = draw(st.booleans())  # one separator throughout, as most tools write
    separator = draw(st.sampled_from([" ", "\t"])) if single else None
    lines = []
    for query in queries:
        docs = draw(st.lists(_ID, min_size=1, max_size=6, unique=True))
        for rank, doc in enumerate(docs, start=1):
            score = draw(_SCORE)
            text = draw(st.sampled_from([repr(score), "%.17g" % score, "%.6e" % score]))
            fields = [query, "Q0", doc, str(rank), text, "run"]
            if not single:
                fields += draw(st.lists(_ID, max_size=2))
                sep = [draw(_SEPARATOR) for _ in fields]
                line = draw(st.sampled_from(["", " ", "\t"])) + "".join(
                    f + s for f, s in zip(fields, sep)
                )
                lines.extend(draw(st.lists(st.sampled_from(["", "  ", "# note"]), max_size=1)))
            else:
                line = separator.join(fields)
            lines.append(line)
    ending = "\n" if single else draw(st.sampled_from(["\n", "\r\n"]))
    return (ending.join(lines) + draw(st.sampled_from(["", ending]))).encode()


@HYPOTHESIS
@given(data=run_files(), zipped=st.booleans())
@pytest.mark.parametrize("engine", ENGINES)
def test_generated_runs_match_reference(tmp_path, data, zipped, engine):
    expected = reference_read(data, "run")
    assume(expected)
    path = _write(tmp_path, gzip.compress(data) if zipped else data)
    run = read_trec_run(path, engine=engine)
    assert _rows(run) == expected
    np.testing.assert_array_equal(run["score"].to_numpy(), [row[2] for row in expected])


@st.composite
def qrels_files(draw):
    lines = []
    for query in draw(st.lists(_ID, min_size=1, max_size=4, unique=True)):
        for doc in draw(st.lists(_ID, min_size=1, max_size=6, unique=True)):
            fields = [query, draw(st.sampled_from(["0", "Q0", "1"])), doc]
            fields.append(str(draw(st.integers(-3, 4))))
            separators = [draw(_SEPARATOR) for _ in fields[1:]]
            lines.append(
                draw(st.sampled_from(["", " "]))
                + fields[0]
                + "".join(s + f for s, f in zip(separators, fields[1:]))
                + draw(st.sampled_from(["", " ", "\t"]))
            )
            lines.extend(draw(st.lists(st.sampled_from(["", "# judged by x"]), max_size=1)))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return (ending.join(lines) + ending).encode()


@HYPOTHESIS
@given(data=qrels_files(), zipped=st.booleans())
@pytest.mark.parametrize("engine", ENGINES)
def test_generated_qrels_match_reference(tmp_path, data, zipped, engine):
    expected = reference_read(data, "qrels")
    path = _write(tmp_path, gzip.compress(data) if zipped else data)
    assert _rows(read_trec_qrels(path, engine=engine)) == expected


@HYPOTHESIS
@given(data=run_files(), line=st.integers(0, 40), bad=st.sampled_from(["x", "q Q0 d 1 s r"]))
@pytest.mark.parametrize("engine", ENGINES)
def test_generated_bad_line_found(tmp_path, data, line, bad, engine):
    lines = data.split(b"\n")
    lines.insert(min(line, len(lines)), bad.encode())
    data = b"\n".join(lines)
    with pytest.raises(ValueError) as expected:
        reference_read(data, "run")
    path = _write(tmp_path, data)
    with pytest.raises(ValueError) as info:
        read_trec_run(path, engine=engine)
    assert str(info.value).startswith(f"{path}, {expected.value}: ")


_NUMBER_TOKENS = st.sampled_from(
    ["1", "-0", "+.5", "1.", "1e5", "1E-05", "inf", "-inf", "Infinity", "nan", "NaN",
     "1e400", "-1e-400", "1_0", "0x10", "1,5", "", "e5", "--1", "1e", "١"]
)  # fmt: skip


@pytest.mark.skipif(not HAS_PYARROW, reason="pyarrow is not installed")
@HYPOTHESIS
@given(tokens=st.lists(_NUMBER_TOKENS, min_size=1, max_size=4))
def test_engines_agree_on_odd_numbers(tmp_path, tokens):
    tokens = [t or "0" for t in tokens]
    data = "".join(f"q Q0 d{i} {i + 1} {t} run\n" for i, t in enumerate(tokens))
    qrels = "".join(f"q 0 d{i} {t}\n" for i, t in enumerate(tokens))
    for reader, content in [(read_trec_run, data), (read_trec_qrels, qrels)]:
        path = _write(tmp_path, content)
        outcomes = []
        for engine in ["pandas", "pyarrow"]:
            try:
                outcomes.append(reader(path, engine=engine))
            except ValueError as exc:
                outcomes.append(str(exc))
        if isinstance(outcomes[0], str):
            assert outcomes[0] == outcomes[1]
        else:
            pd.testing.assert_frame_equal(outcomes[0], outcomes[1])


# --- writing ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["run.txt", "run.txt.gz"])
def test_write_ranks_by_descending_score(tmp_path, name):
    path = tmp_path / name
    write_trec_run(
        path, ["b", "a", "b", "b", "a"], ["d1", "d1", "d2", "d3", "d2"], [0.5, 1, 2, 0.5, 3],
        run_name="mine",
    )  # fmt: skip
    raw = path.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    text = gzip.decompress(raw).decode() if name.endswith(".gz") else raw.decode()
    assert text == (
        "b Q0 d2 1 2.0 mine\nb Q0 d1 2 0.5 mine\nb Q0 d3 3 0.5 mine\n"
        "a Q0 d2 1 3.0 mine\na Q0 d1 2 1.0 mine\n"
    )


def test_write_given_ranks_keeps_order(tmp_path):
    path = tmp_path / "run.txt"
    write_trec_run(path, [1, 1], [10, 20], [0.25, 0.75], rank=[7, 3])
    assert path.read_text() == (
        "1 Q0 10 7 0.25 sklearn_rank_metrics\n1 Q0 20 3 0.75 sklearn_rank_metrics\n"
    )


@HYPOTHESIS
@given(
    scores=st.lists(_SCORE, min_size=1, max_size=50),
    n_queries=st.integers(1, 5),
    zipped=st.booleans(),
)
@pytest.mark.parametrize("engine", ENGINES)
def test_round_trip_is_bit_identical(tmp_path, scores, n_queries, zipped, engine):
    scores = np.array(scores)
    query = np.arange(len(scores)) % n_queries
    doc = [f"doc-{i}" for i in range(len(scores))]
    path = tmp_path / ("run.gz" if zipped else "run.txt")
    write_trec_run(path, query, doc, scores)
    run = read_trec_run(path, engine=engine)
    assert len(run) == len(scores)
    back = dict(zip(run["doc_id"], run["score"]))
    np.testing.assert_array_equal(
        np.array([back[d] for d in doc]).view(np.int64), scores.view(np.int64)
    )
    # Ranks 1.. per query by descending score, equal scores in input order.
    for q, group in run.groupby("query_id", sort=False):
        assert group["rank"].tolist() == list(range(1, len(group) + 1))
        original = [(-s, i) for i, s in enumerate(scores) if query[i] == int(q)]
        assert group["doc_id"].tolist() == [doc[i] for _, i in sorted(original)]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"doc_id": ["a b", "c"]}, r"doc_id 'a b' is empty or holds whitespace"),
        ({"query_id": ["", "q"]}, r"query_id '' is empty or holds whitespace"),
        ({"query_id": ["#q", "q"]}, r"query_id '#q' starts with '#'"),
        ({"score": [1.0, np.nan]}, r"score holds nan at position 1; a run needs a finite"),
        ({"score": [-np.inf, 1.0]}, r"score holds -inf at position 0; a run needs a finite"),
        ({"score": ["1", "2"]}, r"score must be a 1-D array of real numbers"),
        ({"score": [1.0]}, r"The arrays differ in length"),
        ({"doc_id": ["d", "d"], "query_id": ["q", "q"]}, r"\(query_id='q', doc_id='d'\) appears"),
        ({"run_name": "my run"}, r"run_name must be a non-empty string without whitespace"),
        ({"rank": [1.5, 2]}, r"rank must be a 1-D array of integers"),
        # A missing id was written as "nan" or as an empty field (a line that
        # reads back shifted); an id Python cannot encode left a cut-off file.
        ({"doc_id": ["d1", None]}, r"doc_id holds a missing value \(.*\) at position 1"),
        ({"query_id": [np.nan, "q"]}, r"query_id holds a missing value \(nan\) at position 0"),
        ({"doc_id": pd.Series(["d1", pd.NA], dtype="string")}, r"doc_id holds a missing value"),
        ({"doc_id": ["d1", "d\udc80"]}, r"doc_id 'd\\udc80' at position 1 cannot be written"),
        ({"run_name": "r\udc80"}, r"run_name 'r\\udc80' cannot be written as UTF-8"),
        ({"query_id": ["q\tq", "q"]}, r"query_id 'q\\tq' is empty or holds whitespace"),
    ],
)
def test_write_refuses_what_would_not_read_back(tmp_path, kwargs, match):
    arguments = {"query_id": ["q", "q"], "doc_id": ["d1", "d2"], "score": [1.0, 2.0], **kwargs}
    path = tmp_path / "run.txt"
    with pytest.raises(ValueError, match=match):
        write_trec_run(path, **arguments)
    assert not path.exists()


def test_write_integer_scores_exactly(tmp_path):
    # float64 rounded 2**53 + 1 to 2**53: two different scores written equal,
    # and ranked in input order.
    path = tmp_path / "run.txt"
    big = 2**53
    message = rf"the scores {big} and {big + 1} of query 'q' are written exactly, but trec_eval"
    with pytest.warns(UserWarning, match=message):
        write_trec_run(path, ["q", "q", "p"], ["a", "b", "c"], np.array([big, big + 1, -(2**63)]))
    assert path.read_text().splitlines() == [
        f"q Q0 b 1 {big + 1} sklearn_rank_metrics",
        f"q Q0 a 2 {big} sklearn_rank_metrics",
        f"p Q0 c 1 {-(2**63)} sklearn_rank_metrics",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # integers a double holds: no warning
        write_trec_run(path, ["q", "q"], ["a", "b"], np.array([big, big - 1]))
    np.testing.assert_array_equal(read_trec_run(path)["score"], [big, big - 1])


def test_write_replaces_the_file_whole_or_not_at_all(tmp_path):
    # A write that fails part-way (here: the file size limit, as a full disk
    # would) left a cut-off run that read back without error.
    pytest.importorskip("resource")
    if not hasattr(signal, "SIGXFSZ"):
        pytest.skip("no file size limit here")
    path = tmp_path / "run.txt"
    write_trec_run(path, ["q"], ["kept"], [1.0])
    os.chmod(path, 0o640)
    script = (
        "import resource, signal, sys\n"
        "from sklearn_rank_metrics.trec import write_trec_run\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))\n"
        "n = 5000\n"
        "try:\n"
        "    write_trec_run(sys.argv[1], ['q'] * n, [f'd{i}' for i in range(n)], range(n))\n"
        "except OSError:\n"
        "    sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], env=_child_environment())
    assert done.returncode == 3
    assert path.read_text() == "q Q0 kept 1 1.0 sklearn_rank_metrics\n"
    assert os.listdir(tmp_path) == ["run.txt"]  # no temporary file left
    # A successful write replaces it, keeping its mode.
    write_trec_run(path, ["q", "q"], ["a", "b"], [1.0, 2.0])
    assert read_trec_run(path)["doc_id"].tolist() == ["b", "a"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert os.listdir(tmp_path) == ["run.txt"]


def _child_environment():
    """The environment of a child Python that imports this checkout of the package."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}


def test_message_names_file(tmp_path):
    path = _write(tmp_path, "q Q0 d 1 x r\n", "my run.txt")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ", line 1"):
        read_trec_run(path)
