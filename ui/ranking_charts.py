"""The ranking check's chart: how each system's rank moves across token levels and metrics, with its ties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.model.palette import system_colors
from ui.charts import CHAR_PX, base_layout, esc, labelled_axis, line_end_labels
from ui.figures import figure, merge


def rank_movement_chart(paths: pd.DataFrame, title: str) -> go.Figure:
    """Each system's rank (1 = best, at the top) under every configuration of ``paths``
    (:func:`ui.ranking_views.movement`), one line per system.

    A filled dot: the system is significantly separated from the others at that rank (a cluster of its own); an
    open ring: it ties with at least one other system (same significance cluster), so its rank there is not
    established. Every system is named at both ends; the hover gives the score, its 95% interval and the cluster.
    """
    configs = list(dict.fromkeys(paths["config"]))
    labels = [esc(label) for label in dict.fromkeys(paths["label"])]  # own metrics are named by the user
    systems = list(dict.fromkeys(paths.sort_values("position", kind="stable")["system"])) if len(paths) else []
    n = max(len(systems), 1)
    data, notes = [], []
    for system, color in zip(systems, system_colors(len(systems)), strict=True):
        sub = paths[paths["system"] == system].set_index("config").reindex(configs)
        name = esc(system)
        tied = sub["tied"].astype("boolean").fillna(False).astype(bool)
        data.append(dict(
            type="scatter", x=labels, y=sub["position"], mode="lines+markers", name=name,
            line=dict(color=color, width=3),
            marker=dict(size=15, color=["white" if t else color for t in tied], line=dict(color=color, width=3)),
            customdata=np.column_stack([
                sub["score"].to_numpy(float), sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float),
                sub["cluster"].to_numpy(float), [name] * len(configs), ["tie" if t else "separated" for t in tied],
            ]),
            hovertemplate=("<b>%{customdata[4]}</b> · %{x}<br>rank %{y} · cluster %{customdata[3]:.0f} "
                           "(%{customdata[5]})<br>score %{customdata[0]:.2f} "
                           "[%{customdata[1]:.2f}, %{customdata[2]:.2f}]<extra></extra>"),
        ))
        notes += line_end_labels(name, color, labels, sub["position"])
    side = int(24 + CHAR_PX * (max((len(str(s)) for s in systems), default=0) + 2))
    angle = -40 if len(labels) > 6 else None
    layout = dict(
        annotations=notes,
        yaxis=dict(autorange=False, range=[n + 0.5, 0.5], dtick=1, title=dict(text="rank (1 = best)"),
                   gridcolor="#f0f0f0", zeroline=False),
        xaxis=merge(dict(showgrid=False, title=dict(text="metric @ token level")), labelled_axis(labels, angle=angle)),
        showlegend=False,
        margin=dict(l=side + 40, r=side, b=140 if angle else 60),
    )
    return figure(data, base_layout(layout, 160 + 55 * n + (80 if angle else 0), esc(title), legend=False))
