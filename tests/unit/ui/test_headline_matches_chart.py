"""A headline card and the chart beneath it come from one source: for each choice of what they follow, the card's
value range and members are the plotted values and outlined bars of the chart drawn with the same settings, derived
with the functions the Correlations page calls (:func:`ui.headlines.plotted_statistics`,
:func:`ui.views.correlation_view`, the top-cluster tests of :mod:`ui.statistics_state`, :func:`ui.headlines.tested_card`,
:func:`ui.grid_charts.correlation_chart`); on 4 systems the system-level card says that the exact test cannot
separate the configurations, with its real numbers. On the bundled sample and the held-out WMT24 chat en→ko set."""

from __future__ import annotations

import re

import numpy as np
import pytest

from korean_eval.engine import stored_views
from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables.accuracy_significance import ACCURACY_TESTS, accuracy_top_cluster
from korean_eval.model.config import EvalConfig
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from tests.support.apptest import bar_points
from tests.support.few_systems import FOUR_SYSTEMS, four_system_sample
from tests.support.helpers import SHARED, require
from ui import grid_charts, headlines, views

HELDOUT = SHARED / "heldout" / "wmt24_chat_enko"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(load_sample(), EvalConfig(levels=("word", "char", "jamo"), jobs=1, spa_permutations=200))


@pytest.fixture(scope="module")
def heldout(tmp_path_factory):
    root = require(HELDOUT)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield evaluate(load_sample(root), EvalConfig(levels=("word", "char"), jobs=1, spa_permutations=0))


def page_card(results, choice: str, statistic: str, grouping: str, granularity: str):
    """What the Correlations page draws for these settings: the card, the chart's figure (JSON) and the outline."""
    plotted = headlines.plotted_statistics(choice, statistic, grouping)
    view = views.correlation_view(results, plotted["segment"].statistic, plotted["segment"].grouping,
                                  system=plotted["system"].statistic)
    shown = plotted[granularity]
    n_systems = int(results.human_systems["human_mean"].notna().sum())
    if shown.statistic in ACCURACY_TESTS:  # ui.statistics_state.accuracy_top_cluster_tables
        table, clusters = accuracy_top_cluster(results, shown.statistic, n_permutations=RESAMPLES, seed=SEED,
                                               alpha=ALPHA)
        test = ACCURACY_TESTS[shown.statistic][2]
    else:  # ui.statistics_state.top_cluster_tables
        table, clusters = stored_views.top_cluster(results, shown.statistic, granularity, shown.grouping)
        test = stored_views.HEADLINE_TEST
    card, top = headlines.tested_card(view, shown, granularity, n_systems, table, clusters, test, SEED, RESAMPLES,
                                      ALPHA)
    note = f"grouping: {shown.grouping}" if granularity == "segment" else ""
    fig = grid_charts.correlation_chart(view, granularity, shown.statistic, "bars", top, note).to_plotly_json()
    return card, fig, top


def outlined(fig: dict) -> set[tuple[str, str]]:
    """(bar label, level) of the bars outlined as the top significance cluster."""
    traces = [t for t in fig["data"] if t.get("name") == "top significance cluster"]
    return {(o, i) for t in traces for o, i in zip(*t["x"], strict=True)}


def check_one_source(results, choice: str, statistic: str, grouping: str, granularity: str) -> headlines.Card:
    card, fig, top = page_card(results, choice, statistic, grouping, granularity)
    plotted = {k: float(v) for k, v in bar_points(json_safe(fig)).items()}
    shown = headlines.plotted_statistics(choice, statistic, grouping)[granularity]
    symbol = views.SYMBOLS[shown.statistic]
    members = set(outlined(fig))
    if members:  # the card's range is the outlined bars' range, its members those bars
        expected = headlines.value_range([plotted[m] for m in members], symbol)
        assert len(members) == len(top)
    else:  # nothing outlined: the card covers every bar
        expected = headlines.value_range(list(plotted.values()), symbol)
    assert f"({expected})" in card.statement or f"{expected})" in card.statement, (card.statement, expected)
    numbers = [float(x.replace("−", "-")) for x in re.findall(r"−?\d\.\d{3}", card.statement)]
    assert all(any(abs(n - v) < 5e-4 for v in plotted.values()) for n in numbers), (numbers, card.statement)
    where = headlines.where_text(shown.statistic, granularity, shown.grouping)
    assert where in card.detail and views.STATISTIC_LABELS[shown.statistic] in card.detail
    if granularity == "segment":
        assert f"grouping: {shown.grouping}" in fig["layout"]["title"]["text"]
    return card


