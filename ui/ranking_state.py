"""The ranking check of a result on the dashboard: sacrebleu's paired tests between every two systems, the
systems' clusters and the order splits (:mod:`korean_eval.metaeval.tables.system_ranking`), computed once per
result and kept for every session holding the same result (and listed on the Downloads page)."""

from __future__ import annotations

import pandas as pd

from korean_eval.model.config import RankingSettings
from ui import statistics_state
from ui.state import Context

#: The dashboard's ranking check: sacrebleu's defaults (1,000 bootstrap resamples, 10,000 randomization trials,
#: seed 12345), clusters by the paired bootstrap at α = 0.05.
SETTINGS = RankingSettings(resamples=statistics_state.N_RESAMPLES, seed=statistics_state.SEED,
                           alpha=statistics_state.ALPHA)


def ranking_checks(ctx: Context) -> dict[str, pd.DataFrame]:
    """``system_ranking.csv``, ``metric_pairs.csv`` and ``order_splits.csv`` of every configuration of the result
    (:func:`korean_eval.metaeval.tables.system_ranking.ranking_tables` with :data:`SETTINGS`), cached."""
    from korean_eval.metaeval.tables.system_ranking import ranking_tables

    res = ctx.results
    k = len(res.systems)
    message = (f"Testing each of the {k * (k - 1) // 2:,} system pairs under {len(res.segment_matrices):,} "
               f"configurations: paired bootstrap ({SETTINGS.resamples:,} resamples) and approximate randomization "
               f"({SETTINGS.ar_trials:,} trials) over {len(res.seg_ids):,} segments…")
    return statistics_state.cached_table(ctx, "ranking_checks", message, lambda: ranking_tables(res, SETTINGS))
