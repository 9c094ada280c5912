"""Your own metric scores where lower is better (MetricX-like error rates): rankings, flips, correlation direction
and pairwise accuracy follow the declared direction, in the library, the CLI and the dashboard."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.cli.main import main
from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.inputs.tables import given_only_evalset
from korean_eval.metaeval.tables.system_pairs import pairwise_accuracy_table
from korean_eval.model.config import EvalConfig
from tests.support.apptest import APP, bar_points, figures
from ui import state

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


def _scores() -> tuple[bytes, bytes]:
    """Human scores of the sample and an error-rate metric that follows them closely: 25 − score / 4 + noise."""
    human = load_sample().human[["system", "seg_id", "score"]]
    rng = np.random.default_rng(7)
    metricx = human[["system", "seg_id"]].assign(MetricX=25 - human["score"] / 4 + rng.normal(0, 0.5, len(human)))
    return metricx.to_csv(index=False).encode(), human.to_csv(index=False).encode()


@pytest.fixture(scope="module")
def evalset():
    given, human = _scores()
    return given_only_evalset(("human.csv", human), ("metricx.csv", given))


def _given(table: pd.DataFrame) -> pd.DataFrame:
    return table[(table["level"] == "given") & (table["metric"] == "MetricX")]


def test_declared_error_rate_is_ranked_lowest_first(evalset):
    res = evaluate(evalset, EvalConfig(given_lower_is_better=("MetricX",)))
    assert not res.higher_is_better("MetricX", "given") and res.higher_is_better("bleu", "word")
    corr = _given(res.correlations)
    assert (~corr["higher_is_better"]).all()
    seg = corr.query("granularity == 'segment' and statistic == 'pearson' and grouping == 'none'")["value"].item()
    assert seg < -0.9  # an error rate that agrees with the humans correlates negatively
    ranks = _given(res.rankings)
    assert (ranks["metric_rank"] == ranks["human_rank"]).all()
    assert _given(res.flips).empty
    acc = _given(pairwise_accuracy_table(res))["pairwise_accuracy"].item()
    assert acc == 1.0
    assert "lower is better" in res.signatures()["given/MetricX"]


def test_undeclared_error_rate_is_read_as_higher_is_better(evalset):
    """The default: the same scores read as higher-is-better flip every pair of systems."""
    res = evaluate(evalset, EvalConfig())
    assert res.higher_is_better("MetricX", "given")
    n_sys = len(evalset.systems)
    assert len(_given(res.flips)) == n_sys * (n_sys - 1) // 2
    assert _given(pairwise_accuracy_table(res))["pairwise_accuracy"].item() == 0.0


def test_unknown_name_is_noted(evalset):
    res = evaluate(evalset, EvalConfig(given_lower_is_better=("MetricX", "COMET")))
    assert any("not among your metric scores: COMET" in n for n in res.notes)


def test_cli_lower_is_better(tmp_path, capsys):
    given, human = _scores()
    (tmp_path / "mx.csv").write_bytes(given)
    (tmp_path / "human.csv").write_bytes(human)
    out = tmp_path / "out"
    args = ["--scores", str(tmp_path / "mx.csv"), "--human", str(tmp_path / "human.csv"), "--lower-is-better",
            "MetricX", "--bootstrap", "0", "--quiet", "--no-cache", "--out", str(out)]  # fmt: skip
    assert main(["run", *args]) == 0, capsys.readouterr().err
    corr = pd.read_csv(out / "correlations.csv")
    assert (~_given(corr)["higher_is_better"].astype(bool)).all()
    assert _given(pd.read_csv(out / "flipped_pairs.csv")).empty


def test_dashboard_multiselect_declares_the_direction(evalset):
    """MetricX is pre-filled as lower-is-better from its name; unselecting it reads it the other way round."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state[state.EVALSET_KEY] = evalset
    at.run()
    assert not at.exception
    assert at.sidebar.multiselect(key="given_lower_is_better").value == ["MetricX"]
    before = bar_points(figures(at)[0])
    assert before[("−MetricX", "given")] > 0.9
    text = " ".join(m.value for m in at.markdown)
    assert "Error rates (MetricX), lower is better" in text
    at.sidebar.multiselect(key="given_lower_is_better").unselect("MetricX").run()
    assert not at.exception and not at.error
    after = bar_points(figures(at)[0])
    assert after[("MetricX", "given")] == pytest.approx(-before[("−MetricX", "given")])
    assert at.session_state[state.SETTINGS_KEY].config.given_lower_is_better == ()
