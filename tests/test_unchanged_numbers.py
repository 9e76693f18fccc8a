"""Every number of a corpus recorded before a change of the engine, reproduced bit for bit.

``tests/data/unchanged_numbers.json.gz`` holds inputs, public calls and their
results (``tests/_record_corpus.py`` writes it): every measure the names
table offers under every tie mode, gain and ``no_relevant`` convention, on
2-D, flat interleaved, grouped and string-id input, with ``n_relevant``,
``sample_weight``, ``relevance_level``, float32 labels and integer scores;
the metric functions; ``evaluate_run`` on TREC files and DataFrames; the
``rank-eval`` command's output; metric@k curves; dask; and ``compare``.
Each case is replayed on the current tree and its result compared with the
stored one: the same query ids, the same dtypes, the same bits of every
float (NaN where NaN was), the same text, the same error type where the call
raised.

Where numpy, SciPy, the machine or the CPU features numpy uses differ from
those of the recording (the last bit of a logarithm can), floats are
compared to 4 units in the last place instead, and the resampling tests of
``compare`` (numpy's random streams) are skipped: bit for bit holds where
the corpus was recorded.
"""

import gzip
import json
import re

import numpy as np
import pytest

import _record_corpus as corpus

with gzip.open(corpus.CORPUS, "rt", encoding="utf-8") as _f:
    CORPUS = json.load(_f)
CASES = CORPUS["cases"]
SAME_ENVIRONMENT = CORPUS["environment"] == corpus.environment()
ULPS = 4


def _differences(expected, actual, exact, path="result"):
    """Where two encoded results differ: a list of messages (empty when they agree)."""
    if isinstance(expected, dict) and "array" in expected:
        if not (isinstance(actual, dict) and "array" in actual):
            return [f"{path}: an array was expected, got {actual!r:.200}"]
        return _array_differences(expected, actual, exact, path)
    if isinstance(expected, dict) and "float" in expected:
        if not (isinstance(actual, dict) and "float" in actual):
            return [f"{path}: a float was expected, got {actual!r:.200}"]
        if expected == actual:
            return []
        a, b = np.array([float.fromhex(expected["float"])]), np.array([float.fromhex(actual["float"])])
        if not exact and not _float_differences(a, b):
            return []
        return [f"{path}: {a[0]!r} expected, got {b[0]!r}"]
    if isinstance(expected, dict) and "dict" in expected and isinstance(actual, dict) and "dict" in actual:
        keys = [corpus.decode(key) for key, _ in expected["dict"]]
        other = [corpus.decode(key) for key, _ in actual["dict"]]
        if keys != other:
            return [f"{path}: keys {keys} expected, got {other}"]
        out = []
        for key, (_, e), (_, a) in zip(keys, expected["dict"], actual["dict"]):
            out += _differences(e, a, exact, f"{path}[{key!r}]")
        return out
    if isinstance(expected, dict) and isinstance(actual, dict):
        if list(expected) != list(actual):
            return [f"{path}: {expected!r:.300} expected, got {actual!r:.300}"]
        out = []
        for key in expected:
            out += _differences(expected[key], actual[key], exact, path if key == "tuple" else f"{path}.{key}")
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {len(expected)} items expected, got {len(actual)}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out += _differences(e, a, exact, f"{path}[{i}]")
        return out
    if isinstance(expected, str) and isinstance(actual, str) and not exact:
        return _text_differences(expected, actual, path)
    return [] if expected == actual else [f"{path}: {expected!r:.300} expected, got {actual!r:.300}"]


def _text_differences(expected, actual, path):
    """Printed output in another environment: the same text, numbers within ULPS of each other.

    A full-precision number (rank-eval's csv and json print Python's repr) can end in another
    digit where NumPy's log or exp rounds differently (gm_map's geometric mean on NumPy 1.x).
    """
    split = re.compile(r"(-?\d+\.\d+(?:e[-+]?\d+)?)")
    e_parts, a_parts = split.split(expected), split.split(actual)
    numbers = slice(1, None, 2)
    if len(e_parts) != len(a_parts) or e_parts[::2] != a_parts[::2]:
        return [f"{path}: {expected!r:.300} expected, got {actual!r:.300}"]
    e = np.array(e_parts[numbers], dtype=np.float64)
    a = np.array(a_parts[numbers], dtype=np.float64)
    wrong = _float_differences(e, a)
    return [f"{path}: {e[i]!r} expected, got {a[i]!r}" for i in wrong[:5]]


