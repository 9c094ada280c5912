"""Grids that stay readable at any size (pure Plotly: tables in, figures out; no Streamlit).

The metric × level results as heatmaps with the value in every cell (correlations, pairwise accuracy), the
configuration × configuration significance matrix, and the count grid of flipped pairs. Every row and column is
labelled in full (:func:`ui.charts.labelled_axis`: Plotly never thins them), text is at least
:data:`ui.charts.MIN_TEXT` px, and a figure grows with its rows. Cells of the top significance cluster are outlined
and their values bold; clusters of the significance matrix are outlined. Bars stay where they are readable
(:func:`chart_form`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.metaeval.tables.agreement import AGREEMENT_COLORSCALE, agreement_color_range
from korean_eval.model.defaults import ALPHA
from ui.charts import MIN_TEXT, accuracy_bars, base_layout, correlation_bars, esc, labelled_axis
from ui.figures import figure, merge
from ui.formats import separating_digits
from ui.views import STATISTIC_LABELS, SYMBOLS

#: Up to this many configurations (metric × level) a chart is drawn as bars (the default 5 levels × 5 metrics
#: included); more become a grid.
BAR_LIMIT = 30
#: Up to this many bars the segment- and system-level charts stand side by side; more get the full page width.
SIDE_BY_SIDE_LIMIT = 12
CHART_FORMS = {"auto": "Automatic", "bars": "Bars", "grid": "Grid"}
#: Pixels per grid row and per significance-matrix row (≥ 2 lines of :data:`ui.charts.MIN_TEXT` text).
ROW_PX = 34
MATRIX_ROW_PX = 22
#: Up to this many configurations the significance matrix writes its p-values in the cells and names its columns
#: (beyond: hover, and numbered columns); up to :data:`MATRIX_BESIDE_LIMIT` its cluster table stands beside it.
MATRIX_TEXT_LIMIT = 16
MATRIX_BESIDE_LIMIT = 10
#: Beyond this many configurations the matrix's column numbers alternate below and above it.
MATRIX_ALTERNATE_FROM = 40
TOP_OUTLINE = "#FF8C00"
CLUSTER_OUTLINE = "#C44E52"


def chart_form(form: str, n_configs: int) -> str:
    """``"bars"`` or ``"grid"``: the user's choice, or automatically bars up to :data:`BAR_LIMIT` configurations."""
    if form in ("bars", "grid"):
        return form
    return "bars" if n_configs <= BAR_LIMIT else "grid"


def _outline(x0: float, x1: float, y0: float, y1: float, color: str, width: float) -> dict:
    """A rectangle drawn around cells (a layout shape in data coordinates)."""
    return dict(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, xref="x", yref="y", line=dict(color=color, width=width),
                fillcolor="rgba(0,0,0,0)", layer="above")


def _interval(low: float, high: float) -> str:
    return f"[{low:.3f}, {high:.3f}]" if np.isfinite(low) and np.isfinite(high) else "n/a (intervals off or undefined)"


