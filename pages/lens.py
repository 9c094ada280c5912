"""Korean lens: which Korean errors each system makes, which token level × metric notices which error, and what
the humans punish (docs/design.md §8). Same numbers as ``python -m korean_eval profile``."""

import json

import streamlit as st

from korean_eval.lens.costs import lens_estimate
from korean_eval.lens.perturb import KIND_LABELS
from korean_eval.lens.pos_categories import CATEGORIES, CATEGORY_LABELS
from korean_eval.lens.profile import MIN_SUPPORT, small_support
from korean_eval.model.vocabulary import VECTOR_STATISTICS
from ui import display_tables, lens_charts, lens_spans, lens_state, lens_views, state, stopping, views
from ui.formats import duration
from ui.widgets import chart, csv_button, fit_table, human_note, md_escape, text_pairs

state.enter_page("pages/lens.py")
data = state.evalset()
if data is None:
    st.stop()
config = state.settings().config

st.title("Korean lens")
st.caption(
    "Kiwi's morphological analysis (Sejong tags) of every hypothesis and reference: which kinds of Korean errors "
    "each system makes; controlled perturbations of your references: which token level × metric notices which "
    "error; and, with human scores, which errors the humans punish. The same numbers as `python -m korean_eval "
    "profile`."
)
human_note(data)
if not data.refs:
    st.info("These data are metric scores only, without texts: the lens needs hypotheses and references.")
    st.stop()
want_probe = bool(config.levels and config.metrics)
if not want_probe:
    st.info("Choose token levels and metrics in the sidebar to run the perturbation probe on them.")
estimate = lens_estimate(data, config)
probe_key, base_key = (lens_state.lens_key(data, config, probe) for probe in (True, False))
result = (lens_state.cached_lens(data, config, True) if want_probe else None) or lens_state.cached_lens(
    data, config, False)
# slow work runs on request: the probe over many levels (or a large set's analysis) waits for its button, and so
# does a lens the user stopped (ui/stopping.py)
stopped_key = next((k for k in (probe_key, base_key) if stopping.stopped(k)), None)
need_probe = want_probe and (result is None or result.probe is None) and not stopping.stopped(probe_key) and (
    estimate.total <= lens_state.AUTO_SECONDS or lens_state.asked(probe_key))
if result is None and not need_probe and (
        stopped_key is not None or estimate.analysis > lens_state.AUTO_SECONDS and not lens_state.asked(base_key)):
    if stopped_key is not None:
        st.info(stopping.STOPPED_TEXT.format(button=lens_state.RUN_BUTTON), icon=":material/stop_circle:")
    st.button(lens_state.RUN_BUTTON, key="lens_run", icon=":material/play_arrow:", on_click=lens_state.ask,
              args=(stopped_key or base_key,))
    st.caption(f"Kiwi's analysis of {len(data.systems)} systems' outputs and their references: "
               f"{duration(estimate.analysis)} (estimated from measured costs per character). Computed once for "
               "these data, then kept. The perturbation probe over your token levels × metrics waits for a button "
               f"of its own ({duration(estimate.probe)}).")
    st.stop()
if result is None or need_probe:
    result = lens_state.lens_result(data, config, need_probe,
                                     estimate.total if need_probe else estimate.analysis)
if result is None:
    st.stop()

profile_tab, speech_tab, probe_tab, human_tab, spans_tab, download_tab = st.tabs(
    ["Error profile", "Speech level & spacing", "Perturbation probe", "What the humans punish", "Error spans (MQM)",
     "Downloads"],
    key="lens_tab", bind="query-params",  # a link can open one tab (the Tokens page's, the probe)
)

