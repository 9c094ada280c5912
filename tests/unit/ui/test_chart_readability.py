"""Charts readable with many systems and configurations: every system of the ranking chart named in dark text at
both ends with room for the name, one colour per system up to 24. (Cut and overlapping labels of every drawn chart
are checked in a browser by tests/e2e/test_browser_scale.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ui import charts

LEVELS = ["word", "mecab", "kiwi", "okt", "komoran", "kkma", "hannanum", "spm", "char", "jamo"]


def _luminance(hex_color: str) -> float:
    """WCAG 2.1 relative luminance of ``#RRGGBB``."""
    channels = [int(hex_color.lstrip("#")[k:k + 2], 16) / 255 for k in (0, 2, 4)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_on_white(hex_color: str) -> float:
    """WCAG 2.1 contrast ratio of ``hex_color`` text on a white background (1 to 21)."""
    return 1.05 / (_luminance(hex_color) + 0.05)


def _paths(systems: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for stage in ["Human", *LEVELS]:
        for rank, system in zip(rng.permutation(len(systems)) + 1, systems, strict=True):
            rows.append({"system": system, "stage": stage, "rank": float(rank), "score": 50.0 - rank,
                         "differs": stage != "Human" and bool(rank % 2)})
    return pd.DataFrame(rows)


def test_ranking_chart_names_every_system_in_dark_text_with_room_for_the_longest_name():
    systems = [f"system_{k:02d}" for k in range(23)] + ["a-rather-long-system-name_v5"]
    fig = charts.bump_chart(_paths(systems), "BLEU").to_plotly_json()
    notes = fig["layout"]["annotations"]
    assert len(notes) == 2 * len(systems)  # both ends of every line
    assert {s for s in systems if any(s in a["text"] for a in notes if a["xanchor"] == "right")} == set(systems)
    assert {s for s in systems if any(s in a["text"] for a in notes if a["xanchor"] == "left")} == set(systems)
    for note in notes:
        assert note["font"]["size"] >= charts.MIN_TEXT
        assert contrast_on_white(note["font"]["color"]) >= 7, note  # WCAG AAA for normal text
    # the margins hold the longest name at its font size (≥ 7 px a character of 12 px text) beside the 14 px shift
    longest = max(len(s) for s in systems)
    margin = fig["layout"]["margin"]
    assert min(margin["l"], margin["r"]) >= 14 + 7 * (longest + 2)
    # one colour per line, and a tick label per stage
    colors = [t["line"]["color"] for t in fig["data"]]
    assert len(set(colors)) == len(systems)
    assert list(fig["layout"]["xaxis"]["ticktext"]) == ["Human", *LEVELS]
    assert fig["layout"]["yaxis"]["title"]["text"] and fig["layout"]["xaxis"]["tickfont"]["size"] >= charts.MIN_TEXT


def test_segment_scatter_of_many_systems_puts_its_legend_beside_the_plot():
    rng = np.random.default_rng(2)
    systems = [f"sys_{k:02d}" for k in range(24)]
    df = pd.DataFrame([{"system": s, "seg_id": k, "hyp": "가", "ref": "나", "difference": 0.0,
                        "human": rng.uniform(0, 100), "metric": rng.uniform(0, 50)} for s in systems for k in range(5)])
    layout = charts.segment_scatter(df, "BLEU", "word").to_plotly_json()["layout"]
    assert layout["legend"]["orientation"] == "v" and layout["legend"]["x"] > 1  # right of the plot, not above it
    assert layout["height"] >= 20 * len(systems)  # a line of the legend per system
    few = charts.segment_scatter(df[df["system"].isin(systems[:3])], "BLEU", "word").to_plotly_json()["layout"]
    assert few["legend"]["orientation"] == "h"


def test_speech_level_bars_of_many_systems_lie_down_with_every_name_on_its_row():
    from ui import lens_charts

    systems = [f"system_{k:02d}" for k in range(24)]
    speech = pd.DataFrame({"system": systems, "agreement": np.linspace(0.4, 0.8, 24)})
    spacing = pd.DataFrame({"system": systems, "f1": np.linspace(0.7, 1.0, 24)})
    fig = lens_charts.agreement_bars(speech, spacing).to_plotly_json()
    assert {t["orientation"] for t in fig["data"]} == {"h"}
    assert list(fig["layout"]["yaxis"]["ticktext"]) == systems  # every name, one row each
    assert fig["layout"]["height"] >= 2 * 14 * len(systems)  # two bars of a text line's height per system
    few = lens_charts.agreement_bars(speech.head(4), spacing.head(4)).to_plotly_json()
    assert {t.get("orientation", "v") for t in few["data"]} == {"v"}


def test_every_chart_writes_its_labels_in_dark_text():
    """The layout's font colour (tick labels, axis titles, legends) is set, and dark: Streamlit's theme would
    otherwise draw them pale grey."""
    fig = charts.level_bars(pd.DataFrame({"level": LEVELS, "family": "word", "v": 1.0}), "v", "t", "a").to_plotly_json()
    assert contrast_on_white(fig["layout"]["font"]["color"]) >= 7
    for axis in ("xaxis", "yaxis"):  # the theme's axis colours would beat the layout's font
        assert contrast_on_white(fig["layout"][axis]["tickfont"]["color"]) >= 7
        assert contrast_on_white(fig["layout"][axis]["title"]["font"]["color"]) >= 7