def _float_differences(a, b):
    """Positions where float arrays differ by more than ULPS units in the last place."""
    nan = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore", over="ignore"):
        close = (a == b) | (np.abs(a - b) <= ULPS * np.spacing(np.maximum(np.abs(a), np.abs(b))))
    return np.flatnonzero(np.where(nan, np.isnan(a) != np.isnan(b), ~close).ravel())


def _array_differences(expected, actual, exact, path):
    e_type, a_type = np.dtype(expected["array"]), np.dtype(actual["array"])
    same_kind = {e_type.kind, a_type.kind} <= {"U", "O"} and not exact
    if e_type != a_type and not same_kind:
        return [f"{path}: dtype {e_type} expected, got {a_type}"]
    if expected["shape"] != actual["shape"]:
        return [f"{path}: shape {tuple(expected['shape'])} expected, got {tuple(actual['shape'])}"]
    if "items" in expected:  # strings and objects (pandas.NA among them), item by item
        return _differences(expected["items"], actual["items"], exact, path)
    e, a = corpus.decode(expected), corpus.decode(actual)
    if e.dtype.kind == "f" and not exact:
        wrong = _float_differences(e, a)
    elif e.dtype.kind in "fc":
        bits = np.dtype(f"u{e.dtype.itemsize}") if e.dtype.kind == "f" else np.uint8
        wrong = np.flatnonzero((e.view(bits) != a.view(bits)).ravel())
    else:
        wrong = np.flatnonzero((e != a).ravel())
    if len(wrong) == 0:
        return []
    shown = ", ".join(f"[{i}] {e.ravel()[i]!r} expected, got {a.ravel()[i]!r}" for i in wrong[:5])
    return [f"{path}: {len(wrong)} of {e.size} values differ: {shown}"]


def _skip_without_extras(case):
    for module in corpus.EXTRAS.get(case["call"], ()):
        pytest.importorskip(module)
    if case["call"] in corpus.RANDOM and CORPUS["environment"]["numpy"] != corpus.environment()["numpy"]:
        pytest.skip("resampling draws numpy's random streams, recorded with another numpy")


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_same_result_as_recorded(case):
    _skip_without_extras(case)
    actual = corpus.replay(case)
    differences = _differences(case["result"], actual, exact=SAME_ENVIRONMENT)
    assert not differences, f"{case['id']}:\n" + "\n".join(differences[:20])


@pytest.mark.parametrize("name", CORPUS["definitions"] + CORPUS["aliases"])
def test_recorded_names_still_offered(name):
    """Each metric name the names table offered at the recording is a name still."""
    import sklearn_rank_metrics as srm

    try:
        srm.evaluate([1, 0, 2], [0.3, 0.2, 0.1], metrics=[name], ties="first")
    except ValueError as error:
        assert "unknown metric" not in str(error), str(error)


def test_corpus_covers_every_call():
    """The corpus holds every kind of call, values as well as the errors of refused names."""
    calls = {case["call"] for case in CASES}
    assert calls == set(corpus.RUNNERS)
    for call in calls:
        assert any(case["call"] == call and "error" not in case["result"] for case in CASES), call


def test_a_changed_bit_is_seen():
    """One ulp more in one value of a stored result is a difference, in the recording's environment."""
    case = next(c for c in CASES if c["call"] == "evaluate" and "QueryResults" in str(c["result"])[:40])
    changed = json.loads(json.dumps(case["result"]))
    values = changed["dict"][0][1]["dict"][3][1]["dict"][0][1]["dict"][0][1]  # first metric's values
    array = corpus.decode(values)
    array[np.flatnonzero(np.isfinite(array) & (array != 0))[0]] *= 1 + np.finfo(float).eps
    changed["dict"][0][1]["dict"][3][1]["dict"][0][1]["dict"][0][1] = corpus.encode(array)
    assert _differences(case["result"], changed, exact=True)
    assert not _differences(case["result"], changed, exact=False)

