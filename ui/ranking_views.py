"""The ranking check's views (pure; no Streamlit): each configuration's systems best first with intervals and
clusters, the paired tests of one configuration, the pairs the configurations split over, the segments behind a
split, and the rank movement across levels and metrics — drawn from the tables of
:mod:`korean_eval.metaeval.tables.system_ranking`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from korean_eval.model.vocabulary import config_name, parse_config
from ui import formats
from ui.views import metric_label, ordered_levels


def config_title(config: str) -> str:
    """``"chrF++ @ kiwi"`` for ``"kiwi/chrf++"``."""
    level, metric = parse_config(config)
    return f"{metric_label(metric)} @ {level}"


def ordered_configs(ranking: pd.DataFrame, metrics: list[str]) -> list[str]:
    """The configurations of ``ranking`` grouped by metric (in ``metrics`` order), levels in registry order."""
    out = []
    for metric in metrics:
        levels = ranking.loc[ranking["metric"] == metric, "level"].unique()
        out += [config_name(level, metric) for level in ordered_levels(levels)]
    return out


def movement(ranking: pd.DataFrame, configs: list[str]) -> pd.DataFrame:
    """Long table for the rank-movement chart: ``system, config, label, position, score, ci_low, ci_high, cluster,
    tied`` (``tied``: the system shares its significance cluster with another system), configurations in
    ``configs`` order."""
    rows = []
    for config in configs:
        level, metric = parse_config(config)
        group = ranking[(ranking["level"] == level) & (ranking["metric"] == metric)]
        sizes = group["cluster"].value_counts()
        for r in group.itertuples():
            rows.append({
                "system": r.system, "config": config, "label": config_title(config), "position": r.position,
                "score": r.score, "ci_low": r.ci_low, "ci_high": r.ci_high, "cluster": r.cluster,
                "tied": bool(np.isfinite(r.cluster) and sizes.get(r.cluster, 0) > 1),
            })
    return pd.DataFrame(rows, columns=["system", "config", "label", "position", "score", "ci_low", "ci_high",
                                       "cluster", "tied"])


def ranking_text(ranking: pd.DataFrame, level: str, metric: str) -> pd.DataFrame:
    """One configuration's systems best first: ``rank, cluster, system, score, 95% interval`` as text (the
    interval: sacrebleu's bootstrap estimate, the sorted resampled scores at positions n//40 and n − n//40 − 1)."""
    group = ranking[(ranking["level"] == level) & (ranking["metric"] == metric)].sort_values("position")
    return pd.DataFrame({
        "rank": [str(int(p)) for p in group["position"]],
        "cluster": [str(int(c)) if np.isfinite(c) else "—" for c in group["cluster"].astype(float)],
        "system": list(group["system"]),
        "score": [formats.score(v) for v in group["score"].astype(float)],
        "95% interval": [f"{formats.score(lo)} – {formats.score(hi)}" if np.isfinite(lo) else "—"
                         for lo, hi in zip(group["ci_low"].astype(float), group["ci_high"].astype(float), strict=True)],
        "μ ± CI (sacrebleu)": [f"{formats.score(m)} ± {formats.score(h)}" if np.isfinite(m) else "—"
                               for m, h in zip(group["bs_mean"].astype(float), group["bs_ci"].astype(float),
                                               strict=True)],
    })


def cluster_sentence(ranking: pd.DataFrame, level: str, metric: str) -> str:
    """``"A > B ≈ C > D"``: one configuration's order, ``>`` a significant step and ``≈`` a tie."""
    group = ranking[(ranking["level"] == level) & (ranking["metric"] == metric)].sort_values("position")
    clusters = [" ≈ ".join(g["system"]) for _, g in group.groupby("cluster", sort=True)]
    return " > ".join(clusters)


def p_text(p: float) -> str:
    """A p-value as text: ``< 0.001``, three decimals, or ``—``."""
    if not np.isfinite(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def pairs_text(pairs: pd.DataFrame, level: str, metric: str) -> pd.DataFrame:
    """The paired tests of one configuration as text: ``system a, system b, Δ (a − b), 95% interval of Δ,
    p (bootstrap), p (randomization), better, significant``."""
    rows = pairs[(pairs["level"] == level) & (pairs["metric"] == metric)]
    return pd.DataFrame({
        "system a": list(rows["system_a"]),
        "system b": list(rows["system_b"]),
        "Δ (a − b)": [formats.with_minus_sign(v, 2) for v in rows["diff"].astype(float)],
        "95% interval of Δ": [f"{formats.with_minus_sign(lo, 2)} – {formats.with_minus_sign(hi, 2)}"
                              if np.isfinite(lo) else "—"
                              for lo, hi in zip(rows["bs_ci_low"].astype(float), rows["bs_ci_high"].astype(float),
                                                strict=True)],
        "p (paired bootstrap)": [p_text(p) for p in rows["bs_p"].astype(float)],
        "p (approx. randomization)": [p_text(p) for p in rows["ar_p"].astype(float)],
        "better": list(rows["better"]),
        "significant": ["yes" if s else "no" for s in rows["significant"]],
    })


def splits_text(splits: pd.DataFrame) -> pd.DataFrame:
    """The system pairs that some configurations order one way and others the other way, as text: ``system a,
    system b, prefer a, prefer b, significant a, significant b`` (counts of configurations)."""
    split = splits[(splits["prefer_a"] > 0) & (splits["prefer_b"] > 0)]
    return pd.DataFrame({
        "system a": list(split["system_a"]),
        "system b": list(split["system_b"]),
        "configurations preferring a": [f"{a} ({s} significant)" for a, s in
                                        zip(split["prefer_a"], split["significant_a"], strict=True)],
        "configurations preferring b": [f"{b} ({s} significant)" for b, s in
                                        zip(split["prefer_b"], split["significant_b"], strict=True)],
    })


def split_segments_text(segments: pd.DataFrame, refs: list[str], hyps_a: list, hyps_b: list,
                        seg_ids: list[str]) -> pd.DataFrame:
    """The segments behind a split (:func:`korean_eval.metaeval.tables.system_ranking.split_segments`) with their
    texts: ``segment, Δ first, Δ second, reference, system a, system b``."""
    where = {s: i for i, s in enumerate(seg_ids)}
    idx = [where[s] for s in segments["seg_id"]]
    return pd.DataFrame({
        "segment": list(segments["seg_id"]),
        "Δ first": [formats.with_minus_sign(v, 2) for v in segments["diff_1"].astype(float)],
        "Δ second": [formats.with_minus_sign(v, 2) for v in segments["diff_2"].astype(float)],
        "reference": [refs[i] for i in idx],
        "system a": [hyps_a[i] or "" for i in idx],
        "system b": [hyps_b[i] or "" for i in idx],
    })
