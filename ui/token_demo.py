"""The Tokens page's segment demonstration: one (reference, hypothesis) pair cut at every token level, and its
sentence-level BLEU, chrF, chrF++ and TER at each level side by side, with their sacrebleu signatures and a link to
the Korean lens's perturbation probe.

The scores are :func:`korean_eval.lens.segment_levels.score_segment_tokens` of the pipeline's own token strings
(a segment of the data: the evaluation's tokens; a typed pair: the same levels, :func:`ui.state.tokenize`), with the
evaluation's per-level options, so that for a segment of the data they are its segment scores in the evaluation.
The tables and the figure are built by pure functions (tested without Streamlit); :func:`draw_pair`,
:func:`draw_tokens`, :func:`draw_scores` and :func:`draw_probe_link` draw them.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from korean_eval.exports.tables import signature_groups
from korean_eval.lens.segment_levels import SEGMENT_METRICS, SegmentTokens, score_segment_tokens
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from korean_eval.model.palette import FAMILY_COLORS
from korean_eval.model.results import Results
from ui import formats, state, views
from ui.charts import MIN_TEXT, base_layout, labelled_axis
from ui.figures import figure, merge
from ui.widgets import chart, csv_button, fit_table, md_escape, token_chips

#: The pair typed by default: a particle (가 → 를), a verb form (붙어서 → 붙여서) and an ending (길어요 → 길다)
#: changed, so that every level scores it differently.
DEFAULT_REFERENCE = "한국어는 조사와 어미가 붙어서 띄어쓰기 단위가 길어요."
DEFAULT_HYPOTHESIS = "한국어는 조사와 어미를 붙여서 띄어쓰기 단위가 길다."


def _metric_text(metric: str) -> tuple[str, str]:
    """(panel header, y-axis title) of a metric's panel: its direction and its unit."""
    label = views.metric_label(metric)
    if views.error_rate(metric):
        return f"<b>{label}</b> · error rate: lower is better", f"{label} (edits / 100 ref. tokens)"
    return f"<b>{label}</b> · higher is better", f"{label} (0–100)"


def metric_header(metric: str) -> str:
    """Column header of a metric in the score table: its label and direction (``TER ↓``: an error rate)."""
    return f"{views.metric_label(metric)} {'↓' if views.error_rate(metric) else '↑'}"


def nfc(text: str) -> str:
    """Text as the pipeline reads it (docs/design.md §3: NFC first)."""
    return unicodedata.normalize("NFC", text)


def level_versions(results: Results) -> dict[str, str]:
    """Level → its ``level:`` signature part (tokenizer and version) in the evaluation's signatures."""
    return signature_groups(results.signatures())[1]


def evaluation_tokens(text: str, levels: Sequence[str], results: Results, evalset: EvalSet,
                      config: EvalConfig) -> dict[str, list[str]]:
    """The evaluation's tokens of ``text`` at each level (``results.tokens``: what its metrics scored), tokenised
    again by :func:`ui.state.tokenize` at a level whose tokens the results do not hold."""
    known = {lv: results.tokens.get(lv, {}).get(text) for lv in levels}
    missing = [lv for lv, joined in known.items() if joined is None]
    again = state.tokenize(text, missing, evalset, config) if missing else {}
    return {lv: again[lv] if joined is None else joined.split() for lv, joined in known.items()}


def segment_tokens(
    references: Mapping[str, Sequence[Sequence[str]]], hypothesis: Mapping[str, Sequence[str]],
    versions: Mapping[str, str],
) -> list[SegmentTokens]:
    """The pair's tokens per level (``references[level]``: each reference's tokens; ``hypothesis[level]``) as the
    backend's :class:`~korean_eval.lens.segment_levels.SegmentTokens`, levels in ``hypothesis``' order."""
    return [
        SegmentTokens(level, " ".join(toks), tuple(" ".join(r) for r in references[level]), versions.get(level, ""))
        for level, toks in hypothesis.items()
    ]