def _cell_interval(low: float, high: float, digits: int) -> str:
    """A grid cell's second line: its 95% interval in small type, when there is one."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return ""
    return f"<br><span style='font-size:{MIN_TEXT}px'>[{low:.{digits}f}, {high:.{digits}f}]</span>"


def _grid_cells(df: pd.DataFrame, rows: list[str], cols: list[str], value: str) -> pd.DataFrame:
    """One row per (row label, level) of ``df`` in grid order, with ``i``/``j`` positions (missing cells absent)."""
    row_of = {r: k for k, r in enumerate(rows)}
    col_of = {c: k for k, c in enumerate(cols)}
    out = df.assign(i=df["shown_label"].map(row_of), j=df["level"].map(col_of))
    return out[out["i"].notna() & out["j"].notna()].astype({"i": int, "j": int}).assign(cell_value=out[value])


def _heatmap(rows: list[str], cols: list[str], cells: pd.DataFrame, text: list[str], hover: list[str],
             colorbar: str, zmin: float, zmax: float, colorscale: str = AGREEMENT_COLORSCALE) -> tuple[dict, dict]:
    """A rows × columns heatmap of ``cells["cell_value"]`` with ``text`` in each cell and ``hover`` boxes: its trace
    and its layout (every label drawn; metric rows, token level columns)."""
    shape = (len(rows), len(cols))
    z = np.full(shape, np.nan)
    cell_text = np.full(shape, "", dtype=object)
    cell_hover = np.full(shape, "", dtype=object)
    for (i, j, v), t, h in zip(cells[["i", "j", "cell_value"]].itertuples(index=False), text, hover, strict=True):
        z[i, j], cell_text[i, j], cell_hover[i, j] = v, t, h
    trace = dict(
        type="heatmap", z=z, x=list(range(len(cols))), y=list(range(len(rows))), zmin=zmin, zmax=zmax,
        colorscale=colorscale, text=cell_text.tolist(), texttemplate="%{text}", textfont=dict(size=MIN_TEXT + 1),
        customdata=cell_hover.tolist(), hovertemplate="%{customdata}<extra></extra>", hoverongaps=False,
        colorbar=dict(title=dict(text=colorbar), thickness=12, tickfont=dict(size=MIN_TEXT + 1)), xgap=2, ygap=2,
    )
    layout = dict(
        yaxis=merge(dict(autorange="reversed", showgrid=False, zeroline=False, title=dict(text="metric")),
                    labelled_axis(list(range(len(rows))), [esc(r) for r in rows])),
        xaxis=merge(dict(side="top", showgrid=False, zeroline=False, title=dict(text="token level")),
                    labelled_axis(list(range(len(cols))), [esc(c) for c in cols])),
    )
    return trace, layout


def _grid_figure(trace: dict, layout: dict, n_rows: int, title: str) -> go.Figure:
    """Title, height for ``n_rows`` rows of :data:`ROW_PX`, and room above the plot for the column labels (they are
    drawn at the top, where a tall grid's first rows are)."""
    return figure([trace], base_layout(merge(layout, dict(margin=dict(t=100))), 170 + ROW_PX * n_rows, title,
                                       legend=False))


def correlation_grid(
    view: pd.DataFrame, granularity: str, statistic: str, top: frozenset[tuple[str, str]] = frozenset(),
    grouping_note: str = "",
) -> go.Figure:
    """Metric (rows) × token level (columns) grid of the plotted correlation of one granularity, its value in every
    cell (with the decimals that tell the top cluster from the rest, :func:`ui.formats.separating_digits`) and, when
    intervals were computed, its 95% CI below it; cells of ``top`` (``(level, metric)``: the top significance
    cluster) outlined with bold values. Hover: the value as computed, its 95% CI, n and signature. ``view`` is
    :func:`ui.views.correlation_view`."""
    df = view[view["granularity"] == granularity]
    rows, cols = list(dict.fromkeys(df["shown_label"])), list(dict.fromkeys(df["level"]))
    cells = _grid_cells(df, rows, cols, "shown")
    in_top = [(lv, m) in top for lv, m in zip(cells["level"], cells["metric"], strict=True)]
    digits = separating_digits(cells["cell_value"], in_top, least=3)
    text = [("n/a" if not np.isfinite(v) else f"<b>{v:.{digits}f}</b>" if t else f"{v:.{digits}f}")
            + _cell_interval(lo, hi, digits)
            for v, t, lo, hi in zip(cells["cell_value"], in_top, cells["shown_low"], cells["shown_high"], strict=True)]
    label = STATISTIC_LABELS[statistic]
    hover = [
        f"<b>{esc(r.shown_label)}</b> at level <b>{esc(r.level)}</b><br>{label} = "
        + (f"{r.value:.4f}" if np.isfinite(r.value) else "undefined")
        + (f" (plotted {r.shown:.4f})" if np.isfinite(r.value) and r.shown != r.value else "")
        + f"<br>95% CI {_interval(r.shown_low, r.shown_high)} · n = {int(r.n):,}"
        + ("<br><b>in the top significance cluster</b>" if t else "")
        + f"<br><span style='font-size:11px'>{esc(r.signature)}</span>"
        for r, t in zip(cells.itertuples(), in_top, strict=True)
    ]
    zmin, zmax = agreement_color_range(cells["cell_value"])
    trace, layout = _heatmap(rows, cols, cells, text, hover, SYMBOLS[statistic], zmin, zmax)
    shapes = [_outline(j - 0.5, j + 0.5, i - 0.5, i + 0.5, TOP_OUTLINE, 3)
              for i, j, t in zip(cells["i"], cells["j"], in_top, strict=True) if t]
    title = f"{granularity.capitalize()} level — {label} with humans"
    if grouping_note:
        title += f" <span style='font-size:12px;color:#777'>({grouping_note})</span>"
    return _grid_figure(trace, {**layout, "shapes": shapes} if shapes else layout, len(rows), title)


def correlation_chart(
    view: pd.DataFrame, granularity: str, statistic: str, form: str, top: frozenset[tuple[str, str]] = frozenset(),
    grouping_note: str = "",
) -> go.Figure:
    """Bars (:func:`ui.charts.correlation_bars`) or grid (:func:`correlation_grid`), by :func:`chart_form`."""
    n = int((view["granularity"] == granularity).sum())
    if chart_form(form, n) == "bars":
        return correlation_bars(view, granularity, statistic, grouping_note, top)
    return correlation_grid(view, granularity, statistic, top, grouping_note)


def accuracy_grid(df: pd.DataFrame) -> go.Figure:
    """Pairwise accuracy per metric (rows) × level (columns), ``agreed/pairs`` in every cell, SPA in the hover.

    ``df`` is :func:`ui.significance_views.accuracy_view`."""
    df = df.assign(shown_label=df["metric_label"])
    rows, cols = list(dict.fromkeys(df["shown_label"])), list(dict.fromkeys(df["level"]))
    cells = _grid_cells(df, rows, cols, "pairwise_accuracy")
    spa = cells["spa"].to_numpy(float) if "spa" in cells else np.full(len(cells), np.nan)
    text = [f"{round(a * k)}/{k}" if np.isfinite(a) else "n/a"
            for a, k in zip(cells["cell_value"], cells["n_pairs"].astype(int), strict=True)]
    hover = [
        f"<b>{esc(r.metric_label)}</b> at <b>{esc(r.level)}</b>: {t} system pairs ordered as the humans order them"
        + (f" (accuracy {r.cell_value:.3f})" if np.isfinite(r.cell_value) else "")
        + (f"<br>SPA {s:.4f} (1 − mean |p_human − p_metric| over system pairs)" if np.isfinite(s) else "")
        for r, t, s in zip(cells.itertuples(), text, spa, strict=True)
    ]
    trace, layout = _heatmap(rows, cols, cells, text, hover, "accuracy", 0.0, 1.0)
    return _grid_figure(trace, layout, len(rows), "Pairwise accuracy: system pairs ordered as the humans order them")


def accuracy_chart(df: pd.DataFrame, form: str = "auto") -> go.Figure:
    """Bars (:func:`ui.charts.accuracy_bars`) or grid (:func:`accuracy_grid`), by :func:`chart_form`."""
    return accuracy_bars(df) if chart_form(form, len(df)) == "bars" else accuracy_grid(df)


def _cluster_blocks(clusters: Sequence[int]) -> list[tuple[int, int]]:
    """``(first, last)`` positions of each run of equal cluster numbers."""
    blocks, start = [], 0
    for k in range(1, len(clusters) + 1):
        if k == len(clusters) or clusters[k] != clusters[start]:
            blocks.append((start, k - 1))
            start = k
    return blocks


#: A large matrix's colour bar lies above it, leaving the page's width to the columns.
_TOP_COLORBAR = dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom", len=0.4, ypad=4,
                     title=dict(text="p (one-sided)", side="top"))


