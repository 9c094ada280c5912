"""The ranking check on the Scores & rankings page (with or without human scores): each configuration's order of
the systems with significance clusters, the rank movement across levels and metrics, the paired tests, and the
system pairs the metric × level choice decides, with their segments."""

from __future__ import annotations

import streamlit as st

from korean_eval.metaeval.tables.system_ranking import split_segments
from korean_eval.model.vocabulary import config_name
from ui import ranking_charts, ranking_state, ranking_views, views
from ui.state import Context
from ui.widgets import chart, csv_button, fit_table, md_escape

#: Segments listed under a split pair.
MAX_SEGMENTS = 20


def draw(ctx: Context) -> None:
    """The whole ranking-check section."""
    res = ctx.results
    if len(res.systems) < 2:
        st.info("The ranking check compares systems: these data have only one system.")
        return
    tables = ranking_state.ranking_checks(ctx)
    ranking, pairs, splits = tables["system_ranking.csv"], tables["metric_pairs.csv"], tables["order_splits.csv"]
    settings = ranking_state.SETTINGS
    how = settings.describe(len(res.seg_ids))
    metrics = views.ordered_metrics(res)
    configs = ranking_views.ordered_configs(ranking, metrics)

    st.subheader("Ranking check: which systems are significantly apart")
    st.caption(
        "For every metric × token level: the systems best first, each with its 95% bootstrap interval, and "
        "significance clusters (WMT's rule: walking down the order, a system starts a new cluster when a system "
        "of the current cluster is significantly better). Systems in one cluster tie: their order is not "
        f"established by these data. {how} Tests as sacrebleu's `--paired-bs` / `--paired-ar` define them, on every "
        "pair of systems."
    )
    shown = st.multiselect("Metrics in the chart", metrics, default=metrics, format_func=views.metric_label,
                           key="ranking_metrics")
    paths = ranking_views.movement(ranking, [c for c in configs if c.split("/", 1)[1] in (shown or metrics)])
    chart(ranking_charts.rank_movement_chart(paths, "How each system's rank moves across token levels and metrics"),
          "rank-movement")
    st.caption("Filled dot: the system is significantly apart at that rank; open ring: it ties with another "
               "system (same cluster). Hover for the score, its interval and the cluster.")

    left, right = st.columns(2)
    metric = left.selectbox("Metric", metrics, format_func=views.metric_label, key="ranking_metric")
    levels = [c.split("/", 1)[0] for c in configs if c.split("/", 1)[1] == metric]
    level = right.selectbox("Token level", levels, key="ranking_level")
    label = ranking_views.config_title(config_name(level, metric))
    st.markdown(f"**{md_escape(label)}:** {md_escape(ranking_views.cluster_sentence(ranking, level, metric))}")
    st.caption("`>` a significant step, `≈` a tie (same cluster)."
               + ("" if res.higher_is_better(metric, level) else
                  f" {md_escape(views.metric_label(metric))} is an error rate: lower is better, rank 1 = lowest."))
    fit_table(ranking_views.ranking_text(ranking, level, metric))
    st.markdown(f"**Every pair of systems under {md_escape(label)}**")
    fit_table(ranking_views.pairs_text(pairs, level, metric), height=420 if len(res.systems) > 6 else None)
    st.caption(f"Δ = score of system a − of system b (its interval: the 2.5th and 97.5th percentiles of the "
               f"resampled differences); p: two-sided p-value of “no difference”. {how}")
    csv_button(pairs, "metric_pairs.csv", f"All {len(pairs):,} tested pairs (every configuration) as CSV",
               key="dl_metric_pairs")
    csv_button(ranking, "system_ranking.csv", "Every configuration's ranking with intervals and clusters as CSV",
               key="dl_system_ranking")
    _splits(ctx, splits)


def _splits(ctx: Context, splits) -> None:
    """The system pairs some configurations order one way and others the other way, and a pair's segments."""
    res = ctx.results
    st.subheader("Where the metric × level choice changes the order")
    split = ranking_views.splits_text(splits)
    if split.empty:
        st.success(f"Every configuration orders every pair of the {len(res.systems)} systems the same way.")
        return
    st.caption(f"{len(split)} of {len(splits)} system pairs are ordered one way by some configurations and the "
               "other way by others (how many of each side are significant in brackets).")
    fit_table(split, height=360 if len(split) > 10 else None)
    csv_button(splits, "order_splits.csv", "Every pair's split as CSV", key="dl_order_splits")
    rows = splits[(splits["prefer_a"] > 0) & (splits["prefer_b"] > 0)].reset_index(drop=True)
    pick = st.selectbox("Pair", range(len(rows)), format_func=lambda i: f"{rows.loc[i, 'system_a']} vs "
                        f"{rows.loc[i, 'system_b']}", key="split_pair")
    row = rows.loc[pick]
    a, b = row["system_a"], row["system_b"]
    side_a, side_b = row["configs_a"].split(), row["configs_b"].split()
    left, right = st.columns(2)
    first = left.selectbox(f"A configuration preferring {a}", side_a, format_func=ranking_views.config_title,
                           key="split_first")
    second = right.selectbox(f"A configuration preferring {b}", side_b, format_func=ranking_views.config_title,
                             key="split_second")
    segments = split_segments(res, a, b, first, second, limit=MAX_SEGMENTS)
    data = ctx.evalset
    if segments.empty:
        st.info("No single segment pulls the two configurations in opposite directions: the split comes from the "
                "corpus-level aggregation (e.g. BLEU's brevity penalty or n-gram counts summed over segments).")
        return
    n = len(res.seg_ids)
    refs = data.refs[0] if data.refs else [""] * n  # scores given without texts: no texts to show
    text = ranking_views.split_segments_text(segments, refs, data.systems.get(a) or [""] * n,
                                             data.systems.get(b) or [""] * n, list(res.seg_ids))
    text = text.rename(columns={"Δ first": f"Δ {ranking_views.config_title(first)}",
                                "Δ second": f"Δ {ranking_views.config_title(second)}",
                                "system a": a, "system b": b})
    st.markdown(f"**Segments where {md_escape(ranking_views.config_title(first))} prefers one system and "
                f"{md_escape(ranking_views.config_title(second))} the other** (strongest first)")
    fit_table(text, height=480 if len(text) > 8 else None)
    st.caption(f"Δ: segment score of {md_escape(a)} − of {md_escape(b)}, sign-adjusted (positive: that "
               "configuration prefers the first system; an error rate's difference is negated). Strength: the "
               "smaller of the two differences in standard deviations of its configuration's differences.")
