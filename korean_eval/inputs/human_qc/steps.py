"""The steps of human-judgment quality control, one function each, as defined in :mod:`korean_eval.inputs.human_qc`
(docs/design.md §6): unusable rows (step 0), warm-up (1), per-rater z-scores and zero-variance raters (2), Tukey
fences (3), repeated judgments averaged (4), per-system means and outlier systems (5).

Every function works on whole columns (numpy arrays aligned with the input rows); :func:`korean_eval.inputs.human_qc.run.
run_qc` calls them in order.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.table_reader import NumberCell, read_number
from korean_eval.inputs.text_files import identifier, system_name_problem

#: Column names of ``QCResult.item_scores`` that a score column's own mean columns must not collide with.
ITEM_SCORE_BASE_COLUMNS: tuple[str, ...] = ("system", "seg_id", "score", "score_raw", "n_judgments")

MAD_SCALE = 1.4826
SEG_ID_SEPARATOR = "-"


# ---------------------------------------------------------------------------------------------- cell values


def key_text(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(normalised text per value as an object array, missing mask). See the package docstring."""
    n = len(series)
    missing = series.isna().to_numpy().copy()
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
                text = identifier(str(v))
            if text:
                out[i] = text
            else:
                missing[i] = True
    return out, missing


@dataclass(frozen=True)
class ParsedScores:
    """One score column read as numbers: values (NaN where none) and a mask per kind of unusable cell."""

    values: np.ndarray
    missing: np.ndarray
    ambiguous: np.ndarray  # a locale-ambiguous number such as ``1,000`` (thousands separator or decimal comma?)
    nonnumeric: np.ndarray
    nonfinite: np.ndarray


def parse_scores(series: pd.Series) -> ParsedScores:
    """One score column as numbers.

    A numeric column is taken as it is (NaN = missing), a boolean one as 0/1. In any other column a text cell is
    converted by :func:`korean_eval.inputs.table_reader.read_number` (empty or whitespace only = missing; a value such as
    ``1,000`` = ambiguous, by its decimal-comma rule; other text = non-numeric), a Python/numpy number is taken as it
    is, anything else is non-numeric.
    """
    missing = series.isna().to_numpy().copy()
    n = len(series)
    nonnumeric = np.zeros(n, dtype=bool)
    ambiguous = np.zeros(n, dtype=bool)
    if pd.api.types.is_bool_dtype(series.dtype):
        values = series.astype(float).to_numpy()
    elif pd.api.types.is_numeric_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = np.full(n, np.nan)
        parsed: dict[str, NumberCell] = {}
        for i, v in enumerate(series.to_numpy(dtype=object)):
            if missing[i]:
                continue
            if isinstance(v, str):
                if not v.strip():
                    missing[i] = True
                    continue
                cell = parsed[v] if v in parsed else parsed.setdefault(v, read_number(v))
                x = cell.value
                ambiguous[i] = cell.problem.startswith("ambiguous")
            else:
                x = float(v) if isinstance(v, numbers.Real) else None
            if x is None:
                nonnumeric[i] = not ambiguous[i]
            else:
                values[i] = x
    nonfinite = ~missing & ~nonnumeric & ~ambiguous & ~np.isfinite(values)
    return ParsedScores(values, missing, ambiguous, nonnumeric, nonfinite)


def _short(value: Any) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------------------- step 0: unusable rows


@dataclass
class Rows:
    """Step 0's reading of every input row (arrays aligned with the rows): normalised keys, parsed scores, and
    which rows are unusable (``invalid``; listed with reason, column and value in ``invalid_rows``)."""

    rater: np.ndarray
    rater_missing: np.ndarray
    system: np.ndarray
    system_missing: np.ndarray
    seg: np.ndarray
    raw: dict[str, np.ndarray]
    invalid: np.ndarray
    invalid_rows: pd.DataFrame


def unusable_rows(df: pd.DataFrame, opts: QCOptions, lines: np.ndarray) -> Rows:
    """Step 0: read keys and scores; mark each unusable row with its primary reason (the first failing check)."""
    assert opts.rater_col and opts.system_col and opts.item_cols and opts.score_cols
    n = len(df)
    rater, rater_missing = key_text(df[opts.rater_col])
    for value, line in zip(df[opts.system_col], lines, strict=True):  # before key_text removes such characters
        if isinstance(value, str) and system_name_problem(value):
            raise ValueError(f"line {line}: {system_name_problem(value)}")
    system, system_missing = key_text(df[opts.system_col])
    item_parts = [key_text(df[c]) for c in opts.item_cols]
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
    for c in opts.score_cols:
        parsed = parse_scores(df[c])
        raw[c] = parsed.values
        mark(parsed.missing, f"missing {c}", c)
        mark(parsed.ambiguous, f"ambiguous number in {c} (thousands separator or decimal comma? write 1000 or 85.5)", c)
        mark(parsed.nonnumeric, f"non-numeric {c}", c)
        mark(parsed.nonfinite, f"non-finite {c}", c)

    inv_idx = np.flatnonzero(invalid)
    invalid_rows = pd.DataFrame({
        "line": lines[inv_idx].astype(np.int64),
        "row": inv_idx.astype(np.int64),
        "reason": pd.array(inv_reason[inv_idx], dtype=object),
        "column": pd.array(inv_column[inv_idx], dtype=object),
        "value": [_short(df[inv_column[i]].iloc[i]) for i in inv_idx],
    })
    return Rows(rater, rater_missing, system, system_missing, _seg_ids(item_parts, n), raw, invalid, invalid_rows)


