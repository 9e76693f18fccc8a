"""evaluate_run's path from files on Arrow columns, against the DataFrame path.

The reference is the same evaluation on the DataFrames of pandas' reader
(``read_trec_*(engine="pandas")``), which joins by factorizing the ids as
strings. Every case checks first that the Arrow path took the files
(``read_joined`` returns a join), or that it handed them to the DataFrame
path where it must (``NeedsDataFramePath``) (a duplicate pair, a malformed line, a hash collision).
"""

import gzip
import re
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow", reason="the Arrow path needs pyarrow")

from sklearn_rank_metrics.trec import (  # noqa: E402
    _join,
    _queries,
    evaluate_run,
    read_trec_qrels,
    read_trec_run,
)
from sklearn_rank_metrics.trec._coded import read_joined  # noqa: E402
from sklearn_rank_metrics.trec._format import NeedsDataFramePath  # noqa: E402
from sklearn_rank_metrics._engine.prepare._hashing import SlotTables, string_keys  # noqa: E402
from sklearn_rank_metrics.trec._join import (  # noqa: E402
    GroupedFile,
    Scratch,
    StringRows,
    match_pairs,
)

MEASURES = ["map", "ndcg@10", "precision@5", "recall@100", "mrr", "bpref", "num_ret"]


def write_files(folder, run_lines, qrels_lines, *, separator=" ", compress=False):
    """The run and qrels files of the given (fields...) lines; their paths."""
    paths = []
    for name, lines in (("qrels.txt", qrels_lines), ("run.txt", run_lines)):
        text = "".join(separator.join(map(str, line)) + "\n" for line in lines).encode()
        path = folder / (name + ".gz" if compress else name)
        path.write_bytes(gzip.compress(text) if compress else text)
        paths.append(path)
    return paths


