"""The dashboard at scale through Streamlit's AppTest: a large evaluation — 20 systems with human scores
(``tests/support/large_evaluation.py``, :data:`SEGMENTS` segments each, the systems mixed from a strong and a weak
system's outputs: ``shared_outputs``), every available token level, every metric including the extended ones —
loaded as the Data page loads a long table; every page runs clean, and every chart labels every level and metric it
draws (every category axis labelled in full: ``tickmode='array'`` with every category, or one tick per bar; never
Plotly's automatic thinning), with text of at least 11 px.

Scoring is the slow part: it happens once, in the module fixture's first page run (disk cache in the module's tmp
dir); every later run reads the in-process results store. Every available level is used except Kkma (KoNLPy), whose
analyser needs about 0.17 s of CPU per sentence (measured: 167 ms on the project's 2-core machine, against 8–27 ms
for Komoran, Hannanum and Okt), minutes for the table's distinct texts; it is labelled like every other level, and
the charts are checked with nine levels × eleven metrics. With ``shared_outputs`` a segment has at most 2 distinct
hypotheses, not 20: the tokenisers see 59 distinct texts instead of 419 and the metrics score 39 distinct pairs
instead of 400, while the 20 systems, their 400 (system, segment) points and every statistic and chart computed
over them stay.

What is checked depends on the systems, levels and metrics, not on the segments or the resamples
(:data:`~tests.support.large_evaluation.LAYOUT_SEGMENTS` says why for the segments): :data:`SEGMENTS` is 20, fewer
than the browser test's 30 but more than :data:`korean_eval.metaeval.stats.permutation.MAX_EXACT_UNITS` (16), so the
segment-level permutation tests stay Monte-Carlo as on a large evaluation; and the dashboard's resampling count
(``ui.statistics_state.N_RESAMPLES``, 1000) is :data:`RESAMPLES` here, which changes p-values and so which configurations form
the top cluster, but neither the labels of any chart nor the headline's form (every outcome is accepted), while the
floor of a p-value (1 / (RESAMPLES + 1) < 0.01) still lets clusters split at α = 0.05.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.levels.registry import LEVEL_NAMES, level_table
from korean_eval.metrics import METRIC_NAMES
from tests.support.apptest import APP, assert_clean, figures, values
from tests.support.large_evaluation import write_large_evaluation
from ui import state, statistics_state, views
from ui.charts import MIN_TEXT
from ui.inputs import TableRoles, Upload, build_from_table, guess_table_roles, table_head

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("streamlit_navigation")]

#: Levels too slow for a test of 20 × LAYOUT_SEGMENTS (system, segment) pairs (see the module docstring).
TOO_SLOW = {"kkma"}
ALL_LEVELS = list(LEVEL_NAMES)


@functools.cache
def available() -> list[str]:
    """The levels this machine has, less :data:`TOO_SLOW`: checked when a test first asks, not at collection
    (starting KoNLPy's JVM and loading every analyzer took ~40 s in each collecting process)."""
    return [r["level"] for r in level_table() if r["available"] == "yes" and r["level"] not in TOO_SLOW]
PAGES = ["pages/correlations.py", "pages/scores.py", "pages/segments.py", "pages/tokens.py", "pages/data.py",
         "pages/downloads.py"]
SYSTEMS, SEGMENTS = 20, 20
#: Permutations and bootstrap resamples of every significance test in this module (the dashboard's: 1000).
RESAMPLES = 100


@pytest.fixture(scope="module")
def large_session(tmp_path_factory) -> Iterator[dict]:
    """Session state of a user who loaded the large long table on the Data page and chose every level and metric;
    the evaluation is computed here, once."""
    tmp = tmp_path_factory.mktemp("large")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp / "cache"))
        mp.setattr(statistics_state, "N_RESAMPLES", RESAMPLES)
        path = write_large_evaluation(tmp, segments=SEGMENTS, shared_outputs=True)
        upload = Upload(path.name, path.read_bytes())
        guess = guess_table_roles(list(table_head(upload).columns))  # the Data page's prefill of the column pickers
        roles = TableRoles(guess["system"][0], guess["seg_id"], guess["hyp"][0], guess["ref"], None, guess["score"][0])
        evalset = build_from_table(upload, roles)
        assert (len(evalset.systems), evalset.n_segments) == (SYSTEMS, SEGMENTS)
        session = {
            state.EVALSET_KEY: evalset,
            state.SOURCE_KEY: path.name,
            **{f"level|{lv}": lv in available() for lv in ALL_LEVELS},
            "metric_groups": ["sacrebleu", "extended"],
        }
        at = run_page("pages/correlations.py", session)
        config = at.session_state[state.SETTINGS_KEY].config
        assert config.levels == tuple(available()) and config.metrics == METRIC_NAMES
        yield session


