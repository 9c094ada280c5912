"""What the humans punish: per-segment error counts of the error profile against the human scores — descriptive
statistics, not causal estimates (docs/design.md §8).

Features, one value per (system, segment) pair with a hypothesis: the error count of every category and subcategory
(:mod:`korean_eval.lens.profile`, ``errors``; feature names ``particle`` and ``particle/case``), ``spacing`` (the
spacing errors of :mod:`korean_eval.lens.spacing`), ``speech_level_mismatch`` and ``honorific_mismatch`` (0 or 1,
:mod:`korean_eval.lens.speech_level`).

* **Correlation** of each feature with the human score over all (system, segment) pairs that have both (the
  meta-evaluation's segment level, grouping ``none``: :func:`korean_eval.metaeval.stats.correlation.segment_correlation`),
  Pearson, Spearman and Kendall τ-b, with the meta-evaluation's percentile bootstrap interval (segments resampled
  with all their systems, :func:`korean_eval.metaeval.stats.resampling.bootstrap_segment_correlations` over
  :func:`korean_eval.metaeval.tables.intervals.bootstrap_counts`). A negative correlation: more such errors, lower human
  scores.
* **Linear model** (ordinary least squares, ``numpy.linalg.lstsq``): human score = intercept + Σ coefficient ×
  error count of each top-level category + coefficient × spacing errors, over the same pairs. Predictors that are
  constant (e.g. a category without any error) are left out and named in a note. Coefficient intervals are the
  classical ones, ``b ± t(0.975, n − p) · se`` with ``se² = diag(σ̂² (XᵀX)⁻¹)``, ``σ̂² = RSS / (n − p)`` (``p``
  parameters incl. the intercept); they assume independent errors, which (system, segment) pairs sharing a segment
  are not: read them as descriptive. ``R² = 1 − RSS / TSS``.

Table (:data:`COLUMNS`): ``analysis`` (``correlation`` | ``ols``), ``feature``, ``statistic`` (pearson, spearman,
kendall | coefficient, r2), ``value``, ``ci_low``, ``ci_high``, ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from korean_eval.lens.pos_categories import CATEGORIES, SUBCATEGORIES
from korean_eval.lens.profile import ALL
from korean_eval.metaeval.stats.correlation import segment_correlation
from korean_eval.metaeval.stats.resampling import bootstrap_segment_correlations, percentile_ci
from korean_eval.metaeval.tables.intervals import bootstrap_counts
from korean_eval.model.defaults import RESAMPLES, SEED
from korean_eval.model.vocabulary import VECTOR_STATISTICS

COLUMNS = ["analysis", "feature", "statistic", "value", "ci_low", "ci_high", "n"]
INTERCEPT = "(intercept)"
MODEL_FEATURES: tuple[str, ...] = (*CATEGORIES, "spacing")
"""The linear model's predictors (those that are not constant)."""


def feature_name(category: str, subcategory: str) -> str:
    """``particle`` for a whole category, ``particle/case`` for a subcategory."""
    return category if subcategory == ALL else f"{category}/{subcategory}"


def feature_matrices(
    profile_segments: pd.DataFrame, spacing_segments: pd.DataFrame, speech_segments: pd.DataFrame,
    systems: Sequence[str], seg_ids: Sequence[str],
) -> dict[str, np.ndarray]:
    """Feature name → ``(n_systems, n_items)`` matrix of its values: 0 for a pair without such an error, NaN where
    the system has no hypothesis (no row in ``spacing_segments``, which has one row per pair)."""
    sys_index = {s: i for i, s in enumerate(systems)}
    seg_index = {s: j for j, s in enumerate(seg_ids)}

    def placed(frame: pd.DataFrame, values, base: np.ndarray) -> np.ndarray:
        out = base.copy()
        out[frame["system"].map(sys_index).to_numpy(int), frame["seg_id"].map(seg_index).to_numpy(int)] = values
        return out

    present = placed(spacing_segments, 0.0, np.full((len(systems), len(seg_ids)), np.nan))
    names = [feature_name(c, s) for c, s in zip(profile_segments["category"], profile_segments["subcategory"], strict=True)]
    frame = profile_segments.assign(feature=names)
    occurring = set(names)
    order = [*CATEGORIES, *(n for n in (feature_name(c, s) for c, s in SUBCATEGORIES) if n in occurring)]
    out = {name: placed(frame[frame["feature"] == name], frame.loc[frame["feature"] == name, "errors"].to_numpy(float), present)
           for name in order}
    out["spacing"] = placed(spacing_segments, spacing_segments["errors"].to_numpy(float), present)
    out["speech_level_mismatch"] = placed(speech_segments, (~speech_segments["agree"].to_numpy(bool)).astype(float), present)
    out["honorific_mismatch"] = placed(speech_segments, speech_segments["honorific_mismatch"].to_numpy(float), present)
    return out


