"""Hostile files and the command's failures: truncation while reading, broken gzips, start-up.

A file truncated by another process while it is read gives the bytes as
read or an error naming it, never a dead process; a truncated, corrupt or
bomb-like gzip raises a ValueError naming the file; ``rank-eval`` answers
every failure with one line on stderr and trec_eval's exit status, never a
traceback; and its start-up imports neither scikit-learn, SciPy nor pandas.
Processes that could die are run as children, whose exit is checked.
"""

import gzip
import os
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")

import sklearn_rank_metrics.trec._command as command  # noqa: E402
from sklearn_rank_metrics.trec import (  # noqa: E402
    evaluate_run,
    read_trec_qrels,
    read_trec_run,
)
from sklearn_rank_metrics.trec._files import MAX_INFLATION, MIN_INFLATED_BYTES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
QRELS = "".join(f"q{q} 0 d{q}-{d} {(q + d) % 3}\n" for q in range(20) for d in range(0, 40, 3))
RUN = "".join(
    f"q{q} Q0 d{q}-{d} {d + 1} {100 - d}.5 run\n" for q in range(20) for d in range(30)
)


def _env():
    """The environment of a child Python that imports this checkout's package."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def _child(code, *args, stdout=subprocess.PIPE):
    """Run ``code`` in a child Python; its CompletedProcess (text)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        stdout=stdout, stderr=subprocess.PIPE, text=True, env=_env(), check=False, timeout=120,
    )  # fmt: skip


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


# --- a file truncated while it is read ----------------------------------------------

# The child truncates the file at ``sys.argv[1]`` ("-": none) to nothing the moment the package's
# reader returns its bytes (a profile hook: real code of the interpreter, run between the
# read and the parse), then reads and evaluates as the entry point ``sys.argv[2]`` says
# and prints the result. A reader that maps the file dies of SIGBUS in the parse.
TRUNCATE_AFTER_READ = """
    import os, sys
    target, entry, qrels, run = sys.argv[1:]

    def truncate_after_read(frame, event, arg):
        code = frame.f_code
        if event == "return" and code.co_name == "read_bytes" and "trec" in code.co_filename:
            if os.fspath(frame.f_locals["path"]) == target:
                os.truncate(target, 0)

    from sklearn_rank_metrics.trec import evaluate_run, read_trec_qrels, read_trec_run
    from sklearn_rank_metrics.trec._command import main

    sys.setprofile(truncate_after_read)
    if entry == "read_trec_run":
        print(read_trec_run(run).to_csv())
    elif entry == "read_trec_qrels":
        print(read_trec_qrels(qrels).to_csv())
    elif entry == "evaluate_run":
        print(evaluate_run(qrels, run, metrics=["map", "ndcg@10"]))
    else:
        sys.exit(main(["-q", "-m", "map", "-m", "P.5", qrels, run]))
"""


@pytest.mark.parametrize(
    "entry, target",
    [
        ("read_trec_run", "run"),
        ("read_trec_qrels", "qrels"),
        ("evaluate_run", "run"),
        ("evaluate_run", "qrels"),
        ("rank-eval", "run"),
        ("rank-eval", "qrels"),
    ],
)
def test_a_file_truncated_after_its_read_gives_the_data_as_read(files, tmp_path, entry, target):
    qrels, run = files
    # The same call on untouched copies: what the bytes as read give.
    copies = tmp_path / "copies"
    copies.mkdir()
    for path in files:
        (copies / path.name).write_bytes(path.read_bytes())
    untouched = _child(TRUNCATE_AFTER_READ, "-", entry, copies / qrels.name, copies / run.name)
    assert untouched.returncode == 0, untouched.stderr
    path = {"run": run, "qrels": qrels}[target]
    truncated = _child(TRUNCATE_AFTER_READ, path, entry, qrels, run)
    assert truncated.returncode == 0, (truncated.returncode, truncated.stderr)  # -7: SIGBUS
    assert path.stat().st_size == 0  # the hook did truncate it
    assert truncated.stdout == untouched.stdout


class _DuringRead:
    """A profile hook that changes a file when the reader's first ``readinto`` starts."""

    def __init__(self, path, change):
        self.path, self.change, self.fired = path, change, False

    def __call__(self, frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "readinto" and not self.fired:
            self.fired = True
            self.change(self.path)

    def __enter__(self):
        sys.setprofile(self)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)


