"""The Korean lens page's "Error spans" section (docs/design.md §5, "Which errors each configuration notices"):
MQM category × Korean category, and which MQM categories each metric × level tracks
(:mod:`korean_eval.lens.span_detection`); the figures are pure Plotly, the computation is cached per result in
:mod:`ui.state`'s statistics store; :func:`spans_section` draws the section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from korean_eval.lens.span_category import SPAN_CATEGORIES
from korean_eval.model.evalset import EvalSet
from ui import display_tables, state, statistics_state
from ui.charts import base_layout, esc, labelled_axis
from ui.figures import figure, merge
from ui.lens_charts import CELL_FONT
from ui.views import metric_label
from ui.widgets import chart, fit_table, md_escape


def span_analysis(ctx: state.Context) -> dict[str, pd.DataFrame]:
    """:func:`korean_eval.lens.span_detection.span_tables` of the current result (cached; {} without spans)."""
    from korean_eval.lens.span_detection import span_tables

    return statistics_state.cached_table(
        ctx, "error_spans", "Mapping the error spans onto Kiwi's morphemes…",
        lambda: span_tables(ctx.results, ctx.evalset.systems, "pearson", statistics_state.N_RESAMPLES, statistics_state.SEED,
                            state.disk_cache()),
    )


def category_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """MQM category (rows) × Korean category (columns, the span categories' order; then the spans without one)."""
    pivot = table.pivot_table(index="mqm_category", columns="korean_category", values="spans", aggfunc="sum",
                              fill_value=0)
    known = [c for c in SPAN_CATEGORIES if c in pivot.columns]
    return pivot[known + sorted(c for c in pivot.columns if c not in known)]


def _heatmap(matrix: pd.DataFrame, fmt: str, colorscale: str, label: str, axes: tuple[str, str], height: int,
             title: str, zmid: float | None = None) -> go.Figure:
    """``matrix`` as a heatmap with its value in every cell, every row and column labelled; ``axes``: the titles of
    the x and y axes."""
    z = matrix.to_numpy(float)
    columns, rows = [esc(c) for c in matrix.columns], [esc(r) for r in matrix.index]
    heatmap = dict(
        type="heatmap", z=z, x=columns, y=rows, colorscale=colorscale, zmid=zmid,
        text=[[format(v, fmt) if np.isfinite(v) else "–" for v in row] for row in z], texttemplate="%{text}",
        textfont=CELL_FONT, hovertemplate="%{y}<br>%{x}<br>" + label + ": %{z}<extra></extra>",
        colorbar=dict(title=dict(text=label), thickness=12), xgap=2, ygap=2,
    )
    layout = dict(
        yaxis=merge(dict(autorange="reversed", title=dict(text=axes[1])), labelled_axis(rows)),
        xaxis=merge(dict(title=dict(text=axes[0])), labelled_axis(columns, angle=-30)),
    )
    return figure([heatmap], base_layout(layout, height, title, legend=False))


def category_heatmap(matrix: pd.DataFrame) -> go.Figure:
    return _heatmap(matrix, ".0f", "Blues", "spans", ("Korean category of the span (Kiwi morphemes)", "MQM category"),
                    200 + 34 * len(matrix), "Error spans: MQM category × Korean category")


def tracking_matrix(correlations: pd.DataFrame) -> pd.DataFrame:
    """Configuration (``metric@level``) × MQM category of the correlations with the negated penalties."""
    df = correlations.assign(config=[f"{metric_label(m)}@{lv}" for lv, m in
                                     zip(correlations["level"], correlations["metric"], strict=True)])
    return df.pivot_table(index="config", columns="mqm_category", values="value", sort=False)


def tracking_heatmap(matrix: pd.DataFrame) -> go.Figure:
    return _heatmap(matrix, ".2f", "RdBu", "r with −penalty",
                    ("MQM category (its penalty per segment, negated)", "metric @ token level"), 200 + 30 * len(matrix),
                    "Which errors each configuration tracks (Pearson, segment level; error rates sign-flipped)",
                    zmid=0.0)


def tracking_lines(correlations: pd.DataFrame) -> list[str]:
    """:func:`korean_eval.lens.span_detection.tracking_sentences` with the dashboard's metric labels."""
    from korean_eval.lens.span_detection import tracking_sentences

    return tracking_sentences(correlations, lambda level, metric: f"{metric_label(metric)} at {level}")


def spans_section(evalset: EvalSet) -> None:
    """The page section: the MQM × Korean category heatmap and table, and the tracking heatmap, sentences and
    table (or why there is nothing to show)."""
    if evalset.spans is None or evalset.spans.empty:
        st.info("These data have no error spans: load MQM or ESA ratings (a .seg.rating file, a Google MQM TSV, or "
                "a layout .zip with rating files) on the Data page.")
        return
    spans = span_analysis(state.context())
    st.markdown("**MQM category × Korean category** — each span mapped onto the hypothesis's Kiwi morphemes")
    chart(category_heatmap(category_matrix(spans["error_categories.csv"])), "lens-spans")
    st.caption(
        "Korean categories (lens.span_category): the category of the first content, foreign or number morpheme "
        "the span touches, else of most touched morphemes; spacing for a missing or inserted space, omission "
        "for an empty span. '(none): …' = source errors, spans without offsets, offsets that do not fit."
    )
    categories = spans["error_categories.csv"]
    fit_table(display_tables.readable(categories), height=480 if len(categories) > 12 else None)
    correlations = spans["category_correlations.csv"]
    chart(tracking_heatmap(tracking_matrix(correlations)), "lens-spans-tracking")
    st.markdown("\n".join(f"- {md_escape(line)}" for line in tracking_lines(correlations)))
    st.caption(
        "Per metric × token level and MQM category: Pearson correlation of the metric's segment scores with the "
        "category's penalty per segment (mean over raters, negated; error rates sign-flipped), over the (system, "
        "segment) pairs with both, with bootstrap 95% intervals in the table. Descriptive: one segment holds "
        "errors of several categories."
    )
    with st.expander("Correlations with each category's penalty (table)"):
        fit_table(display_tables.readable(correlations), height=480 if len(correlations) > 12 else None)
