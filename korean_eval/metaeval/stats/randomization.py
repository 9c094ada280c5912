"""Paired approximate randomization between two systems' corpus scores (sacrebleu's ``--paired-ar``), vectorised.

Definition (Riezler & Maxwell 2005; sacrebleu ``significance._paired_ar_test``, after multeval's
``StratifiedApproximateRandomizationTest``): in trial ``t`` every segment's outputs of systems a and b are swapped
with probability ½ (mask ``M[t, i]``), giving two pseudo-systems; the statistic is ``|score(a') − score(b')|``, each
score computed from the pseudo-system's *summed* sufficient statistics, and the two-sided p-value is
``(#{t : |score(a'_t) − score(b'_t)| > |score(a) − score(b)|} + 1) / (n_trials + 1)``.

With ``D = stats_a − stats_b`` (segments × k) the pseudo-systems' sums are ``Σ stats_b + M @ D`` and
``Σ stats_a − M @ D``: one matrix product per pair, or per system when every pair shares one mask, as here
(:func:`swap_masks`: drawn exactly as sacrebleu draws them, so with the same seed the trials are identical).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from korean_eval.model.defaults import AR_TRIALS, SEED

#: Trials scored at a time: bounds the memory of the pseudo-systems' sums whatever the number of trials.
TRIAL_BLOCK = 2_000

ScoresFromSums = Callable[[np.ndarray], np.ndarray]


def swap_masks(n_items: int, n_trials: int = AR_TRIALS, seed: int = SEED) -> np.ndarray:
    """The swap masks of a run: ``(n_trials, n_items)`` bool, ``True`` where trial ``t`` swaps segment ``i``.

    Drawn as sacrebleu draws them: ``np.random.default_rng(seed).integers(2, size=(n_trials, n_items),
    dtype=bool)`` (sacrebleu's default seed 12345).
    """
    if n_items < 1 or n_trials < 1:
        raise ValueError(f"need n_items >= 1 and n_trials >= 1, got {n_items}, {n_trials}")
    return np.random.default_rng(seed).integers(2, size=(n_trials, n_items), dtype=bool)


def ar_p_value(diff: float, trial_diffs: np.ndarray) -> float:
    """sacrebleu's p-value of the approximate randomization test: ``(#{t : |d_t| > |diff|} + 1) / (n + 1)`` over the
    finite trial differences ``d_t`` (strict ``>``: a system compared with itself is never significant). NaN when
    ``diff`` or every trial is undefined."""
    d = np.abs(np.asarray(trial_diffs, dtype=np.float64))
    d = d[np.isfinite(d)]
    if not np.isfinite(diff) or d.size == 0:
        return float("nan")
    return float((np.sum(d > abs(diff)) + 1) / (d.size + 1))


def paired_ar(stats_a: np.ndarray, stats_b: np.ndarray, scores_from_sums: ScoresFromSums | None,
              masks: np.ndarray) -> tuple[float, float]:
    """Approximate randomization of two systems scored from summed statistics: ``(diff, p)``.

    Args:
        stats_a, stats_b: ``(n_items, k)`` per-segment sufficient statistics of the two systems, rows aligned;
            only the segments where both rows are finite take part (both systems' scores and the swaps are over
            those).
        scores_from_sums: the metric's vectorised corpus score of summed statistics (``(..., k) -> (...)``); None
            for a metric whose system score is the mean of its segment scores (``k`` = 1, the scores).
        masks: :func:`swap_masks` of ``n_items`` columns.

    Returns:
        ``diff`` = score(a) − score(b) over the shared segments and the two-sided p-value (:func:`ar_p_value`).
    """
    return all_pairs_ar(np.stack([stats_a, stats_b]), scores_from_sums, masks)[(0, 1)]


def all_pairs_ar(stats: np.ndarray, scores_from_sums: ScoresFromSums | None, masks: np.ndarray,
                 approximate: ScoresFromSums | None = None,
                 error: float = 0.0) -> dict[tuple[int, int], tuple[float, float]]:
    """:func:`paired_ar` of every pair of systems ``(i, j)``, ``i < j``, on the same masks: ``{(i, j): (diff, p)}``.

    ``stats``: ``(n_systems, n_items, k)``. When every system has every segment the masked sums are formed once
    per system (``M @ stats_s``) and each pair's swapped sums from them; otherwise pair by pair over the segments
    both have. The trials are scored :data:`TRIAL_BLOCK` at a time. ``approximate``: a faster scorer whose scores
    are within a relative ``error`` of ``scores_from_sums``' (e.g. BLEU with numpy's logarithms): a trial is scored
    with it, and again exactly when ``||d_t| − |diff||`` is within the approximation's bound
    ``2 · error · (|score(a'_t)| + |score(b'_t)|)``, so every comparison — and the p-value — is the exact one.
    """
    stats = np.asarray(stats, dtype=np.float64)
    masks = np.asarray(masks, dtype=bool)
    n_sys, n_items, k = stats.shape
    present = np.all(np.isfinite(stats), axis=2)
    pairs = [(i, j) for i in range(n_sys) for j in range(i + 1, n_sys)]
    if not present.all():
        return {(i, j): _one_pair(stats[i], stats[j], scores_from_sums, masks, approximate, error) for i, j in pairs}
    sfs = _scorer(scores_from_sums, n_items)
    sums = stats.sum(axis=1)  # (n_systems, k)
    full = np.asarray(sfs(sums), dtype=np.float64)
    flat = np.ascontiguousarray(stats.transpose(1, 0, 2)).reshape(n_items, n_sys * k)
    trial_diffs: dict[tuple[int, int], list[np.ndarray]] = {pair: [] for pair in pairs}
    for t in range(0, masks.shape[0], TRIAL_BLOCK):
        masked = (masks[t:t + TRIAL_BLOCK].astype(np.float64) @ flat).reshape(-1, n_sys, k)  # Σ swapped rows
        for i, j in pairs:
            moved = masked[:, i] - masked[:, j]  # Σ over swapped segments of (a − b)
            diff = float(full[i] - full[j])
            trial_diffs[(i, j)].append(_trials(sums[i] - moved, sums[j] + moved, diff, sfs, approximate, error))
    out = {}
    for i, j in pairs:
        diff = float(full[i] - full[j])
        out[(i, j)] = (diff, ar_p_value(diff, np.concatenate(trial_diffs[(i, j)])))
    return out


def _trials(sums_a: np.ndarray, sums_b: np.ndarray, diff: float, exact: ScoresFromSums,
            approximate: ScoresFromSums | None, error: float) -> np.ndarray:
    """``score(a'_t) − score(b'_t)`` of a block of trials, each exact or decided as the exact one would be
    (:func:`all_pairs_ar`)."""
    if approximate is None:
        return np.asarray(exact(sums_a), dtype=np.float64) - np.asarray(exact(sums_b), dtype=np.float64)
    score_a = np.asarray(approximate(sums_a), dtype=np.float64)
    score_b = np.asarray(approximate(sums_b), dtype=np.float64)
    d = score_a - score_b
    bound = 2.0 * error * (np.abs(score_a) + np.abs(score_b))
    close = ~(np.abs(np.abs(d) - abs(diff)) > bound)  # NaN included: scored again exactly
    if close.any():
        d[close] = (np.asarray(exact(sums_a[close]), dtype=np.float64)
                    - np.asarray(exact(sums_b[close]), dtype=np.float64))
    return d


def _one_pair(a: np.ndarray, b: np.ndarray, scores_from_sums: ScoresFromSums | None, masks: np.ndarray,
              approximate: ScoresFromSums | None, error: float) -> tuple[float, float]:
    """:func:`paired_ar` of one pair over the segments where both rows are finite."""
    shared = np.all(np.isfinite(a), axis=1) & np.all(np.isfinite(b), axis=1)
    if not shared.any():
        return float("nan"), float("nan")
    return all_pairs_ar(np.stack([a[shared], b[shared]]), scores_from_sums, masks[:, shared], approximate,
                        error)[(0, 1)]


def _scorer(scores_from_sums: ScoresFromSums | None, n_items: int) -> ScoresFromSums:
    """``scores_from_sums``, or the mean of ``n_items`` segment scores (one statistic: the score) when None."""
    if scores_from_sums is not None:
        return scores_from_sums
    return lambda sums: np.asarray(sums, dtype=np.float64)[..., 0] / n_items
