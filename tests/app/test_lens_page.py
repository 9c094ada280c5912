"""The "Korean lens" page through Streamlit's AppTest: on the bundled sample its numbers equal the CSVs of
``python -m korean_eval profile`` with the same settings; on uploaded data it draws that data; without texts it
explains instead of failing (docs/design.md §8)."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.cli.main import main
from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.inputs.sample import load_sample
from korean_eval.lens.perturb import KINDS
from korean_eval.lens.pos_categories import CATEGORIES
from tests.support.apptest import (
    renamed_human,
    sample_uploads,
    tables,
    values,
)
from ui import lens_state, state, statistics_state
from ui.inputs import build_from_texts

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

APP = str(state.__file__).replace("ui/state.py", "app.py")
SETTINGS = {"level|mecab": False, "level|jamo": False, "metrics|sacrebleu": ["bleu", "chrf", "ter"]}  # word, kiwi, char


def lens_page(**session) -> AppTest:
    """A new session with ``session`` preset, opened on the lens page."""
    at = AppTest.from_file(APP, default_timeout=900)
    for key, value in {**SETTINGS, **session}.items():
        at.session_state[key] = value
    at.switch_page("pages/lens.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def figure(at: AppTest, title: str) -> dict:
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return next(f for f in figs if title in (f["layout"].get("title") or {}).get("text", ""))


@pytest.fixture(scope="module")
def cli_tables(tmp_path_factory):
    """The CSVs of ``profile`` on the sample with the page's settings. The CLI writes into the dashboard's disk
    cache (content-keyed: Kiwi's analyses, tokens, statistics), so the page reuses its leaf computations as it
    would a run of the same data before; a setting the page passed differently would miss the cache and show in
    the numbers."""
    out = tmp_path_factory.mktemp("profile")
    args = ["profile", "--levels", "word,kiwi,char", "--metrics", "bleu,chrf,ter", "--seed", str(statistics_state.SEED),
            "--bootstrap", str(statistics_state.N_RESAMPLES), "--out", str(out), "--quiet",
            "--cache-dir", str(state.disk_cache().directory)]
    with pytest.MonkeyPatch.context() as mp:  # the CLI makes --cache-dir the process's cache directory
        mp.setenv("KOREAN_EVAL_CACHE_DIR", os.environ["KOREAN_EVAL_CACHE_DIR"])
        assert main(args) == 0
    return out


def test_the_page_on_the_sample_shows_the_numbers_of_the_cli(cli_tables):
    at = lens_page()
    config = at.session_state[state.SETTINGS_KEY].config
    assert config.levels == ("word", "kiwi", "char") and config.metrics == ("bleu", "chrf", "ter")
    result = lens_state._store().get(lens_state.lens_key(load_sample(), config, True))
    for name, frame in result.tables().items():
        assert (cli_tables / name).read_bytes() == to_csv_bytes(frame), name
    # the drawn probe heatmap holds probe.csv's relative_to_drop in every cell
    probe = pd.read_csv(cli_tables / "probe.csv")
    fig = figure(at, "Which metric × level notices which error")
    z = np.array(values(fig["data"][0]["z"]), dtype=float)
    assert z.shape == (9, len(KINDS))
    expected = probe.set_index(["kind", "metric", "level"])["relative_to_drop"]
    rows = [(m, lv) for m in ("bleu", "chrf", "ter") for lv in ("word", "kiwi", "char")]
    for i, (metric, level) in enumerate(rows):
        for j, kind in enumerate(KINDS):
            assert z[i, j] == pytest.approx(expected[(kind, metric, level)], abs=1e-12)
    assert fig["data"][0]["y"][0] == "BLEU · word" and len(fig["data"][0]["x"]) == len(KINDS)
    # the profile heatmap holds profile.csv's F1 of every whole category
    profile = pd.read_csv(cli_tables / "profile.csv")
    whole = profile[profile["subcategory"] == "all"].set_index(["system", "category"])["f1"]
    heat = figure(at, "Error profile: F1")
    grid = np.array(values(heat["data"][0]["z"]), dtype=float)
    for i, system in enumerate(heat["data"][0]["y"]):
        for j, category in enumerate(CATEGORIES):
            assert grid[i, j] == pytest.approx(whole[(system, category)], abs=1e-12, nan_ok=True)
    assert any("SIMULATED" in i.value for i in at.info)
    text = " ".join(m.value for m in at.markdown)
    assert "punishes it most" in text and "R² =" in text
    assert "background[" in text  # differing morphemes highlighted in the examples
    # the tables as text that fits: the profile table holds profile.csv's F1 with 3 decimals, "—" where undefined
    shown = next(t for t in tables(at) if "subcategory" in t.columns)
    assert len(shown) == len(profile) and shown["f1"].str.match(r"^(\d\.\d{3}|—)$").all()
    assert list(shown["f1"]) == [f"{v:.3f}" if v == v else "—" for v in profile["f1"]]
    assert not any(str(v) in ("None", "nan", "") for t in tables(at) for v in t.to_numpy().ravel())


def test_switching_values_and_cells_reuses_the_result(monkeypatch):
    calls = []
    original = lens_state.run_lens

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(lens_state, "run_lens", counting)
    at = lens_page()
    at.segmented_control(key="lens_probe_value").set_value("mean_penalty")
    at.selectbox(key="lens_kind").set_value("spacing")
    at.selectbox(key="lens_level").set_value("char")
    at.segmented_control(key="lens_profile_value").set_value("errors_per_segment").run()  # all four: one rerun
    assert not at.exception and not at.error
    assert figure(at, "mean penalty") and figure(at, "errors per segment")
    assert calls == []  # computed by the first test, reused from the store


def test_the_page_draws_uploaded_data():
    refs, systems, _human = sample_uploads()
    names = [f"mt_{i}" for i in range(len(systems))]
    evalset = build_from_texts(refs, systems, names, renamed_human(names))
    at = lens_page(**{state.EVALSET_KEY: evalset, state.SOURCE_KEY: "my upload", "level|kiwi": False,
                      "metrics|sacrebleu": ["chrf"]})
    assert not any("SIMULATED" in i.value for i in at.info)
    heat = figure(at, "Error profile")
    assert heat["data"][0]["y"] == names
    probe = figure(at, "Which metric × level notices which error")
    assert np.array(values(probe["data"][0]["z"])).shape == (2, len(KINDS))  # chrF at word and char


def test_scores_without_texts_are_explained():
    evalset = load_sample()
    evalset.refs = []
    at = lens_page(**{state.EVALSET_KEY: evalset, state.SOURCE_KEY: "scores only"})
    assert any("without texts" in i.value for i in at.info)
