"""The tables of the paper-ready exports (LaTeX, :mod:`korean_eval.exports.latex`; HTML,
:mod:`korean_eval.exports.html`), shaped from one :class:`~korean_eval.model.results.Results` (docs/design.md §2).

Pure pandas: every number is copied from the tidy tables (``correlations``, ``rankings``, ``human_systems``,
``token_stats``), never recomputed, so an export's numbers are the CSVs' numbers. The one exception is the
vocabulary of :func:`token_table`, which the tidy tables do not hold: it is counted from ``Results.tokens``.

The *top significance cluster* (bold in the LaTeX grid, outlined in the HTML report) is cluster 1 of
:func:`korean_eval.metaeval.tables.significance.rank_clusters_table` (the CLI's ``clusters.csv``) or of
:func:`korean_eval.metaeval.tables.significance.top_cluster_table` (the dashboard's headline), both WMT's ``AssignRanks``
walk with the paired permutation test ``perm-inputs`` (docs/design.md §5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from korean_eval.metaeval.tables.agreement import agreement_columns
from korean_eval.metrics import error_rate_labels, metric_info, metric_names
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import GRANULARITIES, grouping_used

#: The significance test behind the top cluster (valid for every statistic, granularity and grouping).
TOP_CLUSTER_TEST = "perm-inputs"
GRID_COLUMNS = ["level", "metric", "value", "ci_low", "ci_high", "n", "higher_is_better", "top", "negated", "shown",
                "shown_low", "shown_high"]
SCORE_COLUMNS = ["metric", "system", "column", "score", "rank"]
HUMAN_COLUMN = "Human"

Config = tuple[str, str]


@dataclass(frozen=True)
class TopClusters:
    """Per granularity, the (level, metric) configurations of the top significance cluster, and how it was found
    (``method``, e.g. ``"paired permutation test perm-inputs (Deutsch et al. 2021), Monte-Carlo, 1,000 permutations,
    seed 12345, alpha = 0.05"``; ``methods``: per granularity, when the tests differ — the exact test over few
    systems); ``limits``: per granularity, why its test cannot separate any configurations
    (:func:`korean_eval.metaeval.tables.resolution.table_resolution`; no cell of it is then marked). Empty
    ``configs`` and a ``method`` saying why when no test was run."""

    configs: Mapping[str, frozenset[Config]] = field(default_factory=dict)
    method: str = "no significance test was run"
    methods: Mapping[str, str] = field(default_factory=dict)
    limits: Mapping[str, str] = field(default_factory=dict)

    def of(self, granularity: str) -> frozenset[Config]:
        return self.configs.get(granularity, frozenset())

    def method_of(self, granularity: str) -> str:
        """How the top cluster of ``granularity`` was found (:attr:`methods`, else :attr:`method`)."""
        return self.methods.get(granularity, self.method)

    def limit_of(self, granularity: str) -> str:
        """Why the test of ``granularity`` cannot separate any configurations; "" when it can."""
        return self.limits.get(granularity, "")


def significance_method(n_permutations: int, seed: int, alpha: float, resampling: str = "") -> str:
    """How a top cluster was found, in words (captions and the report): ``resampling`` as the tests ran
    (:attr:`korean_eval.metaeval.tables.resolution.Resolution.resampling`: ``"exact, 16 sign patterns"``), else the
    Monte-Carlo ``n_permutations`` and ``seed`` asked for."""
    resampling = resampling or f"Monte-Carlo, {n_permutations:,} permutations, seed {seed}"
    return f"paired permutation test {TOP_CLUSTER_TEST} (Deutsch et al. 2021), {resampling}, alpha = {alpha:g}"


def top_configs(clusters: pd.DataFrame) -> frozenset[Config]:
    """The configurations of cluster 1 of a clusters table (columns ``level, metric, cluster``)."""
    if clusters is None or clusters.empty:
        return frozenset()
    first = clusters[clusters["cluster"] == 1]
    return frozenset(zip(first["level"], first["metric"], strict=True))


def tested_top_clusters(found: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]], statistic: str,
                        n_permutations: int = RESAMPLES, seed: int = SEED, alpha: float = ALPHA) -> TopClusters:
    """The :class:`TopClusters` of granularity → ``(significance rows, clusters)`` (what
    :func:`korean_eval.metaeval.tables.significance.top_cluster_table` returns, or the rows of ``significance.csv``
    and ``clusters.csv``, test :data:`TOP_CLUSTER_TEST`): each granularity's method from the tests as they ran
    (their ``method``), and no marked configuration where the design cannot reach ``alpha``
    (:func:`korean_eval.metaeval.tables.resolution.table_resolution`)."""
    from korean_eval.metaeval.tables.resolution import table_resolution

    configs, methods, limits = {}, {}, {}
    for granularity, (table, clusters) in found.items():
        resolution = table_resolution(table, statistic, granularity, TOP_CLUSTER_TEST, alpha, seed, n_permutations)
        methods[granularity] = significance_method(n_permutations, seed, alpha, resolution.resampling)
        if resolution.cannot_separate:
            limits[granularity] = resolution.limit
            configs[granularity] = frozenset()
        else:
            configs[granularity] = top_configs(clusters)
    return TopClusters(configs, significance_method(n_permutations, seed, alpha), methods, limits)


def top_clusters_from_table(clusters: pd.DataFrame, statistic: str, method: str,
                            significance: pd.DataFrame | None = None, n_permutations: int = RESAMPLES,
                            seed: int = SEED, alpha: float = ALPHA) -> TopClusters:
    """The top clusters of both granularities from a ``clusters.csv`` table
    (:mod:`korean_eval.engine.statistics`: columns ``granularity, statistic, level, metric, …, cluster``); with the
    run's ``significance.csv`` (``significance``), each granularity's method as its tests ran and no marked
    configuration where they cannot reach ``alpha`` (:func:`tested_top_clusters`), else ``method`` for both."""
    rows = clusters[clusters["statistic"] == statistic]
    if significance is None or significance.empty:
        return TopClusters({g: top_configs(rows[rows["granularity"] == g]) for g in GRANULARITIES}, method)
    tests = significance[(significance["statistic"] == statistic) & (significance["test"] == TOP_CLUSTER_TEST)]
    found = {g: (tests[tests["granularity"] == g], rows[rows["granularity"] == g]) for g in GRANULARITIES}
    return tested_top_clusters(found, statistic, n_permutations, seed, alpha)


def find_top_clusters(results: Results, statistic: str, grouping: str = "none", n_permutations: int = RESAMPLES,
                      seed: int = SEED, alpha: float = ALPHA) -> TopClusters:
    """The top cluster of both granularities, computed with
    :func:`korean_eval.metaeval.tables.significance.top_cluster_table` (only the tests cluster 1 needs)."""
    from korean_eval.metaeval.tables.significance import top_cluster_table  # scipy, numba: only when computed

    found = {g: top_cluster_table(results, statistic, g, grouping, test=TOP_CLUSTER_TEST, alpha=alpha,
                                  n_permutations=n_permutations, seed=seed)
             for g in GRANULARITIES}
    return tested_top_clusters(found, statistic, n_permutations, seed, alpha)


def metric_label(metric: str) -> str:
    """The metric's display label (``chrF++``); a bring-your-own metric's own name."""
    return metric_info(metric).label if metric in metric_names() else metric


def run_levels(results: Results) -> list[str]:
    """The levels in the run's order (as the tidy tables list them)."""
    return list(dict.fromkeys(results.system_scores["level"]))