with profile_tab:
    value = st.segmented_control("Show", list(lens_views.PROFILE_VALUES), format_func=lens_views.PROFILE_VALUES.get,
                                 default="f1", required=True, key="lens_profile_value", persist_state="session")
    matrix = lens_views.profile_matrix(result, value)
    label = lens_views.PROFILE_VALUES[value]
    counts = lens_views.profile_counts(result)
    small = small_support(counts, value)
    chart(lens_charts.profile_heatmap(matrix, label, value != "errors_per_segment", counts, small),
          f"lens-profile-{value}")
    st.caption(
        "A morpheme is Kiwi's (form, tag). Per category: precision = matched / hypothesis morphemes, recall = "
        "matched / reference morphemes, F1 = 2·matched / (both), over counts summed per system; errors = unmatched "
        "morphemes on both sides (a wrong particle counts 2). Categories: content (N*, V*, MM, MA*, IC, XR), "
        "particles (J*), endings (E*), affixes (XPN, XS*), foreign script & numbers (SL, SH, SN), punctuation (S*). "
        f"**Grey cells** rest on fewer than {MIN_SUPPORT} morphemes (the hypotheses' for precision, the "
        "references' for recall, both for F1): too few to read; hover any cell for its counts."
    )
    c1, c2, c3 = st.columns(3)
    system = c1.selectbox("System", list(matrix.index), key="lens_system", persist_state="session")
    category = c2.selectbox("Category", list(CATEGORIES), format_func=CATEGORY_LABELS.get, key="lens_category")
    subcategory = c3.selectbox("Subcategory", lens_views.subcategories(result, category), key="lens_subcategory")
    examples = lens_views.category_examples(result, system, category, subcategory)
    st.markdown(f"**{md_escape(system)}: segments with the most errors in "
                f"{md_escape(lens_views.category_label(category, subcategory))}** — :red-background[extra in the "
                "hypothesis], :blue-background[missing from it]")
    if not examples:
        st.info("No segment of this system has an error in this category.")
    text_pairs(examples, "hypothesis", "reference", lambda e: f"segment {md_escape(e['seg_id'])} · {e['errors']} errors")
    with st.expander("Profile table (every category and subcategory)"):
        fit_table(display_tables.readable(result.profile), height=480 if len(result.profile) > 12 else None)

with speech_tab:
    chart(lens_charts.agreement_bars(result.speech_levels, result.spacing), "lens-speech-spacing")
    st.caption(
        "Speech level of the final ending: 합쇼체 (-ㅂ니다, -ㅂ니까, -십시오), 해요체 (-요, -죠), 해체·해라체 (-다, -어, "
        "-자, -냐 …), other (하오체 -ㅂ시다/-오/-소, headlines and notices without a final ending). Spacing: the "
        "boundaries inside regions where both texts have the same characters; F1 of the reference's spaces."
    )
    tall = 480 if len(result.speech_levels) > 12 else None
    st.markdown("**Speech level per system**")
    fit_table(display_tables.readable(result.speech_levels), height=tall)
    st.markdown("**Spacing per system**")
    fit_table(display_tables.readable(result.spacing), height=tall)
    system = st.selectbox("System", list(result.speech_levels["system"]), key="lens_speech_system")
    chart(lens_charts.confusion_heatmap(lens_views.confusion_matrix(result, system), system), "lens-confusion")
    st.markdown("**Segments whose speech level or honorific 시 differs from the reference**")
    fit_table(display_tables.readable(lens_views.speech_examples(result, system)))
    st.markdown("**Segments with spacing errors** — :blue-background[the reference has a space before this "
                "character, the hypothesis not]")
    spaced = lens_views.spacing_examples(result, system)
    if not spaced:
        st.info("No spacing error in this system's aligned regions.")
    text_pairs(spaced, "hypothesis", "reference",
               lambda e: f"segment {md_escape(e['seg_id'])} · {e['errors']} spacing errors, {e['inserted']} of them "
                         "spaces the reference does not have")

