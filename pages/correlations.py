"""Correlations: agreement of every metric × token level with the human scores, segment and system level."""

import streamlit as st

from korean_eval.metaeval.tables.degenerate import degenerate_notes
from korean_eval.model import vocabulary as vocab
from ui import ceiling, display_tables, grid_charts, headlines, state, statistics_state, views
from ui import correlation_sections as sections
from ui import significance_views as sig_views
from ui.widgets import fit_table, human_note, md_escape

state.enter_page("pages/correlations.py")
ctx = state.context()
res, s = ctx.results, ctx.settings

st.title("Correlation with human judgments")
st.caption(
    "How closely each metric follows the human scores when the Korean text is cut into tokens in different ways. "
    "Bars are coloured by token family; few configurations are drawn as bars, many as a metric × level grid. "
    "Outlined, with bold values: the top significance cluster. Hover for the value, its CI, n and signature."
)
human_note(ctx.evalset)
if state.is_sample():
    st.page_link("pages/data.py", label="Showing the bundled sample. Load your own files on the Data page →", icon=":material/upload_file:")
if not ctx.has_human:
    st.info("These data have no human scores: correlations with humans need them (add them on the Data page). "
            "Which systems each metric × level separates needs none:", icon=":material/person_off:")
    st.page_link("pages/scores.py", label="The ranking check on Scores & rankings →", icon=":material/leaderboard:")
    st.stop()

agree = st.toggle(
    "Show error rates as agreement (plot −TER)",
    value=True,
    key="corr_agree",
    persist_state="session",
    help="TER is an error rate: it correlates negatively with humans when it agrees with them. With this on, "
    "its correlation is negated and labelled −TER, so a taller bar always means better agreement.",
)
follows = st.segmented_control(
    "Headline and charts follow",
    list(headlines.HEADLINE_CHOICES),
    default="chart",
    required=True,
    format_func=headlines.HEADLINE_CHOICES.get,
    key="headline_follows",
    persist_state="session",
    help="Which statistic the two headline cards rank the configurations by — and the charts beneath them draw, so "
    "that every number of a card is on its chart: the sidebar's statistic and grouping, acc_eq grouped by item at the "
    "segment level (tie-calibrated pairwise accuracy over the system pairs of each segment: WMT's official "
    "segment-level statistic), SPA at the system level (soft pairwise accuracy), or both — what the WMT25 metrics "
    "task ranks by. A card names a best configuration only when its significance test separates it from the next; "
    "otherwise it says which tie at the top, or that the test cannot separate them at all.",
)
plotted = headlines.plotted_statistics(follows or "chart", s.statistic, s.grouping)  # per granularity: card = chart
seg_plot, sys_plot = plotted["segment"], plotted["system"]
shown = tuple(sorted({seg_plot.statistic, sys_plot.statistic}))  # the statistics the charts draw, with their intervals
ci = st.toggle(
    "95% confidence intervals (bootstrap over segments, 1000 resamples)",
    value=statistics_state.intervals_by_default(ctx, shown),
    key="corr_ci",
    persist_state="session",
    help="Percentile bootstrap: segments are resampled with all their systems; system scores are recomputed from the "
    "summed statistics of each resample; acc_eq chooses its ε again in every resample (over all pairs: kept at the "
    "full set's), SPA recomputes its permutation p-values. On from the start when their estimate is at most 2 s or "
    "they were computed already; otherwise the estimate is shown below the switch.",
)
if not ci and (note := statistics_state.intervals_note(ctx, shown)):
    st.caption(note)
