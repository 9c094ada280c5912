"""Real-world and hostile input through the library: handled with a note, or refused naming file, line and reason.

Every case builds its own data. A case is either *handled* (the evaluation runs; what was done is in the report)
or *refused* (an InputError whose message names the file — and the line where one exists). Never a traceback of
another kind, never a silent drop: excluded rows are counted in the validation report.
"""

from __future__ import annotations

import codecs
import json
import unicodedata
import zipfile
from io import BytesIO

import numpy as np
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.columns import ColumnMap
from korean_eval.inputs.tables import attach_given_scores, attach_human, evalset_from_table
from korean_eval.inputs.text_files import InputError
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import evalset_from_texts
from korean_eval.model.vocabulary import STATISTICS

REF_LINES = ["고양이가 매트 위에 앉았다.", "오늘은 날씨가 정말 좋습니다.", "회의는 오후 3시에 시작합니다.", "서울역에서 KTX를 탔어요."]
HYP_A = ["고양이가 매트에 앉았다.", "오늘 날씨가 정말 좋다.", "회의는 3시에 시작한다.", "서울역에서 KTX를 탔다."]
HYP_B = ["고양이는 매트 위에 앉았다.", "오늘은 날씨 좋습니다.", "회의가 오후 3시 시작합니다.", "서울 역에서 케이티엑스를 탔어요."]
HYP_C = ["매트 위 고양이.", "날씨가 좋습니다.", "회의 3시.", "기차를 탔어요."]
FAST = EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"))


def text(lines: list[str], end: str = "\n", encoding: str = "utf-8") -> bytes:
    return (end.join(lines) + end).encode(encoding)


def build(ref: bytes | None = None, systems: dict[str, bytes] | None = None):
    systems = systems if systems is not None else {"A.txt": text(HYP_A), "B.txt": text(HYP_B), "C.txt": text(HYP_C)}
    return evalset_from_texts([("ref.txt", text(REF_LINES) if ref is None else ref)], list(systems.items()))


def human_csv(rows) -> bytes:
    return ("system,seg_id,score\n" + "".join(f"{s},{i},{v}\n" for s, i, v in rows)).encode()


GOOD_HUMAN = [(s, i, v) for s, base in (("A", 80), ("B", 70), ("C", 30)) for i, v in enumerate(np.arange(4) * 3 + base)]


def handled(evalset, config: EvalConfig = FAST):
    """The evaluation runs to the end and produces finite system scores."""
    results = evaluate(evalset, config)
    assert np.isfinite(results.system_scores["score"]).all()
    return results


def refused(match: str, func, *args, line: int | None = None, file: str | None = None):
    with pytest.raises(InputError) as err:
        func(*args)
    assert match in str(err.value), str(err.value)
    if line is not None:
        assert err.value.line == line, str(err.value)
    if file is not None:
        assert err.value.file == file
    return err.value


# --- encodings and line ends -------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["cp949", "euc-kr"])
def test_01_02_legacy_korean_encodings(encoding):
    ev = build(ref=text(REF_LINES, encoding=encoding))
    assert ev.refs[0] == REF_LINES
    assert any("CP949" in n for n in ev.report.notes)
    handled(ev)


def test_03_utf16_with_bom():
    ev = build(ref=codecs.BOM_UTF16_LE + "\n".join(REF_LINES).encode("utf-16-le"))
    assert ev.refs[0] == REF_LINES and any("UTF-16" in n for n in ev.report.notes)


def test_04_utf8_with_bom():
    ev = build(ref=codecs.BOM_UTF8 + text(REF_LINES))
    assert ev.refs[0][0] == REF_LINES[0]  # the BOM is not part of the first segment


