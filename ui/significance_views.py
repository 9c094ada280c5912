"""Result tables of the significance tests → the tables the pages draw: significance matrix and clusters, system
pairs and their labels, the ranking view, pairwise accuracy with SPA (pure pandas; no Streamlit, no Plotly)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from korean_eval.model.results import Results
from korean_eval.model.vocabulary import config_label
from ui import formats
from ui.views import _level_rank, level_family, metric_label, ordered_levels, ordered_metrics

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
#: A Markdown hard line break (two spaces, newline): inside a table cell it puts the score under the system name.
LINE_BREAK = "  \n"
HUMAN_TESTS = {
    "bootstrap": "Paired bootstrap",
    "wilcoxon": "Wilcoxon rank-sum (as in the study)",
}
SIGNIFICANCE_TESTS = {
    "perm-inputs": "Permutation test (segments swapped whole)",
    "perm-wmt": "Permutation test as WMT (each score swapped alone)",
    "williams": "Williams test (ungrouped only; assumes independent points)",
}


def config_display(config: str, sign: float = 1.0) -> str:
    """``"char/chrf"`` → ``"chrF@char"`` (bring-your-own metrics keep their own name). An error rate compared by
    its agreement (``sign`` −1, the ``sign`` column of ``rank_clusters_table``) is written with a leading "−":
    ``"−TER@char"``. The one label of a configuration in the significance matrix and the cluster table."""
    level, _, metric = config.partition("/")
    return ("−" if sign < 0 else "") + config_label(metric_label(metric), level)


def cluster_labels(clusters: pd.DataFrame) -> list[str]:
    """:func:`config_display` of every row of ``rank_clusters_table`` (its ``config`` and ``sign``), in order."""
    return [config_display(c, s) for c, s in zip(clusters["config"], clusters["sign"], strict=True)]


def significance_pivot(table: pd.DataFrame, clusters: pd.DataFrame, test: str) -> pd.DataFrame:
    """Square frame of one-sided p-values: cell (row, column) = p that *row* agrees with the humans more than
    *column* (``significance_table`` rows of ``test``). Rows and columns are the configurations in cluster order
    (best first, from ``rank_clusters_table``); the diagonal is NaN."""
    order = list(clusters["config"])
    if not len(table):
        return pd.DataFrame(np.nan, index=order, columns=order, dtype=float)
    sub = table.loc[table["test"] == test, ["config_a", "config_b", "p_value"]].drop_duplicates(
        ["config_a", "config_b"], keep="last"
    )
    out = sub.pivot(index="config_a", columns="config_b", values="p_value").reindex(index=order, columns=order)
    out.index.name = out.columns.name = None
    return out.astype(float)


def cluster_table(clusters: pd.DataFrame) -> pd.DataFrame:
    """The rank clusters as text, one row per cluster (best first): its configurations (:func:`cluster_labels`),
    best first, each with its agreement (3 decimals) — e.g. ``chrF++@word (0.992), −TER@char (0.977)``: an error
    rate's agreement is its correlation with the sign flipped, hence the "−"."""
    members = [
        f"{label} ({formats.correlation(r)})" for label, r in zip(cluster_labels(clusters), clusters["correlation"], strict=True)
    ]
    grouped = pd.DataFrame({"cluster": clusters["cluster"].astype(int).to_numpy(), "member": members})
    rows = grouped.groupby("cluster", sort=True)["member"].agg(", ".join)
    return pd.DataFrame({"cluster": [formats.rank(c) for c in rows.index], "configurations (agreement)": rows.to_numpy()})


def pair_table(pairs: pd.DataFrame, n_resamples: int | None = None, human_resamples: int | None = None) -> pd.DataFrame:
    """``system_pairs_table`` rows → the displayed text table (one row per level × system pair): differences with
    2 decimals and their 95% intervals, p-values by :func:`ui.formats.p_value` (``n_resamples`` /
    ``human_resamples``: the metric's / the humans' bootstrap resamples, whose floor 1/(n + 1) reads "< 0.001";
    None for a test without resampling, e.g. the rank-sum test)."""
    cols = [
        "level", "pair (a vs b)", "label", "metric prefers", "metric Δ (a − b) [95% CI]", "metric p", "humans prefer",
        "human Δ (a − b) [95% CI]", "human p",
    ]
    if pairs.empty:
        return pd.DataFrame(columns=cols)

    def delta(diff: pd.Series, low: pd.Series, high: pd.Series, missing: str) -> list[str]:
        return [
            f"{formats.score(d, signed=True)} {formats.interval(lo, hi, missing=missing)}".rstrip()
            for d, lo, hi in zip(diff, low, high, strict=True)
        ]

    out = pd.DataFrame(
        {
            "level": pairs["level"],
            "pair (a vs b)": [f"{a} vs {b}" for a, b in zip(pairs["system_a"], pairs["system_b"], strict=True)],
            "label": pairs["label"].replace("", "undefined"),
            "metric prefers": pairs["metric_better"].replace("", formats.DASH),
            "metric Δ (a − b) [95% CI]": delta(pairs["metric_diff"], pairs["metric_ci_low"], pairs["metric_ci_high"], ""),
            "metric p": [formats.p_value(p, n_resamples) for p in pairs["metric_p"]],
            "humans prefer": pairs["human_better"].replace("", formats.DASH),
            "human Δ (a − b) [95% CI]": delta(
                pairs["human_diff"], pairs["human_ci_low"], pairs["human_ci_high"], "(rank-sum test: no interval)"
            ),
            "human p": [formats.p_value(p, human_resamples) for p in pairs["human_p"]],
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

    A text cell is ``"system (score)"``, plus ``"human #k"`` where the humans put that system at another position,
    each part on a line of its own (Markdown line breaks, so that a column is as wide as a system name); ``labels``
    holds the pair label between that system and the one below it in the same column (``""`` for the last row and
    the human column)."""
    stages = ["Human", *[c for c in dict.fromkeys(view["level"]) if c != "human"]]
    n = int(view["position"].max()) if len(view) else 0
    text = pd.DataFrame("", index=range(1, n + 1), columns=stages, dtype=object)
    labels = pd.DataFrame("", index=range(1, n + 1), columns=stages, dtype=object)
    for r in view.itertuples():
        stage = "Human" if r.config == "human" else r.level
        score = formats.score(r.score)
        moved = "" if r.config == "human" or r.human_position == r.position else f"{LINE_BREAK}human #{r.human_position}"
        text.loc[r.position, stage] = f"{r.system}{LINE_BREAK}({score}){moved}"
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
