"""The dashboard's charts are built in one step from dicts (:mod:`ui.figures`): the template applied as Plotly's
default gives the same figure as naming it in the layout (Plotly's validated path), for every chart function, and
:func:`ui.figures.merge` combines nested properties as Plotly's ``update_layout`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from korean_eval.lens.perturb import KINDS
from korean_eval.lens.pos_categories import CATEGORY_LABELS
from ui import charts, figures, grid_charts, lens_charts, lens_spans

LEVELS = ["word", "kiwi", "char", "jamo"]
METRICS = ["bleu", "chrf", "ter"]


def _view(granularity: str = "segment", k: int = 1) -> pd.DataFrame:
    """A correlation view (:func:`ui.views.correlation_view`'s columns) of ``k`` × 3 metrics × 4 levels, with CIs."""
    rows = []
    for j, (metric, level) in enumerate((f"{m}{i or ''}", lv) for i in range(k) for m in METRICS for lv in LEVELS):
        value = 0.3 + 0.01 * j
        rows.append({"granularity": granularity, "level": level, "metric": metric, "value": value, "shown": value,
                     "shown_low": value - 0.1, "shown_high": value + 0.1, "ci_low": value - 0.1, "ci_high": value + 0.1,
                     "n": 600, "signature": "nrefs:1|<sig>", "shown_label": metric.upper() + " <&>",
                     "metric_label": metric.upper(), "family": "character" if level in ("char", "jamo") else "word",
                     "epsilon": 0.01 if j % 2 else np.nan})
    return pd.DataFrame(rows)


def _accuracy(k: int = 1) -> pd.DataFrame:
    view = _view(k=k)
    return view.assign(pairwise_accuracy=0.8, n_pairs=10, spa=0.9)


def _systems(n: int) -> list[str]:
    return [f"sys_{k:02d}<b>" for k in range(n)]


def _bump(n: int) -> pd.DataFrame:
    rows = [{"system": s, "stage": stage, "rank": float((k + j) % n + 1), "score": 30.0 + k, "differs": bool(j % 2)}
            for j, stage in enumerate(["Human", *LEVELS]) for k, s in enumerate(_systems(n))]
    return pd.DataFrame(rows)


def _scatter(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame([{"system": s, "seg_id": k, "hyp": "나는 학교에 갔다 " * 5, "ref": "<ref>", "difference": 0.1,
                          "human": rng.uniform(0, 100), "metric": rng.uniform(0, 50)} for s in _systems(n) for k in range(3)])


def _significance(n: int):
    labels = [f"{m}@{lv}" for m in [f"m{k}" for k in range(20)] for lv in LEVELS][:n]
    matrix = pd.DataFrame(np.linspace(0, 0.2, n * n).reshape(n, n), index=labels, columns=labels)
    return grid_charts.significance_heatmap(matrix, labels, sorted(1 + k // 4 for k in range(n)),
                                            list(np.linspace(0.9, 0.2, n)), None)


def _probe() -> go.Figure:
    index = pd.MultiIndex.from_tuples([(m, lv) for m in METRICS for lv in LEVELS], names=["metric", "level"])
    matrix = pd.DataFrame(np.arange(len(index) * len(KINDS), dtype=float).reshape(len(index), -1) - 20,
                          index=index, columns=list(KINDS))
    details = pd.DataFrame([{"kind": kind, "metric": m, "level": lv, "higher_is_better": m != "ter",
                             "mean_change": -1.0, "mean_penalty": 1.0, "relative_to_drop": 0.5, "applied": 9,
                             "not_applicable": 1} for kind in KINDS for m, lv in index])
    return lens_charts.probe_heatmap(matrix, "relative_to_drop", "× drop", details)


def _lens_correlations() -> go.Figure:
    view = pd.DataFrame({"feature": ["particles <x>", "endings"], "value": [-0.3, 0.2], "ci_low": [-0.4, np.nan],
                         "ci_high": [-0.2, np.nan], "n": [100, 100]})
    return lens_charts.correlation_bars(view, "Pearson r")


def _speech(n: int) -> go.Figure:
    speech = pd.DataFrame({"system": _systems(n), "agreement": np.linspace(0.4, 0.8, n)})
    spacing = pd.DataFrame({"system": _systems(n), "f1": np.linspace(0.7, 1.0, n)})
    return lens_charts.agreement_bars(speech, spacing)


CATEGORY_MATRIX = pd.DataFrame([[0.9, 0.8], [np.nan, 0.95]], index=_systems(2), columns=list(CATEGORY_LABELS)[:2])
LEVEL_TABLE = pd.DataFrame({"level": LEVELS, "family": ["word", "morpheme", "character", "jamo"], "v": [1.0, 2.5, 3, 9]})
TIMES = pd.DataFrame([[0.1, np.nan], [2.0, 0.5]], index=["BLEU", "<own>"], columns=["word", "char"])
CHARTS: dict[str, Callable[[], go.Figure]] = {
    "correlation bars": lambda: charts.correlation_bars(_view(), "segment", "pearson", "grouping: none",
                                                        frozenset({("word", "bleu"), ("char", "ter")})),
    "correlation bars, acc_eq": lambda: charts.correlation_bars(_view("system"), "system", "acc_eq"),
    "correlation grid": lambda: grid_charts.correlation_chart(_view(k=3), "segment", "kendall", "auto",
                                                              frozenset({("kiwi", "chrf1")}), "grouping: item"),
    "ranking": lambda: charts.bump_chart(_bump(4), "BLEU <&>"),
    "segment scatter": lambda: charts.segment_scatter(_scatter(3), "chrF", "kiwi", note="5 excluded"),
    "segment scatter, many systems": lambda: charts.segment_scatter(_scatter(12), "chrF", "kiwi"),
    "level bars": lambda: charts.level_bars(LEVEL_TABLE, "v", "Tokens per word", "tokens", ".1f"),
    "timing": lambda: charts.timing_heatmap(TIMES),
    "distribution": lambda: charts.distribution([1.0, 2, 3, 50], [2.0, 3], "z <score>"),
    "accuracy bars": lambda: grid_charts.accuracy_chart(_accuracy()),
    "accuracy grid": lambda: grid_charts.accuracy_chart(_accuracy(3)),
    "flips": lambda: grid_charts.flip_heatmap(pd.DataFrame([[1, 0], [3, 2]], index=["BLEU", "TER"],
                                                           columns=["word", "char"]), 10),
    "significance matrix, written": lambda: _significance(6),
    "significance matrix, numbered": lambda: _significance(24),
    "significance matrix, alternating": lambda: _significance(grid_charts.MATRIX_ALTERNATE_FROM + 3),
    "error profile": lambda: lens_charts.profile_heatmap(CATEGORY_MATRIX, "F1", True),
    "error profile, counts": lambda: lens_charts.profile_heatmap(CATEGORY_MATRIX * 3, "errors per segment", False),
    "probe": _probe,
    "speech levels": lambda: _speech(3),
    "speech levels, many systems": lambda: _speech(lens_charts.UPRIGHT_SYSTEMS + 2),
    "speech confusion": lambda: lens_charts.confusion_heatmap(
        pd.DataFrame([[3, 1], [0, 2]], index=["해요체", "합쇼체"], columns=["해요체", "합쇼체"]), "<sys>"),
    "lens correlations": _lens_correlations,
    "span categories": lambda: lens_spans.category_heatmap(pd.DataFrame([[2, 0], [1, 5]], index=["Accuracy", "Fluency"],
                                                                        columns=["particle", "ending"])),
    "span tracking": lambda: lens_spans.tracking_heatmap(pd.DataFrame([[0.2, -0.1]], index=["BLEU@word"],
                                                                      columns=["Accuracy", "Fluency"])),
}


@pytest.mark.parametrize("name", list(CHARTS))
def test_the_default_template_gives_the_figure_of_the_named_template(name, monkeypatch):
    monkeypatch.setattr(pio.templates, "default", figures.TEMPLATE)  # as ui.figures sets it on import
    fast = CHARTS[name]()
    monkeypatch.setattr(pio.templates, "default", "plotly")  # figures.figure now names the template in the layout
    plain = CHARTS[name]()
    assert plain.layout.template == fast.layout.template == pio.templates[figures.TEMPLATE]
    # the same JSON tree: every key and value (typed arrays byte for byte); only the keys' order may differ
    assert json.loads(pio.to_json(fast, validate=False)) == json.loads(pio.to_json(plain, validate=False))


def test_merge_combines_nested_properties_as_plotly_update_does():
    first = dict(xaxis=dict(title=dict(text="x"), tickfont=dict(size=12), tickvals=[0, 1, 2]), height=300,
                 margin=dict(l=60, r=20, t=95, b=40), legend=dict(orientation="h", font=dict(size=12)))
    second = dict(xaxis=dict(tickfont=dict(color="#1F2328"), tickvals=[5]), margin=dict(t=100), height=400,
                  legend=dict(orientation="v", x=1.01), yaxis=dict(range=[0, 1]))
    merged = figures.merge(first, second)
    updated = go.Figure(layout=first).update_layout(second)
    assert go.Figure(layout=merged).to_plotly_json() == updated.to_plotly_json()
    assert merged["xaxis"] == {"title": {"text": "x"}, "tickfont": {"size": 12, "color": "#1F2328"}, "tickvals": [5]}
    assert first["xaxis"]["tickfont"] == {"size": 12} and first["height"] == 300  # the inputs are left as they were
    merged["legend"]["font"]["size"] = 20
    assert first["legend"]["font"]["size"] == 12  # nested dicts are copies


def test_every_axis_gets_dark_labels_and_the_chart_s_own_properties_win():
    layout = charts.base_layout(dict(xaxis2=dict(side="top"), margin=dict(t=100), legend=dict(x=1.01)), 400, "t")
    for axis in ("xaxis", "xaxis2", "yaxis"):
        assert layout[axis]["tickfont"]["color"] == layout[axis]["title"]["font"]["color"] == charts.LABEL_TEXT
    assert layout["margin"] == dict(l=60, r=20, t=100, b=40) and layout["legend"]["x"] == 1.01
    assert layout["legend"]["orientation"] == "h" and layout["title"]["text"] == "t"
    assert "title" not in charts.base_layout({}, 400)