def json_safe(fig: dict) -> dict:
    """``to_plotly_json`` holds numpy arrays; the tests' readers take lists."""
    out = {"data": [], "layout": fig["layout"]}
    for trace in fig["data"]:
        out["data"].append({k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in trace.items()})
    return out


@pytest.mark.parametrize(("choice", "statistic", "granularity"), [
    ("chart", "pearson", "segment"), ("chart", "pearson", "system"), ("chart", "kendall", "system"),
    ("acc_eq", "pearson", "segment"), ("spa", "pearson", "system"), ("chart", "acc_eq", "system"),
])
def test_card_and_chart_are_one_source_on_the_sample(sample, choice, statistic, granularity):
    card = check_one_source(sample, choice, statistic, "none", granularity)
    resampling = "exact, 32 sign patterns" if granularity == "system" and statistic != "acc_eq" and choice != "spa" \
        else "Monte-Carlo, 1,000 permutations, seed 12345"
    assert resampling in card.detail, card.detail
    assert "cannot separate" not in card.statement  # 5 systems: 1/32 < 0.05


@pytest.mark.parametrize(("choice", "granularity"), [("chart", "segment"), ("acc_eq", "segment"),
                                                     ("chart", "system")])
def test_card_and_chart_are_one_source_on_the_heldout_set(heldout, choice, granularity):
    card = check_one_source(heldout, choice, "pearson", "none", granularity)
    if granularity == "system":
        assert card.title == "System level · 4 systems"
        assert card.statement.startswith(f"The test cannot separate these {len(heldout.segment_matrices)} "
                                         "configurations (r ")
        assert card.detail.startswith(FOUR_SYSTEMS + ". Decided by: Pearson r, system level")
        assert "exact, 16 sign patterns; α = 0.05" in card.detail and "1,000 permutations" not in card.detail
        assert "tie" not in card.statement and "No significant difference" not in card.statement


def test_wmts_acc_eq_is_a_choice_and_the_chart_follows_it(heldout):
    """acc_eq with grouping none on the chart: the card is untested and points to WMT's variant; choosing WMT's
    acc_eq by item, chart and card both show it (the values of the correlations table's acc_eq by item)."""
    plotted = headlines.plotted_statistics("chart", "acc_eq", "none")
    assert plotted["segment"] == headlines.Plotted("acc_eq", "none")
    assert headlines.untested_reason(plotted["segment"], 0) == headlines.ACC_EQ_NONE_UNTESTED
    wmt = headlines.plotted_statistics("acc_eq", "acc_eq", "none")
    assert wmt["segment"] == headlines.Plotted("acc_eq", "item") and "WMT's official" in headlines.HEADLINE_CHOICES["acc_eq"]
    card, fig, _ = page_card(heldout, "acc_eq", "acc_eq", "none", "segment")
    corr = heldout.correlations
    by_item = corr[(corr["granularity"] == "segment") & (corr["statistic"] == "acc_eq") & (corr["grouping"] == "item")]
    drawn = bar_points(json_safe(fig))
    assert sorted(drawn.values()) == pytest.approx(sorted(by_item["value"]), abs=1e-12)
    assert "grouping item (the system pairs of each segment, averaged over segments: WMT's official acc_eq)" in card.detail


def test_four_systems_say_the_exact_test_cannot_reach_alpha(tmp_path, monkeypatch):
    """Without ../shared: 4 of the sample's systems give the same statement as the held-out set."""
    monkeypatch.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    results = evaluate(four_system_sample(), EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"),
                                                        jobs=1, spa_permutations=0))
    assert int(results.human_systems["human_mean"].notna().sum()) == 4
    card, fig, top = page_card(results, "chart", "pearson", "none", "system")
    assert card.statement.startswith("The test cannot separate these 6 configurations")
    assert card.detail.startswith(FOUR_SYSTEMS) and not top and not outlined(fig)