def _cut_to(size):
    def cut(path):
        os.truncate(path, size)

    return cut


def _append(text):
    def append(path):
        with open(path, "a") as handle:
            handle.write(text)

    return append


@pytest.mark.parametrize("engine", ["pandas", "auto"])
def test_a_file_truncated_or_grown_during_its_read_gives_the_bytes_read(files, engine):
    _, run = files
    lines = RUN.splitlines(keepends=True)
    # Cut at a line's end: the lines before it.
    with _DuringRead(run, _cut_to(len("".join(lines[:100])))) as hook:
        frame = read_trec_run(run, engine=engine)
    assert hook.fired and len(frame) == 100
    # Cut inside a line: that line is malformed, and the error names the file and the line.
    run.write_text(RUN)
    with _DuringRead(run, _cut_to(len("".join(lines[:100])) + 7)) as hook:
        with pytest.raises(ValueError, match=rf"{run}, line 101: 3 fields"):
            read_trec_run(run, engine=engine)
    assert hook.fired
    # Grown: the lines written meanwhile are read too.
    run.write_text(RUN)
    with _DuringRead(run, _append("q99 Q0 dx 1 1.0 run\n")) as hook:
        frame = read_trec_run(run, engine=engine)
    assert hook.fired and len(frame) == len(lines) + 1 and frame["query_id"].iat[-1] == "q99"


# --- gzip -----------------------------------------------------------------------------


