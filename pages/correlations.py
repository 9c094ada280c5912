"""Correlations: agreement of every metric × token level with the human scores, segment and system level."""

import streamlit as st

from ui import charts, state, views
from ui.widgets import chart, human_note, md_escape

state.enter_page("pages/correlations.py")
ctx = state.context()
res, s = ctx.results, ctx.settings

st.title("Correlation with human judgments")
st.caption(
    "How closely each metric follows the human scores when the Korean text is cut into tokens in different ways. "
    "Bars are coloured by token family; ★ marks each metric's best level. Hover a bar for its value, "
    "n and signature."
)
human_note(ctx.evalset)
if state.is_sample():
    st.page_link("pages/data.py", label="Showing the bundled sample. Load your own files on the Data page →", icon=":material/upload_file:")
if not ctx.has_human:
    st.info("These data have no human scores, so there is nothing to correlate. Add human scores on the Data page.")
    st.stop()

agree = st.toggle(
    "Show error rates as agreement (plot −TER)",
    value=True,
    key="corr_agree",
    persist_state="session",
    help="TER is an error rate: it correlates negatively with humans when it agrees with them. With this on, "
    "its correlation is negated and labelled −TER, so a taller bar always means better agreement.",
)
ci = st.toggle(
    "95% confidence intervals (bootstrap over segments, 1000 resamples)",
    value=False,
    key="corr_ci",
    persist_state="session",
    help="Percentile bootstrap: segments are resampled with all their systems; system scores are recomputed from the "
    "summed statistics of each resample. Takes a few seconds the first time.",
)
with_ci = state.correlations_with_ci(ctx) if ci else None
if ci and with_ci is None:
    st.caption("Confidence intervals need korean_eval.significance, which is not installed here.")
view = views.correlation_view(res, s.statistic, s.grouping, agreement=agree, correlations=with_ci)
top = views.headline(view)
symbol = views.STATISTIC_SYMBOLS[s.statistic]
cards = st.columns(3)
for col, gran in zip(cards[:2], ("segment", "system"), strict=True):
    if gran in top:
        t = top[gran]
        col.metric(
            f"Best agreement, {gran} level",
            f"{md_escape(t['metric'])} at {t['level']}",
            delta=f"{symbol} = {t['value']:.3f}",
            delta_color="off",
            delta_arrow="off",
            border=True,
        )
if "spread" in top:
    t = top["spread"]
    cards[2].metric(
        "Token level matters most for",
        md_escape(t["metric"]),
        delta=f"{symbol} {t['low']:.2f} ({t['low_level']}) → {t['high']:.2f} ({t['high_level']})",
        delta_color="off",
        delta_arrow="off",
        border=True,
    )
left, right = st.columns(2, gap="medium")
with left:
    chart(charts.correlation_bars(view, "segment", s.statistic, f"grouping: {s.grouping}"), "correlation-segment")
with right:
    chart(charts.correlation_bars(view, "system", s.statistic), "correlation-system")

best = views.best_level_sentences(res, s.statistic, s.grouping)
n_sys = len(res.systems)
b1, b2 = st.columns(2, gap="medium")
with b1:
    st.markdown("**Best token level per metric, segment level**")
    st.markdown("\n".join(f"- {md_escape(line)}" for line in best["segment"]) or "–")
    seg_n = view.loc[view["granularity"] == "segment", "n"]
    st.caption(
        f"Segment level: {views.STATISTIC_LABELS[s.statistic]} over "
        f"{int(seg_n.max()) if len(seg_n) else 0:,} (system, segment) pairs with a human score; "
        f"grouping “{s.grouping}”: {views.GROUPING_LABELS[s.grouping]}."
    )
with b2:
    st.markdown("**Best token level per metric, system level**")
    st.markdown("\n".join(f"- {md_escape(line)}" for line in best["system"]) or "–")
    st.caption(
        f"System level: each system's corpus score against its mean human score — {n_sys} systems, so each "
        f"correlation rests on {n_sys} points; read it as indicative."
    )

notes = []
if any(not views.higher_is_better(m) for m in view["metric"].unique()):
    notes.append(
        "**TER is an error rate**: a *negative* correlation means agreement with the humans. "
        + ("The charts plot −TER (the sign flipped) so that taller bars mean better agreement for every metric."
           if agree else "The charts show TER's correlation as computed (negative = agreement).")
    )
if any(m.startswith("chrf") for m in view["metric"].unique()):
    notes.append(
        "**Plain chrF ignores whitespace**, so re-tokenising only changes it where a tokenizer changes the characters "
        "themselves (lemmatising analyzers such as Kiwi, and jamo). chrF+ and chrF++ add token n-grams, which do change."
    )
for line in notes:
    st.markdown(line)

with st.expander("Is one configuration significantly better than another?", icon=":material/balance:"):
    try:
        from korean_eval import significance
    except ImportError:
        significance = None
        st.caption("Needs korean_eval.significance, which is not installed here.")
    if significance is not None:
        configs = [f"{lv}/{m}" for lv, m in zip(view["level"], view["metric"], strict=True)]
        configs = list(dict.fromkeys(configs))

        def _label(config: str) -> str:
            level, metric = config.split("/", 1)
            return f"{views.metric_label(metric)} at {level}"

        k1, k2, k3 = st.columns([2, 2, 1])
        a = k1.selectbox("Configuration A", configs, format_func=_label, key="cmp_a", persist_state="session")
        b = k2.selectbox("Configuration B", configs, index=min(1, len(configs) - 1), format_func=_label, key="cmp_b",
                         persist_state="session")
        gran = k3.radio("Level", ["segment", "system"], key="cmp_gran", persist_state="session")
        if a == b:
            st.caption("Pick two different configurations.")
        else:
            verdict = significance.compare_two(res, a, b, statistic=s.statistic, granularity=gran, grouping=s.grouping)
            (st.success if verdict["significant"] else st.info)(md_escape(verdict["sentence"]))
            st.caption(
                "One-sided Williams test (ungrouped correlations) and paired permutation test over the points both "
                "share; error rates are compared by their agreement (−r)."
            )

with st.expander("Overview grid and numbers"):
    g1, g2 = st.columns(2)
    with g1:
        chart(charts.correlation_heatmap(view, "segment", s.statistic), "correlation-grid-segment")
    with g2:
        chart(charts.correlation_heatmap(view, "system", s.statistic), "correlation-grid-system")
    st.dataframe(
        view[["granularity", "grouping", "level", "family", "metric_label", "statistic", "value", "ci_low", "ci_high", "n", "signature"]],
        hide_index=True,
        column_config={
            "metric_label": "metric",
            "value": st.column_config.NumberColumn("correlation", format="%.4f"),
            "ci_low": st.column_config.NumberColumn(format="%.4f"),
            "ci_high": st.column_config.NumberColumn(format="%.4f"),
        },
    )
for note in res.notes:
    st.caption(md_escape(note))
