"""What quality control did: :class:`QCReport` (counts, tables, plain-English summary) and :class:`QCResult`.

Definitions of the steps counted here: :mod:`korean_eval.inputs.human_qc` (docs/design.md §6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.human_qc.steps import SYSTEM_MEAN_BASE_COLUMNS, mean_column_names

#: The filtering steps in order: (key, label in ``QCReport.steps``).
FILTER_STEPS: tuple[tuple[str, str], ...] = (
    ("invalid", "unusable rows"), ("warmup", "warm-up"), ("zero_variance", "zero-variance raters"),
    ("outside_fences", "outside Tukey fences"),
)


@dataclass
class QCReport:
    """What QC did. Counts are numbers of judgments (input rows) unless said otherwise.

    Attributes:
        n_input: rows in the input.
        n_kept: judgments kept after all steps.
        n_item_scores: rows of ``QCResult.item_scores``.
        steps: one row per step: ``step``, ``enabled``, ``removed`` (rows removed by that step), ``remaining``.
        invalid_rows: one row per unusable input row: ``line`` (row position + 2), ``row`` (position),
            ``reason``, ``column``, ``value`` (its text, truncated to 60 characters).
        per_rater: per rater (normalised text): ``rater``, ``n_input``, ``invalid``, ``warmup``, ``zero_variance``,
            ``outside_fences``, ``kept``. Rows with no rater value are in no rater's counts.
        per_system: the same counts per system (``system``); rows with no system value are in no system's counts.
        zero_variance_raters: ``rater``, ``n_judgments`` (after warm-up), ``columns`` (the zero-variance score
            columns, comma-separated), one row per excluded rater.
        fences: per score column: ``column`` (the fenced values' column, ``<col>_z`` or ``<col>``), ``q1``,
            ``q3``, ``iqr``, ``lower``, ``upper``, ``removed`` (judgments outside this column's fences; a judgment
            outside several columns' fences counts in each). Empty when fences are off.
        repeated_pairs: (system, item) pairs with more than one kept judgment.
        repeated_judgments: kept judgments in such pairs.
        system_means: per system, over its kept judgments (the study's Table 4): ``system``, ``n`` (judgments),
            ``n_items`` (distinct items), for each score column ``<col>`` (mean raw) and ``<col>_z`` (mean z, NaN
            when z-scoring is off), ``score`` (the outlier test's input: mean ``<first>_z``, or mean raw when
            z-scoring is off), ``robust_z`` and ``outlier``. Sorted by ``score`` descending.
        outlier_systems: flagged systems (empty unless flagging is on).
        parameters: the resolved ``QCOptions`` as a dict.
        notes: plain-English caveats (e.g. no judgments left, MAD = 0).
    """

    n_input: int
    n_kept: int
    n_item_scores: int
    steps: pd.DataFrame
    invalid_rows: pd.DataFrame
    per_rater: pd.DataFrame
    per_system: pd.DataFrame
    zero_variance_raters: pd.DataFrame
    fences: pd.DataFrame
    repeated_pairs: int
    repeated_judgments: int
    system_means: pd.DataFrame
    outlier_systems: list[str]
    parameters: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def removed(self, step: str) -> int:
        """Rows removed by the named step (``"invalid"``, ``"warmup"``, ``"zero_variance"``, ``"outside_fences"``)."""
        row = self.steps[self.steps["key"] == step]
        if row.empty:
            raise KeyError(f"unknown step {step!r}; steps are {', '.join(self.steps['key'])}")
        return int(row["removed"].iloc[0])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (DataFrames as lists of records, NaN as ``None``)."""
        return {
            "n_input": self.n_input,
            "n_kept": self.n_kept,
            "n_item_scores": self.n_item_scores,
            "steps": _records(self.steps),
            "invalid_rows": _records(self.invalid_rows),
            "per_rater": _records(self.per_rater),
            "per_system": _records(self.per_system),
            "zero_variance_raters": _records(self.zero_variance_raters),
            "fences": _records(self.fences),
            "repeated_pairs": self.repeated_pairs,
            "repeated_judgments": self.repeated_judgments,
            "system_means": _records(self.system_means),
            "outlier_systems": list(self.outlier_systems),
            "parameters": _jsonable(self.parameters),
            "notes": list(self.notes),
        }

    def summary_lines(self) -> list[str]:
        """The report as plain-English lines (for a CLI or a dashboard caption)."""
        lines = [f"Read {self.n_input:,} judgments ({len(self.per_rater):,} raters, {len(self.per_system):,} systems)."]
        lines += self._filter_lines()
        lines.append(f"Kept {self.n_kept:,} of {self.n_input:,} judgments.")
        lines += self._repeat_lines() + self._system_lines()
        lines.extend(f"Note: {n}" for n in self.notes)
        return lines

    def _filter_lines(self) -> list[str]:
        """Summary lines of steps 0–3, each with the judgments left before and after it."""
        p = self.parameters
        n_invalid = self.removed("invalid")
        if n_invalid:
            parts = []
            for reason, grp in self.invalid_rows.groupby("reason", sort=False):
                parts.append(f"{len(grp):,} {reason} (line{'s' if len(grp) > 1 else ''} {_line_list(grp['line'])})")
            lines = [f"Excluded {n_invalid:,} unusable row{'s' if n_invalid > 1 else ''}: " + "; ".join(parts) + "."]
        else:
            lines = ["No unusable rows (every rater, system, item and score value present and numeric)."]
        after = self.n_input - n_invalid
        w = self.removed("warmup")
        if p["drop_first"]:
            lines.append(f"Warm-up: dropped the first {p['drop_first']} judgments of each rater: "
                         f"{w:,} removed ({after:,} → {after - w:,}).")
        else:
            lines.append("Warm-up: off (no judgments dropped).")
        after -= w
        lines.append(self._zscore_line(after))
        after -= self.removed("zero_variance")
        lines.append(self._fence_line(after))
        return lines

    def _zscore_line(self, after: int) -> str:
        if not self.parameters["zscore"]:
            return "Z-scores: off (scores are raw)."
        zr = self.zero_variance_raters
        if not len(zr):
            return "Z-scores per rater (population SD); no rater had zero variance."
        z = self.removed("zero_variance")
        names = ", ".join(f"{r} ({c})" for r, c in zip(zr["rater"], zr["columns"], strict=True))
        return (f"Z-scores per rater (population SD). {len(zr):,} rater{'s' if len(zr) > 1 else ''} "
                f"with zero variance excluded: {names}; {_plural(z, 'judgment')} removed ({after:,} → {after - z:,}).")

    def _fence_line(self, after: int) -> str:
        k = self.parameters["iqr_k"]
        if k is None:
            return "Tukey fences: off."
        if not (len(self.fences) and self.fences["lower"].notna().all()):
            return f"Tukey fences (k = {k:g}): no judgments left to fence."
        f = self.removed("outside_fences")
        bounds = ", ".join(f"{c} [{lo:.3f}, {hi:.3f}]" for c, lo, hi in
                           zip(self.fences["column"], self.fences["lower"], self.fences["upper"], strict=True))
        return f"Tukey fences (k = {k:g}) on {bounds}: {f:,} removed ({after:,} → {after - f:,})."

    def _repeat_lines(self) -> list[str]:
        if not self.parameters["average_repeats"]:
            return [f"Repeated judgments: not averaged ({self.repeated_pairs:,} (system, item) pairs have more "
                    f"than one); {self.n_item_scores:,} item-score rows, one per judgment."]
        if self.repeated_pairs:
            return [f"Repeated judgments: {self.repeated_pairs:,} (system, item) pairs had more than one "
                    f"({self.repeated_judgments:,} judgments), averaged; {self.n_item_scores:,} item scores."]
        return [f"Repeated judgments: none; {self.n_item_scores:,} item scores."]

    def _system_lines(self) -> list[str]:
        p = self.parameters
        lines: list[str] = []
        score_cols = p["score_cols"] or []
        if len(self.system_means) and score_cols:
            first = score_cols[0]
            raw, z = mean_column_names(first, SYSTEM_MEAN_BASE_COLUMNS)
            lines.append(f"Per-system means over kept judgments ({first} raw / z):")
            for _, r in self.system_means.iterrows():
                zt = f"{r[z]:.3f}" if pd.notna(r[z]) else "n/a"
                lines.append(f"  {r['system']}: {r[raw]:.3f} / {zt} (n = {int(r['n']):,})")
        if p["flag_outlier_systems"]:
            flagged = ", ".join(self.outlier_systems) + "; item scores are also offered without them"
            lines.append(f"Outlier systems (|robust z| > {p['outlier_threshold']:g}): "
                         f"{flagged if self.outlier_systems else 'none'}.")
        return lines


@dataclass
class QCResult:
    """The output of ``run_qc``.

    Attributes:
        judgments: the kept judgments: the input's columns (score columns made numeric if they were text) plus
            ``<col>_z`` for every score column (NaN when z-scoring is off), rows in input order, input index kept.
        seg_id: the kept judgments' ``seg_id`` (item columns joined by "-"), aligned with ``judgments``.
        item_scores: ``system``, ``seg_id``, ``score`` (mean ``<first score col>_z``; the raw mean when z-scoring
            is off), ``score_raw`` (mean raw first score column), ``n_judgments``, then for each score column the
            mean raw ``<col>`` and mean ``<col>_z`` (renamed ``human_<col>`` / ``human_<col>_z`` where ``<col>``
            would collide with a base column, e.g. a score column called ``score``). Rows in order of first
            appearance.
        item_scores_without_outliers: ``item_scores`` without the rows of ``report.outlier_systems`` (equal to
            ``item_scores`` when none is flagged).
        report: the ``QCReport``.
        options: the resolved ``QCOptions`` used.
    """

    judgments: pd.DataFrame
    seg_id: pd.Series
    item_scores: pd.DataFrame
    item_scores_without_outliers: pd.DataFrame
    report: QCReport
    options: QCOptions

    def judgments_with_seg_id(self) -> pd.DataFrame:
        """``judgments`` plus a ``seg_id`` column (item values joined by "-"). ``ValueError`` if the input already
        has a different ``seg_id`` column (it is replaced when it is the only item column, as values are equal)."""
        out = self.judgments.copy()
        if "seg_id" in out.columns and self.options.item_cols != ("seg_id",):
            raise ValueError("the judgments already have a 'seg_id' column that is not the item key; rename it first")
        out["seg_id"] = self.seg_id.to_numpy()
        return out


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"



def _line_list(lines: pd.Series, limit: int = 10) -> str:
    vals = [str(int(v)) for v in lines.tolist()]
    return ", ".join(vals) if len(vals) <= limit else ", ".join(vals[:limit]) + f", … ({len(vals) - limit:,} more)"


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    if value is pd.NA or value is None:
        return None
    return value


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [_jsonable(r) for r in df.to_dict(orient="records")]


def _count_by(keys: np.ndarray, mask: np.ndarray, index: list[str]) -> np.ndarray:
    """Counts of ``mask`` rows per key in ``index`` order (keys may contain None, which are ignored)."""
    s = pd.Series(keys[mask]).dropna().value_counts()
    return s.reindex(index, fill_value=0).to_numpy(dtype=np.int64)


def step_table(removed: dict[str, np.ndarray], opts: QCOptions) -> pd.DataFrame:
    """``QCReport.steps``: the input, then per filtering step whether it is on, rows removed and rows remaining.

    ``removed`` maps each key of :data:`FILTER_STEPS` to the mask of the rows that step removed."""
    enabled = {"invalid": True, "warmup": opts.drop_first > 0, "zero_variance": opts.zscore,
               "outside_fences": opts.iqr_k is not None}
    remaining = n = len(removed["invalid"])
    rows = [{"key": "input", "step": "input", "enabled": True, "removed": 0, "remaining": n}]
    for key, label in FILTER_STEPS:
        count = int(removed[key].sum())
        remaining -= count
        rows.append({"key": key, "step": label, "enabled": enabled[key], "removed": count, "remaining": remaining})
    return pd.DataFrame(rows)


def group_counts(
    keys: np.ndarray, missing: np.ndarray, label: str, removed: dict[str, np.ndarray], kept: np.ndarray
) -> pd.DataFrame:
    """``QCReport.per_rater`` / ``per_system``: per key (first-appearance order) the input rows, the rows each
    filtering step removed and the rows kept; rows whose key is missing are in no key's counts."""
    order = list(dict.fromkeys(keys[~missing].tolist()))
    out = pd.DataFrame({label: order})
    out["n_input"] = _count_by(keys, ~missing, order)
    for key, _label in FILTER_STEPS:
        out[key] = _count_by(keys, removed[key] & ~missing, order)
    out["kept"] = _count_by(keys, kept, order)
    return out
