"""Spearman ρ and Kendall τ-b of many pairs of rows at once, each value equal to scipy's call on that pair of rows
(docs/design.md §5): what :func:`korean_eval.metaeval.stats.correlation.grouped_correlations` computes per item or per
system when the groups hold more values than its rank-pattern memo takes.

scipy 1.17's ``spearmanr`` and ``kendalltau`` handle one pair of 1-d inputs per call, and most of such a call is
argument handling (its ``nan_policy`` wrapper, ``np.apply_along_axis``, the p-value, unused here). Both statistics
are functions of the two rows' orderings only, computed here the way scipy computes them:

* :func:`spearman_rows`: ``scipy.stats.spearmanr(x, y)`` ranks both inputs (``scipy.stats.rankdata``, average
  ranks) and returns ``np.corrcoef`` of the two rank columns. Here the ranks of every row come from one
  ``rankdata(axis=1)`` call (average ranks are exact in float64, so each row's equal the 1-d call's) and each row
  pair goes through the same ``np.corrcoef`` call on the same memory layout as scipy's (its ``apply_along_axis``
  output: the transpose of a row-major ``(2, n)`` buffer), so the floating-point operations are scipy's own.
* :func:`kendall_rows`: ``scipy.stats.kendalltau(x, y, variant="b")`` counts, with integers, the discordant pairs
  and the pairs tied in x, in y and in both, and returns ``τ_b = (con − dis) / √(tot − x_ties) / √(tot − y_ties)``
  limited to [−1, 1], ``tot = n(n − 1)/2`` (Kendall 1945; ``con − dis = tot − x_ties − y_ties + joint_ties −
  2·dis``). Here the same integers come from the signs of every pair's differences (``con − dis = Σ sign(Δx)·
  sign(Δy)``, ties where a sign is 0) for all rows at once, and τ_b from the same float64 operations on them, so the
  value is scipy's bit for bit.

tests/unit/engine/test_speed_features.py checks both against scipy per row (``==``, ties, constant rows, NaN-free input
as the callers give it).
"""

from __future__ import annotations

import numpy as np

#: Rows longer than this go to scipy one by one in :func:`kendall_rows` (the pair counts here grow as n²).
MAX_PAIRWISE_N = 256
#: Pair signs held at once by :func:`kendall_rows` (rows are taken in chunks below this).
_CHUNK_PAIRS = 1 << 21


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``[scipy.stats.spearmanr(x[i], y[i]).statistic for i]`` for two ``(rows, n)`` float64 arrays without NaN, each
    row non-constant and ``n ≥ 2`` (the caller's checks: scipy's constant-input and NaN branches are not taken)."""
    from scipy import stats as sps  # imported when first used: it takes half a second
    ranks_x, ranks_y = sps.rankdata(x, axis=1), sps.rankdata(y, axis=1)
    out = np.empty(len(x))
    buffer = np.empty((2, x.shape[1]))  # scipy's apply_along_axis buffer, read through its transpose
    for row, (rank_x, rank_y) in enumerate(zip(ranks_x, ranks_y, strict=True)):
        buffer[0], buffer[1] = rank_x, rank_y
        out[row] = np.corrcoef(buffer.T, rowvar=False)[1, 0]
    return out


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``[scipy.stats.kendalltau(x[i], y[i], variant="b").statistic for i]`` for two ``(rows, n)`` float64 arrays
    without NaN (NaN for a row where every pair ties on one side, as scipy); rows longer than
    :data:`MAX_PAIRWISE_N` are passed to scipy one by one."""
    from scipy import stats as sps  # imported when first used: it takes half a second
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n_rows, n = x.shape
    if n > MAX_PAIRWISE_N:
        return np.array([sps.kendalltau(a, b, variant="b").statistic for a, b in zip(x, y, strict=True)])
    first, second = np.triu_indices(n, 1)
    out = np.empty(n_rows)
    step = max(1, _CHUNK_PAIRS // max(len(first), 1))
    for start in range(0, n_rows, step):
        block = slice(start, start + step)
        sign_x = _pair_signs(x[block], first, second)
        sign_y = _pair_signs(y[block], first, second)
        out[block] = _tau_b(
            (sign_x * sign_y).sum(axis=1, dtype=np.int64),
            (sign_x == 0).sum(axis=1, dtype=np.int64),
            (sign_y == 0).sum(axis=1, dtype=np.int64),
            len(first),
        )
    return out


def _pair_signs(v: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``sign(v[:, j] − v[:, i])`` for every pair ``i < j`` (``first``, ``second``) as int8: +1, −1, 0 for a tie."""
    a, b = v[:, first], v[:, second]
    return (b > a).astype(np.int8) - (b < a).astype(np.int8)


def _tau_b(con_minus_dis: np.ndarray, x_ties: np.ndarray, y_ties: np.ndarray, tot: int) -> np.ndarray:
    """scipy's τ_b from its integer counts (``scipy/stats/_stats_py.py``, ``kendalltau``): NaN when a side ties
    every pair, else ``con_minus_dis / sqrt(tot − x_ties) / sqrt(tot − y_ties)`` clipped to [−1, 1]."""
    undefined = (x_ties == tot) | (y_ties == tot)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = con_minus_dis.astype(np.float64) / np.sqrt(tot - x_ties) / np.sqrt(tot - y_ties)
    return np.where(undefined, np.nan, np.minimum(1.0, np.maximum(-1.0, tau)))
