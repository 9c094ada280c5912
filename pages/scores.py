"""Scores & rankings: raw system scores per level × metric beside the human mean (the study's Table 4)."""

import pandas as pd
import streamlit as st

from ui import charts, state, views
from ui.widgets import chart, human_note, md_escape

state.enter_page("pages/scores.py")
ctx = state.context()
res = ctx.results
metrics = views.ordered_metrics(res)

st.title("System scores and rankings")
st.warning(
    "Raw scores are **not comparable across token levels**: the same translations get a far higher BLEU on "
    "characters or jamo than on words, because short tokens match more often. Compare systems *within* a column; "
    "compare levels only through their agreement with humans (Correlations page).",
    icon=":material/warning:",
)
human_note(ctx.evalset)


def _style(scores: pd.DataFrame, ranks: pd.DataFrame, differs: pd.DataFrame):
    """Cells "score (rank)"; a cell whose rank differs from the human rank is highlighted."""
    text = scores.copy().astype(object)
    for col in scores.columns:
        text[col] = [
            "–" if pd.isna(v) else f"{v:.2f}  ({int(r)})" if pd.notna(r) else f"{v:.2f}"
            for v, r in zip(scores[col], ranks[col], strict=True)
        ]
    css = differs.replace({True: "background-color: #FDE2E1; color: #A61B1B; font-weight: 600", False: ""})
    return text.style.apply(lambda _: css, axis=None)


st.subheader("System scores per token level")
st.caption(
    "Each cell: system score (its rank among the systems, 1 = best). **Red cells**: the metric ranks that system "
    "differently from the humans. The Human column is the mean human score over each system's scored segments. "
    "System scores come from statistics summed over the corpus, not from averaging segment scores."
)
tabs = st.tabs([views.metric_label(m) for m in metrics])
for tab, metric in zip(tabs, metrics, strict=True):
    with tab:
        scores, ranks, differs = views.score_table(res, metric)
        st.dataframe(_style(scores, ranks, differs), width="stretch")
        if not views.higher_is_better(metric):
            st.caption(f"{md_escape(views.metric_label(metric))} is an error rate: lower is better, rank 1 = lowest.")

st.subheader("Rankings: humans vs metric")
has_ranks = res.human_systems["human_rank"].notna().any()
if not has_ranks:
    st.info("No human scores: rankings against humans need them (Data page).")
else:
    metric = st.selectbox(
        "Metric", metrics, format_func=views.metric_label, key="rank_metric", persist_state="session"
    )
    chart(charts.bump_chart(views.rank_paths(res, metric), views.metric_label(metric)), "ranking")
    st.caption(
        "Each line is a system: its rank by the humans (left), then by the metric at each token level. "
        "Open red rings: the metric's rank differs from the human rank."
    )

    st.subheader("Flipped system pairs")
    n = len(res.systems)
    counts = views.flip_counts(res)
    chart(charts.flip_heatmap(counts, n * (n - 1) // 2), "flipped-pairs")
    flips = views.flips_table(res)
    if flips.empty:
        st.success("No metric at any level orders a pair of systems against the humans.")
    else:
        pick = st.multiselect(
            "Show pairs of",
            list(counts.index),
            default=list(counts.index),
            key="flip_metrics",
        )
        st.dataframe(
            flips[flips["metric"].isin(pick)],
            hide_index=True,
            column_config={c: st.column_config.NumberColumn(format="%.2f") for c in ["human a", "human b", "metric a", "metric b"]},
        )

with st.expander("Signatures (cite these with the numbers)", icon=":material/fingerprint:"):
    st.dataframe(views.signatures_table(res), hide_index=True, width="stretch")
