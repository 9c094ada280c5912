"""The one colour rule of correlation pictures (:mod:`korean_eval.metaeval.tables.agreement`): error rates negated
into agreement, their intervals swapped, accuracies untouched, one sequential colour scale from min(0, lowest) to 1;
and the dashboard's view and the HTML report's grid both draw with it (the same ``shown`` values, the same scale)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.exports.charts import correlation_figure
from korean_eval.exports.tables import correlation_grid
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables.agreement import (
    AGREEMENT_COLORSCALE,
    agreement_color_range,
    agreement_columns,
    agreement_label,
)
from korean_eval.model.config import EvalConfig


def _rows() -> pd.DataFrame:
    return pd.DataFrame({
        "level": ["char", "char", "char", "word"],
        "metric": ["bleu", "ter", "ter", "ter"],
        "statistic": ["pearson", "pearson", "acc_eq", "kendall"],
        "value": [0.7, -0.8, 0.6, -0.2],
        "ci_low": [0.6, -0.9, np.nan, -0.3],
        "ci_high": [0.8, -0.7, np.nan, -0.1],
    })


def _higher(metric: str, level: str) -> bool:
    return metric != "ter"


def test_error_rates_are_negated_with_their_intervals_swapped():
    out = agreement_columns(_rows(), _higher)
    assert list(out["negated"]) == [False, True, False, True]  # acc_eq is an accuracy: never negated
    assert list(out["shown"]) == [0.7, 0.8, 0.6, 0.2]
    assert out.loc[1, "shown_low"] == pytest.approx(0.7) and out.loc[1, "shown_high"] == pytest.approx(0.9)
    assert out.loc[0, ["shown_low", "shown_high"]].tolist() == [0.6, 0.8]
    assert list(out["value"]) == [0.7, -0.8, 0.6, -0.2]  # the value as computed is kept
    plain = agreement_columns(_rows(), _higher, agreement=False)
    assert not plain["negated"].any() and list(plain["shown"]) == list(plain["value"])


def test_labels_and_colour_range():
    assert agreement_label("TER", True) == "\u2212TER" and agreement_label("BLEU", False) == "BLEU"
    assert agreement_color_range([0.2, 0.9, np.nan]) == (0.0, 1.0)  # 0 and below: the lightest
    assert agreement_color_range([-0.3, 0.5]) == (-0.3, 1.0)
    assert agreement_color_range([np.nan]) == (0.0, 1.0)


@pytest.fixture(scope="module")
def results():
    evalset = load_sample()
    return evaluate(evalset, EvalConfig(levels=("word", "char"), metrics=("bleu", "ter", "eed")))


def test_report_grid_and_dashboard_view_draw_the_same_agreement(results):
    from ui.views import correlation_view

    view = correlation_view(results, "pearson", "none", agreement=True)
    for granularity in ("segment", "system"):
        grid = correlation_grid(results, granularity, "pearson")
        mine = view[view["granularity"] == granularity].set_index(["level", "metric"])["shown"]
        theirs = grid.set_index(["level", "metric"])["shown"]
        assert theirs.to_dict() == pytest.approx(mine.reindex(theirs.index).to_dict())
        # an error rate that agrees with the humans is drawn positive in both
        ter = grid[grid["metric"] == "ter"]
        assert (ter["value"] < 0).all() and (ter["shown"] > 0).all() and ter["negated"].all()


def test_report_heatmap_uses_the_agreement_scale(results):
    from ui.grid_charts import correlation_grid as dashboard_grid
    from ui.views import correlation_view

    grid = correlation_grid(results, "segment", "pearson")
    many = pd.concat([grid] * 11, ignore_index=True)  # beyond BAR_LIMIT configurations: a grid
    many["level"] = [f"{lv}{i // len(grid)}" for i, lv in enumerate(many["level"])]
    fig = correlation_figure(many, {}, "segment", "title", "pearson")
    heat = fig.data[0]
    assert heat.type == "heatmap" and heat.zmid is None  # never a diverging scale centred on a raw correlation
    assert heat.colorscale == go.Heatmap(colorscale=AGREEMENT_COLORSCALE).colorscale
    z = np.asarray(heat.z, dtype=float)
    assert np.nanmin(z) > 0 and (heat.zmin, heat.zmax) == agreement_color_range(many["shown"])
    assert "\u2212TER" in fig.layout.yaxis.ticktext and "\u2212EED" in fig.layout.yaxis.ticktext
    view = correlation_view(results, "pearson", "none", agreement=True)
    dash = dashboard_grid(view, "segment", "pearson").to_plotly_json()["data"][0]
    assert [tuple(c) for c in dash["colorscale"]] == [tuple(c) for c in heat.colorscale]
    assert (dash["zmin"], dash["zmax"]) == agreement_color_range(view.loc[view["granularity"] == "segment", "shown"])


def test_level_spread_picks_the_metric_whose_agreement_moves_most_between_levels():
    from korean_eval.metaeval.tables.agreement import level_spread

    rows = agreement_columns(pd.DataFrame({
        "granularity": ["segment"] * 6 + ["system", "segment"],
        "level": ["word", "jamo", "char", "word", "jamo", "char", "word", "given"],
        "metric": ["bleu", "bleu", "bleu", "ter", "ter", "ter", "bleu", "comet"],
        "statistic": "pearson",
        "value": [0.30, 0.50, 0.40, -0.20, -0.70, np.nan, 0.99, -5.0],
    }), lambda metric, level: metric != "ter")
    spread = level_spread(rows)
    # TER's agreement (negated) moves 0.50, BLEU's 0.20; NaN, system rows and given scores take no part
    assert spread["metric"] == "ter"
    assert (spread["low"]["level"], spread["high"]["level"]) == ("word", "jamo")
    assert spread["high"]["shown"] == pytest.approx(0.70)
    assert level_spread(rows[rows["level"] == "word"]) is None  # one level: nothing moves
