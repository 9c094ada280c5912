"""The figures of the HTML report (:mod:`korean_eval.exports.html`): Plotly ``graph_objects`` drawn from the export
tables of :mod:`korean_eval.exports.tables` (docs/design.md §2).

The dashboard's own chart builders live in ``ui/`` (``ui.charts``, ``ui.grid_charts``), which the library must not
import (``korean_eval`` never imports ``ui``), so the report draws the same views here from the same tidy tables:
correlation bars drawn as agreement with 95 % intervals (error rates negated and labelled ``−TER``; beyond
:data:`BAR_LIMIT` configurations a metric × level grid on the agreement colour scale: the rule of
:mod:`korean_eval.metaeval.tables.agreement`, shared with the dashboard), system scores per level, the rank
agreement (a bump chart: humans, then each level), the flipped system pairs and the tokens per word. Text from the
user's files (system and metric names) is escaped before it goes into a label, so Plotly shows it as text and never
as markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from korean_eval.exports.tables import HUMAN_COLUMN, metric_label
from korean_eval.metaeval.tables.agreement import (
    AGREEMENT_COLORSCALE,
    MINUS,
    agreement_color_range,
    agreement_label,
)
from korean_eval.model.palette import FAMILY_COLORS, system_colors
from korean_eval.model.vocabulary import STATISTIC_SYMBOLS

#: Up to this many configurations (metric × level) a correlation chart has bars, beyond it a grid.
BAR_LIMIT = 30
MIN_TEXT = 11
#: Outline of the top cluster's cells in a grid (the dashboard's colour).
TOP_OUTLINE = "#FF8C00"


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


def _agreement_labels(grid: pd.DataFrame) -> list[str]:
    """Each row's metric as drawn: ``−TER`` for a negated error rate (escaped)."""
    return [esc(agreement_label(metric_label(m), bool(n))) for m, n in zip(grid["metric"], grid["negated"], strict=True)]


def _interval_text(low: float, high: float) -> str:
    return f"95 % CI [{low:.3f}, {high:.3f}]" if np.isfinite(low) and np.isfinite(high) else "no interval"


def correlation_figure(grid: pd.DataFrame, families: dict[str, str], granularity: str, title: str,
                       statistic: str = "pearson") -> go.Figure:
    """The agreement of each metric × level with the humans (``grid``:
    :func:`korean_eval.exports.tables.correlation_grid`; error rates negated, labelled ``−TER``: the rule of
    :mod:`korean_eval.metaeval.tables.agreement`, as on the dashboard): bars grouped by metric, coloured by the
    level's family, with the 95 % interval as error bars where one was computed and the top cluster outlined; a
    metric × level grid on the agreement colour scale beyond :data:`BAR_LIMIT` configurations."""
    if len(grid) > BAR_LIMIT:
        return _correlation_heatmap(grid, title, statistic)
    fig = go.Figure()
    labels = pd.Series(_agreement_labels(grid), index=grid.index)
    for family, rows in grid.groupby(grid["level"].map(lambda lv: families.get(lv, "given")), sort=False):
        value = rows["shown"].to_numpy(float)
        low, high = rows["shown_low"].to_numpy(float), rows["shown_high"].to_numpy(float)
        has_ci = bool(np.isfinite(low).any())
        fig.add_bar(
            name=family, x=[list(labels[rows.index]), list(rows["level"])], y=value,
            marker=dict(color=FAMILY_COLORS.get(family, "#8C8C8C"),
                        line=dict(color="#111", width=[2.5 if t else 0 for t in rows["top"]])),
            error_y=dict(type="data", symmetric=False, array=high - value, arrayminus=value - low, thickness=1.2,
                         width=3, color="#333") if has_ci else None,
            text=[f"{v:.3f}" if np.isfinite(v) else "" for v in value], textposition="inside",
            insidetextanchor="middle",
            customdata=np.column_stack([rows["value"].to_numpy(float),
                                        [_interval_text(lo, hi) for lo, hi in zip(rows["ci_low"], rows["ci_high"],
                                                                                  strict=True)],
                                        rows["n"].to_numpy(float)]),
            hovertemplate="%{x}<br>agreement %{y:.4f}<br>as computed %{customdata[0]:.4f}, %{customdata[1]}"
                          "<br>n = %{customdata[2]:,.0f}<extra></extra>",
        )
    fig.update_xaxes(tickmode="linear", tick0=0, dtick=1, title_text="metric · token level")
    fig.update_yaxes(title_text=f"agreement ({STATISTIC_SYMBOLS.get(statistic, statistic)}; "
                                f"error rates: {MINUS}{STATISTIC_SYMBOLS.get(statistic, statistic)})",
                     zeroline=True)
    return _layout(fig, title, 460)


