"""Probe cells resting on few perturbed segments (korean_eval.lens.probe.MIN_PROBE_SEGMENTS) are marked the same
way on the dashboard (ui.lens_charts.probe_heatmap) and in the HTML report (korean_eval.exports.charts): covered by
a grey layer, out of the colour scale, their segment count and the reason in the hover box."""

from __future__ import annotations

import numpy as np
import pandas as pd

from korean_eval.exports.charts import SMALL_FILL, lens_probe_figure
from korean_eval.lens.perturb import KINDS as ALL_KINDS
from korean_eval.lens.probe import MIN_PROBE_SEGMENTS, small_probe_support
from ui import lens_charts

KINDS = ["spacing", "particle_within"]


def _summary(small_value: float) -> pd.DataFrame:
    """Two kinds × two configurations; (particle_within, chrF at char) rests on 3 segments and has ``small_value``."""
    rows = []
    for metric, level in [("bleu", "word"), ("chrf", "char")]:
        for kind in KINDS:
            small = (kind, metric) == ("particle_within", "chrf")
            rows.append({"kind": kind, "level": level, "metric": metric, "applied": 3 if small else 40,
                         "not_applicable": 0, "mean_change": -1.0, "mean_penalty": 1.0,
                         "relative_to_drop": small_value if small else 0.5 + 0.1 * len(rows),
                         "higher_is_better": True})
    return pd.DataFrame(rows)


def _matrix(summary: pd.DataFrame) -> pd.DataFrame:
    return summary.pivot_table(index=["metric", "level"], columns="kind", values="relative_to_drop",
                               sort=False)[KINDS]


def test_the_rule():
    summary = _summary(9.0)
    assert small_probe_support(summary).tolist() == [False, False, False, True]
    assert small_probe_support(summary.assign(applied=MIN_PROBE_SEGMENTS)).sum() == 0


def _check(fig, z_scale_max: float, col: int) -> None:
    """``col``: the column of particle_within in ``fig``."""
    value, layer = fig.data[0], fig.data[1]
    grey = np.isfinite(np.asarray(layer.z, float))
    assert grey.sum() == 1 and grey[1, col]  # (chrF · char, particle_within) only
    assert list(layer.colorscale[0])[1] == SMALL_FILL
    assert layer.text[1][col] == "9.00" and value.text[1][col] == ""  # its number drawn grey, not in colour
    assert abs(value.zmax) <= z_scale_max + 1e-9 and abs(value.zmin) <= z_scale_max + 1e-9  # 9.0 not in the scale
    hover = layer.customdata[1][col]
    assert "3 segments perturbed" in hover and f"fewer than {MIN_PROBE_SEGMENTS} segments" in hover
    assert "too few" not in value.customdata[0][0]


def test_dashboard_probe_heatmap_greys_small_cells():
    summary = _summary(9.0)
    fig = lens_charts.probe_heatmap(_matrix(summary), "relative_to_drop", "× drop", summary)
    _check(fig, 0.8, KINDS.index("particle_within"))
    assert f"grey: fewer than {MIN_PROBE_SEGMENTS} segments" in fig.layout.title.text


def test_report_probe_figure_greys_small_cells():
    fig = lens_probe_figure(_summary(9.0))
    _check(fig, 0.8, [k for k in ALL_KINDS if k in KINDS].index("particle_within"))
    assert f"fewer than {MIN_PROBE_SEGMENTS} segments" in fig.layout.title.text


def test_no_layer_when_every_cell_has_support():
    summary = _summary(0.1).assign(applied=40)
    assert len(lens_charts.probe_heatmap(_matrix(summary), "relative_to_drop", "× drop", summary).data) == 1
    assert len(lens_probe_figure(summary).data) == 1
