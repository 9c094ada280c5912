"""Scores & rankings: raw system scores per level × metric beside the human mean (the study's Table 4)."""

import streamlit as st

from ui import charts, display_tables, grid_charts, ranking_section, state, statistics_state, views
from ui import significance_views as sig_views
from ui.widgets import chart, csv_button, fit_table, human_note, md_escape

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
with_human = bool(res.human_systems["human_rank"].notna().any())
if not with_human:
    st.info("No human scores: this page is the ranking check — which systems each metric × level separates "
            "significantly. The comparison with humans (their ranking, pair verdicts, pairwise accuracy) needs human "
            "scores: add them on the Data page.", icon=":material/person_off:")

#: Rows of a long table drawn on the page (the CSV download next to it has every row).
MAX_ROWS = 300


st.subheader("System scores per token level")
st.caption(
    "Each cell: system score (its rank among the systems, 1 = best). "
    + ("**Red cells**: the metric ranks that system differently from the humans. The Human column is the mean human "
       "score over each system's scored segments. " if with_human else
       "Systems ordered by their mean rank over the levels. ")
    + "System scores come from statistics summed over the corpus, not from averaging segment scores."
)
tabs = st.tabs([views.metric_label(m) for m in metrics])
for tab, metric in zip(tabs, metrics, strict=True):
    with tab:
        text, css = statistics_state.display_table(
            ctx, "score_table", lambda m=metric: display_tables.score_table_text(*views.score_table(res, m)), metric
        )
        keep = 2 if with_human else 1  # system (and Human), then as many levels as fit
        for group in display_tables.column_groups(text, keep=keep):
            fit_table(text[[*text.columns[:keep], *group]], styles=css[[*css.columns[:keep], *group]])
        if not res.higher_is_better(metric):
            st.caption(f"{md_escape(views.metric_label(metric))} is an error rate: lower is better, rank 1 = lowest.")

if not with_human:  # the ranking check is this page's main content
    ranking_section.draw(ctx)

