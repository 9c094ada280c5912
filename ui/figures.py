"""Plotly figures built in one step from plain dicts (docs/design.md §2, "the dashboard's charts"; no Streamlit).

Plotly validates every property it is handed, again on every ``update_layout``/``update_xaxes``/``update_traces``
call, and deep-copies (re-validating it) a template named in a layout, for every figure: a chart drawn as a series
of such calls cost 25–80 ms of CPU. The dashboard's chart functions therefore describe their traces and layout as
plain dicts, combined with :func:`merge` (as Plotly's ``update`` combines nested properties), and :func:`figure`
hands them to ``go.Figure`` once: validated once, the template applied as Plotly applies its default template.

:data:`TEMPLATE` is made Plotly's default template (``plotly.io.templates.default``) when this module is imported
(after Streamlit's own import made its "streamlit" template the default: the dashboard's pages import Streamlit
first; every dashboard figure names its template, so no figure took Streamlit's): ``go.Figure`` gives a figure
without a template the default one, already validated, without copying it through its validators; the figure's
JSON is what ``layout.template = TEMPLATE`` gives (tests/unit/ui/test_figures.py compares both paths for every chart
function). Should something else in the process change the default later, :func:`figure` names the template in the
layout instead (the slower path, same figure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
import plotly.io as pio

#: The look every dashboard chart starts from (white background, light grid).
TEMPLATE = "plotly_white"
pio.templates.default = TEMPLATE


def merge(*parts: Mapping[str, object]) -> dict[str, object]:
    """The dicts ``parts`` combined left to right as Plotly's ``update`` combines nested properties: a nested dict is
    merged key by key into the one before it, any other value replaces the earlier one (lists are never merged, so
    give a list of shapes or traces once). The inputs are not changed: nested dicts are copied."""
    out: dict[str, object] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
                out[key] = merge(out[key], value)  # type: ignore[arg-type]
            elif isinstance(value, Mapping):
                out[key] = merge(value)
            else:
                out[key] = value
    return out


def figure(data: Sequence[Mapping[str, object]], layout: Mapping[str, object]) -> go.Figure:
    """One ``go.Figure`` of the trace dicts ``data`` (each with its ``type``) and ``layout``, in :data:`TEMPLATE`."""
    if pio.templates.default != TEMPLATE:
        layout = {**layout, "template": TEMPLATE}
    return go.Figure(data=list(data), layout=layout)
