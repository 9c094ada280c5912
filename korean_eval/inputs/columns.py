"""Which table columns hold what: :class:`ColumnMap`, the column names recognised per role, and resolution.

A role (system, seg_id, hyp, ref, src, score, rater) is either named by the user (a :class:`ColumnMap`, e.g. parsed
from ``system=Sys,seg_id=DocID+SentID``) or detected from common English and Korean column names, compared case-,
space- and underscore-insensitively (docs/design.md §4). A seg_id made of several columns is their values, stripped,
joined by ``-`` (DocID 1, SentID 3 → ``"1-3"``); several ref columns are several references.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from korean_eval.inputs.text_files import InputError, identifier

__all__ = ["ColumnMap", "detect_table_columns", "resolve_columns", "seg_key"]


@dataclass(frozen=True)
class ColumnMap:
    """Which table columns hold what. ``None`` means: auto-detect from common names.

    ``seg_id`` and ``ref`` may list several columns: a seg_id made of several columns is their values joined by
    ``-`` (e.g. DocID 1, SentID 3 → ``"1-3"``); several ref columns are several references.
    """

    system: str | None = None
    seg_id: tuple[str, ...] | None = None
    hyp: str | None = None
    ref: tuple[str, ...] | None = None
    src: str | None = None
    score: str | None = None
    rater: str | None = None

    @classmethod
    def parse(cls, spec: str | None) -> ColumnMap:
        """Parse ``"system=Sys,seg_id=DocID+SentID,hyp=Hyp,ref=Ref"`` (``+`` joins several columns)."""
        if not spec:
            return cls()
        values: dict[str, object] = {}
        for part in spec.split(","):
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key not in cls.__dataclass_fields__:
                raise InputError(
                    "column mapping", f"cannot read {part!r}; use role=column with roles {', '.join(cls.__dataclass_fields__)}"
                )
            cols = tuple(c.strip() for c in value.split("+") if c.strip())
            values[key] = cols if key in ("seg_id", "ref") else cols[0] if cols else None
        return cls(**values)


# Column names recognised per role, English and Korean; compared case-, space- and underscore-insensitively.
_ALIASES: dict[str, tuple[str, ...]] = {
    "system": ("system", "sys", "model", "system_name", "mt_system", "시스템", "시스템명", "모델", "번역기", "엔진"),
    "seg_id": (
        "seg_id", "segment", "segment_id", "sent_id", "item", "item_id", "id",
        "문장번호", "번호", "문장id", "세그먼트", "세그먼트id", "아이디",
    ),
    "hyp": ("hyp", "hypothesis", "mt", "output", "translation", "candidate", "번역", "번역문", "기계번역", "출력", "가설", "시스템출력"),
    "ref": ("ref", "reference", "target", "tgt", "참조", "참조번역", "참조문", "정답", "레퍼런스", "기준번역"),
    "src": ("src", "source", "원문", "원문장", "소스", "출발어"),
    "score": ("score", "human", "da", "z", "z_score", "adequacy", "raw", "점수", "사람점수", "평가점수", "인간평가", "직접평가"),
    "rater": ("rater", "worker", "annotator", "judge", "user", "rater_id", "평가자", "작업자"),
}


def _squeeze(name: str) -> str:
    return re.sub(r"[\s_]+", "", name.lower())


def _find(columns: Sequence[str], role: str) -> str | None:
    squeezed = {_squeeze(c): c for c in columns}
    for alias in _ALIASES[role]:
        if _squeeze(alias) in squeezed:
            return squeezed[_squeeze(alias)]
    return None


def resolve_columns(columns: Sequence[str], mapping: ColumnMap, role: str, file: str, required: bool) -> tuple[str, ...]:
    """The column(s) of ``role``: those ``mapping`` names (each must exist), else the detected ones.

    Detection: seg_id is ``DocID`` + ``SentID`` when both exist and no other seg_id name does; ref is every column
    named ref/reference or starting with ``ref_``/``ref2``/``ref3`` (not ending in ``_id``); otherwise the first
    name of the role's list found. Nothing found: ``()``, or :class:`InputError` listing the columns when
    ``required``.
    """
    given = getattr(mapping, role)
    if given:
        cols = given if isinstance(given, tuple) else (given,)
        missing = [c for c in cols if c not in columns]
        if missing:
            raise InputError(file, f"column(s) {', '.join(map(repr, missing))} for {role} not found; columns are {', '.join(columns)}")
        return cols
    if role == "seg_id":
        lower = {c.lower(): c for c in columns}
        if "docid" in lower and "sentid" in lower and _find(columns, "seg_id") in (None, lower["sentid"]):
            return (lower["docid"], lower["sentid"])
    if role == "ref":
        found = [c for c in columns if c.lower() in ("ref", "reference") or c.lower().startswith(("ref_", "ref2", "ref3"))]
        found = [c for c in found if not c.lower().endswith(("_id",))]
        if found:
            return tuple(found)
    found_one = _find(columns, role)
    if found_one:
        return (found_one,)
    if required:
        raise InputError(
            file, f"no {role} column: name one with the column mapping (columns are {', '.join(columns)})", line=1
        )
    return ()


def detect_table_columns(columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Auto-detected columns per role (system, seg_id, hyp, ref, src, score, rater); empty tuple = not found."""
    return {role: resolve_columns(list(columns), ColumnMap(), role, "table", False) for role in _ALIASES}


def seg_key(row: Mapping[str, str], cols: Sequence[str]) -> str:
    """The item key of a row: the values of the seg_id columns as identifiers
    (:func:`korean_eval.inputs.text_files.identifier`: NFC, invisible characters removed, stripped) joined by ``-``."""
    return "-".join(identifier(row[c]) for c in cols)
