"""The self-contained HTML report (``run --report FILE.html``, :mod:`korean_eval.exports.html`): its numbers equal
the CSVs', Plotly's JavaScript is in it once and nothing is loaded from elsewhere, user text is escaped, and the
Downloads page offers it with the LaTeX tables."""

from __future__ import annotations

import io
import re
import zipfile
from html import unescape
from html.parser import HTMLParser

import pandas as pd
import pytest
from plotly.offline import get_plotlyjs

from korean_eval.engine.pipeline import evaluate
from korean_eval.exports.html import html_report
from korean_eval.exports.tables import TopClusters
from korean_eval.inputs.sample import load_sample
from korean_eval.inputs.tables import attach_human
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import evalset_from_texts
from tests.support.apptest import APP
from tests.support.export_fixture import LEVELS, METRICS, RENAMED


class _Cells(HTMLParser):
    """Every ``<td>`` of every table by table id: its attributes and text; every ``<script>`` and its ``src``."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[dict]]] = {}
        self.table: str | None = None
        self.cell: dict | None = None
        self.scripts: list[dict] = []
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href"):
            if name in attrs:
                self.links.append((tag, attrs[name]))
        if tag == "script":
            self.scripts.append(attrs)
        elif tag == "table":
            self.table = attrs.get("id")
            self.tables[self.table] = []
        elif tag == "tr" and self.table:
            self.tables[self.table].append([])
        elif tag == "td" and self.table:
            self.cell = {**attrs, "text": ""}
            self.tables[self.table][-1].append(self.cell)

    def handle_endtag(self, tag):
        if tag == "td":
            self.cell = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


@pytest.fixture(scope="module")
def report(export_run):
    text = export_run.report.read_text(encoding="utf-8")
    parser = _Cells()
    parser.feed(text)
    return text, parser


def _values(rows: list[list[dict]]) -> list[list[float]]:
    return [[float(c["data-value"]) for c in row if "data-value" in c] for row in rows if row]


def test_every_correlation_equals_correlations_csv(export_run, report):
    _, cells = report
    corr = pd.read_csv(export_run.out / "correlations.csv")
    rows = [row for row in cells.tables["table-correlations"] if row]
    assert len(rows) == len(corr) > 0
    number_columns = ["value", "ci_low", "ci_high", "n", "n_groups", "n_undefined", "epsilon"]
    for row, expected in zip(rows, corr.itertuples(), strict=True):
        got = {c["data-column"]: float(c["data-value"]) for c in row if "data-value" in c}
        texts = [c["text"] for c in row]
        assert texts[:5] == [expected.granularity, expected.grouping, expected.level, expected.metric,
                             expected.statistic]
        for column in number_columns:
            want = getattr(expected, column)
            assert got[column] == pytest.approx(want, rel=0, abs=0, nan_ok=True), column  # exact


def test_system_scores_and_ranks_equal_the_csvs(export_run, report):
    _, cells = report
    scores = pd.read_csv(export_run.out / "system_scores.csv", keep_default_na=False)
    ranks = pd.read_csv(export_run.out / "rankings.csv", keep_default_na=False)
    human = pd.read_csv(export_run.out / "human_systems.csv", keep_default_na=False).set_index("system")
    checked = 0
    for i, metric in enumerate(METRICS):
        for row in cells.tables[f"table-scores-{i}"]:
            if not row:
                continue
            system = row[0]["text"]
            for cell in row[1:]:
                column = cell["data-column"]
                if column == "Human":
                    want = human.loc[system, "human_mean"], human.loc[system, "human_rank"]
                else:
                    s = scores[(scores["system"] == system) & (scores["level"] == column) & (scores["metric"] == metric)]
                    r = ranks[(ranks["system"] == system) & (ranks["level"] == column) & (ranks["metric"] == metric)]
                    want = s["score"].iloc[0], r["metric_rank"].iloc[0]
                assert float(cell["data-value"]) == float(want[0])
                assert float(cell["data-rank"]) == float(want[1])
                assert cell["text"].startswith(f"{float(want[0]):.2f} (")
                checked += 1
    assert checked == len(METRICS) * 5 * (len(LEVELS) + 1)
    assert set(RENAMED.values()) <= {row[0]["text"] for row in cells.tables["table-scores-0"] if row}


def test_token_stats_equal_token_stats_csv(export_run, report):
    _, cells = report
    stats = pd.read_csv(export_run.out / "token_stats.csv").set_index("level")
    rows = [row for row in cells.tables["table-token-stats"] if row]
    assert [row[0]["text"] for row in rows] == list(LEVELS)
    for row in rows:
        got = {c["data-column"]: float(c["data-value"]) for c in row if "data-value" in c}
        s = stats.loc[row[0]["text"]]
        assert got["tokens_per_segment"] == s["tokens"] / s["texts"]
        assert got["tokens_per_word"] == s["tokens_per_word"]


def test_one_plotly_script_nothing_loaded_from_elsewhere(export_run, report):
    text, cells = report
    plotly_js = get_plotlyjs()
    assert text.count(plotly_js) == 1
    assert text.count(plotly_js[:200]) == 1
    assert not [s for s in cells.scripts if "src" in s]
    assert all(href.startswith("#") for _, href in cells.links), cells.links
    assert text.count('class="plotly-graph-div"') == 2 + 2 * len(METRICS) + 2  # correlations, scores + ranks, flips, tokens
    assert "<link" not in text.replace(plotly_js, "")


def test_settings_signatures_hash_and_validation_report(export_run, report):
    text, cells = report
    import json

    meta = json.loads((export_run.out / "run.json").read_text(encoding="utf-8"))
    assert f"<code id='data-sha256'>{meta['data_sha256']}</code>" in text
    signatures = {row[0]["text"]: row[1]["text"] for row in cells.tables["table-signatures"] if row}
    assert signatures == meta["signatures"]
    summary = {row[0]["text"]: row[1]["text"] for row in cells.tables["table-data-summary"] if row}
    assert summary["segments"] == "120" and summary["systems"] == "5"
    settings = re.search(r"<pre id='settings'>(.*?)</pre>", text, re.S).group(1)
    assert json.loads(unescape(settings)) == meta  # the whole run.json: settings, signatures, data, bootstrap


def test_user_text_is_escaped_and_the_human_note_shown(tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    ref = "고양이가 앉았다.\n날씨가 좋다.\n회의는 3시.\n".encode()
    systems = [(f"{hostile}.txt", "고양이 앉았다.\n날씨 좋다.\n회의 3시.\n".encode()), ("B.txt", ref),
               ("C.txt", "개.\n비.\n밥.\n".encode())]
    ev = evalset_from_texts([("ref.txt", ref)], systems)
    human = "system\tseg_id\tscore\n" + "".join(f"{s}\t{i}\t{v + i}\n" for s, v in ((hostile, 50), ("B", 90), ("C", 10))
                                                for i in range(3))
    attach_human(ev, human.encode(), "h.tsv")
    ev.human_note = "Human scores are SIMULATED <here>."
    text = html_report(evaluate(ev, EvalConfig(levels=("char",), metrics=("bleu", "ter"))), ev, TopClusters())
    assert hostile not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # shown as text in the tables
    assert "<div class='note' id='human-note'>Human scores are SIMULATED &lt;here&gt;.</div>" in text


def test_sample_report_says_the_human_scores_are_simulated():
    ev = load_sample()
    assert "SIMULATED" in ev.human_note
    text = html_report(evaluate(ev, EvalConfig(levels=("char",), metrics=("chrf",))), ev, TopClusters())
    assert "SIMULATED" in re.search(r"<div class='note' id='human-note'>(.*?)</div>", text).group(1)


def test_downloads_page_offers_the_latex_zip_and_the_report(tmp_path, monkeypatch, streamlit_navigation):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    at = AppTest.from_file(APP, default_timeout=600)
    for key in ("level|mecab", "level|kiwi", "level|jamo"):
        at.session_state[key] = False
    at.run()
    at.switch_page("pages/downloads.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="prepare_exports").click().run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    buttons = {b.label.split(" (")[0]: b for b in at.get("download_button")}
    assert {"korean-eval-latex.zip", "korean-eval-report.html"} <= set(buttons)
    from ui import exports, state

    settings = at.session_state[state.SETTINGS_KEY]
    key = f"ke_exports|{state.results_key(load_sample(), settings.config)}|{settings.statistic}|{settings.grouping}"
    value = at.session_state[key]
    assert isinstance(value, exports.Exports)
    with zipfile.ZipFile(io.BytesIO(value.latex_zip)) as zf:
        assert sorted(zf.namelist()) == ["correlations_segment.tex", "correlations_system.tex", "system_ranking.tex",
                                         "system_scores.tex", "token_stats.tex"]
        assert "\\textbf{" in zf.read("correlations_system.tex").decode()  # the headline's top cluster in bold
    assert value.report_html.count(get_plotlyjs().encode()) == 1
    assert b"SIMULATED" in value.report_html


def test_without_human_scores_no_correlation_chart_and_no_empty_rank_cells():
    from korean_eval.exports.latex import latex_tables

    ref = "고양이가 앉았다.\n날씨가 좋다.\n회의는 3시.\n".encode()
    ev = evalset_from_texts([("ref.txt", ref)], [("A.txt", "고양이 앉았다.\n날씨 좋다.\n회의 3시.\n".encode()),
                                                 ("B.txt", ref)])
    results = evaluate(ev, EvalConfig(levels=("char",), metrics=("bleu",)))
    text = html_report(results, ev, TopClusters())
    assert "No human scores: the correlations and the comparisons with humans need them" in text
    assert 'data-chart="correlation-' not in text and 'data-chart="ranks-' not in text
    assert text.count('class="plotly-graph-div"') == 2  # system scores, tokens per word
    scores = latex_tables(results, TopClusters())["system_scores.tex"]
    assert "A & 38.53 (2) \\\\" in scores and "(–)" not in scores and "Human" not in scores  # no empty column
