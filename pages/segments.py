"""Segments: metric vs human score per segment, and the segments where they disagree most."""

import pandas as pd
import streamlit as st

from ui import charts, display_tables, state, views
from ui.widgets import chart, csv_button, fit_table, human_note

state.enter_page("pages/segments.py")
ctx = state.context()
res = ctx.results

#: Default minimum reference length (characters, spaces not counted) of the disagreement table: shorter segments
#: (greetings, "네.") swing to either end of a percentile ranking with one token.
MIN_CHARS = 10

st.title("Segments")
human_note(ctx.evalset)
if not ctx.has_human:
    st.info("These data have no human scores: the per-segment comparison with humans needs them (Data page). The "
            "segments on which two metric × level configurations prefer different systems need none:",
            icon=":material/person_off:")
    st.page_link("pages/scores.py", label="Where the metric × level choice changes the order →",
                 icon=":material/leaderboard:")
    st.stop()

levels = views.ordered_levels(res.segment_scores["level"].unique())
metrics = views.ordered_metrics(res)
c1, c2 = st.columns(2)
level = c1.selectbox("Token level", levels, key="seg_level", persist_state="session")
metric = c2.selectbox("Metric", metrics, format_func=views.metric_label, key="seg_metric", persist_state="session")

full = views.disagreements(res, ctx.evalset, level, metric)
if full.empty:
    st.info("No segment has both a metric and a human score at this level.")
    st.stop()
systems = list(dict.fromkeys(ctx.evalset.system_names))
shown_systems = st.multiselect(
    "Systems shown", systems, default=systems, key="seg_systems",
    help="The systems drawn in the scatter plot and listed in the table below (percentiles stay those of all pairs).",
)
view = views.correlation_view(res, ctx.settings.statistic, "none", agreement=False)
row = view[(view["granularity"] == "segment") & (view["level"] == level) & (view["metric"] == metric)]
note = ""
if len(row) and pd.notna(row["value"].iloc[0]):
    note = f"{views.SYMBOLS[ctx.settings.statistic]} = {row['value'].iloc[0]:.3f} over {int(row['n'].iloc[0]):,} pairs"
picked, _ = display_tables.disagreement_filter(full, 0, shown_systems)
chart(charts.segment_scatter(picked, views.metric_label(metric), level, note=note), f"segments-{level}-{metric}")
st.caption(
    "Each point is one (system, segment) pair. Hover a point to read the hypothesis and the reference; click a "
    "system in the legend to hide it, double-click to show it alone."
)

st.subheader("Largest disagreements")
st.caption(
    "Both scores are turned into percentile ranks over all pairs (an error rate such as TER on its negation, so "
    "high = good for both). **difference** = metric percentile − human percentile: positive means the metric "
    "likes the segment more than the humans did."
)
has_texts = bool(ctx.evalset.refs)
f1, f2 = st.columns(2)
min_chars = f1.number_input(
    "Minimum reference length (characters, spaces not counted)", min_value=0, max_value=500, value=MIN_CHARS if has_texts else 0,
    step=5, key="seg_min_chars", disabled=not has_texts,
    help="Very short segments (greetings, one-word answers) jump to either end of a percentile ranking with a "
    "single token, so they crowd the top of this list; 0 shows every segment.",
)
rows = f2.number_input("Rows shown", min_value=5, max_value=200, value=25, step=5, key="seg_rows")
kept, short = display_tables.disagreement_filter(full, int(min_chars), shown_systems)
fit_table(display_tables.disagreement_text(kept.head(int(rows)), metric), height=720 if rows > 10 else None)
st.caption(
    f"{min(int(rows), len(kept)):,} of {len(kept):,} pairs, most disagreeing first"
    + (f"; {short:,} pair(s) with a reference shorter than {int(min_chars)} characters left out" if short else "")
    + "."
)
csv_button(full.drop(columns=["abs_difference"]), f"disagreements_{level}_{metric}.csv",
           f"Every pair with its percentiles ({len(full):,} rows) as CSV")
