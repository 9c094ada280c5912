"""Tokens: one segment (a pair of the data, or typed) at every chosen token level, with its BLEU, chrF, chrF++ and TER
at each level side by side; tokenisation statistics of the data."""

import pandas as pd
import streamlit as st

from ui import charts, display_tables, state, token_demo, views
from ui.widgets import chart, fit_table, human_note, md_escape

state.enter_page("pages/tokens.py")
ctx = state.context()
res, cfg = ctx.results, ctx.settings.config
data = ctx.evalset
levels = [lv for lv in views.ordered_levels(res.tokens) if lv in cfg.levels]

st.title("Tokens")
st.caption("The same Korean text cut into words, morphemes, subwords, characters and jamo — what each metric sees.")
human_note(data)

if not data.refs:
    st.info("These data are metric scores only, without texts: there is nothing to tokenise.")
    st.stop()
if not levels:
    st.info("Choose at least one token level in the sidebar.")
    st.stop()

st.subheader("One segment at every token level")
TYPED = "Type a sentence"
mode = st.segmented_control(
    "Text", ["A segment of the data", TYPED], key="tok_mode", required=True, default="A segment of the data",
    format_func=lambda m: "Type a sentence pair" if m == TYPED else m, persist_state="session",
)
if mode == TYPED:
    c1, c2 = st.columns(2)
    ref_text = c1.text_input("Reference", value=token_demo.DEFAULT_REFERENCE, key="tok_text", persist_state="session")
    hyp_text = c2.text_input("Hypothesis", value=token_demo.DEFAULT_HYPOTHESIS, key="tok_hyp", persist_state="session")
    refs = [token_demo.nfc(ref_text)] if ref_text.strip() else []
    hyp = token_demo.nfc(hyp_text) if hyp_text.strip() else None
    hyp_label, file_stem = "Hypothesis (typed)", "typed-pair"
    ref_tokens = [state.tokenize(r, levels, data, cfg) for r in refs]
    hyp_tokens = state.tokenize(hyp, levels, data, cfg) if hyp is not None else None
else:
    c1, c2 = st.columns([3, 1])
    ref0 = data.refs[0]
    seg = c1.selectbox(
        "Segment", range(data.n_segments), key="tok_seg", persist_state="session",
        format_func=lambda i: f"{data.seg_ids[i]}: {ref0[i][:70]}",
    )
    system = c2.selectbox("System", list(data.systems), key="tok_system", persist_state="session")
    refs = [stream[seg] for stream in data.refs if stream[seg] is not None]
    hyp = data.systems[system][seg]
    hyp_label, file_stem = f"Hypothesis (system {system})", f"segment-{data.seg_ids[seg]}-{system}"
    ref_tokens = [token_demo.evaluation_tokens(r, levels, res, data, cfg) for r in refs]
    hyp_tokens = token_demo.evaluation_tokens(hyp, levels, res, data, cfg) if hyp is not None else None

if not refs:
    st.info("Type a reference to see its tokens and the pair's scores.")
else:
    token_demo.draw_pair(refs, hyp, hyp_label)
    token_demo.draw_tokens(ref_tokens[0], hyp_tokens, hyp_label, len(refs))
    if hyp_tokens is None:
        st.info("Type a hypothesis to score the pair." if mode == TYPED else
                "This system has no hypothesis for this segment: choose another system or segment to see scores.")
    else:
        pair = token_demo.segment_tokens({lv: [t[lv] for t in ref_tokens] for lv in levels}, hyp_tokens,
                                         token_demo.level_versions(res))
        token_demo.draw_scores(token_demo.score_pair(pair, cfg), len(refs), file_stem)
token_demo.draw_probe_link(data, cfg)

st.subheader("Over the whole data")
stats = res.token_stats.copy()
stats = stats[stats["level"].isin(levels)]
t1, t2 = st.columns(2)
with t1:
    chart(
        charts.level_bars(stats, "tokens_per_word", "Tokens per whitespace word", "tokens per word"),
        "tokens-per-word",
    )
    st.caption(
        f"{int(stats['words'].iloc[0]):,} whitespace words in {int(stats['texts'].iloc[0]):,} texts "
        "(references and hypotheses). An eojeol (word) holds about 2 morphemes and 3 syllables."
    )
cached = [lv for lv, s in zip(stats["level"], stats["tokenizer_seconds"], strict=True) if display_tables.is_cached(s)]
with t2:
    if cached:
        st.markdown("**Tokenisation time per level**")
        st.caption(
            f"Cached in the run that computed these results: {', '.join(cached)} — their tokens came from the cache, "
            "so that run timed no tokenizer for them (the token statistics table says \"cached\"). For a speed "
            "comparison, time every level on the same texts without the cache:"
        )
        if st.button("Time the tokenizers now (without the cache)", key="tok_time"):
            st.session_state["tok_timed"] = True
        if st.session_state.get("tok_timed"):
            timed = pd.DataFrame(state.tokenizer_timing(data.content_hash(), tuple(levels), state.spm_key(cfg), data, cfg))
            timed["family"] = timed["level"].map(views.level_family)
            chart(charts.level_bars(timed, "seconds", "Tokenisation time (no cache)", "seconds", ".2f"), "tokenize-time")
    else:
        chart(
            charts.level_bars(stats, "tokenizer_seconds", "Tokenisation time in this run", "seconds", ".2f"),
            "tokenize-time",
        )
    st.caption("Analyzers that need a JVM (KoNLPy) or a model (Kiwi) also take seconds to start the first time.")

timings = views.metric_timings(res)
timed_levels = [lv for lv in timings.columns if lv not in cached]
if not timings.empty and timed_levels:
    chart(charts.timing_heatmap(timings[timed_levels]), "metric-time")
if cached and not timings.empty:
    st.caption(
        f"Scoring time is not shown for {', '.join(lv for lv in timings.columns if lv in cached) or 'no level'}: "
        "their statistics came from the cache in that run, so its seconds measure loading, not computing."
    )
with st.expander("Token statistics table"):
    fit_table(display_tables.token_stats_text(stats))
for note in res.notes:
    st.caption(md_escape(note))
