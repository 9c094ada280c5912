"""The ranking checks in words (:mod:`korean_eval.metaeval.tables.system_ranking`'s tables), without importing the
statistics: a stored result is printed without loading numba or scipy."""

from __future__ import annotations

import pandas as pd

from korean_eval.model.vocabulary import config_name


def ranking_lines(ranking: pd.DataFrame) -> list[str]:
    """Each configuration's order of the systems in one line, clusters separated by ``>`` and members of one
    cluster by ``,`` (``"word/bleu: A > B, C > D"``): a ``>`` is a significant step, a ``,`` a tie."""
    lines = []
    for (level, metric), group in ranking.groupby(["level", "metric"], sort=False):
        clusters = [", ".join(g["system"]) for _, g in group.sort_values("position").groupby("cluster", sort=True)]
        unscored = group[group["cluster"].isna()]["system"]
        lines.append(f"{config_name(level, metric)}: " + " > ".join(clusters)
                     + (f" (no score: {', '.join(unscored)})" if len(unscored) else ""))
    return lines
