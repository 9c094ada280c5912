"""Check korean-eval's WMT statistics against Google's mt-metrics-eval on the output of ``python -m korean_eval run``.

For every level × metric in ``OUT/correlations.csv``: ``acc_eq`` (grouping ``item``, WMT's) against
``KendallWithTiesOpt(gold, metric, variant='acc23', num_sys=…, average_by='item', sample_rate=1.0)``, and ``spa``
against ``PairwiseConfidenceError(gold, metric, num_sys=…, num_permutations=N)`` (Monte-Carlo: the difference is
noise), and ``pdp`` (groupings ``none`` and ``item``, where the table has them) against
``Correlation(num_sys, gold, metric).Pearson(average_by=…, pdp=True)``. Error-rate metrics are negated for mt-metrics-eval, which assumes higher is better. mt-metrics-eval is not a
dependency of korean-eval: put its source on ``PYTHONPATH`` (github.com/google-research/mt-metrics-eval).

    PYTHONPATH=path/to/mt-metrics-eval python scripts/check_against_mtme.py OUT/ --human human.tsv [--permutations 1000]

With ``--significance`` it also checks the significance tests and rank clusters by acc_eq and SPA of
``OUT/significance.csv`` / ``OUT/clusters.csv`` (every pair of configurations; run ``korean-eval run`` on a few
configurations, each mt-metrics-eval test of 1,000 permutations takes about half a minute):

* acc_eq: ``PairwisePermutationSigDiff(corr_b, corr_a, 'acc23', 'item', k, sample_rate=1.0)`` (WMT23–25's test);
* SPA: ``PermutationSigDiff(corr_b, corr_a, PairwiseConfidenceError, 'none', k)`` (WMT24–25's);

both with early stopping off (``block_size = k``), against ours with the same ``k``. Both p-values are Monte-Carlo
estimates: the script measures the noise of ours by rerunning our test with ``--noise-seeds`` other seeds and states
each difference in units of the binomial standard deviation of a difference of two independent estimates,
``sqrt(2·p(1 − p)/k)``. For SPA it also reruns ours with mt-metrics-eval's own inner sign patterns (PCE's
``default_rng(4)``), which leaves only the outer permutations' noise. Clusters: mt-metrics-eval's ``AssignRanks`` on
its p-values (``data.py``, imported with stand-ins for Apache Beam and dacite when they are not installed: neither is
used by ``AssignRanks``) against ours,
and the pairs whose p-value lies within 3 standard deviations of α, where the two may differ by chance.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from itertools import combinations
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd
from mt_metrics_eval import stats  # type: ignore[import-not-found]

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from korean_eval.metaeval.stats.accuracy_permutation import (  # noqa: E402
    pair_agreements,
    pair_swap_test,
    pair_swap_values,
    spa_swap_test,
    standardise_scores,
)
from korean_eval.metaeval.stats.comparisons import rank_clusters  # noqa: E402
from korean_eval.metaeval.stats.soft_pairwise import (  # noqa: E402
    human_pairwise,
    pairwise_permutation_p_values,
)

ALPHA = 0.05


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


def signed_matrices(corr: pd.DataFrame, seg: pd.DataFrame, systems: list[str], seg_ids: list[str]) -> dict:
    """``"level/metric"`` → its segment matrix, negated for an error rate (mt-metrics-eval assumes higher is better)."""
    out = {}
    for (level, metric), rows in corr.groupby(["level", "metric"], sort=False):
        sign = 1.0 if bool(rows["higher_is_better"].iloc[0]) else -1.0
        m = seg[(seg["level"] == level) & (seg["metric"] == metric)]
        mat = m.pivot_table(index="system", columns="seg_id", values="score").reindex(index=systems, columns=seg_ids)
        out[f"{level}/{metric}"] = sign * mat.to_numpy(float)
    return out


def _mtme_p(job: tuple) -> float:
    """mt-metrics-eval's p-value that ``a`` agrees more than ``b`` (module docstring), early stopping off."""
    statistic, a, b, human, k, seed = job
    np.random.seed(seed)
    n_sys = human.shape[0]
    gold = [None if np.isnan(v) else float(v) for v in human.ravel()]
    corr_a, corr_b = (stats.Correlation(n_sys, gold, [float(v) for v in m.ravel()]) for m in (a, b))
    params = stats.PermutationSigDiffParams(block_size=k)
    if statistic == "acc_eq":
        return stats.PairwisePermutationSigDiff(corr_b, corr_a, "acc23", "item", k, params, sample_rate=1.0)[0]

    def pce(g, m):
        return stats.PairwiseConfidenceError(g, m, n_sys, 1000, False)

    return stats.PermutationSigDiff(corr_b, corr_a, pce, "none", k, params)[0]