def level_cell(level: str) -> str:
    """A level as a table shows it (Markdown): its name in bold and its family."""
    family = views.FAMILY_LABELS.get(views.level_family(level), views.level_family(level))
    return f"**{level}**" + ("" if family == level else f" · {family}")


def tokens_table(tokens: Mapping[str, list[str]]) -> pd.DataFrame:
    """``level, count, tokens`` of one text at several levels: level and tokens as Markdown (coloured badges by
    family, :func:`ui.widgets.token_chips`), the count as text."""
    return pd.DataFrame({
        "level": [level_cell(lv) for lv in tokens],
        "count": [str(len(t)) for t in tokens.values()],
        "tokens": [token_chips(list(t), views.level_family(lv)) for lv, t in tokens.items()],
    }, columns=["level", "count", "tokens"])


def scores_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The score frame (:data:`korean_eval.lens.segment_levels.COLUMNS`) side by side as text: one row per level
    (Markdown level cell), the token counts of both sides (:data:`TOKEN_COUNTS`), then one column per metric
    (:func:`metric_header`), 2 decimals."""
    levels = list(dict.fromkeys(scores["level"]))
    metrics = list(dict.fromkeys(scores["metric"]))
    wide = scores.pivot(index="level", columns="metric", values="score").reindex(index=levels, columns=metrics)
    counts = scores.drop_duplicates("level").set_index("level").reindex(levels)
    out = pd.DataFrame({
        "level": [level_cell(lv) for lv in levels],
        TOKEN_COUNTS: [f"{r} / {h}" for r, h in zip(counts["ref_tokens"].astype(int), counts["hyp_tokens"].astype(int),
                                                     strict=True)],
    })
    for metric in metrics:
        out[metric_header(metric)] = formats.texts(wide[metric], formats.score)
    return out


#: The score table's column of both sides' token counts.
TOKEN_COUNTS = "tokens: reference / hypothesis"


def tidy_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The score frame for reading and download: one row per level × metric, the metric by its label, its
    direction, the score with 2 decimals and the full signature."""
    return pd.DataFrame({
        "level": scores["level"].to_list(),
        "metric": [views.metric_label(m) for m in scores["metric"]],
        "direction": ["lower is better" if views.error_rate(m) else "higher is better" for m in scores["metric"]],
        "score": formats.texts(scores["score"], formats.score),
        "reference tokens": scores["ref_tokens"].to_list(),
        "hypothesis tokens": scores["hyp_tokens"].to_list(),
        "signature": scores["signature"].to_list(),
    })


