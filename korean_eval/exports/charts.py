"""The figures of the HTML report (:mod:`korean_eval.exports.html`): Plotly ``graph_objects`` drawn from the export
tables of :mod:`korean_eval.exports.tables` (docs/design.md §2).

The dashboard's own chart builders live in ``ui/`` (``ui.charts``, ``ui.grid_charts``), which the library must not
import (``korean_eval`` never imports ``ui``), so the report draws the same views here from the same tidy tables:
correlation bars with 95 % intervals (a metric × level grid beyond :data:`BAR_LIMIT` configurations, as the
dashboard does), system scores per level, the rank agreement (a bump chart: humans, then each level), the flipped
system pairs and the tokens per word. Text from the user's files (system and metric names) is escaped before it
goes into a label, so Plotly shows it as text and never as markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.exports.tables import HUMAN_COLUMN, metric_label

FAMILY_COLORS = {"word": "#4C78A8", "morpheme": "#54A24B", "subword": "#B279A2", "character": "#F58518",
                 "jamo": "#E45756", "given": "#8C8C8C"}
SYSTEM_COLORS = ["#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#EECA3B", "#FF9DA6",
                 "#9D755D", "#BAB0AC"]
#: Up to this many configurations (metric × level) a correlation chart has bars, beyond it a grid.
BAR_LIMIT = 30
MIN_TEXT = 11


def esc(text: object) -> str:
    """User text → safe in a Plotly label (``<``, ``>``, ``&`` escaped)."""
    return html.escape(str(text), quote=False)


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(template="plotly_white", height=height, title=dict(text=title, x=0, font=dict(size=16)),
                      font=dict(family="'Noto Sans KR', 'Source Sans Pro', sans-serif", size=13),
                      margin=dict(l=60, r=20, t=90, b=50), uniformtext=dict(minsize=MIN_TEXT, mode="show"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return fig


def _every_tick(fig: go.Figure, axis: str, values: Sequence[object], texts: Sequence[str]) -> None:
    """Every category labelled (``tickmode='array'``): Plotly's automatic mode thins crowded labels."""
    fig.update_layout({f"{axis}axis": dict(tickmode="array", tickvals=list(values), ticktext=list(texts),
                                           automargin=True)})


def correlation_figure(grid: pd.DataFrame, families: dict[str, str], granularity: str, title: str) -> go.Figure:
    """Bars per metric × level (grouped by metric, coloured by the level's family) with the 95 % interval as
    error bars and the top cluster outlined; a metric × level grid with the value in every cell beyond
    :data:`BAR_LIMIT` configurations. ``grid``: :func:`korean_eval.exports.tables.correlation_grid`."""
    if len(grid) > BAR_LIMIT:
        return _correlation_heatmap(grid, title)
    fig = go.Figure()
    for family, rows in grid.groupby(grid["level"].map(lambda lv: families.get(lv, "given")), sort=False):
        value = rows["value"].to_numpy(float)
        fig.add_bar(
            name=family, x=[[esc(metric_label(m)) for m in rows["metric"]], list(rows["level"])], y=value,
            marker=dict(color=FAMILY_COLORS.get(family, "#8C8C8C"),
                        line=dict(color="#111", width=[2.5 if t else 0 for t in rows["top"]])),
            error_y=dict(type="data", symmetric=False, array=rows["ci_high"].to_numpy(float) - value,
                         arrayminus=value - rows["ci_low"].to_numpy(float), thickness=1.2, width=3),
            text=[f"{v:.3f}" if np.isfinite(v) else "" for v in value], textposition="inside",
            insidetextanchor="middle",
            hovertemplate="%{x}<br>%{y:.4f}<extra></extra>",
        )
    fig.update_xaxes(tickmode="linear", tick0=0, dtick=1)
    fig.update_yaxes(title_text=f"correlation ({granularity} level)", zeroline=True)
    return _layout(fig, title, 460)


def _correlation_heatmap(grid: pd.DataFrame, title: str) -> go.Figure:
    metrics = list(dict.fromkeys(grid["metric"]))
    levels = list(dict.fromkeys(grid["level"]))
    values = grid.pivot(index="metric", columns="level", values="value").reindex(index=metrics, columns=levels)
    top = grid.pivot(index="metric", columns="level", values="top").reindex(index=metrics, columns=levels)
    text = [[("" if not np.isfinite(v) else f"<b>{v:.3f}</b>" if t is True else f"{v:.3f}")
             for v, t in zip(values.loc[m], top.loc[m], strict=True)] for m in metrics]
    fig = go.Figure(go.Heatmap(z=values.to_numpy(float), x=list(range(len(levels))), y=list(range(len(metrics))),
                               text=text, texttemplate="%{text}", colorscale="RdBu", zmid=0,
                               textfont=dict(size=MIN_TEXT)))
    _every_tick(fig, "x", range(len(levels)), [esc(lv) for lv in levels])
    _every_tick(fig, "y", range(len(metrics)), [esc(metric_label(m)) for m in metrics])
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, title + " (bold: top significance cluster)", 120 + 32 * len(metrics))


