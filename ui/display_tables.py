"""Result tables → the text tables the pages show (pure pandas; no Streamlit): numbers formatted by
:mod:`ui.formats` (scores 2 decimals, ranks integers, "—" for a missing value), columns few and short enough to fit
a 1280-pixel screen, and the CSS of highlighted cells. The numbers themselves come from :mod:`ui.views` and the
backend; nothing is computed here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ui import formats
from ui.views import metric_label

DIFFERS_CSS = "background-color: #FDE2E1; color: #A61B1B; font-weight: 600"
CACHED = "cached"


def score_table_text(scores: pd.DataFrame, ranks: pd.DataFrame, differs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`ui.views.score_table`'s frames → (text, css): cells "score (rank)" ("—" without a score), a first
    ``system`` column, and the red CSS where the metric's rank differs from the human rank."""
    text = pd.DataFrame(
        {
            col: [
                formats.score(v) if not np.isfinite(r) or not np.isfinite(v) else f"{formats.score(v)} ({formats.rank(r)})"
                for v, r in zip(scores[col].astype(float), ranks[col].astype(float), strict=True)
            ]
            for col in scores.columns
        },
        index=scores.index,
    )
    css = differs.replace({True: DIFFERS_CSS, False: ""}).astype(object)
    text.insert(0, "system", list(scores.index))
    css.insert(0, "system", "")
    return text.reset_index(drop=True), css.reset_index(drop=True)


def disagreement_filter(table: pd.DataFrame, min_chars: int, systems: Sequence[str] | None) -> tuple[pd.DataFrame, int]:
    """Rows of :func:`ui.views.disagreements` whose reference has at least ``min_chars`` characters (spaces not
    counted) and whose system is in ``systems`` (None: every system); also the number of rows left out as short."""
    if systems is not None:
        table = table[table["system"].isin(list(systems))]
    if min_chars <= 0:
        return table, 0
    length = table["ref"].fillna("").str.replace(r"\s", "", regex=True).str.len()
    return table[length >= min_chars], int((length < min_chars).sum())


