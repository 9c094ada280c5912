"""Uploaded bytes → a validated :class:`~korean_eval.data.EvalSet` (no Streamlit here, so tests call it directly).

The Data page wraps each uploaded file as an :class:`Upload` (name + bytes) and calls one of the builders; every
builder raises :class:`~korean_eval.data.InputError` (a ``ValueError``) with a message a person can act on.
"""

from __future__ import annotations

import codecs
import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from korean_eval import data as kdata
from korean_eval.data import (
    ColumnMap,
    EvalSet,
    attach_given_scores,
    attach_human,
    evalset_from_table,
    evalset_from_texts,
    read_table,
)
from korean_eval.textio import decode_bytes

#: Roles of a long table's columns, in the order the Data page asks for them.
TABLE_ROLES: tuple[str, ...] = ("system", "seg_id", "hyp", "ref", "src", "score")
#: Korean column names the pickers also recognise (the backend's own names are English), compared without spaces.
KOREAN_ALIASES: dict[str, tuple[str, ...]] = {
    "system": ("시스템", "시스템명", "모델", "번역기", "엔진"),
    "seg_id": ("문장번호", "번호", "문장id", "세그먼트", "세그먼트id", "아이디"),
    "hyp": ("번역", "번역문", "기계번역", "출력", "가설", "시스템출력"),
    "ref": ("참조", "참조번역", "참조문", "정답", "레퍼런스", "기준번역"),
    "src": ("원문", "원문장", "소스", "출발어"),
    "score": ("점수", "사람점수", "평가점수", "인간평가", "직접평가"),
}


@dataclass(frozen=True)
class Upload:
    """One uploaded file: its name (for messages and system names) and its bytes."""

    name: str
    data: bytes

    @classmethod
    def of(cls, uploaded) -> Upload:
        """From a Streamlit ``UploadedFile`` (anything with ``.name`` and ``.getvalue()``)."""
        return cls(str(uploaded.name), bytes(uploaded.getvalue()))


def check_sizes(uploads: Iterable[Upload | None], max_bytes: int | None) -> None:
    """Refuse (InputError naming the file) any upload bigger than ``max_bytes`` (None: no dashboard limit; the
    backend still refuses files over :data:`korean_eval.textio.MAX_FILE_BYTES`), and any upload the backend would
    silently misread: NUL bytes in otherwise valid UTF-8 (UTF-16 without a byte-order mark holding only ASCII, e.g.
    ids and numbers; the NULs would be dropped as control characters and shift lines)."""
    for up in uploads:
        if up is None:
            continue
        if max_bytes is not None and len(up.data) > max_bytes:
            raise kdata.InputError(
                up.name,
                f"file is {len(up.data) / 2**20:.1f} MB; the dashboard accepts files of at most "
                f"{max_bytes / 2**20:g} MB (server.maxUploadSize). Evaluate bigger data with the command line "
                "(python -m korean_eval) or split the file",
            )
        nul = up.data.find(b"\x00")
        if nul >= 0 and not up.data.startswith(_UNICODE_BOMS) and _is_utf8(up.data):
            raise kdata.InputError(
                up.name,
                f"contains NUL bytes (byte {nul}): UTF-16 without a byte-order mark, or not a text file; save it as "
                "UTF-8 (or UTF-16 with a byte-order mark)",
                line=up.data.count(b"\n", 0, nul) + 1,
            )


_UNICODE_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def default_system_name(file_name: str) -> str:
    """The name the backend gives a system file (its stem, e.g. ``sys_a.txt`` → ``sys_a``)."""
    return kdata.system_name(file_name)


def build_from_texts(
    refs: Sequence[Upload],
    systems: Sequence[Upload],
    names: Sequence[str] | None = None,
    human: Upload | None = None,
    given: Upload | None = None,
    src: Upload | None = None,
    max_bytes: int | None = None,
) -> EvalSet:
    """Reference file(s) + one file per system (+ human scores, own metric scores, sources) → EvalSet.

    ``max_bytes``: refuse any file bigger than this first (:func:`check_sizes`)."""
    check_sizes([*refs, *systems, human, given, src], max_bytes)
    evalset = evalset_from_texts(
        [(u.name, u.data) for u in refs],
        [(u.name, u.data) for u in systems],
        system_names=list(names) if names is not None else None,
        src=(src.name, src.data) if src is not None else None,
    )
    return _attach(evalset, human, given)