def run_page(page: str, session: dict, **extra) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=3600)
    for key, value in {**session, **extra}.items():
        at.session_state[key] = value
    at.run()
    if page != "pages/correlations.py":
        at.switch_page(page).run()
    assert_clean(at)
    return at


# ------------------------------------------------------------------------------------------- chart checks


def _axis_of(trace: dict, letter: str) -> str:
    """Layout key of a trace's axis: ``xaxis``, ``yaxis``, ``xaxis2`` …"""
    ref = trace.get(f"{letter}axis", letter)
    return f"{letter}axis{ref[1:]}"


def _ticks(layout: dict, axis_key: str) -> dict:
    """tick value → tick text of an axis, with those of the axes drawn over it (``overlaying``: e.g. a large
    significance matrix numbers its columns below and above)."""
    name = axis_key.replace("axis", "")
    axes = [layout.get(axis_key, {})] + [a for k, a in layout.items()
                                          if re.fullmatch(r"[xy]axis\d*", k) and a.get("overlaying") == name]
    out = {}
    for axis in axes:
        out.update(zip(values(axis.get("tickvals") or []), axis.get("ticktext") or [], strict=True))
    return out


def _categories(data) -> list:
    return values(data) if data is not None else []


def unlabelled(fig: dict) -> list[str]:
    """What a figure draws on a category axis without a label (empty when every category is labelled)."""
    problems = []
    layout = fig["layout"]
    for trace in fig["data"]:
        kind = trace.get("type", "scatter")
        for letter in "xy":
            data = trace.get(letter)
            if data is None or (kind == "scatter" and letter == "y"):
                continue
            axis = layout.get(_axis_of(trace, letter), {})
            title = (layout.get("title") or {}).get("text", "")
            cats = _categories(data)
            if kind == "bar" and letter == "x" and cats and isinstance(cats[0], list):  # metric · level bars
                if not (axis.get("tickmode") == "linear" and axis.get("dtick") == 1):
                    problems.append(f"{title}: grouped bars without a tick per bar ({axis.get('tickmode')})")
            elif kind == "heatmap" or any(isinstance(c, str) for c in cats):
                ticks = _ticks(layout, _axis_of(trace, letter))
                missing = [c for c in cats if not str(ticks.get(c, "")).strip()]
                if axis.get("tickmode") != "array" or missing:
                    problems.append(f"{title}: {letter} axis {axis.get('tickmode')}, unlabelled {missing[:5]}")
    return problems


def small_text(fig: dict) -> list[str]:
    """Every text size below :data:`ui.charts.MIN_TEXT` px set anywhere in the figure."""
    sizes = [("layout font", fig["layout"].get("font", {}).get("size"))]
    uniform = fig["layout"].get("uniformtext")
    if any(t.get("type") == "bar" and t.get("text") is not None for t in fig["data"]):
        sizes.append(("uniformtext", (uniform or {}).get("minsize", 0)))
    sizes += [(f"{t.get('type')} text", (t.get("textfont") or {}).get("size")) for t in fig["data"]]
    sizes += [(f"{k} ticks", (v.get("tickfont") or {}).get("size")) for k, v in fig["layout"].items()
              if re.fullmatch(r"[xy]axis\d*", k)]
    return [f"{what}: {size}" for what, size in sizes if size is not None and size < MIN_TEXT]


