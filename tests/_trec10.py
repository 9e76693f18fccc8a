"""Cases for the differential test against trec_eval 10, and the recorded goldens.

Every case is a qrels file, a run file and a list of ``rank-eval`` /
trec_eval arguments, written deterministically from its number (Python's
``random.Random``, whose sequence is fixed across versions). The files
hold what trec_eval meets in practice and at its edges: tied scores
(ordered by document id), graded and negative grades, topics without a
relevant document or with only negative grades, unjudged documents (empty
topics under ``-J``), run topics without judgments, judged topics the run
missed (with ``-c``), documents repeated below the ``-M`` cut, and means
that fall exactly on a 5 in the fifth decimal.

``python tests/_trec10.py`` with ``TREC_EVAL`` naming a trec_eval 10
binary rewrites ``tests/data/trec_eval10.json.gz``: for every case, a
digest of its files and arguments and trec_eval's stdout. The test
compares ``rank-eval``'s stdout with it, text for text, without the
binary (and with the binary, against the binary itself).
"""

import gzip
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys

GOLDENS = os.path.join(os.path.dirname(__file__), "data", "trec_eval10.json.gz")

# Flags and measures: every flag alone and in pairs, parameterised measures.
FLAG_SETS = [
    [], ["-c"], ["-J"], ["-M", "5"], ["-l", "2"], ["-n"], ["-c", "-J"], ["-c", "-M", "3"],
    ["-J", "-M", "4"], ["-l", "0"], ["-c", "-l", "2"], ["-M", "1", "-J", "-c"],
]  # fmt: skip
MEASURE_SETS = [
    ["-m", "all_trec"],
    # Not with ndcg_cut: trec_eval's rbp reads its min and max uninitialised, and
    # after ndcg_cut's computation they hold what it left on the stack.
    ["-m", "P.5,10", "-m", "rbp.p=0.5", "-m", "recall.3,7", "-m", "Rprec"],
    ["-m", "official"],
    ["-m", "success.1,3", "-m", "map_cut.2,4", "-m", "rbp_resid.p=0.8", "-m", "ndcg_cut.5"],
    ["-m", "iprec_at_recall.0.25,0.5", "-m", "Rprec_mult.0.5,1.5", "-m", "relative_P.3"],
]
# trec_eval prints relstring, a string of grades this package does not offer.
SKIPPED = ("relstring",)


def _ties_at_five(rng, n_queries):
    """recip_rank values 1, 1/2 and 0 whose mean ends in 5 at the 5th decimal (4.5 / 16)."""
    ranks = [1] * 4 + [2] + [0] * (n_queries - 5)
    rng.shuffle(ranks)
    return ranks


