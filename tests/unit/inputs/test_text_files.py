"""Decoding, line splitting and cleaning of Korean text files."""

import codecs
import unicodedata

import pytest

from korean_eval.inputs.text_files import (
    InputError,
    clean_segment,
    decode_bytes,
    read_text_lines,
    split_lines,
)

KO = "안녕하세요. 한국어 문장입니다."


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (KO.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + KO.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF16_LE + KO.encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + KO.encode("utf-16-be"), "utf-16-be"),
        (KO.encode("cp949"), "cp949"),
        (KO.encode("euc-kr"), "cp949"),
        (("abc " * 20 + KO).encode("utf-16-le"), "utf-16-le"),
    ],
)
def test_decodes_korean_encodings(data, encoding):
    text, used, _notes = decode_bytes(data, "f.txt")
    assert text.endswith(KO)
    assert used == encoding


def test_undecodable_names_file_and_line():
    data = "첫 줄\n둘째 줄\n".encode() + b"\xff\xfe\xfa\xfb\x80\x80 bad\n"
    with pytest.raises(InputError) as err:
        decode_bytes(data, "bad.txt")
    assert err.value.file == "bad.txt" and err.value.line == 3
    assert "bad.txt, line 3" in str(err.value)


def test_binary_and_zip_refused():
    with pytest.raises(InputError, match="binary"):
        decode_bytes(bytes(range(256)) * 4, "x.bin")
    with pytest.raises(InputError, match="zip"):
        decode_bytes(b"PK\x03\x04rest", "x.zip")


def test_line_ends_mixed_and_final_newline():
    lines, ends = split_lines("a\r\nb\rc\nd")
    assert lines == ["a", "b c", "d"]  # a lone CR in a file with LF/CRLF ends is a stray CR inside line 2
    assert ends.kinds() == {"CRLF": 1, "CR": 0, "LF": 1} and ends.stray_cr_lines == (2,)
    lines, ends = split_lines("a\rb\rc")  # CR-only file (classic Mac OS): CR is the line end
    assert lines == ["a", "b", "c"] and ends.kinds() == {"CRLF": 0, "CR": 2, "LF": 0}
    assert split_lines("a\nb\n")[0] == ["a", "b"]
    # U+2028 and form feed are not line ends (splitlines would shift alignment)
    assert split_lines("a\u2028b\x0cc\n")[0] == ["a\u2028b\x0cc"]


def test_nfc_and_invisible_characters():
    nfd = unicodedata.normalize("NFD", "한국어")
    clean, changed, removed = clean_segment(nfd + "\u200b\x07\tx")
    assert clean == "한국어 x" and changed and removed == 2


def test_read_text_lines_notes_and_errors():
    doc = read_text_lines(unicodedata.normalize("NFD", "가나\r\n다라\r\n\r\n").encode(), "r.txt")
    assert doc.lines == ["가나", "다라", ""]
    assert doc.nfc_changed_lines == 2
    assert any("CRLF" in n for n in doc.notes) and any("blank" in n for n in doc.notes)
    with pytest.raises(InputError, match="empty"):
        read_text_lines(b"", "e.txt")
    with pytest.raises(InputError, match="blank"):
        read_text_lines(b"\n \n\n", "b.txt")