def tick_texts(fig: dict) -> set[str]:
    """Every tick label of a figure (``ticktext``) and every category of its grouped bars."""
    out: set[str] = set()
    for key, axis in fig["layout"].items():
        if re.fullmatch(r"[xy]axis\d*", key):
            out.update(str(t) for t in axis.get("ticktext") or [])
    for trace in fig["data"]:
        cats = _categories(trace.get("x"))
        if cats and isinstance(cats[0], list):
            out.update(str(c) for level in cats for c in level)
    return out


def check_charts(at: AppTest) -> list[dict]:
    figs = figures(at)
    for fig in figs:
        title = (fig["layout"].get("title") or {}).get("text", "")
        assert not unlabelled(fig), (title, unlabelled(fig))
        assert not small_text(fig), (title, small_text(fig))
    return figs


def titled(figs: list[dict], prefix: str) -> list[dict]:
    return [f for f in figs if ((f["layout"].get("title") or {}).get("text", "")).startswith(prefix)]


METRIC_LABELS = {views.metric_label(m) for m in METRIC_NAMES}


def _plain(label: str) -> str:
    return label.removeprefix("−")


# --------------------------------------------------------------------------------------------------- tests


def test_correlations_page_draws_full_grids_and_a_significance_headline(large_session):
    at = run_page("pages/correlations.py", large_session)
    figs = check_charts(at)
    for gran in ("Segment level", "System level"):
        (grid,) = titled(figs, gran)
        assert grid["data"][0]["type"] == "heatmap"  # 110 configurations: a grid, not a wall of bars
        layout = grid["layout"]
        assert list(layout["xaxis"]["ticktext"]) == available()
        assert {_plain(t) for t in layout["yaxis"]["ticktext"]} == METRIC_LABELS
    text = re.sub(r"\\(.)", r"\1", " ".join(m.value for m in at.markdown))
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))
    assert f"System level · {SYSTEMS} systems" in captions and "too few to call a winner" not in text
    assert "Top significance cluster:" in captions and "paired permutation test" in captions
    assert re.search(r"tie at the top|agrees most with the humans|No significant difference", text)
    # the same results as bars on request: one tick per bar, values of at least 11 px
    bars = check_charts(run_page("pages/correlations.py", large_session, corr_form="bars"))
    seg = titled(bars, "Segment level")[0]
    assert {_plain(t) for t in tick_texts(seg)} >= set(available()) | METRIC_LABELS


def test_significance_matrix_of_every_configuration_labels_every_row_and_column(large_session):
    at = run_page("pages/correlations.py", large_session, sig_gran="system")
    if any(b.key == "sig_compute" for b in at.button):  # not computed yet in this process
        at.button(key="sig_compute").click().run()
    (matrix,) = [f for f in check_charts(at) if f["layout"].get("meta") == "significance-matrix"]
    n = len(available()) * len(METRIC_NAMES)
    rows = matrix["layout"]["yaxis"]["ticktext"]
    assert len(rows) == len(_ticks(matrix["layout"], "xaxis")) == n
    assert matrix["layout"]["height"] >= 20 * n
    assert {lab.split("] ")[1].rsplit(" (", 1)[0].split("@")[1] for lab in rows} == set(available())


def test_scores_page_labels_every_level_and_metric(large_session):
    at = run_page("pages/scores.py", large_session)
    figs = check_charts(at)
    assert set(available()) <= tick_texts(titled(figs, "System ranking")[0])
    accuracy = titled(figs, "Pairwise accuracy")[0]
    assert accuracy["data"][0]["type"] == "heatmap"
    assert set(available()) <= tick_texts(accuracy) and METRIC_LABELS <= tick_texts(accuracy)
    flips = titled(figs, "Flipped system pairs")[0]
    assert set(available()) <= tick_texts(flips) and METRIC_LABELS <= tick_texts(flips)


@pytest.mark.parametrize("page", ["pages/segments.py", "pages/tokens.py", "pages/data.py", "pages/downloads.py"])
def test_other_pages_run_clean_and_label_their_charts(large_session, page):
    at = run_page(page, large_session)
    figs = check_charts(at)
    if page == "pages/tokens.py":
        assert any(set(available()) <= tick_texts(f) for f in figs)