def system_score_figure(table: pd.DataFrame, metric: str) -> go.Figure:
    """One metric's system scores per level, a bar per system (``table``:
    :func:`korean_eval.exports.tables.system_score_table`, the human column left out: another scale)."""
    part = table[(table["metric"] == metric) & (table["column"] != HUMAN_COLUMN)]
    fig = go.Figure()
    for i, (system, rows) in enumerate(part.groupby("system", sort=False)):
        fig.add_bar(name=esc(system), x=list(rows["column"]), y=rows["score"].to_numpy(float),
                    marker_color=SYSTEM_COLORS[i % len(SYSTEM_COLORS)],
                    hovertemplate=f"{esc(system)}<br>%{{x}}: %{{y:.2f}}<extra></extra>")
    fig.update_layout(barmode="group")
    fig.update_yaxes(title_text=esc(metric_label(metric)))
    return _layout(fig, f"{esc(metric_label(metric))}: system scores per token level (not comparable across levels)",
                   400)


def rank_figure(table: pd.DataFrame, metric: str) -> go.Figure:
    """Rank agreement of one metric: each system's human rank, then its rank by the metric at each level (a bump
    chart; open red rings where the metric's rank differs from the human rank)."""
    part = table[table["metric"] == metric]
    stages = list(dict.fromkeys([HUMAN_COLUMN, *part["column"]]))
    fig = go.Figure()
    for i, (system, rows) in enumerate(part.groupby("system", sort=False)):
        ranks = rows.set_index("column")["rank"].reindex(stages).to_numpy(float)
        fig.add_scatter(name=esc(system), x=stages, y=ranks, mode="lines+markers",
                        line=dict(color=SYSTEM_COLORS[i % len(SYSTEM_COLORS)], width=2.5), marker=dict(size=9),
                        hovertemplate=f"{esc(system)}<br>%{{x}}: rank %{{y}}<extra></extra>")
        differs = [(s, r) for s, r in zip(stages[1:], ranks[1:], strict=True) if np.isfinite(r) and r != ranks[0]]
        if differs and np.isfinite(ranks[0]):
            fig.add_scatter(x=[s for s, _ in differs], y=[r for _, r in differs], mode="markers", showlegend=False,
                            marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(color="#C62828", width=2)),
                            hoverinfo="skip")
    _every_tick(fig, "x", stages, [esc(s) for s in stages])
    fig.update_yaxes(autorange="reversed", title_text="rank (1 = best)", dtick=1)
    return _layout(fig, f"{esc(metric_label(metric))}: rank by the humans, then at each level", 380)


def flip_figure(flips: pd.DataFrame, metrics: Sequence[str], levels: Sequence[str], n_pairs: int) -> go.Figure:
    """Flipped system pairs (the metric orders them against the humans) per metric × level, of ``n_pairs``."""
    counts = flips.groupby(["metric", "level"]).size() if len(flips) else pd.Series(dtype=int)
    z = np.array([[int(counts.get((m, lv), 0)) for lv in levels] for m in metrics])
    fig = go.Figure(go.Heatmap(z=z, x=list(range(len(levels))), y=list(range(len(metrics))), text=z.astype(str),
                               texttemplate="%{text}", colorscale="Reds", zmin=0, zmax=max(n_pairs, 1),
                               textfont=dict(size=MIN_TEXT + 1)))
    _every_tick(fig, "x", range(len(levels)), [esc(lv) for lv in levels])
    _every_tick(fig, "y", range(len(metrics)), [esc(metric_label(m)) for m in metrics])
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, f"Flipped system pairs (of {n_pairs}) per metric and level", 140 + 36 * len(metrics))


def tokens_per_word_figure(tokens: pd.DataFrame) -> go.Figure:
    """Tokens per whitespace word per level, coloured by family (``tokens``:
    :func:`korean_eval.exports.tables.token_table`)."""
    fig = go.Figure(go.Bar(x=list(tokens["level"]), y=tokens["tokens_per_word"].to_numpy(float),
                           marker_color=[FAMILY_COLORS.get(f, "#8C8C8C") for f in tokens["family"]],
                           text=[f"{v:.2f}" for v in tokens["tokens_per_word"]], textposition="outside"))
    fig.update_yaxes(title_text="tokens per word")
    return _layout(fig, "Tokens per whitespace word", 360)
