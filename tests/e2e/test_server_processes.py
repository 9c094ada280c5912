"""The dashboard as processes (docs/design.md §7): a stopped server leaves no process behind and prints no traceback;
worker processes end by themselves when the server is killed; workers print nothing.

Each test starts ``streamlit run app.py`` in its own process group (tests/support/app_server.py) and runs the first
page from a browser-less session; the first page evaluates the bundled sample (600 pairs, cold cache in tmp_path).
With ``KOREAN_EVAL_PARALLEL_MIN_PAIRS=100`` that evaluation runs in the worker pool: the server is signalled once
the scoring began (every level is tokenised, the portable ones by the workers, so the workers are up; the scoring
tasks are queued in the pool), or, for Ctrl+C, once every score is back (the workers idle, the pool kept). Without
it (the default threshold, 2,000 pairs) the sample is scored in the server itself, TER on threads: the server is
signalled once TER's scoring began. Every process a test started is killed at the end, whatever happened. Linux only
(the process table is read from /proc).

Each server's cache starts with the Kiwi tokens of the sample (:func:`kiwi_tokens`, computed once in this process by
the ``kiwi`` level itself): with its tokens cached, neither the server nor Kiwi's worker process
(korean_eval.engine.workers.KIWI_ROLE, started only for texts to analyse) loads Kiwi's model (the availability check
loads no model) — 1.5-2 CPU-s of model and 2 of analysis per server. The levels the workers
tokenise start uncached, so the workers have started, run their initializer and tokenised by the time the scoring
begins, as before.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from korean_eval.engine.cache import DiskCache, NullCache, text_key
from korean_eval.engine.planning import plan_run, tokenize_texts
from korean_eval.inputs.sample import load_sample
from korean_eval.levels.registry import get_level
from korean_eval.model.config import EvalConfig
from tests.support.app_server import AppServer, Session, group_members, process_table, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc"),
]

POOL = {"KOREAN_EVAL_PARALLEL_MIN_PAIRS": "100"}
RUN_SECONDS = 120  # first run on a fresh server: imports, pool start, tokenising 5 levels (a loaded 2-core machine)
GONE_SECONDS = 10


@pytest.fixture(scope="module")
def kiwi_tokens() -> tuple[str, dict[str, str]]:
    """The ``kiwi`` level's cache key and tokens (space-joined) of every text the first page evaluates (the sample)."""
    level = get_level("kiwi")
    tokens, _, _ = tokenize_texts(level, plan_run(load_sample(), EvalConfig()).texts, NullCache())
    return level.options_key(), tokens


@pytest.fixture
def server_cache(tmp_path, kiwi_tokens) -> None:
    """The cache directory AppServer gives its server (``tmp_path / "cache"``), holding the sample's Kiwi tokens."""
    level_key, tokens = kiwi_tokens
    DiskCache(tmp_path / "cache").put_tokens(level_key, ((text_key(t), joined) for t, joined in tokens.items()))


def _run_until(server: AppServer, session: Session, progress: str) -> None:
    """Run the first page until a progress text contains ``progress`` (or the run finished)."""
    assert session.wait_for_progress(progress, RUN_SECONDS), (
        f"no {progress!r} within {RUN_SECONDS} s; progress {session.progress[-3:]}\n{server.stderr()[-3000:]}"
    )


def _pool_started(server: AppServer, session: Session, progress: str) -> list[int]:
    """Run the first page until ``progress`` (or its end); the server's worker processes."""
    _run_until(server, session, progress)
    workers = server.workers()
    assert workers, f"the evaluation ran without worker processes\n{server.stderr()[-3000:]}"
    return workers


def _no_noise(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr[-5000:]
    assert "ScriptRunContext" not in stderr, "a worker ran the app's script again"
    assert "KeyboardInterrupt" not in stderr, stderr[-5000:]


@pytest.mark.parametrize(
    ("how", "pool", "until"),
    [("SIGTERM to the server", True, "scoring"), ("Ctrl+C (SIGINT to the process group)", True, "meta-evaluation"),
     ("SIGTERM to the server", False, "scoring ter")],
    ids=["sigterm-pool", "ctrl-c-pool", "sigterm-threads"],
)
def test_stopping_the_server_leaves_no_process_and_no_traceback(tmp_path, server_cache, how, pool, until):
    """SIGTERM while the workers are busy (their scoring tasks queued); Ctrl+C once every score is back (the
    meta-evaluation began), the pool kept for the next evaluation: idle workers, blocked reading the task queue, are
    where a worker that did not ignore SIGINT prints a ``KeyboardInterrupt`` traceback (a busy one hands it back as
    its task's result)."""
    with AppServer(tmp_path, POOL if pool else {}) as server, Session(server) as session:
        if pool:
            workers = _pool_started(server, session, until)
        else:
            _run_until(server, session, until)
            workers = server.workers()
            assert not workers, "the sample alone should not start the pool"
        if how.startswith("SIGTERM"):
            os.kill(server.pid, signal.SIGTERM)
        else:
            os.killpg(server.pid, signal.SIGINT)
        stopped = time.monotonic()
        code = server.wait_exit(GONE_SECONDS)
        assert code is not None, f"the server still runs {GONE_SECONDS} s after {how}"
        left = time.monotonic() - stopped
        assert wait_until(lambda: not group_members(server.pid), max(0.5, GONE_SECONDS - left)), (
            f"left behind: {group_members(server.pid)} (workers were {workers})"
        )
        assert code == 0, server.stderr()[-3000:]
        _no_noise(server.stderr())


def test_workers_end_when_the_server_is_killed(tmp_path, server_cache):
    with AppServer(tmp_path, POOL) as server, Session(server) as session:
        workers = _pool_started(server, session, "scoring")
        os.kill(server.pid, signal.SIGKILL)
        server.wait_exit(GONE_SECONDS)

        def workers_gone() -> bool:
            table = process_table()
            return not any(pid in table and table[pid].running for pid in workers)

        assert wait_until(workers_gone, GONE_SECONDS), f"workers {workers} outlived the killed server"
        assert wait_until(lambda: not group_members(server.pid), GONE_SECONDS), group_members(server.pid)
        _no_noise(server.stderr())