def table_head(upload: Upload, rows: int = 20, max_bytes: int | None = None) -> pd.DataFrame:
    """The first rows of an uploaded CSV/TSV/JSONL table (all columns as text), for the column pickers."""
    check_sizes([upload], max_bytes)
    table = read_table(upload.data, upload.name)
    return pd.DataFrame(table.rows[:rows], columns=table.columns)


def guess_table_roles(columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Prefill for the column pickers: role → columns the backend would pick by itself (possibly empty)."""
    detected = kdata.detect_table_columns(columns)
    out: dict[str, tuple[str, ...]] = {role: detected.get(role, ()) for role in TABLE_ROLES}
    squeezed = {"".join(str(c).split()).lower(): c for c in columns}
    for role in TABLE_ROLES:
        if not out[role]:
            out[role] = tuple(squeezed[a] for a in KOREAN_ALIASES[role] if a in squeezed)[:1]
    # A column picked for one role is not offered as the default of a later one (e.g. "id" as seg_id and score).
    used: set[str] = set()
    for role in TABLE_ROLES:
        out[role] = tuple(c for c in out[role] if c not in used)
        used.update(out[role])
    return out


@dataclass(frozen=True)
class TableRoles:
    """The columns a person picked for a long table; ``score`` (optional) is a human-score column in it."""

    system: str
    seg_id: tuple[str, ...]
    hyp: str
    ref: tuple[str, ...]
    src: str | None = None
    score: str | None = None

    def column_map(self) -> ColumnMap:
        return ColumnMap(system=self.system, seg_id=tuple(self.seg_id), hyp=self.hyp, ref=tuple(self.ref), src=self.src)


def build_from_table(
    upload: Upload,
    roles: TableRoles,
    human: Upload | None = None,
    given: Upload | None = None,
    max_bytes: int | None = None,
) -> EvalSet:
    """One long table (system, seg_id, hyp, ref [, src, human score]) → EvalSet; a separate human file wins."""
    check_sizes([upload, human, given], max_bytes)
    if not roles.seg_id:
        raise kdata.InputError(upload.name, "pick at least one seg_id column")
    if not roles.ref:
        raise kdata.InputError(upload.name, "pick at least one reference column")
    picked = [roles.system, *roles.seg_id, roles.hyp, *roles.ref, *([roles.src] if roles.src else [])]
    twice = sorted({c for c in picked if picked.count(c) > 1})
    if twice:
        raise kdata.InputError(upload.name, f"column(s) {', '.join(twice)} picked for two roles; each column has one role")
    evalset = evalset_from_table(upload.data, upload.name, roles.column_map(), human_col=roles.score)
    _note_encoding(evalset, upload)
    return _attach(evalset, human, given)


def _note_encoding(evalset: EvalSet, upload: Upload) -> None:
    """Say how a table was decoded when it was not plain UTF-8 (the backend's table reader decodes silently)."""
    _text, _encoding, notes = decode_bytes(upload.data, upload.name)
    for note in notes:
        evalset.report.note(upload.name, note)


def _attach(evalset: EvalSet, human: Upload | None, given: Upload | None) -> EvalSet:
    if human is not None:
        attach_human(evalset, human.data, human.name)
        _note_encoding(evalset, human)
    if given is not None:
        attach_given_scores(evalset, given.data, given.name)
        _note_encoding(evalset, given)
    return evalset


def with_human_scores(evalset: EvalSet, item_scores: pd.DataFrame, source: str) -> EvalSet:
    """A copy of ``evalset`` whose human scores are ``item_scores`` (``system, seg_id, score``, e.g. QC output).

    Rows for systems or segments the evaluation set does not have are excluded and reported as usual. The copy's
    ``human_note`` is cleared: these are the user's own judgments, not the sample's simulated ones.
    """
    out = copy.deepcopy(evalset)
    payload = item_scores[["system", "seg_id", "score"]].to_csv(index=False).encode("utf-8")
    attach_human(out, payload, source, ColumnMap(system="system", seg_id=("seg_id",), score="score"))
    out.human_note = ""
    return out
