"""Small Streamlit drawing helpers shared by the pages."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.model.evalset import EvalSet
from ui import formats
from ui.formats import DASH

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_UNSAFE_IN_FILE_NAMES = re.compile(r"[^0-9A-Za-z_.+-]+")


def md_escape(text: object) -> str:
    """User text → safe inside ``st.markdown``/``st.error`` (every Markdown and directive character escaped)."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def safe_file_name(name: str) -> str:
    """A download's file name from names that may come from user files: every run of characters other than
    ASCII letters, digits and ``_ . + -`` becomes one ``-``."""
    return _UNSAFE_IN_FILE_NAMES.sub("-", name)


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


def _cell_text(value: object, markdown: bool) -> object:
    """A cell of :func:`fit_table`: "—" when missing, user text escaped (shown as text, never as Markdown), a float
    the caller left unformatted with a score's 2 decimals (:func:`ui.formats.score`)."""
    if value is None or (isinstance(value, float) and value != value):
        return DASH
    if isinstance(value, str):
        return value if markdown else md_escape(value)
    if isinstance(value, float):
        return md_escape(formats.score(value))
    return value


def fit_table(
    frame: pd.DataFrame,
    styles: pd.DataFrame | None = None,
    height: int | None = None,
    markdown: Sequence[str] = (),
    break_anywhere: Sequence[str] = (),
) -> None:
    """A static table that fits its box (``st.table``: columns share the width and every cell wraps; with
    ``height``, rows scroll under a sticky header). Cells are shown as text (Markdown escaped, except the columns
    in ``markdown``), "—" where a value is missing; format numbers first (:mod:`ui.formats`). ``styles``: CSS per
    cell (same shape as ``frame``); ``break_anywhere``: columns whose long unbroken strings (signatures) may break
    at any character."""
    shown = pd.DataFrame(
        {col: [_cell_text(v, col in markdown) for v in frame[col]] for col in frame.columns}, index=frame.index
    )
    shown.columns = [md_escape(c) for c in frame.columns]
    styler = shown.style.hide(axis="index")
    if styles is not None:
        css = styles.copy()
        css.columns, css.index = shown.columns, shown.index
        styler = styler.apply(lambda _: css, axis=None)
    # The cell's text sits in a Markdown container inside the <td>, so the rule targets the td's descendants.
    anywhere = [f"td.col{j}, td.col{j} *" for j, c in enumerate(frame.columns) if c in break_anywhere]
    if anywhere:
        styler = styler.set_table_styles([{"selector": ", ".join(anywhere), "props": "overflow-wrap: anywhere"}])
    st.table(styler, height=height or "content")


def csv_button(frame: pd.DataFrame, file_name: str, label: str | None = None, key: str | None = None,
               data: bytes | None = None) -> None:
    """A download button of ``frame`` as CSV (``data``: its bytes when made already, :func:`to_csv_bytes`); a 0-row
    table gets a caption instead (nothing to download)."""
    file_name = safe_file_name(file_name)
    if frame.empty:
        st.caption(f"{md_escape(file_name)}: no rows, nothing to download.")
        return
    st.download_button(
        label or f"{file_name} ({len(frame):,} rows)",
        data=to_csv_bytes(frame) if data is None else data,
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
