"""The human ceiling on the Correlations page (docs/design.md §5, "The human ceiling"): the row of the ceiling
table that matches what a chart shows, a dashed reference line on bar charts, a row in the numbers table, and the
configurations above it — flagged as a reason to check the data, never as a success."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.metaeval.tables.human_ceiling import reference_rows
from ui.views import STATISTICS, segment_grouping, system_statistic

CEILING_COLOR = "#8e2c6b"
ABOVE_TEXT = "above the human ceiling: check the data"


def ceiling_rows(ceiling: pd.DataFrame | None, statistic: str, grouping: str,
                 system: str | None = None) -> dict[str, pd.Series]:
    """Granularity → the ceiling row drawn with ``statistic``/``grouping`` and ``system`` at the system level
    (default ``statistic``'s companion; as :func:`ui.views.correlation_view` picks the metrics' rows); empty without a
    ceiling or a defined value."""
    if ceiling is None or ceiling.empty:
        return {}
    rows = reference_rows(ceiling)
    system = system_statistic(statistic) if system is None else system
    wanted = {"segment": (statistic, segment_grouping(statistic, grouping)), "system": (system, "none")}
    out = {}
    for granularity, (shown, group) in wanted.items():
        hit = rows[(rows["granularity"] == granularity) & (rows["statistic"] == shown) & (rows["grouping"] == group)]
        if len(hit) and np.isfinite(hit["value"].iloc[0]):
            out[granularity] = hit.iloc[0]
    return out


def _make_room(fig: go.Figure, high: float) -> None:
    """Raise the value axis's fixed top, if there is one, so that ``high`` and the line's label show."""
    span = fig.layout.yaxis.range
    if span is not None and span[1] < high * 1.1:
        fig.update_yaxes(range=[span[0], high * 1.1])


def add_ceiling_line(fig: go.Figure, row: pd.Series) -> go.Figure:
    """A dashed horizontal line at the ceiling's value, labelled, with its interval as a band when known."""
    value = float(row["value"])
    if np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"]):
        fig.add_hrect(y0=float(row["ci_low"]), y1=float(row["ci_high"]), fillcolor=CEILING_COLOR, opacity=0.08,
                      line_width=0)
    _make_room(fig, max(value, float(row["ci_high"]) if np.isfinite(row["ci_high"]) else value))
    fig.add_hline(y=value, line_dash="dash", line_color=CEILING_COLOR, line_width=1.5,
                  annotation_text=f"human ceiling {value:.2f}", annotation_position="top right",
                  annotation_font=dict(color=CEILING_COLOR, size=12))
    return fig


def above_ceiling(view: pd.DataFrame, rows: dict[str, pd.Series]) -> pd.DataFrame:
    """The configurations of ``view`` whose agreement (error rates' correlations negated) is above the ceiling of
    their granularity: ``granularity, level, metric_label, agreement, ceiling``."""
    found = []
    for granularity, row in rows.items():
        sub = view[view["granularity"] == granularity]
        sign = np.where(~sub["higher_is_better"] & sub["statistic"].isin(STATISTICS), -1.0, 1.0)
        agreement = sub["value"].to_numpy(float) * sign
        hit = sub[agreement > float(row["value"])]
        found.append(pd.DataFrame({
            "granularity": granularity, "level": hit["level"], "metric": hit["metric_label"],
            "agreement": agreement[agreement > float(row["value"])], "ceiling": float(row["value"]),
        }))
    return pd.concat(found, ignore_index=True) if found else pd.DataFrame(
        columns=["granularity", "level", "metric", "agreement", "ceiling"])


def ceiling_table_rows(rows: dict[str, pd.Series], ci_text) -> pd.DataFrame | None:
    """The ceiling as rows of :func:`ui.views.numbers_table` (level ``human ceiling``, metric = the comparison);
    None without a ceiling."""
    if not rows:
        return None
    return pd.DataFrame([{
        "granularity": g, "grouping": r["grouping"], "level": "human ceiling", "family": "humans",
        "metric": r["comparison"], "statistic": r["statistic"], "value": r["value"],
        "95% CI": ci_text(r["ci_low"], r["ci_high"], r["statistic"]), "n": r["n"], "signature": "",
    } for g, r in rows.items()])
