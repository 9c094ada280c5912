"""Exports: the tidy tables as CSV files, and everything as one zip with a JSON of settings and signatures.

Files (docs/design.md §2): ``segment_scores.csv``, ``system_scores.csv``, ``correlations.csv``, ``rankings.csv``,
``flipped_pairs.csv``, ``human_systems.csv`` (these four only with human scores), ``token_stats.csv``,
``timings.csv``, plus any extra tables given (e.g. ``significance.csv``, ``system_pairs.csv``, the ranking checks
``system_ranking.csv``, ``metric_pairs.csv``, ``order_splits.csv``, the per-domain tables of :func:`domain_tables`),
and ``run.json`` (settings, signatures, data summary, notes).
All CSVs are UTF-8 with a header row; no index column; text cells that a spreadsheet would run as a formula are
prefixed with ``'`` (see :func:`to_csv_bytes`).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

import korean_eval
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import HUMAN_TABLES, Results, has_human_scores


def result_tables(results: Results, extra: Mapping[str, pd.DataFrame] | None = None) -> dict[str, pd.DataFrame]:
    """File name → table for every export; without human scores, none of :data:`HUMAN_TABLES`."""
    tables = {
        "segment_scores.csv": results.segment_scores,
        "system_scores.csv": results.system_scores,
        "correlations.csv": results.correlations,
        "rankings.csv": results.rankings,
        "flipped_pairs.csv": results.flips,
        "human_systems.csv": results.human_systems,
        "token_stats.csv": results.token_stats,
        "timings.csv": results.timings,
    }
    for name, frame in (extra or {}).items():
        tables[name if name.endswith(".csv") else f"{name}.csv"] = frame
    if not has_human_scores(results):
        tables = {name: frame for name, frame in tables.items() if name not in HUMAN_TABLES}
    return tables


def domain_tables(results: Results, evalset: EvalSet) -> dict[str, pd.DataFrame]:
    """``domain_scores.csv`` and ``domain_correlations.csv`` (:func:`korean_eval.metaeval.tables.domains.domain_results`)
    when the segments have domains (``evalset.segment_info``), else nothing."""
    info = evalset.segment_info
    if info is None or "domain" not in info or results.system_scores.empty:
        return {}
    from korean_eval.metaeval.tables.domains import (
        domain_results,  # scipy, numba: only when there are domains
    )

    found = domain_results(results, list(info["domain"]), evalset.human_domain)
    return {"domain_scores.csv": found.system_scores, "domain_correlations.csv": found.correlations}


def rating_tables(results: Results, extra: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """With error-span or several raters' ratings: ``human_ceiling.csv`` (the statistics stage's, with intervals,
    when in ``extra``; else the result's) and ``human_ratings.csv`` (one row per judgment); the span tables are
    :func:`korean_eval.lens.span_detection.span_tables`."""
    out: dict[str, pd.DataFrame] = {}
    if results.human_ceiling is not None and "human_ceiling.csv" not in extra:
        out["human_ceiling.csv"] = results.human_ceiling
    if results.human_ratings is not None:
        out["human_ratings.csv"] = results.human_ratings
    return out


def run_metadata(results: Results, evalset: EvalSet | None = None, extra: Mapping[str, object] | None = None) -> dict:
    """Settings, signatures and a data summary: what a paper needs to cite the numbers."""
    meta: dict[str, object] = {
        "korean_eval_version": korean_eval.__version__,
        "settings": results.settings,
        "signatures": results.signatures(),
        "notes": results.notes,
    }
    if evalset is not None:
        meta["data"] = {k: str(v) for k, v in evalset.summary().items()}
        meta["data_sha256"] = evalset.content_hash()
        meta["validation_notes"] = evalset.report.notes
        if evalset.human_note:
            meta["human_scores_note"] = evalset.human_note
    if extra:
        meta.update(extra)
    return meta


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _defuse(value: object) -> object:
    """Prefix ``'`` to a text cell a spreadsheet would run as a formula (OWASP CSV injection); numbers unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV without index. Text cells starting with ``= + - @`` (user-supplied system names, segment ids or
    texts) get a leading ``'`` so that opening the export in a spreadsheet never runs them as formulas."""
    safe = frame.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = _defused_column(safe[col])
    return safe.to_csv(index=False).encode("utf-8")


def _defused_column(values: pd.Series) -> pd.Series:
    """``values.map(_defuse)``, looking at each distinct value once (tables repeat system names, levels, metrics)."""
    try:
        changed = {v: _defuse(v) for v in pd.unique(values) if isinstance(v, str) and v.startswith(_FORMULA_START)}
    except TypeError:  # an unhashable cell
        return values.map(_defuse)
    changed = {v: d for v, d in changed.items() if d != v}
    return values.map(lambda v: changed.get(v, v) if isinstance(v, str) else v) if changed else values


def write_tables(
    results: Results,
    out_dir: str | Path,
    evalset: EvalSet | None = None,
    extra: Mapping[str, pd.DataFrame] | None = None,
    extra_meta: Mapping[str, object] | None = None,
) -> list[Path]:
    """Write every table and ``run.json`` into ``out_dir`` (created if needed); return the written paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in result_tables(results, extra).items():
        path = out / name
        path.write_bytes(to_csv_bytes(frame))
        written.append(path)
    meta_path = out / "run.json"
    meta_path.write_text(json.dumps(run_metadata(results, evalset, extra_meta), ensure_ascii=False, indent=2, default=str))
    written.append(meta_path)
    return written


def tables_zip(
    results: Results,
    evalset: EvalSet | None = None,
    extra: Mapping[str, pd.DataFrame] | None = None,
    extra_meta: Mapping[str, object] | None = None,
) -> bytes:
    """All tables as CSVs plus ``run.json`` in one zip archive (bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, frame in result_tables(results, extra).items():
            zf.writestr(name, to_csv_bytes(frame))
        zf.writestr(
            "run.json", json.dumps(run_metadata(results, evalset, extra_meta), ensure_ascii=False, indent=2, default=str)
        )
    return buf.getvalue()
