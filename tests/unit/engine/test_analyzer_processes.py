"""The bound on analyzer processes (korean_eval.engine.pools.set_analyzer_processes): starting one beyond the bound
ends the least recently used idle one, waits while every one is busy, never touches the main pool; an evaluation
that ticks several analyzer levels under a bound of one holds one analyzer process at a time, with the same scores.

Real spawned worker processes throughout (Linux: their liveness is read from /proc).
"""

from __future__ import annotations

import sys
import threading
import time

import pytest

from korean_eval.engine import pools
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.stopping import EvaluationStopped
from korean_eval.inputs.sample import load_sample
from korean_eval.levels.registry import level_availability
from korean_eval.model.config import EvalConfig
from tests.support.app_server import process_table, wait_until
from tests.support.helpers import IN_CI

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")


def _alive(pool) -> list[int]:
    table = process_table()
    return [p for p in (getattr(pool, "_processes", {}) or {}) if p in table and table[p].running]


def test_a_new_analyzer_process_ends_the_least_recently_used_idle_one(fresh_pools):
    pools.set_analyzer_processes(2)
    main = pools.pool_for(2)
    first = pools.pool_for(1, "test-first")
    second = pools.pool_for(1, "test-second")
    assert pools.submit(first, time.sleep, 0).result(60) is None
    assert pools.submit(second, time.sleep, 0).result(60) is None
    assert pools.pool_for(1, "test-first") is first  # used again: now "test-second" is the least recent
    first_pids = _alive(first)
    third = pools.pool_for(1, "test-third")
    roles = pools.pool_state()["roles"]
    assert set(roles) == {"main", "test-first", "test-third"}, roles
    assert pools.pool_for(2) is main  # the main pool is never counted nor ended
    assert pools.submit(third, time.sleep, 0).result(60) is None
    assert _alive(first) == first_pids
    assert wait_until(lambda: not _alive(second), 20)


def test_while_every_analyzer_process_is_busy_a_new_one_waits(fresh_pools):
    pools.set_analyzer_processes(1)
    busy = pools.pool_for(1, "test-busy")
    task = pools.submit(busy, time.sleep, 3)
    assert pools.pool_for(1, "test-next", block=False) is None  # busy: no room without waiting
    waits: list[float] = []
    started = time.monotonic()
    nxt = pools.pool_for(1, "test-next", wait=lambda: waits.append(time.monotonic()))
    assert task.done() and nxt is not None  # it waited for the task, then ended that process
    assert time.monotonic() - started >= 1.0 and waits
    assert set(pools.pool_state()["roles"]) == {"test-next"}


def test_a_wait_that_raises_gives_up_and_leaves_the_busy_process(fresh_pools):
    pools.set_analyzer_processes(1)
    busy = pools.pool_for(1, "test-busy")
    task = pools.submit(busy, time.sleep, 5)

    def stop():
        raise EvaluationStopped()

    with pytest.raises(EvaluationStopped):
        pools.pool_for(1, "test-next", wait=stop)
    assert set(pools.pool_state()["roles"]) == {"test-busy"}
    task.cancel()


def test_without_a_bound_analyzer_processes_accumulate(fresh_pools):
    pools.set_analyzer_processes(None)
    for role in ("test-a", "test-b", "test-c"):
        pools.pool_for(1, role)
    assert set(pools.pool_state()["roles"]) == {"test-a", "test-b", "test-c"}


@pytest.mark.slow
def test_an_evaluation_of_several_analyzer_levels_holds_one_analyzer_process_at_a_time(fresh_pools):
    """The bundled sample at kiwi, okt and komoran (KoNLPy's JVM, one analyzer per process) with a bound of one:
    at no moment do two analyzer processes live, and the scores equal those of the same run in this process."""
    levels = ["word", "kiwi"] + [lv for lv in ("okt", "komoran") if level_availability(lv)[0]]
    if len(levels) < 4:
        if IN_CI:
            pytest.fail("KoNLPy's JVM is required under CI=true (scripts/setup installs default-jre-headless)")
        pytest.skip("KoNLPy's JVM is unavailable here")
    data = load_sample()
    config = EvalConfig(levels=tuple(levels), metrics=("bleu", "chrf"))
    pools.set_analyzers_in_workers(False)
    here = evaluate(data, config)

    pools.set_analyzers_in_workers(True)
    pools.set_analyzer_processes(1)
    seen: list[set[str]] = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            seen.append({r for r in pools.pool_state()["roles"] if r != "main"})
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        bounded_run = evaluate(data, config)
    finally:
        done.set()
        watcher.join()
    assert max(len(s) for s in seen) == 1, [s for s in seen if len(s) > 1][:3]
    assert set().union(*seen) == {"kiwi", "okt", "komoran"}
    key = ["level", "metric", "system"]
    a = here.system_scores.sort_values(key)["score"].to_numpy()
    b = bounded_run.system_scores.sort_values(key)["score"].to_numpy()
    assert (a == b).all()
