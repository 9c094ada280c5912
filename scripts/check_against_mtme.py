"""Check korean-eval's WMT statistics against Google's mt-metrics-eval on the output of ``python -m korean_eval run``.

For every level × metric in ``OUT/correlations.csv``: ``acc_eq`` (grouping ``item``, WMT's) against
``KendallWithTiesOpt(gold, metric, variant='acc23', num_sys=…, average_by='item', sample_rate=1.0)``, and ``spa``
against ``PairwiseConfidenceError(gold, metric, num_sys=…, num_permutations=N)`` (Monte-Carlo: the difference is
noise), and ``pdp`` (groupings ``none`` and ``item``, where the table has them) against
``Correlation(num_sys, gold, metric).Pearson(average_by=…, pdp=True)``. Error-rate metrics are negated for mt-metrics-eval, which assumes higher is better. mt-metrics-eval is not a
dependency of korean-eval: put its source on ``PYTHONPATH`` (github.com/google-research/mt-metrics-eval).

    PYTHONPATH=path/to/mt-metrics-eval python scripts/check_against_mtme.py OUT/ --human human.tsv [--permutations 1000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from mt_metrics_eval import stats  # type: ignore[import-not-found]


def matrices(out: Path, human_file: Path) -> tuple[list[str], list[str], np.ndarray, pd.DataFrame]:
    human = pd.read_csv(human_file, sep=None, engine="python", dtype={"seg_id": str})
    human = human.groupby(["system", "seg_id"], as_index=False)["score"].mean()
    seg = pd.read_csv(out / "segment_scores.csv", dtype={"seg_id": str})
    systems = sorted(seg["system"].unique())
    seg_ids = list(dict.fromkeys(seg["seg_id"]))
    h = human.pivot_table(index="system", columns="seg_id", values="score").reindex(index=systems, columns=seg_ids)
    return systems, seg_ids, h.to_numpy(float), seg


def pdp_difference(rows: pd.DataFrame, gold: list, scores: list[float], n_sys: int, sign: float) -> float | None:
    """Largest |ours − mt-metrics-eval's| PDP over the groupings none and item of one level × metric (ours times
    ``sign``: mt-metrics-eval saw the negated error rate); None when the table has no pdp row."""
    corr = stats.Correlation(n_sys, gold, scores)
    diffs = []
    for grouping in ("none", "item"):
        ours = rows[(rows["statistic"] == "pdp") & (rows["granularity"] == "segment") & (rows["grouping"] == grouping)]
        if not ours.empty:
            theirs = corr.Pearson(average_by=grouping, pdp=True)[0]
            diffs.append(abs(sign * float(ours["value"].iloc[0]) - theirs))
    return max(diffs) if diffs else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--human", type=Path, required=True, help="the human scores given to `run` (system, seg_id, score)")
    parser.add_argument("--permutations", type=int, default=1000)
    args = parser.parse_args()
    systems, seg_ids, human, seg = matrices(args.out, args.human)
    corr = pd.read_csv(args.out / "correlations.csv")
    gold = [None if np.isnan(v) else float(v) for v in human.ravel()]
    worst_acc, worst_pdp, spa_diffs = 0.0, float("nan"), []
    for (level, metric), rows in corr.groupby(["level", "metric"], sort=False):
        sign = 1.0 if bool(rows["higher_is_better"].iloc[0]) else -1.0
        m = seg[(seg["level"] == level) & (seg["metric"] == metric)]
        mat = m.pivot_table(index="system", columns="seg_id", values="score").reindex(index=systems, columns=seg_ids)
        scores = [float(v) for v in sign * mat.to_numpy(float).ravel()]
        theirs, eps, _ = stats.KendallWithTiesOpt(gold, scores, "acc23", len(systems), "item", 1.0)
        ours = rows[(rows["statistic"] == "acc_eq") & (rows["grouping"] == "item")]
        diff = abs(float(ours["value"].iloc[0]) - theirs)
        worst_acc = max(worst_acc, diff)
        line = f"{level:>6} {metric:>8}  acc_eq ours {float(ours['value'].iloc[0]):.12f} mtme {theirs:.12f} |Δ| {diff:.1e}"
        pdp_diff = pdp_difference(rows, gold, scores, len(systems), sign)
        if pdp_diff is not None:
            worst_pdp = pdp_diff if np.isnan(worst_pdp) else max(worst_pdp, pdp_diff)
            line += f"   pdp |Δ| {pdp_diff:.1e}"
        spa = rows[rows["statistic"] == "spa"]
        if not spa.empty:
            their_spa = stats.PairwiseConfidenceError(gold, scores, len(systems), args.permutations, True)[0]
            spa_diffs.append(float(spa["value"].iloc[0]) - their_spa)
            line += f"   spa ours {float(spa['value'].iloc[0]):.4f} mtme {their_spa:.4f}"
        print(line)
    print(f"acc_eq: largest |Δ| {worst_acc:.1e}")
    if not np.isnan(worst_pdp):
        print(f"pdp: largest |Δ| {worst_pdp:.1e}")
    if spa_diffs:
        print(f"spa: mean |Δ| {np.mean(np.abs(spa_diffs)):.4f}, largest {np.max(np.abs(spa_diffs)):.4f} (Monte-Carlo)")


if __name__ == "__main__":
    main()