def _p_text(p: float) -> str:
    return "" if not np.isfinite(p) else "<.001" if p < 0.001 else f"{p:.3f}".lstrip("0")


# The significance matrix's ``layout.meta``: how tests and exports find it (the page states what it shows in a
# caption above it, not in a chart title).
MATRIX_META = "significance-matrix"


def significance_heatmap(
    matrix: pd.DataFrame, labels: Sequence[str], clusters: Sequence[int], agreement: Sequence[float],
    title: str | None, alpha: float = ALPHA,
) -> go.Figure:
    """One-sided p-values "row agrees with the humans more than column", configurations in rank order (best first).

    Colour: dark where p is small, light grey from ``alpha`` up (``zmax = 2·alpha``, so ``alpha`` sits at the middle
    of the scale). Row labels carry the rank, the cluster and the agreement; every row and column is labelled (the
    figure grows with the count; beyond :data:`MATRIX_TEXT_LIMIT` configurations the agreement moves to the hover,
    the columns carry the rank number of their row and the colour bar lies above, leaving the page's width to the
    columns); each cluster is outlined on the diagonal. Values are written in the cells up to
    :data:`MATRIX_TEXT_LIMIT` configurations, in the hover always.
    """
    z = matrix.to_numpy(float)
    n = len(labels)
    written = n <= MATRIX_TEXT_LIMIT
    shown = [f"{esc(lab)} ({a:.3f})" if np.isfinite(a) else f"{esc(lab)} (n/a)"
             for lab, a in zip(labels, agreement, strict=True)]
    # a large matrix keeps its labels short (agreement in the hover) and numbers its columns as its rows: names would
    # not fit under columns a few px wide
    rows = [f"{k + 1}. [{c}] " + (shown[k] if written else esc(labels[k])) for k, c in enumerate(clusters)]
    cols = [f"{k + 1}. {esc(lab)}" if written else str(k + 1) for k, lab in enumerate(labels)]
    hover = [
        [
            f"{shown[i]} agrees more with humans than {shown[j]}: p = "
            + ("n/a (undefined)" if not np.isfinite(z[i, j]) else "< 0.001" if z[i, j] < 0.001 else f"{z[i, j]:.3f}")
            if i != j else shown[i]
            for j in range(n)
        ]
        for i in range(n)
    ]
    heatmap = _p_heatmap(z, hover, written, alpha)
    layout = dict(
        shapes=[_outline(first - 0.5, last + 0.5, first - 0.5, last + 0.5, CLUSTER_OUTLINE, 2)
                for first, last in _cluster_blocks(list(clusters))],
        yaxis=merge(dict(autorange="reversed", title=dict(text="row"), showgrid=False, zeroline=False),
                    labelled_axis(list(range(n)), rows)),
        xaxis=dict(title=dict(text="column"), side="bottom", showgrid=False, zeroline=False),
        margin=dict(l=20, r=20, b=20, t=55 if written else 150),
        meta=MATRIX_META,
    )
    data = [heatmap]
    if written:
        layout["xaxis"] = merge(layout["xaxis"], labelled_axis(list(range(n)), cols, angle=-90 if n > 8 else -45))
    elif n <= MATRIX_ALTERNATE_FROM:
        layout["xaxis"] = merge(layout["xaxis"], labelled_axis(list(range(n)), cols, angle=-90),
                                dict(title=dict(text="column (numbered as the rows)")))
    else:
        data, layout = _alternate_columns(heatmap, layout, cols)
    return figure(data, base_layout(layout, 260 + max(MATRIX_ROW_PX * n, 220), title, legend=False))


