"""The worker pools of a long-lived process (korean_eval.engine.pools): released after an idle time and started
again by the next run; never released while a run holds its lease; a run that stops early leaves none of its tasks
queued; a task run in a worker of its own reports its progress back; the large analyzers tokenise only in worker
processes when asked to, with the same tokens.

Real spawned worker processes throughout (Linux: their liveness is read from /proc).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from concurrent.futures import CancelledError
from concurrent.futures.process import EXTRA_QUEUED_CALLS

import pytest

from korean_eval.engine import pools, worker_call
from korean_eval.engine import workers as wk
from tests.support.app_server import ROOT, process_table, wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")

START_SECONDS = 120  # a spawned worker imports numpy and the package: seconds on a loaded 2-core machine


def _alive(pids) -> list[int]:
    table = process_table()
    return [p for p in pids if p in table and table[p].running]


def _worker_pids(pool) -> list[int]:
    return list(getattr(pool, "_processes", {}) or {})


def report_steps(n: int, progress=None) -> int:
    """A task for :func:`korean_eval.engine.worker_call.run_in_worker`: ``n`` progress reports, then its process id."""
    for i in range(n):
        progress(i / n, f"step {i}")
    return os.getpid()


def test_idle_pools_end_and_the_next_run_starts_them_again(fresh_pools):
    pools.set_idle_release(1.0)
    with pools.pools_in_use():
        pool = pools.pool_for(1, "test-idle")
        assert pool is not None
        assert pool.submit(os.getpid).result(timeout=START_SECONDS) != os.getpid()
        pids = _worker_pids(pool)
        time.sleep(1.5)  # longer than the idle time, but a lease is held
        assert pools.pool_state()["roles"] == {"test-idle": 1}
        assert _alive(pids) == pids
    releases = pools.pool_state()["releases"]
    assert wait_until(lambda: not pools.pool_state()["roles"], 10), pools.pool_state()
    assert pools.pool_state()["releases"] == releases + 1
    assert wait_until(lambda: not _alive(pids), 10), f"workers {pids} still run after the release"

    with pools.pools_in_use():  # a later run: a new pool, new processes
        again = pools.pool_for(1, "test-idle")
        assert again is not None and again is not pool
        assert again.submit(os.getpid).result(timeout=START_SECONDS) not in pids


def test_no_release_without_an_idle_time(fresh_pools):
    pools.set_idle_release(None)
    with pools.pools_in_use():
        pool = pools.pool_for(1, "test-keep")
        assert pool.submit(int, 3).result(timeout=START_SECONDS) == 3
    time.sleep(1.0)
    assert pools.pool_state()["roles"] == {"test-keep": 1}


def test_a_run_that_stops_early_cancels_its_queued_tasks(fresh_pools):
    sched = wk.Scheduler(1)
    pool = pools.pool_for(1, "test-cancel")
    assert pool.submit(int, 0).result(timeout=START_SECONDS) == 0  # started
    with pytest.raises(KeyboardInterrupt), sched:
        first = sched.submit(time.sleep, (2.0,), ("test", ""), pool)
        queued = [sched.submit(time.sleep, (2.0,), ("test", ""), pool) for _ in range(5)]
        wait_until(lambda: first.future.running(), 30)
        raise KeyboardInterrupt  # what a stopped dashboard run raises through the pipeline (StopException)
    # a pool hands up to workers + 1 calls to its call queue, where they count as running and cannot be cancelled
    # (concurrent.futures.process: max_workers + EXTRA_QUEUED_CALLS): with `first` in the worker, at most two more
    handed = 1 + EXTRA_QUEUED_CALLS
    assert all(job.future.cancelled() for job in queued[handed:]), [job.future for job in queued]
    assert all(job.future.running() or job.future.done() for job in queued[:handed]), [job.future for job in queued]
    assert pools.queued_tasks() == 0  # nothing of the run waits in the pool
    with pytest.raises(CancelledError):
        queued[-1].future.result(timeout=0)
    assert not sched.futures
    assert pools.pool_state()["leases"] == 0


def test_run_in_worker_reports_progress_from_its_own_process(fresh_pools):
    seen: list[tuple[float, str]] = []
    pid = worker_call.run_in_worker(report_steps, (4,), "test-task", lambda f, m: seen.append((f, m)), poll_seconds=0.05)
    assert pid != os.getpid()
    assert seen == [(0.0, "step 0"), (0.25, "step 1"), (0.5, "step 2"), (0.75, "step 3")]
    assert pools.pool_state()["leases"] == 0


class _Gone(BaseException):
    """What a dashboard session that went away raises from its progress bar."""


def test_run_in_worker_stops_when_progress_raises(fresh_pools):
    def progress(fraction: float, message: str) -> None:
        raise _Gone

    with pytest.raises(_Gone):
        worker_call.run_in_worker(report_steps, (3,), "test-task", progress, poll_seconds=0.05)
    assert pools.pool_state()["leases"] == 0
    assert worker_call.run_in_worker(report_steps, (0,), "test-task") != os.getpid()  # the pool still serves


SMALL_RUN = textwrap.dedent("""
    import json, sys
    from korean_eval.engine import pools
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.levels import registry
    from korean_eval.model.config import EvalConfig

    if __name__ == "__main__":
        pools.set_analyzers_in_workers(sys.argv[1] == "1")
        data = load_sample()
        res = evaluate(data, EvalConfig(levels=("word", "kiwi"), metrics=("bleu",)))
        print(json.dumps({"kiwi_loaded_here": registry.kiwi_analyzer.cache_info().currsize,
                          "roles": pools.pool_state()["roles"],
                          "scores": res.system_scores.sort_values(["level", "system"])["score"].round(9).tolist()}))
""")


@pytest.mark.slow
def test_large_analyzers_tokenise_only_in_workers_with_the_same_scores(tmp_path):
    """The bundled sample (600 pairs, below the pool's threshold) at the word and kiwi levels, in a fresh process:
    with the setting on, Kiwi's model is never loaded there (its worker tokenises), and the scores are the same."""
    script = tmp_path / "small_run.py"
    script.write_text(SMALL_RUN)
    env = {**os.environ, "KOREAN_EVAL_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    out = {}
    for flag in ("1", "0"):
        done = subprocess.run([sys.executable, str(script), flag], capture_output=True, text=True, env=env,
                              timeout=600, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        out[flag] = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["1"]["kiwi_loaded_here"] == 0
    assert out["1"]["roles"] == {"kiwi": 1}
    assert out["0"]["kiwi_loaded_here"] == 1
    assert out["0"]["roles"] == {}
    assert out["1"]["scores"] == out["0"]["scores"]
