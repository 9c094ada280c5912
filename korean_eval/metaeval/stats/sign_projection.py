"""Projections of score vectors onto ±1 sign patterns in single precision, with a certified bound on their error.

SPA's permutation p-values (:mod:`korean_eval.metaeval.stats.soft_pairwise`) need ``σ·x`` for every sign pattern
``σ`` and score vector ``x`` — 10⁹–10¹¹ multiply-adds when they are recomputed in every bootstrap resample or every
permutation of a significance test — and only ever ask whether a difference of such projections reaches a
threshold. Single-precision matrix products do the work at twice the speed of double precision; each projection
comes with a bound on its error, and a comparison that the bound cannot decide is redone in double precision, so
every decision is the one double precision makes.

The bound (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed. 2002, §3.1 and eq. 3.5): rounding
``x`` to single precision moves ``σ·x`` by at most ``u·Σ|x_i|``, and a dot product of ``n`` terms summed in any
order (as any BLAS blocks it, with or without fused multiply-adds) is within ``γ_n·Σ|x_i|`` of the exact one,
``γ_n = n·u / (1 − n·u)``, ``u = 2⁻²⁴``. :func:`projection_bounds` doubles their sum, which also covers the
rounding of the double-precision values the bound is computed from.
"""

from __future__ import annotations

import numpy as np

#: Unit roundoff of IEEE single precision.
UNIT_ROUNDOFF = 2.0**-24


def single_precision(signs: np.ndarray) -> np.ndarray:
    """Sign patterns (±1, exact in any precision) as a contiguous single-precision matrix."""
    return np.ascontiguousarray(signs, dtype=np.float32)


def projection_bounds(values: np.ndarray) -> np.ndarray:
    """Bound on ``|fl32(σ·x) − σ·x|`` for every column ``x`` of ``values`` (``(n, columns)``) and any ±1 pattern
    ``σ``: ``2·(γ_n + u)·Σ_i |x_i|`` (module docstring); ``(columns,)``."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    gamma = n * UNIT_ROUNDOFF / (1.0 - n * UNIT_ROUNDOFF)
    return 2.0 * (gamma + UNIT_ROUNDOFF) * np.abs(values).sum(axis=0)


def project(signs32: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``(σ @ values)ᵀ`` in single precision: ``(columns, patterns)`` float32, C-contiguous (a column's projections
    side by side); ``signs32`` from :func:`single_precision`, ``values`` ``(n, columns)``; each entry within
    :func:`projection_bounds` of the exact product."""
    return np.asarray(values.T, dtype=np.float32) @ signs32.T

