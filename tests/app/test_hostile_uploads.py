"""Real-world and hostile files through the dashboard's Data page (Streamlit AppTest drives its file uploaders).

Every case uploads files into the Data page exactly as a person would, presses its button, and asserts one of:

* **handled** — the data were loaded (the page's success message) and what was done is said on the page (the
  validation report's notes, the excluded-rows warning, or a message on the results pages);
* **refused** — one red message naming the file (and the line, where there is one) and the reason, the previous data
  still in use;

and never an exception. Handled cases also open the Correlations page on the new data. Runs use the word and char
levels only (plus the analyzers in the case about characters that crash analyzers).
"""

from __future__ import annotations

import codecs
import hashlib
import io
import unicodedata
import zipfile
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.inputs.sample import load_sample
from tests.support.data_page import (
    HUMAN,
    REF,
    SYS_A,
    SYS_B,
    SYS_C,
    assert_handled,
    assert_refused,
    data_page,
    human_csv,
    page_text,
    text,
    unescape,
)
from ui import state

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

# ----------------------------------------------------------------------------------------------- driving


@dataclass
class Files:
    """What one case uploads in the "Text files" panel (file name → bytes)."""

    refs: list[tuple[str, bytes]] = field(default_factory=lambda: [("ref.txt", text(REF))])
    systems: list[tuple[str, bytes]] = field(
        default_factory=lambda: [("sys_a.txt", text(SYS_A)), ("sys_b.txt", text(SYS_B)), ("sys_c.txt", text(SYS_C))]
    )
    human: tuple[str, bytes] | None = ("human.csv", human_csv())
    given: tuple[str, bytes] | None = None
    src: tuple[str, bytes] | None = None


def _set(at: AppTest, key: str, files) -> None:
    if files:
        at.file_uploader(key=key).set_value([(name, data, "application/octet-stream") for name, data in files])