def _correlation_heatmap(grid: pd.DataFrame, title: str, statistic: str) -> go.Figure:
    """Metrics (rows, ``−TER`` for error rates) × levels: the agreement in every cell on the agreement colour scale
    (:func:`korean_eval.metaeval.tables.agreement.agreement_color_range`), bold in the top cluster; the value as
    computed, its interval and n in the hover."""
    grid = grid.assign(label=_agreement_labels(grid))
    rows_ = list(dict.fromkeys(grid["label"]))
    levels = list(dict.fromkeys(grid["level"]))
    at = {(r.label, r.level): r for r in grid.itertuples()}
    z = np.full((len(rows_), len(levels)), np.nan)
    text = [["" for _ in levels] for _ in rows_]
    hover = [["" for _ in levels] for _ in rows_]
    for i, label in enumerate(rows_):
        for j, level in enumerate(levels):
            r = at.get((label, level))
            if r is None:
                continue
            z[i, j] = r.shown
            if np.isfinite(r.shown):
                text[i][j] = f"<b>{r.shown:.3f}</b>" if r.top else f"{r.shown:.3f}"
            hover[i][j] = (f"{label} at {esc(level)}: agreement {r.shown:.4f}<br>as computed {r.value:.4f}, "
                           f"{_interval_text(r.ci_low, r.ci_high)}<br>n = {int(r.n):,}")
    zmin, zmax = agreement_color_range(z.ravel())
    symbol = STATISTIC_SYMBOLS.get(statistic, statistic)
    fig = go.Figure(go.Heatmap(z=z, x=list(range(len(levels))), y=list(range(len(rows_))), text=text,
                               texttemplate="%{text}", colorscale=AGREEMENT_COLORSCALE, zmin=zmin, zmax=zmax,
                               customdata=hover, hovertemplate="%{customdata}<extra></extra>",
                               colorbar=dict(title=dict(text=f"agreement ({symbol})"), thickness=12),
                               textfont=dict(size=MIN_TEXT), xgap=2, ygap=2))
    for r in grid[grid["top"]].itertuples():
        i, j = rows_.index(r.label), levels.index(r.level)
        fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, line=dict(color=TOP_OUTLINE, width=3))
    _every_tick(fig, "x", range(len(levels)), [esc(lv) for lv in levels])
    _every_tick(fig, "y", range(len(rows_)), rows_)
    fig.update_xaxes(title_text="token level")
    fig.update_yaxes(autorange="reversed", title_text="metric")
    return _layout(fig, title + " (outlined, bold: top significance cluster)", 140 + 32 * len(rows_))


def system_score_figure(table: pd.DataFrame, metric: str) -> go.Figure:
    """One metric's system scores per level, a bar per system (``table``:
    :func:`korean_eval.exports.tables.system_score_table`, the human column left out: another scale)."""
    part = table[(table["metric"] == metric) & (table["column"] != HUMAN_COLUMN)]
    colors = system_colors(part["system"].nunique())
    fig = go.Figure()
    for i, (system, rows) in enumerate(part.groupby("system", sort=False)):
        fig.add_bar(name=esc(system), x=list(rows["column"]), y=rows["score"].to_numpy(float),
                    marker_color=colors[i],
                    hovertemplate=f"{esc(system)}<br>%{{x}}: %{{y:.2f}}<extra></extra>")
    fig.update_layout(barmode="group")
    fig.update_xaxes(title_text="token level")
    fig.update_yaxes(title_text=esc(metric_label(metric)))
    return _layout(fig, f"{esc(metric_label(metric))}: system scores per token level (not comparable across levels)",
                   400)