def pce_signs(n_permutations: int, n_items: int) -> np.ndarray:
    """The sign patterns mt-metrics-eval's ``pce.compute_pairwise_p_values`` draws (its default seed 4), as ±1."""
    draws = np.rint(np.random.default_rng(4).random(size=(n_permutations, n_items), dtype=np.float32))
    return draws.astype(np.float64) * 2.0 - 1.0


def our_p(statistic: str, a: np.ndarray, b: np.ndarray, human: np.ndarray, k: int, seed: int,
          spa: tuple | None = None) -> float:
    """Our p-value that ``a`` agrees more than ``b`` with ``seed`` (``spa``: ``(signs, p_human)`` of SPA)."""
    if statistic == "acc_eq":
        from korean_eval.metaeval.stats.tie_calibrated import acc_eq

        agree = [pair_agreements(m, human, acc_eq(m, human, "item").epsilon) for m in (a, b)]
        return pair_swap_test(pair_swap_values(*agree)[0], k, seed).p_value()
    signs, p_human = spa
    return spa_swap_test(standardise_scores(a), standardise_scores(b), signs, p_human, k, seed).p_value()


def significance_check(out: Path, human: np.ndarray, mats: dict, k: int, noise_seeds: int, jobs: int) -> None:
    """Compare our acc_eq / SPA p-values and clusters with mt-metrics-eval's (module docstring)."""
    from mt_metrics_eval import data  # type: ignore[import-not-found]  # noqa: F401 (after the Beam stand-in)

    ours = pd.read_csv(out / "significance.csv")
    clusters = pd.read_csv(out / "clusters.csv")
    first, second = np.triu_indices(human.shape[0], 1)
    for statistic in ("acc_eq", "spa"):
        table = ours[ours["statistic"] == statistic].set_index(["config_a", "config_b"])["p_value"]
        if table.empty:
            print(f"{statistic}: no rows in significance.csv")
            continue
        ranked = clusters[clusters["statistic"] == statistic]
        order = list(ranked["level"] + "/" + ranked["metric"])  # ours, best first
        pairs = list(combinations(order, 2))
        with Pool(jobs) as pool:
            theirs = pool.map(_mtme_p, [(statistic, mats[x], mats[y], human, k, 1000 + i)
                                        for i, (x, y) in enumerate(pairs)])
        spa_ours = spa_theirs_patterns = None
        if statistic == "spa":
            settings = json.loads((out / "run.json").read_text(encoding="utf-8"))["settings"]
            humans = human_pairwise(human, int(settings["spa_permutations"]), int(settings["seed"]))
            spa_ours = (humans.signs, humans.p_human[first, second])
            signs = pce_signs(1000, human.shape[1])
            spa_theirs_patterns = (signs, pairwise_permutation_p_values(human[..., None], lambda x: x[..., 0],
                                                                        signs)[first, second])
        print(f"\n{statistic}: {len(pairs)} pairs, k = {k} permutations each side")
        z_scores, rows = [], []
        for (x, y), p_theirs in zip(pairs, theirs, strict=True):
            p_ours = float(table[(x, y)])
            sd = np.sqrt(2.0 * max(((p_ours + p_theirs) / 2) * (1 - (p_ours + p_theirs) / 2), 1.0 / k) / k)
            line = {"pair": f"{x} > {y}", "ours": p_ours, "mtme": p_theirs, "diff": p_ours - p_theirs,
                    "z": (p_ours - p_theirs) / sd}
            if noise_seeds:
                again = [our_p(statistic, mats[x], mats[y], human, k, 7 + s, spa_ours) for s in range(noise_seeds)]
                line["ours_sd_over_seeds"] = float(np.std(again, ddof=1))
            if spa_theirs_patterns is not None:
                line["ours_with_pce_patterns"] = our_p(statistic, mats[x], mats[y], human, k, 12345,
                                                       spa_theirs_patterns)
            rows.append(line)
            z_scores.append(line["z"])
        frame = pd.DataFrame(rows)
        print(frame.round(4).to_string(index=False))
        z = np.abs(np.asarray(z_scores))
        print(f"{statistic}: largest |Δp| {frame['diff'].abs().max():.4f}; |Δp| in binomial SDs of a difference: "
              f"mean {z.mean():.2f}, largest {z.max():.2f}, beyond 3 SD: {int((z > 3).sum())} of {z.size}")
        if "ours_with_pce_patterns" in frame:
            same = frame["ours_with_pce_patterns"].to_numpy(float)
            mean_p = (same + frame["mtme"].to_numpy(float)) / 2
            z_same = np.abs(same - frame["mtme"].to_numpy(float)) / np.sqrt(2 * np.maximum(mean_p * (1 - mean_p),
                                                                                            1.0 / k) / k)
            print(f"{statistic} with mt-metrics-eval's inner sign patterns: largest |Δp| "
                  f"{np.max(np.abs(same - frame['mtme'])):.4f}; in binomial SDs: mean {z_same.mean():.2f}, largest "
                  f"{z_same.max():.2f}, beyond 3 SD: {int((z_same > 3).sum())} of {z_same.size}")
        if noise_seeds:
            print(f"{statistic}: our p-value's Monte-Carlo SD over {noise_seeds} seeds: mean "
                  f"{frame['ours_sd_over_seeds'].mean():.4f}, largest {frame['ours_sd_over_seeds'].max():.4f} "
                  f"(binomial sqrt(p(1-p)/k) at p = 0.5: {np.sqrt(0.25 / k):.4f})")
        # clusters: mt-metrics-eval's AssignRanks over our order with its p-values; ours from clusters.csv
        mtme_p = dict(zip(pairs, theirs, strict=True))
        sig = np.zeros((len(order), len(order)))
        for (i, x), (j, y) in combinations(enumerate(order), 2):
            sig[i, j] = mtme_p[(x, y)]
        theirs_ranks = data.AssignRanks(sig, ALPHA)
        if "ours_with_pce_patterns" in frame:
            same_p = dict(zip(pairs, frame["ours_with_pce_patterns"], strict=True))
            same_sig = np.zeros_like(sig)
            for (i, x), (j, y) in combinations(enumerate(order), 2):
                same_sig[i, j] = same_p[(x, y)]
            print(f"{statistic} clusters, ours with mt-metrics-eval's inner patterns (AssignRanks, our order): "
                  f"{data.AssignRanks(same_sig, ALPHA)}")
        ours_ranks = list(ranked["cluster"])
        values = dict(zip(order, ranked["value"], strict=True))
        ours_p = {(x, y): float(table[(x, y)]) for x in order for y in order if x != y}
        ours_again = rank_clusters(values, ours_p, ALPHA)
        near = [f"{x} > {y}" for (x, y), p in mtme_p.items()
                if abs(p - ALPHA) <= 3 * np.sqrt(ALPHA * (1 - ALPHA) / k) * np.sqrt(2)]
        print(f"{statistic} clusters, ours:          {ours_ranks}")
        print(f"{statistic} clusters, mt-metrics-eval: {theirs_ranks} (its AssignRanks on its p-values, our order)")
        print(f"{statistic}: clusters equal: {ours_ranks == list(theirs_ranks)}; ours recomputed from the table: "
              f"{[ours_again[n] for n in order] == ours_ranks}; pairs with an mt-metrics-eval p within 3 SD of "
              f"α = {ALPHA}: {', '.join(near) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--human", type=Path, required=True, help="the human scores given to `run` (system, seg_id, score)")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--significance", action="store_true",
                        help="also check the acc_eq / SPA significance tests and clusters (slow: module docstring)")
    parser.add_argument("--noise-seeds", type=int, default=0, help="rerun our tests with this many other seeds")
    parser.add_argument("--jobs", type=int, default=2, help="processes for mt-metrics-eval's tests")
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
    if args.significance:
        for name in ("apache_beam", "dacite"):  # data.py (and its ratings.py) import them; AssignRanks uses neither
            try:
                __import__(name)
            except ImportError:
                sys.modules[name] = types.ModuleType(name)
        significance_check(args.out, human, signed_matrices(corr, seg, systems, seg_ids), args.permutations,
                           args.noise_seeds, args.jobs)


if __name__ == "__main__":
    main()
