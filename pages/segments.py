"""Segments: metric vs human score per segment, and the segments where they disagree most."""

import pandas as pd
import streamlit as st

from ui import charts, state, views
from ui.widgets import chart, human_note

state.enter_page("pages/segments.py")
ctx = state.context()
res = ctx.results

st.title("Segments")
human_note(ctx.evalset)
if not ctx.has_human:
    st.info("These data have no human scores: the per-segment comparison needs them (Data page).")
    st.stop()

levels = views.ordered_levels(res.segment_scores["level"].unique())
metrics = views.ordered_metrics(res)
c1, c2 = st.columns(2)
level = c1.selectbox("Token level", levels, key="seg_level", persist_state="session")
metric = c2.selectbox("Metric", metrics, format_func=views.metric_label, key="seg_metric", persist_state="session")

table = views.disagreements(res, ctx.evalset, level, metric)
if table.empty:
    st.info("No segment has both a metric and a human score at this level.")
    st.stop()
view = views.correlation_view(res, ctx.settings.statistic, "none", agreement=False)
row = view[(view["granularity"] == "segment") & (view["level"] == level) & (view["metric"] == metric)]
note = ""
if len(row) and pd.notna(row["value"].iloc[0]):
    note = f"{views.SYMBOLS[ctx.settings.statistic]} = {row['value'].iloc[0]:.3f} over {int(row['n'].iloc[0]):,} pairs"
chart(charts.segment_scatter(table, views.metric_label(metric), level, note=note), f"segments-{level}-{metric}")
st.caption("Each point is one (system, segment) pair. Hover a point to read the hypothesis and the reference.")

st.subheader("Largest disagreements")
st.caption(
    "Both scores are turned into percentile ranks over these pairs (an error rate such as TER on its negation, so "
    "high = good for both). **difference** = metric percentile − human percentile: positive means the metric "
    "likes the segment more than the humans did. Click a column header to sort."
)
st.dataframe(
    table.drop(columns=["abs_difference"]).head(500),
    hide_index=True,
    width="stretch",
    column_config={
        "human": st.column_config.NumberColumn(format="%.2f"),
        "metric": st.column_config.NumberColumn(views.metric_label(metric), format="%.2f"),
        "metric_pct": st.column_config.NumberColumn("metric pct", format="%.2f"),
        "human_pct": st.column_config.NumberColumn("human pct", format="%.2f"),
        "difference": st.column_config.NumberColumn("difference", format="%+.2f"),
        "hyp": st.column_config.TextColumn("hypothesis", width="large"),
        "ref": st.column_config.TextColumn("reference", width="large"),
    },
)
