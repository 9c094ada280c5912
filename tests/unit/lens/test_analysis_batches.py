"""The Korean lens's Kiwi analysis runs in batches: each batch reported as it starts, stored in the cache when done,
and a report that raises stops it between batches with the finished batches kept — the same analyses as one call."""

from __future__ import annotations

import pytest

from korean_eval.engine.cache import open_cache, text_key
from korean_eval.inputs.sample import load_sample
from korean_eval.lens import analysis
from korean_eval.levels.registry import KIWI_CHUNK


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Distinct sample texts, a little more than two batches."""
    sample = load_sample()
    unique = list(dict.fromkeys([*sample.refs[0], *(h for hyps in sample.systems.values() for h in hyps)]))
    assert len(unique) > 2 * KIWI_CHUNK
    return unique[:2 * KIWI_CHUNK + 7]


@pytest.fixture(autouse=True)
def empty_memo():
    analysis._MEMO.clear()
    yield
    analysis._MEMO.clear()


def test_batches_are_reported_and_equal_one_call(texts, tmp_path):
    reports: list[tuple[float, str]] = []
    batched = analysis.analyse(texts, open_cache(tmp_path / "a"), lambda f, m: reports.append((f, m)))
    assert [m for _f, m in reports] == [f"analysing texts with Kiwi: {n:,} of {len(texts):,}"
                                        for n in (0, KIWI_CHUNK, 2 * KIWI_CHUNK)]
    assert [f for f, _m in reports] == sorted(f for f, _m in reports) and reports[-1][0] < 1
    analysis._MEMO.clear()
    assert analysis.analyse(texts) == batched


def test_a_stop_between_batches_keeps_the_finished_ones(texts, tmp_path):
    cache = open_cache(tmp_path / "c")

    def stop_at_second(fraction: float, message: str) -> None:
        if fraction > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        analysis.analyse(texts, cache, stop_at_second)
    stored = cache.get_tokens(analysis.analysis_key(), [text_key(t) for t in texts])
    assert set(stored) == {text_key(t) for t in texts[:KIWI_CHUNK]}