def test_05_06_crlf_and_mixed_line_ends():
    ev = build(ref=text(REF_LINES, end="\r\n"))
    assert ev.refs[0] == REF_LINES
    mixed = (REF_LINES[0] + "\r\n" + REF_LINES[1] + "\n" + REF_LINES[2] + "\r\n" + REF_LINES[3]).encode()
    ev = build(ref=mixed)
    assert ev.refs[0] == REF_LINES and any("mixed line ends (2 CRLF, 1 LF)" in n for n in ev.report.notes)
    cr_only = "\r".join(REF_LINES).encode()  # classic Mac OS: CR is the line end
    assert build(ref=cr_only).refs[0] == REF_LINES


def test_07_nfd_hangul_from_macos():
    nfd = [unicodedata.normalize("NFD", line) for line in REF_LINES]
    ev = build(ref=text(nfd))
    assert ev.refs[0] == REF_LINES
    assert ev.report.nfc_changed_segments == 4
    nfc_scores = handled(build()).system_scores["score"].to_numpy()
    assert np.array_equal(handled(ev).system_scores["score"].to_numpy(), nfc_scores)


def test_08_final_line_without_newline():
    ev = build(ref="\n".join(REF_LINES).encode())
    assert ev.refs[0] == REF_LINES


def test_09_empty_file():
    refused("ref.txt: file is empty", build, b"")
    refused("A.txt: file is empty", build, None, {"A.txt": b""})


def test_10_only_blank_lines():
    refused("only blank lines", build, b"\n\n  \n")


def test_11_blank_lines_inside_are_kept_as_empty_segments():
    ref = text(REF_LINES[:2] + [""] + REF_LINES[3:])
    ev = build(ref=ref)
    assert ev.refs[0][2] == "" and any("empty reference" in n for n in ev.report.notes)
    handled(ev)


def test_12_line_count_mismatch_by_one():
    refused("has 3 lines but the reference has 4", build, None, {"A.txt": text(HYP_A[:3])}, line=4, file="A.txt")


def test_13_system_identical_to_reference():
    ev = build(systems={"copy.txt": text(REF_LINES), "A.txt": text(HYP_A), "C.txt": text(HYP_C)})
    assert any("identical to the reference" in n for n in ev.report.notes)
    scores = handled(ev).system_scores
    assert np.allclose(scores[(scores.system == "copy") & (scores.metric == "bleu")]["score"], 100)


def test_14_empty_hypothesis_line():
    ev = build(systems={"A.txt": text(["", *HYP_A[1:]]), "B.txt": text(HYP_B), "C.txt": text(HYP_C)})
    seg = handled(ev).segment_scores
    first = seg[(seg.system == "A") & (seg.seg_id == "0")].set_index(["level", "metric"])["score"]
    assert (first.xs("bleu", level="metric") == 0).all() and (first.xs("ter", level="metric") == 100).all()


def test_15_very_long_line():
    long = ("한국어 문장 " * 1700)[:10_000]
    ev = build(ref=text([long, *REF_LINES[1:]]), systems={"A.txt": text([long[:-50], *HYP_A[1:]]), "B.txt": text(HYP_B), "C.txt": text(HYP_C)})
    handled(ev, EvalConfig(levels=("word", "char", "mecab"), metrics=("bleu", "chrf", "ter")))


def test_16_control_characters_and_zero_width_spaces():
    ref = text(["고양이가\u200b 매트\x07 위에 앉았다.\u200d", *REF_LINES[1:]])
    ev = build(ref=ref)
    assert ev.refs[0][0] == REF_LINES[0]
    assert any("3 invisible/control" in n for n in ev.report.notes)


def test_17_characters_that_crash_analyzers():
    odd = ["@사용자 😀 이모지 漢字 한자", "ᄀᄀ 옛한글 ꥠ 자모", "#태그 !!! ???", "① ② ㈜ ℃ 🇰🇷"]
    ev = build(ref=text(odd), systems={"A.txt": text(odd[::-1]), "B.txt": text(odd), "C.txt": text(HYP_C)})
    cfg = EvalConfig(levels=("word", "mecab", "kiwi", "okt", "komoran", "kkma", "hannanum", "char", "jamo"), metrics=("bleu", "chrf"))
    results = handled(ev, cfg)
    assert set(results.token_stats["level"]) == set(cfg.levels)