def _p_heatmap(z: np.ndarray, hover: list[list[str]], written: bool, alpha: float) -> dict:
    """The significance matrix's heatmap trace: dark where p is small, light grey from ``alpha`` up, p written in
    the cells when ``written``."""
    return dict(
        type="heatmap", z=z, x=list(range(len(z))), y=list(range(len(z))), zmin=0, zmax=2 * alpha,
        colorscale=[[0.0, "#08306B"], [0.1, "#2171B5"], [0.5, "#9ECAE1"], [0.5, "#EEEEEE"], [1.0, "#F7F7F7"]],
        text=[[_p_text(v) for v in row] for row in z] if written else None,
        texttemplate="%{text}" if written else None, textfont=dict(size=MIN_TEXT),
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        colorbar=dict(thickness=12, tickvals=[0, alpha / 2, alpha, 2 * alpha],
                      ticktext=["0", f"{alpha / 2:g}", f"{alpha:g}", f"≥ {2 * alpha:g}"],
                      **(dict(title=dict(text="p")) if written else _TOP_COLORBAR)),
        xgap=1, ygap=1, hoverongaps=False,
    )


def _alternate_columns(heatmap: dict, layout: dict, numbers: Sequence[str]) -> tuple[list[dict], dict]:
    """A large matrix's traces and layout with its column numbers alternating: odd ones below and even ones above
    (a second x axis over the first, held by an invisible trace), so that neighbouring labels are two columns
    apart, every one drawn at the smallest allowed size (a column is a few px wide), the colour bar above them."""
    n = len(numbers)
    span = dict(range=[-0.5, n - 0.5], autorange=False)
    small = dict(tickfont=dict(size=MIN_TEXT))
    xaxis = merge(layout["xaxis"], labelled_axis(list(range(0, n, 2)), numbers[0::2], angle=-90), small,
                  dict(title=dict(text="column (numbered as the rows; odd below, even above)")), span)
    xaxis2 = merge(dict(overlaying="x", side="top", matches="x", showgrid=False, zeroline=False),
                   labelled_axis(list(range(1, n, 2)), numbers[1::2], angle=-90), small, span)
    yaxis = merge(layout["yaxis"], dict(range=[n - 0.5, -0.5], autorange=False))  # the invisible points must not pad
    anchor = dict(type="scatter", x=[0, n - 1], y=[0, 0], xaxis="x2", mode="markers", marker=dict(opacity=0),
                  hoverinfo="skip", showlegend=False)
    heatmap = merge(heatmap, dict(colorbar=dict(y=1 + 40 / (MATRIX_ROW_PX * n))))
    return [heatmap, anchor], {**layout, "xaxis": xaxis, "xaxis2": xaxis2, "yaxis": yaxis}


