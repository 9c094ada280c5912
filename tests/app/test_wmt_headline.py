"""The dashboard's uncertainty for WMT's statistics: intervals on by default on small data (bars, grid cells, the
"highest agreement" lines), the headline's choice of statistic with WMT25's option, labels that tell an outlined
top cluster from the rest, and degenerate data said on the page."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from tests.support.apptest import assert_clean, figures, run_app
from ui import formats, headlines

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


def _text(at) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]))


def test_intervals_are_on_by_default_on_the_sample_beside_every_highest_line():
    at = run_app()
    bars = [t for t in figures(at)[0]["data"] if t.get("error_y")]
    assert bars, "the sample is small: its intervals are drawn without asking"
    text = _text(at)
    lines = re.findall(r"highest agreement at the \w+ level \([^)]*\)[^.]*\.", text)
    assert lines and all("95% CI [" in line for line in lines), lines


def test_the_grid_writes_each_cells_interval():
    at = run_app(corr_form="grid")
    grid = figures(at)[0]
    cells = [t for row in grid["data"][0]["text"] for t in row if t]
    assert cells and all(re.search(r"<br><span[^>]*>\[−?\d\.\d+, −?\d\.\d+\]</span>", c) for c in cells
                         if c != "n/a"), cells[:3]


@pytest.mark.parametrize("choice", ["wmt25", "acc_eq", "spa"])
def test_the_headline_follows_the_chosen_statistic_with_its_wmt_test(choice):
    at = run_app(headline_follows=choice)
    assert_clean(at)
    captions = " ".join(c.value for c in at.caption)
    if choice in ("wmt25", "acc_eq"):
        assert "PairwisePermutationSigDiff" in captions
    if choice in ("wmt25", "spa"):
        assert "PermutationSigDiff; " in captions or "mt-metrics-eval PermutationSigDiff" in captions
    statements = [m.value for m in at.markdown if m.value.startswith("**")]
    assert any(("agrees most" in s) or ("tie" in s) for s in statements), statements


def test_constant_human_scores_are_said_on_the_page():
    from korean_eval.inputs.sample import load_sample
    from ui import state

    sample = load_sample()
    flat = dataclasses.replace(sample, human=sample.human.assign(score=50.0))
    at = run_app(**{state.EVALSET_KEY: flat, state.SOURCE_KEY: "constant"})
    warnings = re.sub(r"\\(.)", r"\1", " ".join(w.value for w in at.warning))
    assert "Degenerate data: every human score is the same" in warnings


def test_label_digits_separate_an_outlined_cluster_from_the_rest():
    assert formats.separating_digits([0.5824, 0.5788, 0.5561], [True, False, False]) == 3
    assert formats.separating_digits([0.99883, 0.9985], [True, False]) == 4
    assert formats.separating_digits([0.61, 0.42], [True, False]) == 2
    assert formats.separating_digits([0.61, 0.42], [False, False]) == 2
    assert formats.separating_digits([0.5, np.nan], [True, False]) == 2


def test_headline_choices_name_wmt25():
    assert "WMT25" in headlines.HEADLINE_CHOICES["wmt25"]
    assert headlines.headline_statistics("wmt25", "pearson", "pearson") == {"segment": "acc_eq", "system": "spa"}
    assert headlines.headline_statistics("acc_eq", "kendall", "kendall") == {"segment": "acc_eq", "system": "kendall"}
    assert headlines.headline_statistics("spa", "pearson", "pearson") == {"segment": "pearson", "system": "spa"}
    assert headlines.headline_statistics("chart", "acc_eq", "spa") == {"segment": "acc_eq", "system": "spa"}