def run_metrics(results: Results) -> list[str]:
    """The metrics in the run's order."""
    return list(dict.fromkeys(results.system_scores["metric"]))


def run_error_rates(results: Results) -> str:
    """The labels of the run's error-rate metrics (declared lower-is-better), comma-separated: ``"TER, EED"``."""
    return ", ".join(error_rate_labels(run_metrics(results)))


def correlation_grid(results: Results, granularity: str, statistic: str, grouping: str = "none",
                     top: frozenset[Config] = frozenset()) -> pd.DataFrame:
    """The rows of ``results.correlations`` of one granularity, statistic and grouping (the grouping the
    granularity uses: :func:`korean_eval.model.vocabulary.grouping_used`), in the run's level × metric order, with
    ``top`` True for the configurations of the top cluster and the agreement drawn for each
    (:func:`korean_eval.metaeval.tables.agreement.agreement_columns`: ``negated``, ``shown``, ``shown_low``,
    ``shown_high``). Columns :data:`GRID_COLUMNS`; ``ci_low``/``ci_high`` NaN when no bootstrap was run."""
    corr = results.correlations
    rows = corr[(corr["granularity"] == granularity) & (corr["statistic"] == statistic)
                & (corr["grouping"] == grouping_used(granularity, grouping))].copy()
    rows = agreement_columns(rows, results.higher_is_better)
    order = {(lv, m): i for i, (lv, m) in enumerate((lv, m) for lv in run_levels(results) for m in run_metrics(results))}
    rows["order"] = [order.get((lv, m), len(order)) for lv, m in zip(rows["level"], rows["metric"], strict=True)]
    rows["top"] = [(lv, m) in top for lv, m in zip(rows["level"], rows["metric"], strict=True)]
    return rows.sort_values("order", kind="stable")[GRID_COLUMNS].reset_index(drop=True)


