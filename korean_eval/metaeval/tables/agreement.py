"""Correlations drawn as agreement with the humans: the one rule every picture of them follows (the dashboard's
charts and the HTML report alike).

Definition: the *agreement* of a configuration (token level × metric) is its correlation with the human scores,
negated for an error rate (a metric where lower is better, :meth:`korean_eval.model.results.Results.higher_is_better`:
TER, CharacTER, EED), so that a larger value always means closer agreement with the humans; its 95 % interval is
negated with it (the ends swap) and its label gets a leading minus (``−TER``). Accuracies over pairs (acc_eq, SPA,
pairwise accuracy) are agreement already and are never negated. The value as computed stays in ``value``.

Colour: agreement on one sequential scale, darker = closer agreement (:data:`AGREEMENT_COLORSCALE`), from
min(0, the lowest value) to 1 (:func:`agreement_color_range`), never a diverging scale centred on a raw signed
correlation, on which an error rate that agrees well (−0.79) would look like the worst configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from korean_eval.model.results import GIVEN_LEVEL
from korean_eval.model.vocabulary import STATISTICS

#: The columns :func:`agreement_columns` adds.
AGREEMENT_COLUMNS = ("higher_is_better", "negated", "shown", "shown_low", "shown_high")
#: Plotly's colour scale of agreement values (light = low, dark = high).
AGREEMENT_COLORSCALE = "Blues"
MINUS = "\u2212"


def agreement_columns(rows: pd.DataFrame, higher_is_better: Callable[[str, str], bool],
                      agreement: bool = True) -> pd.DataFrame:
    """A copy of ``rows`` (columns ``level, metric, statistic, value, ci_low, ci_high``) with
    :data:`AGREEMENT_COLUMNS`: ``higher_is_better`` (``higher_is_better(metric, level)``), ``negated`` (an error
    rate's correlation, turned into agreement), ``shown`` and ``shown_low``/``shown_high`` (the plotted value and
    interval). With ``agreement`` False nothing is negated (the correlations drawn as computed)."""
    out = rows.copy()
    for column in ("ci_low", "ci_high"):
        if column not in out:
            out[column] = np.nan
    out["higher_is_better"] = [bool(higher_is_better(m, lv)) for lv, m in zip(out["level"], out["metric"], strict=True)]
    negated = agreement & ~out["higher_is_better"].astype(bool) & out["statistic"].isin(STATISTICS)
    out["negated"] = negated.astype(bool)
    sign = np.where(out["negated"], -1.0, 1.0)
    low, high = out["ci_low"].to_numpy(float) * sign, out["ci_high"].to_numpy(float) * sign
    out["shown"] = out["value"].to_numpy(float) * sign
    out["shown_low"] = np.where(out["negated"], high, low)
    out["shown_high"] = np.where(out["negated"], low, high)
    return out


def agreement_label(label: str, negated: bool) -> str:
    """A metric's label as its agreement is drawn: ``−TER`` for a negated error rate, else ``label``."""
    return f"{MINUS}{label}" if negated else label


def agreement_color_range(values: Iterable[float]) -> tuple[float, float]:
    """``(zmin, zmax)`` of the agreement colour scale for ``values``: ``(min(0, lowest finite value), 1)``, so that 0
    and below are the lightest colours and 1 the darkest; ``(0, 1)`` when no value is finite."""
    finite = np.asarray(list(values), dtype=float)
    finite = finite[np.isfinite(finite)]
    return (min(0.0, float(finite.min())) if finite.size else 0.0), 1.0


def level_spread(rows: pd.DataFrame) -> dict[str, object] | None:
    """The metric whose segment-level agreement moves most between token levels.

    Over the segment rows of ``rows`` (agreement columns, :func:`agreement_columns`) with a defined ``shown`` value,
    the levels of metric ``m`` span ``max(shown) − min(shown)``; the metric with the largest span is chosen (the
    first by name on a tie); the user's own scores (:data:`~korean_eval.model.results.GIVEN_LEVEL`: given with the
    data, not tokenised) are left out.

    Returns:
        ``{"metric", "low", "high"}``: the metric and its rows of lowest and highest agreement; None with fewer than
        two levels.
    """
    seg = rows[(rows["granularity"] == "segment") & rows["shown"].notna() & (rows["level"] != GIVEN_LEVEL)]
    if seg["level"].nunique() < 2:
        return None
    spread = seg.groupby("metric")["shown"].agg(lambda v: v.max() - v.min())
    metric = spread.idxmax()
    chosen = seg[seg["metric"] == metric]
    return {"metric": metric, "low": chosen.loc[chosen["shown"].idxmin()], "high": chosen.loc[chosen["shown"].idxmax()]}
