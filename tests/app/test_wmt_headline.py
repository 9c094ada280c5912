"""The dashboard's uncertainty for WMT's statistics: intervals on by default on small data (bars, grid cells, the
"highest agreement" lines), the headline's choice of statistic with WMT25's option, labels that tell an outlined
top cluster from the rest, and degenerate data said on the page."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from tests.support.apptest import assert_clean, figures, run_app
from ui import formats, headlines

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


def _text(at) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]))


def test_intervals_are_on_by_default_on_the_sample_beside_every_highest_line():
    at = run_app()
    bars = [t for t in figures(at)[0]["data"] if t.get("error_y")]
    assert bars, "the sample is small: its intervals are drawn without asking"
    text = _text(at)
    lines = re.findall(r"highest agreement at the \w+ level \([^)]*\)[^.]*\.", text)
    assert lines and all("95% CI [" in line for line in lines), lines


def test_the_grid_writes_each_cells_interval():
    at = run_app(corr_form="grid")
    grid = figures(at)[0]
    cells = [t for row in grid["data"][0]["text"] for t in row if t]
    assert cells and all(re.search(r"<br><span[^>]*>\[−?\d\.\d+, −?\d\.\d+\]</span>", c) for c in cells
                         if c != "n/a"), cells[:3]


@pytest.mark.parametrize("choice", ["wmt25", "acc_eq", "spa"])
def test_the_headline_follows_the_chosen_statistic_with_its_wmt_test(choice):
    at = run_app(headline_follows=choice)
    assert_clean(at)
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))
    if choice in ("wmt25", "acc_eq"):
        assert "PairwisePermutationSigDiff" in captions
        assert "grouping: item" in figures(at)[0]["layout"]["title"]["text"]  # the chart follows the card
    if choice in ("wmt25", "spa"):
        assert "mt-metrics-eval PermutationSigDiff)" in captions
        assert figures(at)[1]["layout"]["yaxis"]["title"]["text"].startswith("SPA")
    statements = [m.value for m in at.markdown if m.value.startswith("**")]
    assert any(("agrees most" in s) or ("tie" in s) for s in statements), statements


def _cards(at) -> dict[str, tuple[str, str]]:
    """Title → (statement, detail) of every headline card, as the reader sees them."""
    plain = [re.sub(r"\\(.)", r"\1", e.value) for e in at.main if e.type in ("markdown", "caption")]
    cards = {}
    for k, text in enumerate(plain):
        if text.startswith(("Segment level", "System level ·")) and k + 2 < len(plain) and plain[k + 1].startswith("**"):
            cards[text.split(" ·")[0]] = (plain[k + 1].strip("*"), plain[k + 2])
    return cards


def _range_of(values, symbol: str) -> str:
    return headlines.value_range(list(values), symbol)


def test_heldout_headlines_say_what_was_computed_and_equal_their_charts():
    """The held-out WMT24 chat en→ko set (4 systems × 550 segments), uploaded: the system-level card says that the
    exact test over 16 sign patterns cannot separate the configurations (not that they tie) and the chart outlines
    nothing; acc_eq with grouping none is untested and its range is the chart's; WMT's acc_eq by item, chosen, is what
    both card and chart then show."""
    from korean_eval.inputs.sample import load_sample
    from tests.support.apptest import bar_points
    from tests.support.few_systems import FOUR_SYSTEMS
    from tests.support.helpers import SHARED, require
    from ui import state

    heldout = load_sample(require(SHARED / "heldout" / "wmt24_chat_enko"))
    at = run_app(**{state.EVALSET_KEY: heldout, state.SOURCE_KEY: "wmt24_chat_enko"})
    cards = _cards(at)
    statement, detail = cards["System level"]
    system = bar_points(figures(at)[1])
    assert statement == f"The test cannot separate these {len(system)} configurations ({_range_of(system.values(), 'r')})"
    assert detail.startswith(FOUR_SYSTEMS + ". Decided by: Pearson r, system level")
    assert "exact, 16 sign patterns; α = 0.05" in detail and "1,000 permutations" not in detail
    assert not [t for t in figures(at)[1]["data"] if t.get("name") == "top significance cluster"]
    assert "No significant difference" not in " ".join(s for s, _ in cards.values())
    # the system-level significance matrix says the same beside its clusters
    at.radio(key="sig_gran").set_value("system").run()
    at.button(key="sig_compute").click().run()
    assert_clean(at)
    infos = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info]
    assert f"{FOUR_SYSTEMS}. The clusters above are what the design forces, not a finding." in infos

    at.radio(key="statistic").set_value("acc_eq").run()
    assert_clean(at)
    statement, detail = _cards(at)["Segment level"]
    segment = bar_points(figures(at)[0])
    assert statement.endswith(f"range of all {_range_of(segment.values(), 'acc_eq')})")
    assert "grouping none (every pair of (system, segment) entries pooled). Not tested" in detail

    at.segmented_control(key="headline_follows").set_value("acc_eq").run()
    assert_clean(at)
    statement, detail = _cards(at)["Segment level"]
    fig = figures(at)[0]
    segment = bar_points(fig)
    top = [t for t in fig["data"] if t.get("name") == "top significance cluster"]
    members = {(o, i) for t in top for o, i in zip(*t["x"], strict=True)}
    assert "grouping: item" in fig["layout"]["title"]["text"] and members
    assert statement.endswith(f"({_range_of([segment[m] for m in members], 'acc_eq')})")
    assert "grouping item (the system pairs of each segment, averaged over segments: WMT's official acc_eq)" in detail
    assert "Monte-Carlo, 1,000 permutations, seed 12345" in detail


def test_constant_human_scores_are_said_on_the_page():
    from korean_eval.inputs.sample import load_sample
    from ui import state

    sample = load_sample()
    flat = dataclasses.replace(sample, human=sample.human.assign(score=50.0))
    at = run_app(**{state.EVALSET_KEY: flat, state.SOURCE_KEY: "constant"})
    warnings = re.sub(r"\\(.)", r"\1", " ".join(w.value for w in at.warning))
    assert "Degenerate data: every human score is the same" in warnings


def test_label_digits_separate_an_outlined_cluster_from_the_rest():
    assert formats.separating_digits([0.5824, 0.5788, 0.5561], [True, False, False]) == 3
    assert formats.separating_digits([0.99883, 0.9985], [True, False]) == 4
    assert formats.separating_digits([0.61, 0.42], [True, False]) == 2
    assert formats.separating_digits([0.61, 0.42], [False, False]) == 2
    assert formats.separating_digits([0.5, np.nan], [True, False]) == 2


def test_headline_choices_name_wmt25():
    assert "WMT25" in headlines.HEADLINE_CHOICES["wmt25"]
    assert headlines.headline_statistics("wmt25", "pearson", "pearson") == {"segment": "acc_eq", "system": "spa"}
    assert headlines.headline_statistics("acc_eq", "kendall", "kendall") == {"segment": "acc_eq", "system": "kendall"}
    assert headlines.headline_statistics("spa", "pearson", "pearson") == {"segment": "pearson", "system": "spa"}
    assert headlines.headline_statistics("chart", "acc_eq", "spa") == {"segment": "acc_eq", "system": "spa"}
