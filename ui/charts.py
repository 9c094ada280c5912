"""Plotly figures of the dashboard (pure Plotly: tables in, figures out; no Streamlit).

Colours encode the token *family* everywhere (word / morpheme / subword / character / jamo), so a reader learns
them once (:mod:`korean_eval.model.palette`, shared with the HTML report). Text that came from a user's files (system names, hypotheses, references, own metric names) is escaped
before it goes into a label or a hover box, so it is shown as text and never interpreted as markup.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.model.palette import FAMILY_COLORS, system_colors
from ui import formats
from ui.figures import figure, merge
from ui.views import FAMILY_LABELS, STATISTIC_LABELS, STATISTICS, SYMBOLS

#: Text colour of every label (tick labels, axis titles, names beside lines): dark grey, contrast ≥ 7:1 on white
#: (WCAG AAA). Streamlit's chart theme would draw them in a pale grey.
LABEL_TEXT = "#1F2328"
FONT = dict(family="Inter, 'Noto Sans KR', 'Source Sans Pro', sans-serif", size=13, color=LABEL_TEXT)
#: The smallest text on any chart, in px (tick labels, values on bars and in cells).
MIN_TEXT = 11
#: Up to this many bars (the most that stand side by side at half width) their values are written horizontally;
#: more bars get vertical value labels.
HORIZONTAL_VALUES = 12
_AXIS = re.compile(r"[xy]axis\d*")


def esc(text: object) -> str:
    """User text → safe for Plotly labels (``<``, ``>``, ``&`` escaped)."""
    return html.escape(str(text), quote=False)


def wrap(text: object, width: int = 48, lines: int = 4) -> str:
    """Escaped text wrapped with ``<br>`` for a hover box (at most ``lines`` lines)."""
    parts = textwrap.wrap(str(text), width=width, max_lines=lines, placeholder=" …") or [""]
    return "<br>".join(esc(p) for p in parts)


def labelled_axis(values: Sequence[object], texts: Sequence[object] | None = None, angle: int | None = None) -> dict:
    """Axis properties that label every category: ``tickmode='array'`` with all ``values`` and their ``texts``
    (default the values), so Plotly never thins the labels (it does in its automatic mode)."""
    axis: dict[str, object] = dict(
        tickmode="array", tickvals=list(values), ticktext=[str(t) for t in (texts if texts is not None else values)],
        tickfont=dict(size=MIN_TEXT + 1), automargin=True,
    )
    if angle is not None:
        axis["tickangle"] = angle
    return axis


#: Grouped bars (a two-level "multicategory" x axis): a label under every bar (``tickmode='linear'``, one per
#: category; Plotly's automatic mode drops every other one when they are crowded).
BAR_AXIS = dict(tickmode="linear", tick0=0, dtick=1, tickfont=dict(size=MIN_TEXT + 1))


def bar_text(n_bars: int) -> dict:
    """Trace properties of the value labels on ``n_bars`` grouped bars: :data:`MIN_TEXT` px, vertical beyond
    :data:`HORIZONTAL_VALUES` bars, never shrunk (:func:`base_layout`)."""
    return dict(textfont=dict(size=MIN_TEXT), textangle=0 if n_bars <= HORIZONTAL_VALUES else -90)


def base_layout(layout: dict, height: int, title: str | None = None, legend: bool = True) -> dict:
    """``layout`` on the common look (its own properties win); ``legend`` leaves room for a horizontal legend
    between the title and the plot. Text on bars is never shrunk below :data:`MIN_TEXT` px (``uniformtext``);
    every axis's tick labels and title are dark :data:`LABEL_TEXT` (Streamlit's theme sets the axes' own text
    colours, pale grey, which beat the layout's font)."""
    look: dict[str, object] = dict(
        font=FONT,
        height=height,
        margin=dict(l=60, r=20, t=(95 if legend else 55) if title else 40, b=40),
        hoverlabel=dict(font=dict(size=12), align="left"),
        uniformtext=dict(minsize=MIN_TEXT, mode="show"),
        legend=dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0, title=dict(text=""),
                    font=dict(size=12)),
    )
    if title:
        look["title"] = dict(text=title, x=0, xanchor="left", y=0.985, yanchor="top", yref="container",
                             font=dict(size=16))
    axes = {"xaxis", "yaxis"} | {key for key in layout if _AXIS.fullmatch(key)}
    dark = {axis: dict(tickfont=dict(color=LABEL_TEXT), title=dict(font=dict(color=LABEL_TEXT))) for axis in axes}
    return merge(look, layout, dark)


