"""Quality control of human Direct Assessment (DA) judgments, producing per-item human scores.

Input: one row per judgment, with user-chosen columns for the rater, the item key (one or more columns, e.g.
``DocID`` + ``SentID``), the system, and one or more numeric score columns (e.g. ``Adequacy``, ``Fluency``).
``detect_columns`` suggests these from obvious names; ``QCOptions`` holds the choices and the parameters.

``run_qc`` applies, in this order (every step can be switched off or parameterised through ``QCOptions``):

0. **Unusable rows.** A row whose rater, system or any item value is missing (NaN / empty / whitespace only), or
   whose value in any score column is missing, non-numeric or non-finite (±inf) is excluded. Each such row is
   listed in ``QCReport.invalid_rows`` with its primary reason (the first failing check in the order rater,
   system, item columns, score columns) and its *line*: ``line = row position + 2``, which is the line in a CSV
   file with one header line and no quoted multi-line fields. Rows are never dropped silently.
1. **Warm-up** (``drop_first = N``): the first ``N`` judgments of each rater, in file (row) order, are dropped.
   A row's position counts every row of that rater in the input (valid or not), so the warm-up is a property of
   the file's order; a row that is both unusable and in the warm-up is counted as unusable only.
2. **Per-rater z-scores** (``zscore``): for each rater and score column ``c``,
   ``c_z = (c − mean_r(c)) / sd_r(c)`` with the population standard deviation (ddof = 0) over that rater's
   remaining judgments. A rater whose remaining values in any score column are all equal (zero variance; this
   includes a rater with a single remaining judgment) has an undefined z-score: all that rater's remaining
   judgments are excluded and the rater is reported in ``QCReport.zero_variance_raters``.
3. **Tukey fences** (``iqr_k = k``): for each score column, over all remaining judgments, ``Q1`` and ``Q3`` are
   ``numpy.percentile(values, [25, 75])`` (numpy's default, linear interpolation) and ``IQR = Q3 − Q1``; a judgment
   is kept only if ``Q1 − k·IQR ≤ value ≤ Q3 + k·IQR`` (inclusive) for *every* score column. The values fenced
   are the z-scores, or the raw scores when z-scoring is off.
4. **Repeats** (``average_repeats``): all kept judgments of one (system, item) are averaged into one item score
   (``n_judgments`` says how many). When off, every kept judgment is its own row of ``item_scores``
   (``n_judgments`` = 1, and a (system, seg_id) pair may then occur more than once).
5. **Outlier systems** (``flag_outlier_systems``): each system's mean human score ``x`` (the mean over its kept
   judgments of the first score column's z-score, or of the raw score when z-scoring is off) gets the robust z
   ``(x − median) / (1.4826 · MAD)``, median and MAD (median absolute deviation from the median) taken over the
   systems; a system is an outlier when ``|robust z| > outlier_threshold`` (2.5; Mathur et al., 2020). When
   MAD = 0 the robust z is undefined (NaN) and no system is flagged.

The study's procedure (the kor_sacrebleu data's README, §4.1.3 of the paper) is the default: ``drop_first=10``,
z-scores with ddof 0, fences with ``k=1.5`` on every score column; on ``judgments_raw.csv`` it keeps 7,727 of
8,058 judgments.

The *item key* of a row, ``seg_id``, is the item columns' values, each as text, joined by ``"-"`` (DocID 1,
SentID 3 → ``"1-3"``); an integral float (``3.0``, as pandas reads an int column with gaps) is written as an int
(``"3"``), text is stripped of surrounding whitespace. Rater and system values are normalised the same way
(``system`` in the outputs is that text).
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Candidate names (lower-case, matched case-insensitively against stripped column names), in priority order.
RATER_NAMES: tuple[str, ...] = (
    "worker", "worker_id", "workerid", "annotator", "annotator_id", "rater", "rater_id", "judge", "user", "user_id",
)
SYSTEM_NAMES: tuple[str, ...] = ("sys", "system", "model", "system_name", "sys_id", "system_id")
#: Item-key candidates: document-level names first, so that the joined key reads "doc-segment".
ITEM_NAMES: tuple[str, ...] = (
    "docid", "doc_id", "document", "document_id", "sentid", "sent_id", "seg_id", "segid", "segment_id", "segment",
    "item", "item_id",
)
SCORE_NAMES: tuple[str, ...] = ("adequacy", "fluency", "score", "da", "da_score", "raw_score")

#: Column names of ``QCResult.item_scores`` that a score column's own mean columns must not collide with.
ITEM_SCORE_BASE_COLUMNS: tuple[str, ...] = ("system", "seg_id", "score", "score_raw", "n_judgments")

MAD_SCALE = 1.4826
SEG_ID_SEPARATOR = "-"


# --------------------------------------------------------------------------------------------------- detection


def detect_columns(df: pd.DataFrame) -> dict[str, Any]:
    """Suggest the column roles of a judgments table from obvious names (case-insensitive, whitespace-stripped).

    Returns a dict with the keys of ``QCOptions``' column fields, so ``QCOptions(**detect_columns(df))`` works:

    * ``rater_col``: the first column named (in this priority) worker, worker_id, annotator, rater, judge, user, …
      (see ``RATER_NAMES``), or ``None``;
    * ``system_col``: Sys / system / model / … (``SYSTEM_NAMES``), or ``None``;
    * ``item_cols``: a tuple of *all* columns named DocID / doc_id / document / SentID / seg_id / segment / item / …
      (``ITEM_NAMES``), in that priority order (document before segment), possibly empty;
    * ``score_cols``: a tuple of all columns named Adequacy / Fluency / score / DA / … (``SCORE_NAMES``), in that
      priority order (so Adequacy, when present, is the first score column), possibly empty.

    A column is given at most one role. The returned names are the frame's own spelling.
    """
    by_lower: dict[str, str] = {}
    for col in df.columns:
        key = str(col).strip().lower()
        by_lower.setdefault(key, str(col))
    used: set[str] = set()

    def first(names: tuple[str, ...]) -> str | None:
        for n in names:
            if n in by_lower and by_lower[n] not in used:
                used.add(by_lower[n])
                return by_lower[n]
        return None

    def every(names: tuple[str, ...]) -> tuple[str, ...]:
        out: list[str] = []
        for n in names:
            if n in by_lower and by_lower[n] not in used:
                used.add(by_lower[n])
                out.append(by_lower[n])
        return tuple(out)

    rater = first(RATER_NAMES)
    system = first(SYSTEM_NAMES)
    items = every(ITEM_NAMES)
    scores = every(SCORE_NAMES)
    return {"rater_col": rater, "system_col": system, "item_cols": items, "score_cols": scores}


# ----------------------------------------------------------------------------------------------------- options


def _check_name(value: Any, what: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty column name, got {value!r}")


def _as_name_tuple(value: Any, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise ValueError(f"{what} must be a list/tuple of column names, got the string {value!r}")
    try:
        names = tuple(value)
    except TypeError:
        raise ValueError(f"{what} must be a list/tuple of column names, got {value!r}") from None
    if not names:
        raise ValueError(f"{what} must name at least one column")
    for n in names:
        _check_name(n, f"each of {what}")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"{what} names a column more than once: {', '.join(dup)}")
    return names


@dataclass(frozen=True)
class QCOptions:
    """Column roles and QC parameters; validated on construction (``ValueError`` with a clear message).

    Attributes:
        rater_col: rater column; ``None`` = auto-detect in ``run_qc`` (``detect_columns``).
        system_col: system column; ``None`` = auto-detect.
        item_cols: item-key columns (joined by "-" into ``seg_id``); ``None`` = auto-detect.
        score_cols: score columns; the first is the one ``score`` / ``score_raw`` are built from; ``None`` =
            auto-detect.
        drop_first: warm-up: drop each rater's first ``drop_first`` judgments in file order (int ≥ 0; 0 = off).
        zscore: per-rater z-scores (population SD) and exclusion of zero-variance raters. When off, the
            ``<col>_z`` columns are NaN, ``score`` is the raw mean and the fences apply to raw scores.
        iqr_k: Tukey fence multiplier ``k`` (finite, ≥ 0), or ``None`` to skip the fences.
        average_repeats: average repeated judgments of one (system, item) into one item score.
        flag_outlier_systems: flag systems with ``|robust z| > outlier_threshold`` and exclude them from
            ``QCResult.item_scores_without_outliers``.
        outlier_threshold: the robust-z threshold (finite, > 0), 2.5 after Mathur et al. (2020).
    """

    rater_col: str | None = None
    system_col: str | None = None
    item_cols: tuple[str, ...] | None = None
    score_cols: tuple[str, ...] | None = None
    drop_first: int = 10
    zscore: bool = True
    iqr_k: float | None = 1.5
    average_repeats: bool = True
    flag_outlier_systems: bool = False
    outlier_threshold: float = 2.5

    def __post_init__(self) -> None:
        for name in ("rater_col", "system_col"):
            value = getattr(self, name)
            if value is not None:
                _check_name(value, name)
        object.__setattr__(self, "item_cols", _as_name_tuple(self.item_cols, "item_cols"))
        object.__setattr__(self, "score_cols", _as_name_tuple(self.score_cols, "score_cols"))
        if isinstance(self.drop_first, bool) or not isinstance(self.drop_first, (int, np.integer)):
            raise ValueError(f"drop_first must be a whole number ≥ 0, got {self.drop_first!r}")
        if self.drop_first < 0:
            raise ValueError(f"drop_first must be ≥ 0 (0 keeps every judgment), got {self.drop_first}")
        object.__setattr__(self, "drop_first", int(self.drop_first))
        for name in ("zscore", "average_repeats", "flag_outlier_systems"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
            object.__setattr__(self, name, bool(getattr(self, name)))
        if self.iqr_k is not None:
            k = _as_float(self.iqr_k, "iqr_k")
            if not math.isfinite(k) or k < 0:
                raise ValueError(f"iqr_k (the Tukey fence multiplier) must be a finite number ≥ 0, got {self.iqr_k!r}")
            object.__setattr__(self, "iqr_k", k)
        t = _as_float(self.outlier_threshold, "outlier_threshold")
        if not math.isfinite(t) or t <= 0:
            raise ValueError(f"outlier_threshold must be a finite number > 0, got {self.outlier_threshold!r}")
        object.__setattr__(self, "outlier_threshold", t)
        self._check_roles()

    def _check_roles(self) -> None:
        roles: list[tuple[str, str]] = []
        if self.rater_col is not None:
            roles.append((self.rater_col, "rater"))
        if self.system_col is not None:
            roles.append((self.system_col, "system"))
        roles += [(c, "item") for c in self.item_cols or ()]
        roles += [(c, "score") for c in self.score_cols or ()]
        seen: dict[str, str] = {}
        for col, role in roles:
            if col in seen:
                raise ValueError(f"column {col!r} is given two roles ({seen[col]} and {role}); each column can have one")
            seen[col] = role

    @property
    def is_resolved(self) -> bool:
        """True when every column role is set (nothing left to auto-detect)."""
        return None not in (self.rater_col, self.system_col, self.item_cols, self.score_cols)

    def resolve(self, df: pd.DataFrame) -> QCOptions:
        """A copy with unset column roles filled by ``detect_columns(df)``; ``ValueError`` if a role stays unknown
        or a named column is not in ``df``."""
        columns = [str(c) for c in df.columns]
        guess = detect_columns(df)
        explicit = {c for c in (self.rater_col, self.system_col, *(self.item_cols or ()), *(self.score_cols or ()))
                    if c is not None}
        values: dict[str, Any] = {}
        labels = {"rater_col": "rater column", "system_col": "system column", "item_cols": "item column(s)",
                  "score_cols": "score column(s)"}
        flags = {"rater_col": "--rater-col", "system_col": "--system-col", "item_cols": "--item-cols",
                 "score_cols": "--score-cols"}
        for key in ("rater_col", "system_col", "item_cols", "score_cols"):
            value = getattr(self, key)
            if value is None:
                g = guess[key]
                if isinstance(g, tuple):
                    g = tuple(c for c in g if c not in explicit) or None
                elif g in explicit:
                    g = None
                if g is None:
                    raise ValueError(
                        f"could not detect the {labels[key]} from the column names; name it with {flags[key]} "
                        f"({key}); columns are: {', '.join(columns)}"
                    )
                value = g
            values[key] = value
        resolved = QCOptions(**{**asdict(self), **values})
        assert resolved.item_cols is not None and resolved.score_cols is not None
        for col in (resolved.rater_col, resolved.system_col, *resolved.item_cols, *resolved.score_cols):
            if col not in columns:
                raise ValueError(f"column {col!r} is not in the judgments; columns are: {', '.join(columns)}")
        return resolved

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (tuples as lists)."""
        out = asdict(self)
        for key in ("item_cols", "score_cols"):
            if out[key] is not None:
                out[key] = list(out[key])
        return out


