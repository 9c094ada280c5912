"""sacrebleu's BLEU, chrF and TER scores from their statistics, over many rows at once.

Each function equals, bit for bit, sacrebleu 2.x's ``_compute_score_from_stats(row).score`` applied to every row
(``BLEU.compute_bleu``, ``CHRF._compute_f_score``, ``TER._compute_score_from_stats``): the same operations on IEEE
doubles in the same order, with Python's own ``math.log`` / ``math.exp`` where sacrebleu calls them — numpy's
vectorised ``log``/``exp`` may differ from them in the last bit, so they are not used. The statistics layouts are
sacrebleu's (module docstring of :mod:`korean_eval.metrics.sacre`); a row holding a NaN scores NaN. Tests compare
every function with sacrebleu on random and real statistics (``tests/unit/metrics/test_sacre_formulas.py``).
"""

from __future__ import annotations

import math

import numpy as np

#: chrF's smoothing of an undefined precision or recall (sacrebleu's ``eps``).
CHRF_EPS = 1e-16
#: sacrebleu's ``my_log(0)``: the log of a zero precision.
LOG_OF_ZERO = -9999999999
#: Bound on the relative error of :func:`bleu_scores` with ``exact=False`` (measured errors are ~1e-15; the bound
#: leaves six orders of magnitude of room).
APPROXIMATE_RELATIVE_ERROR = 1e-9


def _rows(stats: np.ndarray, k: int) -> tuple[np.ndarray, tuple[int, ...], np.ndarray]:
    """``stats`` as ``(n, k)`` float64 rows, the leading shape to restore, and which rows are all finite."""
    stats = np.asarray(stats, dtype=np.float64)
    if stats.shape[-1] != k:
        raise ValueError(f"expected {k} statistics per row, got {stats.shape[-1]}")
    flat = stats.reshape(-1, k)
    return flat, stats.shape[:-1], np.isfinite(flat).all(axis=1)


