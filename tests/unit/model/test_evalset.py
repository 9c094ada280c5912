"""Loading and validating evaluation inputs (korean_eval.model.evalset)."""

import json

import pandas as pd
import pytest

from korean_eval.inputs.columns import ColumnMap
from korean_eval.inputs.tables import attach_given_scores, attach_human, evalset_from_table
from korean_eval.model.evalset import InputError, evalset_from_texts
from tests.support.helpers import STUDY, require

REF = "고양이가 매트 위에 앉았다.\n오늘은 날씨가 좋다.\n회의는 3시에 시작합니다.\n".encode()
SYS_A = "고양이가 매트 위에 앉았다.\n오늘 날씨가 좋다.\n회의는 세 시에 시작합니다.\n".encode()
SYS_B = "고양이는 매트에 앉았다.\n오늘은 날씨 좋다.\n회의가 3시에 시작한다.\n".encode()


def make(refs=None, systems=None):
    return evalset_from_texts(refs or [("ref.txt", REF)], systems or [("A.txt", SYS_A), ("B.txt", SYS_B)])


def test_texts_basic():
    ev = make()
    assert ev.seg_ids == ["0", "1", "2"]
    assert ev.system_names == ["A", "B"]
    assert ev.n_refs == 1 and ev.refs[0][2] == "회의는 3시에 시작합니다."


def test_multi_reference():
    ev = make(refs=[("r1.txt", REF), ("r2.txt", SYS_B)])
    assert ev.n_refs == 2 and ev.refs[1][0] == "고양이는 매트에 앉았다."


def test_line_count_mismatch_names_file_and_line():
    with pytest.raises(InputError) as err:
        make(systems=[("A.txt", SYS_A), ("B.txt", SYS_B + "추가 줄\n".encode())])
    assert err.value.file == "B.txt" and "4 lines" in str(err.value) and "3" in str(err.value)


def test_duplicate_system_names():
    with pytest.raises(InputError, match="duplicate system name 'A'"):
        evalset_from_texts([("ref.txt", REF)], [("x/A.txt", SYS_A), ("y/A.txt", SYS_B)])


def test_empty_and_identical_system():
    with pytest.raises(InputError, match="empty"):
        make(systems=[("A.txt", b"")])
    ev = make(systems=[("copy.txt", REF)])
    assert any("identical to the reference" in n for n in ev.report.notes)


def _csv(rows, header):
    return ("\n".join([",".join(header)] + [",".join(map(str, r)) for r in rows]) + "\n").encode()


def test_human_scores_exclusions_are_counted():
    ev = make()
    human = _csv(
        [("A", 0, 80), ("A", 1, 70), ("B", 0, "nan"), ("B", 1, "inf"), ("B", 2, "good"), ("C", 0, 50), ("A", 9, 1), ("A", 0, 90)],
        ["system", "seg_id", "score"],
    )
    attach_human(ev, human, "human.csv")
    excluded = ev.report.excluded_frame()
    assert sorted(excluded["line"]) == [4, 5, 6, 7, 8]
    reasons = dict(zip(excluded["line"], excluded["reason"], strict=True))
    assert reasons[7] == "unknown system" and reasons[8] == "unknown seg_id"
    assert "not a finite number" in reasons[4] and "not a finite number" in reasons[6]
    a0 = ev.human[(ev.human.system == "A") & (ev.human.seg_id == "0")].iloc[0]
    assert a0.score == pytest.approx(85.0) and a0.n_ratings == 2


def test_human_scores_all_bad_is_an_error():
    ev = make()
    with pytest.raises(InputError, match="no usable human"):
        attach_human(ev, _csv([("Z", 0, 1)], ["system", "seg_id", "score"]), "h.csv")


def test_given_scores_tidy_and_bad_values():
    ev = make()
    given = _csv([("A", 0, 0.5, 0.1), ("A", 1, 0.6, "x"), ("B", 0, 0.7, 0.3)], ["system", "seg_id", "comet", "bleurt"])
    attach_given_scores(ev, given, "scores.csv")
    assert set(ev.given.metric) == {"comet", "bleurt"}
    assert len(ev.given) == 5
    assert ev.report.excluded_frame()["line"].tolist() == [3]


def test_table_jsonl_and_quoted_newlines():
    rows = [{"system": "A", "seg_id": "s1", "hyp": "가나", "ref": "가나다"}, {"system": "B", "seg_id": "s1", "hyp": "가", "ref": "가나다"}]
    ev = evalset_from_table("\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode(), "t.jsonl")
    assert ev.systems == {"A": ["가나"], "B": ["가"]}
    csv = 'system,seg_id,hyp,ref\nA,1,"여러\n줄",ref\nB,1,x,ref\n'.encode()
    ev = evalset_from_table(csv, "t.csv")
    assert ev.systems["A"] == ["여러 줄"]  # the line break inside a quoted cell is read as a space (noted)


def test_table_errors_name_line():
    csv = b"system,seg_id,hyp,ref\nA,1,x,r1\nB,1,y,r2\n"
    with pytest.raises(InputError) as err:
        evalset_from_table(csv, "t.csv")
    assert err.value.line == 3 and "different reference" in str(err.value)
    with pytest.raises(InputError, match="no hyp column"):
        evalset_from_table(b"system,seg_id,out,ref\nA,1,x,r\n", "t.csv")


def test_study_table_with_mapping_and_human_column():
    path = require(STUDY / "doc1_with_text.csv")
    data = path.read_bytes()
    mapping = ColumnMap.parse("system=Sys,seg_id=DocID+SentID,hyp=Hyp,ref=Ref")
    ev = evalset_from_table(data, path.name, mapping, human_col="Z_adequacy")
    raw = pd.read_csv(path)
    assert ev.n_segments == raw.SentID.nunique() == 18
    assert sorted(ev.system_names) == ["Sys_A", "Sys_B", "Sys_P", "Sys_Q"]
    assert len(ev.human) == len(raw) == 64
    assert sum(h is not None for hs in ev.systems.values() for h in hs) == 64
    # auto-detected columns give the same set
    auto = evalset_from_table(data, path.name, human_col="Z_adequacy")
    assert auto.seg_ids == ev.seg_ids and auto.systems == ev.systems
    assert any("Sys_B lacks 7 of 18" in n for n in ev.report.notes)


def test_column_map_parse_errors():
    with pytest.raises(InputError, match="cannot read"):
        ColumnMap.parse("system:Sys")
    assert ColumnMap.parse("seg_id=DocID+SentID").seg_id == ("DocID", "SentID")


def test_scores_for_pairs_without_a_hypothesis_are_excluded():
    table = "system,seg_id,hyp,ref\nA,1,가,나\nB,1,다,나\nA,2,라,마\n".encode()
    ev = evalset_from_table(table, "t.csv")
    assert ev.systems["B"] == ["다", None]
    attach_human(ev, b"system,seg_id,score\nA,1,1\nB,1,2\nA,2,3\nB,2,4\n", "h.csv")
    excluded = ev.report.excluded_frame()
    assert excluded[["line", "reason"]].values.tolist() == [[5, "no hypothesis of this system for this segment"]]
    assert len(ev.human) == 3
