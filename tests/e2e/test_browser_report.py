"""The HTML report in a real browser (Debian's Chromium via Playwright): opened from ``file://`` with the network
off (``offline=True`` and every http(s) request aborted), every chart draws and no request leaves the page. Without
``/usr/bin/chromium`` the test skips locally and fails under ``CI=true``. The Chromium is the one the e2e modules
share (tests/support/browser_server.py), in a browser context of this test's own."""

from __future__ import annotations

import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.exports.html import html_report
from korean_eval.exports.tables import find_top_clusters
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables.intervals import add_confidence_intervals
from korean_eval.model.config import EvalConfig

pytestmark = pytest.mark.browser
#: The fixture ``chromium``, shared by the e2e modules.
pytest_plugins = ("tests.support.browser_server",)


def test_report_opens_offline_and_draws_every_chart(chromium, tmp_path, monkeypatch):
    monkeypatch.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    evalset = load_sample()
    results = evaluate(evalset, EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), spa_permutations=0))
    results.correlations = add_confidence_intervals(results, n_resamples=50, seed=1)
    top = find_top_clusters(results, "pearson", n_permutations=50, seed=1)
    path = tmp_path / "report.html"
    path.write_text(html_report(results, evalset, top), encoding="utf-8")
    n_charts = path.read_text(encoding="utf-8").count('class="plotly-graph-div"')
    assert n_charts == 2 + 2 * 3 + 2

    requests, errors = [], []
    context = chromium.new_context(offline=True, viewport={"width": 1300, "height": 1000})
    try:
        context.route("http://**/*", lambda route: (requests.append(route.request.url), route.abort()))
        context.route("https://**/*", lambda route: (requests.append(route.request.url), route.abort()))
        page = context.new_page()
        page.on("request", lambda request: request.url.startswith("file://") or requests.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        page.goto(path.as_uri())
        page.wait_for_function(
            "n => [...document.querySelectorAll('.plotly-graph-div')].filter(d => d.querySelector('.main-svg'))"
            ".length === n", arg=n_charts, timeout=60_000)
        drawn = page.eval_on_selector_all(
            ".plotly-graph-div", "divs => divs.map(d => d.querySelectorAll('.main-svg').length)")
        bars = page.locator("[data-chart='correlation-segment'] .barlayer .point path").count()
        heat = page.locator("[data-chart='flipped-pairs'] .hm image, [data-chart='flipped-pairs'] .heatmaplayer").count()
        title = page.title()
    finally:
        context.close()
    assert title == "korean-eval report"
    assert len(drawn) == n_charts and all(k > 0 for k in drawn), drawn
    assert bars >= 6  # 2 levels × 3 metrics (+ error bars drawn on them)
    assert heat > 0
    assert requests == [] and errors == [], (requests, errors)
