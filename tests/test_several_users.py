"""Several users on one dashboard server at once: a load test of the real app (``streamlit run app.py`` on loopback,
tests/app_server.py) with real browsers (Debian's Chromium through Playwright) and Streamlit's own websocket
client.

* Three browser sessions each load their own files — the same file names (``sys_a.txt``, ``sys_b.txt``) with
  different texts, plus a system only that session has — and open the Correlations page at the same moment. The
  server computes one evaluation at a time (``KOREAN_EVAL_MAX_RUNNING=1``), so the later sessions show their place
  in the queue; every session gets its chart, none shows an exception, and each session's downloaded system scores
  hold its own systems only, with its own numbers (BLEU at the word level checked against sacrebleu called
  directly on that session's files). Meanwhile ``/_stcore/health`` is asked every quarter second and must answer
  within 1 s every time.
* A session that goes away in the middle of an evaluation (its websocket closed while the worker pool scores)
  leaves nothing running: the run stops at its next step, its queued tasks are cancelled, the worker processes end
  after the pools' idle time, the server's CPU goes quiet, and the next session gets a turn at once.

Bounded: three browser contexts in one Chromium, a few hundred pairs each, every wait capped. Marked slow.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import sys
import threading
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest

from korean_eval.inputs.sample import sample_files
from tests.app_server import (
    BROWSER_TEST_OPTIONS,
    AppServer,
    Session,
    chromium_page,
    descendants,
    idle,
    launch_chromium,
    require_chromium,
    upload,
    wait_until,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc"),
]

SESSIONS = 3
BARS = ".js-plotly-plot .barlayer .point path"
NO_EXCEPTION = '[data-testid="stException"]'
WAITING = re.compile(r"Waiting: position \d+ of \d+")
CHART_SECONDS = 420  # three evaluations one after another on a loaded 2-core machine, the first starting Kiwi's worker
HEALTH_LIMIT = 1.0


class HealthProbe:
    """Asks ``/_stcore/health`` every ``step`` seconds in a thread; keeps every answer's seconds (a failure or a
    wrong answer counts as infinitely slow)."""

    def __init__(self, url: str, step: float = 0.25):
        self.url, self.step = f"{url}/_stcore/health", step
        self.seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.step):
            start = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=10) as reply:
                    ok = reply.read().strip() == b"ok"
            except OSError:
                ok = False
            self.seconds.append(time.monotonic() - start if ok else float("inf"))

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(15)


def session_files(folder: Path, i: int) -> tuple[dict, dict[str, tuple[list[str], list[str]]]]:
    """Session ``i``'s files in ``folder``: the sample's reference, three of its systems under the names
    ``sys_a``, ``sys_b`` (every session) and ``only_u<i>`` (this session), their human scores renamed alike; and
    per system name its (hypotheses, references)."""
    folder.mkdir(parents=True)
    sample = sample_files()
    originals = sorted(sample["systems"])
    names = {originals[(i + k) % len(originals)].stem: new for k, new in enumerate(["sys_a", "sys_b", f"only_u{i}"])}
    ref = folder / "ref.txt"
    shutil.copyfile(sample["ref"], ref)
    refs = ref.read_text(encoding="utf-8").splitlines()
    systems, texts = [], {}
    for path in originals:
        if path.stem in names:
            target = folder / f"{names[path.stem]}.txt"
            shutil.copyfile(path, target)
            systems.append(target)
            texts[names[path.stem]] = (target.read_text(encoding="utf-8").splitlines(), refs)
    rows = list(csv.reader(io.StringIO(sample["human"].read_text(encoding="utf-8")), delimiter="\t"))
    human = folder / "human.tsv"
    with human.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(rows[0])
        writer.writerows([names[r[0]], *r[1:]] for r in rows[1:] if r[0] in names)
    return {"ref": ref, "systems": systems, "human": human}, texts


def load_files(page, url: str, files: dict) -> None:
    """Open the Data page, upload the session's files and use them (nothing is evaluated yet)."""
    page.goto(f"{url}/data")
    page.get_by_role("heading", name="Data", exact=True).wait_for()
    idle(page)
    upload(page, "Reference file(s)", [files["ref"]])
    upload(page, "System outputs", files["systems"])
    page.get_by_text("System names (from the file names").wait_for()
    upload(page, "Human scores", [files["human"]])
    page.get_by_role("button", name="Use these files").click()
    page.get_by_text("Every page now shows these data").wait_for()
    idle(page)


def downloaded_system_scores(page, folder: Path) -> list[dict[str, str]]:
    """The Downloads page's ``system_scores.csv`` of this session, saved into ``folder`` and read."""
    page.get_by_role("link", name="Downloads").click()
    idle(page)
    with page.expect_download() as info:
        page.get_by_role("button", name=re.compile(r"^system_scores\.csv")).click()
    path = folder / "system_scores.csv"
    info.value.save_as(path)
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_sessions_loading_at_once_each_see_only_their_own_results(tmp_path):
    from sacrebleu.metrics import BLEU

    require_chromium()
    data = [session_files(tmp_path / f"user{i}", i) for i in range(SESSIONS)]
    env = {"KOREAN_EVAL_MAX_RUNNING": "1", "KOREAN_EVAL_POOL_IDLE_SECONDS": "30"}
    (tmp_path / "server").mkdir()
    with AppServer(tmp_path / "server", env=env, options=BROWSER_TEST_OPTIONS) as server, ExitStack() as stack:
        browser = launch_chromium(stack)
        pages = [stack.enter_context(chromium_page(1300, 1000, CHART_SECONDS * 1000, browser)) for _ in data]
        for page, (files, _) in zip(pages, data, strict=True):
            load_files(page, server.url, files)

        with HealthProbe(server.url) as health:
            start = time.monotonic()
            for page in pages:  # every session asks for its evaluation at the same moment
                page.get_by_role("link", name="Correlations").click()
            charts: dict[int, float] = {}
            waited: set[int] = set()
            while len(charts) < len(pages) and time.monotonic() - start < CHART_SECONDS:
                for i, page in enumerate(pages):
                    if i in charts:
                        continue
                    if page.locator(BARS).count():
                        charts[i] = time.monotonic() - start
                    elif page.get_by_text(WAITING).count():
                        waited.add(i)
                time.sleep(0.2)
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
        assert "Traceback" not in server.stderr(), server.stderr()[-3000:]


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the running processes ``pids`` (``/proc/<pid>/stat`` fields 14 and 15)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


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
        before = _cpu_seconds(group)
        time.sleep(3)
        assert _cpu_seconds(group) - before < 0.5, "the server still computes for the session that left"

        with Session(server) as next_one:  # the queue's only slot is free: no waiting
            assert next_one.wait_for_progress("\0", 300) and next_one.finished, next_one.progress[-3:]
            assert not [p for p in next_one.progress if WAITING.search(p)], next_one.progress
    assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