def _broken_gzips(text):
    packed = gzip.compress(text.encode())
    crc = bytearray(packed)
    crc[-8] ^= 0xFF  # the CRC-32 of the trailer
    return {
        "truncated": (packed[: len(packed) // 2], "truncated or corrupt"),
        "no trailer": (packed[:-8], "truncated or corrupt"),
        "crc": (bytes(crc), "truncated or corrupt"),
        "garbage": (b"\x1f\x8b" + b"\x00" * 40, "truncated or corrupt"),
    }


@pytest.mark.parametrize("kind", list(_broken_gzips("x")))
@pytest.mark.parametrize("which", ["run", "qrels"])
def test_a_broken_gzip_raises_naming_the_file(files, tmp_path, kind, which):
    qrels, run = files
    broken = tmp_path / f"broken-{which}.gz"
    data, message = _broken_gzips(RUN if which == "run" else QRELS)[kind]
    broken.write_bytes(data)
    reader = read_trec_run if which == "run" else read_trec_qrels
    for engine in ("pandas", "auto"):
        with pytest.raises(ValueError, match=rf"{broken}: the gzip file is {message}"):
            reader(broken, engine=engine)
    paths = (qrels, broken) if which == "run" else (broken, run)
    with pytest.raises(ValueError, match=rf"{broken}: the gzip file is {message}"):
        evaluate_run(*paths, metrics=["map"])
    status, err = _command_status("-m", "map", *map(str, paths))
    assert status == command.EXIT_INPUT == 2
    assert err.count("\n") == 1 and err.startswith(f"rank-eval: error: {broken}: ")


def test_a_gzip_bomb_is_refused_within_its_bound(tmp_path):
    """A small gzip that inflates far past its bound raises before using memory beyond it."""
    bomb = tmp_path / "bomb.gz"
    size = 4 * MIN_INFLATED_BYTES  # of newlines: about a thousand times smaller packed
    with gzip.open(bomb, "wb", compresslevel=9) as handle:
        block = b"\n" * (1 << 22)
        for _ in range(size // len(block)):
            handle.write(block)
    assert bomb.stat().st_size * MAX_INFLATION < MIN_INFLATED_BYTES  # the bound is the floor
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"{bomb}: the gzip file inflates to more than"):
            read_trec_run(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * MIN_INFLATED_BYTES  # not the 4x inflated whole


def test_a_gzip_within_its_bound_reads_as_the_plain_file(files, tmp_path):
    qrels, run = files
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(RUN.encode()) + gzip.compress(b"q99 Q0 dx 1 1.0 run\n"))
    frame = read_trec_run(packed)  # two gzip members, as `cat a.gz b.gz` makes
    assert len(frame) == len(RUN.splitlines()) + 1
    pd.testing.assert_frame_equal(frame.iloc[:-1], read_trec_run(run))


# --- the command's failures -----------------------------------------------------------


def _command_status(*argv):
    """``main(argv)`` in this process, stdout discarded: (status, stderr)."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = command.main(list(argv), stdout=io.StringIO())
    return status, err.getvalue()


@pytest.mark.parametrize(
    "argv, status",
    [
        (["-x", "QRELS", "RUN"], 1),  # trec_eval: usage, exit 1
        (["-m", "map", "QRELS"], 1),
        (["-m", "nosuch", "QRELS", "RUN"], 1),  # "illegal measure", exit 1
        (["-m", "P.0", "QRELS", "RUN"], 1),
        (["-m", "map", "QRELS", "missing.txt"], 2),  # "Quit in file", exit 2
        (["-m", "map", "QRELS", "BAD"], 2),
    ],
)
def test_errors_exit_with_trec_eval_status(files, tmp_path, argv, status):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1\n")
    paths = {"QRELS": str(files[0]), "RUN": str(files[1]), "BAD": str(bad)}
    got, err = _command_status(*[paths.get(a, a) for a in argv])
    assert got == status
    assert err.count("\n") == 1 and err.startswith("rank-eval: error: ")


COMMAND = "import sys; from sklearn_rank_metrics.trec._command import main; sys.exit(main())"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_disk_is_one_line_and_status_8(files):
    with open("/dev/full", "w") as full:
        completed = _child(COMMAND, "-q", *files, stdout=full)
    assert completed.returncode == command.EXIT_OUTPUT == 8
    assert completed.stderr == "rank-eval: error: cannot write the output: No space left on device\n"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE is POSIX")
def test_a_closed_pipe_ends_quietly_with_the_status_of_sigpipe(files):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone, as `| head -1` after its line
    try:
        completed = _child(COMMAND, "-q", *files, stdout=write_end)
    finally:
        os.close(write_end)
    assert completed.returncode == command.EXIT_BROKEN_PIPE == 128 + 13
    assert completed.stderr == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux has it")
def test_out_of_memory_is_one_line_and_status_3(files, tmp_path):
    big = tmp_path / "big-run.txt"
    with open(big, "wb") as handle:
        handle.truncate(1 << 30)  # a sparse GiB: no disk used, no memory until read
    completed = _child(
        """
        import resource, sys
        from sklearn_rank_metrics.trec._command import main
        main(["-m", "map", sys.argv[1], sys.argv[1].replace("qrels", "run")])  # imports
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
        limit = pages * resource.getpagesize() + (256 << 20)  # less than the GiB
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        sys.exit(main(["-m", "map", sys.argv[1], sys.argv[2]]))
        """,
        files[0], big,
    )  # fmt: skip
    assert completed.returncode == command.EXIT_MEMORY == 3, completed.stderr
    assert completed.stderr == (
        f"rank-eval: error: {big}: not enough memory to read its 1,073,741,824 bytes "
        "(Cannot allocate memory).\n"
    )


# --- start-up -------------------------------------------------------------------------


def _imported(*argv):
    """Top-level packages a child ``python -X importtime -m sklearn_rank_metrics`` imports."""
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sklearn_rank_metrics", *map(str, argv)],
        capture_output=True, text=True, env=_env(), check=False, timeout=120,
    )  # fmt: skip
    names = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in completed.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return completed.returncode, names


HEAVY = {"sklearn", "scipy", "pandas"}


def test_help_imports_nothing_heavy():
    status, names = _imported("--help")
    assert status == 0 and "sklearn_rank_metrics" in names
    assert not names & (HEAVY | {"numpy", "pyarrow"}), names & (HEAVY | {"numpy", "pyarrow"})


def test_an_evaluation_imports_neither_scikit_learn_scipy_nor_pandas(files):
    pytest.importorskip("pyarrow")  # without it, the files are read by pandas
    status, names = _imported("-q", "-m", "all_trec", *files)
    assert status == 0 and "numpy" in names
    assert not names & HEAVY, names & HEAVY


def test_importing_the_package_imports_nothing_heavy():
    completed = _child(
        """
        import sys
        import sklearn_rank_metrics, sklearn_rank_metrics.trec
        print(sorted(name for name in ("sklearn", "scipy", "pandas", "numpy") if name in sys.modules))
        """
    )
    assert completed.returncode == 0 and completed.stdout == "[]\n", completed.stderr
