"""The dashboard's limits for several users, in-process (Streamlit's AppTest and the stores themselves): an
evaluation or a lens run larger than the server allows is refused with a message naming both numbers; results are
kept by content, never by name; a stored result unused for its idle time leaves memory; nothing in ``ui/`` or
``pages/`` writes a file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.inputs.sample import load_sample
from korean_eval.model.config import EvalConfig
from ui import service, shared_store, state

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


@pytest.fixture
def small_limit(monkeypatch):
    """At most 1,000 pairs × levels per evaluation (the sample at the default five levels is 600 × 5 = 3,000)."""
    monkeypatch.setenv("KOREAN_EVAL_MAX_PAIR_LEVELS", "1000")
    service.limits.clear()
    yield
    service.limits.clear()


@pytest.mark.parametrize("page", [None, "pages/lens.py"], ids=["correlations", "korean-lens"])
def test_an_evaluation_beyond_the_limit_is_refused_with_a_message(small_limit, page):
    at = AppTest.from_file(APP, default_timeout=300)
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("600 (system, segment) pairs × 5 token levels = 3,000" in e and "at most 1,000 per evaluation" in e
               and "choose at most 1 token level" in e for e in errors), errors
    assert not at.get("plotly_chart")


def test_results_are_kept_by_content_never_by_name():
    sample = load_sample()
    name = sample.system_names[0]
    other = load_sample()
    other.systems[name] = list(reversed(other.systems[name]))  # the same names, another text
    config = EvalConfig()
    assert state.results_key(sample, config) != state.results_key(other, config)
    assert state.results_key(sample, config) == state.results_key(load_sample(), config)


def test_a_stored_result_unused_for_its_idle_time_leaves_memory():
    store = shared_store.SharedStore(4, idle_seconds=60)
    store.put("a", 1)
    store.put("b", 2)
    now = store.used["b"]
    store.used["a"] = now - 61
    assert store.sweep(now) == 1
    assert store.get("a") is None and store.get("b") == 2
    assert shared_store.SharedStore(4).sweep() == 0  # no idle time: kept until pushed out


def test_housekeeping_outside_a_server_does_nothing():
    assert service.end_expired_sessions() == 0
    assert service.janitor().round() >= 0


WRITES = re.compile(r"\bopen\(|write_bytes|write_text|tempfile|mkdtemp|\.to_csv\(['\"/]|savefig|\.save\(")


def test_the_dashboard_writes_no_file():
    """Uploads stay in the session's memory (Streamlit's upload manager) and downloads are made in memory: no line
    of the dashboard opens a file for writing or makes a temporary one."""
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in [ROOT / "app.py", *sorted((ROOT / "ui").glob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if WRITES.search(line)]
    assert not found, found
