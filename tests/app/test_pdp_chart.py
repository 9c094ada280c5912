"""PDP on the Correlations page (docs/design.md §5): chosen in the sidebar with the other statistics, its bars are the
``pdp`` rows of ``correlations.csv`` (grouping item), and the CLI prints it. AppTest helpers from
tests/support/apptest.py."""

from __future__ import annotations

import pytest

from tests.support.apptest import (
    METRIC_OF_LABEL,
    assert_clean,
    bar_points,
    figures,
    run_app,
    sample_results,
)
from ui import views

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


def _value(corr, statistic: str, granularity: str, grouping: str, shown: str, level: str) -> float:
    """The table's value behind a bar (TER's bar is negated: a taller bar is closer agreement)."""
    sign = -1.0 if shown.startswith("−") else 1.0
    rows = corr[(corr["statistic"] == statistic) & (corr["granularity"] == granularity)
                & (corr["grouping"] == grouping) & (corr["level"] == level)
                & (corr["metric"] == METRIC_OF_LABEL[shown.lstrip("−")])]
    assert len(rows) == 1
    return sign * float(rows["value"].iloc[0])


def test_pdp_is_chosen_on_the_correlations_page_and_draws_the_table_values():
    at = run_app()
    at.radio(key="statistic").set_value("pdp").run()
    at.selectbox(key="grouping").set_value("item").run()
    assert_clean(at)
    seg_fig, sys_fig = figures(at)[:2]
    assert seg_fig["layout"]["yaxis"]["title"]["text"] == "PDP (pairwise difference Pearson) with humans"
    assert "grouping: item" in seg_fig["layout"]["title"]["text"]
    corr = sample_results(at).correlations
    seg = bar_points(seg_fig)
    assert seg
    for (shown, level), y in seg.items():
        assert y == pytest.approx(_value(corr, "pdp", "segment", "item", shown, level), abs=1e-12)
        assert y != pytest.approx(_value(corr, "pearson", "segment", "item", shown, level), abs=1e-6)
    for (shown, level), y in bar_points(sys_fig).items():  # system level: PDP is Pearson r
        assert y == pytest.approx(_value(corr, "pearson", "system", "none", shown, level), abs=1e-12)
    captions = " ".join(c.value for c in at.caption)
    assert views.grouping_label("pdp", "item") in captions


def test_grouping_labels_say_pdp_pools():
    assert "pooled" in views.grouping_label("pdp", "item") and "averaged" in views.grouping_label("pearson", "item")
    assert views.STATISTIC_LABELS["pdp"].split()[0] == "PDP"
