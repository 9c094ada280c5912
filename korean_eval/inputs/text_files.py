"""Reading Korean text files as they come from the wild: encodings, line ends, NFC, invisible characters.

Every input file — a text file read here, or a table read by :mod:`korean_eval.inputs.table_reader` — is decoded by
:func:`decode_bytes` and refused above :data:`MAX_FILE_BYTES` (docs/design.md §4). Plain text is never parsed
with quoting: one line is one segment.

Decoding rules (unambiguous cases only; everything done is reported as a note):

1. A byte-order mark decides: UTF-8 BOM → UTF-8; UTF-16 LE/BE BOM → UTF-16 (UTF-32 BOMs likewise).
2. Otherwise strict UTF-8.
   Before that, data containing NUL bytes is decoded as UTF-16 LE/BE when its code units fit UTF-16 clearly
   (:func:`_looks_utf16`) — ASCII-only UTF-16 is also valid UTF-8 — and refused as binary otherwise.
3. Otherwise strict CP949 (a superset of EUC-KR, the encoding of older Korean Windows files). CP949 comes before
   a BOM-less UTF-16 guess without NUL bytes because pure-Hangul CP949 can look like UTF-16 (its lead bytes are
   in the Hangul-syllable range of UTF-16); Korean UTF-16 with any space or line end has NUL bytes (rule 2).
4. Otherwise UTF-16 LE/BE without a BOM when the code units clearly fit.
5. Anything else is refused with the first line that is not valid UTF-8.

Line ends (:func:`normalise_line_ends`): CRLF and LF are line ends (mixed ends are counted); a final line end does
not start a new line. A lone CR is a line end only in a file with no CRLF or LF at all (classic Mac OS); anywhere
else it is a stray carriage return inside a line, read as a space and reported with its line numbers, so that it
cannot shift line alignment. No other character splits lines — not U+2028, form feeds or the others
``str.splitlines`` would split on.

Problems are reported with the line where they are: the first NUL byte of a binary file, the first byte that is not
valid UTF-8, an unpaired UTF-16 surrogate in a file with a UTF-16 byte-order mark.
"""

from __future__ import annotations

import codecs
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: The size limit of every input file (200 MB).
MAX_FILE_BYTES = 200 * 1024 * 1024


class InputError(ValueError):
    """Bad input a user can fix: names the file, the line (1-based, when known) and the problem."""

    def __init__(self, file: str, problem: str, line: int | None = None):
        self.file = file
        self.line = line
        self.problem = problem
        where = f"{file}, line {line}" if line is not None else file
        super().__init__(f"{where}: {problem}")


def _size_problem(size: int) -> str:
    return f"file is {size / 1e6:.0f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB"