def _epsilons(df: pd.DataFrame) -> np.ndarray:
    """The ε of acc_eq rows (NaN elsewhere, and for tables without the column)."""
    return df["epsilon"].to_numpy(float) if "epsilon" in df else np.full(len(df), np.nan)


def _bar_hover_data(sub: pd.DataFrame) -> np.ndarray:
    """Hover columns of correlation bars: metric, level, n, value, signature, and the CI / ε line."""
    extra = [
        (f"<br>95% CI [{lo:.3f}, {hi:.3f}]" if np.isfinite(lo) and np.isfinite(hi) else "")
        + (f"<br>metric ties when |Δ| ≤ ε = {eps:.4g}" if np.isfinite(eps) else "")
        for lo, hi, eps in zip(sub["ci_low"], sub["ci_high"], _epsilons(sub), strict=True)
    ]
    return np.column_stack(
        [
            [esc(m) for m in sub["metric_label"]],
            sub["level"],
            sub["n"].astype(int),
            sub["value"].map(lambda v: f"{v:.3f}" if np.isfinite(v) else "undefined"),
            [esc(s) for s in sub["signature"]],
            extra,
        ]
    )


def _outline_top(df: pd.DataFrame, top: frozenset[tuple[str, str]]) -> list[dict]:
    """The bars of ``top`` (the top significance cluster) outlined: an empty bar on top of each, one legend entry,
    "top significance cluster" (no trace when none of ``df`` is in ``top``)."""
    rows = df[[(lv, m) in top for lv, m in zip(df["level"], df["metric"], strict=True)]]
    if not len(rows):
        return []
    return [dict(
        type="bar", name="top significance cluster", x=[[esc(x) for x in rows["shown_label"]], list(rows["level"])],
        y=rows["shown"].to_numpy(float), marker=dict(color="rgba(0,0,0,0)", line=dict(width=2.5, color="#111")),
        hoverinfo="skip",
    )]


def bar_axis_top(df: pd.DataFrame, bottom: float) -> float:
    """The top of a correlation bar chart's value axis: the highest bar or interval end, plus room for the value
    labels above the bars (more when they stand upright, beyond :data:`HORIZONTAL_VALUES` bars); never above the
    1.08 / 1.2 that a correlation of 1 needs, and at least 0.1."""
    highs = np.append(df["shown_high"].to_numpy(float), df["shown"].to_numpy(float))
    ymax = float(np.nanmax(highs)) if np.isfinite(highs).any() else 1.0
    upright = len(df) > HORIZONTAL_VALUES
    room = (0.25 if upright else 0.1) * (max(ymax, 0.0) - bottom)
    top = max(ymax, 0.0) + room
    if ymax <= 1:
        top = min(top, 1.2 if upright else 1.08)
    return max(top, 0.1)


#: With intervals drawn, a bar at least this share of the value axis long carries its value label inside, at its
#: base (white), where the interval's whiskers never cross it; shorter bars keep it above their end.
INSIDE_LABEL_SHARE = 0.2


def _label_places(y: np.ndarray, has_ci: bool, span: float) -> tuple[list[str], list[str]]:
    """Per bar: where its value label goes (``inside`` at the base, or ``outside`` above the end) and its colour."""
    inside = [bool(has_ci and np.isfinite(v) and abs(v) >= INSIDE_LABEL_SHARE * span) for v in y]
    return (["inside" if i else "outside" for i in inside], ["#fff" if i else "#333" for i in inside])


