"""evaluate_run's path from files on Arrow columns, against the DataFrame path.

The reference is the same evaluation on the DataFrames of pandas' reader
(``read_trec_*(engine="pandas")``), which joins by factorizing the ids as
strings. Every case checks first that the Arrow path took the files
(``read_joined`` returns a join), or that it handed them to the DataFrame
path where it must (a duplicate pair, a malformed line, a hash collision).
"""

import gzip
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow", reason="the Arrow path needs pyarrow")

from sklearn_rank_metrics.trec import (  # noqa: E402
    _coded,  # noqa: E402
    evaluate_run,
    read_trec_qrels,
    read_trec_run,
)
from sklearn_rank_metrics.trec._coded import (  # noqa: E402
    KeyTable,
    pair_keys,
    read_joined,
    string_hashes,
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
    assert read_joined(qrels_path, run_path) is None
    pair = "d7" if file == "run" else "d4"
    with pytest.raises(
        ValueError, match=rf"the pair \(query_id='q1', doc_id='{pair}'\) appears 2 times"
    ):
        evaluate_run(qrels_path, run_path)


def test_malformed_lines_are_named_with_their_line_number(tmp_path):
    run = [("q1", "Q0", f"d{i}", i, -i, "r") for i in range(10)]
    run[6] = ("q1", "Q0", "d6", "six", -6, "r")
    qrels_path, run_path = write_files(tmp_path, run, [("q1", 0, "d1", 1)])
    assert read_joined(qrels_path, run_path) is None
    with pytest.raises(ValueError, match=r"run\.txt, line 7: the rank 'six' is not a number"):
        evaluate_run(qrels_path, run_path)


def test_a_hash_collision_never_gives_a_wrong_label(tmp_path, monkeypatch):
    # Keys by row number: run row i and qrels row i collide whatever their
    # ids, so the confirmation must refuse the join and the DataFrame path decide.
    run, qrels = random_lines(4, DOC_IDS["short"])
    qrels_path, run_path = write_files(tmp_path, run, qrels)
    expected, _ = both_paths(qrels_path, run_path)
    def row_keys(queries, docs):
        return _coded._finalize(np.arange(len(docs), dtype=np.uint64))

    monkeypatch.setattr(_coded, "pair_keys", row_keys)
    assert read_joined(qrels_path, run_path) is None
    collided, _ = both_paths(qrels_path, run_path)
    for measure in expected.metrics:
        np.testing.assert_array_equal(collided[measure], expected[measure])


def test_string_hashes_depend_on_the_strings_alone():
    strings = ["", "a", "a" * 8, "a" * 9, "b" * 16, "b" * 17, "é", "x" * 40, "a\tb"] * 3
    one_chunk = pa.chunked_array([pa.array(strings)])
    many = pa.chunked_array([pa.array(strings[i : i + 4]) for i in range(0, len(strings), 4)])
    sliced = pa.array(["pad"] + strings).slice(1)  # a non-zero offset into the buffers
    initial = np.zeros(len(strings), dtype=np.uint64)
    hashes = string_hashes(one_chunk, initial)
    np.testing.assert_array_equal(string_hashes(many, initial), hashes)
    np.testing.assert_array_equal(string_hashes(sliced, initial), hashes)
    # Equal strings, equal hashes; these distinct ones, distinct hashes.
    assert len(set(hashes.tolist())) == len(set(strings))
    same_length = pa.array(["abcdefghij", "abcdefghik", "bbcdefghij"])
    assert len(set(string_hashes(same_length, np.zeros(3, np.uint64)).tolist())) == 3
    # The start value (the query) tells pairs of one document apart.
    keys = pair_keys(np.array([0, 1, 0]), pa.array(["d", "d", "d"]))
    assert keys[0] == keys[2] != keys[1]


def test_key_table_finds_every_key_and_sees_repeats():
    rng = np.random.default_rng(0)
    n = 5000
    keys = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + 1
    # Queries of very different sizes, interleaved; one key in two queries.
    queries = np.minimum(rng.geometric(0.01, n), 40)[rng.permutation(n)]
    keys[1] = keys[0]
    queries[1] = (queries[0] + 1) % 41
    table = KeyTable(keys, queries, 41)
    assert not table.repeated
    wanted = np.concatenate((np.arange(0, n, 7), [0, 1, 2]))
    wanted_keys = np.concatenate((keys[wanted], keys[:50] + np.uint64(2)))
    wanted_queries = np.concatenate((queries[wanted], queries[:50]))
    wanted_queries[-51] = (queries[2] + 3) % 41  # keys[2] asked in another query
    expected = {(int(k), int(q)): row for row, (k, q) in enumerate(zip(keys, queries))}
    found = table.find(wanted_keys, wanted_queries)
    assert found.tolist() == [
        expected.get((int(k), int(q)), -1) for k, q in zip(wanted_keys, wanted_queries)
    ]
    for where in (0, 2500, 4999):
        twice = KeyTable(np.append(keys, keys[where]), np.append(queries, queries[where]), 41,
                         find=False)  # fmt: skip
        assert twice.repeated
    # Keys crowded in few slots are reported as maybe repeated: the caller's exact path.
    crowded = np.zeros(1000, dtype=np.uint64)
    assert KeyTable(crowded + np.arange(1000, dtype=np.uint64), np.zeros(1000, np.intp), 1).repeated


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
    codes, ids = _coded._query_codes(pc, column)
    ids = ids.to_pylist()
    assert [ids[code] for code in codes] == column.to_pylist()
    assert sorted(ids) == sorted(set(column.to_pylist()))
