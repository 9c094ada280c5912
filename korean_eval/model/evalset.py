"""The evaluation set: a validated, aligned :class:`EvalSet` plus a :class:`ValidationReport` of everything done
or excluded, and the text-file inputs that build one.

Text inputs (docs/design.md §4): references in one or more text files, one segment per line (several files =
multi-reference, as in sacrebleu); one text file per system (name = file stem), all line-aligned; seg_id = 0-based
line number. Each file is read by :func:`korean_eval.inputs.text_files.read_text_lines` (decoded, NFC-normalised, cleaned; plain
text is never parsed with quoting). Tables (a long table, human scores, given metric scores) are read in
:mod:`korean_eval.inputs.tables`. Problems that make an input unusable raise :class:`~korean_eval.inputs.text_files.InputError`
naming file, line and problem.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from korean_eval.inputs.text_files import InputError, line_list, read_text_lines, system_identifier

__all__ = ["EvalSet", "ExcludedRow", "InputError", "ValidationReport", "evalset_from_texts", "system_name"]


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

    def excluded_brief(self, file: str, shown: int = 3) -> str:
        """``12 rows excluded: unknown system (10; lines 2, 3, 5, …), …`` for the rows of ``file``."""
        rows = [e for e in self.excluded if e.file == file]
        by_reason: dict[str, list[int | None]] = {}
        for e in rows:
            by_reason.setdefault(e.reason, []).append(e.line)
        parts = [
            f"{reason} ({len(lines)}; line{'s' if len(lines) > 1 else ''} {line_list([n for n in lines if n], shown)})"
            for reason, lines in by_reason.items()
        ]
        return f"{len(rows)} row(s) excluded: " + "; ".join(parts) if rows else "no row excluded"

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
        human_note: a note shown wherever the human scores are (e.g. the sample's: simulated).
        human_lower_is_better: the human scores' input declared lower = better (error penalties such as MQM);
            ``human`` then holds them negated (``score_raw`` = as read), so that higher is better everywhere, as
            mt-metrics-eval stores MQM (``converters/score_mqm.py``).
        human_system: system-level human scores given directly (``system, score``; e.g. an mt-metrics-eval
            ``sys`` file), used at the system level instead of the mean of segment scores; or None.
        human_domain: per-domain system-level human scores given directly (``domain, system, score``), or None.
        segment_info: per-segment attributes aligned with ``seg_ids`` (``seg_id, document, domain``), or None.
        human_ratings: the judgments behind ``human`` when read from error-span ratings or several rater groups
            (``system, seg_id, group, rater, score, score_raw``; ``score`` higher-is-better), or None
            (:mod:`korean_eval.inputs.spans.attach`); the human ceiling is computed from them.
        spans: the error spans of those ratings (:data:`korean_eval.inputs.spans.attach.SPAN_COLUMNS`), or None.
    """

    seg_ids: list[str]
    refs: list[list[str]]
    systems: dict[str, list[str | None]]
    human: pd.DataFrame | None = None
    given: pd.DataFrame | None = None
    src: list[str] | None = None
    report: ValidationReport = field(default_factory=ValidationReport)
    human_note: str = ""
    human_lower_is_better: bool = False
    human_system: pd.DataFrame | None = None
    human_domain: pd.DataFrame | None = None
    segment_info: pd.DataFrame | None = None
    human_ratings: pd.DataFrame | None = None
    spans: pd.DataFrame | None = None

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
        for frame in (self.human_system, self.human_domain, self.segment_info, self.human_ratings, self.spans):  # if given
            if frame is not None:
                h.update(b"|" + frame.to_csv(index=False).encode())
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
        extra: dict[str, object] = {}
        if self.human_lower_is_better:
            extra["human scores"] = "lower is better in the input (negated)"
        if self.human_system is not None:
            extra["system-level human scores"] = f"given ({len(self.human_system)} systems)"
        if self.segment_info is not None and "domain" in self.segment_info:
            extra["domains"] = int(self.segment_info["domain"].nunique())
        return {
            "segments": self.n_segments,
            "systems": len(self.systems),
            "references per segment": self.n_refs,
            "system × segment pairs": pairs,
            "pairs with a human score": covered,
            "human coverage": f"{covered / pairs:.0%}" if pairs else "–",
            "segments changed by NFC": self.report.nfc_changed_segments,
            "excluded rows": len(self.report.excluded),
            **extra,
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
    hyps = _read_systems(systems, names, ref_docs[0].lines, report)
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


def _read_systems(
    systems: Sequence[tuple[str, bytes]], names: Sequence[str], ref_lines: list[str], report: ValidationReport
) -> dict[str, list[str]]:
    """System name → lines of its file, each file line-aligned with the reference (InputError otherwise)."""
    n = len(ref_lines)
    seen: dict[str, str] = {}
    hyps: dict[str, list[str]] = {}
    for (fname, data), sys_name in zip(systems, names, strict=True):
        sys_name = system_identifier(sys_name, fname)
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
        if doc.lines == ref_lines:
            report.note(fname, "identical to the reference (scores will be perfect)")
        hyps[sys_name] = doc.lines
    return hyps


def _absorb_notes(report: ValidationReport, doc) -> None:
    label = f"decoded as {doc.encoding}" if doc.encoding != "utf-8" else ""
    for note in doc.notes:
        report.note(doc.name, note)
    if label and not doc.notes:
        report.note(doc.name, label)
    report.nfc_changed_segments += doc.nfc_changed_lines