def _correlation_bar(sub: pd.DataFrame, x: list[list[str]], statistic: str, top: frozenset[tuple[str, str]],
                     family: str, digits: int = 2, span: float = 1.0) -> dict:
    """The bar trace of one family's rows ``sub`` of a correlation view (:func:`correlation_bars`), its value labels
    with ``digits`` decimals (inside long bars when intervals are drawn; ``span``: the value axis's length)."""
    y = sub["shown"].to_numpy(float)
    in_top = [(lv, m) in top for lv, m in zip(sub["level"], sub["metric"], strict=True)]
    has_ci = np.isfinite(sub["shown_low"].to_numpy(float)).any()
    places, colors = _label_places(y, has_ci, span)
    return dict(
        type="bar",
        name=FAMILY_LABELS.get(family, family),
        x=x,
        y=y,
        marker=dict(color=FAMILY_COLORS[family], line=dict(width=0)),
        text=[(f"<b>{v:.{digits}f}</b>" if t else f"{v:.{digits}f}") if np.isfinite(v) else "n/a"
              for v, t in zip(y, in_top, strict=True)],
        textposition=places,
        insidetextanchor="start",
        textfont=dict(color=colors),
        cliponaxis=False,
        customdata=_bar_hover_data(sub),
        error_y=dict(
            type="data",
            array=(sub["shown_high"] - sub["shown"]).to_numpy(float),
            arrayminus=(sub["shown"] - sub["shown_low"]).to_numpy(float),
            color="#333",
            thickness=1.2,
            width=3,
        )
        if has_ci
        else None,
        hovertemplate=(
            "<b>%{customdata[0]}</b> at level <b>%{customdata[1]}</b><br>"
            + STATISTIC_LABELS[statistic]
            + " = %{customdata[3]}  (n = %{customdata[2]})%{customdata[5]}<br>"
            "<span style='font-size:11px'>%{customdata[4]}</span><extra></extra>"
        ),
    )


def correlation_bars(
    view: pd.DataFrame, granularity: str, statistic: str, grouping_note: str = "",
    top: frozenset[tuple[str, str]] = frozenset(),
) -> go.Figure:
    """Bars of the correlation with humans per metric × token level (one granularity), coloured by family.

    ``view`` is :func:`ui.views.correlation_view`; bars are grouped by metric (outer axis) and level (inner axis).
    Error bars are drawn where ``shown_low``/``shown_high`` are known (bootstrap CIs). Bars of ``top`` (``(level,
    metric)`` pairs: the top significance cluster) are outlined and their values bold; the value labels have the
    decimals that tell the outlined bars from the others (:func:`ui.formats.separating_digits`).
    """
    df = view[view["granularity"] == granularity]
    title = f"{'Segment' if granularity == 'segment' else 'System'} level"
    outer = [esc(x) for x in df["shown_label"]]
    inner = list(df["level"])
    data = []
    digits = formats.separating_digits(df["shown"], [(lv, m) in top for lv, m in zip(df["level"], df["metric"],
                                                                                    strict=True)])
    lows = np.append(df["shown_low"].to_numpy(float), df["shown"].to_numpy(float))
    ymin = float(np.nanmin(lows)) if np.isfinite(lows).any() else 0.0
    bottom = min(0.0, ymin * 1.15 if np.isfinite(ymin) else 0.0)
    span = bar_axis_top(df, bottom) - bottom
    for family in [f for f in FAMILY_COLORS if f in set(df["family"])]:
        mask = (df["family"] == family).to_numpy()
        x = [[o for o, k in zip(outer, mask, strict=True) if k], [i for i, k in zip(inner, mask, strict=True) if k]]
        data.append(_correlation_bar(df[mask], x, statistic, top, family, digits, span))
    data += _outline_top(df, top)
    data = [merge(trace, bar_text(len(df))) for trace in data]
    layout = dict(
        yaxis=dict(
            title=dict(text=f"{STATISTIC_LABELS[statistic]} with humans" if statistic in STATISTICS
                       else f"{SYMBOLS[statistic]} (agreement with humans)"),
            range=[bottom, bar_axis_top(df, bottom)], zeroline=True, zerolinecolor="#999", gridcolor="#eee",
        ),
        xaxis=merge(dict(title=dict(text="metric · token level")), BAR_AXIS),
        barmode="overlay",
        bargap=0.18,
    )
    note = f" <span style='font-size:12px;color:#777'>({grouping_note})</span>" if grouping_note else ""
    return figure(data, base_layout(layout, 460, title + note))