def test_18_duplicate_system_names():
    refused("duplicate system name 'A'", evalset_from_texts, [("ref.txt", text(REF_LINES))], [("x/A.txt", text(HYP_A)), ("y/A.txt", text(HYP_B))])


# --- human and given scores ---------------------------------------------------------------------------------------


def test_19_human_scores_for_unknown_systems_and_segments():
    ev = build()
    attach_human(ev, human_csv([*GOOD_HUMAN, ("Z", 0, 50), ("A", 99, 50), ("A", "x", 1)]), "human.csv")
    reasons = ev.report.excluded_frame().set_index("line")["reason"].to_dict()
    assert reasons == {14: "unknown system", 15: "unknown seg_id", 16: "unknown seg_id"}


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "good", ""])
def test_20_nan_inf_and_text_scores(bad):
    ev = build()
    attach_human(ev, human_csv([*GOOD_HUMAN, ("A", 0, bad)]), "human.csv")
    excluded = ev.report.excluded_frame()
    assert excluded["line"].tolist() == [14]
    assert "score" in excluded["reason"].iloc[0]


def test_21_constant_human_scores_make_correlation_undefined():
    ev = build()
    attach_human(ev, human_csv([(s, i, 50) for s in "ABC" for i in range(4)]), "human.csv")
    assert any("all human scores are equal" in n for n in ev.report.notes)
    corr = handled(ev).correlations
    correlations = corr["statistic"].isin(STATISTICS)
    assert corr.loc[correlations, "value"].isna().all()
    # the pairwise statistics stay defined: every pair is a human tie (acc_eq ties them all with a large enough ε)
    acc = corr[(corr["statistic"] == "acc_eq") & (corr["grouping"] == "item")]
    assert (acc["value"] == 1.0).all()


def test_22_fewer_than_three_systems_for_system_level():
    ev = build(systems={"A.txt": text(HYP_A), "C.txt": text(HYP_C)})
    attach_human(ev, human_csv([r for r in GOOD_HUMAN if r[0] in "AC"]), "human.csv")
    corr = handled(ev).correlations
    correlations = corr[corr["statistic"].isin(STATISTICS)]
    assert correlations[correlations.granularity == "system"]["value"].isna().all()
    assert correlations[correlations.granularity == "segment"]["value"].notna().any()
    # one pair of systems: its pairwise accuracy is defined (0 or 1)
    assert corr[corr["statistic"] == "pairwise_accuracy"]["value"].isin([0.0, 1.0]).all()


# --- files that are not what they claim ----------------------------------------------------------------------------


def test_23_binary_file():
    refused("binary data", build, bytes(range(256)) * 8)


def test_24_zip_file():
    buf = BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ref.txt", text(REF_LINES))
    refused("zip archive", build, buf.getvalue())


def test_25_fifty_megabyte_file_loads():
    line = "대한민국은 민주공화국이다. 모든 권력은 국민으로부터 나온다. " * 3
    n = 50 * 1024 * 1024 // len(line.encode())
    big = text([line] * n)
    assert len(big) >= 50 * 1024 * 1024 - 1024
    ev = evalset_from_texts([("big.txt", big)], [("A.txt", big)])
    assert ev.n_segments == n


def test_26_korean_column_names():
    rows = [{"시스템": s, "문장": str(i), "번역": h, "참조": r} for s, hyps in (("A", HYP_A), ("B", HYP_B), ("C", HYP_C)) for i, (h, r) in enumerate(zip(hyps, REF_LINES, strict=True))]
    data = ("시스템,문장,번역,참조\n" + "".join(f"{r['시스템']},{r['문장']},{r['번역']},{r['참조']}\n" for r in rows)).encode("cp949")
    ev = evalset_from_table(data, "t.csv", ColumnMap.parse("system=시스템,seg_id=문장,hyp=번역,ref=참조"))
    assert ev.system_names == ["A", "B", "C"] and ev.refs[0] == REF_LINES
    # common Korean names are recognised without a mapping, except where ambiguous (문장 is not a known id name)
    refused("no seg_id column", evalset_from_table, data, "t.csv")
    auto = evalset_from_table(data.decode("cp949").replace("문장,", "문장번호,", 1).encode(), "t.csv")
    assert auto.systems == ev.systems
    handled(ev)