def flip_heatmap(counts: pd.DataFrame, n_pairs: int) -> go.Figure:
    """Flipped system pairs per metric (rows) × level (columns), of ``n_pairs`` pairs; every row and column
    labelled."""
    z = counts.to_numpy(float)
    heatmap = dict(
        type="heatmap", z=z, x=list(range(z.shape[1])), y=list(range(z.shape[0])),
        colorscale=[[0, "#f7fbff"], [1, "#d62728"]], zmin=0, zmax=max(1, n_pairs),
        text=[[f"{int(v)}" for v in row] for row in z], texttemplate="%{text}", textfont=dict(size=MIN_TEXT + 2),
        customdata=[[f"{esc(m)} at {esc(lv)}: {int(v)} of {n_pairs} pairs flipped"
                     for lv, v in zip(counts.columns, row, strict=True)] for m, row in zip(counts.index, z, strict=True)],
        hovertemplate="%{customdata}<extra></extra>", colorbar=dict(title=dict(text="pairs"), thickness=12), xgap=2,
        ygap=2,
    )
    layout = dict(
        yaxis=merge(dict(autorange="reversed", title=dict(text="metric"), showgrid=False, zeroline=False),
                    labelled_axis(list(range(z.shape[0])), [esc(m) for m in counts.index])),
        xaxis=merge(dict(title=dict(text="token level"), showgrid=False, zeroline=False),
                    labelled_axis(list(range(z.shape[1])), [esc(c) for c in counts.columns])),
    )
    title = f"Flipped system pairs (of {n_pairs}) — metric vs human order"
    return figure([heatmap], base_layout(layout, 130 + ROW_PX * len(counts), title, legend=False))
