"""The colours every picture shares (the dashboard's charts and the HTML report): token families and systems.

Colours encode the token *family* everywhere (word / morpheme / subword / character / jamo / the user's own
scores), so a reader learns them once; systems get a categorical palette. Agreement values have a colour scale of
their own (:mod:`korean_eval.metaeval.tables.agreement`).
"""

from __future__ import annotations

FAMILY_COLORS: dict[str, str] = {
    "word": "#4C78A8",
    "morpheme": "#54A24B",
    "subword": "#B279A2",
    "character": "#F58518",
    "jamo": "#E45756",
    "given": "#8C8C8C",
}
#: Up to ten systems; more take Plotly's ``Dark24`` (:func:`system_colors`).
SYSTEM_COLORS: list[str] = ["#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#EECA3B", "#FF9DA6",
                            "#9D755D", "#BAB0AC"]


def system_colors(n: int) -> list[str]:
    """``n`` line colours: :data:`SYSTEM_COLORS` up to 10 systems, beyond Plotly's 24 ``Dark24`` colours (dark
    enough for lines on white), so that up to 24 systems never share a colour."""
    from plotly.colors import qualitative

    palette = SYSTEM_COLORS if n <= len(SYSTEM_COLORS) else list(qualitative.Dark24)
    return [palette[k % len(palette)] for k in range(n)]
