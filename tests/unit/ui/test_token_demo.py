"""The Tokens page's segment demonstration as tables and a figure (:mod:`ui.token_demo`, no Streamlit run): the
side-by-side table, the signatures without repetition, and a chart whose every panel is labelled with its unit and
direction, with few levels (one row of panels) and the study's ten (two rows)."""

from __future__ import annotations

import pandas as pd
import pytest

from korean_eval.lens.segment_levels import COLUMNS, SEGMENT_METRICS, SegmentTokens
from ui import token_demo
from ui.charts import MIN_TEXT

STUDY = ["word", "mecab", "kiwi", "okt", "komoran", "kkma", "hannanum", "spm", "char", "jamo"]


def _scores(levels: list[str]) -> pd.DataFrame:
    rows = [{"level": lv, "metric": m, "score": 10.0 * i + j + (120.0 if m == "ter" and lv == "jamo" else 0.0),
             "ref_tokens": 5 + i, "hyp_tokens": 4 + i, "signature": f"nrefs:1|{m}-sig|version:2.6.0|level:{lv}-1"}
            for i, lv in enumerate(levels) for j, m in enumerate(SEGMENT_METRICS)]
    return pd.DataFrame(rows, columns=COLUMNS)


def test_scores_side_by_side_one_row_per_level():
    table = token_demo.scores_table(_scores(["word", "kiwi", "char"]))
    assert list(table.columns) == ["level", token_demo.TOKEN_COUNTS, "BLEU ↑", "chrF ↑", "chrF++ ↑", "TER ↓"]
    assert table["level"].to_list() == ["**word**", "**kiwi** · morpheme", "**char** · character"]
    assert table.loc[1, "BLEU ↑"] == "10.00" and table.loc[2, "TER ↓"] == "23.00"
    assert table[token_demo.TOKEN_COUNTS].to_list() == ["5 / 4", "6 / 5", "7 / 6"]


def test_signatures_are_listed_once_per_metric_and_level():
    by_metric, levels = token_demo.signature_tables(_scores(["word", "char"]))
    assert by_metric["metric"].to_list() == ["BLEU", "chrF", "chrF++", "TER"]
    assert by_metric["sacrebleu signature (sentence level)"].to_list()[0] == "nrefs:1|bleu-sig|version:2.6.0"
    assert levels == "word: `level:word-1` · char: `level:char-1`"


def test_segment_tokens_join_each_side_by_single_spaces():
    (seg,) = token_demo.segment_tokens({"kiwi": [["가", "는"], ["가", "도"]]}, {"kiwi": ["가", "를"]}, {"kiwi": "v1"})
    assert seg == SegmentTokens("kiwi", "가 를", ("가 는", "가 도"), "v1")


@pytest.mark.parametrize("levels", [["word", "kiwi", "char"], STUDY])
def test_every_panel_is_labelled_with_its_unit_and_direction(levels):
    fig = token_demo.level_scores_chart(_scores(levels))
    layout = fig.to_plotly_json()["layout"]
    axes = ["", "2", "3", "4"]
    for n, trace in zip(axes, fig.data, strict=True):
        x, y = layout[f"xaxis{n}"], layout[f"yaxis{n}"]
        assert x["tickmode"] == "array" and list(x["ticktext"]) == levels and x["title"]["text"] == "token level"
        assert 0 <= min(x["domain"]) and max(x["domain"]) <= 1 and 0 <= min(y["domain"]) and max(y["domain"]) <= 1
        assert y["range"][1] > max(trace.y)  # room for the value written above the highest bar
        assert trace.textfont.size >= MIN_TEXT and x["tickfont"]["size"] >= MIN_TEXT
    assert len({tuple(layout[f"yaxis{n}"]["domain"]) for n in axes}) == 2  # two rows of two panels
    assert layout["yaxis4"]["title"]["text"] == "TER (edits / 100 ref. tokens)"
    assert [a["text"].split("</b>")[0] for a in layout["annotations"]] == ["<b>BLEU", "<b>chrF", "<b>chrF++", "<b>TER"]
    assert "error rate: lower is better" in layout["annotations"][3]["text"]
    # panels do not overlap
    boxes = [(tuple(layout[f"xaxis{n}"]["domain"]), tuple(layout[f"yaxis{n}"]["domain"])) for n in axes]
    for i, (xa, ya) in enumerate(boxes):
        for xb, yb in boxes[i + 1:]:
            assert xa[1] <= xb[0] or xb[1] <= xa[0] or ya[1] <= yb[0] or yb[1] <= ya[0]
