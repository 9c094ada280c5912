"""Numbers as the dashboard's tables print them (pure; no Streamlit): one convention on every page.

Scores (metric and human scores, their differences and intervals) with 2 decimals, correlations with 3, ranks as
integers, p-values with 3 decimals or "< 0.001", and "—" wherever there is no value (never "None", "nan" or a
blank). Tables keep their numbers; these functions make the text a table shows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

DASH = "—"
SCORE_DIGITS = 2
CORRELATION_DIGITS = 3
P_FLOOR_TEXT = "< 0.001"


def _finite(x: object) -> bool:
    try:
        return math.isfinite(float(x))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def number(x: object, digits: int = SCORE_DIGITS, signed: bool = False) -> str:
    """``x`` with ``digits`` decimals (``+`` in front of a positive value when ``signed``); "—" when missing."""
    if not _finite(x):
        return DASH
    return f"{float(x):+.{digits}f}" if signed else f"{float(x):.{digits}f}"  # type: ignore[arg-type]


def with_minus_sign(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals and a typographic minus ("−0.412"), for numbers inside sentences."""
    return f"{value:.{digits}f}".replace("-", "−")


def score(x: object, signed: bool = False) -> str:
    """A metric or human score (or a difference of two) with 2 decimals."""
    return number(x, SCORE_DIGITS, signed)


def correlation(x: object) -> str:
    """A correlation (or an accuracy) with 3 decimals."""
    return number(x, CORRELATION_DIGITS)


def rank(x: object) -> str:
    """A rank as an integer ("3", never "3.0")."""
    return str(int(round(float(x)))) if _finite(x) else DASH  # type: ignore[arg-type]


def count(x: object) -> str:
    """A count with thousands separators."""
    return f"{int(round(float(x))):,}" if _finite(x) else DASH  # type: ignore[arg-type]


def interval(low: object, high: object, digits: int = SCORE_DIGITS, missing: str = DASH) -> str:
    """``[low, high]``; ``missing`` (never blank) when either end is missing."""
    if not (_finite(low) and _finite(high)):
        return missing
    return f"[{float(low):.{digits}f}, {float(high):.{digits}f}]"  # type: ignore[arg-type]


def p_value(p: object, n_resamples: int | None = None) -> str:
    """A p-value as text: 3 decimals, "< 0.001" below 0.001, "—" when undefined.

    With ``n_resamples`` (a resampling test whose p is ``(k + 1) / (n + 1)``, e.g. sacrebleu's paired bootstrap),
    a p at the floor ``1 / (n + 1)`` says "< 0.001" when the floor is below 0.001 (1,000 resamples: 1/1001), else
    "≤ floor": the test cannot tell smaller p-values apart.
    """
    if not _finite(p):
        return DASH
    p = float(p)  # type: ignore[arg-type]
    if n_resamples:
        floor = 1.0 / (n_resamples + 1)
        if p <= floor * (1 + 1e-9):
            return P_FLOOR_TEXT if floor < 0.001 else f"≤ {floor:.3f}"
    return P_FLOOR_TEXT if p < 0.001 else f"{p:.3f}"


def texts(values: Iterable[object], fmt) -> list[str]:
    """``fmt`` applied to every value (a column of a display table)."""
    return [fmt(v) for v in values]


def duration(seconds: float) -> str:
    """An estimated duration in words: "under a second", "about 8 s", "about 3 min" (rounded, never falsely
    precise)."""
    if not _finite(seconds) or seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {max(1, round(seconds / 5) * 5) if seconds >= 10 else round(seconds)} s"
    return f"about {round(seconds / 60)} min"


def separating_digits(values: Iterable[object], marked: Iterable[bool], least: int = 2, most: int = 4) -> int:
    """Decimals (``least`` … ``most``) that tell the ``marked`` values (e.g. a top significance cluster's) apart
    from the others on a chart: the fewest at which the lowest marked value and the highest unmarked one no longer
    read the same (the order the outline draws is then visible in the labels); ``least`` when one side is empty,
    ``most`` when even that many do not separate them."""
    pairs = [(float(v), bool(m)) for v, m in zip(values, marked, strict=True) if _finite(v)]
    inside = [v for v, m in pairs if m]
    outside = [v for v, m in pairs if not m]
    if not inside or not outside:
        return least
    low, high = min(inside), max(outside)
    return next((d for d in range(least, most + 1) if f"{low:.{d}f}" != f"{high:.{d}f}"), most)