def rank_figure(table: pd.DataFrame, metric: str) -> go.Figure:
    """Rank agreement of one metric: each system's human rank, then its rank by the metric at each level (a bump
    chart; open red rings where the metric's rank differs from the human rank)."""
    part = table[table["metric"] == metric]
    stages = list(dict.fromkeys([HUMAN_COLUMN, *part["column"]]))
    colors = system_colors(part["system"].nunique())
    fig = go.Figure()
    for i, (system, rows) in enumerate(part.groupby("system", sort=False)):
        ranks = rows.set_index("column")["rank"].reindex(stages).to_numpy(float)
        fig.add_scatter(name=esc(system), x=stages, y=ranks, mode="lines+markers",
                        line=dict(color=colors[i], width=2.5), marker=dict(size=9),
                        hovertemplate=f"{esc(system)}<br>%{{x}}: rank %{{y}}<extra></extra>")
        differs = [(s, r) for s, r in zip(stages[1:], ranks[1:], strict=True) if np.isfinite(r) and r != ranks[0]]
        if differs and np.isfinite(ranks[0]):
            fig.add_scatter(x=[s for s, _ in differs], y=[r for _, r in differs], mode="markers", showlegend=False,
                            marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(color="#C62828", width=2)),
                            hoverinfo="skip")
    _every_tick(fig, "x", stages, [esc(s) for s in stages])
    fig.update_xaxes(title_text="humans, then each token level")
    fig.update_yaxes(autorange="reversed", title_text="rank (1 = best)", dtick=1)
    return _layout(fig, f"{esc(metric_label(metric))}: rank by the humans, then at each level", 380)


def flip_figure(flips: pd.DataFrame, metrics: Sequence[str], levels: Sequence[str], n_pairs: int) -> go.Figure:
    """Flipped system pairs (the metric orders them against the humans) per metric × level, of ``n_pairs``."""
    counts = flips.groupby(["metric", "level"]).size() if len(flips) else pd.Series(dtype=int)
    z = np.array([[int(counts.get((m, lv), 0)) for lv in levels] for m in metrics])
    fig = go.Figure(go.Heatmap(z=z, x=list(range(len(levels))), y=list(range(len(metrics))), text=z.astype(str),
                               texttemplate="%{text}", colorscale="Reds", zmin=0, zmax=max(n_pairs, 1),
                               textfont=dict(size=MIN_TEXT + 1), colorbar=dict(title=dict(text="pairs"), thickness=12),
                               hovertemplate="%{y}, %{x}: %{z} flipped pairs<extra></extra>"))
    _every_tick(fig, "x", range(len(levels)), [esc(lv) for lv in levels])
    _every_tick(fig, "y", range(len(metrics)), [esc(metric_label(m)) for m in metrics])
    fig.update_xaxes(title_text="token level")
    fig.update_yaxes(autorange="reversed", title_text="metric")
    return _layout(fig, f"Flipped system pairs (of {n_pairs}) per metric and level", 140 + 36 * len(metrics))


def tokens_per_word_figure(tokens: pd.DataFrame) -> go.Figure:
    """Tokens per whitespace word per level, coloured by family (``tokens``:
    :func:`korean_eval.exports.tables.token_table`)."""
    fig = go.Figure(go.Bar(x=list(tokens["level"]), y=tokens["tokens_per_word"].to_numpy(float),
                           marker_color=[FAMILY_COLORS.get(f, "#8C8C8C") for f in tokens["family"]],
                           text=[f"{v:.2f}" for v in tokens["tokens_per_word"]], textposition="outside"))
    fig.update_xaxes(title_text="token level")
    fig.update_yaxes(title_text="tokens per word")
    return _layout(fig, "Tokens per whitespace word", 360)


