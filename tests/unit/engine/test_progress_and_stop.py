"""Progress that moves within a step, and a stop that ends a run (korean_eval.engine.progress, .stopping).

Real tokenizers on the bundled sample: Komoran (KoNLPy's JVM) in this process and in spawned worker processes, in
small chunks (the knobs below) so that a level has many. A run reports the texts tokenised within a level and the
tasks finished within a metric and the statistics, with fractions that never decrease; a stop signal set from the
progress callback ends the run within a moment, leaves no task of it queued in the pool and nothing in the cache,
and the next evaluation in the same process gives the tables of one that never saw a stop.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time

import pandas as pd
import pytest

import korean_eval
import korean_eval.engine.progress as pg
import korean_eval.engine.workers as wk
from korean_eval.engine import pools, worker_call
from korean_eval.engine.cache import NullCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.model.config import EvalConfig
from tests.support.app_server import wait_until
from tests.support.helpers import assert_same_results, head_of_sample

SEGMENTS = 40  # of the sample's 5 systems: 200 pairs, 206 distinct texts
SETTINGS = {"levels": ["char", "komoran"], "metrics": ["bleu", "chrf"], "resamples": 20, "seed": 4, "jobs": 2}
COUNTS = re.compile(r"^(?P<label>.+): (?P<done>[\d,]+) of (?P<total>[\d,]+) (?P<unit>.+)$")


def _counts(messages: list[tuple[float, str]], label: str) -> list[tuple[float, int, int]]:
    """(fraction, done, total) of the reports ``label: done of total …``."""
    out = []
    for fraction, message in messages:
        found = COUNTS.match(message)
        if found and found["label"] == label:
            out.append((fraction, int(found["done"].replace(",", "")), int(found["total"].replace(",", ""))))
    return out


def _never_decrease(messages: list[tuple[float, str]]) -> None:
    fractions = [f for f, _ in messages]
    assert all(a <= b for a, b in zip(fractions, fractions[1:], strict=False)), messages
    assert messages[-1] == (1.0, "done"), messages[-3:]


def _moves_within(messages: list[tuple[float, str]], label: str) -> list[tuple[float, int, int]]:
    """The count reports of ``label``: several, counts and fractions increasing (repeats aside), one total."""
    counts = _counts(messages, label)
    distinct = list(dict.fromkeys(counts))
    assert len(distinct) >= 2, (label, messages)
    assert len({total for _, _, total in distinct}) == 1
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(distinct, distinct[1:], strict=False)), distinct
    return distinct


def test_a_level_tokenised_here_reports_its_texts_chunk_by_chunk(monkeypatch):
    monkeypatch.setattr(pg, "REPORT_SECONDS", 0.0)  # every piece reported, however fast
    monkeypatch.setattr(pools, "_ANALYZERS_IN_WORKERS", [False])  # here, whatever a dashboard test set before
    sample = load_sample()  # 26,000 characters to tokenise: 6 pieces of 5,000
    messages: list[tuple[float, str]] = []
    config = EvalConfig(levels=("komoran",), metrics=("bleu",), jobs=1)
    evaluate(sample, config, progress=lambda f, m: messages.append((f, m)), cache=NullCache())
    counts = _moves_within(messages, "tokenising at level komoran")
    steps = 1 + 1 + 1  # tokenise, score, meta-evaluate
    assert all(0 < f < 1 / steps for f, _, _ in counts)
    texts = {t for stream in sample.refs for t in stream} | {h for hyps in sample.systems.values() for h in hyps if h}
    assert counts[0][2] == len(texts)
    _never_decrease(messages)


@pytest.fixture(scope="module")
def small_chunks():
    """The worker pool on the small sample, with small chunks of texts, pairs and statistics."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(wk, "PARALLEL_MIN_PAIRS", 1)
        mp.setattr(wk, "TOKENISE_CHUNK_CHARS", 600)
        mp.setattr(wk, "CHUNK_PAIRS", 40)
        from korean_eval.engine import statistics_tasks as st

        mp.setattr(st, "CONFIGS_PER_TASK", 1)
        yield


@pytest.fixture(scope="module")
def uninterrupted(small_chunks):
    """One run of :data:`SETTINGS` on the worker pool with its progress reports: (results, reports)."""
    messages: list[tuple[float, str]] = []
    results = korean_eval.evaluate(head_of_sample(SEGMENTS), progress=lambda f, m: messages.append((f, m)),
                                   **SETTINGS)
    return results, messages


def test_worker_tasks_report_texts_tasks_and_statistics_as_they_finish(uninterrupted):
    _, messages = uninterrupted
    _moves_within(messages, "tokenising at level komoran")
    scoring = _counts(messages, "scoring bleu at level komoran")  # 200 pairs in chunks of 40
    assert scoring and scoring[-1][1] == scoring[-1][2] == 5
    assert "scoring bleu at level komoran: 5 of 5 tasks done" in [m for _, m in messages]
    statistics = _counts(messages, "statistics")
    assert statistics and statistics[-1][1] == statistics[-1][2] > 4
    assert 0.8 <= statistics[0][0] <= statistics[-1][0] <= 1.0  # the statistics' share of the whole run
    _never_decrease(messages)


