"""Threads: explicit, bounded, living only during a call, safe across fork and callers."""

import multiprocessing
import os
import subprocess
import sys
import threading

import joblib
import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _threads

METRICS = ["ndcg@10", "map@100", "mrr@10", "rc"]


def large_input(seed=0, n=300_000):
    """Big enough to be evaluated with threads (more than MIN_ROWS_FOR_THREADS rows)."""
    assert n >= _threads.MIN_ROWS_FOR_THREADS
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, n), rng.random(n), rng.integers(0, n // 50, n)


def _evaluate(seed):
    y_true, y_score, qid = large_input(seed)
    return srm.evaluate(y_true, y_score, qid=qid, metrics=METRICS)


def test_config_functions_and_context():
    assert srm.get_config() == {"n_threads": -1}
    with srm.config_context(n_threads=None):  # nothing set, nothing to restore
        assert srm.get_config() == {"n_threads": -1}
    assert srm.get_config() == {"n_threads": -1}
    with srm.config_context(n_threads=2):
        assert srm.get_config() == {"n_threads": 2}
        with srm.config_context(n_threads=1):
            assert srm.get_config() == {"n_threads": 1}
            with srm.config_context():  # None: unchanged, as in scikit-learn
                assert srm.get_config() == {"n_threads": 1}
        assert srm.get_config() == {"n_threads": 2}
    assert srm.get_config() == {"n_threads": -1}
    srm.set_config(n_threads=3)
    try:
        assert srm.get_config() == {"n_threads": 3}
        srm.set_config()  # unchanged
        assert srm.get_config() == {"n_threads": 3}
        with srm.config_context(n_threads=-1):
            assert srm.get_config() == {"n_threads": -1}
    finally:
        srm.set_config(n_threads=-1)
    for bad, error in ((0, ValueError), (-2, ValueError), (1.5, TypeError), ("2", TypeError)):
        with pytest.raises(error, match="n_threads"):
            srm.set_config(n_threads=bad)
        with pytest.raises(error, match="n_threads"):
            with srm.config_context(n_threads=bad):
                pass


def test_thread_limit_is_the_smallest_of_cpus_omp_and_the_user_setting(monkeypatch):
    monkeypatch.setattr(joblib, "cpu_count", lambda: 16)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv(_threads.ENVIRONMENT_VARIABLE, raising=False)
    assert _threads.thread_limit() == 16
    monkeypatch.setenv("OMP_NUM_THREADS", "4,2")  # nested OpenMP syntax: the outer level
    assert _threads.thread_limit() == 4
    monkeypatch.setenv(_threads.ENVIRONMENT_VARIABLE, "3")
    assert _threads.thread_limit() == 3
    with srm.config_context(n_threads=2):  # the config wins over the environment variable
        assert _threads.thread_limit() == 2
    with srm.config_context(n_threads=8):  # but never above OMP_NUM_THREADS
        assert _threads.thread_limit() == 4
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    assert _threads.thread_limit() == 3


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs os.sched_setaffinity")
def test_cpu_affinity_limits_the_threads():
    code = (
        "import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
        "os.environ.pop('OMP_NUM_THREADS', None); "
        "from sklearn_rank_metrics._engine._threads import thread_limit; print(thread_limit())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "1"


def test_joblib_workers_get_one_thread_each():
    """joblib sets OMP_NUM_THREADS=1 in its workers, so searches with n_jobs do not oversubscribe."""
    limits = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_threads.thread_limit)() for _ in range(2)
    )
    assert limits == [1, 1]


@pytest.mark.parametrize(
    "n_rows, expected", [(1000, 1), (1 << 18, 1), ((1 << 18) + 1, 2), (3 << 18, 3), (1 << 30, 4)]
)
def test_a_call_takes_a_thread_per_block_of_rows_at_most(monkeypatch, n_rows, expected):
    """Threads beyond what the rows fill only take turns: one per MIN_ROWS_FOR_THREADS rows."""
    monkeypatch.setattr(joblib, "cpu_count", lambda: 4)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv(_threads.ENVIRONMENT_VARIABLE, raising=False)
    with _threads.call_threads(n_rows) as (pool, n_threads):
        assert n_threads == expected
        assert (pool is None) == (n_threads == 1)


def test_no_thread_outlives_a_call(monkeypatch):
    monkeypatch.setattr(joblib, "cpu_count", lambda: 4)  # a pool even on a 1-CPU machine
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    started = []
    original = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start", lambda self: (started.append(self), original(self))[1])
    before = {thread.ident for thread in threading.enumerate()}
    with srm.config_context(n_threads=2):
        _evaluate(0)
    after = threading.enumerate()
    assert any(thread.name.startswith("sklearn-rank-metrics") for thread in started)
    assert {thread.ident for thread in after} <= before
    assert not any(thread.name.startswith("sklearn-rank-metrics") for thread in after)


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
def test_a_forked_child_evaluates_after_its_parent_did():
    expected = _evaluate(1)  # the parent evaluates with threads first
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        result = pool.apply_async(_evaluate, (1,))
        assert result.get(timeout=120) == expected


def test_concurrent_callers_get_their_own_results():
    expected = [_evaluate(seed) for seed in range(3)]
    results = [None] * 3

    def call(seed):
        results[seed] = _evaluate(seed)

    callers = [threading.Thread(target=call, args=(seed,)) for seed in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert results == expected


@pytest.mark.parametrize("n_threads", [1, 2, 5])
def test_results_do_not_depend_on_the_number_of_threads(monkeypatch, n_threads):
    monkeypatch.setattr(joblib, "cpu_count", lambda: 8)  # allow more threads than cores
    y_true, y_score, qid = large_input(2)
    y_score = np.round(y_score, 2)  # ties: the tie-block kernels too
    with srm.config_context(n_threads=1):
        expected = srm.evaluate(y_true, y_score, qid=qid, metrics=METRICS, average=None)
    with srm.config_context(n_threads=n_threads):
        got = srm.evaluate(y_true, y_score, qid=qid, metrics=METRICS, average=None)
    for name in METRICS:
        np.testing.assert_array_equal(got[name], expected[name])
