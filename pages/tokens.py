"""Tokens: one sentence at every chosen token level side by side, and tokenisation statistics of the data."""

import pandas as pd
import streamlit as st

from ui import charts, state, views
from ui.widgets import chart, md_escape, token_chips

state.enter_page("pages/tokens.py")
ctx = state.context()
res, cfg = ctx.results, ctx.settings.config
data = ctx.evalset
levels = [lv for lv in views.ordered_levels(res.tokens) if lv in cfg.levels]

st.title("Tokens")
st.caption("The same Korean text cut into words, morphemes, subwords, characters and jamo — what each metric sees.")

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
    table = views.tokens_side_by_side(tokens)
    table["tokens"] = [token_chips(tokens[lv], views.level_family(lv)) for lv in table["level"]]
    table["level"] = [
        f"**{lv}**" + ("" if fam == lv else f" · {fam}") for lv, fam in zip(table["level"], table["family"], strict=True)
    ]
    st.table(table[["level", "count", "tokens"]], hide_index=True, border="horizontal")

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
with t2:
    cached = bool((stats["tokenizer_seconds"] < 1e-3).all())
    if cached:
        st.markdown("**Tokenisation time per level**")
        st.caption("This run took its tokens from the cache, so it measured no tokenizer time.")
        if st.button("Time the tokenizers now (without the cache)", key="tok_time"):
            st.session_state["tok_timed"] = True
        if st.session_state.get("tok_timed"):
            timed = pd.DataFrame(state.tokenizer_timing(data.content_hash(), tuple(levels), state.spm_key(cfg), data, cfg))
            timed["family"] = timed["level"].map(views.level_family)
            chart(charts.level_bars(timed, "seconds", "Tokenisation time (no cache)", "seconds", ".3f"), "tokenize-time")
    else:
        chart(
            charts.level_bars(stats, "tokenizer_seconds", "Tokenisation time in this run", "seconds", ".3f"),
            "tokenize-time",
        )
    st.caption("Analyzers that need a JVM (KoNLPy) or a model (Kiwi) also take seconds to start the first time.")

timings = views.metric_timings(res)
if not timings.empty:
    chart(charts.timing_heatmap(timings), "metric-time")
with st.expander("Token statistics table"):
    st.dataframe(stats, hide_index=True, width="stretch")
for note in res.notes:
    st.caption(md_escape(note))