n_systems = len(res.systems)
if with_human and n_systems >= 2:
    st.subheader("Rankings: humans vs metric")
    metric = st.selectbox(
        "Metric", metrics, format_func=views.metric_label, key="rank_metric", persist_state="session"
    )
    label = views.metric_label(metric)
    chart(charts.bump_chart(views.rank_paths(res, metric), label), "ranking")
    st.caption(
        "Each line is a system: its rank by the humans (left), then by the metric at each token level. "
        "Open red rings: the metric's rank differs from the human rank."
    )

    human_test = st.radio(
        "Human-side test",
        list(sig_views.HUMAN_TESTS),
        format_func=sig_views.HUMAN_TESTS.get,
        key="pair_human_test",
        persist_state="session",
        horizontal=True,
        help="Is the humans' preference between two systems significant? Paired bootstrap: the difference of mean "
        "human scores over resampled segments. Wilcoxon rank-sum: the study's test on the two systems' scores "
        "(unpaired; no confidence interval).",
    )
    pairs = statistics_state.system_pairs(ctx, metric, human_test)
    resampling = (
        f"Metric side: paired bootstrap (sacrebleu's method), {statistics_state.N_RESAMPLES} resamples of the "
        f"{len(res.seg_ids):,} segments, seed {statistics_state.SEED}, each system scored from its summed resampled statistics; "
        "95% percentile interval. Human side: "
        + (
            f"paired bootstrap of the mean human score on the same {statistics_state.N_RESAMPLES} resamples (seed {statistics_state.SEED})"
            if human_test == "bootstrap"
            else "two-sided Wilcoxon rank-sum test (scipy.stats.ranksums) of the two systems' scores, no resampling"
        )
        + f". Significant: p < {statistics_state.ALPHA:g}."
    )

    st.markdown(f"**Ranking view: human order and {md_escape(label)}'s order at each level**")
    text, between = sig_views.ranking_table(statistics_state.ranking_view(ctx, metric, human_test))
    # every column as wide as a system name: with many levels (or long names) the levels are split over several
    # tables, each beginning with the human order, so that no name breaks
    groups = display_tables.column_groups(text, keep=1)
    for group in groups:
        columns = [text.columns[0], *group]
        fit_table(text[columns], styles=between[columns].map(sig_views.label_css))
    st.caption(
        "Systems best first, one row per position (human mean score, or system score; for an error rate the lowest "
        "first). A cell's colour "
        "is the label of that system and the one **below it** in the same column (legend below). "
        + (f"The {len(text.columns) - 1} levels are split over {len(groups)} tables, each beginning with the "
           "humans' order, so that system names stay whole. " if len(groups) > 1 else "")
        + resampling
    )

    st.subheader(f"System pairs: does {md_escape(label)} order them as the humans do?")
    st.markdown(
        "  \n".join(
            f":{sig_views.PAIR_BADGES[name]}-background[{name}] {why}" for name, (_css, why) in sig_views.PAIR_LABELS.items()
        )
    )
    counts = sig_views.label_counts(pairs)
    if pairs.empty:
        st.info("No system pair can be tested (fewer than two systems or no segments).")
    else:
        fit_table(counts, styles=counts.apply(lambda col: [sig_views.label_css(col.name)] * len(col)))
        show = st.pills(
            "Show pairs labelled",
            list(sig_views.PAIR_LABELS),
            selection_mode="multi",
            default=list(sig_views.PAIR_LABELS),
            key="pair_labels",
        )
        shown = sig_views.pair_table(
            pairs, statistics_state.N_RESAMPLES, statistics_state.N_RESAMPLES if human_test == "bootstrap" else None
        )
        shown = shown[shown["label"].isin(list(show or []) + ["undefined"])]
        css = shown.apply(lambda col: col.map(sig_views.label_css) if col.name == "label" else [""] * len(col))
        fit_table(shown.head(MAX_ROWS), styles=css.head(MAX_ROWS), height=640 if len(shown) > 15 else None)
        if len(shown) > MAX_ROWS:
            st.caption(f"The first {MAX_ROWS} of {len(shown):,} pairs; the CSV has every pair.")
        csv_button(pairs, f"system_pairs_{metric}.csv", f"All {len(pairs):,} system pairs of {label} as CSV")
        note = "" if res.higher_is_better(metric) else (
            f" {md_escape(label)} is an error rate: a positive Δ means system a is *worse*; labels use its agreement "
            "(the sign flipped)."
        )
        st.caption(
            "Δ = score of system a − of system b. p: two-sided p-value of “no difference”. " + resampling + note
        )

    st.subheader("Pairwise accuracy")
    accuracy = sig_views.accuracy_view(statistics_state.pairwise_accuracy(ctx), res)
    chart(grid_charts.accuracy_chart(accuracy), "pairwise-accuracy")
    st.caption(
        "Pairwise (system-ranking) accuracy, Kocmi et al. 2021: the share of system pairs a configuration orders as "
        "the humans' mean scores do (sign(Δmetric) = sign(Δhuman): a pair both tie agrees; error rates: lower is "
        "better). SPA (◆ on the bars, in the hover of the grid), soft pairwise accuracy (Thompson et al., WMT24; "
        "WMT24–25's system-level statistic): 1 − the mean over system pairs of |p_human − p_metric|, each p a "
        "one-sided paired permutation test over segments that one system beats the other (1,000 seeded permutations; each system's score the mean of its segment "
        "scores, as in WMT). With "
        f"{n_systems} systems there are {n_systems * (n_systems - 1) // 2} pairs, so one pair moves it by "
        f"{2 / max(n_systems * (n_systems - 1), 1):.2f}. No resampling: deterministic."
    )

    with st.expander("Flipped pairs of every metric at a glance", icon=":material/swap_vert:"):
        counts = views.flip_counts(res)
        chart(grid_charts.flip_heatmap(counts, n_systems * (n_systems - 1) // 2), "flipped-pairs")
        flips = display_tables.flips_text(res.flips)
        if flips.empty:
            st.success("No metric at any level orders a pair of systems against the humans.")
        else:
            pick = st.multiselect(
                "Show pairs of",
                list(counts.index),
                default=list(counts.index),
                key="flip_metrics",
            )
            picked = flips[flips["metric"].isin(pick)]
            fit_table(picked.head(MAX_ROWS), height=480 if len(picked) > 12 else None)
            if len(picked) > MAX_ROWS:
                st.caption(f"The first {MAX_ROWS} of {len(picked):,} flipped pairs; flipped_pairs.csv (Downloads) has all.")

if with_human:
    ranking_section.draw(ctx)

with st.expander("Signatures (cite these with the numbers)", icon=":material/fingerprint:"):
    signatures = views.signatures_table(res)
    fit_table(signatures, height=420 if len(signatures) > 10 else None, break_anywhere=["signature"])
