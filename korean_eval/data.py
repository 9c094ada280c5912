"""Inputs → a validated, aligned :class:`EvalSet` plus a :class:`ValidationReport` of everything done or excluded.

Accepted inputs (GUIDE §4):

* references: one or more text files, one segment per line (several files = multi-reference, as in sacrebleu);
  systems: one text file per system (name = file stem), all line-aligned. seg_id = 0-based line number.
* or one long table (CSV/TSV/JSONL) with columns ``system, seg_id, hyp, ref`` (+ optional ``src``); other column
  names through a :class:`ColumnMap` (e.g. the study's ``Sys, DocID, SentID, Ref, Hyp``; a seg_id made of several
  columns is their values joined by ``-``).
* human scores per item: ``system, seg_id, score`` (+ optional ``rater``; several rows of one item are averaged).
* bring-your-own metric scores: ``system, seg_id, <one column per metric>``.

Every text is NFC-normalised and cleaned (:mod:`korean_eval.textio`). Rows that cannot be used are never dropped
silently: each is listed in the report with file, line and reason. Problems that make the whole input unusable raise
:class:`~korean_eval.textio.InputError` naming file, line and problem.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from korean_eval.textio import InputError, clean_segment, decode_bytes, read_text_lines, split_lines

__all__ = [
    "ColumnMap",
    "EvalSet",
    "ExcludedRow",
    "InputError",
    "ValidationReport",
    "attach_given_scores",
    "attach_human",
    "attach_human_frame",
    "detect_table_columns",
    "system_name",
    "evalset_from_table",
    "evalset_from_texts",
    "given_only_evalset",
    "read_table",
]


@dataclass(frozen=True)
class ExcludedRow:
    """One input row that was not used, and why."""

    file: str
    line: int | None
    reason: str


@dataclass
class ValidationReport:
    """What loading did: per-file notes, counts, and every excluded row with its reason."""

    notes: list[str] = field(default_factory=list)
    excluded: list[ExcludedRow] = field(default_factory=list)
    nfc_changed_segments: int = 0

    def note(self, file: str, text: str) -> None:
        self.notes.append(f"{file}: {text}")

    def exclude(self, file: str, line: int | None, reason: str) -> None:
        self.excluded.append(ExcludedRow(file, line, reason))

    def excluded_frame(self) -> pd.DataFrame:
        return pd.DataFrame([vars(e) for e in self.excluded], columns=["file", "line", "reason"])

    def excluded_summary(self) -> pd.DataFrame:
        """Excluded rows counted by file and reason."""
        df = self.excluded_frame()
        if df.empty:
            return pd.DataFrame(columns=["file", "reason", "rows"])
        return df.groupby(["file", "reason"], sort=False).size().reset_index(name="rows")

    def merge(self, other: ValidationReport) -> None:
        self.notes.extend(other.notes)
        self.excluded.extend(other.excluded)
        self.nfc_changed_segments += other.nfc_changed_segments


@dataclass
class EvalSet:
    """A validated evaluation set.

    Attributes:
        seg_ids: segment ids in order (strings; ``"0"``, ``"1"``… for text inputs).
        refs: reference streams, ``refs[j][i]`` = j-th reference of segment i (sacrebleu's layout).
        systems: system name → hypotheses, aligned with ``seg_ids``; ``None`` where a (table) input has no row.
        human: tidy per-item human scores ``system, seg_id, score`` (+ ``score_raw``, ``n_ratings``), or None.
        given: bring-your-own metric scores ``system, seg_id, metric, score``, or None.
        src: source segments, if known.
        report: the validation report.
    """

    seg_ids: list[str]
    refs: list[list[str]]
    systems: dict[str, list[str | None]]
    human: pd.DataFrame | None = None
    given: pd.DataFrame | None = None
    src: list[str] | None = None
    report: ValidationReport = field(default_factory=ValidationReport)
    human_note: str = ""

    @property
    def n_segments(self) -> int:
        return len(self.seg_ids)

    @property
    def n_refs(self) -> int:
        return len(self.refs)

    @property
    def system_names(self) -> list[str]:
        return list(self.systems)

    def content_hash(self) -> str:
        """SHA-256 over every text, id and score: equal hashes mean equal data (the dashboard's cache key)."""
        h = hashlib.sha256()
        for part in (self.seg_ids, self.refs, sorted(self.systems.items()), self.src or []):
            h.update(json.dumps(part, ensure_ascii=False).encode())
        for frame in (self.human, self.given):
            h.update(b"|" + (frame.to_csv(index=False).encode() if frame is not None else b"-"))
        return h.hexdigest()

    def pair_problem(self, system: str, seg_id: str) -> str:
        """Why a score row for (system, seg_id) cannot be used, or ``""``: unknown system, unknown seg_id, or (with
        texts) no hypothesis of that system for that segment."""
        hyps = self.systems.get(system)
        if hyps is None:
            return "unknown system"
        index = self._seg_index().get(seg_id)
        if index is None:
            return "unknown seg_id"
        if self.refs and hyps and hyps[index] is None:
            return "no hypothesis of this system for this segment"
        return ""

    def _seg_index(self) -> dict[str, int]:
        """seg_id → position, rebuilt whenever ``seg_ids`` is replaced or changes length."""
        key = (id(self.seg_ids), len(self.seg_ids))
        cached = self.__dict__.get("_seg_index_cache")
        if cached is None or cached[0] != key:
            cached = (key, {s: i for i, s in enumerate(self.seg_ids)})
            self.__dict__["_seg_index_cache"] = cached
        return cached[1]

    def system_pairs(self) -> int:
        """Number of (system, segment) pairs that have a hypothesis."""
        return sum(h is not None for hyps in self.systems.values() for h in hyps)

    def summary(self) -> dict[str, object]:
        """Counts a person checks first: segments, systems, references, human coverage, NFC changes, exclusions."""
        pairs = self.system_pairs() if self.refs else len(self.seg_ids) * len(self.systems)
        covered = 0 if self.human is None else len(self.human)
        return {
            "segments": self.n_segments,
            "systems": len(self.systems),
            "references per segment": self.n_refs,
            "system × segment pairs": pairs,
            "pairs with a human score": covered,
            "human coverage": f"{covered / pairs:.0%}" if pairs else "–",
            "segments changed by NFC": self.report.nfc_changed_segments,
            "excluded rows": len(self.report.excluded),
        }


# ---------------------------------------------------------------------------------------------------------------
# Text-file inputs


def system_name(file_name: str) -> str:
    """The system name a system file gets by default: its file stem (``outputs/sys_A.txt`` → ``sys_A``)."""
    return _stem(file_name)


def detect_table_columns(columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Auto-detected columns per role (system, seg_id, hyp, ref, src, score, rater); empty tuple = not found."""
    return {role: _resolve(list(columns), ColumnMap(), role, "table", False) for role in _ALIASES}


def _stem(name: str) -> str:
    stem = Path(name).name
    for suffix in (".txt", ".hyp", ".out", ".ko", ".kor"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return stem or name


def evalset_from_texts(
    refs: Sequence[tuple[str, bytes]],
    systems: Sequence[tuple[str, bytes]],
    system_names: Sequence[str] | None = None,
    src: tuple[str, bytes] | None = None,
) -> EvalSet:
    """Build an EvalSet from reference and system text files given as (file name, bytes).

    System names are the file stems unless ``system_names`` gives them. Raises InputError for an empty file,
    undecodable bytes, a line-count mismatch, duplicate system names, or no references/systems.
    """
    if not refs:
        raise InputError("references", "no reference file given")
    if not systems:
        raise InputError("systems", "no system file given")
    report = ValidationReport()
    ref_docs = [read_text_lines(data, name) for name, data in refs]
    n = len(ref_docs[0].lines)
    for doc in ref_docs:
        _absorb_notes(report, doc)
        if len(doc.lines) != n:
            raise InputError(doc.name, f"has {len(doc.lines)} lines but {ref_docs[0].name} has {n}; references must be line-aligned")
        empty = [i + 1 for i, line in enumerate(doc.lines) if not line.strip()]
        if empty:
            report.note(doc.name, f"{len(empty)} empty reference line(s) (first at line {empty[0]})")
    names = list(system_names) if system_names else [_stem(name) for name, _ in systems]
    if len(names) != len(systems):
        raise InputError("systems", f"{len(names)} names given for {len(systems)} system files")
    seen: dict[str, str] = {}
    hyps: dict[str, list[str]] = {}
    for (fname, data), sys_name in zip(systems, names, strict=True):
        sys_name = sys_name.strip()
        if not sys_name:
            raise InputError(fname, "system name is empty")
        if sys_name in seen:
            raise InputError(fname, f"duplicate system name {sys_name!r} (also {seen[sys_name]}); rename one of them")
        seen[sys_name] = fname
        doc = read_text_lines(data, fname)
        _absorb_notes(report, doc)
        if len(doc.lines) != n:
            raise InputError(
                fname,
                f"has {len(doc.lines)} lines but the reference has {n}; system outputs must be line-aligned with the "
                f"reference (first difference at line {min(len(doc.lines), n) + 1})",
                line=min(len(doc.lines), n) + 1,
            )
        if doc.lines == ref_docs[0].lines:
            report.note(fname, "identical to the reference (scores will be perfect)")
        hyps[sys_name] = doc.lines
    src_lines = None
    if src is not None:
        doc = read_text_lines(src[1], src[0])
        _absorb_notes(report, doc)
        if len(doc.lines) != n:
            raise InputError(src[0], f"has {len(doc.lines)} lines but the reference has {n}")
        src_lines = doc.lines
    return EvalSet(
        seg_ids=[str(i) for i in range(n)],
        refs=[d.lines for d in ref_docs],
        systems=hyps,
        src=src_lines,
        report=report,
    )


def _absorb_notes(report: ValidationReport, doc) -> None:
    label = f"decoded as {doc.encoding}" if doc.encoding != "utf-8" else ""
    for note in doc.notes:
        report.note(doc.name, note)
    if label and not doc.notes:
        report.note(doc.name, label)
    report.nfc_changed_segments += doc.nfc_changed_lines


# ---------------------------------------------------------------------------------------------------------------
# Tables


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


def _resolve(columns: Sequence[str], mapping: ColumnMap, role: str, file: str, required: bool) -> tuple[str, ...]:
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


@dataclass
class Table:
    """A parsed table: column names, rows as dicts of strings, and the file line where each row starts."""

    name: str
    columns: list[str]
    rows: list[dict[str, str]]
    lines: list[int]
    notes: list[str] = field(default_factory=list)


def read_table(data: bytes, name: str) -> Table:
    """Parse CSV, TSV or JSONL (by extension, else by sniffing) into a :class:`Table` of strings.

    Quoted newlines in CSV are supported; line numbers are those of the first line of each row in the file.
    """
    if not data:
        raise InputError(name, "file is empty")
    text, _encoding, notes = decode_bytes(data, name)
    lower = name.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json")) or text.lstrip().startswith("{"):
        table = _read_jsonl(text, name)
        table.notes.extend(notes)
        return table
    first = text.split("\n", 1)[0]
    delimiter = "\t" if lower.endswith(".tsv") or ("\t" in first and "," not in first) else ","
    if not lower.endswith((".csv", ".tsv")) and first.count(";") > max(first.count(","), first.count("\t")):
        delimiter = ";"
    reader = csv.reader(io.StringIO(text.replace("\r\n", "\n").replace("\r", "\n"), newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(name, "file is empty") from None
    except csv.Error as err:
        raise InputError(name, f"cannot parse the header: {err}", line=1) from None
    header = [clean_segment(h)[0].strip() for h in header]
    if not any(header):
        raise InputError(name, "the first line (header) is empty", line=1)
    header = [h if h else f"column_{i}" for i, h in enumerate(header)]
    dupes = {h for h in header if header.count(h) > 1}
    if dupes:
        raise InputError(name, f"duplicate column name(s) {', '.join(sorted(dupes))} in the header", line=1)
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    start = reader.line_num + 1
    try:
        for record in reader:
            if record and any(field.strip() for field in record):
                if len(record) != len(header):
                    raise InputError(name, f"row has {len(record)} fields, the header has {len(header)}", line=start)
                rows.append(dict(zip(header, record, strict=True)))
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error as err:
        raise InputError(name, f"cannot parse: {err}", line=start) from None
    if not rows:
        raise InputError(name, "table has a header but no rows")
    return Table(name, header, rows, lines, notes)


def _read_jsonl(text: str, name: str) -> Table:
    lines_text, _ = split_lines(text)
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    columns: list[str] = []
    for no, raw in enumerate(lines_text, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            raise InputError(name, f"not valid JSON: {err.msg}", line=no) from None
        if not isinstance(obj, dict):
            raise InputError(name, "each line must be a JSON object", line=no)
        row = {str(k): "" if v is None else str(v) for k, v in obj.items()}
        for key in row:
            if key not in columns:
                columns.append(key)
        rows.append(row)
        lines.append(no)
    if not rows:
        raise InputError(name, "no JSON lines")
    for row in rows:
        for c in columns:
            row.setdefault(c, "")
    return Table(name, columns, rows, lines)


def _seg_key(row: Mapping[str, str], cols: Sequence[str]) -> str:
    return "-".join(row[c].strip() for c in cols)


def evalset_from_table(data: bytes, name: str, mapping: ColumnMap | None = None, human_col: str | None = None) -> EvalSet:
    """Build an EvalSet from one long table with system, seg_id, hyp and ref columns (names via ``mapping``).

    Segments are ordered by first appearance. A segment whose references differ between rows is refused. A system
    may lack some segments (its hypothesis is then ``None``; the report says which systems are incomplete): its
    segment scores cover the segments it has and its system score is computed over those segments. If ``human_col`` names a score column of the same table (e.g. the study's
    ``Z_adequacy``), those scores become the human scores (averaged over rows of one item).
    """
    mapping = mapping or ColumnMap()
    table = read_table(data, name)
    cols = table.columns
    sys_col = _resolve(cols, mapping, "system", name, True)[0]
    seg_cols = _resolve(cols, mapping, "seg_id", name, True)
    hyp_col = _resolve(cols, mapping, "hyp", name, True)[0]
    ref_cols = _resolve(cols, mapping, "ref", name, True)
    src_cols = _resolve(cols, mapping, "src", name, False)
    report = ValidationReport()
    for note in table.notes:
        report.note(name, note)
    order: list[str] = []
    refs: dict[str, list[str]] = {}
    srcs: dict[str, str] = {}
    hyps: dict[str, dict[str, str]] = {}
    first_line: dict[tuple[str, str], int] = {}
    nfc = 0
    for row, line in zip(table.rows, table.lines, strict=True):
        system = row[sys_col].strip()
        seg = _seg_key(row, seg_cols)
        if not system or not seg.replace("-", ""):
            report.exclude(name, line, "empty system or seg_id")
            continue
        ref_values = []
        for c in ref_cols:
            clean, changed, _ = clean_segment(row[c].strip())
            nfc += changed
            ref_values.append(clean)
        hyp, changed, _ = clean_segment(row[hyp_col].strip())
        nfc += changed
        if seg not in refs:
            refs[seg] = ref_values
            order.append(seg)
            if src_cols:
                srcs[seg] = clean_segment(row[src_cols[0]].strip())[0]
        elif refs[seg] != ref_values:
            raise InputError(name, f"segment {seg!r} has a different reference here than in its first row", line=line)
        if (system, seg) in first_line:
            raise InputError(name, f"system {system!r} has segment {seg!r} twice (first on line {first_line[(system, seg)]})", line=line)
        first_line[(system, seg)] = line
        hyps.setdefault(system, {})[seg] = hyp
    if not hyps:
        raise InputError(name, "no usable rows")
    gaps = {sysname: len(order) - len(h) for sysname, h in hyps.items() if len(h) < len(order)}
    if gaps:
        report.note(
            name,
            "systems do not all cover the same segments ("
            + ", ".join(f"{k} lacks {v} of {len(order)}" for k, v in gaps.items())
            + "); each system's scores use the segments it has, so system scores cover different segments",
        )
    if nfc:
        report.note(name, f"{nfc} text cell(s) normalised to Unicode NFC")
    report.nfc_changed_segments += nfc
    n_refs = len(ref_cols)
    evalset = EvalSet(
        seg_ids=order,
        refs=[[refs[s][j] for s in order] for j in range(n_refs)],
        systems={sysname: [h.get(s) for s in order] for sysname, h in hyps.items()},
        src=[srcs[s] for s in order] if src_cols else None,
        report=report,
    )
    if human_col:
        if human_col not in cols:
            raise InputError(name, f"human score column {human_col!r} not found; columns are {', '.join(cols)}")
        human_map = ColumnMap(system=sys_col, seg_id=seg_cols, score=human_col)
        attach_human(evalset, data, name, human_map)
    return evalset


# ---------------------------------------------------------------------------------------------------------------
# Human and given scores


def _parse_score(value: str) -> float | None:
    try:
        x = float(value.strip().replace(",", ".")) if value.count(",") == 1 and "." not in value else float(value)
    except (ValueError, AttributeError):
        return None
    return x if math.isfinite(x) else None


def _score_rows(
    table: Table, sys_col: str, seg_cols: Sequence[str], score_cols: Sequence[str], evalset: EvalSet, report: ValidationReport
) -> list[tuple[str, str, dict[str, float], int]]:
    out = []
    for row, line in zip(table.rows, table.lines, strict=True):
        system = row[sys_col].strip()
        seg = _seg_key(row, seg_cols)
        problem = evalset.pair_problem(system, seg)
        if problem:
            report.exclude(table.name, line, problem)
            continue
        values: dict[str, float] = {}
        bad = None
        for c in score_cols:
            x = _parse_score(row[c])
            if x is None:
                raw = row[c].strip()
                bad = f"{c}: empty score" if not raw else f"{c}: not a finite number ({raw[:20]!r})"
                break
            values[c] = x
        if bad:
            report.exclude(table.name, line, bad)
            continue
        out.append((system, seg, values, line))
    return out


def attach_human(evalset: EvalSet, data: bytes, name: str, mapping: ColumnMap | None = None) -> EvalSet:
    """Read per-item human scores and attach them (tidy ``system, seg_id, score, n_ratings``) to ``evalset``.

    Rows for unknown systems or segments, and rows whose score is empty, non-numeric or non-finite, are excluded
    and counted. Several rows of one (system, seg_id) — e.g. several raters — are averaged (count in a note).
    """
    mapping = mapping or ColumnMap()
    table = read_table(data, name)
    sys_col = _resolve(table.columns, mapping, "system", name, True)[0]
    seg_cols = _resolve(table.columns, mapping, "seg_id", name, True)
    score_col = _resolve(table.columns, mapping, "score", name, True)[0]
    report = ValidationReport()
    for note in table.notes:
        report.note(name, note)
    rows = _score_rows(table, sys_col, seg_cols, [score_col], evalset, report)
    if not rows:
        evalset.report.merge(report)
        raise InputError(name, "no usable human score rows (see the excluded rows: unknown systems/segments or bad scores)")
    df = pd.DataFrame([(s, g, v[score_col]) for s, g, v, _ in rows], columns=["system", "seg_id", "score"])
    agg = df.groupby(["system", "seg_id"], sort=False).agg(score=("score", "mean"), n_ratings=("score", "size")).reset_index()
    repeated = int((agg["n_ratings"] > 1).sum())
    if repeated:
        report.note(name, f"{repeated} item(s) had several scores; their mean is used")
    if float(agg["score"].std(ddof=0) or 0.0) == 0.0:
        report.note(name, "all human scores are equal: correlations are undefined")
    evalset.human = agg
    evalset.report.merge(report)
    return evalset


def attach_human_frame(evalset: EvalSet, frame: pd.DataFrame, name: str) -> EvalSet:
    """Attach per-item human scores from a DataFrame ``system, seg_id, score`` (e.g. quality control's output).

    Rows for unknown systems or segments and non-finite scores are excluded and counted (``line`` = row number + 1).
    """
    report = ValidationReport()
    keep = []
    for pos, (system, seg, score) in enumerate(frame[["system", "seg_id", "score"]].itertuples(index=False), start=1):
        system, seg = str(system), str(seg)
        problem = evalset.pair_problem(system, seg)
        if problem:
            report.exclude(name, pos, problem)
        elif not (isinstance(score, (int, float)) and math.isfinite(score)):
            report.exclude(name, pos, "score: not a finite number")
        else:
            keep.append((system, seg, float(score)))
    evalset.report.merge(report)
    if not keep:
        raise InputError(name, "no human score matches a system and segment of the evaluation set")
    df = pd.DataFrame(keep, columns=["system", "seg_id", "score"])
    evalset.human = (
        df.groupby(["system", "seg_id"], sort=False).agg(score=("score", "mean"), n_ratings=("score", "size")).reset_index()
    )
    return evalset


def attach_given_scores(evalset: EvalSet, data: bytes, name: str, mapping: ColumnMap | None = None) -> EvalSet:
    """Read bring-your-own metric scores (``system, seg_id, <metric columns>``) and attach them tidy.

    Every column other than system/seg_id (and src/hyp/ref if present) is a metric. A row with a bad value in a
    metric column is excluded for that metric only (counted).
    """
    mapping = mapping or ColumnMap()
    table = read_table(data, name)
    sys_col = _resolve(table.columns, mapping, "system", name, True)[0]
    seg_cols = _resolve(table.columns, mapping, "seg_id", name, True)
    skip = {sys_col, *seg_cols}
    for role in ("hyp", "ref", "src", "rater"):
        skip.update(_resolve(table.columns, mapping, role, name, False))
    metrics = [c for c in table.columns if c not in skip]
    if not metrics:
        raise InputError(name, "no metric columns (expected system, seg_id and one column per metric)", line=1)
    report = ValidationReport()
    for note in table.notes:
        report.note(name, note)
    records = []
    for metric in metrics:
        for system, seg, values, _line in _score_rows(table, sys_col, seg_cols, [metric], evalset, report):
            records.append((system, seg, metric, values[metric]))
    if not records:
        evalset.report.merge(report)
        raise InputError(name, "no usable metric score rows")
    df = pd.DataFrame(records, columns=["system", "seg_id", "metric", "score"])
    dup = df.duplicated(["system", "seg_id", "metric"], keep="first")
    if dup.any():
        report.note(name, f"{int(dup.sum())} repeated (system, seg_id, metric) value(s) averaged")
        df = df.groupby(["system", "seg_id", "metric"], sort=False)["score"].mean().reset_index()
    evalset.given = df
    evalset.report.merge(report)
    return evalset


def given_only_evalset(
    human: tuple[str, bytes],
    scores: tuple[str, bytes],
    mapping: ColumnMap | None = None,
    human_mapping: ColumnMap | None = None,
) -> EvalSet:
    """An EvalSet without texts: systems and segments are those of the metric-score table (for ``run --scores``)."""
    table = read_table(scores[1], scores[0])
    mapping = mapping or ColumnMap()
    sys_col = _resolve(table.columns, mapping, "system", scores[0], True)[0]
    seg_cols = _resolve(table.columns, mapping, "seg_id", scores[0], True)
    systems: list[str] = []
    segs: list[str] = []
    for row in table.rows:
        s, g = row[sys_col].strip(), _seg_key(row, seg_cols)
        if s and s not in systems:
            systems.append(s)
        if g and g not in segs:
            segs.append(g)
    evalset = EvalSet(seg_ids=segs, refs=[], systems={s: [] for s in systems})
    attach_given_scores(evalset, scores[1], scores[0], mapping)
    attach_human(evalset, human[1], human[0], human_mapping)
    return evalset
