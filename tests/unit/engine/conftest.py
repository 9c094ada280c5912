"""Fixtures of the engine's tests."""

from __future__ import annotations

import pytest

from korean_eval.engine import pools


@pytest.fixture
def fresh_pools():
    """No pool before or after the test; the idle release, the analyzer setting and the bound on analyzer
    processes as they were."""
    before = pools.pool_state()["idle_seconds"], pools.analyzers_in_workers(), pools.analyzer_processes()
    pools._end_all_pools()
    yield
    pools._end_all_pools()
    pools.set_idle_release(before[0])
    pools.set_analyzers_in_workers(before[1])
    pools.set_analyzer_processes(before[2])
