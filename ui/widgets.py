"""Small Streamlit drawing helpers shared by the pages."""

from __future__ import annotations

import re

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from korean_eval.data import EvalSet
from korean_eval.report import to_csv_bytes

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: object) -> str:
    """User text → safe inside ``st.markdown``/``st.error`` (every Markdown and directive character escaped)."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


FAMILY_BADGES = {"word": "blue", "morpheme": "green", "subword": "violet", "character": "orange", "jamo": "red"}


def token_chips(tokens: list[str], family: str) -> str:
    """Tokens as coloured Markdown badges (escaped: a token is always shown as text)."""
    color = FAMILY_BADGES.get(family, "gray")
    return " ".join(f":{color}-background[{md_escape(t)}]" for t in tokens)


def plotly_config(filename: str) -> dict:
    """Plotly toolbar: PNG download at 2× named after the chart; no Plotly logo."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
    }


def chart(fig: go.Figure, name: str, key: str | None = None) -> None:
    """Draw a Plotly figure with the PNG download button configured."""
    st.plotly_chart(fig, config=plotly_config(f"korean-eval-{name}"), key=key or f"chart_{name}", width="stretch")


def csv_button(frame: pd.DataFrame, file_name: str, label: str | None = None, key: str | None = None) -> None:
    st.download_button(
        label or f"{file_name} ({len(frame):,} rows)",
        data=to_csv_bytes(frame),
        file_name=file_name,
        mime="text/csv",
        key=key or f"dl_{file_name}",
        icon=":material/download:",
        on_click="ignore",
    )


def human_note(evalset: EvalSet) -> None:
    """The data's caveat on its human scores (the sample's are SIMULATED), wherever human scores are shown."""
    if evalset.human_note:
        st.info(md_escape(evalset.human_note), icon=":material/science:")


def input_error(err: Exception) -> None:
    """A backend validation error as a red message (never a traceback)."""
    st.error(md_escape(str(err)), icon=":material/error:")


MARK_COLORS = {"extra": "red", "missing": "blue", "edit": "orange"}
"""Background colour of a highlighted text piece by its mark (:mod:`ui.lens_views`)."""


def highlighted(pieces: list[tuple[str, str]]) -> str:
    """``(text, mark)`` pieces as Markdown: marked pieces on a coloured background (escaped: always shown as text)."""
    return "".join(f":{MARK_COLORS[mark]}-background[{md_escape(text)}]" if mark else md_escape(text) for text, mark in pieces)


def text_pairs(examples: list[dict], first: str, second: str, caption) -> None:
    """Examples as rows: a caption line (``caption(example)``, Markdown), then the highlighted ``hyp`` and ``ref``
    pieces labelled ``first`` and ``second``."""
    for example in examples:
        with st.container(border=True):
            st.caption(caption(example))
            st.markdown(f"**{first}** {highlighted(example['hyp'])}")
            st.markdown(f"**{second}** {highlighted(example['ref'])}")
