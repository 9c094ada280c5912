"""Table inputs → an :class:`~korean_eval.model.evalset.EvalSet`: one long table, human scores, bring-your-own metric scores.

Inputs (docs/design.md §4): a long table with columns ``system, seg_id, hyp, ref`` (+ optional ``src``); human scores
per item ``system, seg_id, score`` (+ optional ``rater``; several rows of one item are averaged); metric scores
computed elsewhere ``system, seg_id, <one column per metric>``. Other column names through a
:class:`~korean_eval.inputs.columns.ColumnMap` (e.g. the study's ``Sys, DocID, SentID, Ref, Hyp``; a seg_id made of several
columns is their values joined by ``-``).

Every table is read by the one table reader :func:`korean_eval.inputs.table_reader.read_table` (its docstring states the
decoding, delimiter and quoting rules: every cell a string); a score cell is converted by
:func:`korean_eval.inputs.table_reader.read_number` and must be finite (a locale-ambiguous value such as ``1,000`` is
excluded with its reason; values read with a decimal comma are counted in a note); hypotheses, references and
sources are NFC-normalised and cleaned of invisible characters (:func:`korean_eval.inputs.text_files.clean_segment`, counted
in a note). Rows that cannot be used are listed in the validation report
with file, line and reason; problems that make the whole input unusable raise
:class:`~korean_eval.inputs.text_files.InputError` naming file, line and problem.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from korean_eval.inputs.columns import ColumnMap, resolve_columns, seg_key
from korean_eval.inputs.table_reader import DECIMAL_COMMA_RULE, Table, read_number, read_table
from korean_eval.inputs.text_files import (
    InputError,
    clean_segment,
    identifier,
    invisible_note,
    system_identifier,
)
from korean_eval.model.evalset import EvalSet, ValidationReport

__all__ = [
    "attach_given_scores",
    "attach_human",
    "attach_human_frame",
    "declare_human_lower_is_better",
    "evalset_from_table",
    "given_metric_columns",
    "given_only_evalset",
]

#: Why human scores declared lower-is-better are negated (the note every such input gets).
HUMAN_NEGATED_NOTE = (
    "human scores declared lower-is-better (error penalties, e.g. MQM): negated on reading, so that higher is "
    "better everywhere (as mt-metrics-eval stores MQM); score_raw keeps the values as read"
)


def evalset_from_table(data: bytes, name: str, mapping: ColumnMap | None = None, human_col: str | None = None) -> EvalSet:
    """Build an EvalSet from one long table with system, seg_id, hyp and ref columns (names via ``mapping``).

    Segments are ordered by first appearance. A segment whose references differ between rows is refused. A system
    may lack some segments (its hypothesis is then ``None``; the report says which systems are incomplete): its
    segment scores cover the segments it has and its system score is computed over those segments. If
    ``human_col`` names a score column of the same table (e.g. the study's ``Z_adequacy``), those scores become the
    human scores (averaged over rows of one item).
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
    segs = _read_long_rows(table, sys_col, seg_cols, hyp_col, ref_cols, src_cols, report)
    order, hyps = segs.order, segs.hyps
    gaps = {sysname: len(order) - len(h) for sysname, h in hyps.items() if len(h) < len(order)}
    if gaps:
        report.note(
            name,
            "systems do not all cover the same segments ("
            + ", ".join(f"{k} lacks {v} of {len(order)}" for k, v in gaps.items())
            + "); each system's scores use the segments it has, so system scores cover different segments",
        )
    if segs.nfc:
        report.note(name, f"{segs.nfc} text cell(s) normalised to Unicode NFC")
    report.nfc_changed_segments += segs.nfc
    evalset = EvalSet(
        seg_ids=order,
        refs=[[segs.refs[s][j] for s in order] for j in range(len(ref_cols))],
        systems={sysname: [h.get(s) for s in order] for sysname, h in hyps.items()},
        src=[segs.srcs[s] for s in order] if src_cols else None,
        report=report,
    )
    if human_col:
        if human_col not in cols:
            raise InputError(name, f"human score column {human_col!r} not found; columns are {', '.join(cols)}")
        human_map = ColumnMap(system=sys_col, seg_id=seg_cols, score=human_col)
        attach_human(evalset, data, name, human_map)
    return evalset


@dataclass
class _LongRows:
    """What the rows of a long table say: segments in order of first appearance with their references (and
    source), each system's hypotheses by segment, and how many text cells NFC changed."""

    order: list[str] = field(default_factory=list)
    refs: dict[str, list[str]] = field(default_factory=dict)
    srcs: dict[str, str] = field(default_factory=dict)
    hyps: dict[str, dict[str, str]] = field(default_factory=dict)
    nfc: int = 0


def _read_long_rows(
    table: Table, sys_col: str, seg_cols: Sequence[str], hyp_col: str, ref_cols: Sequence[str],
    src_cols: Sequence[str], report: ValidationReport,
) -> _LongRows:
    """Collect the rows of a long table; rows without system or seg_id are excluded, a segment with another
    reference than in its first row or a (system, segment) given twice is an InputError naming the line."""
    name = table.name
    out = _LongRows()
    order, refs, srcs, hyps = out.order, out.refs, out.srcs, out.hyps
    first_line: dict[tuple[str, str], int] = {}
    nfc = invisible = 0
    for row, line in zip(table.rows, table.lines, strict=True):
        system = system_identifier(row[sys_col], name, line)
        seg = seg_key(row, seg_cols)
        if not system or not seg.replace("-", ""):
            report.exclude(name, line, "empty system or seg_id")
            continue
        ref_values = []
        for c in ref_cols:
            clean, changed, removed = clean_segment(row[c].strip())
            nfc += changed
            invisible += removed
            ref_values.append(clean)
        hyp, changed, removed = clean_segment(row[hyp_col].strip())
        nfc += changed
        invisible += removed
        if seg not in refs:
            refs[seg] = ref_values
            order.append(seg)
            if src_cols:
                srcs[seg], _, removed = clean_segment(row[src_cols[0]].strip())
                invisible += removed
        elif refs[seg] != ref_values:
            raise InputError(name, f"segment {seg!r} has a different reference here than in its first row", line=line)
        if (system, seg) in first_line:
            raise InputError(name, f"system {system!r} has segment {seg!r} twice (first on line {first_line[(system, seg)]})", line=line)
        first_line[(system, seg)] = line
        hyps.setdefault(system, {})[seg] = hyp
    if not hyps:
        raise InputError(name, "no usable rows")
    out.nfc = nfc
    if invisible:
        report.note(name, invisible_note(invisible))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Human and given scores


def _score_rows(
    table: Table, sys_col: str, seg_cols: Sequence[str], score_cols: Sequence[str], evalset: EvalSet, report: ValidationReport
) -> list[tuple[str, str, dict[str, float], int]]:
    out = []
    decimal_commas = 0
    for row, line in zip(table.rows, table.lines, strict=True):
        system = system_identifier(row[sys_col], table.name, line)
        seg = seg_key(row, seg_cols)
        problem = evalset.pair_problem(system, seg)
        if problem:
            report.exclude(table.name, line, problem)
            continue
        values: dict[str, float] = {}
        bad = None
        for c in score_cols:
            cell = read_number(row[c])
            if cell.value is None or not math.isfinite(cell.value):
                raw = row[c].strip()
                bad = f"{c}: empty score" if not raw else f"{c}: {cell.problem or f'not a finite number ({raw[:20]!r})'}"
                break
            values[c] = cell.value
            decimal_commas += cell.decimal_comma
        if bad:
            report.exclude(table.name, line, bad)
            continue
        out.append((system, seg, values, line))
    if decimal_commas:
        report.note(table.name, f"{decimal_commas} score(s) read with a decimal comma: {DECIMAL_COMMA_RULE}")
    return out


def _unusable(report: ValidationReport, table: Table, sys_col: str, evalset: EvalSet) -> str:
    """Why no row of a score table was usable: the excluded rows by reason, and the system names on both sides when
    none matches (names are compared as :func:`korean_eval.inputs.text_files.system_identifier`: NFC, surrounding
    spaces stripped; a control or invisible character refused)."""
    brief = report.excluded_brief(table.name)
    names = sorted({identifier(row[sys_col]) for row in table.rows} - {""})
    if names and not set(names) & set(evalset.systems):
        brief += (f"; systems in this file: {', '.join(map(repr, names[:8]))}{', …' if len(names) > 8 else ''}; "
                  f"systems of the evaluation set: {', '.join(map(repr, list(evalset.systems)[:8]))}")
    return brief


def attach_human(evalset: EvalSet, data: bytes, name: str, mapping: ColumnMap | None = None) -> EvalSet:
    """Read per-item human scores and attach them (tidy ``system, seg_id, score, n_ratings``) to ``evalset``.

    Rows for unknown systems or segments, and rows whose score is empty, non-numeric or non-finite, are excluded
    and counted. Several rows of one (system, seg_id) — e.g. several raters — are averaged (count in a note). They
    replace any human scores attached before, with their system- and domain-level scores and declared direction.
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
        raise InputError(name, "no usable human score rows: " + _unusable(report, table, sys_col, evalset))
    df = pd.DataFrame([(s, g, v[score_col]) for s, g, v, _ in rows], columns=["system", "seg_id", "score"])
    agg = df.groupby(["system", "seg_id"], sort=False).agg(score=("score", "mean"), n_ratings=("score", "size")).reset_index()
    repeated = int((agg["n_ratings"] > 1).sum())
    if repeated:
        report.note(name, f"{repeated} item(s) had several scores; their mean is used")
    if float(agg["score"].std(ddof=0) or 0.0) == 0.0:
        report.note(name, "all human scores are equal: correlations are undefined")
    _replace_human(evalset, agg)
    evalset.report.merge(report)
    return evalset


def attach_human_frame(evalset: EvalSet, frame: pd.DataFrame, name: str) -> EvalSet:
    """Attach per-item human scores from a DataFrame ``system, seg_id, score`` (e.g. quality control's output).

    Rows for unknown systems or segments and non-finite scores are excluded and counted (``line`` = row number + 1).
    They replace any human scores attached before, as in :func:`attach_human`.
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
    _replace_human(
        evalset,
        df.groupby(["system", "seg_id"], sort=False).agg(score=("score", "mean"), n_ratings=("score", "size")).reset_index(),
    )
    return evalset


def _replace_human(evalset: EvalSet, human: pd.DataFrame) -> None:
    """New per-item human scores replace the old ones and whatever came with them (system- and domain-level scores,
    a declared direction): those described other judgments."""
    evalset.human = human
    evalset.human_system = evalset.human_domain = None
    evalset.human_ratings = evalset.spans = None
    evalset.human_lower_is_better = False


def declare_human_lower_is_better(evalset: EvalSet, source: str) -> EvalSet:
    """Declare the attached human scores (per item, and at system or domain level where given) lower-is-better:
    each ``score`` becomes its negation, ``score_raw`` keeps the value as read (unless it already holds the raw
    judgments, e.g. after quality control), ``human_lower_is_better`` is set and a note names ``source``. Every
    statistic then reads the human side as higher-is-better (docs/design.md §4). Declaring twice changes nothing."""
    if evalset.human_lower_is_better:
        return evalset
    if evalset.human is not None:
        human = evalset.human.copy()
        if "score_raw" not in human:
            human.insert(human.columns.get_loc("score") + 1, "score_raw", human["score"])
        human["score"] = -human["score"]
        evalset.human = human
    for attr in ("human_system", "human_domain"):
        frame = getattr(evalset, attr)
        if frame is not None:
            setattr(evalset, attr, frame.assign(score=-frame["score"]))
    evalset.human_lower_is_better = True
    evalset.report.note(source, HUMAN_NEGATED_NOTE)
    return evalset


def given_metric_columns(columns: Sequence[str], name: str, mapping: ColumnMap | None = None) -> list[str]:
    """The metric columns of a bring-your-own score table: every column other than system, seg_id and (if
    present) hyp, ref, src and rater. InputError (naming ``name``) without system/seg_id or without a metric."""
    mapping = mapping or ColumnMap()
    skip = {*resolve_columns(columns, mapping, "system", name, True), *resolve_columns(columns, mapping, "seg_id", name, True)}
    for role in ("hyp", "ref", "src", "rater"):
        skip.update(resolve_columns(columns, mapping, role, name, False))
    metrics = [c for c in columns if c not in skip]
    if not metrics:
        raise InputError(name, "no metric columns (expected system, seg_id and one column per metric)", line=1)
    return metrics


def attach_given_scores(evalset: EvalSet, data: bytes, name: str, mapping: ColumnMap | None = None) -> EvalSet:
    """Read bring-your-own metric scores (``system, seg_id, <metric columns>``) and attach them tidy.

    Every column other than system/seg_id (and src/hyp/ref if present) is a metric. A row with a bad value in a
    metric column is excluded for that metric only (counted).
    """
    mapping = mapping or ColumnMap()
    table = read_table(data, name)
    sys_col = resolve_columns(table.columns, mapping, "system", name, True)[0]
    seg_cols = resolve_columns(table.columns, mapping, "seg_id", name, True)
    metrics = given_metric_columns(table.columns, name, mapping)
    report = ValidationReport()
    for note in table.notes:
        report.note(name, note)
    records = []
    for metric in metrics:
        for system, seg, values, _line in _score_rows(table, sys_col, seg_cols, [metric], evalset, report):
            records.append((system, seg, metric, values[metric]))
    if not records:
        evalset.report.merge(report)
        raise InputError(name, "no usable metric score rows: " + _unusable(report, table, sys_col, evalset))
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
    for row, line in zip(table.rows, table.lines, strict=True):
        s, g = system_identifier(row[sys_col], scores[0], line), seg_key(row, seg_cols)
        if s and s not in systems:
            systems.append(s)
        if g and g not in segs:
            segs.append(g)
    evalset = EvalSet(seg_ids=segs, refs=[], systems={s: [] for s in systems})
    attach_given_scores(evalset, scores[1], scores[0], mapping)
    attach_human(evalset, human[1], human[0], human_mapping)
    return evalset