def _seg_ids(item_parts: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """The item key per row (item texts joined by ``-``); None where an item value is missing."""
    seg = np.empty(n, dtype=object)
    ok_items = ~np.any([m for _, m in item_parts], axis=0) if item_parts else np.ones(n, dtype=bool)
    for i in np.flatnonzero(ok_items):
        seg[i] = SEG_ID_SEPARATOR.join(str(p[0][i]) for p in item_parts)
    return seg


# ---------------------------------------------------------------------------------------------- steps 1–3


def warmup(rows: Rows, drop_first: int) -> np.ndarray:
    """Step 1: mask of the usable rows among each rater's first ``drop_first`` rows (valid or not) in file order."""
    n = len(rows.invalid)
    if not drop_first:
        return np.zeros(n, dtype=bool)
    has_rater = ~rows.rater_missing
    rater = rows.rater[has_rater]
    pos = pd.Series(rater).groupby(pd.Series(rater), sort=False).cumcount().to_numpy()
    in_warm = np.zeros(n, dtype=bool)
    in_warm[np.flatnonzero(has_rater)[pos < drop_first]] = True
    return in_warm & ~rows.invalid


def rater_zscores(
    rows: Rows, alive: np.ndarray, score_cols: list[str], zscore: bool
) -> tuple[dict[str, np.ndarray], np.ndarray, pd.DataFrame]:
    """Step 2: per-rater z (population SD) of every score column over the ``alive`` rows, and the zero-variance
    raters. Returns (z per column, NaN outside ``alive`` or when off; mask of the zero-variance raters' rows; one
    row per such rater: ``rater``, ``n_judgments``, ``columns``)."""
    n = len(alive)
    zvals = {c: np.full(n, np.nan) for c in score_cols}
    zero_var = np.zeros(n, dtype=bool)
    zv_rows: list[dict[str, Any]] = []
    if zscore and alive.any():
        idx = np.flatnonzero(alive)
        frame = pd.DataFrame({c: rows.raw[c][idx] for c in score_cols})
        frame["_r"] = rows.rater[idx]
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
    return zvals, zero_var, pd.DataFrame(zv_rows, columns=["rater", "n_judgments", "columns"])


def tukey_fences(
    rows: Rows, zvals: dict[str, np.ndarray], alive: np.ndarray, score_cols: list[str], opts: QCOptions
) -> tuple[np.ndarray, pd.DataFrame]:
    """Step 3: (mask of the ``alive`` rows outside the fences of any score column, one row of bounds per column)."""
    outside = np.zeros(len(alive), dtype=bool)
    fence_rows: list[dict[str, Any]] = []
    if opts.iqr_k is not None:
        k = opts.iqr_k
        idx = np.flatnonzero(alive)
        for c in score_cols:
            vals = zvals[c][idx] if opts.zscore else rows.raw[c][idx]
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
    return outside, pd.DataFrame(fence_rows, columns=["column", "q1", "q3", "iqr", "lower", "upper", "removed"])


# ------------------------------------------------------------------------------------------ kept judgments


def kept_judgments(
    df: pd.DataFrame, rows: Rows, zvals: dict[str, np.ndarray], kept: np.ndarray, score_cols: list[str]
) -> tuple[pd.DataFrame, pd.Series]:
    """The kept rows of ``df`` (score columns made numeric if they were not, plus ``<col>_z``) and their seg_id."""
    kidx = np.flatnonzero(kept)
    judgments = df.iloc[kidx].copy()
    for c in score_cols:
        if not pd.api.types.is_numeric_dtype(df[c].dtype) or pd.api.types.is_bool_dtype(df[c].dtype):
            values = rows.raw[c][kidx]
            integral = len(values) > 0 and bool(np.all(values == np.round(values)))
            judgments[c] = values.astype(np.int64) if integral else values
    for c in score_cols:
        judgments[f"{c}_z"] = zvals[c][kidx]
    return judgments, pd.Series(rows.seg[kidx], index=judgments.index, name="seg_id", dtype=object)


def kept_frame(rows: Rows, zvals: dict[str, np.ndarray], kept: np.ndarray, score_cols: list[str]) -> pd.DataFrame:
    """The kept judgments as ``system``, ``seg_id`` and, per score column, ``<col>\\0raw`` and ``<col>\\0z``."""
    kidx = np.flatnonzero(kept)
    kf = pd.DataFrame({"system": rows.system[kidx], "seg_id": rows.seg[kidx]})
    for c in score_cols:
        kf[f"{c}\0raw"] = rows.raw[c][kidx]
        kf[f"{c}\0z"] = zvals[c][kidx]
    return kf


# ------------------------------------------------------------------------------------------ step 4: repeats


def item_scores(kf: pd.DataFrame, score_cols: list[str], opts: QCOptions) -> tuple[pd.DataFrame, int, int]:
    """Step 4: (item scores, (system, item) pairs with several kept judgments, judgments in such pairs)."""
    first = score_cols[0]
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
    items = pd.DataFrame({
        "system": agg["system"].astype(object).to_numpy() if len(agg) else np.array([], dtype=object),
        "seg_id": agg["seg_id"].astype(object).to_numpy() if len(agg) else np.array([], dtype=object),
        "score": (agg[f"{first}\0z"] if opts.zscore else agg[f"{first}\0raw"]).to_numpy(dtype=np.float64),
        "score_raw": agg[f"{first}\0raw"].to_numpy(dtype=np.float64),
        "n_judgments": agg["n_judgments"].to_numpy(dtype=np.int64),
    })
    for c in score_cols:
        raw_name, z_name = mean_column_names(c, ITEM_SCORE_BASE_COLUMNS)
        items[raw_name] = agg[f"{c}\0raw"].to_numpy(dtype=np.float64)
        items[z_name] = agg[f"{c}\0z"].to_numpy(dtype=np.float64)
    return items, repeated_pairs, repeated_judgments


def mean_column_names(score_col: str, base_columns: Sequence[str]) -> tuple[str, str]:
    """The names of a score column's mean raw and mean z columns in a table whose own columns are ``base_columns``:
    ``<col>``, ``<col>_z``; ``human_<col>``, ``human_<col>_z`` where either would collide (e.g. a column ``score``)."""
    if score_col in base_columns or f"{score_col}_z" in base_columns:
        return f"human_{score_col}", f"human_{score_col}_z"
    return score_col, f"{score_col}_z"


# ------------------------------------------------------------------------- step 5: system means and outliers

SYSTEM_MEAN_BASE_COLUMNS: tuple[str, ...] = ("system", "n", "n_items", "score", "robust_z", "outlier")


def robust_z(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(robust z per value, median, MAD); z is NaN everywhere when MAD = 0 or there are no values."""
    if len(values) == 0:
        return np.array([], dtype=np.float64), float("nan"), float("nan")
    med = float(np.median(values))
    mad = float(np.median(np.abs(values - med)))
    if mad == 0:
        return np.full(len(values), np.nan), med, mad
    return (values - med) / (MAD_SCALE * mad), med, mad


def system_means(kf: pd.DataFrame, score_cols: list[str], opts: QCOptions) -> tuple[pd.DataFrame, list[str]]:
    """Step 5: per-system means over the kept judgments (the study's Table 4) with robust z and outlier flags,
    sorted by ``score`` descending; and notes on why no system could be flagged."""
    first = score_cols[0]
    names = {c: mean_column_names(c, SYSTEM_MEAN_BASE_COLUMNS) for c in score_cols}
    sm_cols = ["system", "n", "n_items"] + [x for c in score_cols for x in names[c]] + ["score", "robust_z", "outlier"]
    notes: list[str] = []
    if not len(kf):
        return pd.DataFrame({c: [] for c in sm_cols})[sm_cols], notes
    g = kf.groupby("system", sort=False)
    sm = pd.DataFrame({"system": list(g.groups.keys())})
    sm["n"] = g.size().to_numpy(dtype=np.int64)
    sm["n_items"] = g["seg_id"].nunique().to_numpy(dtype=np.int64)
    for c in score_cols:
        sm[names[c][0]] = g[f"{c}\0raw"].mean().to_numpy()
        sm[names[c][1]] = g[f"{c}\0z"].mean().to_numpy()
    sm["score"] = sm[names[first][1]] if opts.zscore else sm[names[first][0]]
    rz, _med, mad = robust_z(sm["score"].to_numpy(dtype=np.float64))
    sm["robust_z"] = rz
    sm["outlier"] = (np.abs(np.nan_to_num(rz, nan=0.0)) > opts.outlier_threshold) & opts.flag_outlier_systems
    if opts.flag_outlier_systems and len(sm) and mad == 0:
        notes.append("the median absolute deviation of the system means is 0, so the robust z is undefined "
                     "and no system was flagged")
    if opts.flag_outlier_systems and 0 < len(sm) < 3:
        notes.append(f"only {len(sm)} system(s): a robust z cannot single out an outlier")
    sm = sm.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)
    return sm[sm_cols], notes