def correlation_rows(features: dict[str, np.ndarray], human: np.ndarray, n_resamples: int, seed: int) -> list[dict]:
    """One row per feature × statistic: the correlation with the human scores and its bootstrap interval (none
    when ``n_resamples`` is 0)."""
    counts = bootstrap_counts(human.shape[1], n_resamples, seed) if n_resamples > 0 and human.shape[1] else None
    rows = []
    for name, matrix in features.items():
        for statistic in VECTOR_STATISTICS:
            found = segment_correlation(matrix, human, statistic, "none")
            low = high = float("nan")
            if counts is not None and np.isfinite(found.value):
                low, high = percentile_ci(bootstrap_segment_correlations(matrix, human, statistic, "none", counts))
            rows.append(dict(analysis="correlation", feature=name, statistic=statistic, value=found.value,
                             ci_low=low, ci_high=high, n=found.n))
    return rows


def ols_rows(features: dict[str, np.ndarray], human: np.ndarray) -> tuple[list[dict], list[str]]:
    """The linear model's rows (coefficients with 95% intervals, then R²) and notes on left-out predictors."""
    from scipy import stats as sps  # imported when first used: it takes half a second
    ok = np.isfinite(human) & np.all([np.isfinite(features[f]) for f in MODEL_FEATURES], axis=0)
    y = human[ok]
    columns = {f: features[f][ok] for f in MODEL_FEATURES}
    constant = [f for f, v in columns.items() if v.size == 0 or np.all(v == v[0])]
    used = [f for f in MODEL_FEATURES if f not in constant]
    notes = [f"linear model: left out the constant predictor(s) {', '.join(constant)}"] if constant else []
    n, p = len(y), len(used) + 1
    if n <= p:
        return [], notes + [f"linear model: {n} pairs with a human score are too few for {p} parameters"]
    x = np.column_stack([np.ones(n), *(columns[f] for f in used)])
    coef, _res, rank, _sv = np.linalg.lstsq(x, y, rcond=None)
    rss = float(np.sum((y - x @ coef) ** 2))
    tss = float(np.sum((y - y.mean()) ** 2))
    if rank < p:
        notes.append("linear model: the predictors are collinear; coefficient intervals are not given")
        se = np.full(p, np.nan)
    else:
        se = np.sqrt(np.diag(rss / (n - p) * np.linalg.inv(x.T @ x)))
    half = sps.t.ppf(0.975, n - p) * se
    rows = [
        dict(analysis="ols", feature=name, statistic="coefficient", value=float(b), ci_low=float(b - h),
             ci_high=float(b + h), n=n)
        for name, b, h in zip([INTERCEPT, *used], coef, half, strict=True)
    ]
    r2 = 1.0 - rss / tss if tss > 0 else float("nan")
    rows.append(dict(analysis="ols", feature="(model)", statistic="r2", value=r2, ci_low=np.nan, ci_high=np.nan, n=n))
    return rows, notes


def human_links(
    features: dict[str, np.ndarray], human: np.ndarray, n_resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[pd.DataFrame, list[str]]:
    """The table (:data:`COLUMNS`) and its notes; empty without any human score."""
    if not np.isfinite(human).any():
        return pd.DataFrame(columns=COLUMNS), ["no human scores: nothing to link the errors to"]
    rows, notes = ols_rows(features, human)
    return pd.DataFrame(correlation_rows(features, human, n_resamples, seed) + rows, columns=COLUMNS), notes
