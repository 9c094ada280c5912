"""Driving the dashboard through Streamlit's AppTest: a session opened on a page with settings preset, and reading
what a page drew (Plotly figures as JSON, ``st.table`` tables as the reader sees them) back as plain data; the
bundled sample as uploads and as the dashboard's results.

The AppTest modules also use tests/conftest.py's fixtures ``streamlit_navigation`` and ``private_cache``.
"""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from korean_eval.inputs.sample import load_sample, sample_files
from tests.support.helpers import ROOT
from ui import state
from ui.inputs import Upload

APP = str(ROOT / "app.py")
#: Settings of every session :func:`run_app` opens: three token levels, to stay fast.
FAST = {"level|mecab": False, "level|jamo": False}  # → word, kiwi, char


def run_app(page: str | None = None, **session) -> AppTest:
    """A new session with ``session`` preset, opened on ``page`` (default: the first page, Correlations)."""
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {**FAST, **session}.items():
        at.session_state[key] = value
    if page:
        at.switch_page(page)
    at.run()
    assert_clean(at)
    return at


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def figures(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def values(v) -> list:
    """A Plotly JSON array: a plain list, or a typed array ``{"dtype", "bdata"}`` (numpy data)."""
    if isinstance(v, dict) and "bdata" in v:
        data = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        if "shape" not in v:
            return data.tolist()
        shape = v["shape"]
        shape = [int(k) for k in shape.split(",")] if isinstance(shape, str) else shape
        return data.reshape(shape).tolist()
    return list(v)


def figure_titled(at: AppTest, prefix: str) -> dict | None:
    """The first Plotly figure whose title starts with ``prefix`` (or contains it), else None."""
    for fig in figures(at):
        title = (fig["layout"].get("title") or {}).get("text", "")
        if title.startswith(prefix) or prefix in title:
            return fig
    return None


def significance_figure(at: AppTest) -> dict | None:
    """The significance matrix's figure (``layout.meta``, :data:`ui.grid_charts.MATRIX_META`), else None."""
    return next((fig for fig in figures(at) if fig["layout"].get("meta") == "significance-matrix"), None)


def bar_points(fig: dict, kind: str = "bar") -> dict[tuple[str, str], float]:
    """(outer x label, level) → y of every trace of type ``kind`` (bars by default) of a grouped chart."""
    out = {}
    for trace in fig["data"]:
        if trace.get("type", "bar") != kind:
            continue
        outer, inner = trace["x"]
        for o, i, y in zip(outer, inner, values(trace["y"]), strict=True):
            out[(o, i)] = y
    return out


def table_text(element) -> pd.DataFrame:
    """A table drawn by ``ui.widgets.fit_table`` as the reader sees it (its Markdown escapes removed)."""

    def plain(v):
        return re.sub(r"\\(.)", r"\1", v) if isinstance(v, str) else v

    frame = element.value.map(plain)
    frame.columns = [plain(c) for c in frame.columns]
    return frame


def tables(at: AppTest) -> list[pd.DataFrame]:
    """Every ``st.table`` of the page, as text (:func:`table_text`)."""
    return [table_text(t) for t in at.table]


def sample_uploads() -> tuple[list[Upload], list[Upload], Upload]:
    files = sample_files()
    refs = [Upload(files["ref"].name, files["ref"].read_bytes())]
    systems = [Upload(p.name, p.read_bytes()) for p in files["systems"]]
    human = Upload(files["human"].name, files["human"].read_bytes())
    return refs, systems, human


def renamed_human(names: list[str]) -> Upload:
    """The sample's human scores with its systems (in file order) renamed to ``names``."""
    human = load_sample().human
    stems = [p.name.removesuffix(".txt") for p in sample_files()["systems"]]
    human = human.assign(system=human["system"].map(dict(zip(stems, names, strict=True))))
    return Upload("human.csv", human[["system", "seg_id", "score"]].to_csv(index=False).encode())


def sample_results(at: AppTest):
    """The results the session's settings gave on the bundled sample, from the dashboard's store."""
    return state._store().get(state.results_key(load_sample(), at.session_state[state.SETTINGS_KEY].config))


#: The metric of each label the charts show.
METRIC_OF_LABEL = {"BLEU": "bleu", "chrF": "chrf", "chrF+": "chrf+", "chrF++": "chrf++", "TER": "ter"}
