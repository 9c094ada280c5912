"""The HTML report's pictures say what they show: correlations drawn as agreement (−TER) with the error bars the
caption promises (and no promise without intervals), tables headed for people, the Korean lens's section when its
result is given (small-support cells grey), and system names kept whole."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.exports.charts import lens_profile_figure
from korean_eval.exports.html import html_report
from korean_eval.exports.tables import TopClusters, correlation_grid
from korean_eval.inputs.sample import load_sample
from korean_eval.lens.profile import MIN_SUPPORT
from korean_eval.metaeval.tables.intervals import add_confidence_intervals
from korean_eval.model.config import EvalConfig


@pytest.fixture(scope="module")
def sample():
    return load_sample()


@pytest.fixture(scope="module")
def results(sample):
    return evaluate(sample, EvalConfig(levels=("word", "char"), metrics=("bleu", "ter")))


@pytest.fixture(scope="module")
def with_ci(results):
    return dataclasses.replace(results, correlations=add_confidence_intervals(results, n_resamples=40))


def _figure_json(text: str, name: str) -> str:
    """The ``Plotly.newPlot`` call of the figure ``chart-<name>`` in the report."""
    start = text.index(f'"chart-{name}"')
    return text[start:text.index("</script>", start)]


def test_bars_are_agreement_with_the_promised_error_bars(with_ci):
    from korean_eval.exports.charts import correlation_figure

    grid = correlation_grid(with_ci, "segment", "pearson")
    fig = correlation_figure(grid, {"word": "word", "char": "character"}, "segment", "t", "pearson")
    drawn = {}
    for bar in fig.data:
        for (metric, level), y, up, down in zip(zip(*bar.x, strict=True), bar.y, bar.error_y.array,
                                                bar.error_y.arrayminus, strict=True):
            drawn[(metric, level)] = (y, y + up, y - down)
    assert ("\u2212TER", "word") in drawn and ("BLEU", "char") in drawn
    for r in grid.itertuples():
        label = ("\u2212TER" if r.metric == "ter" else "BLEU", r.level)
        y, high, low = drawn[label]
        assert y == pytest.approx(r.shown) and y > 0  # TER's negative r drawn as positive agreement
        assert (low, high) == pytest.approx((r.shown_low, r.shown_high))
        lo, hi = sorted((-r.ci_low, -r.ci_high)) if r.metric == "ter" else (r.ci_low, r.ci_high)
        assert (low, high) == pytest.approx((lo, hi))

    text = html_report(with_ci, None, TopClusters())
    assert "Error bars: 95 % bootstrap intervals" in text
    assert '"error_y":{"array"' in _figure_json(text, "correlation-segment").replace(" ", "")


def test_no_interval_no_promise(results):
    assert results.correlations["ci_low"].isna().all()
    text = html_report(results, None, TopClusters())
    assert "Error bars" not in text and "No intervals were computed" in text
    assert '"error_y":{"array"' not in _figure_json(text, "correlation-segment").replace(" ", "")


def test_tables_are_headed_for_people(with_ci, sample):
    text = html_report(with_ci, sample, TopClusters())
    headers = re.findall(r"<th>(.*?)</th>", text)
    for raw in ("ci_low", "ci_high", "higher_is_better", "n_groups", "n_undefined", "tokens_per_word",
                "tokens_per_segment", "system_a", "metric_a"):
        assert raw not in headers, raw
    assert {"95 % CI low", "95 % CI high", "direction", "token level", "tokens per word"} <= set(headers)
    cells = re.findall(r"<td>([^<]*)</td>", text)
    assert "True" not in cells and "False" not in cells
    assert "lower is better (error rate)" in cells
    # the numbers keep their columns' own names for the machines
    assert 'data-column="ci_low"' in text and 'data-column="value"' in text
    assert "tr[data-system]>td:first-child{white-space:nowrap}" in text  # names never break mid-word


def test_lens_section_only_when_its_result_is_given(results, sample):
    from korean_eval.lens.run import run_lens

    assert "id='lens'" not in html_report(results, sample, TopClusters())
    lens = run_lens(sample, EvalConfig(levels=("char",), metrics=("chrf",)), with_probe=False, n_resamples=20)
    text = html_report(results, sample, TopClusters(), lens=lens)
    assert "<h2 id='lens'>Korean lens</h2>" in text and 'data-chart="lens-profile"' in text
    assert "id=\"table-lens-profile\"" in text and f"fewer than {MIN_SUPPORT} morphemes" in text
    assert "href='#lens'" in text


def test_lens_profile_greys_cells_on_few_morphemes():
    rows = []
    for system, other in (("A", (1, 1, 0)), ("B", (40, 40, 30))):
        for category in ("content", "particle", "ending", "affix", "foreign_number", "punctuation", "other"):
            hyp, ref, matched = other if category == "other" else (100, 100, 90)
            f1 = 2 * matched / (hyp + ref)
            rows.append({"system": system, "category": category, "subcategory": "all", "segments": 5, "hyp": hyp,
                         "ref": ref, "matched": matched, "errors": hyp + ref - 2 * matched, "precision": f1,
                         "recall": f1, "f1": f1})
    fig = lens_profile_figure(pd.DataFrame(rows))
    values, grey = (np.asarray(t.z, dtype=float) for t in fig.data)
    other = 6
    assert values[0, other] == 0 and grey[0, other] == 1  # A's F1 of 0 over 2 morphemes: covered grey, not darkest
    assert fig.data[0].text[0][other] == "" and fig.data[1].text[0][other] == "0.000"  # its value in grey text
    assert values[1, other] == 0.75 and np.isnan(grey[1, other])
    assert fig.data[0].zmin == pytest.approx(0.75)  # the colour scale spans the readable cells only
    assert "fewer than" in fig.data[1].customdata[0][other] and "1 hypothesis" in fig.data[1].customdata[0][other]
