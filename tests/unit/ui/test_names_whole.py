"""Ranking and score tables keep system names whole: their levels are split over as many tables as let every column
be as wide as its longest word (:func:`ui.display_tables.column_groups`)."""

from __future__ import annotations

import pandas as pd

from ui.display_tables import CELL_PADDING_PX, CHAR_PX, TABLE_WIDTH_PX, column_groups, text_width

LEVELS = ["word", "mecab", "kiwi", "okt", "komoran", "kkma", "hannanum", "spm", "char", "jamo"]


def _width(frame: pd.DataFrame, column: str) -> int:
    words = [w for text in [column, *frame[column].astype(str)] for w in text.split()]
    return CHAR_PX * max(text_width(w) for w in words) + CELL_PADDING_PX


def test_short_cells_stay_in_one_table():
    frame = pd.DataFrame({"Human": ["A (1.0)"], **{lv: ["B (2.0)"] for lv in LEVELS[:5]}})
    assert column_groups(frame) == [LEVELS[:5]]


def test_long_names_split_the_levels_and_every_table_fits():
    names = ["Claude-3.5_Sonnet_zero-shot", "한국어_번역기_베이스라인", "GPT-4o_mini_2024-07-18"]
    frame = pd.DataFrame({"Human": [f"{n}  \n(1.00)" for n in names],
                          **{lv: [f"{n}  \n(2.00)  \nhuman #2" for n in reversed(names)] for lv in LEVELS}})
    groups = column_groups(frame)
    assert len(groups) > 1 and [c for g in groups for c in g] == LEVELS  # every level once, in order
    for group in groups:
        assert _width(frame, "Human") + sum(_width(frame, c) for c in group) <= TABLE_WIDTH_PX
    assert text_width("한국어") == 6  # a Hangul syllable is as wide as two Latin letters


def test_a_name_wider_than_the_page_still_gets_a_table_of_its_own():
    frame = pd.DataFrame({"system": ["x" * 200], "word": ["1"], "char": ["2"]})
    assert column_groups(frame) == [["word"], ["char"]]