#: Fill and text of a heatmap cell resting on too few observations (a profile cell on fewer than
#: :data:`korean_eval.lens.profile.MIN_SUPPORT` morphemes, a probe cell on fewer than
#: :data:`korean_eval.lens.probe.MIN_PROBE_SEGMENTS` segments), here and on the dashboard.
SMALL_FILL = "#E6E6E6"
SMALL_TEXT = "#6B6B6B"


def small_support_layer(grey: np.ndarray, text: Sequence[Sequence[str]], hover: Sequence[Sequence[str]], x, y,
                        font: dict, gap: int) -> dict:
    """A heatmap trace that covers the cells of ``grey`` (True: too few observations) in :data:`SMALL_FILL` with
    their text in :data:`SMALL_TEXT` and their hover boxes; drawn over the value heatmap, whose colour scale should
    leave those cells out and whose text should be blank there (:func:`text_outside`)."""
    return dict(
        type="heatmap", z=np.where(grey, 1.0, np.nan), x=x, y=y, showscale=False,
        colorscale=[[0, SMALL_FILL], [1, SMALL_FILL]], xgap=gap, ygap=gap, hoverongaps=False,
        text=[[t if g else "" for t, g in zip(tr, gr, strict=True)] for tr, gr in zip(text, grey, strict=True)],
        texttemplate="%{text}", textfont={**font, "color": SMALL_TEXT}, customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", name="too few to read",
    )


def text_outside(text: Sequence[Sequence[str]], grey: np.ndarray) -> list[list[str]]:
    """``text`` blank in the cells of ``grey`` (their text is drawn by :func:`small_support_layer`)."""
    return [[t if not g else "" for t, g in zip(tr, gr, strict=True)] for tr, gr in zip(text, grey, strict=True)]


def lens_profile_figure(profile: pd.DataFrame) -> go.Figure:
    """The Korean lens's error profile: F1 of each system's morphemes per category (``profile``: the lens's
    ``profile.csv``), the lowest darkest; a cell whose F1 rests on fewer than
    :data:`~korean_eval.lens.profile.MIN_SUPPORT` morphemes (:func:`korean_eval.lens.profile.small_support`, the
    dashboard's rule) covered by a grey layer and out of the colour scale; every cell's counts in its hover box."""
    from korean_eval.lens.pos_categories import CATEGORIES, CATEGORY_LABELS
    from korean_eval.lens.profile import ALL, MIN_SUPPORT, small_support

    whole = profile[profile["subcategory"] == ALL]
    systems = list(dict.fromkeys(whole["system"]))
    cells = whole.set_index(["system", "category"])
    small = small_support(cells, "f1")
    z = np.full((len(systems), len(CATEGORIES)), np.nan)
    grey = np.zeros(z.shape, bool)
    text = [["" for _ in CATEGORIES] for _ in systems]
    hover = [["" for _ in CATEGORIES] for _ in systems]
    for i, system in enumerate(systems):
        for j, category in enumerate(CATEGORIES):
            if (system, category) not in cells.index:
                continue
            r = cells.loc[(system, category)]
            z[i, j], grey[i, j] = r["f1"], bool(small.loc[(system, category)])
            text[i][j] = f"{r['f1']:.3f}" if np.isfinite(r["f1"]) else "–"
            hover[i][j] = (f"{esc(system)} · {CATEGORY_LABELS[category]}<br>F1 {text[i][j]} over "
                           f"{int(r['hyp']):,} hypothesis and {int(r['ref']):,} reference morphemes "
                           f"({int(r['matched']):,} matched)"
                           + (f"<br>fewer than {MIN_SUPPORT} morphemes: too few to read" if grey[i, j] else ""))
    readable = np.where(grey, np.nan, z)  # the colour scale spans these; grey cells are covered by a layer
    finite = readable[np.isfinite(readable)]
    columns = [CATEGORY_LABELS[c].replace(" ", "<br>", 1) for c in CATEGORIES]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(len(CATEGORIES))), y=list(range(len(systems))), colorscale="Blues_r",
        zmin=min(float(finite.min()) if finite.size else 0.0, 0.999), zmax=1,
        text=text_outside(text, grey), texttemplate="%{text}", textfont=dict(size=MIN_TEXT + 1), customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", hoverongaps=False, xgap=2, ygap=2,
        colorbar=dict(title=dict(text="F1"), thickness=12)))
    if grey.any():
        fig.add_trace(go.Heatmap(small_support_layer(grey, text, hover, list(range(len(CATEGORIES))),
                                                     list(range(len(systems))), dict(size=MIN_TEXT + 1), 2)))
    _every_tick(fig, "x", range(len(CATEGORIES)), columns)
    _every_tick(fig, "y", range(len(systems)), [esc(s) for s in systems])
    fig.update_xaxes(title_text="morpheme category (Kiwi's Sejong tags)")
    fig.update_yaxes(autorange="reversed", title_text="system")
    return _layout(fig, "Error profile: F1 of the morphemes per category (darker = lower; grey: too few morphemes)",
                   190 + 40 * len(systems))


