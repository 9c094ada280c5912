"""Progress that moves at every analyzer (korean_eval.engine.progress, korean_eval.engine.tokenise_stage): a level's
texts go out in chunks of a few seconds of its analyzer's measured work, so the count of texts tokenised moves
before the level ends — Kkma's included, KoNLPy's slowest — and until the first chunk is back the progress says
that the analyzer is starting, with the seconds passed.

The real test runs Kkma as the dashboard runs it: in an analyzer process of its own, on 200 sentences of KoNLPy's
copy of the Korean Constitution (read at run time), which fit in one chunk of the fixed 50,000-character size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

import korean_eval.engine.progress as pg
import korean_eval.engine.workers as wk
from korean_eval.engine import pools
from korean_eval.engine.cache import NullCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.planning import HERE_CHUNK_CHARS
from korean_eval.engine.tokenise_stage import CHUNK_SECONDS, chunk_chars, starting_note
from korean_eval.levels.costs import JVM_START_SECONDS, KONLPY_LEVELS, TOKENIZE_COSTS
from korean_eval.levels.registry import level_availability
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import evalset_from_texts

COUNTS = re.compile(r"^tokenising at level (?P<level>\w+): (?P<done>[\d,]+) of (?P<total>[\d,]+) texts$")


@dataclass
class _Job:
    finished: bool = False


def test_until_the_first_task_finishes_the_ticker_says_what_starts(monkeypatch):
    monkeypatch.setattr(pg, "REPORT_SECONDS", 0.0)  # every watch reports
    sent: list[tuple[float, str]] = []
    ticker = pg.Ticker(lambda f, m: sent.append((f, m)), steps=2)
    jobs = [_Job(), _Job(), _Job()]
    ticker.track("tokenising at level kkma", jobs, "texts", [50, 30, 20], "starting its analyzer, about 34 s")
    ticker.watch()
    assert [m for _, m in sent] == ["tokenising at level kkma: starting its analyzer, about 34 s — 0 s so far"] * 2
    jobs[0].finished = True
    ticker.watch()
    assert sent[-1] == (0.25, "tokenising at level kkma: 50 of 100 texts")
    jobs[1].finished = jobs[2].finished = True
    ticker.watch()
    assert sent[-1] == (0.5, "tokenising at level kkma: 100 of 100 texts")
    assert all(a[0] <= b[0] for a, b in zip(sent, sent[1:], strict=False))


def test_without_a_start_to_announce_the_count_is_reported_from_the_start(monkeypatch):
    monkeypatch.setattr(pg, "REPORT_SECONDS", 0.0)
    sent: list[str] = []
    ticker = pg.Ticker(lambda f, m: sent.append(m), steps=1)
    ticker.track("tokenising at level char", [_Job()], "texts", [7])
    assert sent == ["tokenising at level char: 0 of 7 texts"]


def test_every_analyzers_chunks_hold_a_few_seconds_of_its_work():
    for name, (_start, per_char) in TOKENIZE_COSTS.items():
        chars = chunk_chars(name)
        assert 1 <= chars <= wk.TOKENISE_CHUNK_CHARS
        assert chars * per_char / 1e6 <= CHUNK_SECONDS + 1e-9
        assert chunk_chars(name, HERE_CHUNK_CHARS) <= HERE_CHUNK_CHARS
    assert chunk_chars("kkma") < chunk_chars("hannanum") < chunk_chars("okt") < chunk_chars("komoran")
    assert chunk_chars("char") == wk.TOKENISE_CHUNK_CHARS  # fast levels keep the large chunks


def test_the_start_is_announced_for_the_analyzers_that_take_one():
    for name in KONLPY_LEVELS:
        seconds = TOKENIZE_COSTS[name][0] + JVM_START_SECONDS
        assert starting_note(name) == f"starting its analyzer, about {seconds:.0f} s the first time"
    assert starting_note("kiwi").startswith("starting its analyzer")
    assert starting_note("char") == starting_note("word") == starting_note("spm") == ""
    assert starting_note("kkma", {"jvm"}) == f"starting its analyzer, about {TOKENIZE_COSTS['kkma'][0]:.0f} s"


def _constitution(n: int) -> list[str]:
    from konlpy.corpus import kolaw

    lines = [line.strip() for line in kolaw.open("constitution.txt").read().splitlines() if line.strip()]
    return list(dict.fromkeys(lines))[:n]


@pytest.mark.slow
def test_kkma_in_its_analyzer_process_reports_texts_within_its_first_chunk(monkeypatch):
    if not level_availability("kkma")[0]:
        pytest.skip("KoNLPy's Kkma cannot run here")
    monkeypatch.setattr(pools, "_ANALYZERS_IN_WORKERS", [True])  # as the dashboard runs the analyzers
    monkeypatch.setattr(pools, "_ANALYZER_PROCESSES", [1])
    sentences = _constitution(200)
    assert sum(map(len, sentences)) < wk.TOKENISE_CHUNK_CHARS  # one chunk of the fixed size: counts only at the end
    refs = "\n".join(sentences).encode()
    system = "\n".join(sentences[1:] + sentences[:1]).encode()  # the same 200 texts, other pairs
    evalset = evalset_from_texts([("ref.txt", refs)], [("a.txt", system)])
    messages: list[tuple[float, str]] = []
    evaluate(evalset, EvalConfig(levels=("kkma",), metrics=("chrf",), jobs=1),
             progress=lambda f, m: messages.append((f, m)), cache=NullCache())

    counts = [(int(c["done"].replace(",", "")), int(c["total"].replace(",", "")))
              for _, m in messages if (c := COUNTS.match(m))]
    first_chunk = wk.text_chunks(sentences, chunk_chars("kkma"))[0]
    assert counts and counts[-1] == (200, 200)
    assert 0 < counts[0][0] <= len(first_chunk) < 200  # the first count: the first chunk's texts, before the end
    assert len(dict.fromkeys(counts)) >= 3
    first_count = next(i for i, (_, m) in enumerate(messages) if COUNTS.match(m))
    assert any("kkma: starting its analyzer" in m for _, m in messages[:first_count])  # said while it starts
    assert messages[-1] == (1.0, "done")
