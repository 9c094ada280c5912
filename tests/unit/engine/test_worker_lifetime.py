"""Lifetime of the worker processes and threads (docs/design.md §7), in the library itself.

The dashboard-level checks (a stopped or killed server leaves nothing behind) are in
tests/e2e/test_server_processes.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import korean_eval.engine.workers as wk
from korean_eval.daemon_threads import map_on_threads
from korean_eval.engine import pools
from tests.support.app_server import ROOT, process_table, wait_until


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_map_on_threads_keeps_the_order(workers):
    items = list(range(23))
    assert map_on_threads(lambda x: x * x, items, workers) == [x * x for x in items]
    assert map_on_threads(lambda x: x, [], workers) == []


def test_map_on_threads_raises_the_first_failure_and_uses_daemon_threads():
    seen = []

    def fn(x: int) -> int:
        seen.append(threading.current_thread().daemon)
        if x in (7, 11):
            raise ValueError(f"bad {x}")
        return x

    with pytest.raises(ValueError, match="bad 7"):
        map_on_threads(fn, list(range(20)), 3)
    assert seen and all(seen)


def test_a_process_exits_without_finishing_the_threads_work():
    script = textwrap.dedent("""
        import threading, time
        from korean_eval.daemon_threads import map_on_threads
        threading.Thread(target=map_on_threads, args=(time.sleep, [60] * 4, 2), daemon=True).start()
        time.sleep(0.5)
    """)
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, timeout=50)
    assert time.monotonic() - start < 30  # ThreadPoolExecutor's threads would be joined: 2 × 60 s


@pytest.mark.slow
def test_exit_while_kiwi_tokenises_on_a_daemon_thread_does_not_abort():
    """One exit while a daemon thread is inside Kiwi. Unguarded (no exit hook in daemon_threads), this script
    aborted ("terminate called without an active exception") at every exit: 6 of 6, then 4 of 4 — so one run is
    enough to catch it (each run costs 3 s of CPU, most of it Kiwi's model)."""
    from korean_eval.levels.registry import get_level

    if not get_level("kiwi").available:
        pytest.skip("kiwipiepy unavailable")
    script = textwrap.dedent("""
        import threading, time
        from korean_eval.inputs.sample import load_sample
        from korean_eval.levels.registry import get_level
        texts = load_sample().refs[0] * 8
        kiwi = get_level("kiwi")
        kiwi.tokenize(texts[:3])
        threading.Thread(target=lambda: [kiwi.tokenize(texts) for _ in iter(int, 1)], daemon=True).start()
        time.sleep(0.3)  # then exit while the thread is inside Kiwi (a Streamlit script thread is a daemon thread)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "terminate called" not in done.stderr, (done.returncode, done.stderr[-2000:])


@pytest.mark.parametrize(("raw", "expected"), [(None, 2000), ("100", 100), (" 7 ", 7)])
def test_parallel_threshold_from_the_environment(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv(wk.PARALLEL_MIN_PAIRS_ENV, raising=False)
    else:
        monkeypatch.setenv(wk.PARALLEL_MIN_PAIRS_ENV, raw)
    assert wk._parallel_min_pairs() == expected


@pytest.mark.parametrize("raw", ["0", "-5", "2k", "1.5", ""])
def test_a_bad_parallel_threshold_is_refused_by_name(monkeypatch, raw):
    monkeypatch.setenv(wk.PARALLEL_MIN_PAIRS_ENV, raw)
    with pytest.raises(ValueError, match=wk.PARALLEL_MIN_PAIRS_ENV):
        wk._parallel_min_pairs()


def _running(pids) -> list[int]:
    table = process_table()
    return [p for p in pids if p in table and table[p].running]


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")
def test_workers_ignore_ctrl_c_and_end_when_their_lifeline_closes():
    pool = pools.pool_for(2)
    assert pool is not None
    assert pool.submit(int, 1).result(timeout=120) == 1  # started and initialised
    pids = list(pool._processes)
    assert _running(pids)
    for pid in pids:
        os.kill(pid, signal.SIGINT)
    assert [f.result(timeout=60) for f in [pool.submit(int, 2) for _ in range(4)]] == [2] * 4
    assert sorted(_running(pids)) == sorted(pids)

    busy = [pool.submit(time.sleep, 60) for _ in pids]  # every worker busy: a plain shutdown would wait a minute
    time.sleep(1)
    pools._end_all_pools()  # what happens at exit: queued tasks cancelled, the lifelines closed
    assert wait_until(lambda: not _running(pids), 10), _running(pids)
    assert all(f.done() for f in busy) or wait_until(lambda: all(f.done() for f in busy), 10)
    assert not pools._POOLS and not pools._LIFELINES
