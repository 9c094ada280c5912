"""The direction of your own metric scores is asked on upload, pre-filled from each column's name, and the
resulting signs (correlations, pairwise accuracy, rankings, headline) follow it; a column declared
higher-is-better that correlates negatively with the humans everywhere is flagged."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.inputs.sample import load_sample
from korean_eval.inputs.tables import given_metric_columns
from korean_eval.metaeval.tables.system_pairs import pairwise_accuracy_table
from tests.support.apptest import APP
from ui import directions, state, views

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

ERROR_RATES = ["TER", "ter", "hTER", "CharacTER", "EED", "MetricX", "metricx-24-hybrid", "MetricX23", "jamoTER",
               "ter_char", "WER", "cer", "ErrorRate", "num_errors", "err", "loss", "val_loss", "edit_distance",
               "Distance", "brevity_penalty", "perplexity"]  # fmt: skip
QUALITY = ["COMET", "BLEU", "chrF", "chrF++", "BLEURT-20", "xCOMET-XL", "BERTScore", "better", "filtered",
           "Center", "score_per_segment", "Prism", "Adequacy", "quality"]  # fmt: skip


@pytest.mark.parametrize("name", ERROR_RATES)
def test_error_rate_names_are_guessed_lower_is_better(name):
    assert directions.guess_lower_is_better(name)


@pytest.mark.parametrize("name", QUALITY)
def test_quality_names_are_guessed_higher_is_better(name):
    assert not directions.guess_lower_is_better(name)


def test_metric_columns_are_those_the_reader_uses():
    assert given_metric_columns(["system", "seg_id", "TER", "COMET"], "x.csv") == ["TER", "COMET"]
    assert given_metric_columns(["sys", "segment", "hyp", "ref", "MetricX"], "x.csv") == ["MetricX"]


def _tables() -> tuple[bytes, bytes]:
    """Human scores of the sample and three metrics that follow them: COMET (higher is better), TER_jamo (an error
    rate named as one) and Quality (an error rate whose name does not say so)."""
    human = load_sample().human[["system", "seg_id", "score"]]
    rng = np.random.default_rng(3)
    noise = rng.normal(0, 1.0, (3, len(human)))
    given = human[["system", "seg_id"]].assign(
        COMET=human["score"] / 100 + 0.02 * noise[0],
        TER_jamo=100 - human["score"] + 0.5 * noise[1],  # agrees with the humans more closely than COMET
        Quality=50 - human["score"] / 2 + 2 * noise[2],  # an error rate whose name says nothing
    )
    return given.to_csv(index=False).encode(), human.to_csv(index=False).encode()


def _upload_scores() -> AppTest:
    given, human = _tables()
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/data.py").run()
    at.segmented_control(key="data_mode").set_value("Scores only").run()
    at.file_uploader(key="up_scores_only").set_value(("my_scores.csv", given, "text/csv"))
    at.file_uploader(key="up_scores_human").set_value(("human.csv", human, "text/csv"))
    at.run()
    assert not at.exception
    return at


def _results(at: AppTest):
    config = at.session_state[state.SETTINGS_KEY].config
    return state._store().get(state.results_key(at.session_state[state.EVALSET_KEY], config)), config


def _segment_pearson(res, metric: str) -> float:
    corr = res.correlations
    row = corr[(corr["level"] == "given") & (corr["metric"] == metric) & (corr["granularity"] == "segment")
               & (corr["statistic"] == "pearson") & (corr["grouping"] == "none")]  # fmt: skip
    return float(row["value"].item())


def test_upload_asks_the_direction_prefilled_from_the_names_and_the_signs_follow():
    at = _upload_scores()
    radios = {r.key.removeprefix(directions.PROMPT_PREFIX): r.value for r in at.radio if r.key and r.key.startswith(directions.PROMPT_PREFIX)}
    assert radios == {"COMET": directions.HIGHER, "TER_jamo": directions.LOWER, "Quality": directions.HIGHER}
    at.radio(key=directions.PROMPT_PREFIX + "Quality").set_value(directions.LOWER).run()  # the user corrects one
    at.button(key="use_scores").click().run()
    assert not at.exception and not at.error
    at.switch_page("pages/correlations.py").run()
    assert not at.exception and not at.error
    assert at.sidebar.multiselect(key=directions.SIDEBAR_KEY).value == ["Quality", "TER_jamo"]
    res, config = _results(at)
    assert config.given_lower_is_better == ("Quality", "TER_jamo")
    assert not res.higher_is_better("TER_jamo", "given") and res.higher_is_better("COMET", "given")
    # correlations as computed: the error rates negative; shown as agreement (−TER_jamo) positive
    assert _segment_pearson(res, "TER_jamo") < -0.9 and _segment_pearson(res, "COMET") > 0.8
    view = views.correlation_view(res, "pearson", "none", agreement=True)
    shown = view[view["granularity"] == "segment"].set_index("shown_label")["shown"]
    assert shown["−TER_jamo"] > shown["COMET"] > 0 and shown["−Quality"] > 0
    accuracy = pairwise_accuracy_table(res).set_index("metric")["pairwise_accuracy"]
    assert accuracy["TER_jamo"] == 1.0 and accuracy["Quality"] == 1.0
    ranks = res.rankings[res.rankings["metric"] == "TER_jamo"]
    assert (ranks["metric_rank"] == ranks["human_rank"]).all()
    # the headline names the closest agreement first, the error rate read the right way round
    cards = re.sub(r"\\(.)", r"\1", " ".join(m.value for m in at.markdown))  # Markdown unescaped
    assert "**−TER_jamo " in cards
    assert not [w for w in at.warning if "declared *higher is better*" in w.value]


def test_a_negative_everywhere_higher_is_better_column_is_flagged_and_fixed():
    at = _upload_scores()  # Quality keeps its pre-fill (higher is better), though it is an error rate
    at.button(key="use_scores").click().run()
    at.switch_page("pages/scores.py").run()
    assert not at.exception
    flagged = [w.value for w in at.warning if "declared *higher is better*" in w.value]
    assert len(flagged) == 1 and "Quality" in flagged[0] and "TER" not in flagged[0]
    res, _ = _results(at)
    assert directions.inverted_metrics(res) == ["Quality"]
    assert pairwise_accuracy_table(res).set_index("metric")["pairwise_accuracy"]["Quality"] == 0.0
    at.button(key="given_dir_fix").click().run()
    assert not at.exception
    assert at.sidebar.multiselect(key=directions.SIDEBAR_KEY).value == ["Quality", "TER_jamo"]
    assert not [w for w in at.warning if "declared *higher is better*" in w.value]
    res, _ = _results(at)
    assert pairwise_accuracy_table(res).set_index("metric")["pairwise_accuracy"]["Quality"] == 1.0


def test_sidebar_prefills_from_the_names_when_data_arrive_without_the_prompt():
    given, human = _tables()
    from korean_eval.inputs.tables import given_only_evalset

    evalset = given_only_evalset(("human.csv", human), ("my_scores.csv", given))
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state[state.EVALSET_KEY] = evalset
    at.run()
    assert not at.exception
    assert at.sidebar.multiselect(key=directions.SIDEBAR_KEY).value == ["TER_jamo"]
    at.sidebar.multiselect(key=directions.SIDEBAR_KEY).unselect("TER_jamo").run()  # the user's choice is kept
    at.switch_page("pages/scores.py").run()
    assert at.sidebar.multiselect(key=directions.SIDEBAR_KEY).value == []
    assert pd.Series(directions.inverted_metrics(_results(at)[0])).tolist() == ["Quality", "TER_jamo"]