def _rows(cache_dir) -> int:
    with sqlite3.connect(cache_dir / "cache-v1.sqlite") as con:
        return sum(con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("tokens", "stats",
                                                                                               "blobs"))


def _count(cache_dir, sql: str) -> int:
    with sqlite3.connect(cache_dir / "cache-v1.sqlite") as con:
        return con.execute(sql).fetchone()[0]


def test_a_stop_from_the_progress_callback_ends_the_run_and_keeps_only_what_it_finished(uninterrupted, tmp_path):
    stop = threading.Event()
    stopped_at: list[float] = []

    def progress(fraction: float, message: str) -> None:
        if message.startswith("tokenising at level komoran: ") and not stop.is_set():
            stop.set()  # the first report inside the level: most of its chunks are still queued
            stopped_at.append(time.monotonic())

    with pytest.raises(korean_eval.EvaluationStopped):
        korean_eval.evaluate(head_of_sample(SEGMENTS), progress=progress, stop=stop, cache=tmp_path, **SETTINGS)
    assert stopped_at and time.monotonic() - stopped_at[0] < 2.0
    assert pools.queued_tasks() == 0  # cancelled: only the tasks already running finish, their results unused
    assert wait_until(lambda: not pools.tasks_in_flight(), 60), pools.tasks_in_flight()
    # what it finished is kept (the char level's tokens: tokenised before komoran), nothing of komoran, no result
    assert _count(tmp_path, "SELECT COUNT(*) FROM tokens WHERE lk LIKE '%char%'") > 0
    assert _count(tmp_path, "SELECT COUNT(*) FROM tokens WHERE lk LIKE '%komoran%'") == 0
    assert _count(tmp_path, "SELECT COUNT(*) FROM blobs") == 0

    again = korean_eval.evaluate(head_of_sample(SEGMENTS), cache=tmp_path, **SETTINGS)
    first = uninterrupted[0]
    assert_same_results(again, first)
    assert again.statistics.keys() == first.statistics.keys()
    for name, table in first.statistics.items():
        pd.testing.assert_frame_equal(again.statistics[name], table, check_exact=True)
    assert _rows(tmp_path) > 0


def test_a_stop_set_before_the_run_raises_before_any_work():
    stop = threading.Event()
    stop.set()
    with pytest.raises(korean_eval.EvaluationStopped):
        evaluate(head_of_sample(3), EvalConfig(levels=("char",), metrics=("bleu",), jobs=1), stop=stop)


def reports_slowly(n: int, progress=None) -> int:
    """A task for :func:`korean_eval.engine.worker_call.run_in_worker`: ``n`` progress reports 0.1 s apart."""
    for i in range(n):
        progress(i / n, f"step {i}")
        time.sleep(0.1)
    return n


class _Clicked(Exception):
    """What a caller's progress callback raises to stop (the dashboard: Streamlit's rerun on a click)."""


def test_a_task_in_a_worker_of_its_own_stops_once_its_caller_stopped():
    """The Korean lens in the dashboard runs this way (``run_in_worker``): a caller that stops in its progress
    callback stops the task in the worker at its next report, so the worker is free for the next task at once."""

    def clicked(fraction: float, message: str) -> None:
        raise _Clicked

    try:
        with pytest.raises(_Clicked):
            worker_call.run_in_worker(reports_slowly, (600,), "test-stop", clicked)  # 60 s of reports unless stopped
        start = time.monotonic()
        assert worker_call.run_in_worker(reports_slowly, (1,), "test-stop", lambda f, m: None) == 1
        assert time.monotonic() - start < 20  # not behind the rest of the first task's minute
    finally:
        pool = pools._POOLS.get("test-stop")
        if pool is not None:
            pools.discard_pool(pool[0])


def test_ter_computed_here_is_stopped_between_pieces(monkeypatch):
    """A run too small for the pool computes the fast TER in this process in pieces, the run's watch called between
    them: the pieces give the one call's statistics, and a stop set during the first piece ends the run before the
    second."""
    from korean_eval.engine import scoring
    from korean_eval.metrics.sacre import TerMetric

    config = EvalConfig(levels=("jamo",), metrics=("ter",), jobs=1)
    whole = evaluate(head_of_sample(40), config, cache=NullCache())  # 200 pairs: one piece
    monkeypatch.setattr(scoring, "HERE_PIECE_PAIRS", 30)
    pieces: list[int] = []
    stop = threading.Event()
    real = TerMetric.segment_statistics

    def counted(self, hyps, refs):
        pieces.append(len(hyps))
        return real(self, hyps, refs)

    monkeypatch.setattr(TerMetric, "segment_statistics", counted)
    assert_same_results(evaluate(head_of_sample(40), config, cache=NullCache()), whole)
    assert len(pieces) >= 3 and set(pieces[:-1]) == {30} and 0 < pieces[-1] <= 30  # its distinct pairs, 30 at a time

    def stops_the_run(self, hyps, refs):
        stop.set()  # the user presses Stop while the first piece is computed
        return counted(self, hyps, refs)

    pieces.clear()
    monkeypatch.setattr(TerMetric, "segment_statistics", stops_the_run)
    with pytest.raises(korean_eval.EvaluationStopped):
        evaluate(head_of_sample(40), config, cache=NullCache(), stop=stop)
    assert pieces == [30]