def upload_texts(files: Files, **session) -> AppTest:
    """Every file of ``files`` dropped into its uploader of the "Text files" panel (each uploader is on the page from
    the start), the page run with them, then "Use these files" pressed."""
    at = data_page(**session)
    _set(at, "up_refs", files.refs)
    _set(at, "up_systems", files.systems)
    for key, one in (("up_human", files.human), ("up_given", files.given), ("up_src", files.src)):
        if one is not None:
            at.file_uploader(key=key).set_value((one[0], one[1], "text/csv"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="use_texts").click().run()
    return at


def upload_table(name: str, data: bytes, roles: dict[str, object] | None = None, **session) -> AppTest:
    """Upload one long table, optionally pick column roles (role → column or list of columns), press the button."""
    at = data_page(**session)
    at.segmented_control(key="data_mode").set_value("One long table").run()
    at.file_uploader(key="up_table").set_value((name, data, "text/csv"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if at.error:  # the table could not even be read: no pickers, the reason is shown
        return at
    if roles:
        columns = list(at.selectbox(key=_table_key(at, "system")).options)
        prefix = "tbl_" + hashlib.sha1("|".join(columns).encode()).hexdigest()[:8] + "_"
        for role, value in roles.items():
            widget = at.multiselect(key=prefix + role) if role in ("seg", "ref") else at.selectbox(key=prefix + role)
            widget.set_value(value)
        at.run()
    at.button(key="use_table").click().run()
    return at


def _table_key(at: AppTest, role: str) -> str:
    return next(w.key for w in at.selectbox if w.key and w.key.startswith("tbl_") and w.key.endswith("_" + role))


# --------------------------------------------------------------------------------------- encodings, line ends


def test_cp949_reference_is_decoded_and_said():
    files = Files(refs=[("ref.txt", text(REF, encoding="cp949"))])
    assert_handled(upload_texts(files), r"ref\.txt: decoded as CP949/EUC-KR")


def test_euc_kr_system_file_is_decoded_and_said():
    files = Files()
    files.systems[1] = ("sys_b.txt", text(SYS_B, encoding="euc-kr"))
    assert_handled(upload_texts(files), r"sys_b\.txt: decoded as CP949/EUC-KR")


def test_utf16_le_with_bom():
    files = Files(refs=[("ref.txt", codecs.BOM_UTF16_LE + text(REF, encoding="utf-16-le"))])
    assert_handled(upload_texts(files), r"ref\.txt: decoded as UTF-16 LE with BOM")


def test_utf16_be_with_bom_and_crlf():
    files = Files()
    files.systems[0] = ("sys_a.txt", codecs.BOM_UTF16_BE + text(SYS_A, end="\r\n", encoding="utf-16-be"))
    assert_handled(upload_texts(files), r"sys_a\.txt: decoded as UTF-16 BE with BOM", r"sys_a\.txt: CRLF line ends")


def test_utf16_without_bom_korean_with_ascii_is_detected():
    lines = ["KTX 3 pm 회의", "OK 2024-01-01 좋다", "A B C D 가", "x y z 나", "1 2 3 다", "hello world 라"]
    files = Files(systems=[("sys_a.txt", text(lines, encoding="utf-16-le")), ("sys_b.txt", text(SYS_B))], human=None)
    assert_handled(upload_texts(files), r"sys_a\.txt: decoded as UTF-16-LE \(no byte-order mark\)")


def test_ascii_only_utf16_without_bom_is_decoded_not_misread():
    """Bytes of ASCII text in UTF-16 are also valid UTF-8 (with NULs between the letters): they are read as UTF-16,
    not as NUL-stripped text with an extra line."""
    lines = ["KTX 3 pm", "OK 2024-01-01", "A B C D", "x y z", "1 2 3", "hello world"]
    files = Files(systems=[("ids.txt", text(lines, encoding="utf-16-le")), ("sys_b.txt", text(SYS_B))], human=None)
    assert_handled(upload_texts(files), r"ids\.txt: decoded as UTF-16-LE \(no byte-order mark\)")


def test_korean_utf16_without_bom_is_decoded_with_a_note():
    # few NUL bytes (only the line ends): the Hangul high bytes identify UTF-16 LE
    hangul_only = ["고양이", "날씨", "회의", "서울역", "도서관", "김치찌개"]
    files = Files(refs=[("ref.txt", text(hangul_only, encoding="utf-16-le"))],
                  systems=[("sys_a.txt", text(hangul_only[::-1], encoding="utf-16-le")), ("sys_b.txt", text(hangul_only))])
    assert_handled(upload_texts(files), r"ref\.txt: decoded as UTF-16-LE \(no byte-order mark\)", evaluate=False)


def test_utf8_with_bom():
    files = Files(refs=[("ref.txt", codecs.BOM_UTF8 + text(REF))])
    shown = assert_handled(upload_texts(files), r"ref\.txt: decoded as UTF-8 with BOM")
    assert "\ufeff" not in shown


def test_crlf_line_ends():
    files = Files(refs=[("ref.txt", text(REF, end="\r\n"))])
    assert_handled(upload_texts(files), r"ref\.txt: CRLF line ends", evaluate=False)


def test_mixed_line_ends_are_counted():
    mixed = ("\r\n".join(REF[:3]) + "\n" + "\n".join(REF[3:]) + "\n").encode()
    files = Files(refs=[("ref.txt", mixed)])
    assert_handled(upload_texts(files), r"ref\.txt: mixed line ends \(2 CRLF, 4 LF\)")


def test_nfd_hangul_is_normalised_and_counted():
    files = Files()
    files.systems[0] = ("sys_a.txt", text([unicodedata.normalize("NFD", s) for s in SYS_A]))
    at = upload_texts(files)
    assert_handled(at, r"sys_a\.txt: 6 line\(s\) normalised to Unicode NFC", evaluate=False)
    assert {m.label: m.value for m in at.metric}["segments changed by NFC"] == "6"
    assert at.session_state[state.EVALSET_KEY].systems["sys_a"] == SYS_A


def test_final_line_without_newline_is_a_line():
    files = Files(refs=[("ref.txt", text(REF, final=False))])
    at = upload_texts(files)
    assert {m.label: m.value for m in at.metric}["segments"] == "6"
    assert_handled(at, r"6 segments")


# ------------------------------------------------------------------------------------------ empty, blank, counts


def test_empty_file_is_refused():
    files = Files()
    files.systems[2] = ("sys_c.txt", b"")
    assert_refused(upload_texts(files), "sys_c.txt", r"file is empty")


def test_file_of_blank_lines_is_refused():
    files = Files(refs=[("ref.txt", b"\n  \n\t\n\n\n\n")])
    assert_refused(upload_texts(files), "ref.txt", r"only blank lines")


def test_blank_lines_inside_are_kept_as_empty_segments():
    lines = [*REF[:2], "", *REF[3:]]
    files = Files(refs=[("ref.txt", text(lines))])
    assert_handled(upload_texts(files), r"1 blank line\(s\) kept as empty segments", r"1 empty reference line")


def test_one_line_too_few_names_file_and_line():
    files = Files()
    files.systems[1] = ("sys_b.txt", text(SYS_B[:-1]))
    assert_refused(upload_texts(files), "sys_b.txt", r"has 5 lines but the reference has 6", line=6)


def test_one_line_too_many_names_file_and_line():
    files = Files()
    files.systems[0] = ("sys_a.txt", text([*SYS_A, "남는 줄"]))
    assert_refused(upload_texts(files), "sys_a.txt", r"has 7 lines but the reference has 6", line=7)


def test_references_of_different_lengths_are_refused():
    files = Files(refs=[("ref.txt", text(REF)), ("ref2.txt", text(REF[:4]))])
    assert_refused(upload_texts(files), "ref2.txt", r"has 4 lines but ref\.txt has 6")


def test_system_identical_to_the_reference_is_said():
    files = Files()
    files.systems.append(("copy.txt", text(REF)))
    assert_handled(upload_texts(files), r"copy\.txt: identical to the reference \(scores will be perfect\)")


def test_empty_hypothesis_line_is_kept_and_said():
    files = Files()
    files.systems[2] = ("sys_c.txt", text([*SYS_C[:3], "", *SYS_C[4:]]))
    assert_handled(upload_texts(files), r"sys_c\.txt: 1 blank line\(s\) kept as empty segments")


# ------------------------------------------------------------------------------------------- hostile characters


def test_very_long_lines_are_evaluated():
    long_line = ("아주 긴 문장입니다 " * 1200)[:10_000]
    files = Files()
    files.systems[0] = ("sys_a.txt", text([long_line, *SYS_A[1:]]))
    files.refs = [("ref.txt", text([long_line[:9_999] + "다", *REF[1:]]))]
    at = upload_texts(files)
    assert_handled(at, r"Loaded ref\.txt \+ 3 system files")
    assert len(at.session_state[state.EVALSET_KEY].systems["sys_a"][0]) == 10_000


def test_control_and_zero_width_characters_are_removed_and_counted():
    dirty = [s.replace(" ", "\u200b ", 1) for s in SYS_A]
    dirty[0] = "\x07" + dirty[0] + "\x1b[31m"
    dirty[1] = "\u202e" + dirty[1] + "\ufeff"
    files = Files()
    files.systems[0] = ("sys_a.txt", text(dirty))
    at = upload_texts(files)
    assert_handled(at, r"sys_a\.txt: \d+ invisible/control character\(s\) removed")
    hyps = at.session_state[state.EVALSET_KEY].systems["sys_a"]
    assert not any(ch in "".join(hyps) for ch in "\u200b\x07\x1b\u202e\ufeff")


def test_characters_that_crash_analyzers_are_scored_at_every_analyzer_level():
    odd = [
        "이메일은 kim@example.com 입니다 @@@",
        "좋아요 😀👍🏽 🇰🇷 ❤️",
        "大韓民國 憲法 第1條 대한민국은 民主共和國이다.",
        "옛한글 ᄒᆞᆫ글 ㆍㆆㅿ 와 ᅟᅠ 채움 문자",
        "ㅋㅋㅋㅋ ㅠㅠ ㄱㄴㄷ",
        "§ ¶ † ‡ ※ № ℡ ㈜ ㉠ ㊙",
    ]
    files = Files(systems=[("odd.txt", text(odd)), ("sys_b.txt", text(SYS_B)), ("sys_c.txt", text(SYS_C))],
                  human=("human.csv", human_csv({"odd": HUMAN["sys_a"], "sys_b": HUMAN["sys_b"], "sys_c": HUMAN["sys_c"]})))
    at = upload_texts(files, **{"level|kiwi": True, "level|mecab": True, "level|jamo": True})
    assert_handled(at, r"Loaded")
    at.switch_page("pages/tokens.py").run()
    assert not at.exception and not at.error
    at.switch_page("pages/scores.py").run()
    assert not at.exception and not at.error
    ranking = next(t.value for t in at.table if list(t.value.columns)[:1] == ["Human"])
    assert {"word", "mecab", "kiwi", "char", "jamo"} <= set(ranking.columns)


def test_unicode_line_separators_do_not_split_lines():
    lines = [*SYS_A]
    lines[2] = "회의는\u2028 3시에\u2029 시작\x85한다.\x0c"
    files = Files()
    files.systems[0] = ("sys_a.txt", text(lines))
    at = upload_texts(files)
    assert_handled(at, r"Loaded")
    assert len(at.session_state[state.EVALSET_KEY].systems["sys_a"]) == 6


def test_duplicate_system_names_are_refused():
    files = Files(systems=[("sys_a.txt", text(SYS_A)), ("sys_a.txt", text(SYS_B))])
    assert_refused(upload_texts(files), "sys_a.txt", r"duplicate system name 'sys_a'")


# ------------------------------------------------------------------------------------------------ human scores


def test_human_scores_for_unknown_systems_and_segments_are_excluded_and_listed():
    extra = "ghost,0,50\nsys_a,99,50\nsys_b,-1,40\n"
    files = Files(human=("human.csv", human_csv(extra=extra)))
    at = upload_texts(files)
    excluded = next(t.value for t in at.table if list(t.value.columns) == ["file", "line", "reason"])
    assert sorted(excluded["line"]) == [20, 21, 22]
    assert_handled(at, r"3 input row\(s\) were not used", r"human\.csv — unknown system \(1\)",
                   r"human\.csv — unknown seg_id \(2\)")


def test_nan_inf_and_text_scores_are_excluded_with_their_reason():
    scores = {k: list(v) for k, v in HUMAN.items()}
    scores["sys_a"][0], scores["sys_a"][1], scores["sys_b"][2], scores["sys_c"][3] = "nan", "inf", "-Infinity", "좋음"
    scores["sys_c"][4] = ""
    at = upload_texts(Files(human=("human.csv", human_csv(scores))))
    shown = assert_handled(at, r"5 input row\(s\) were not used", r"score: not a finite number", r"score: empty score")
    assert "좋음" in shown


def test_human_file_without_a_usable_row_is_refused():
    files = Files(human=("human.csv", human_csv({"nobody": [1, 2, 3, 4, 5, 6]})))
    assert_refused(upload_texts(files), "human.csv", r"no usable human score rows")


def test_human_file_without_a_score_column_is_refused_with_the_columns():
    files = Files(human=("human.csv", b"system,seg_id,rating_text\nsys_a,0,good\n"))
    assert_refused(upload_texts(files), "human.csv", r"no score column.*columns are system, seg_id, rating_text", line=1)


def test_human_scores_with_semicolons_and_decimal_commas():
    rows = ["system;seg_id;score"] + [f"{s};{i};{v},5" for s, vals in HUMAN.items() for i, v in enumerate(vals)]
    files = Files(human=("human.txt", ("\n".join(rows) + "\n").encode("cp949")))
    at = upload_texts(files)
    assert_handled(at, r"Loaded")
    human = at.session_state[state.EVALSET_KEY].human.set_index(["system", "seg_id"])["score"]
    assert human[("sys_a", "0")] == pytest.approx(80.5)


def test_constant_human_scores_say_correlation_is_undefined():
    constant = {k: [50] * 6 for k in HUMAN}
    at = upload_texts(Files(human=("human.csv", human_csv(constant))))
    assert_handled(at, r"all human scores are equal: correlations are undefined", evaluate=False)
    at.switch_page("pages/correlations.py").run()
    assert not at.exception and not at.error
    warnings = unescape(" ".join(w.value for w in at.warning))
    assert "Segment level" in warnings and "System level" in warnings
    assert "Every human score is the same (50)" in warnings
    titles = [c.proto.spec for c in at.get("plotly_chart")]
    assert not any("Segment level" in t or "System level" in t for t in titles), "no correlation chart is drawn"
    headlines = [c.value for c in at.caption
                 if c.value == "Segment level" or c.value.startswith(("System level ·", "Token level matters"))]
    assert not headlines, "no headline card over undefined correlations"
    at.switch_page("pages/scores.py").run()
    assert not at.exception and not at.error


def test_two_systems_say_system_level_needs_three():
    files = Files(systems=[("sys_a.txt", text(SYS_A)), ("sys_b.txt", text(SYS_B))])
    at = upload_texts(files)
    assert_handled(at, r"2 systems × 6 segments", evaluate=False)
    at.switch_page("pages/correlations.py").run()
    assert not at.exception and not at.error
    warnings = unescape(" ".join(w.value for w in at.warning))
    assert "System-level correlation needs at least 3 systems with human scores; these data have 2" in warnings
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert any("Segment level" in s for s in specs) and not any('"System level"' in s for s in specs)
    if any(b.key == "sig_compute" for b in at.button):  # not computed yet in this process
        at.button(key="sig_compute").click().run()
    assert not at.exception and not at.error
    at.switch_page("pages/scores.py").run()
    assert not at.exception and not at.error


def test_one_system_is_explained_on_every_page():
    files = Files(systems=[("sys_a.txt", text(SYS_A))], human=("human.csv", human_csv({"sys_a": HUMAN["sys_a"]})))
    at = upload_texts(files)
    assert_handled(at, r"1 systems × 6 segments", evaluate=False)
    at.switch_page("pages/correlations.py").run()
    assert not at.exception and not at.error
    assert "these data have 1" in unescape(" ".join(w.value for w in at.warning))
    at.switch_page("pages/scores.py").run()
    assert not at.exception and not at.error
    assert any("only one system" in i.value for i in at.info)
    at.switch_page("pages/segments.py").run()
    assert not at.exception and not at.error


def test_own_metric_scores_with_bad_values_are_excluded():
    rows = ["system,seg_id,COMET"] + [f"sys_a,{i},{v}" for i, v in enumerate(["0.8", "abc", "nan", "0.7", "0.6", "0.9"])]
    rows += [f"sys_b,{i},0.{i + 1}" for i in range(6)] + [f"sys_c,{i},0.{9 - i}" for i in range(6)]
    files = Files(given=("comet.csv", ("\n".join(rows) + "\n").encode()))
    assert_handled(upload_texts(files), r"2 input row\(s\) were not used", r"comet\.csv — COMET: not a finite number \('abc'\)", r"Your own metric scores")


# ----------------------------------------------------------------------------------------- not text at all


def test_binary_file_is_refused():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    files = Files()
    files.systems[0] = ("sys_a.txt", png)
    assert_refused(upload_texts(files), "sys_a.txt", r"binary data, not a text file: a NUL byte", line=3)


def test_zip_archive_is_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ref.txt", "\n".join(REF))
    files = Files(refs=[("data.zip", buf.getvalue())])
    assert_refused(upload_texts(files), "data.zip", r"zip archive; upload the text files inside it")


def test_undecodable_bytes_name_the_line():
    files = Files()
    files.systems[0] = ("sys_a.txt", text(SYS_A[:2]) + b"\x80\x80 broken\n" + text(SYS_A[3:]))
    assert_refused(upload_texts(files), "sys_a.txt", r"cannot be decoded: not UTF-8 \(byte 0x80", line=3)


def test_fifty_megabyte_file_is_refused_with_the_size_limit():
    limit = state.upload_limit_bytes()
    big = (REF[0] + "\n").encode() * (50 * 2**20 // len((REF[0] + "\n").encode()) + 1)
    assert len(big) > 50 * 2**20 > limit
    files = Files()
    files.systems[2] = ("huge.txt", big)
    message = assert_refused(upload_texts(files), "huge.txt", r"file is 50\.0 MB")
    assert f"at most {limit / 2**20:g} MB (server.maxUploadSize)" in message


# -------------------------------------------------------------------------------------------------- long tables


def _table(rows: list[list[object]], header: list[str], sep: str = ",") -> bytes:
    import csv

    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode()


def _long_rows() -> list[list[object]]:
    rows = []
    for name, hyps in (("sys_a", SYS_A), ("sys_b", SYS_B), ("sys_c", SYS_C)):
        for i, (hyp, ref) in enumerate(zip(hyps, REF, strict=True)):
            rows.append([name, i, hyp, ref, HUMAN[name][i]])
    return rows


def test_long_table_with_korean_column_names():
    data = _table(_long_rows(), ["시스템", "문장 번호", "번역문", "참조 번역", "점수"])
    at = upload_table("평가.csv", data)
    shown = assert_handled(at, r"Loaded 평가\.csv: 3 systems × 6 segments")
    assert "Human scores per system" in shown
    evalset = at.session_state[state.EVALSET_KEY]
    assert evalset.systems["sys_c"] == SYS_C and evalset.human is not None


def test_cp949_table_says_how_it_was_decoded():
    data = _table(_long_rows(), ["system", "seg_id", "hyp", "ref", "score"], sep="\t").decode().encode("cp949")
    at = upload_table("table.tsv", data)
    assert_handled(at, r"table\.tsv: decoded as CP949/EUC-KR")


def test_csv_with_quoted_newlines_inside_cells():
    rows = _long_rows()
    rows[1][2] = "오늘 날씨가\n정말 좋다."
    rows[7][2] = '따옴표 "안의"\r\n줄바꿈, 쉼표'
    at = upload_table("quoted.csv", _table(rows, ["system", "seg_id", "hyp", "ref", "score"]))
    assert_handled(at, r"Loaded quoted\.csv", r"2 row\(s\) hold a quoted cell with a line break")
    evalset = at.session_state[state.EVALSET_KEY]
    assert evalset.systems["sys_a"][1] == "오늘 날씨가 정말 좋다."  # the break inside the cell is read as a space
    assert evalset.systems["sys_b"][1] == '따옴표 "안의" 줄바꿈, 쉼표'


def test_table_row_with_too_many_fields_names_the_line():
    data = _table(_long_rows(), ["system", "seg_id", "hyp", "ref", "score"]) + b"sys_a,9,a,b,1,extra\n"
    at = upload_table("rows.csv", data)
    assert_refused(at, "rows.csv", r"row has 6 fields, the header has 5", line=20)


def test_table_with_only_a_header_is_refused():
    assert_refused(upload_table("head.csv", b"system,seg_id,hyp,ref\n"), "head.csv", r"header but no rows")


def test_table_with_a_segment_twice_names_the_line():
    rows = _long_rows()
    rows.append(rows[0])
    at = upload_table("twice.csv", _table(rows, ["system", "seg_id", "hyp", "ref", "score"]))
    assert_refused(at, "twice.csv", r"system 'sys_a' has segment '0' twice \(first on line 2\)", line=20)


def test_table_with_conflicting_references_names_the_line():
    rows = _long_rows()
    rows[8][3] = "다른 참조 문장."
    at = upload_table("refs.csv", _table(rows, ["system", "seg_id", "hyp", "ref", "score"]))
    assert_refused(at, "refs.csv", r"segment '2' has a different reference here", line=10)


def test_jsonl_with_a_broken_line_names_it():
    lines = ['{"system": "a", "seg_id": 0, "hyp": "가", "ref": "가"}', '{"system": "b", "seg_id": 0, "hyp": "나"']
    at = upload_table("data.jsonl", ("\n".join(lines) + "\n").encode())
    assert_refused(at, "data.jsonl", r"not valid JSON", line=2)


def test_table_where_systems_miss_segments_is_handled_and_said():
    rows = [r for r in _long_rows() if not (r[0] == "sys_c" and r[1] in (4, 5))]
    at = upload_table("gaps.csv", _table(rows, ["system", "seg_id", "hyp", "ref", "score"]))
    assert_handled(at, r"gaps\.csv: systems do not all cover the same segments \(sys_c lacks 2 of 6\)")


def test_zip_renamed_to_csv_is_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("table.csv", "system,seg_id,hyp,ref\n")
    at = upload_table("table.csv", buf.getvalue())
    assert_refused(at, "table.csv", r"zip archive")


def test_picking_one_column_for_two_roles_is_refused():
    data = _table(_long_rows(), ["system", "seg_id", "hyp", "ref", "score"])
    at = upload_table("roles.csv", data, {"hyp": "ref"})
    assert_refused(at, "roles.csv", r"column\(s\) ref picked for two roles")


# --------------------------------------------------------------------------------------------- scores only


def _scores_only(given: bytes, human: bytes, given_name: str = "comet.csv", human_name: str = "human.csv") -> AppTest:
    at = data_page()
    at.segmented_control(key="data_mode").set_value("Scores only").run()
    at.file_uploader(key="up_scores_only").set_value((given_name, given, "text/csv"))
    at.file_uploader(key="up_scores_human").set_value((human_name, human, "text/csv"))
    at.run()
    at.button(key="use_scores").click().run()
    return at


def _sample_scores() -> tuple[bytes, bytes, pd.DataFrame]:
    human = load_sample().human
    rng = np.random.default_rng(1)
    given = human[["system", "seg_id"]].assign(COMET=human["score"] / 100 + rng.normal(0, 0.05, len(human)))
    human_csv = human[["system", "seg_id", "score"]].to_csv(index=False).encode()
    return given.to_csv(index=False).encode(), human_csv, given


def test_scores_only_are_meta_evaluated_without_texts():
    given, human, frame = _sample_scores()
    extra = b"ghost,0,50\n"  # a human row for a system the metric table does not have: excluded and counted
    at = _scores_only(given, human + extra)
    assert_handled(at, r"comet\.csv \+ human\.csv \(scores only\)", r"human\.csv — unknown system \(1\)")
    spec = at.get("plotly_chart")[0].proto.spec
    assert "COMET" in spec and "given" in spec
    at.switch_page("pages/tokens.py").run()
    assert not at.exception and any("without texts" in i.value for i in at.info)
    assert any("Scores only" in c.value for c in at.sidebar.caption)


def test_scores_only_without_a_score_column_is_refused_by_name():
    _, human, frame = _sample_scores()
    at = _scores_only(frame[["system", "seg_id"]].to_csv(index=False).encode(), human)
    assert_refused(at, "comet.csv", r"metric|score|column")


# ------------------------------------------------------------------------------------------ raw judgments (QC)


def _judgments(sep: str = ",") -> str:
    """Two raters × 15 judgments of the sample's systems (enough to pass the default 10-judgment warm-up)."""
    rows = [sep.join(["worker", "Sys", "DocID", "SentID", "Adequacy"])]
    for r, rater in enumerate(("r1", "r2")):
        for i in range(15):
            rows.append(sep.join([rater, f"sys_{'abc'[i % 3]}", "1", str(i % 6), str(40 + (7 * i + 11 * r) % 50)]))
    return "\n".join(rows) + "\n"


def upload_judgments(name: str, data: bytes) -> AppTest:
    at = data_page()
    at.file_uploader(key="up_judgments").set_value((name, data, "text/csv"))
    at.run()
    return at


@pytest.mark.parametrize(
    "data", [_judgments().encode(), _judgments(";").encode("utf-32")], ids=["utf-8 comma", "utf-32 semicolon"]
)
def test_judgments_go_through_the_one_reader_into_quality_control(data: bytes):
    at = upload_judgments("judgments.csv", data)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [unescape(e.value) for e in at.error]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Judgments read"] == "30"
    assert "Kept 10 of 30 judgments." in page_text(at)  # 2 × 10 warm-up judgments dropped


def test_judgments_with_a_malformed_line_are_refused_naming_the_line():
    data = _judgments().replace("\nr1,sys_c,1,2,", "\nr1,sys_c,1,2,extra,", 1).encode()
    at = upload_judgments("judgments.csv", data)
    assert_refused(at, "judgments.csv", r"row has 6 fields, the header has 5", line=4)