def test_27_csv_with_quoted_newlines():
    data = 'system,seg_id,hyp,ref\nA,0,"첫 줄\n둘째 줄","참조\n문장"\nB,0,가,"참조\n문장"\nA,1,"x","y"\nB,1,"""따옴표""",y\n'.encode()
    ev = evalset_from_table(data, "t.csv")
    assert ev.systems["A"][0] == "첫 줄 둘째 줄" and ev.systems["B"][1] == '"따옴표"'  # a break in a cell is a space
    assert any("2 row(s) hold a quoted cell with a line break" in n and "lines 2–4, 5–6" in n for n in ev.report.notes)
    bad = b'system,seg_id,hyp,ref\nA,0,"a\nb",r\nB,0,x,r,extra\n'
    refused("row has 5 fields", evalset_from_table, bad, "t.csv", line=4)


def test_28_utf16_without_bom():
    ev = build(ref=("\n".join(REF_LINES) + "\n").encode("utf-16-le"))
    assert ev.refs[0] == REF_LINES


def test_29_undecodable_bytes_name_the_line():
    data = text(REF_LINES[:2]) + b"\xff\xfe\xfa broken \x80\x81\n" + text(REF_LINES[3:])
    refused("cannot be decoded", build, data, line=3, file="ref.txt")


def test_30_jsonl_with_a_broken_line():
    good = json.dumps({"system": "A", "seg_id": "0", "hyp": "가", "ref": "나"}, ensure_ascii=False)
    refused("not valid JSON", evalset_from_table, (good + "\n{broken\n").encode(), "t.jsonl", line=2)


def test_31_table_with_a_repeated_item():
    data = "system,seg_id,hyp,ref\nA,0,가,나\nA,0,다,나\n".encode()
    refused("has segment '0' twice (first on line 2)", evalset_from_table, data, "t.csv", line=3)


def test_32_header_only_tables():
    refused("header but no rows", evalset_from_table, b"system,seg_id,hyp,ref\n", "t.csv")
    ev = build()
    refused("header but no rows", attach_human, ev, b"system,seg_id,score\n", "h.csv")


def test_33_tsv_with_bom_and_crlf_human_scores():
    ev = build()
    tsv = codecs.BOM_UTF8 + "".join(f"{s}\t{i}\t{v}\r\n" for s, i, v in [("system", "seg_id", "score"), *GOOD_HUMAN]).encode()
    attach_human(ev, tsv, "human.tsv")
    assert len(ev.human) == 12 and not ev.report.excluded


def test_34_given_scores_with_bad_cells_are_counted_per_metric():
    ev = build()
    data = b"system,seg_id,comet,bleurt\nA,0,0.5,x\nA,1,inf,0.2\nB,0,0.3,0.4\n"
    attach_given_scores(ev, data, "scores.csv")
    assert sorted(ev.report.excluded_frame()["line"]) == [2, 3]
    assert len(ev.given) == 4


def test_35_segment_ids_from_several_columns_and_unknown_ones():
    ev = evalset_from_table(
        "Sys,DocID,SentID,Hyp,Ref\nA,1,1,가,나\nB,1,1,다,나\nA,1,2,라,마\nB,1,2,바,마\n".encode(), "t.csv"
    )
    assert ev.seg_ids == ["1-1", "1-2"]
    attach_human(ev, b"Sys,DocID,SentID,Z\nA,1,1,0.5\nB,1,1,0.1\nA,2,1,0.3\n", "h.csv", ColumnMap.parse("score=Z"))
    assert ev.report.excluded_frame()["reason"].tolist() == ["unknown seg_id"]