def signature_tables(scores: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The signatures without repetition: one row per metric (``metric, sacrebleu signature``; its levels listed
    when they do not all share it) and a line of the levels' ``level:`` parts (tokenizer and version)."""
    sigs = {f"{lv}/{m}": s for lv, m, s in zip(scores["level"], scores["metric"], scores["signature"], strict=True)}
    groups, levels = signature_groups(sigs)
    every = set(scores["level"])
    rows = [{"metric": views.metric_label(m), "sacrebleu signature (sentence level)": head,
             "levels": "all" if set(lvs) == every else ", ".join(lvs)} for m, head, lvs in groups]
    table = pd.DataFrame(rows, columns=["metric", "sacrebleu signature (sentence level)", "levels"])
    if (table["levels"] == "all").all():
        table = table.drop(columns="levels")
    line = " · ".join(f"{lv}: `level:{part}`" for lv, part in levels.items())
    return table, line


def _grid(n_panels: int) -> tuple[int, int]:
    """(columns, rows) of the panels: two columns (four panels side by side leave each too narrow for its axis
    titles on a 1280-pixel screen)."""
    cols = min(2, n_panels)
    return cols, math.ceil(n_panels / cols)


def level_scores_chart(scores: pd.DataFrame, title: str = "This pair's scores at each token level") -> go.Figure:
    """One panel per metric (its direction and unit in the header and on the y axis; TER as an error rate), one
    bar per level coloured by token family, the score written on each bar; hover: metric, level, family, score with
    its unit, both sides' token counts.

    Args:
        scores: :data:`korean_eval.lens.segment_levels.COLUMNS` rows (levels and metrics in display order).
        title: the chart's title.
    """
    levels = list(dict.fromkeys(scores["level"]))
    metrics = list(dict.fromkeys(scores["metric"]))
    cols, rows = _grid(len(metrics))
    hgap, vgap = 0.12, 0.24 if rows > 1 else 0.0
    width = (1 - (cols - 1) * hgap) / cols
    height = (1 - (rows - 1) * vgap) / rows
    angle = -40 if len(levels) > 6 else None
    data: list[dict] = []
    layout: dict[str, object] = dict(showlegend=False, annotations=[], bargap=0.25)
    for k, metric in enumerate(metrics):
        n = "" if k == 0 else str(k + 1)
        col, row = k % cols, k // cols
        header, axis_title = _metric_text(metric)
        sub = scores[scores["metric"] == metric].set_index("level").reindex(levels)
        values = sub["score"].to_numpy(float)
        families = [views.level_family(lv) for lv in levels]
        unit = " edits per 100 reference tokens" if views.error_rate(metric) else ""
        data.append(dict(
            type="bar",
            x=levels,
            y=values,
            xaxis=f"x{n}",
            yaxis=f"y{n}",
            marker=dict(color=[FAMILY_COLORS.get(f, "#8C8C8C") for f in families]),
            text=[formats.number(v, 1) for v in values],
            textposition="outside",
            textfont=dict(size=MIN_TEXT),
            cliponaxis=False,
            customdata=np.column_stack([
                [views.FAMILY_LABELS.get(f, f) for f in families],
                sub["ref_tokens"].astype(int), sub["hyp_tokens"].astype(int),
            ]),
            hovertemplate=f"<b>{views.metric_label(metric)}</b> at %{{x}} (%{{customdata[0]}})<br>"
            f"score %{{y:.2f}}{unit}<br>reference %{{customdata[1]}} tokens · hypothesis %{{customdata[2]}} tokens"
            "<extra></extra>",
        ))
        top = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
        x0, y1 = col * (width + hgap), 1 - row * (height + vgap)
        x_domain = [round(max(0.0, x0), 6), round(min(1.0, x0 + width), 6)]
        y_domain = [round(max(0.0, y1 - height), 6), round(min(1.0, y1), 6)]
        layout[f"xaxis{n}"] = merge(
            dict(domain=x_domain, anchor=f"y{n}", categoryorder="array", categoryarray=levels,
                 title=dict(text="token level")),
            labelled_axis(levels, angle=angle),
        )
        layout[f"yaxis{n}"] = dict(domain=y_domain, anchor=f"x{n}", gridcolor="#eee", rangemode="tozero",
                                   range=[0, max(100.0, top) * 1.15], title=dict(text=axis_title, font=dict(size=12)),
                                   tickfont=dict(size=MIN_TEXT + 1))
        layout["annotations"].append(dict(  # type: ignore[union-attr]
            text=header, x=0, y=1, xref=f"x{n} domain", yref=f"y{n} domain", xanchor="left", yanchor="bottom",
            yshift=6, showarrow=False, font=dict(size=13),
        ))
    fig_height = 340 if rows == 1 else 660
    look = base_layout(layout, fig_height, title, legend=False)
    look["margin"] = merge(look["margin"], dict(t=look["margin"]["t"] + 24, b=60 if angle else 40))  # type: ignore[arg-type]
    return figure(data, look)


# ------------------------------------------------------------------------------------------------- drawing


def draw_pair(references: Sequence[str], hypothesis: str | None, hypothesis_label: str) -> None:
    """The pair, each side labelled: "Reference" (numbered when there are several) and ``hypothesis_label``."""
    with st.container(border=True):
        for j, ref in enumerate(references):
            label = "Reference" if len(references) == 1 else f"Reference {j + 1}"
            st.markdown(f"**{label}** · {md_escape(ref)}")
        if hypothesis is not None:
            st.markdown(f"**{md_escape(hypothesis_label)}** · {md_escape(hypothesis)}")


def draw_tokens(reference: Mapping[str, list[str]], hypothesis: Mapping[str, list[str]] | None,
                hypothesis_label: str, n_refs: int = 1) -> None:
    """The tokens of the (first) reference, then of the hypothesis, at every level."""
    first = "Tokens of the reference" if n_refs == 1 else f"Tokens of reference 1 (of {n_refs})"
    st.markdown(f"**{first}**")
    fit_table(tokens_table(reference), markdown=["level", "tokens"])
    if hypothesis is not None:
        st.markdown(f"**Tokens of the {md_escape(hypothesis_label[:1].lower() + hypothesis_label[1:])}**")
        fit_table(tokens_table(hypothesis), markdown=["level", "tokens"])


def score_pair(segment: Sequence[SegmentTokens], config: EvalConfig) -> pd.DataFrame:
    """:data:`korean_eval.lens.segment_levels.SEGMENT_METRICS` of the pair with the evaluation's settings."""
    return score_segment_tokens(segment, SEGMENT_METRICS, config)


def draw_scores(scores: pd.DataFrame, n_refs: int, file_stem: str) -> None:
    """The side-by-side score table, the chart, the signatures, and the tidy table with its download."""
    st.markdown("**Scores of this pair at each token level** (sentence level: one segment)")
    fit_table(scores_table(scores), markdown=["level"])
    chart(level_scores_chart(scores), "segment-levels")
    refs = "" if n_refs == 1 else f" Scored against all {n_refs} references (sacrebleu's multi-reference scores)."
    st.caption(
        "BLEU, chrF and chrF++ run from 0 to 100, higher is better; **TER is an error rate** (edits per 100 "
        "reference tokens), lower is better, and can exceed 100. The metric sees each side's tokens joined by single "
        "spaces: BLEU with `tokenize='none'` and, for one sentence, `effective_order=True` (n-gram orders longer than "
        "the sentence are left out); chrF with character order 6 and β = 2; chrF++ adds token uni- and bigrams. "
        "**Plain chrF ignores whitespace**, so it changes across levels only where a tokenizer changes the characters "
        "(Kiwi's lemmatised morphemes, jamo); elsewhere it is the same at every level. Scores of one sentence swing "
        "more than system scores, and raw scores are not comparable across levels as quality: what matters is how "
        "they move." + refs
    )
    by_metric, levels = signature_tables(scores)
    st.markdown("**Signatures** (what each number is, to reproduce it with sacrebleu)")
    fit_table(by_metric, break_anywhere=["sacrebleu signature (sentence level)"])
    st.caption(f"Token levels (the `|level:` part of each signature): {levels}")
    with st.expander(f"Scores as a tidy table ({len(scores)} rows: level × metric)"):
        tidy = tidy_table(scores)
        fit_table(tidy, break_anywhere=["signature"])
        csv_button(tidy, f"{file_stem}-levels.csv", key="tok_scores_csv")


def draw_probe_link(evalset: EvalSet, config: EvalConfig) -> None:
    """The Korean lens's perturbation probe one click away: the link to the lens page and, when the probe of these
    data and settings has been computed, its findings in an expander."""
    from ui import lens_state, lens_views  # the lens's modules only where this section is drawn

    st.page_link("pages/lens.py", icon=":material/manage_search:", query_params={"lens_tab": "Perturbation probe"},
                 label="Korean lens → Perturbation probe: which token level × metric notices which Korean error, "
                       "over all your references")
    result = lens_state.cached_lens(evalset, config, True)
    if result is not None and result.probe is not None:
        with st.expander("The probe's findings on these data"):
            for sentence in lens_views.probe_sentences(result):
                st.markdown(sentence)
            st.caption("Penalties relative to dropping a content eojeol; the lens page has the full heatmap and "
                       "examples.")
    else:
        st.caption("The probe perturbs every reference (a particle, an ending, the spacing, the speech level …) and "
                   "measures how much each level × metric notices; it runs on the Korean lens page, tab "
                   "\"Perturbation probe\".")