form = st.segmented_control(
    "Chart",
    list(grid_charts.CHART_FORMS),
    default="auto",
    required=True,
    format_func=grid_charts.CHART_FORMS.get,
    key="corr_form",
    persist_state="session",
    help=f"Automatic: bars up to {grid_charts.BAR_LIMIT} configurations (metric × level), a grid with the value in every "
    "cell beyond.",
)
with_ci = statistics_state.correlations_with_ci(ctx, statistics=shown) if ci else None
view = statistics_state.display_table(
    ctx, "correlation_view",
    lambda: views.correlation_view(res, seg_plot.statistic, seg_plot.grouping, agreement=agree, correlations=with_ci,
                                   system=sys_plot.statistic),
    seg_plot.statistic, seg_plot.grouping, sys_plot.statistic, agree, ci,
)
undefined = {gran: views.undefined_correlations(view, ctx.evalset, res, gran) for gran in vocab.GRANULARITIES}
ceilings = ceiling.ceiling_rows(statistics_state.human_ceiling(ctx, with_ci=ci), seg_plot.statistic,
                                seg_plot.grouping, sys_plot.statistic)
tops = sections.headline_cards(ctx, view, plotted)
for note in degenerate_notes(res.correlations):
    st.warning(md_escape(note[0].upper() + note[1:]), icon=":material/warning:")
sections.correlation_charts(ctx, view, undefined, form or "auto", tops, ceilings, plotted)
sections.ceiling_notice(view, ceilings)
# opened on request (drawn only while open: a closed expander's table is still drawn by the browser otherwise)
numbers_box = st.expander("Numbers behind the charts" + (", with 95% confidence intervals" if ci else ""),
                          icon=":material/table:", key="corr_numbers", on_change="rerun")
if numbers_box.open:
    with numbers_box:
        numbers = display_tables.with_ceiling(views.numbers_table(view),
                                              ceiling.ceiling_table_rows(ceilings, views.ci_text))
        fit_table(numbers.drop(columns="signature"), height=560 if len(numbers) > 14 else None)
        if not ci:
            st.caption("Switch on the 95% confidence intervals above to add them to this table.")
        st.markdown("**Signatures** — a configuration's signature is its metric's (left) followed by `|level:` "
                    "and its level's part (right); every chart's hover box shows it whole")
        by_metric, by_level = views.signature_tables(res)
        m_col, l_col = st.columns([3, 1], gap="medium")
        with m_col:
            fit_table(by_metric, break_anywhere=["signature"])
        with l_col:
            fit_table(by_level, break_anywhere=["level part"])
partly = view[view["value"].isna() & ~view["granularity"].map(lambda g: bool(undefined[g]))]
if len(partly):
    st.caption(
        f"n/a = undefined: {len(partly)} configuration(s) have constant scores over the scored pairs "
        "(e.g. every hypothesis identical to the reference), so their correlation is not defined."
    )

best = statistics_state.display_table(ctx, "best_levels",
                           lambda: views.best_level_sentences(res, seg_plot.statistic, seg_plot.grouping,
                                                              agreement=agree, correlations=with_ci,
                                                              system=sys_plot.statistic),
                           seg_plot.statistic, seg_plot.grouping, sys_plot.statistic, agree, ci)
n_sys = int(res.human_systems["human_mean"].notna().sum())
b1, b2 = st.columns(2, gap="medium")
with b1:
    st.markdown("**Highest agreement per metric, segment level** (levels not tested against each other)")
    st.markdown("\n".join(f"- {md_escape(line)}" for line in best["segment"]) or "–")
    seg_n = view.loc[view["granularity"] == "segment", "n"]
    n_seg = int(seg_n.max()) if len(seg_n) else 0
    points = (f"the system pairs of {n_seg:,} segments" if seg_plot.statistic == "acc_eq" and seg_plot.grouping == "item"
              else f"{n_seg:,} (system, segment) pairs")
    st.caption(
        f"Segment level: {views.STATISTIC_LABELS[seg_plot.statistic]} over {points} with a human score; "
        f"{headlines.where_text(seg_plot.statistic, 'segment', seg_plot.grouping).removeprefix('segment level, ')}."
    )
with b2:
    st.markdown("**Highest agreement per metric, system level** (levels not tested against each other)")
    st.markdown("\n".join(f"- {md_escape(line)}" for line in best["system"]) or "–")
    st.caption(
        f"System level: {views.STATISTIC_LABELS[sys_plot.statistic]}, "
        f"{headlines.where_text(sys_plot.statistic, 'system', 'none').removeprefix('system level ').strip('()')} — "
        f"{n_sys} systems with human scores, so each value rests on {n_sys} systems; read it as indicative."
    )