def lens_probe_figure(summary: pd.DataFrame) -> go.Figure:
    """Which metric × level notices which perturbation of the references (``summary``: the lens's ``probe.csv``):
    the mean penalty relative to dropping a content eojeol (1 = as severe, 0 = not noticed, below 0 = rewarded), on
    a diverging scale centred on 0; the segments each cell rests on in its hover box, and a cell resting on fewer
    than :data:`~korean_eval.lens.probe.MIN_PROBE_SEGMENTS` covered by a grey layer and out of the colour scale."""
    from korean_eval.lens.perturb import KIND_LABELS, KIND_SHORT_LABELS, KINDS
    from korean_eval.lens.probe import MIN_PROBE_SEGMENTS

    kinds = [k for k in KINDS if k in set(summary["kind"])]
    configs = list(dict.fromkeys(zip(summary["metric"], summary["level"], strict=True)))
    cells = summary.set_index(["kind", "metric", "level"])
    z = np.array([[cells["relative_to_drop"].get((k, m, lv), np.nan) for k in kinds] for m, lv in configs], float)
    applied = np.array([[cells["applied"].get((k, m, lv), 0) for k in kinds] for m, lv in configs], int)
    grey = applied < MIN_PROBE_SEGMENTS
    hover = [[f"{KIND_LABELS[k]}<br>{esc(metric_label(m))} at {esc(lv)}: {z[i, j]:.2f} × a dropped content eojeol"
              f"<br>{applied[i, j]:,} segments perturbed"
              + (f"<br>fewer than {MIN_PROBE_SEGMENTS} segments: too few to read" if grey[i, j] else "")
              for j, k in enumerate(kinds)] for i, (m, lv) in enumerate(configs)]
    readable = np.where(grey, np.nan, z)  # the colour scale spans these; grey cells are covered by a layer
    finite = np.abs(readable[np.isfinite(readable)])
    span = float(finite.max()) if finite.size else 1.0
    text = [[f"{v:.2f}" if np.isfinite(v) else "–" for v in row] for row in z]
    x, y = list(range(len(kinds))), list(range(len(configs)))
    fig = go.Figure(go.Heatmap(
        z=readable, x=x, y=y, colorscale="RdBu_r", zmid=0, zmin=-span, zmax=span, text=text_outside(text, grey),
        texttemplate="%{text}", textfont=dict(size=MIN_TEXT), customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", hoverongaps=False, xgap=1, ygap=1,
        colorbar=dict(title=dict(text="× drop"), thickness=12)))
    if grey.any():
        fig.add_trace(go.Heatmap(small_support_layer(grey, text, hover, x, y, dict(size=MIN_TEXT), 1)))
    _every_tick(fig, "x", range(len(kinds)), [KIND_SHORT_LABELS[k] for k in kinds])
    _every_tick(fig, "y", range(len(configs)), [f"{esc(metric_label(m))} · {esc(lv)}" for m, lv in configs])
    fig.update_xaxes(title_text="perturbation of the reference", tickangle=0)
    fig.update_yaxes(autorange="reversed", title_text="metric · token level")
    return _layout(fig, "Which metric × level notices which error (penalty relative to dropping a content eojeol; "
                        f"grey: fewer than {MIN_PROBE_SEGMENTS} segments)",
                   260 + 26 * len(configs))
