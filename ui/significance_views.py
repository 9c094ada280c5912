"""Result tables of the significance tests → the tables the pages draw: significance matrix and clusters, system
pairs and their labels, the ranking view, pairwise accuracy with SPA (pure pandas; no Streamlit, no Plotly)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from korean_eval.metaeval.names import config_label
from korean_eval.results import Results
from ui.views import SYMBOLS, _level_rank, level_family, metric_label, ordered_levels, ordered_metrics

PAIR_BADGES = {
    "agree": "green",
    "flipped": "red",
    "flipped, neither significant": "orange",
    "metric significant, humans not": "violet",
    "humans significant, metric not": "blue",
}
PAIR_LABELS: dict[str, tuple[str, str]] = {
    "agree": ("background-color: #E3F4E1; color: #1E6B1E", "metric and humans prefer the same system"),
    "flipped": ("background-color: #FDE2E1; color: #A61B1B; font-weight: 600",
                "opposite preferences, and at least one side is significant"),
    "flipped, neither significant": ("background-color: #FFF1DC; color: #8A5A00",
                                     "opposite preferences, neither significant: a coin flip"),
    "metric significant, humans not": ("background-color: #EFE5FB; color: #5B2C91",
                                       "same direction; the metric is sure, the humans are not"),
    "humans significant, metric not": ("background-color: #E1ECFB; color: #1F4E8C",
                                       "same direction; the humans are sure, the metric is not"),
}
HUMAN_TESTS = {
    "bootstrap": "Paired bootstrap",
    "wilcoxon": "Wilcoxon rank-sum (as in the study)",
}
SIGNIFICANCE_TESTS = {
    "perm-inputs": "Permutation test (segments swapped whole)",
    "perm-wmt": "Permutation test as WMT (each score swapped alone)",
    "williams": "Williams test (ungrouped only; assumes independent points)",
}


def config_display(results: Results, config: str) -> str:
    """``"char/chrf"`` → ``"chrF@char"`` (bring-your-own metrics keep their own name)."""
    level, _, metric = config.partition("/")
    return config_label(metric_label(metric), level)


def significance_pivot(table: pd.DataFrame, clusters: pd.DataFrame, test: str) -> pd.DataFrame:
    """Square frame of one-sided p-values: cell (row, column) = p that *row* agrees with the humans more than
    *column* (``significance_table`` rows of ``test``). Rows and columns are the configurations in cluster order
    (best first, from ``rank_clusters_table``); the diagonal is NaN."""
    order = list(clusters["config"])
    out = pd.DataFrame(np.nan, index=order, columns=order, dtype=float)
    sub = table[table["test"] == test] if len(table) else table
    for a, b, p in zip(sub.get("config_a", []), sub.get("config_b", []), sub.get("p_value", []), strict=True):
        if a in out.index and b in out.columns:
            out.loc[a, b] = float(p)
    return out


def cluster_table(results: Results, clusters: pd.DataFrame, statistic: str) -> pd.DataFrame:
    """The rank clusters, readable: ``cluster, configuration, agreement, <statistic> as computed``."""
    symbol = SYMBOLS[statistic]
    return pd.DataFrame(
        {
            "cluster": clusters["cluster"].astype(int),
            "configuration": [config_display(results, c) for c in clusters["config"]],
            "agreement": clusters["correlation"].astype(float),
            f"{symbol} as computed": clusters["value"].astype(float),
            "error rate (sign flipped)": clusters["sign"] < 0,
        }
    )


def _interval_texts(low: pd.Series, high: pd.Series, digits: int, missing: str = "n/a") -> list[str]:
    """Intervals as ``[low, high]`` text; ``missing`` (never a blank or "None") where there is none."""
    return [
        f"[{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(lo) and np.isfinite(hi) else missing
        for lo, hi in zip(low.astype(float), high.astype(float), strict=True)
    ]


def pair_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """``system_pairs_table`` rows → the displayed table (one row per level × system pair)."""
    cols = [
        "level", "system a", "system b", "label", "metric prefers", "humans prefer", "metric Δ (a − b)", "metric p",
        "metric 95% CI", "human Δ (a − b)", "human p", "human 95% CI",
    ]
    if pairs.empty:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame(
        {
            "level": pairs["level"],
            "system a": pairs["system_a"],
            "system b": pairs["system_b"],
            "metric prefers": pairs["metric_better"],
            "metric Δ (a − b)": pairs["metric_diff"].astype(float),
            "metric p": pairs["metric_p"].astype(float),
            "metric 95% CI": _interval_texts(pairs["metric_ci_low"], pairs["metric_ci_high"], 2),
            "humans prefer": pairs["human_better"],
            "human Δ (a − b)": pairs["human_diff"].astype(float),
            "human p": pairs["human_p"].astype(float),
            "human 95% CI": _interval_texts(pairs["human_ci_low"], pairs["human_ci_high"], 3, "n/a (rank-sum test)"),
            "label": pairs["label"].replace("", "undefined"),
        }
    )
    order = _level_rank(out["level"])
    return out.assign(_l=order).sort_values(["_l"], kind="stable").drop(columns="_l").reset_index(drop=True)[cols]


def label_css(label: object) -> str:
    """Cell style of a pair label (empty for anything else)."""
    return PAIR_LABELS.get(str(label), ("", ""))[0]


def label_counts(pairs: pd.DataFrame) -> pd.DataFrame:
    """Pairs per level × label (the five labels as columns, in their fixed order)."""
    labels = list(PAIR_LABELS)
    if pairs.empty:
        return pd.DataFrame(columns=["level", *labels])
    counts = pairs[pairs["label"].isin(labels)].groupby(["level", "label"]).size().unstack(fill_value=0)
    counts = counts.reindex(index=ordered_levels(pairs["level"].unique()), columns=labels, fill_value=0)
    counts.index.name = "level"
    counts.columns.name = None
    return counts.reset_index()


def ranking_table(view: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``ranking_view`` rows → (text, labels): positions (rows) × stages (``Human`` then each level, columns).

    A text cell is ``"system (score)"``, plus ``" · human #k"`` where the humans put that system at another
    position; ``labels`` holds the pair label between that system and the one below it
    in the same column (``""`` for the last row and the human column)."""
    stages = ["Human", *[c for c in dict.fromkeys(view["level"]) if c != "human"]]
    n = int(view["position"].max()) if len(view) else 0
    text = pd.DataFrame("", index=range(1, n + 1), columns=stages, dtype=object)
    labels = pd.DataFrame("", index=range(1, n + 1), columns=stages, dtype=object)
    for r in view.itertuples():
        stage = "Human" if r.config == "human" else r.level
        score = "–" if not np.isfinite(r.score) else f"{r.score:.2f}"
        moved = "" if r.config == "human" or r.human_position == r.position else f" · human #{r.human_position}"
        text.loc[r.position, stage] = f"{r.system} ({score}){moved}"
        labels.loc[r.position, stage] = r.vs_next
    text.index.name = labels.index.name = "position"
    return text, labels


def accuracy_view(accuracy: pd.DataFrame, results: Results) -> pd.DataFrame:
    """``pairwise_accuracy_table`` + display columns (metric label, family) and each configuration's soft pairwise
    accuracy ``spa`` (from ``results.correlations``; NaN where it was not computed), in metric then level order."""
    corr = results.correlations
    spa = corr.loc[corr["statistic"] == "spa", ["level", "metric", "value"]].rename(columns={"value": "spa"})
    df = accuracy.merge(spa, on=["level", "metric"], how="left")
    df["metric_label"] = df["metric"].map(metric_label)
    df["family"] = df["level"].map(level_family)
    metric_order = {m: i for i, m in enumerate(ordered_metrics(results))}
    df["_m"] = df["metric"].map(lambda m: metric_order.get(m, len(metric_order)))
    df["_l"] = _level_rank(df["level"])
    return df.sort_values(["_m", "_l"]).drop(columns=["_m", "_l"]).reset_index(drop=True)
