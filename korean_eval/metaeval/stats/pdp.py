"""Pairwise Difference Pearson (PDP), its bootstrap and its permutation tests, in closed form (docs/design.md §5).

Definition (DiIanni & Deutsch 2025, "Don't Sweat the Small Stuff: Segment-Level Meta-Evaluation Based on Pairwise
Difference Correlation", EMNLP 2025; implemented in mt-metrics-eval's ``stats.Correlation.Pearson(average_by=...,
pdp=True)`` (2025) for the WMT25 metrics task): the ``(n_systems, n_items)`` matrices are cut into *groups* — items
(``item``: the systems of one segment, mt-metrics-eval ``average_by="item"``), systems (``system``: the items of one
system, ``"sys"``) or one group of everything (``none``) — and within each group every *ordered* pair (i, j) of
entries, i = j included, gives the differences ``h_i − h_j`` (human) and ``m_i − m_j`` (metric). All groups'
differences are pooled into one vector each (not averaged per group), pairs with a missing human score are dropped,
and PDP is scipy's Pearson r of the two pooled vectors.

Closed form. A group's difference set is symmetric (``d_ij = −d_ji``), so its mean is 0 and the i = j zeros change
no sum; ``Σ_{i,j} (h_i − h_j)(m_i − m_j) = 2·n·C(h, m)`` with ``n`` the group's present entries and ``C`` the
centred sum of products over them. Hence::

    PDP = Σ_g n_g·C_g(h, m) / sqrt(Σ_g n_g·C_g(h, h) · Σ_g n_g·C_g(m, m))

exactly in real arithmetic. An entry counts as present when both its human and its metric score are finite
(mt-metrics-eval's metric scores have no gaps; it drops pairs with a missing human score). Consequences: ``none``
(one group) is the plain Pearson r of all entries, and PDP at the system level (one vector of systems) is the
Pearson r of the system scores; only ``item`` and ``system`` differ from Pearson
(:func:`korean_eval.model.vocabulary.computed_statistic`). PDP is undefined (NaN) when every group is constant on a side
(all differences 0); a group with one present entry contributes nothing. A group constant on a side is detected
exactly (its centred values are set to 0), so the all-constant case is NaN as scipy's constant input is.

Resampling (:func:`bootstrap_pdp`): items drawn with counts ``w``. ``item`` — an item's moments do not change when
it is drawn, so resample ``r`` is ``Σ_i w_ri·(n C)_i`` in numerator and denominators: one counts product.
``system`` — per system the weighted moments ``W = Σ w``, ``Σ w x``, ``Σ w y``, ``Σ w xy``, ``Σ w x²``, ``Σ w y²``
are linear in ``w`` (one counts product) and ``n·C(x, y) = W·Σ w xy − Σ w x · Σ w y``. The permutation test swaps
whole items (:func:`permuted_pdp`, the same algebra with 0/1 weights over a's and b's copies) or single entries
(:func:`pdp_rows` of every permuted matrix).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from korean_eval.metaeval.stats.weighted import Counts, counts_matmul
from korean_eval.model.vocabulary import GROUPINGS, check_choice

#: A resampled system moment below this fraction of ``W·Σ w x²`` is rounding noise of a constant draw: taken as 0.
CONSTANT_TOLERANCE = 1e-12


class PdpSums(NamedTuple):
    """Per group ``g``: ``cross = n_g·C_g(h, m)``, ``human = n_g·C_g(h, h)``, ``metric = n_g·C_g(m, m)`` and the
    present entries ``points = n_g`` (arrays; leading axes of stacked inputs kept)."""

    cross: np.ndarray
    human: np.ndarray
    metric: np.ndarray
    points: np.ndarray


def _as_groups(values: np.ndarray, grouping: str) -> np.ndarray:
    """``(..., n_systems, n_items)`` → ``(..., n_groups, n_members)``: items, systems, or one group."""
    if grouping == "item":
        return np.swapaxes(values, -1, -2)
    if grouping == "system":
        return values
    return values.reshape(*values.shape[:-2], 1, -1)


def _centred(values: np.ndarray, ok: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each group's present values minus their mean; 0 where absent and over a group whose present values are all
    equal (exactly, so a constant group adds exactly 0 to every sum)."""
    filled = np.where(ok, values, 0.0)
    mean = filled.sum(axis=-1, keepdims=True) / np.maximum(points, 1)[..., None]
    low = np.where(ok, values, np.inf).min(axis=-1, keepdims=True)
    high = np.where(ok, values, -np.inf).max(axis=-1, keepdims=True)
    return np.where(ok & (high > low), filled - mean, 0.0)


def group_sums(metric: np.ndarray, human: np.ndarray, grouping: str) -> PdpSums:
    """:class:`PdpSums` of every group of ``metric`` (``(..., n_systems, n_items)``, stacked matrices allowed) against
    ``human`` (broadcast to it), NaN = absent, two-pass (means first)."""
    check_choice("grouping", grouping, GROUPINGS)
    metric = np.asarray(metric, dtype=np.float64)
    human = np.broadcast_to(np.asarray(human, dtype=np.float64), metric.shape)
    x, h = _as_groups(metric, grouping), _as_groups(human, grouping)
    ok = np.isfinite(x) & np.isfinite(h)
    points = ok.sum(axis=-1)
    xc, hc = _centred(x, ok, points), _centred(h, ok, points)
    return PdpSums(points * (xc * hc).sum(axis=-1), points * (hc * hc).sum(axis=-1),
                   points * (xc * xc).sum(axis=-1), points)