#: Up to this many systems a legend lies in rows above the plot; more get a column at its right.
LEGEND_ABOVE_LIMIT = 8
#: Width of one character of :data:`MIN_TEXT` + 1 px text, in px (Latin; a Hangul syllable is about 1.6 of them):
#: margins that must hold a label are sized from it.
CHAR_PX = 7


def _bump_label(name: str, color: str, left: bool) -> str:
    """A system's name in dark text with a dot of its line's colour on the side towards the line."""
    dot = f"<span style='color:{color}'>●</span>"
    return f"{name} {dot}" if left else f"{dot} {name}"


def line_end_labels(name: str, color: str, xs: Sequence[object], ys: pd.Series) -> list[dict]:
    """The annotations naming a line (an escaped system ``name``) at its first and last point, in dark
    :data:`LABEL_TEXT` with a dot of the line's ``color`` on the side towards the line; none at an undefined end."""
    font = dict(color=LABEL_TEXT, size=MIN_TEXT + 1)
    notes = []
    first, last = ys.iloc[0], ys.iloc[-1]
    if np.isfinite(first):
        notes.append(dict(x=xs[0], y=first, text=_bump_label(name, color, left=True), xanchor="right",
                          xshift=-14, showarrow=False, font=font))
    if np.isfinite(last) and len(xs) > 1:
        notes.append(dict(x=xs[-1], y=last, text=_bump_label(name, color, left=False), xanchor="left",
                          xshift=14, showarrow=False, font=font))
    return notes


def _bump_line(sub: pd.DataFrame, stages: list[str], name: str, color: str) -> dict:
    """The line of one system of :func:`bump_chart` (``sub``: its rows indexed by stage)."""
    differs = sub["differs"].astype("boolean").fillna(False).astype(bool)
    return dict(
        type="scatter",
        x=stages,
        y=sub["rank"],
        mode="lines+markers",
        name=name,
        line=dict(color=color, width=3),
        marker=dict(
            size=16,
            color=["white" if d else color for d in differs],
            line=dict(color=["#D62728" if d else color for d in differs], width=3),
        ),
        customdata=np.column_stack([sub["score"].to_numpy(float), [name] * len(stages)]),
        hovertemplate="<b>%{customdata[1]}</b> · %{x}<br>rank %{y}<br>score %{customdata[0]:.2f}<extra></extra>",
    )


def bump_chart(paths: pd.DataFrame, metric_label: str) -> go.Figure:
    """System ranks by the humans, then by the metric at each token level (1 = best at the top).

    Points where the metric's rank differs from the human rank are drawn as open red rings. Every system is named
    at both ends of its line in dark :data:`LABEL_TEXT` (its colour on a dot beside the name); the side margins
    are sized from the longest name, so none is cut.
    """
    stages = list(dict.fromkeys(paths["stage"]))
    systems = list(dict.fromkeys(paths["system"]))
    n = max(len(systems), 1)
    data, notes = [], []
    for system, color in zip(systems, system_colors(len(systems)), strict=True):
        sub = paths[paths["system"] == system].set_index("stage").reindex(stages)
        name = esc(system)
        data.append(_bump_line(sub, stages, name, color))
        notes += line_end_labels(name, color, stages, sub["rank"])
    side = int(24 + CHAR_PX * (max((len(str(s)) for s in systems), default=0) + 2))  # 14 px shift + 10 px
    layout = dict(
        annotations=notes,
        yaxis=dict(autorange=False, range=[n + 0.5, 0.5], dtick=1, title=dict(text="rank (1 = best)"),
                   gridcolor="#f0f0f0", zeroline=False),
        xaxis=merge(dict(showgrid=False, title=dict(text="")), labelled_axis(stages)),
        showlegend=False,
        margin=dict(l=side + 40, r=side),  # + 40: the rank axis and its title
    )
    title = f"System ranking: humans vs {esc(metric_label)} at each token level"
    return figure(data, base_layout(layout, 90 + 60 * n, title, legend=False))


