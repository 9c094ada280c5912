"""Inputs → a validated, aligned :class:`EvalSet` plus a :class:`ValidationReport` of everything done or excluded.

Accepted inputs (docs/design.md §4):

* references: one or more text files, one segment per line (several files = multi-reference, as in sacrebleu);
  systems: one text file per system (name = file stem), all line-aligned. seg_id = 0-based line number.
* or one long table (CSV/TSV/JSONL) with columns ``system, seg_id, hyp, ref`` (+ optional ``src``); other column
  names through a :class:`~korean_eval.columns.ColumnMap` (e.g. the study's ``Sys, DocID, SentID, Ref, Hyp``; a
  seg_id made of several columns is their values joined by ``-``).
* human scores per item: ``system, seg_id, score`` (+ optional ``rater``; several rows of one item are averaged).
* bring-your-own metric scores: ``system, seg_id, <one column per metric>``.

Text files are read by :func:`korean_eval.textio.read_text_lines`, every table by the one table reader
:func:`korean_eval.tables.read_table` (its docstring states the decoding, delimiter and quoting rules); a score
cell is converted by :func:`korean_eval.tables.parse_number` and must be finite. Every text is NFC-normalised and
cleaned (:mod:`korean_eval.textio`). Rows that cannot be used are never dropped silently: each is listed in the
report with file, line and reason. Problems that make the whole input unusable raise
:class:`~korean_eval.textio.InputError` naming file, line and problem.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from korean_eval.columns import ColumnMap, resolve_columns, seg_key
from korean_eval.tables import Table, parse_number, read_table
from korean_eval.textio import InputError, clean_segment, read_text_lines

__all__ = [
    "EvalSet",
    "ExcludedRow",
    "InputError",
    "ValidationReport",
    "attach_given_scores",
    "attach_human",
    "attach_human_frame",
    "system_name",
    "evalset_from_table",
    "evalset_from_texts",
    "given_only_evalset",
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
    sys_col = resolve_columns(cols, mapping, "system", name, True)[0]
    seg_cols = resolve_columns(cols, mapping, "seg_id", name, True)
    hyp_col = resolve_columns(cols, mapping, "hyp", name, True)[0]
    ref_cols = resolve_columns(cols, mapping, "ref", name, True)
    src_cols = resolve_columns(cols, mapping, "src", name, False)
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
        seg = seg_key(row, seg_cols)
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


def _score_rows(
    table: Table, sys_col: str, seg_cols: Sequence[str], score_cols: Sequence[str], evalset: EvalSet, report: ValidationReport
) -> list[tuple[str, str, dict[str, float], int]]:
    out = []
    for row, line in zip(table.rows, table.lines, strict=True):
        system = row[sys_col].strip()
        seg = seg_key(row, seg_cols)
        problem = evalset.pair_problem(system, seg)
        if problem:
            report.exclude(table.name, line, problem)
            continue
        values: dict[str, float] = {}
        bad = None
        for c in score_cols:
            x = parse_number(row[c])
            if x is None or not math.isfinite(x):
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
    sys_col = resolve_columns(table.columns, mapping, "system", name, True)[0]
    seg_cols = resolve_columns(table.columns, mapping, "seg_id", name, True)
    score_col = resolve_columns(table.columns, mapping, "score", name, True)[0]
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
    sys_col = resolve_columns(table.columns, mapping, "system", name, True)[0]
    seg_cols = resolve_columns(table.columns, mapping, "seg_id", name, True)
    skip = {sys_col, *seg_cols}
    for role in ("hyp", "ref", "src", "rater"):
        skip.update(resolve_columns(table.columns, mapping, role, name, False))
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
    sys_col = resolve_columns(table.columns, mapping, "system", scores[0], True)[0]
    seg_cols = resolve_columns(table.columns, mapping, "seg_id", scores[0], True)
    systems: list[str] = []
    segs: list[str] = []
    for row in table.rows:
        s, g = row[sys_col].strip(), seg_key(row, seg_cols)
        if s and s not in systems:
            systems.append(s)
        if g and g not in segs:
            segs.append(g)
    evalset = EvalSet(seg_ids=segs, refs=[], systems={s: [] for s in systems})
    attach_given_scores(evalset, scores[1], scores[0], mapping)
    attach_human(evalset, human[1], human[0], human_mapping)
    return evalset