notes = []
error_rates = sorted(
    {views.metric_label(m) for lv, m in zip(view["level"], view["metric"], strict=True) if not res.higher_is_better(m, lv)}
)
if error_rates:
    names = md_escape(", ".join(error_rates))
    notes.append(
        f"**Error rates ({names}), lower is better**: a *negative* correlation means agreement with the humans. "
        + ("The charts plot them with the sign flipped (−) so that taller bars mean better agreement for every metric."
           if agree else "The charts show their correlations as computed (negative = agreement).")
    )
if any(m.startswith("chrf") for m in view["metric"].unique()):
    notes.append(
        "**Plain chrF ignores whitespace**, so re-tokenising only changes it where a tokenizer changes the characters "
        "themselves (lemmatising analyzers such as Kiwi, and jamo). chrF+ and chrF++ add token n-grams, which do change."
    )
for line in notes:
    st.markdown(line)

st.subheader("Which configurations agree significantly more with the humans?")
st.caption(
    "Every pair of configurations (metric × token level) is tested on the same (system, segment) pairs: cell "
    "(row, column) is the one-sided p-value that the **row agrees with the humans more than the column**. "
    "Configurations are sorted best first and grouped into WMT-style significance clusters ([1] = best): a "
    "configuration starts a new cluster when a member of the current one beats it at α = "
    f"{statistics_state.ALPHA:g}. Error rates (TER) are compared by their agreement (−r)."
)
g1, g2 = st.columns([1, 2])
sig_gran = g1.radio("Level", list(vocab.GRANULARITIES), key="sig_gran", persist_state="session", horizontal=True)
sig_test = g2.radio(
    "Test",
    list(sig_views.SIGNIFICANCE_TESTS),
    format_func=sig_views.SIGNIFICANCE_TESTS.get,
    key="sig_test",
    persist_state="session",
    horizontal=True,
    help="Paired permutation test (Deutsch et al. 2021), swapping a segment's scores for all systems together: valid "
    "for every statistic and grouping, the default. As WMT (mt-metrics-eval): each (system, segment) score swapped "
    "alone. Williams test (Williams 1959): for ungrouped correlations only, and it assumes independent points — at "
    "the segment level they are clustered by segment, so its p-values are too small there. When the level's chart "
    "draws acc_eq or SPA, the matrix ranks by it with WMT's own test instead (acc_eq grouped by item).",
)
n_configs = len(res.segment_matrices)
sig_stat = plotted[sig_gran].statistic  # the statistic the level's chart and card show
if n_configs < 2:
    st.info("Significance compares configurations: choose at least two (token levels × metrics) in the sidebar.")
elif not views.is_correlation(sig_stat):
    accuracy = "acc_eq" if sig_gran == "segment" else "spa"
    requested = f"accuracy_significance_{accuracy}"  # computed on request, then kept (ui.state caches the tables)
    if st.session_state.get(requested) or st.button(
        f"Compute the significance matrix by {views.SYMBOLS[accuracy]}", key=f"sig_compute_{accuracy}",
        icon=":material/play_arrow:",
    ):
        st.session_state[requested] = True
        sections.accuracy_significance_matrix(ctx, accuracy)
elif statistics_state.cached_significance(ctx, sig_stat, sig_gran, s.grouping, sig_test) is not None:
    sections.significance_matrix(ctx, sig_stat, sig_gran, sig_test)
elif sections.significance_request(ctx, sig_stat, sig_gran, sig_test):
    sections.significance_matrix(ctx, sig_stat, sig_gran, sig_test)

compare_box = st.expander("Is one configuration significantly better than another?", icon=":material/balance:",
                          key="corr_compare", on_change="rerun")
if compare_box.open:  # tested only while open
    with compare_box:
        sections.comparison(ctx, view)

for note in res.notes:
    st.caption(md_escape(note))