def _scatter_points(system: str, sub: pd.DataFrame, color: str) -> dict:
    """The points of one system of :func:`segment_scatter`; the hover box shows its texts."""
    custom = np.column_stack(
        [
            [esc(system)] * len(sub),
            [esc(s) for s in sub["seg_id"]],
            [wrap(h) for h in sub["hyp"]],
            [wrap(r) for r in sub["ref"]],
            sub["difference"].to_numpy(float),
        ]
    )
    return dict(
        type="scatter",
        x=sub["human"],
        y=sub["metric"],
        mode="markers",
        name=esc(system),
        marker=dict(size=8, opacity=0.75, color=color, line=dict(width=0.5, color="white")),
        customdata=custom,
        hovertemplate=(
            "<b>%{customdata[0]}</b>, segment %{customdata[1]}<br>human %{x:.2f} · metric %{y:.2f}"
            " · rank difference %{customdata[4]:+.2f}<br><br><b>hyp</b> %{customdata[2]}<br><b>ref</b> %{customdata[3]}<extra></extra>"
        ),
    )


def segment_scatter(
    df: pd.DataFrame, metric_label: str, level: str, human_label: str = "human score", note: str = ""
) -> go.Figure:
    """Metric score vs human score per segment, coloured by system; hover shows the texts."""
    colors = system_colors(int(df["system"].nunique()))
    data = [_scatter_points(system, sub, colors[k]) for k, (system, sub) in enumerate(df.groupby("system", sort=True))]
    layout: dict[str, object] = dict(
        xaxis=dict(title=dict(text=human_label), gridcolor="#eee"),
        yaxis=dict(title=dict(text=f"{esc(metric_label)} at {level} (segment)"), gridcolor="#eee"),
    )
    title = f"{esc(metric_label)} at level {level} vs human, per segment"
    if note:
        title += f" <span style='font-size:12px;color:#777'>({note})</span>"
    n_systems = len(colors)
    if n_systems <= LEGEND_ABOVE_LIMIT:
        return figure(data, base_layout(layout, 520, title))
    # many systems: a horizontal legend would take rows off the plot; one system a line at the right instead
    layout["legend"] = dict(orientation="v", x=1.01, xanchor="left", y=1, yanchor="top", font=dict(size=12))
    return figure(data, base_layout(layout, max(520, 110 + 20 * n_systems), title, legend=False))


def level_bars(df: pd.DataFrame, value: str, title: str, axis_title: str, fmt: str = ".2f") -> go.Figure:
    """One bar per level coloured by family (``df`` has ``level``, ``family`` and ``value``)."""
    data = []
    for family in [f for f in FAMILY_COLORS if f in set(df["family"])]:
        sub = df[df["family"] == family]
        data.append(dict(
            type="bar",
            name=FAMILY_LABELS.get(family, family),
            x=sub["level"],
            y=sub[value],
            marker=dict(color=FAMILY_COLORS[family]),
            text=[format(v, fmt) for v in sub[value]],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{x}: %{y:" + fmt + "}<extra></extra>",
        ))
    layout = dict(
        xaxis=merge(dict(categoryorder="array", categoryarray=list(df["level"]), title=dict(text="token level")),
                    labelled_axis(list(df["level"]))),
        yaxis=dict(title=dict(text=axis_title), gridcolor="#eee"),
        barmode="overlay",
        showlegend=False,  # the x axis names every level; half-width legends overlap the title
    )
    return figure(data, base_layout(layout, 360, title, legend=False))


def timing_heatmap(seconds: pd.DataFrame) -> go.Figure:
    """Seconds each metric (rows) took at each level (columns)."""
    z = seconds.to_numpy(float)
    rows = [esc(m) for m in seconds.index]
    heatmap = dict(
        type="heatmap",
        z=z,
        x=list(seconds.columns),
        y=rows,
        colorscale="Oranges",
        text=[[f"{v:.2f}s" if np.isfinite(v) else "" for v in row] for row in z],
        texttemplate="%{text}",
        hovertemplate="%{y} at %{x}: %{z:.3f} s<extra></extra>",
        colorbar=dict(title=dict(text="s"), thickness=12),
        xgap=2,
        ygap=2,
    )
    layout = dict(yaxis=merge(dict(autorange="reversed"), labelled_axis(rows)),
                  xaxis=labelled_axis(list(seconds.columns)))
    title = "Scoring time per metric × level (seconds, this run; cached work is fast)"
    return figure([heatmap], base_layout(layout, 110 + 38 * len(seconds), title, legend=False))