def _finish(values: np.ndarray, finite: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(len(finite), np.nan)
    out[finite] = values
    return out.reshape(shape)


def bleu_scores(stats: np.ndarray, max_ngram_order: int = 4, effective_order: bool = False,
                exact: bool = True) -> np.ndarray:
    """BLEU of every row of ``stats`` (``[sys_len, ref_len, correct_1..N, total_1..N]``, ``N = max_ngram_order``)
    with sacrebleu's default ``exp`` smoothing (Chen & Cherry 2014, method 3): ``BLEU(effective_order=…)
    ._compute_score_from_stats(row).score``.

    Per row: brevity penalty ``exp(1 - ref_len / sys_len)`` when ``sys_len < ref_len`` (0 when ``sys_len`` is 0);
    0 when no n-gram is correct; precisions ``100 · correct_n / total_n`` up to the first order with no n-grams, a
    zero count replaced by ``100 / (2^k · total_n)`` at its k-th occurrence; score
    ``bp · exp(Σ_{n ≤ E} log p_n / E)`` with ``log 0`` taken as :data:`LOG_OF_ZERO` and ``E`` the orders reached
    (``effective_order``) or ``N``. ``exact``: the logarithms and exponentials by Python's ``math`` (libm), as
    sacrebleu computes them, bit for bit; ``False``: by numpy's vectorised ones, ~10× faster and within
    :data:`APPROXIMATE_RELATIVE_ERROR` of the exact score (numpy's ``log``/``exp`` are accurate to a few units in
    the last place), for callers that only compare scores and redo close calls exactly.
    """
    n_orders = int(max_ngram_order)
    flat, shape, finite = _rows(stats, 2 + 2 * n_orders)
    rows = flat[finite]
    sys_len, ref_len = rows[:, 0], rows[:, 1]
    correct, total = rows[:, 2:2 + n_orders], rows[:, 2 + n_orders:]

    bp = np.ones(len(rows))
    short = sys_len < ref_len
    bp[short & (sys_len <= 0)] = 0.0
    penalised = short & (sys_len > 0)
    if exact:
        bp[penalised] = [math.exp(1 - r / s) for r, s in zip(ref_len[penalised].tolist(),
                                                              sys_len[penalised].tolist(), strict=True)]
    else:
        bp[penalised] = np.exp(1 - ref_len[penalised] / sys_len[penalised])

    precisions = np.zeros((len(rows), n_orders))
    smooth = np.ones(len(rows))
    reached = np.ones(len(rows), dtype=bool)
    orders = np.full(len(rows), n_orders)
    for n in range(n_orders):
        reached &= total[:, n] != 0  # sacrebleu stops at the first order without n-grams
        if effective_order:
            orders[reached] = n + 1
        zero = reached & (correct[:, n] == 0)
        smooth[zero] *= 2
        precisions[zero, n] = 100.0 / (smooth[zero] * total[zero, n])
        hit = reached & ~zero
        precisions[hit, n] = 100.0 * correct[hit, n] / total[hit, n]

    if exact:
        logs = np.array([math.log(p) if p != 0.0 else LOG_OF_ZERO for p in precisions.ravel().tolist()],
                        dtype=np.float64).reshape(precisions.shape)
    else:
        logs = np.full(precisions.shape, float(LOG_OF_ZERO))
        np.log(precisions, out=logs, where=precisions != 0.0)
    log_sum = np.zeros(len(rows))
    for n in range(n_orders):  # Python's sum(), left to right, over the first E orders
        log_sum = np.where(n < orders, log_sum + logs[:, n], log_sum)
    means = log_sum / orders
    scores = bp * (np.array([math.exp(m) for m in means.tolist()], dtype=np.float64) if exact else np.exp(means))
    scores[~(correct != 0).any(axis=1)] = 0.0
    return _finish(scores, finite, shape)


def chrf_scores(stats: np.ndarray, n_orders: int, beta: int = 2) -> np.ndarray:
    """chrF of every row of ``stats`` (``[hyp, ref, match]`` per order, character orders then word orders;
    ``n_orders`` = char_order + word_order): ``CHRF(...)._compute_score_from_stats(row).score`` (Popović 2015/2017,
    sacrebleu's effective-order averaging).

    Per row: each order's precision ``match / hyp`` and recall ``match / ref``; over the orders where both ``hyp``
    and ``ref`` are positive, their means ``P`` and ``R``; score ``100 · (1 + β²) · P · R / (β² · P + R)``, 0 when
    ``P + R`` is 0.
    """
    flat, shape, finite = _rows(stats, 3 * int(n_orders))
    rows = flat[finite]
    factor = int(beta) ** 2
    avg_prec = np.zeros(len(rows))
    avg_rec = np.zeros(len(rows))
    effective = np.zeros(len(rows), dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(int(n_orders)):
            n_hyp, n_ref, n_match = rows[:, 3 * i], rows[:, 3 * i + 1], rows[:, 3 * i + 2]
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(both, avg_prec + n_match / n_hyp, avg_prec)
            avg_rec = np.where(both, avg_rec + n_match / n_ref, avg_rec)
            effective += both
        some = effective > 0
        avg_prec = np.where(some, avg_prec / effective, 0.0)
        avg_rec = np.where(some, avg_rec / effective, 0.0)
        score = (1 + factor) * avg_prec * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
        scores = np.where(avg_prec + avg_rec != 0, 100 * score, 0.0)
    return _finish(scores, finite, shape)


def ter_scores(stats: np.ndarray) -> np.ndarray:
    """TER of every row of ``stats`` (``[edits, ref_len]``): ``100 · edits / ref_len``; 100 for an empty reference
    with edits, 0 for both empty (``TER._compute_score_from_stats(row).score``; Snover et al. 2006)."""
    flat, shape, finite = _rows(stats, 2)
    rows = flat[finite]
    edits, ref_len = rows[:, 0], rows[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ref_len > 0, edits / ref_len, np.where(edits > 0, 1.0, 0.0))
    return _finish(100 * ratio, finite, shape)