def disagreement_text(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The disagreement rows as the page shows them: scores with 2 decimals, the difference signed, the texts in
    full (a source column only when there are sources)."""
    out = pd.DataFrame(
        {
            "system": table["system"].astype(str),
            "segment": table["seg_id"].astype(str),
            "human": formats.texts(table["human"], formats.score),
            metric_label(metric): formats.texts(table["metric"], formats.score),
            "difference": formats.texts(table["difference"], lambda d: formats.score(d, signed=True)),
            "hypothesis": table["hyp"],
            "reference": table["ref"],
        }
    )
    if "src" in table and table["src"].fillna("").astype(str).str.strip().any():
        out["source"] = table["src"]
    return out.reset_index(drop=True)


def flips_text(flips: pd.DataFrame) -> pd.DataFrame:
    """Flipped pairs (``Results.flips``), one row each: which system the humans prefer over which, and both sides'
    scores of the two (humans' choice first)."""
    cols = ["metric", "level", "humans prefer", "over", "human scores", "metric scores"]
    if flips.empty:
        return pd.DataFrame(columns=cols)
    human_first = (flips["human_a"] > flips["human_b"]).to_numpy()

    def pair(a: pd.Series, b: pd.Series) -> list[str]:
        return [
            f"{formats.score(x)} vs {formats.score(y)}" if first else f"{formats.score(y)} vs {formats.score(x)}"
            for x, y, first in zip(a, b, human_first, strict=True)
        ]

    return pd.DataFrame(
        {
            "metric": flips["metric"].map(metric_label).to_numpy(),
            "level": flips["level"].to_numpy(),
            "humans prefer": np.where(human_first, flips["system_a"], flips["system_b"]),
            "over": np.where(human_first, flips["system_b"], flips["system_a"]),
            "human scores": pair(flips["human_a"], flips["human_b"]),
            "metric scores": pair(flips["metric_a"], flips["metric_b"]),
        },
        columns=cols,
    )


def human_overview_text(overview: pd.DataFrame) -> pd.DataFrame:
    """:func:`ui.views.human_overview` with counts and mean scores as text (2 decimals)."""
    return overview.assign(
        **{
            "scored segments": formats.texts(overview["scored segments"], formats.count),
            "mean human score": formats.texts(overview["mean human score"], formats.score),
        }
    )


def is_cached(seconds: float) -> bool:
    """A level whose tokenizer measured (almost) no time took every token from the cache in that run."""
    return bool(seconds < 1e-3)


def token_stats_text(stats: pd.DataFrame) -> pd.DataFrame:
    """``Results.token_stats`` as text: counts with separators, tokens per word with 2 decimals, tokenizer time in
    seconds or "cached"."""
    return pd.DataFrame(
        {
            "level": stats["level"],
            "family": stats["family"],
            "version": stats["version"],
            "texts": formats.texts(stats["texts"], formats.count),
            "tokens": formats.texts(stats["tokens"], formats.count),
            "words": formats.texts(stats["words"], formats.count),
            "tokens per word": formats.texts(stats["tokens_per_word"], formats.score),
            "tokenizer time": [CACHED if is_cached(s) else f"{s:.2f} s" for s in stats["tokenizer_seconds"]],
            "fallbacks": formats.texts(stats["fallbacks"], formats.count),
        }
    ).reset_index(drop=True)


#: Columns read as shares or rates (3 decimals, like correlations): precision, recall, F1, agreement, "…_rate".
_SHARE_COLUMNS = ("precision", "recall", "f1", "agreement")


def readable(frame: pd.DataFrame, rows: int | None = None) -> pd.DataFrame:
    """Any result table as text for :func:`ui.widgets.fit_table`: headers with spaces for ``_`` (so that a long
    header can wrap), whole numbers with thousands separators, shares and rates (precision, recall, F1, agreement,
    ``*_rate``) with 3 decimals, other numbers with a score's 2, booleans "yes"/"no", "—" for a missing value or an
    empty text; the first ``rows`` rows (None: all)."""
    shown = frame if rows is None else frame.head(rows)
    out = {}
    for col in shown.columns:
        values = shown[col]
        name = str(col)
        if pd.api.types.is_bool_dtype(values):
            out[name.replace("_", " ")] = ["yes" if v else "no" for v in values]
        elif pd.api.types.is_integer_dtype(values):
            out[name.replace("_", " ")] = formats.texts(values, formats.count)
        elif pd.api.types.is_float_dtype(values):
            share = name in _SHARE_COLUMNS or name.endswith("_rate")
            out[name.replace("_", " ")] = formats.texts(values, formats.correlation if share else formats.score)
        else:
            out[name.replace("_", " ")] = [formats.DASH if v is None or v != v or v == "" else v for v in values]
    return pd.DataFrame(out, columns=list(out)).reset_index(drop=True)


def with_ceiling(numbers: pd.DataFrame, ceiling_rows: pd.DataFrame | None) -> pd.DataFrame:
    """:func:`ui.views.numbers_table` with the human ceiling's rows (``ui.ceiling.ceiling_table_rows``) below,
    their value (3 decimals) and n as text like the rest; their CI only where the table has a CI column."""
    if ceiling_rows is None or ceiling_rows.empty:
        return numbers
    rows = ceiling_rows.assign(
        value=formats.texts(ceiling_rows["value"], formats.correlation),
        n=formats.texts(ceiling_rows["n"], formats.count),
        signature=formats.DASH,
    )
    rows = rows[[c for c in rows.columns if c in numbers.columns]]
    return pd.concat([numbers, rows], ignore_index=True).fillna(formats.DASH)


#: The width a table may take on the narrowest screen the pages are laid out for (1280 px, sidebar open), px; the
#: width of one character of table text (Latin; a wide character, e.g. Hangul, counts twice) and a cell's padding.
TABLE_WIDTH_PX = 760
CHAR_PX = 8
CELL_PADDING_PX = 26


def text_width(text: str) -> int:
    """``text``'s width in Latin characters: a wide (East Asian) character counts 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def column_groups(frame: pd.DataFrame, keep: int = 1) -> list[list[str]]:
    """``frame``'s columns after the first ``keep``, in groups small enough that a table of the ``keep`` columns and
    one group fits :data:`TABLE_WIDTH_PX` with every column at least as wide as the longest word in it (header
    included), so that no name breaks mid-word: all in one group when they fit, else as many per group as fit (one at
    least)."""

    def width(column: str) -> int:
        words = [w for text in [str(column), *frame[column].astype(str)] for w in text.split()]
        return CHAR_PX * max((text_width(w) for w in words), default=1) + CELL_PADDING_PX

    budget = TABLE_WIDTH_PX - sum(width(c) for c in frame.columns[:keep])
    groups: list[list[str]] = [[]]
    used = 0
    for column in frame.columns[keep:]:
        w = width(column)
        if groups[-1] and used + w > budget:
            groups.append([])
            used = 0
        groups[-1].append(column)
        used += w
    return groups
