"""Plotly figures of the "Korean lens" page (pure Plotly: tables in, figures out; no Streamlit).

Heatmaps carry their values in the cells (12 px), every row and column label, axis titles and hover details, and
stay readable at 10 perturbation kinds × 20 metric × level configurations. User text (system names) is escaped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.exports.charts import small_support_layer, text_outside
from korean_eval.lens.perturb import KIND_LABELS, KIND_SHORT_LABELS
from korean_eval.lens.pos_categories import CATEGORY_LABELS
from korean_eval.lens.probe import MIN_PROBE_SEGMENTS
from korean_eval.lens.profile import MIN_SUPPORT
from korean_eval.model.palette import SYSTEM_COLORS
from ui.charts import base_layout, esc, labelled_axis
from ui.figures import figure, merge
from ui.views import metric_label

CELL_FONT = dict(size=12)
"""Text inside heatmap cells (≥ 11 px)."""



def _cells(z: np.ndarray, fmt: str) -> list[list[str]]:
    return [[format(v, fmt) if np.isfinite(v) else "–" for v in row] for row in z]




def _profile_hover(value_label: str, v: float, hyp: int, ref: int, matched: int, small: bool) -> str:
    shown = f"{v:.3f}" if np.isfinite(v) else "undefined"
    return (f"{value_label}: {shown}<br>morphemes: {hyp:,} in the hypotheses, {ref:,} in the references, "
            f"{matched:,} matched" + (f"<br><b>fewer than {MIN_SUPPORT} morphemes: too few to read</b>" if small else ""))


def profile_heatmap(matrix: pd.DataFrame, value_label: str, higher_is_better: bool,
                    counts: dict[str, pd.DataFrame] | None = None, small: pd.DataFrame | None = None) -> go.Figure:
    """Systems × categories of one profile value. F1/precision/recall: the colour spans the values shown (the lowest
    darkest) so that differences near 1 stay visible; errors per segment: darker red = more errors. ``counts``
    (:func:`ui.lens_views.profile_counts`) go into the hover boxes; cells of ``small`` (True: the value rests on
    fewer than :data:`~korean_eval.lens.profile.MIN_SUPPORT` morphemes, :func:`korean_eval.lens.profile.small_support`)
    are covered by a grey layer with grey text and take no part in the colour scale (the first trace keeps every
    value)."""
    z = matrix.to_numpy(float)
    low_support = small.to_numpy(bool) if small is not None else np.zeros(z.shape, bool)
    readable = np.where(low_support, np.nan, z)
    finite = readable[np.isfinite(readable)]
    low = float(finite.min()) if finite.size else 0.0
    high = float(finite.max()) if finite.size else 1.0
    columns = [CATEGORY_LABELS[c].replace(" ", "<br>", 1) for c in matrix.columns]
    rows = [esc(s) for s in matrix.index]
    text = _cells(z, ".3f" if higher_is_better else ".2f")
    if counts is not None:
        cells = zip(z.ravel(), *(counts[c].to_numpy(int).ravel() for c in ("hyp", "ref", "matched")),
                    low_support.ravel(), strict=True)
        hover = np.array([_profile_hover(value_label, *cell) for cell in cells], dtype=object).reshape(z.shape)
    else:
        hover = np.array([[f"{value_label}: {v:.3f}" for v in row] for row in z], dtype=object)
    hover = [[f"system {r}<br>{c}<br>{h}" for c, h in zip(columns, row, strict=True)] for r, row in zip(rows, hover, strict=True)]
    heatmap = dict(
        type="heatmap",
        z=z,
        x=columns,
        y=rows,
        colorscale="Blues_r" if higher_is_better else "Reds",
        zmin=min(low, 0.999) if higher_is_better else 0,
        zmax=1 if higher_is_better else max(high, 1e-9),
        text=text_outside(text, low_support),
        texttemplate="%{text}",
        textfont=CELL_FONT,
        customdata=hover,
        hovertemplate="%{customdata}<extra></extra>",
        hoverongaps=False,
        colorbar=dict(title=dict(text=value_label), thickness=12),
        xgap=2,
        ygap=2,
    )
    data = [heatmap]
    if low_support.any():
        data.append(small_support_layer(low_support, text, hover, columns, rows, CELL_FONT, 2))
    layout = dict(
        yaxis=merge(dict(autorange="reversed", title=dict(text="system")), labelled_axis(rows)),
        xaxis=merge(dict(title=dict(text="morpheme category (Kiwi's Sejong tags)")), labelled_axis(columns, angle=0)),
    )
    title = f"Error profile: {value_label} of the morphemes per category" + (" (darker = lower)" if higher_is_better else "")
    return figure(data, base_layout(layout, 170 + 42 * len(matrix), title, legend=False))


def probe_heatmap(matrix: pd.DataFrame, value: str, value_label: str, details: pd.DataFrame) -> go.Figure:
    """``(metric, level)`` rows × perturbation kinds (columns, short labels; the full label in the hover box),
    diverging colours centred on 0: red = the metric punishes the error, blue = it rewards it. ``details`` (the
    probe summary) fills the hover boxes; a cell resting on fewer than
    :data:`~korean_eval.lens.probe.MIN_PROBE_SEGMENTS` perturbed segments is covered by a grey layer and takes no
    part in the colour scale. Readable at 20 rows × 10 kinds in 800 px."""
    z = matrix.to_numpy(float)
    rows = details.set_index(["kind", "metric", "level"])
    hover = [[_hover_text(rows, kind, metric, level) for kind in matrix.columns] for metric, level in matrix.index]
    applied = np.array([[rows["applied"].get((kind, metric, level), 0) for kind in matrix.columns]
                        for metric, level in matrix.index], int).reshape(z.shape)
    grey = applied < MIN_PROBE_SEGMENTS
    readable = np.where(grey, np.nan, z)  # the colour scale spans these; grey cells are covered by a layer
    finite = np.abs(readable[np.isfinite(readable)])
    span = float(finite.max()) if finite.size else 1.0
    text = _cells(z, ".2f" if value == "relative_to_drop" else ".1f")
    columns = [KIND_SHORT_LABELS[k] for k in matrix.columns]
    configs = [f"{esc(metric_label(m))} · {esc(lv)}" for m, lv in matrix.index]
    heatmap = dict(
        type="heatmap",
        z=readable,
        x=columns,
        y=configs,
        colorscale="RdBu_r",
        zmid=0,
        zmin=-span,
        zmax=span,
        text=text_outside(text, grey),
        texttemplate="%{text}",
        textfont=CELL_FONT,
        customdata=hover,
        hovertemplate="%{customdata}<extra></extra>",
        hoverongaps=False,
        colorbar=dict(title=dict(text="× drop" if value == "relative_to_drop" else "penalty"), thickness=10),
        xgap=1,
        ygap=1,
    )
    metrics = list(matrix.index.get_level_values(0))
    layout = dict(
        yaxis=merge(dict(autorange="reversed", title=dict(text="metric · token level")), labelled_axis(configs)),
        xaxis=merge(dict(title=dict(text="perturbation of the reference"), side="top"), labelled_axis(columns, angle=0)),
        # a line between two metrics' blocks of levels (as ``add_hline`` draws it)
        shapes=[dict(type="line", x0=0, x1=1, xref="x domain", y0=i - 0.5, y1=i - 0.5, yref="y",
                     line=dict(color="#444", width=1.5))
                for i in range(1, len(metrics)) if metrics[i] != metrics[i - 1]],
        margin=dict(l=110, r=10, t=150, b=20),
    )
    title = f"Which metric × level notices which error: {value_label}"
    if grey.any():
        title += f" (grey: fewer than {MIN_PROBE_SEGMENTS} segments perturbed)"
    data = [heatmap] + ([small_support_layer(grey, text, hover, columns, configs, CELL_FONT, 1)] if grey.any() else [])
    return figure(data, base_layout(layout, 210 + 28 * len(matrix), title, legend=False))


def _hover_text(rows: pd.DataFrame, kind: str, metric: str, level: str) -> str:
    """The hover box of one probe cell: the change, the penalty, the ratio and how many segments it rests on."""
    if (kind, metric, level) not in rows.index:
        return ""
    row = rows.loc[(kind, metric, level)]
    direction = "higher" if row["higher_is_better"] else "lower"
    relative = row["relative_to_drop"]
    lines = [
        f"<b>{KIND_LABELS[kind]}</b>",
        f"{esc(metric_label(metric))} at level {esc(level)} ({direction} is better)",
        f"mean change {row['mean_change']:+.2f}, mean penalty {row['mean_penalty']:.2f}",
        f"relative to dropping a content eojeol: {relative:.2f}" if np.isfinite(relative) else "no ratio (no drop penalty)",
        f"{int(row['applied'])} segments perturbed, {int(row['not_applicable'])} could not be",
    ]
    if row["applied"] < MIN_PROBE_SEGMENTS:
        lines.append(f"<b>fewer than {MIN_PROBE_SEGMENTS} segments: too few to read</b>")
    return "<br>".join(lines)


#: Up to this many systems the agreement bars stand upright; more lie down, a row of two bars per system.
UPRIGHT_SYSTEMS = 8


def agreement_bars(speech_levels: pd.DataFrame, spacing: pd.DataFrame) -> go.Figure:
    """Per system: speech-level agreement and spacing F1 (both 0–1), side by side; beyond
    :data:`UPRIGHT_SYSTEMS` systems horizontal (every system name written out on its row, values at the bars'
    ends), so that neither names nor values overlap."""
    systems = [esc(s) for s in speech_levels["system"]]
    across = len(systems) > UPRIGHT_SYSTEMS
    series = [
        ("speech level agrees with the reference", "#4C78A8", speech_levels["agreement"], ".0%", "speech level agreement %{VALUE:.1%}"),
        ("spacing F1", "#F58518", spacing["f1"], ".3f", "spacing F1 %{VALUE:.3f}"),
    ]
    data = []
    for name, color, values, fmt, hover in series:
        text = [format(v, fmt) if np.isfinite(v) else "" for v in values]
        if across:
            data.append(dict(type="bar", y=systems, x=values, orientation="h", name=name, marker=dict(color=color),
                             text=text, textposition="outside", cliponaxis=False, textfont=dict(size=11),
                             hovertemplate="%{y}<br>" + hover.replace("VALUE", "x") + "<extra></extra>"))
        else:
            data.append(dict(type="bar", x=systems, y=values, name=name, marker=dict(color=color), text=text,
                             textposition="outside",
                             hovertemplate="%{x}<br>" + hover.replace("VALUE", "y") + "<extra></extra>"))
    title = "Speech level agreement and spacing F1 per system"
    if across:
        layout = dict(
            barmode="group",
            xaxis=dict(range=[0, 1.15], title=dict(text="share / F1"), gridcolor="#eee"),
            yaxis=merge(dict(autorange="reversed", title=dict(text="system")), labelled_axis(systems)),
        )
        return figure(data, base_layout(layout, 150 + 36 * len(systems), title))
    layout = dict(barmode="group", yaxis=dict(range=[0, 1.12], title=dict(text="share / F1"), gridcolor="#eee"),
                  xaxis=dict(title=dict(text="system")))
    return figure(data, base_layout(layout, 380, title))


def confusion_heatmap(matrix: pd.DataFrame, system: str) -> go.Figure:
    """Reference speech level × hypothesis speech level: segments of one system."""
    z = matrix.to_numpy(float)
    heatmap = dict(
        type="heatmap", z=z, x=list(matrix.columns), y=list(matrix.index), colorscale="Blues", zmin=0,
        text=[[f"{int(v)}" for v in row] for row in z], texttemplate="%{text}", textfont=CELL_FONT,
        hovertemplate="reference %{y}<br>hypothesis %{x}<br>%{z:.0f} segments<extra></extra>",
        colorbar=dict(title=dict(text="segments"), thickness=12), xgap=2, ygap=2,
    )
    layout = dict(yaxis=dict(autorange="reversed", title=dict(text="reference's speech level")),
                  xaxis=dict(title=dict(text="hypothesis's speech level")))
    title = f"Speech levels of {esc(system)} against the reference"
    return figure([heatmap], base_layout(layout, 360, title, legend=False))


def correlation_bars(view: pd.DataFrame, statistic_label: str) -> go.Figure:
    """Correlation of each error count with the human score, with its bootstrap 95% interval."""
    labels = [esc(f) for f in view["feature"]]
    values = view["value"].to_numpy(float)
    low, high = view["ci_low"].to_numpy(float), view["ci_high"].to_numpy(float)
    bars = dict(
        type="bar", y=labels, x=values, orientation="h",
        marker=dict(color=[SYSTEM_COLORS[3] if v < 0 else SYSTEM_COLORS[0] for v in values]),
        error_x=dict(type="data", symmetric=False, array=np.nan_to_num(high - values),
                     arrayminus=np.nan_to_num(values - low), color="#555", thickness=1.2),
        customdata=np.column_stack([low, high, view["n"].to_numpy()]),
        hovertemplate="%{y}: %{x:.3f}<br>95% CI [%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
                      "<br>n = %{customdata[2]} pairs<extra></extra>",
    )
    layout = dict(
        yaxis=dict(autorange="reversed", title=dict(text="error count"), tickfont=dict(size=12)),
        xaxis=dict(title=dict(text=f"{statistic_label} with the human score"), zeroline=True, zerolinecolor="#888"),
    )
    title = f"Error counts against the human scores ({statistic_label})"
    return figure([bars], base_layout(layout, 120 + 24 * len(view), title, legend=False))
