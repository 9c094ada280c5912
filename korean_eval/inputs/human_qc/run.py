"""``run_qc``: the quality-control steps of :mod:`korean_eval.inputs.human_qc` (docs/design.md §6) in order, and the
report of what each did."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.human_qc.report import QCReport, QCResult, group_counts, step_table
from korean_eval.inputs.human_qc.steps import (
    item_scores,
    kept_frame,
    kept_judgments,
    rater_zscores,
    system_means,
    tukey_fences,
    unusable_rows,
    warmup,
)


def run_qc(df: pd.DataFrame, options: QCOptions | None = None, *, lines: Sequence[int] | None = None) -> QCResult:
    """Apply the QC steps of the package docstring to a judgments frame and return per-item human scores.

    ``df`` is typically ``table.frame()`` of :func:`korean_eval.inputs.table_reader.read_table` (every cell a string), with
    ``lines=table.lines`` so that unusable rows name their file line; without ``lines`` a row's line is its
    position + 2. Column roles left ``None`` in ``options`` are auto-detected (``detect_columns``); ``ValueError``
    when a role cannot be resolved, a column is missing, an output column (``<col>_z``) already exists in ``df``,
    or ``lines`` does not have one entry per row. Bad values in rows never raise: they are excluded and listed in
    ``report.invalid_rows``.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"run_qc needs a pandas DataFrame, got {type(df).__name__}")
    opts = (options or QCOptions()).resolve(df)
    assert opts.score_cols
    score_cols = list(opts.score_cols)
    clash = [z for z in (f"{c}_z" for c in score_cols) if z in df.columns]
    if clash:
        raise ValueError(f"the judgments already have column(s) {', '.join(clash)}, which QC writes; rename or "
                         "drop them (is this file already QC'd?)")
    if lines is not None and len(lines) != len(df):
        raise ValueError(f"lines has {len(lines)} entries for {len(df)} judgments")
    line_numbers = np.arange(len(df)) + 2 if lines is None else np.asarray(lines, dtype=np.int64)

    rows = unusable_rows(df, opts, line_numbers)
    warm = warmup(rows, opts.drop_first)
    alive = ~rows.invalid & ~warm
    zvals, zero_var, zero_variance_raters = rater_zscores(rows, alive, score_cols, opts.zscore)
    alive &= ~zero_var
    outside, fences = tukey_fences(rows, zvals, alive, score_cols, opts)
    kept = alive & ~outside
    notes = [] if kept.any() else ["no judgments are left after QC; there are no item scores"]

    judgments, seg_series = kept_judgments(df, rows, zvals, kept, score_cols)
    kf = kept_frame(rows, zvals, kept, score_cols)
    items, repeated_pairs, repeated_judgments = item_scores(kf, score_cols, opts)
    means, mean_notes = system_means(kf, score_cols, opts)
    notes += mean_notes
    outlier_systems = [str(s) for s in means.loc[means["outlier"].astype(bool), "system"]]
    without = items[~items["system"].isin(outlier_systems)].reset_index(drop=True)

    removed = {"invalid": rows.invalid, "warmup": warm, "zero_variance": zero_var, "outside_fences": outside}
    report = QCReport(
        n_input=len(df), n_kept=int(kept.sum()), n_item_scores=len(items), steps=step_table(removed, opts),
        invalid_rows=rows.invalid_rows,
        per_rater=group_counts(rows.rater, rows.rater_missing, "rater", removed, kept),
        per_system=group_counts(rows.system, rows.system_missing, "system", removed, kept),
        zero_variance_raters=zero_variance_raters, fences=fences, repeated_pairs=repeated_pairs,
        repeated_judgments=repeated_judgments, system_means=means, outlier_systems=outlier_systems,
        parameters=opts.to_dict(), notes=notes,
    )
    return QCResult(judgments=judgments, seg_id=seg_series, item_scores=items, item_scores_without_outliers=without,
                    report=report, options=opts)
