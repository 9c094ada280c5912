"""Tokens: one sentence at every chosen token level side by side, and tokenisation statistics of the data."""

import pandas as pd
import streamlit as st

from ui import charts, display_tables, state, views
from ui.widgets import chart, fit_table, human_note, md_escape, token_chips

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

mode = st.segmented_control(
    "Text", ["A segment of the data", "Type a sentence"], key="tok_mode", required=True,
    default="A segment of the data", persist_state="session",
)
if mode == "Type a sentence":
    text = st.text_input("Sentence", value="한국어는 조사와 어미가 붙어서 띄어쓰기 단위가 길어요.", key="tok_text", persist_state="session")
    tokens = state.tokenize(text, levels, data, cfg) if text.strip() else {}
else:
    c1, c2 = st.columns([3, 1])
    ref0 = data.refs[0]
    seg = c1.selectbox(
        "Segment", range(data.n_segments), key="tok_seg", persist_state="session",
        format_func=lambda i: f"{data.seg_ids[i]}: {ref0[i][:70]}",
    )
    side = c2.selectbox("Text", ["reference", *data.systems], key="tok_side", persist_state="session")
    text = ref0[seg] if side == "reference" else data.systems[side][seg]
    if text is None:
        st.info("This system has no hypothesis for this segment.")
        st.stop()
    tokens = {lv: res.tokens[lv][text].split() for lv in levels}
    if side != "reference":
        st.caption("Reference:")
        st.text(ref0[seg])
st.text(text)
if tokens:
    side = views.tokens_side_by_side(tokens)
    side["tokens"] = [token_chips(tokens[lv], views.level_family(lv)) for lv in side["level"]]
    side["level"] = [
        f"**{lv}**" + ("" if fam == lv else f" · {fam}") for lv, fam in zip(side["level"], side["family"], strict=True)
    ]
    side["count"] = side["count"].astype(str)
    fit_table(side[["level", "count", "tokens"]], markdown=["level", "tokens"])

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