def random_lines(seed, doc_id, *, n_queries=25, grouped=True, ties=False):
    """Run and qrels lines: shared documents, unjudged and missed ones, grades -1..3."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(n_queries):
        query = f"q{q}"
        pool = sorted({doc_id(int(i)) for i in rng.integers(0, 400, 60)})
        retrieved = list(rng.choice(pool, size=rng.integers(1, len(pool)), replace=False))
        scores = rng.integers(0, 5, len(retrieved)) / 4 if ties else rng.random(len(retrieved))
        for rank, (doc, score) in enumerate(zip(retrieved, np.sort(scores)[::-1])):
            run.append((query, "Q0", doc, rank + 1, repr(float(score)), "run"))
        for doc in rng.choice(pool, size=rng.integers(1, len(pool)), replace=False):
            qrels.append((query, 0, doc, int(rng.integers(-1, 4))))
    if not grouped:
        run = [run[i] for i in rng.permutation(len(run))]
        qrels = [qrels[i] for i in rng.permutation(len(qrels))]
    return run, qrels


def takes_arrow_path(qrels_path, run_path):
    """Whether the Arrow path joins the files (else it hands them to the DataFrame path)."""
    try:
        return read_joined(qrels_path, run_path) is not None
    except NeedsDataFramePath:
        return False


def both_paths(qrels_path, run_path, **options):
    """Per-query results of the files, and of pandas' DataFrames of them."""
    options = {"metrics": MEASURES, "average": None, "missing_queries": "zero", **options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_files = evaluate_run(qrels_path, run_path, **options)
        from_frames = evaluate_run(
            read_trec_qrels(qrels_path, engine="pandas"),
            read_trec_run(run_path, engine="pandas"),
            **options,
        )
    return from_files, from_frames


def assert_same(qrels_path, run_path, **options):
    assert read_joined(qrels_path, run_path) is not None  # the Arrow path took the files
    from_files, from_frames = both_paths(qrels_path, run_path, **options)
    assert list(from_files.query_ids) == list(from_frames.query_ids)
    for measure in from_files.metrics:
        np.testing.assert_array_equal(from_files[measure], from_frames[measure])
    return from_files


DOC_IDS = {
    "short": lambda i: f"d{i}",
    "clueweb": lambda i: f"clueweb12-{i % 97:04d}tw-{i % 13:02d}-{i:05d}",
    "numeric": lambda i: str(i * 7919 % 10**6),
    "zeros": lambda i: f"{i % 50:0{1 + i % 4}d}",  # '7', '07', '007': distinct ids
    "unicode": lambda i: ["é", "ｚ", "\U0001f600", "dé"][i % 4] + str(i // 4),
    "lengths": lambda i: "x" * (i % 23 + 1) + str(i),  # across the 8-byte words
}


@pytest.mark.parametrize("doc_kind", list(DOC_IDS))
@pytest.mark.parametrize("ties", ["trec_eval", "first", "average"])
def test_arrow_path_equals_the_dataframe_path(tmp_path, doc_kind, ties):
    run, qrels = random_lines(1, DOC_IDS[doc_kind], ties=ties != "average")
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    measures = MEASURES if ties != "average" else ["map", "ndcg@10", "precision@5", "mrr"]
    assert_same(qrels_path, run_path, ties=ties, metrics=measures)


@pytest.mark.parametrize("separator", [" ", "\t"])
@pytest.mark.parametrize("compress", [False, True])
def test_tabs_spaces_and_gzip(tmp_path, separator, compress):
    run, qrels = random_lines(2, DOC_IDS["clueweb"], ties=True)
    qrels_path, run_path = write_files(
        tmp_path, run, qrels, separator=separator, compress=compress
    )
    assert_same(qrels_path, run_path, ties="trec_eval", max_docs=20)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize(
    "change",
    ["byte order mark", "comment lines", "vertical tab in an id", "'#' inside ids only"],
)
def test_bytes_that_need_normalizing_are_read_normalized(tmp_path, monkeypatch, change, n_threads):
    """pyarrow parses the bytes as read while a helper checks them; changed ones are read again."""
    import sklearn_rank_metrics
    from sklearn_rank_metrics._engine import _threads

    monkeypatch.setattr(_threads, "MIN_ROWS_FOR_THREADS", 0)  # threads for these small files

    run, qrels = random_lines(6, DOC_IDS["short"])
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    text = run_path.read_bytes()
    lines = text.splitlines(keepends=True)
    if change == "byte order mark":
        text = b"\xef\xbb\xbf" + text
    elif change == "comment lines":
        text = b"# a run\n" + b"".join(lines[:5]) + b"  # halfway\n" + b"".join(lines[5:])
    elif change == "vertical tab in an id":  # trec_eval splits there: a seventh field, ignored
        text = text.replace(b" run\n", b" run\vx\n", 1)
    else:
        text = text.replace(b"Q0", b"Q#0")
    run_path.write_bytes(text)
    with sklearn_rank_metrics.config_context(n_threads=n_threads):
        from_files, from_frames = both_paths(qrels_path, run_path)
        arrow_path = takes_arrow_path(qrels_path, run_path)
    assert list(from_files.query_ids) == list(from_frames.query_ids)
    for measure in from_files.metrics:
        np.testing.assert_array_equal(from_files[measure], from_frames[measure])
    # A vertical tab makes a line of seven fields: pandas reads that file.
    assert arrow_path == (change != "vertical tab in an id")


@pytest.mark.parametrize("n_threads", [1, 2])
def test_a_nul_byte_is_refused_naming_the_file(tmp_path, monkeypatch, n_threads):
    import sklearn_rank_metrics
    from sklearn_rank_metrics._engine import _threads

    monkeypatch.setattr(_threads, "MIN_ROWS_FOR_THREADS", 0)

    run, qrels = random_lines(7, DOC_IDS["short"])
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    run_path.write_bytes(run_path.read_bytes().replace(b"Q0", b"Q\x000", 1))
    with sklearn_rank_metrics.config_context(n_threads=n_threads):
        with pytest.raises(ValueError, match=r"run\.txt, line 1: the line holds a NUL byte"):
            evaluate_run(qrels_path, run_path)


def test_interleaved_queries_and_options(tmp_path):
    run, qrels = random_lines(3, DOC_IDS["numeric"], grouped=False, ties=True)
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    for options in (
        {"ties": "trec_eval", "trec_eval_version": "9"},
        {"ties": "trec_eval", "max_docs": 5, "judged_only": True},
        {"ties": "first", "relevance_level": 2, "missing_queries": "ignore"},
    ):
        assert_same(qrels_path, run_path, **options)


def test_ids_that_look_like_numbers_stay_text(tmp_path):
    # '7', '07' and '007' are three documents and three queries, as trec_eval reads them.
    qrels_path, run_path = write_files(
        tmp_path,
        [("7", "Q0", "007", 1, 3, "r"), ("7", "Q0", "7", 2, 2, "r"), ("07", "Q0", "07", 1, 1, "r"),
         ("007", "Q0", "7", 1, 1, "r")],
        [("7", 0, "7", 1), ("7", 0, "07", 1), ("07", 0, "007", 2), ("007", 0, "7", 1)],
    )  # fmt: skip
    results = assert_same(qrels_path, run_path, metrics=["map", "recall@10"])
    assert list(results.query_ids) == ["007", "07", "7"]
    np.testing.assert_array_equal(results["map"], [1.0, 0.0, 0.25])


def test_one_document_in_many_queries_is_judged_per_query(tmp_path):
    qrels_path, run_path = write_files(
        tmp_path,
        [(f"q{q}", "Q0", "shared", 1, 1.0, "r") for q in range(50)],
        [(f"q{q}", 0, "shared", q % 3 - 1) for q in range(50)],
    )
    results = assert_same(qrels_path, run_path, metrics=["precision@1", "num_rel_ret"])
    relevant = [int(query[1:]) % 3 == 2 for query in results.query_ids]  # grade q % 3 - 1
    np.testing.assert_array_equal(results["num_rel_ret"], relevant)


@pytest.mark.parametrize("file", ["run", "qrels"])
def test_duplicate_pairs_go_to_the_dataframe_path_and_are_named(tmp_path, file):
    run = [("q1", "Q0", f"d{i}", i, -i, "r") for i in range(20)]
    qrels = [("q1", 0, f"d{i}", 1) for i in range(0, 40, 2)]
    if file == "run":
        run.append(("q1", "Q0", "d7", 30, -30, "r"))
    else:
        qrels.append(("q1", 0, "d4", 0))
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    with pytest.raises(NeedsDataFramePath):
        read_joined(qrels_path, run_path)
    pair = "d7" if file == "run" else "d4"
    with pytest.raises(
        ValueError, match=rf"the pair \(query_id='q1', doc_id='{pair}'\) appears 2 times"
    ):
        evaluate_run(qrels_path, run_path)


def test_malformed_lines_are_named_with_their_line_number(tmp_path):
    run = [("q1", "Q0", f"d{i}", i, -i, "r") for i in range(10)]
    run[6] = ("q1", "Q0", "d6", "six", -6, "r")
    qrels_path, run_path = write_files(tmp_path, run, [("q1", 0, "d1", 1)])
    with pytest.raises(NeedsDataFramePath):
        read_joined(qrels_path, run_path)
    with pytest.raises(ValueError, match=r"run\.txt, line 7: the rank 'six' is not a number"):
        evaluate_run(qrels_path, run_path)


@pytest.mark.parametrize("file, line, problem", [
    ("qrels", ("q1", 0, "d1", "0x10"), "the relevance '0x10' is not a number"),
    ("run", ("q1", "Q0", "d1", "0x1F", 2.5, "r"), "the rank '0x1F' is not a number"),
])  # fmt: skip
def test_integers_in_other_notations_are_refused_as_the_readers_refuse_them(
    tmp_path, file, line, problem
):
    # pyarrow's integer parser reads 0x10 as 16; the files' integers are read as
    # pandas reads them, so the Arrow path refuses them too and the error names the line.
    run, qrels = [("q1", "Q0", "d1", 1, 2.5, "r")], [("q1", 0, "d1", 1)]
    if file == "run":
        run = [line]
    else:
        qrels = [line]
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    with pytest.raises(NeedsDataFramePath):
        read_joined(qrels_path, run_path)
    with pytest.raises(ValueError, match=rf"{file}\.txt, line 1: {re.escape(problem)}"):
        evaluate_run(qrels_path, run_path)


@pytest.mark.parametrize("collide", ["rows", "rows of a query"])
def test_a_hash_collision_never_gives_a_wrong_label(tmp_path, monkeypatch, collide):
    # Keys by row number in the block (or in the query, queries mixed in):
    # run row i and qrels row i collide whatever their ids, so the
    # confirmation (on the query, then on the bytes) must refuse the join and
    # the DataFrame path decide.
    run, qrels = random_lines(4, DOC_IDS["short"])
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    expected, _ = both_paths(qrels_path, run_path)

    def row_keys(words, lengths, queries):
        rows = np.arange(lengths.shape[0], dtype=np.uint64)
        if collide == "rows of a query":
            first = np.searchsorted(queries, queries)  # the block's queries are grouped
            rows = (rows - first.astype(np.uint64)) * np.uint64(1000) + queries.astype(np.uint64)
        return rows * np.uint64(0x9E3779B97F4A7C15)

    monkeypatch.setattr(_join, "string_keys", row_keys)
    with pytest.raises(NeedsDataFramePath):
        read_joined(qrels_path, run_path)
    collided, _ = both_paths(qrels_path, run_path)
    for measure in expected.metrics:
        np.testing.assert_array_equal(collided[measure], expected[measure])


@pytest.mark.parametrize("order", ["same", "run reversed", "qrels shuffled", "run interleaved"])
def test_files_in_other_query_orders(tmp_path, order):
    """Queries only one file has, between the shared ones; both files in different orders."""
    run, qrels = random_lines(5, DOC_IDS["clueweb"], n_queries=40, ties=True)
    rng = np.random.default_rng(5)
    run = [line for line in run if int(line[0][1:]) % 7 != 3]  # judged queries the run lacks
    qrels = [line for line in qrels if int(line[0][1:]) % 11 != 4]  # run queries without judgments
    by_query = lambda lines: [[x for x in lines if x[0] == q] for q in dict.fromkeys(x[0] for x in lines)]
    if order == "run reversed":
        run = [line for group in by_query(run)[::-1] for line in group]
    elif order == "qrels shuffled":
        groups = by_query(qrels)
        qrels = [line for i in rng.permutation(len(groups)) for line in groups[i]]
    elif order == "run interleaved":
        run = [run[i] for i in rng.permutation(len(run))]
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    assert_same(qrels_path, run_path, ties="trec_eval")


@pytest.mark.parametrize("block_rows", [1, 7, 50])
def test_blocks_threads_and_chunks_find_the_same_pairs(block_rows, monkeypatch):
    """Blocks of any size, on threads, over Arrow columns of many chunks: every pair found."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(_join, "BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(block_rows)
    lengths = rng.integers(0, 30, 60)  # rows per query; some queries in one file only
    judged_lengths = rng.integers(0, 12, 60)
    lengths[0], judged_lengths[0] = 5, 4
    lengths[5], judged_lengths[5] = 0, 3  # judged, not retrieved: a block without run rows
    docs = [DOC_IDS["lengths"](int(i)) for i in range(500)]
    run_docs, judged_docs, expected = [], [], set()
    for query in range(60):
        retrieved = rng.choice(500, lengths[query], replace=False)
        judged = rng.choice(500, judged_lengths[query], replace=False)
        run_docs += [docs[i] for i in retrieved]
        judged_docs += [docs[i] for i in judged]
        position = {doc: row for row, doc in enumerate(retrieved, len(run_docs) - len(retrieved))}
        start = len(judged_docs) - len(judged)
        expected |= {(start + k, position[doc]) for k, doc in enumerate(judged) if doc in position}
    sequence = np.arange(60)

    def grouped(counts, strings):
        queries = np.repeat(sequence, counts)
        cuts = sorted(set(rng.integers(0, len(strings), 5).tolist()) | {0, len(strings)})
        column = pa.chunked_array(
            [pa.array(strings[a:b], pa.string()) for a, b in zip(cuts[:-1], cuts[1:])],
            type=pa.string(),
        )
        return GroupedFile(queries, np.concatenate(([0], np.cumsum(counts))), StringRows(column))

    run, judged = grouped(lengths, run_docs), grouped(judged_lengths, judged_docs)
    for pool, n_threads in ((None, 1), (ThreadPoolExecutor(3), 3)):
        judged_rows, run_rows = match_pairs(run, judged, pool, n_threads)
        assert set(zip(judged_rows.tolist(), run_rows.tolist())) == expected
    # A pair twice in the run or in the qrels gives up.
    assert match_pairs(grouped(lengths, run_docs[:1] + run_docs[:1] + run_docs[2:]), judged) is None
    assert match_pairs(run, grouped(judged_lengths, judged_docs[:1] * 2 + judged_docs[2:])) is None


def test_string_keys_depend_on_the_strings_and_queries_alone():
    strings = ["", "a", "a" * 8, "a" * 9, "b" * 16, "b" * 17, "é", "x" * 40, "a\tb"] * 3
    columns = [
        pa.chunked_array([pa.array(strings)]),
        pa.chunked_array([pa.array(strings[i : i + 4]) for i in range(0, len(strings), 4)]),
        pa.array(["pad"] + strings).slice(1),  # a non-zero offset into the buffers
        pa.array(strings, pa.large_string()),
    ]
    def keys(column, start=0, stop=len(strings)):
        words, lengths = StringRows(column).words(start, stop, Scratch())
        return string_keys(words, lengths, np.zeros(stop - start, dtype=np.intp))

    reference = keys(columns[0])
    for column in columns[1:]:
        np.testing.assert_array_equal(keys(column), reference)
        np.testing.assert_array_equal(keys(column, 5, 20), reference[5:20])  # across chunks
    # Equal strings, equal keys; these distinct ones, distinct keys.
    assert len(set(reference.tolist())) == len(set(strings))
    # Strings of one length (a reshape of the bytes) and the same strings among others.
    same_length = ["abcdefghij", "abcdefghik", "bbcdefghij"]
    alone = keys(pa.array(same_length), 0, 3)
    mixed = keys(pa.array(same_length + ["a", "z" * 30]), 0, 5)  # a shorter and a longer one
    assert len(set(alone.tolist())) == 3
    np.testing.assert_array_equal(alone, mixed[:3])
    # The query tells pairs of one document apart.
    words, lengths = StringRows(pa.array(["d", "d", "d"])).words(0, 3, Scratch())
    pair_keys = string_keys(words, lengths, np.array([0, 1, 0]))
    assert pair_keys[0] == pair_keys[2] != pair_keys[1]


def test_ids_as_words_are_their_bytes_and_refuse_a_blow_up():
    strings = ["abcdefgh1", "x", "", "é" * 5, "abcdefgh1"]
    for column in (pa.array(strings), pa.chunked_array([pa.array(strings[:2]), pa.array(strings[2:])])):
        words, lengths = StringRows(column).words(0, 5, Scratch())
        assert lengths.tolist() == [len(x.encode()) for x in strings]
        assert [words[i].tobytes()[: lengths[i]].decode() for i in range(5)] == strings
        assert not words.view(np.uint8).reshape(5, -1)[[1, 2], 1:].any()  # zeros past the end
        assert words[0].tolist() == words[4].tolist()
    # One long id among many short ones would make a matrix many times the bytes.
    many = pa.array(["d"] * 100_000 + ["x" * 1000])
    assert StringRows(many).words(0, 100_001, Scratch()) is None
    assert StringRows(many).words(0, 100_000, Scratch()) is not None


def test_slot_tables_find_every_key_and_see_repeats():
    rng = np.random.default_rng(0)
    n = 5000
    keys = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    tables = SlotTables(keys)
    assert not tables.repeated and len(tables.levels) > 1
    wanted = np.concatenate((keys[::7], keys[:3], keys[:50] + np.uint64(2)))
    expected = {int(k): row for row, k in enumerate(keys)}
    assert tables.find(wanted).tolist() == [expected.get(int(k), -1) for k in wanted]
    for where in (0, 2500, 4999):
        assert SlotTables(np.append(keys, keys[where])).repeated
    # Keys crowded in few slots are reported as maybe repeated: the caller's exact path.
    assert SlotTables(np.arange(1000, dtype=np.uint64)).repeated
    assert SlotTables(np.zeros(0, np.uint64)).find(keys[:3]).tolist() == [-1, -1, -1]


@pytest.mark.parametrize(
    "chunks",
    [
        [["q1", "q1", "q2"], ["q2", "q2", "q10"]],  # grouped, a query across two chunks
        [["q1", "q2", "q1"], ["q10", "q2"]],  # interleaved: dictionary encoding
    ],
)
def test_query_codes_of_chunked_ids(chunks):
    import pyarrow.compute as pc

    column = pa.chunked_array([pa.array(chunk) for chunk in chunks])
    codes, ids, grouped = _queries.arrow_query_codes(pc, column)
    ids = ids.to_pylist()
    assert [ids[code] for code in codes] == column.to_pylist()
    assert sorted(ids) == sorted(set(column.to_pylist()))
    assert grouped == (chunks[0][1] == "q1")