def pdp_of_sums(cross: np.ndarray, human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """``Σ cross / sqrt(Σ human · Σ metric)`` over the last axis (the groups), clipped to [−1, 1]; NaN where a
    denominator sum is not positive (every difference on that side is 0)."""
    a, b, d = (np.asarray(v, dtype=np.float64).sum(axis=-1) for v in (cross, human, metric))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = a / (np.sqrt(b) * np.sqrt(d))
    return np.where((b > 0) & (d > 0), np.clip(r, -1.0, 1.0), np.nan)


class PdpResult(NamedTuple):
    """PDP of one pair of matrices: ``value`` (NaN if undefined), ``n`` present (system, item) entries, ``n_groups``
    groups holding one or more, ``n_single`` of those holding exactly one (no difference to contribute)."""

    value: float
    n: int
    n_groups: int
    n_single: int


def pdp(metric: np.ndarray, human: np.ndarray, grouping: str = "item") -> PdpResult:
    """PDP of two ``(n_systems, n_items)`` matrices (NaN = absent) with ``grouping`` (module docstring)."""
    sums = group_sums(metric, human, grouping)
    value = float(pdp_of_sums(sums.cross, sums.human, sums.metric))
    return PdpResult(value, int(sums.points.sum()), int((sums.points > 0).sum()), int((sums.points == 1).sum()))


def pdp_rows(metrics: np.ndarray, human: np.ndarray, grouping: str) -> np.ndarray:
    """PDP of every matrix of ``metrics`` (``(n_rows, n_systems, n_items)``) against ``human``: ``(n_rows,)``."""
    sums = group_sums(metrics, human, grouping)
    return pdp_of_sums(sums.cross, sums.human, sums.metric)


def _linear_features(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Per item (row) and system: ``(1, x, h, x·h, x², h²)`` of the present entries (0 where absent), x and h shifted by
    the system's mean over its present entries (the same shift for every copy of a system's values keeps the
    moments exact and small): ``(n_items, n_systems·6)``, system-major."""
    ok = np.isfinite(x) & np.isfinite(h)
    points = ok.sum(axis=1)
    xs = np.where(ok, x, 0.0) - np.where(ok, x, 0.0).sum(axis=1, keepdims=True) / np.maximum(points, 1)[:, None]
    hs = np.where(ok, h, 0.0) - np.where(ok, h, 0.0).sum(axis=1, keepdims=True) / np.maximum(points, 1)[:, None]
    xs, hs, w = np.where(ok, xs, 0.0), np.where(ok, hs, 0.0), ok.astype(np.float64)
    feats = np.stack([w, xs, hs, xs * hs, xs * xs, hs * hs], axis=-1)  # (n_sys, n_items, 6)
    return np.ascontiguousarray(feats.transpose(1, 0, 2).reshape(x.shape[1], -1))


def _pdp_of_moments(moments: np.ndarray, n_systems: int) -> np.ndarray:
    """PDP with grouping ``system`` from weighted per-system moments ``(n_rows, n_systems·6)`` of
    :func:`_linear_features`: ``n·C(x, y) = W·Σwxy − Σwx·Σwy`` per system, summed over systems."""
    w, sx, sh, sxh, sxx, shh = np.moveaxis(moments.reshape(len(moments), n_systems, 6), -1, 0)
    metric = w * sxx - sx * sx
    human = w * shh - sh * sh
    flat_metric = ~(metric > CONSTANT_TOLERANCE * w * sxx)
    flat_human = ~(human > CONSTANT_TOLERANCE * w * shh)
    cross = np.where(flat_metric | flat_human, 0.0, w * sxh - sx * sh)
    return pdp_of_sums(cross, np.where(flat_human, 0.0, human), np.where(flat_metric, 0.0, metric))


def bootstrap_pdp(metric: np.ndarray, human: np.ndarray, grouping: str, counts: Counts) -> np.ndarray:
    """PDP of every bootstrap resample of items, ``(n_resamples,)``: resample ``r`` equals :func:`pdp` of the
    matrices with item ``i`` repeated ``counts[r, i]`` times (module docstring). ``grouping``: ``item`` or
    ``system`` (``none`` is Pearson: :func:`korean_eval.model.vocabulary.computed_statistic`)."""
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if check_choice("PDP grouping", grouping, ("item", "system")) == "item":
        sums = group_sums(metric, human, "item")
        per_item = np.ascontiguousarray(np.stack([sums.cross, sums.human, sums.metric], axis=1))
        resampled = counts_matmul(counts, per_item)
        return pdp_of_sums(resampled[:, :1], resampled[:, 1:2], resampled[:, 2:])
    return _pdp_of_moments(counts_matmul(counts, _linear_features(metric, human)), metric.shape[0])


def permuted_pdp(za: np.ndarray, zb: np.ndarray, human: np.ndarray, grouping: str, keep: Counts) -> np.ndarray:
    """PDP with ``human`` of every permuted configuration of a paired permutation test that swaps whole items:
    ``keep`` weights ``(n_rows, 2·n_items)`` are 0/1 over a's copies of the items, then b's (row ``r`` keeps one copy
    of each item). ``za``, ``zb``, ``human``: ``(n_systems, n_items)``, NaN = absent (the same entries in all
    three). Returns ``(n_rows,)``."""
    if check_choice("PDP grouping", grouping, ("item", "system")) == "item":
        per_item = []
        for z in (za, zb):
            sums = group_sums(z, human, "item")
            per_item.append(np.stack([sums.cross, sums.human, sums.metric], axis=1))
        resampled = counts_matmul(keep, np.ascontiguousarray(np.vstack(per_item)))
        return pdp_of_sums(resampled[:, :1], resampled[:, 1:2], resampled[:, 2:])
    both = _linear_features(np.hstack([za, zb]), np.hstack([human, human]))  # one shift per system for both copies
    return _pdp_of_moments(counts_matmul(keep, both), za.shape[0])
