"""The correlation bar chart's value axis fits its bars (and the human ceiling's line), not a fixed 0–1.2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from ui.ceiling import add_ceiling_line
from ui.charts import HORIZONTAL_VALUES, bar_axis_top


def _bars(values, highs=None) -> pd.DataFrame:
    values = list(values)
    return pd.DataFrame({"shown": values, "shown_high": highs if highs is not None else [np.nan] * len(values)})


def test_low_correlations_get_an_axis_just_above_them():
    assert bar_axis_top(_bars([0.3, 0.4]), 0.0) == pytest.approx(0.44)
    many = _bars([0.3] * HORIZONTAL_VALUES + [0.4])  # upright labels need more room
    assert bar_axis_top(many, 0.0) == pytest.approx(0.5)


def test_interval_ends_count_and_a_correlation_near_one_keeps_the_old_axis():
    assert bar_axis_top(_bars([0.3, 0.4], [0.35, 0.6]), 0.0) == pytest.approx(0.66)
    assert bar_axis_top(_bars([0.99, 0.995]), 0.0) == pytest.approx(1.08)
    assert bar_axis_top(_bars([0.99] * (HORIZONTAL_VALUES + 1)), 0.0) == pytest.approx(1.2)
    assert bar_axis_top(_bars([-0.2]), -0.23) == pytest.approx(0.1)


def test_the_ceiling_line_raises_the_axis_to_show_itself():
    fig = go.Figure(go.Bar(y=[0.3, 0.4]))
    fig.update_yaxes(range=[0, 0.44])
    add_ceiling_line(fig, pd.Series({"value": 0.7, "ci_low": 0.6, "ci_high": 0.8}))
    assert fig.layout.yaxis.range[1] == pytest.approx(0.88)
    add_ceiling_line(fig, pd.Series({"value": 0.2, "ci_low": np.nan, "ci_high": np.nan}))
    assert fig.layout.yaxis.range[1] == pytest.approx(0.88)  # a lower line leaves it


def test_value_labels_sit_inside_long_bars_where_no_whisker_crosses_them():
    from ui.charts import INSIDE_LABEL_SHARE, _label_places

    y = np.array([0.8, 0.1, np.nan, -0.5])
    places, colors = _label_places(y, has_ci=True, span=1.0)
    assert places == ["inside", "outside", "outside", "inside"]  # a short bar or "n/a" keeps its label above
    assert colors == ["#fff", "#333", "#333", "#fff"]
    assert _label_places(y, has_ci=False, span=1.0)[0] == ["outside"] * 4  # no interval: nothing to cross
    assert _label_places(np.array([INSIDE_LABEL_SHARE * 2.0]), has_ci=True, span=2.0)[0] == ["inside"]