def system_score_table(results: Results) -> pd.DataFrame:
    """The study's Table 4 in long form: per metric, each system's score and rank (1 = best) at each level, and
    in the column :data:`HUMAN_COLUMN` its mean human score and human rank (``rankings.csv``,
    ``human_systems.csv``; only with human scores). Columns :data:`SCORE_COLUMNS` (``column``: a level or
    ``Human``); systems by human rank, then name (without human scores: by the metrics' mean rank, then name)."""
    hs = results.human_systems
    with_human = bool(hs["human_rank"].notna().any())
    if with_human:
        order = hs.sort_values(["human_rank", "system"], na_position="last")["system"].tolist()
    else:  # by the mean of the metrics' ranks over every configuration, then by name
        mean_rank = results.rankings.groupby("system")["metric_rank"].mean()
        order = sorted(hs["system"], key=lambda s: (not np.isfinite(mean_rank.get(s, np.nan)),
                                                     float(mean_rank.get(s, 0.0)), s))
    position = {s: i for i, s in enumerate(order)}
    rows = []
    for metric in run_metrics(results):
        if with_human:
            rows += [{"metric": metric, "system": r.system, "column": HUMAN_COLUMN, "score": r.human_mean,
                      "rank": r.human_rank} for r in hs.itertuples()]
        rk = results.rankings[results.rankings["metric"] == metric]
        rows += [{"metric": metric, "system": r.system, "column": r.level, "score": r.metric_score,
                  "rank": r.metric_rank} for r in rk.itertuples()]
    table = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    table["_order"] = table["system"].map(position)
    return table.sort_values(["_order"], kind="stable").drop(columns="_order").reset_index(drop=True)


def vocabulary_sizes(results: Results) -> dict[str, int]:
    """Per level with kept tokens (``Results.tokens``): the number of distinct tokens over every text of the run
    (references and hypotheses)."""
    return {level: len({tok for joined in tokens.values() for tok in joined.split()})
            for level, tokens in results.tokens.items() if tokens}


def token_table(results: Results) -> pd.DataFrame:
    """The study's Table 2: per level, its family and tokenizer version, tokens per segment (``tokens / texts``:
    every reference and hypothesis, repeats counted), vocabulary (:func:`vocabulary_sizes`; NaN when the tokens
    were not kept) and tokens per whitespace word (``token_stats.csv``'s ``tokens_per_word``)."""
    ts = results.token_stats
    vocab = vocabulary_sizes(results)
    return pd.DataFrame({
        "level": ts["level"],
        "family": ts["family"],
        "version": ts["version"],
        "tokens_per_segment": ts["tokens"] / ts["texts"].where(ts["texts"] > 0),
        "vocabulary": [vocab.get(lv, np.nan) for lv in ts["level"]],
        "tokens_per_word": ts["tokens_per_word"],
    })


def signature_groups(signatures: Mapping[str, str]) -> tuple[list[tuple[str, str, list[str]]], dict[str, str]]:
    """Signatures (``"level/metric"`` → ``"…|level:<version>"``) without repetition: ``(metric_parts, levels)``
    where ``metric_parts`` lists ``(metric, signature without its level part, levels sharing it)`` and ``levels``
    maps each level to its ``level:`` part (tokenizer and version)."""
    groups: dict[tuple[str, str], list[str]] = {}
    levels: dict[str, str] = {}
    for name, signature in signatures.items():
        level, _, metric = name.partition("/")
        head, sep, level_part = str(signature).rpartition("|level:")
        if not sep:
            head, level_part = str(signature), ""
        groups.setdefault((metric, head), []).append(level)
        if level_part:
            levels.setdefault(level, level_part)
    return [(m, head, lvs) for (m, head), lvs in groups.items()], levels


def format_rank(rank: float) -> str:
    """A rank as written in a table: ``3``, a tied rank ``2.5``, ``–`` when undefined."""
    if rank is None or not np.isfinite(rank):
        return "–"
    return str(int(rank)) if float(rank).is_integer() else f"{rank:g}"


#: Column headers of the report's tables, for people; a column not listed shows its name with spaces for ``_``
#: (:func:`column_label`). The cells keep the column's own name in ``data-column``.
COLUMN_LABELS: dict[str, str] = {
    "level": "token level",
    "ci_low": "95 % CI low",
    "ci_high": "95 % CI high",
    "n": "n (points)",
    "n_groups": "groups",
    "n_undefined": "undefined groups",
    "epsilon": "ε (acc_eq tie threshold)",
    "higher_is_better": "direction",
    "top": "top cluster",
    "shown": "agreement (as drawn)",
    "system_a": "system A",
    "system_b": "system B",
    "metric_a": "metric score A",
    "metric_b": "metric score B",
    "human_a": "human score A",
    "human_b": "human score B",
    "version": "tokenizer version",
    "human_mean": "mean human score",
    "human_rank": "human rank",
    "metric_score": "metric score",
    "metric_rank": "metric rank",
}
#: Boolean columns written as words: column → (text when true, text when false).
BOOLEAN_TEXTS: dict[str, tuple[str, str]] = {
    "higher_is_better": ("higher is better", "lower is better (error rate)"),
    "top": ("yes", "–"),
}
#: A statistic's name in a header (the value column of one statistic's table).
STATISTIC_NAMES: dict[str, str] = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ-b",
                                   "pdp": "PDP (pairwise difference Pearson)"}


def column_label(column: str) -> str:
    """The header of ``column`` in a report table: :data:`COLUMN_LABELS`, else its name with spaces for ``_``."""
    return COLUMN_LABELS.get(column, str(column).replace("_", " "))