def _as_float(value: Any, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None


# ------------------------------------------------------------------------------------------------------ results


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
        p = self.parameters
        lines: list[str] = []
        n_raters = len(self.per_rater)
        n_systems = len(self.per_system)
        lines.append(f"Read {self.n_input:,} judgments ({n_raters:,} raters, {n_systems:,} systems).")
        n_invalid = self.removed("invalid")
        if n_invalid:
            parts = []
            for reason, grp in self.invalid_rows.groupby("reason", sort=False):
                parts.append(f"{len(grp):,} {reason} (line{'s' if len(grp) > 1 else ''} {_line_list(grp['line'])})")
            lines.append(f"Excluded {n_invalid:,} unusable row{'s' if n_invalid > 1 else ''}: " + "; ".join(parts) + ".")
        else:
            lines.append("No unusable rows (every rater, system, item and score value present and numeric).")
        after = self.n_input - n_invalid
        w = self.removed("warmup")
        if p["drop_first"]:
            lines.append(f"Warm-up: dropped the first {p['drop_first']} judgments of each rater: "
                         f"{w:,} removed ({after:,} → {after - w:,}).")
        else:
            lines.append("Warm-up: off (no judgments dropped).")
        after -= w
        z = self.removed("zero_variance")
        if p["zscore"]:
            zr = self.zero_variance_raters
            if len(zr):
                names = ", ".join(f"{r} ({c})" for r, c in zip(zr["rater"], zr["columns"], strict=True))
                lines.append(f"Z-scores per rater (population SD). {len(zr):,} rater{'s' if len(zr) > 1 else ''} "
                             f"with zero variance excluded: {names}; {_plural(z, 'judgment')} removed ({after:,} → {after - z:,}).")
            else:
                lines.append("Z-scores per rater (population SD); no rater had zero variance.")
        else:
            lines.append("Z-scores: off (scores are raw).")
        after -= z
        f = self.removed("outside_fences")
        if p["iqr_k"] is not None:
            if len(self.fences) and self.fences["lower"].notna().all():
                bounds = ", ".join(f"{c} [{lo:.3f}, {hi:.3f}]" for c, lo, hi in
                                   zip(self.fences["column"], self.fences["lower"], self.fences["upper"], strict=True))
                lines.append(f"Tukey fences (k = {p['iqr_k']:g}) on {bounds}: {f:,} removed "
                             f"({after:,} → {after - f:,}).")
            else:
                lines.append(f"Tukey fences (k = {p['iqr_k']:g}): no judgments left to fence.")
        else:
            lines.append("Tukey fences: off.")
        lines.append(f"Kept {self.n_kept:,} of {self.n_input:,} judgments.")
        if p["average_repeats"]:
            if self.repeated_pairs:
                lines.append(f"Repeated judgments: {self.repeated_pairs:,} (system, item) pairs had more than one "
                             f"({self.repeated_judgments:,} judgments), averaged; {self.n_item_scores:,} item scores.")
            else:
                lines.append(f"Repeated judgments: none; {self.n_item_scores:,} item scores.")
        else:
            lines.append(f"Repeated judgments: not averaged ({self.repeated_pairs:,} (system, item) pairs have more "
                         f"than one); {self.n_item_scores:,} item-score rows, one per judgment.")
        score_cols = p["score_cols"] or []
        if len(self.system_means) and score_cols:
            first = score_cols[0]
            lines.append(f"Per-system means over kept judgments ({first} raw / z):")
            for _, r in self.system_means.iterrows():
                zt = f"{r[first + '_z']:.3f}" if pd.notna(r[first + "_z"]) else "n/a"
                lines.append(f"  {r['system']}: {r[first]:.3f} / {zt} (n = {int(r['n']):,})")
        if p["flag_outlier_systems"]:
            if self.outlier_systems:
                lines.append(f"Outlier systems (|robust z| > {p['outlier_threshold']:g}): "
                             + ", ".join(self.outlier_systems) + "; item scores are also offered without them.")
            else:
                lines.append(f"Outlier systems (|robust z| > {p['outlier_threshold']:g}): none.")
        lines.extend(f"Note: {n}" for n in self.notes)
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


# --------------------------------------------------------------------------------------------------- internals


def _key_text(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(normalised text per value as an object array, missing mask). See the module docstring."""
    n = len(series)
    missing = series.isna().to_numpy()
    out = np.empty(n, dtype=object)
    if pd.api.types.is_bool_dtype(series.dtype):
        out[:] = series.astype(str).to_numpy()
    elif pd.api.types.is_integer_dtype(series.dtype):
        out[~missing] = series[~missing].astype("int64").astype(str).to_numpy()
    elif pd.api.types.is_float_dtype(series.dtype):
        vals = series.to_numpy(dtype=np.float64, na_value=np.nan)
        for i in np.flatnonzero(~missing):
            v = vals[i]
            out[i] = str(int(v)) if math.isfinite(v) and v.is_integer() else repr(float(v))
    else:
        vals = series.to_numpy(dtype=object)
        for i in np.flatnonzero(~missing):
            v = vals[i]
            if isinstance(v, float | np.floating) and math.isfinite(v) and float(v).is_integer():
                text = str(int(v))
            else:
                text = str(v).strip()
            if text:
                out[i] = text
            else:
                missing[i] = True
    return out, missing


def _parse_scores(series: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(float values, missing mask, non-numeric mask, non-finite mask) for one score column."""
    missing = series.isna().to_numpy()
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        nonnumeric = np.zeros(len(series), dtype=bool)
    else:
        text = series.astype(object).where(~series.isna(), None)
        stripped = text.map(lambda v: v.strip() if isinstance(v, str) else v)
        blank = stripped.map(lambda v: isinstance(v, str) and v == "").to_numpy(dtype=bool)
        missing = missing | blank
        numeric = pd.to_numeric(stripped.where(~blank, None), errors="coerce")
        values = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
        nonnumeric = ~missing & np.isnan(values)
        if pd.api.types.is_bool_dtype(series.dtype):
            values = series.astype(float).to_numpy()
            nonnumeric = np.zeros(len(series), dtype=bool)
    nonfinite = ~missing & ~nonnumeric & ~np.isfinite(values)
    return values, missing, nonnumeric, nonfinite


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _short(value: Any) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


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


def _robust_z(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(robust z per value, median, MAD); z is NaN everywhere when MAD = 0 or there are no values."""
    if len(values) == 0:
        return np.array([], dtype=np.float64), float("nan"), float("nan")
    med = float(np.median(values))
    mad = float(np.median(np.abs(values - med)))
    if mad == 0:
        return np.full(len(values), np.nan), med, mad
    return (values - med) / (MAD_SCALE * mad), med, mad


# -------------------------------------------------------------------------------------------------------- main


def run_qc(df: pd.DataFrame, options: QCOptions | None = None) -> QCResult:
    """Apply the QC steps of the module docstring to a judgments frame and return per-item human scores.

    Column roles left ``None`` in ``options`` are auto-detected (``detect_columns``); ``ValueError`` when a role
    cannot be resolved, a column is missing, or an output column (``<col>_z``) already exists in ``df``. Bad values
    in rows never raise: they are excluded and listed in ``report.invalid_rows``.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"run_qc needs a pandas DataFrame, got {type(df).__name__}")
    opts = (options or QCOptions()).resolve(df)
    assert opts.rater_col and opts.system_col and opts.item_cols and opts.score_cols
    score_cols = list(opts.score_cols)
    z_names = [f"{c}_z" for c in score_cols]
    clash = [z for z in z_names if z in df.columns]
    if clash:
        raise ValueError(f"the judgments already have column(s) {', '.join(clash)}, which QC writes; rename or "
                         "drop them (is this file already QC'd?)")

    n = len(df)
    notes: list[str] = []
    lines = np.arange(n) + 2

    # ---- step 0: unusable rows (primary reason: first failing check)
    rater, rater_missing = _key_text(df[opts.rater_col])
    system, system_missing = _key_text(df[opts.system_col])
    item_parts = [_key_text(df[c]) for c in opts.item_cols]
    invalid = np.zeros(n, dtype=bool)
    inv_reason = np.empty(n, dtype=object)
    inv_column = np.empty(n, dtype=object)

    def mark(mask: np.ndarray, reason: str, column: str) -> None:
        new = mask & ~invalid
        inv_reason[new] = reason
        inv_column[new] = column
        invalid[new] = True

    mark(rater_missing, "missing rater", opts.rater_col)
    mark(system_missing, "missing system", opts.system_col)
    for c, (_, miss) in zip(opts.item_cols, item_parts, strict=True):
        mark(miss, f"missing {c}", c)
    raw: dict[str, np.ndarray] = {}
    for c in score_cols:
        values, miss, nonnum, nonfin = _parse_scores(df[c])
        raw[c] = values
        mark(miss, f"missing {c}", c)
        mark(nonnum, f"non-numeric {c}", c)
        mark(nonfin, f"non-finite {c}", c)

    seg = np.empty(n, dtype=object)
    ok_items = ~np.any([m for _, m in item_parts], axis=0) if item_parts else np.ones(n, dtype=bool)
    for i in np.flatnonzero(ok_items):
        seg[i] = SEG_ID_SEPARATOR.join(str(p[0][i]) for p in item_parts)

    inv_idx = np.flatnonzero(invalid)
    invalid_rows = pd.DataFrame({
        "line": lines[inv_idx].astype(np.int64),
        "row": inv_idx.astype(np.int64),
        "reason": pd.array(inv_reason[inv_idx], dtype=object),
        "column": pd.array(inv_column[inv_idx], dtype=object),
        "value": [_short(df[inv_column[i]].iloc[i]) for i in inv_idx],
    })

    # ---- step 1: warm-up (position among the rater's rows, valid or not, in file order)
    warm = np.zeros(n, dtype=bool)
    if opts.drop_first:
        has_rater = ~rater_missing
        pos = pd.Series(rater[has_rater]).groupby(pd.Series(rater[has_rater]), sort=False).cumcount().to_numpy()
        in_warm = np.zeros(n, dtype=bool)
        in_warm[np.flatnonzero(has_rater)[pos < opts.drop_first]] = True
        warm = in_warm & ~invalid
    alive = ~invalid & ~warm

    # ---- step 2: per-rater z-scores, zero-variance raters
    zvals = {c: np.full(n, np.nan) for c in score_cols}
    zero_var = np.zeros(n, dtype=bool)
    zv_rows: list[dict[str, Any]] = []
    if opts.zscore and alive.any():
        idx = np.flatnonzero(alive)
        frame = pd.DataFrame({c: raw[c][idx] for c in score_cols})
        frame["_r"] = rater[idx]
        groups = frame.groupby("_r", sort=False)
        nunique = groups[score_cols].nunique()
        bad = nunique.eq(1)
        counts = groups.size()
        for r in nunique.index[bad.any(axis=1)]:
            cols = [c for c in score_cols if bool(bad.loc[r, c])]
            zv_rows.append({"rater": r, "n_judgments": int(counts.loc[r]), "columns": ", ".join(cols)})
        bad_raters = {row["rater"] for row in zv_rows}
        is_bad = frame["_r"].isin(bad_raters).to_numpy()
        zero_var[idx[is_bad]] = True
        for c in score_cols:
            mean = groups[c].transform("mean").to_numpy()
            sd = groups[c].transform("std", ddof=0).to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                z = (frame[c].to_numpy() - mean) / sd
            z[is_bad] = np.nan
            zvals[c][idx] = z
    zero_variance_raters = pd.DataFrame(zv_rows, columns=["rater", "n_judgments", "columns"])
    alive &= ~zero_var

    # ---- step 3: Tukey fences over all remaining judgments, every score column
    outside = np.zeros(n, dtype=bool)
    fence_rows: list[dict[str, Any]] = []
    if opts.iqr_k is not None:
        k = opts.iqr_k
        idx = np.flatnonzero(alive)
        for c in score_cols:
            vals = zvals[c][idx] if opts.zscore else raw[c][idx]
            name = f"{c}_z" if opts.zscore else c
            if len(vals):
                q1, q3 = (float(v) for v in np.percentile(vals, [25, 75]))
                iqr = q3 - q1
                lo, hi = q1 - k * iqr, q3 + k * iqr
                out_c = (vals < lo) | (vals > hi)
                outside[idx[out_c]] = True
            else:
                q1 = q3 = iqr = lo = hi = float("nan")
                out_c = np.zeros(0, dtype=bool)
            fence_rows.append({"column": name, "q1": q1, "q3": q3, "iqr": iqr, "lower": lo, "upper": hi,
                               "removed": int(out_c.sum())})
    fences = pd.DataFrame(fence_rows, columns=["column", "q1", "q3", "iqr", "lower", "upper", "removed"])
    kept = alive & ~outside
    if not kept.any():
        notes.append("no judgments are left after QC; there are no item scores")

    # ---- kept judgments frame
    kidx = np.flatnonzero(kept)
    judgments = df.iloc[kidx].copy()
    for c in score_cols:
        if not pd.api.types.is_numeric_dtype(df[c].dtype) or pd.api.types.is_bool_dtype(df[c].dtype):
            values = raw[c][kidx]
            integral = len(values) > 0 and bool(np.all(values == np.round(values)))
            judgments[c] = values.astype(np.int64) if integral else values
    for c, zc in zip(score_cols, z_names, strict=True):
        judgments[zc] = zvals[c][kidx]
    seg_series = pd.Series(seg[kidx], index=judgments.index, name="seg_id", dtype=object)

    # ---- step 4: item scores
    first = score_cols[0]
    kf = pd.DataFrame({"system": system[kidx], "seg_id": seg[kidx]})
    for c in score_cols:
        kf[f"{c}\0raw"] = raw[c][kidx]
        kf[f"{c}\0z"] = zvals[c][kidx]
    pair_sizes = kf.groupby(["system", "seg_id"], sort=False).size() if len(kf) else pd.Series(dtype=np.int64)
    repeated_pairs = int((pair_sizes > 1).sum())
    repeated_judgments = int(pair_sizes[pair_sizes > 1].sum())
    value_cols = [col for c in score_cols for col in (f"{c}\0raw", f"{c}\0z")]
    if opts.average_repeats and len(kf):
        g = kf.groupby(["system", "seg_id"], sort=False)
        agg = g[value_cols].mean()
        agg["n_judgments"] = g.size()
        agg = agg.reset_index()
    else:
        agg = kf.copy()
        agg["n_judgments"] = 1
    item_scores = pd.DataFrame({
        "system": agg["system"].astype(object).to_numpy() if len(agg) else np.array([], dtype=object),
        "seg_id": agg["seg_id"].astype(object).to_numpy() if len(agg) else np.array([], dtype=object),
        "score": (agg[f"{first}\0z"] if opts.zscore else agg[f"{first}\0raw"]).to_numpy(dtype=np.float64),
        "score_raw": agg[f"{first}\0raw"].to_numpy(dtype=np.float64),
        "n_judgments": agg["n_judgments"].to_numpy(dtype=np.int64),
    })
    for c in score_cols:
        raw_name, z_name = c, f"{c}_z"
        if raw_name in ITEM_SCORE_BASE_COLUMNS or z_name in ITEM_SCORE_BASE_COLUMNS:
            raw_name, z_name = f"human_{c}", f"human_{c}_z"
        item_scores[raw_name] = agg[f"{c}\0raw"].to_numpy(dtype=np.float64)
        item_scores[z_name] = agg[f"{c}\0z"].to_numpy(dtype=np.float64)

    # ---- per-system means (Table 4) and step 5: outlier systems
    sm_cols = ["system", "n", "n_items"] + [x for c in score_cols for x in (c, f"{c}_z")] + \
        ["score", "robust_z", "outlier"]
    if len(kf):
        g = kf.groupby("system", sort=False)
        sm = pd.DataFrame({"system": list(g.groups.keys())})
        sm["n"] = g.size().to_numpy(dtype=np.int64)
        sm["n_items"] = g["seg_id"].nunique().to_numpy(dtype=np.int64)
        for c in score_cols:
            sm[c] = g[f"{c}\0raw"].mean().to_numpy()
            sm[f"{c}_z"] = g[f"{c}\0z"].mean().to_numpy()
        sm["score"] = sm[f"{first}_z"] if opts.zscore else sm[first]
        rz, med, mad = _robust_z(sm["score"].to_numpy(dtype=np.float64))
        sm["robust_z"] = rz
        sm["outlier"] = (np.abs(np.nan_to_num(rz, nan=0.0)) > opts.outlier_threshold) & opts.flag_outlier_systems
        if opts.flag_outlier_systems and len(sm) and mad == 0:
            notes.append("the median absolute deviation of the system means is 0, so the robust z is undefined "
                         "and no system was flagged")
        if opts.flag_outlier_systems and 0 < len(sm) < 3:
            notes.append(f"only {len(sm)} system(s): a robust z cannot single out an outlier")
        sm = sm.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)
    else:
        sm = pd.DataFrame({c: [] for c in sm_cols})
    system_means = sm[sm_cols]
    outlier_systems = [str(s) for s in system_means.loc[system_means["outlier"].astype(bool), "system"]]
    without = item_scores[~item_scores["system"].isin(outlier_systems)].reset_index(drop=True)

    # ---- counts per rater / system
    steps_spec = [("invalid", "unusable rows", True, invalid), ("warmup", "warm-up", opts.drop_first > 0, warm),
                  ("zero_variance", "zero-variance raters", opts.zscore, zero_var),
                  ("outside_fences", "outside Tukey fences", opts.iqr_k is not None, outside)]
    remaining = n
    step_rows = [{"key": "input", "step": "input", "enabled": True, "removed": 0, "remaining": n}]
    for key, label, enabled, mask in steps_spec:
        removed = int(mask.sum())
        remaining -= removed
        step_rows.append({"key": key, "step": label, "enabled": enabled, "removed": removed, "remaining": remaining})
    steps = pd.DataFrame(step_rows)

    def per_group(keys: np.ndarray, missing: np.ndarray, label: str) -> pd.DataFrame:
        present = keys[~missing]
        order = list(dict.fromkeys(present.tolist()))
        out = pd.DataFrame({label: order})
        out["n_input"] = _count_by(keys, ~missing, order)
        for key, _, _, mask in steps_spec:
            out[key] = _count_by(keys, mask & ~missing, order)
        out["kept"] = _count_by(keys, kept, order)
        return out

    per_rater = per_group(rater, rater_missing, "rater")
    per_system = per_group(system, system_missing, "system")

    report = QCReport(
        n_input=n, n_kept=int(kept.sum()), n_item_scores=len(item_scores), steps=steps, invalid_rows=invalid_rows,
        per_rater=per_rater, per_system=per_system, zero_variance_raters=zero_variance_raters, fences=fences,
        repeated_pairs=repeated_pairs, repeated_judgments=repeated_judgments, system_means=system_means,
        outlier_systems=outlier_systems, parameters=opts.to_dict(), notes=notes,
    )
    return QCResult(judgments=judgments, seg_id=seg_series, item_scores=item_scores,
                    item_scores_without_outliers=without, report=report, options=opts)


# ------------------------------------------------------------------------------------------------------ loading

_DELIMITERS = (",", "\t", ";", "|")


def _decode(data: bytes, name: str) -> str:
    if data.startswith(b"PK\x03\x04"):
        raise ValueError(f"{name}: looks like an Excel workbook or zip archive, not CSV/TSV text; export it as CSV")
    if data.startswith(b"\xef\xbb\xbf"):
        encodings = ["utf-8-sig"]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encodings = ["utf-16"]
    elif b"\x00" in data[:4096]:
        head = data[:4096]
        even_nul = head[0::2].count(0)
        odd_nul = head[1::2].count(0)
        encodings = ["utf-16-le", "utf-16-be"] if odd_nul >= even_nul else ["utf-16-be", "utf-16-le"]
    else:
        encodings = ["utf-8", "cp949"]
    for enc in encodings:
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            continue
        return text
    raise ValueError(f"{name}: cannot decode the file as text (tried {', '.join(encodings)}); "
                     "save it as UTF-8 CSV or TSV")


def _choose_delimiter(text: str, name: str) -> str:
    header = next((ln for ln in text.splitlines() if ln.strip()), "")
    suffix = Path(name).suffix.lower()
    preferred = "\t" if suffix in (".tsv", ".tab") else "," if suffix == ".csv" else None
    if preferred is not None and preferred in header:
        return preferred
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(counts, key=lambda d: counts[d])
    if counts[best]:
        return best
    if preferred is not None:
        return preferred
    try:
        return csv.Sniffer().sniff(text[:4096], delimiters="".join(_DELIMITERS)).delimiter
    except csv.Error:
        return ","


def read_judgments(path_or_bytes: str | os.PathLike[str] | bytes, name: str | None = None) -> pd.DataFrame:
    """Read a CSV/TSV judgments file into a DataFrame (pandas' type inference; header names whitespace-stripped).

    ``path_or_bytes`` is a path or the file's bytes (e.g. an upload); ``name`` is the file name used in error
    messages and for the delimiter (``.tsv``/``.tab`` → tab, ``.csv`` → comma, unless the header line lacks it; else
    the most frequent of comma, tab, semicolon, pipe in the header). Encodings: UTF-8 with or without BOM, UTF-16
    (with a BOM, or BOM-less detected by NUL bytes), CP949 (tried when the text is not valid UTF-8).

    Raises ``ValueError`` naming the file and the problem: unreadable, empty, binary/undecodable, malformed rows,
    or a header without data rows.
    """
    if isinstance(path_or_bytes, bytes | bytearray | memoryview):
        data = bytes(path_or_bytes)
        label = name or "the uploaded file"
    else:
        label = name or str(path_or_bytes)
        try:
            data = Path(path_or_bytes).read_bytes()
        except OSError as exc:
            raise ValueError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
    if not data.strip():
        raise ValueError(f"{label}: the file is empty")
    text = _decode(data, label)
    sep = _choose_delimiter(text, label)
    kind = "TSV" if sep == "\t" else "CSV"
    try:
        df = pd.read_csv(io.StringIO(text), sep=sep)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{label}: no header line found") from None
    except (pd.errors.ParserError, csv.Error, ValueError) as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{label}: malformed {kind}: {msg}") from None
    if len(df) == 0:
        raise ValueError(f"{label}: the file has a header but no data rows")
    df.columns = [c.strip() if isinstance(c, str) else c for c in df.columns]
    return df