with probe_tab:
    if result.probe is None and not want_probe:
        st.info("Choose token levels and metrics in the sidebar to run the perturbation probe.")
    elif result.probe is None:
        if stopping.stopped(probe_key):
            st.info(stopping.STOPPED_TEXT.format(button=lens_state.PROBE_BUTTON), icon=":material/stop_circle:")
        st.button(lens_state.PROBE_BUTTON, key="lens_probe_run", icon=":material/play_arrow:",
                  on_click=lens_state.ask, args=(probe_key,))
        st.caption(
            f"Every reference perturbed in {len(KIND_LABELS)} ways, then scored at {len(config.levels)} token "
            f"level(s) × {len(config.metrics)} metric(s): {duration(estimate.probe)} (estimated from measured costs "
            "per character; less where tokens are cached). Computed once for these data and settings, then kept."
        )
    else:
        shown = st.segmented_control("Show", list(lens_views.PROBE_VALUES), format_func=lens_views.PROBE_VALUES.get,
                                     default="relative_to_drop", required=True, key="lens_probe_value")
        chart(lens_charts.probe_heatmap(lens_views.probe_matrix(result, shown), shown,
                                        lens_views.PROBE_VALUES[shown], result.probe.summary), f"lens-probe-{shown}")
        st.caption(
            "Each kind perturbs every reference once (seeded, one change at a time, checked by re-analysing the "
            "result); the pipeline scores the perturbed reference against the original. Penalty = how much worse "
            "the metric rates it (score drop, or TER rise); 1 = as much as dropping a content eojeol, 0 = not "
            "noticed, below 0 = rewarded. Raw scores are not comparable across token levels, ratios are."
        )
        for sentence in lens_views.probe_sentences(result):
            st.markdown(sentence)
        fit_table(display_tables.readable(lens_views.applicability(result)))
        c1, c2, c3 = st.columns(3)
        kind = c1.selectbox("Perturbation", list(KIND_LABELS), format_func=KIND_LABELS.get, key="lens_kind")
        metric = c2.selectbox("Metric", list(config.metrics), format_func=views.metric_label, key="lens_metric")
        level = c3.selectbox("Token level", views.ordered_levels(list(config.levels)), key="lens_level")
        text_pairs(lens_views.probe_examples(result, kind, metric, level), "perturbed", "reference",
                   lambda e: f"segment {md_escape(e['seg_id'])} · {md_escape(e['edit'])} · change "
                             f"{e['change']:+.2f} {md_escape(views.metric_label(metric))}")
        missing = lens_views.not_applied(result, kind)
        with st.expander(f"Segments where this perturbation cannot apply ({len(missing)})"):
            fit_table(display_tables.readable(missing), height=420 if len(missing) > 10 else None)

with human_tab:
    if data.human is None or result.human_links.empty:
        st.info("These data have no human scores: load them on the Data page to see which errors the humans punish.")
    else:
        statistic = st.segmented_control("Statistic", list(VECTOR_STATISTICS), format_func=views.STATISTIC_LABELS.get,
                                         default="pearson", required=True, key="lens_statistic")
        view = lens_views.correlation_view(result, statistic)
        chart(lens_charts.correlation_bars(view, views.STATISTIC_LABELS[statistic]), f"lens-humans-{statistic}")
        st.caption(
            "Descriptive, not causal. Each bar: the correlation of a per-segment error count with the human score "
            "over all (system, segment) pairs with both, with the bootstrap 95% interval of the meta-evaluation "
            "(segments resampled with all their systems). Negative = more such errors, lower human scores."
        )
        coefficients, r2, n = lens_views.model_view(result)
        st.markdown(f"**Linear model (descriptive)**: human score ≈ intercept + Σ coefficient × errors per category "
                    f"+ coefficient × spacing errors; "
                    f"R² = {r2:.3f} over {n:,} pairs. Intervals assume independent pairs (they are not: read them "
                    "as descriptive).")
        fit_table(display_tables.readable(coefficients.rename(
            columns={"value": "coefficient", "ci_low": "95% CI low", "ci_high": "95% CI high"})))
    for note in result.notes:
        st.caption(md_escape(note))

with spans_tab:
    lens_spans.spans_section(data)

with download_tab:
    st.caption("The tables `python -m korean_eval profile --out DIR` writes, byte for byte.")
    files = lens_state.table_files(data, config, result)
    for name, frame in result.tables().items():
        csv_button(frame, name, key=f"lens_dl_{name}", data=files[name])
    st.download_button("lens.json (settings, analyzer version, notes)", json.dumps(result.metadata(), ensure_ascii=False,
                       indent=2), file_name="lens.json", mime="application/json", key="lens_dl_json", on_click="ignore")