def write_case(directory, number):
    """Write case ``number``'s qrels and run; return ``(qrels, run, arguments)``."""
    rng = random.Random(number)
    flags = FLAG_SETS[number % len(FLAG_SETS)]
    measures = MEASURE_SETS[(number // len(FLAG_SETS)) % len(MEASURE_SETS)]
    complete = "-c" in flags
    max_docs = int(flags[flags.index("-M") + 1]) if "-M" in flags else None
    kind = number % 7
    n_queries = 16 if kind == 6 else rng.randint(1, 9)
    max_grade = rng.choice([1, 1, 2, 3, 4, 10])
    qrels, run = [], []
    firsts = _ties_at_five(rng, n_queries) if kind == 6 else None
    for q in range(n_queries):
        query = rng.choice([f"{q}", f"q{q:02d}", f"topic.{q}", f"{q}0"])
        n_docs = rng.randint(0 if q and complete else 1, 25)  # trec_eval 10 stops without -c
        # kind 3: short ids that tie by score and sort as bytes (UTF-8 among them)
        pool = [f"D{rng.randint(0, 40)}-{i}" if kind != 3 else f"d{i}{'é' * (i % 3)}"
                for i in range(30)]  # fmt: skip
        if kind == 1:  # ties: few score values
            scores = [rng.randint(0, 3) / 2 for _ in range(n_docs)]
        elif kind == 2:  # many ties: large magnitudes, signed zeros, subnormals
            scores = [rng.choice([-2e9, -1e9, -0.0, 0.0, 5e-324, 1e-310, 1e9, 2e9])
                      for _ in range(n_docs)]  # fmt: skip
        else:
            scores = [round(rng.random(), rng.choice([2, 6, 12])) for _ in range(n_docs)]
        docs = pool[:n_docs]
        if kind == 6:
            docs, scores = pool[:4], [4.0, 3.0, 2.0, 1.0]
        judged = rng.sample(pool, rng.randint(0, 14))
        if kind == 6:
            judged = [pool[firsts[q] - 1]] if firsts[q] else [pool[20]]
        for doc in judged:
            grade = 1 if kind == 6 else rng.randint(-1, max_grade)
            if kind == 4 and q % 3 == 1:
                grade = rng.choice([-1, 0])  # no relevant document, or none judged >= 0
            qrels.append(f"{query} 0 {doc} {grade}")
        if not judged:
            qrels.append(f"{query} 0 unretrieved-{q} {rng.randint(0, max_grade)}")
        lines = [(query, doc, score) for doc, score in zip(docs, scores)]
        if max_docs is not None and len(lines) > max_docs + 1 and rng.random() < 0.5:
            # A document repeated below the cut: trec_eval checks only the top M.
            lines.append((query, docs[0], min(scores) - 1.0))
        if complete and q and rng.random() < 0.3:
            lines = []  # a judged topic the run missed
        run.extend(lines)
    run.append(("unjudged-topic", "X1", 1.0))  # run topic without judgments
    rng.shuffle(run) if kind == 5 else None
    run_lines = [
        f"{query} Q0 {doc} {rank} {score!r} run{number}" for rank, (query, doc, score) in
        enumerate(run, 1)
    ]  # fmt: skip
    paths = os.path.join(directory, f"qrels{number}"), os.path.join(directory, f"run{number}")
    for path, lines in zip(paths, (qrels, run_lines)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return paths[0], paths[1], flags + ["-q"] + measures


def digest(qrels, run, arguments):
    """A digest of a case's files and arguments: the goldens are of these inputs."""
    h = hashlib.sha256(" ".join(arguments).encode())
    for path in (qrels, run):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def without_skipped(text):
    """trec_eval's output without the lines of measures this package does not offer."""
    return "".join(
        line for line in text.splitlines(True) if line.split("\t", 1)[0].strip() not in SKIPPED
    )


def trec_eval_binary():
    """The trec_eval named by ``TREC_EVAL``, else ``trec_eval`` on PATH, else None."""
    return os.environ.get("TREC_EVAL") or shutil.which("trec_eval")


def run_trec_eval(binary, qrels, run, arguments):
    """``(status, stdout)`` of trec_eval on a case, relstring left out."""
    done = subprocess.run(
        [binary, *arguments, qrels, run], capture_output=True, encoding="utf-8", timeout=60
    )
    return done.returncode, without_skipped(done.stdout)


def read_goldens():
    with gzip.open(GOLDENS, "rt", encoding="utf-8") as f:
        return json.load(f)


def write_goldens(binary, numbers, directory):
    """Record trec_eval's output for the cases ``numbers`` (those where it prints numbers)."""
    goldens = {}
    for number in numbers:
        qrels, run, arguments = write_case(directory, number)
        status, text = run_trec_eval(binary, qrels, run, arguments)
        if status == 0:
            goldens[str(number)] = {"digest": digest(qrels, run, arguments), "stdout": text}
    with gzip.GzipFile(GOLDENS, "wb", mtime=0) as f:
        f.write(json.dumps(goldens, indent=0, sort_keys=True).encode("utf-8"))
    return goldens


if __name__ == "__main__":
    import tempfile

    binary = trec_eval_binary()
    if binary is None:
        sys.exit("set TREC_EVAL to a trec_eval 10 binary")
    with tempfile.TemporaryDirectory() as directory:
        written = write_goldens(binary, range(int(sys.argv[1]) if len(sys.argv) > 1 else 120),
                                directory)  # fmt: skip
    print(f"{len(written)} cases recorded in tests/data/{os.path.basename(GOLDENS)}")