def read_input_file(path: str | os.PathLike[str], what: str) -> tuple[str, bytes]:
    """(file name, bytes) of an input file named on the command line.

    :class:`InputError` when it is not a file (``"<what> file not found"``) or is over :data:`MAX_FILE_BYTES`
    (checked before reading). Messages about the contents name the file by its name without the directory.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(str(path), f"{what} file not found")
    size = p.stat().st_size
    if size > MAX_FILE_BYTES:
        raise InputError(p.name, _size_problem(size))
    try:
        return p.name, p.read_bytes()
    except OSError as err:
        raise InputError(p.name, f"cannot read the {what} file ({err.strerror or err})") from None


@dataclass
class DecodedText:
    """A decoded file: its text (NFC, line ends normalised), the lines, and notes on what was done."""

    name: str
    lines: list[str]
    encoding: str
    notes: list[str] = field(default_factory=list)
    nfc_changed_lines: int = 0
    removed_invisible: int = 0


_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE with BOM"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE with BOM"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 with BOM"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE with BOM"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE with BOM"),
)

#: Unicode format characters (general category Cf, Unicode 15): the soft hyphen U+00AD, Arabic number signs,
#: the Mongolian vowel separator U+180E, zero-width space/joiners U+200B–U+200D, the marks LRM/RLM U+200E–U+200F,
#: bidi embeddings and isolates, word joiner and invisible operators U+2060–U+2064, BOM/ZWNBSP U+FEFF,
#: interlinear annotation U+FFF9–U+FFFB, tag characters U+E0001 and U+E0020–U+E007F, and the rest of Cf.
FORMAT_CHARACTER_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)

# Characters removed from every segment (docs/design.md §4): C0/C1 controls other than tab/newline, and every
# format character (:data:`FORMAT_CHARACTER_RANGES`: zero-width characters, BOMs inside the text, bidi marks and
# controls, the soft hyphen, …). They are invisible, break some analyzers and change no human reading.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"
    + "".join(f"{chr(lo)}-{chr(hi)}" if hi > lo else chr(lo) for lo, hi in FORMAT_CHARACTER_RANGES)
    + "]"
)


def _first_bad_utf8_line(data: bytes) -> tuple[int, str]:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        return line, f"byte 0x{data[err.start]:02x} at offset {err.start}"
    return 0, ""


def _looks_utf16(data: bytes) -> str | None:
    """Guess UTF-16 LE/BE without a BOM from where the high bytes of code units sit.

    In UTF-16 text of Korean and ASCII, the high byte of almost every code unit is 0x00 (ASCII), 0xAC–0xD7
    (Hangul syllables), 0x11/0x31 (jamo) or 0x20/0x30 (punctuation); in the other byte position these values are
    no more common than elsewhere. A byte order is returned only when it fits clearly better than the other.
    """
    if len(data) < 4 or len(data) % 2:
        return None

    def fit(high: bytes) -> float:
        ok = sum(1 for b in high if b == 0 or 0xAC <= b <= 0xD7 or b in (0x11, 0x20, 0x30, 0x31, 0xFF))
        return ok / len(high)

    le, be = fit(data[1::2]), fit(data[0::2])
    if le >= 0.9 and be < 0.6:
        return "utf-16-le"
    if be >= 0.9 and le < 0.6:
        return "utf-16-be"
    return None


def _decode_utf16_guess(data: bytes) -> tuple[str, str] | None:
    guess = _looks_utf16(data)
    if guess:
        try:
            return data.decode(guess), guess
        except UnicodeDecodeError:
            return None
    return None


def decode_bytes(data: bytes, name: str) -> tuple[str, str, list[str]]:
    """Decode ``data`` by the rules of this module; return (text, encoding, notes) or raise :class:`InputError`."""
    if len(data) > MAX_FILE_BYTES:
        raise InputError(name, _size_problem(len(data)))
    if data[:4] == b"PK\x03\x04":
        raise InputError(name, "this is a zip archive; upload the text files inside it instead")
    for bom, encoding, label in _BOMS:
        if data.startswith(bom):
            body = data[len(bom):]
            try:
                return body.decode(encoding), encoding, [f"decoded as {label}"]
            except UnicodeDecodeError as err:
                line = body[: err.start].decode(encoding, errors="replace").count("\n") + 1
                raise InputError(
                    name, f"starts with a {label} mark but is not valid {encoding}: {err.reason} at byte offset "
                    f"{len(bom) + err.start}", line=line,
                ) from None
    if b"\x00" in data:  # NUL bytes: UTF-16 without a BOM (ASCII-only UTF-16 is also valid UTF-8) or binary
        decoded = _decode_utf16_guess(data)
        if decoded:
            return decoded[0], decoded[1], [f"decoded as {decoded[1].upper()} (no byte-order mark)"]
        nul = data.index(b"\x00")
        raise InputError(
            name, f"binary data, not a text file: a NUL byte (0x00) at byte offset {nul}",
            line=data.count(b"\n", 0, nul) + 1,
        )
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp949")
    except UnicodeDecodeError:
        decoded = _decode_utf16_guess(data)
        if decoded:  # UTF-16 without NUL bytes: Hangul only, no space, no line end
            return decoded[0], decoded[1], [f"decoded as {decoded[1].upper()} (no byte-order mark)"]
        line, what = _first_bad_utf8_line(data)
        raise InputError(
            name, f"cannot be decoded: not UTF-8 ({what}), UTF-16 or CP949/EUC-KR; save it as UTF-8", line=line
        ) from None
    return text, "cp949", ["decoded as CP949/EUC-KR (not valid UTF-8)"]


@dataclass(frozen=True)
class LineEnds:
    """What :func:`normalise_line_ends` found: line ends of each kind and the lines holding stray CRs."""

    crlf: int = 0
    cr: int = 0  # CR used as the line end (a file without CRLF or LF)
    lf: int = 0
    stray_cr_lines: tuple[int, ...] = ()  # 1-based lines (after normalisation) with a CR inside, read as a space

    def kinds(self) -> dict[str, int]:
        return {"CRLF": self.crlf, "CR": self.cr, "LF": self.lf}

    def notes(self) -> list[str]:
        """Notes on mixed line ends and stray CRs (plain LF, CRLF or CR files need none)."""
        used = [f"{n} {k}" for k, n in self.kinds().items() if n]
        notes = [f"mixed line ends ({', '.join(used)}), all treated as line ends"] if len(used) > 1 else []
        if self.stray_cr_lines:
            notes.append(
                f"carriage returns (CR) inside {len(self.stray_cr_lines)} line(s) read as spaces "
                f"(line {line_list(self.stray_cr_lines)}): a lone CR ends a line only in a file without CRLF or LF"
            )
        return notes


def line_list(lines: Sequence[object], shown: int = 10) -> str:
    """``3, 7, 12`` — the first ``shown`` lines (numbers or ranges), then ``… (N in all)``."""
    text = ", ".join(str(n) for n in lines[:shown])
    return text + (f", … ({len(lines)} in all)" if len(lines) > shown else "")


def normalise_line_ends(text: str) -> tuple[str, LineEnds]:
    """Text with LF as its only line end, by the line-end rule of the module docstring."""
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    if not cr:
        return text.replace("\r\n", "\n"), LineEnds(crlf=crlf, lf=lf)
    if not (crlf or lf):
        return text.replace("\r", "\n"), LineEnds(cr=cr)
    text = text.replace("\r\n", "\n")
    stray = sorted({text.count("\n", 0, m.start()) + 1 for m in re.finditer("\r", text)})
    return text.replace("\r", " "), LineEnds(crlf=crlf, lf=lf, stray_cr_lines=tuple(stray))


def split_lines(text: str) -> tuple[list[str], LineEnds]:
    """The lines of ``text`` by the line-end rule of the module docstring, and what :func:`normalise_line_ends` found."""
    text, ends = normalise_line_ends(text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines, ends


def clean_segment(text: str) -> tuple[str, bool, int]:
    """NFC-normalise one segment, remove invisible characters (controls and Unicode format characters, category Cf,
    incl. the soft hyphen), turn tabs and line breaks (inside a quoted CSV cell) into spaces.

    Returns (clean text, whether NFC changed it, number of invisible characters removed).
    """
    nfc = unicodedata.normalize("NFC", text)
    changed = nfc != text
    cleaned, removed = _INVISIBLE.subn("", nfc)
    return cleaned.replace("\t", " ").replace("\n", " "), changed, removed


def identifier(text: str) -> str:
    """A system name, segment id or rater id as compared everywhere: :func:`clean_segment` (NFC, invisible characters
    removed) and stripped, so names that differ only in Unicode normalisation or invisible marks are one name."""
    return clean_segment(text)[0].strip()


#: Unicode categories refused in a system name: controls (tab, line breaks, …), format characters (zero-width
#: spaces, bidi marks, soft hyphens) and the line and paragraph separators.
REFUSED_IN_NAMES: tuple[str, ...] = ("Cc", "Cf", "Zl", "Zp")
_CONTROL_NAMES = {"\t": "a tab", "\n": "a line break", "\r": "a carriage return"}


def system_name_problem(name: str) -> str:
    """Why ``name`` cannot be a system name, or ``""``: the first control or invisible character it holds
    (:data:`REFUSED_IN_NAMES`), named, with the name itself as Python writes it (``'A\\tB'``)."""
    for char in name:
        if unicodedata.category(char) in REFUSED_IN_NAMES:
            label = unicodedata.name(char, "")
            what = _CONTROL_NAMES.get(char) or (f"U+{ord(char):04X} {label}" if label else
                                                f"a control character (U+{ord(char):04X})")
            return (f"system name {name!r} holds {what}; a system name is kept exactly as given in every table, "
                    "chart and export, so control and invisible characters are refused: rename the system")
    return ""


def system_identifier(name: str, where: str, line: int | None = None) -> str:
    """A system name from any input (an option, a file name, a table cell, a score file): refused with
    :class:`InputError` naming ``where`` (and ``line``) when it holds a control or invisible character
    (:func:`system_name_problem`: kept exactly or refused, never changed silently); else compared as every
    identifier is (:func:`identifier`: NFC, surrounding spaces stripped)."""
    problem = system_name_problem(name)
    if problem:
        raise InputError(where if not system_name_problem(where) else repr(where), problem, line=line)
    return identifier(name)


def invisible_note(removed: int) -> str:
    """The note on ``removed`` invisible characters taken out by :func:`clean_segment`."""
    return (
        f"{removed} invisible/control character(s) removed (Unicode format characters such as zero-width spaces, "
        "bidi marks LRM/RLM, soft hyphens and BOMs inside lines; control characters)"
    )


def clean_segments(segments: list[str]) -> tuple[list[str], int, int]:
    """:func:`clean_segment` over a list: (clean segments, segments NFC changed, invisible characters removed)."""
    out: list[str] = []
    nfc_changed = removed = 0
    for seg in segments:
        clean, changed, n = clean_segment(seg)
        out.append(clean)
        nfc_changed += changed
        removed += n
    return out, nfc_changed, removed


def read_text_lines(data: bytes, name: str) -> DecodedText:
    """Decode a one-segment-per-line text file into clean lines, with notes on everything done.

    Raises :class:`InputError` for an empty file or one with only blank lines.
    """
    if not data:
        raise InputError(name, "file is empty")
    text, encoding, notes = decode_bytes(data, name)
    lines, ends = split_lines(text)
    kinds = [k for k, v in ends.kinds().items() if v]
    if len(kinds) == 1 and kinds[0] != "LF":
        notes.append(f"{kinds[0]} line ends")
    notes.extend(ends.notes())
    if not lines or all(not line.strip() for line in lines):
        raise InputError(name, "file has no text (only blank lines)" if lines else "file is empty")
    clean, nfc_changed, removed = clean_segments(lines)
    if nfc_changed:
        notes.append(f"{nfc_changed} line(s) normalised to Unicode NFC (e.g. decomposed Hangul from macOS)")
    if removed:
        notes.append(invisible_note(removed))
    blank = sum(1 for line in clean if not line.strip())
    if blank:
        notes.append(f"{blank} blank line(s) kept as empty segments")
    return DecodedText(name, clean, encoding, notes, nfc_changed, removed)