def distribution(before: Sequence[float], after: Sequence[float], label: str) -> go.Figure:
    """Overlaid histograms of a score before and after quality control."""
    data = [
        dict(type="histogram", x=list(before), name=f"before QC (n = {len(before):,})", marker=dict(color="#BAB0AC"),
             opacity=0.75, nbinsx=30),
        dict(type="histogram", x=list(after), name=f"after QC (n = {len(after):,})", marker=dict(color="#4C78A8"),
             opacity=0.75, nbinsx=30),
    ]
    layout = dict(barmode="overlay", xaxis=dict(title=dict(text=esc(label))),
                  yaxis=dict(title=dict(text="judgments"), gridcolor="#eee"))
    return figure(data, base_layout(layout, 320, f"{esc(label)}: distribution before and after QC"))


def _accuracy_bar(sub: pd.DataFrame, family: str) -> dict:
    """The bar trace of one family's rows of :func:`accuracy_bars`: ``agreed/pairs`` on each bar."""
    acc = sub["pairwise_accuracy"].to_numpy(float)
    pairs = sub["n_pairs"].to_numpy(int)
    agreed = [f"{round(a * k)}/{k}" if np.isfinite(a) else "n/a" for a, k in zip(acc, pairs, strict=True)]
    return dict(
        type="bar",
        name=FAMILY_LABELS.get(family, family),
        x=[[esc(m) for m in sub["metric_label"]], list(sub["level"])],
        y=acc,
        marker=dict(color=FAMILY_COLORS[family], line=dict(width=0)),
        text=agreed,
        textposition="outside",
        textfont=dict(color="#333"),
        cliponaxis=False,
        customdata=np.column_stack([[esc(m) for m in sub["metric_label"]], sub["level"], agreed]),
        hovertemplate="<b>%{customdata[0]}</b> at %{customdata[1]}: %{customdata[2]} system pairs ordered as "
        "the humans order them (accuracy %{y:.3f})<extra></extra>",
    )


def accuracy_bars(df: pd.DataFrame) -> go.Figure:
    """Pairwise accuracy per metric (outer axis) × level (inner axis), coloured by token family.

    ``df`` is :func:`ui.significance_views.accuracy_view` (``metric_label, level, family, pairwise_accuracy, n_pairs``).
    """
    data = [merge(_accuracy_bar(df[df["family"] == family], family), bar_text(len(df)))
            for family in [f for f in FAMILY_COLORS if f in set(df["family"])]]
    if "spa" in df and df["spa"].notna().any():
        data.append(dict(
            type="scatter",
            name="SPA (soft pairwise accuracy)",
            x=[[esc(m) for m in df["metric_label"]], list(df["level"])],
            y=df["spa"].to_numpy(float),
            mode="markers",
            marker=dict(symbol="diamond", size=9, color="#111", line=dict(width=1, color="white")),
            customdata=np.column_stack([[esc(m) for m in df["metric_label"]], df["level"]]),
            hovertemplate="<b>%{customdata[0]}</b> at %{customdata[1]}: SPA %{y:.4f} (1 − mean |p_human − p_metric| "
            "over system pairs)<extra></extra>",
        ))
    layout = dict(
        yaxis=dict(title=dict(text="pairwise accuracy · SPA"),
                   range=[0, 1.1 if len(df) <= HORIZONTAL_VALUES else 1.25], gridcolor="#eee"),
        xaxis=merge(dict(title=dict(text="metric · token level")), BAR_AXIS),
        barmode="overlay",
        bargap=0.18,
    )
    title = "Pairwise accuracy (bars) and SPA (◆): agreement with the humans on system pairs"
    return figure(data, base_layout(layout, 420, title))
