"""Expensive views run when the user asks, once: the significance matrix behind a button with its estimated time,
kept and never recomputed at a widget change; the numbers behind the charts and the comparison of two
configurations drawn only while their expander is open (readable: one line per configuration, the signatures in a
table of their own); the Korean lens's probe over many levels behind a button with its estimate (AppTest)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.lens.costs import LensEstimate
from korean_eval.metaeval.tables import significance
from ui import lens_state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
FAST = {"level|mecab": False, "level|jamo": False}  # word, kiwi, char

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


def _app(page: str | None = None, **session) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)
    for key, value in {**FAST, **session}.items():
        at.session_state[key] = value
    if page:
        at.switch_page(page)
    at.run()
    _clean(at)
    return at


def _clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _matrix_drawn(at: AppTest) -> bool:
    return any('"significance-matrix"' in c.proto.spec for c in at.get("plotly_chart"))


def _titles(at: AppTest) -> list[str]:
    return [(json.loads(c.proto.spec)["layout"].get("title") or {}).get("text", "") for c in at.get("plotly_chart")]


def _plain(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def test_significance_matrix_waits_for_its_button_then_is_kept(monkeypatch):
    calls = []  # the full matrices (the headline's top cluster tests only the pairs it needs: ``pairs``)
    original = significance.significance_table

    def counting(*args, **kwargs):
        if len(args) < 10 and kwargs.get("pairs") is None:
            calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(significance, "significance_table", counting)
    from ui import statistics_state

    statistics_state._stats_store.clear()  # no matrix kept from an earlier module of this process  # noqa: SLF001
    at = _app()
    assert not _matrix_drawn(at) and calls == []  # nothing computed before the click
    estimate = [c.value for c in at.caption if "pairs of configurations" in c.value]
    assert len(estimate) == 1 and "estimated from measured costs" in estimate[0]
    assert re.search(r"(under a second|about \d+ (s|min))", estimate[0])
    at.button(key="sig_compute").click().run()
    _clean(at)
    assert _matrix_drawn(at) and len(calls) == 1
    # another statistic: not computed at the widget change, its button instead
    at.radio(key="statistic").set_value("spearman").run()
    _clean(at)
    assert not _matrix_drawn(at) and len(calls) == 1 and at.button(key="sig_compute")
    # back: the kept matrix, drawn without computing
    at.radio(key="statistic").set_value("pearson").run()
    _clean(at)
    assert _matrix_drawn(at) and len(calls) == 1


def test_numbers_behind_the_charts_are_drawn_only_while_open():
    at = _app()
    assert not any("statistic" in t.value.columns for t in at.table)  # closed: no table sent to the browser
    at.session_state["corr_numbers"] = True  # the expander opened
    at.run()
    _clean(at)
    numbers = next(t.value for t in at.table if "statistic" in t.value.columns)
    assert "signature" not in numbers.columns  # no 130-px rows: the signatures have a table of their own
    assert len(numbers) == 2 * 3 * 5  # 2 granularities × 3 levels × 5 metrics, one row each
    by_metric = next(t.value for t in at.table if list(t.value.columns) == ["metric", "signature", "levels"])
    assert all("version" in _plain(s) and "level:" not in _plain(s) for s in by_metric["signature"])
    by_level = next(t.value for t in at.table if list(t.value.columns) == ["level", _plain("level part")])
    assert set(by_level["level"]) == {"word", "kiwi", "char"}


def test_comparison_is_tested_only_while_open(monkeypatch):
    from ui import statistics_state

    calls = []
    original = statistics_state.comparison
    monkeypatch.setattr(statistics_state, "comparison", lambda *a, **k: calls.append(a[1:3]) or original(*a, **k))
    at = _app()
    headline_calls = len(calls)  # the headline card's own comparison
    assert not [s for s in at.selectbox if s.key == "cmp_a"]
    at.session_state["corr_compare"] = True
    at.run()
    _clean(at)
    assert at.selectbox(key="cmp_a") and len(calls) > headline_calls


def test_lens_probe_over_slow_levels_waits_for_its_button(monkeypatch):
    import korean_eval.lens.costs as costs

    monkeypatch.setattr(costs, "lens_estimate", lambda evalset, config, kinds=None: LensEstimate(2.0, 600.0))
    runs = []
    original = lens_state.run_lens
    monkeypatch.setattr(lens_state, "analyzers_in_workers", lambda: False)  # the lens in this process: runs counted
    monkeypatch.setattr(lens_state, "run_lens", lambda *a, **k: runs.append(k["with_probe"]) or original(*a, **k))
    lens_state._store.clear()  # no lens result kept in memory by an earlier test of these settings  # noqa: SLF001
    at = _app("pages/lens.py", **{"metrics|sacrebleu": ["chrf"], "level|kiwi": False})
    assert runs == [False]  # the analysis (cheap) ran, the probe (estimated 10 min) did not
    probe_button = at.button(key="lens_probe_run")
    assert probe_button.label == "Run the perturbation probe"
    assert any("about 10 min" in c.value and "estimated from measured costs" in c.value for c in at.caption)
    assert any(t.startswith("Error profile") for t in _titles(at))
    probe_button.click().run()
    _clean(at)
    assert runs == [False, True]
    assert any(t.startswith("Which metric × level notices which error") for t in _titles(at))
    at.segmented_control(key="lens_profile_value").set_value("recall").run()  # a widget change: nothing rerun
    _clean(at)
    assert runs == [False, True]


def test_a_slow_lens_analysis_waits_too(monkeypatch):
    import korean_eval.lens.costs as costs

    monkeypatch.setattr(costs, "lens_estimate", lambda evalset, config, kinds=None: LensEstimate(90.0, 600.0))
    runs = []
    monkeypatch.setattr(lens_state, "analyzers_in_workers", lambda: False)  # the lens in this process: runs counted
    monkeypatch.setattr(lens_state, "run_lens", lambda *a, **k: runs.append(k) or None)
    at = _app("pages/lens.py", **{"metrics|sacrebleu": ["chrf"], "level|kiwi": False, "level|char": False})
    assert runs == [] and at.button(key="lens_run").label == "Run the Korean lens"
    assert any("about 2 min" in c.value for c in at.caption)


def test_the_report_holds_the_lens_the_lens_page_computed():
    from korean_eval.inputs.sample import load_sample
    from ui import state

    at = _app("pages/lens.py", **{"metrics|sacrebleu": ["chrf"], "level|kiwi": False})
    at.switch_page("pages/downloads.py").run()
    at.button(key="prepare_exports").click().run()
    _clean(at)
    settings = at.session_state[state.SETTINGS_KEY]
    key = f"ke_exports|{state.results_key(load_sample(), settings.config)}|{settings.statistic}|{settings.grouping}"
    report = at.session_state[key].report_html.decode("utf-8")
    assert "<h2 id='lens'>Korean lens</h2>" in report and 'data-chart="lens-probe"' in report
