"""Several users on one dashboard server at once: a load test of the real app (``streamlit run app.py`` on loopback,
tests/app_server.py) with real browsers (Debian's Chromium through Playwright) and Streamlit's own websocket
client.

* Six browser sessions each load their own files — the same file names (``sys_a.txt``, ``sys_b.txt``) with
  different texts, plus a system only that session has — and open the Correlations page at the same moment. The
  server computes one evaluation at a time (``KOREAN_EVAL_MAX_RUNNING=1``), so the later sessions show their place
  in the queue; every session gets its chart, none shows an exception, and each session's downloaded system scores
  hold its own systems only, with its own numbers (BLEU at the word level checked against sacrebleu called
  directly on that session's files). Meanwhile ``/_stcore/health`` is asked every quarter second and must answer
  within 1 s every time. No file appears in the app's folder (the server's working directory).
* A session that goes away in the middle of an evaluation (its websocket closed while the worker pool scores)
  leaves nothing running: the run stops at its next step, its queued tasks are cancelled, the worker processes end
  after the pools' idle time, the server's CPU goes quiet, and the next session gets a turn at once.

Bounded: six browser contexts in one Chromium, a few hundred pairs each, every wait capped. The six-session test is
marked ``alone``: ``scripts/test`` runs it after the parallel run, with nothing beside it, because it checks the
server's responsiveness (with the other tests' load beside it on two cores the health check once waited 1.26 s).
Marked slow.
"""

from __future__ import annotations

import sys
import time
from contextlib import ExitStack

import pytest

from tests.support.app_server import (
    BROWSER_TEST_OPTIONS,
    ROOT,
    AppServer,
    Session,
    chromium_page,
    cpu_seconds,
    descendants,
    idle,
    launch_chromium,
    require_chromium,
    wait_until,
)
from tests.support.several_users import (
    NO_EXCEPTION,
    WAITING,
    HealthProbe,
    downloaded_system_scores,
    load_files,
    open_charts_at_once,
    session_files,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc"),
]

SESSIONS = 6
CHART_SECONDS = 600  # six evaluations one after another on a 2-core machine, the first starting Kiwi's worker
HEALTH_LIMIT = 1.0


@pytest.mark.browser
@pytest.mark.alone
def test_sessions_loading_at_once_each_see_only_their_own_results(tmp_path):
    from sacrebleu.metrics import BLEU

    require_chromium()
    data = [session_files(tmp_path / f"user{i}", i) for i in range(SESSIONS)]
    before = served_files()
    env = {"KOREAN_EVAL_MAX_RUNNING": "1", "KOREAN_EVAL_POOL_IDLE_SECONDS": "30"}
    (tmp_path / "server").mkdir()
    with AppServer(tmp_path / "server", env=env, options=BROWSER_TEST_OPTIONS) as server, ExitStack() as stack:
        browser = launch_chromium(stack)
        pages = [stack.enter_context(chromium_page(1300, 1000, CHART_SECONDS * 1000, browser)) for _ in data]
        for page, (files, _) in zip(pages, data, strict=True):
            load_files(page, server.url, files)

        with HealthProbe(server.url) as health:
            # every session asks for its evaluation at the same moment
            charts, waited = open_charts_at_once(pages, "Correlations", CHART_SECONDS)
            for page in pages:
                idle(page, CHART_SECONDS)
        print(f"first charts after {sorted(round(t, 1) for t in charts.values())} s; sessions that waited: "
              f"{sorted(waited)}; /_stcore/health: {len(health.seconds)} answers, slowest "
              f"{max(health.seconds, default=0):.3f} s")
        assert sorted(charts) == list(range(len(pages))), f"charts after {charts}; {server.stderr()[-3000:]}"
        assert waited, "with one evaluation at a time, no session showed its place in the queue"
        assert max(health.seconds) < HEALTH_LIMIT, (
            f"/_stcore/health took up to {max(health.seconds):.2f} s ({len(health.seconds)} requests)"
        )
        assert len(health.seconds) >= 10

        shared_name_scores = set()
        for i, (page, (_files, texts)) in enumerate(zip(pages, data, strict=True)):
            assert page.locator(NO_EXCEPTION).count() == 0
            rows = downloaded_system_scores(page, tmp_path / f"user{i}")
            assert {r["system"] for r in rows} == set(texts), f"session {i} sees {sorted({r['system'] for r in rows})}"
            word_bleu = {r["system"]: float(r["score"]) for r in rows if r["level"] == "word" and r["metric"] == "bleu"}
            expected = {name: BLEU().corpus_score(hyps, [refs]).score for name, (hyps, refs) in texts.items()}
            assert word_bleu == pytest.approx(expected, abs=1e-9), f"session {i}"
            shared_name_scores.add(round(word_bleu["sys_a"], 9))
        assert len(shared_name_scores) == len(pages), "the same file name gave another session's numbers"
        assert served_files() == before, "the server wrote files where it runs (the app's folder)"
        assert "Traceback" not in server.stderr(), server.stderr()[-3000:]


def served_files() -> set[str]:
    """Every file under the app's folder (the server's working directory, whose ``static/`` Streamlit could serve),
    but the virtualenv, git's folder and Python's bytecode caches."""
    skip = {".venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis"}
    return {str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)}


def test_a_session_that_leaves_mid_evaluation_leaves_no_work_behind(tmp_path):
    """The first page evaluates the sample on the worker pool (``KOREAN_EVAL_PARALLEL_MIN_PAIRS=100``); its session
    closes once the scoring began."""
    env = {"KOREAN_EVAL_PARALLEL_MIN_PAIRS": "100", "KOREAN_EVAL_POOL_IDLE_SECONDS": "3",
           "KOREAN_EVAL_MAX_RUNNING": "1"}
    with AppServer(tmp_path, env=env) as server:
        with Session(server) as leaving:
            assert leaving.wait_for_progress("scoring", 240), f"{leaving.progress[-3:]}\n{server.stderr()[-3000:]}"
            assert server.workers(), "the evaluation ran without worker processes"
        # the run stopped and gave its lease back: the pools' idle release ends every worker
        assert wait_until(lambda: not server.workers(), 60), f"workers still run: {server.workers()}"
        group = [server.pid, *descendants(server.pid)]
        before = cpu_seconds(group)
        time.sleep(3)
        assert cpu_seconds(group) - before < 0.5, "the server still computes for the session that left"

        with Session(server) as next_one:  # the queue's only slot is free: no waiting
            assert next_one.wait_for_progress("\0", 300) and next_one.finished, next_one.progress[-3:]
            assert not [p for p in next_one.progress if WAITING.search(p)], next_one.progress
    assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
