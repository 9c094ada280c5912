"""The Tokens page's segment demonstration through Streamlit's AppTest, on the bundled sample (word, kiwi, char): a
segment and a system picked from the data, both sides labelled, one score per level × metric equal to the
evaluation's own segment scores; a typed pair scored as the backend scores it; the lens's probe one click away."""

from __future__ import annotations

import re

import pytest

from korean_eval.inputs.sample import load_sample
from korean_eval.lens.segment_levels import SEGMENT_METRICS, segment_level_scores
from tests.support.apptest import assert_clean, figures, run_app, sample_results, tables
from ui import token_demo

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

LEVELS = ["word", "kiwi", "char"]  # tests.support.apptest.FAST
SEGMENT = 7


def _text(at) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(m.value for m in at.markdown)).replace("**", "")


def _tidy(at):
    return next(t for t in tables(at) if {"metric", "score", "signature"} <= set(t.columns))


def _chart(at) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("This pair's scores"))


@pytest.fixture(scope="module")
def picked():
    """The page with segment :data:`SEGMENT` and the sample's third system picked."""
    at = run_app("pages/tokens.py")
    system = list(load_sample().systems)[2]
    at.selectbox(key="tok_seg").set_value(SEGMENT).run()
    at.selectbox(key="tok_system").set_value(system).run()
    assert_clean(at)
    return at, system


def test_a_picked_segment_is_labelled_and_scored_per_level_and_metric(picked):
    at, system = picked
    sample = load_sample()
    text = _text(at)
    assert f"Reference · {sample.refs[0][SEGMENT]}" in text
    assert f"Hypothesis (system {system}) · {sample.systems[system][SEGMENT]}" in text
    tidy = _tidy(at)
    assert len(tidy) == len(LEVELS) * len(SEGMENT_METRICS)
    assert list(zip(tidy["level"], tidy["metric"], strict=True)) == [
        (lv, m) for lv in LEVELS for m in ("BLEU", "chrF", "chrF++", "TER")]
    assert (tidy[tidy["metric"] == "TER"]["direction"] == "lower is better").all()
    side = next(t for t in tables(at) if "TER ↓" in t.columns)
    assert len(side) == len(LEVELS) and {"BLEU ↑", "chrF ↑", "chrF++ ↑"} <= set(side.columns)
    # the reference's tokens first, then the hypothesis's
    first, second = tables(at)[:2]
    assert [lv.split(" ·")[0].strip("*") for lv in first["level"]] == LEVELS == [
        lv.split(" ·")[0].strip("*") for lv in second["level"]]
    assert int(first.set_index(first["level"].str.extract(r"\*\*(\w+)\*\*")[0])["count"]["char"]) == len(
        "".join(sample.refs[0][SEGMENT].split()))


def test_the_scores_are_the_evaluations_segment_scores(picked):
    at, system = picked
    seg_id = load_sample().seg_ids[SEGMENT]
    engine = sample_results(at).segment_scores
    engine = engine[(engine["system"] == system) & (engine["seg_id"] == seg_id)].set_index(["level", "metric"])
    labels = {"BLEU": "bleu", "chrF": "chrf", "chrF++": "chrf++", "TER": "ter"}
    for level, metric, score in _tidy(at)[["level", "metric", "score"]].itertuples(index=False):
        if (level, labels[metric]) in engine.index:
            assert float(score) == pytest.approx(engine.loc[(level, labels[metric]), "score"], abs=0.005)


def test_chart_has_a_labelled_panel_per_metric_and_ter_as_an_error_rate(picked):
    at, _ = picked
    fig = _chart(at)
    assert len(fig["data"]) == len(SEGMENT_METRICS)
    headers = [a["text"] for a in fig["layout"]["annotations"]]
    assert headers[-1].startswith("<b>TER</b>") and "lower is better" in headers[-1]
    assert all("higher is better" in h for h in headers[:-1])
    assert fig["layout"]["yaxis4"]["title"]["text"] == "TER (edits / 100 ref. tokens)"
    assert fig["layout"]["yaxis"]["title"]["text"] == "BLEU (0–100)"
    for trace in fig["data"]:
        assert list(trace["x"]) == LEVELS and "tokens" in trace["hovertemplate"]
    captions = " ".join(c.value for c in at.caption)
    assert "Plain chrF ignores whitespace" in captions and "TER is an error rate" in captions


def test_signatures_are_shown_beside_the_scores(picked):
    at, _ = picked
    sigs = next(t for t in tables(at) if "sacrebleu signature (sentence level)" in t.columns)
    by_metric = dict(zip(sigs["metric"], sigs["sacrebleu signature (sentence level)"], strict=True))
    assert by_metric["BLEU"].startswith("nrefs:1|case:mixed|eff:yes|tok:none|smooth:exp|version:")
    assert "nw:2" in by_metric["chrF++"] and "tok:tercom" in by_metric["TER"]
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))
    assert "kiwi: `level:kiwi-" in captions and "char: `level:char-1`" in captions


def test_the_lens_probe_is_one_click_away(picked):
    at, _ = picked
    links = [link.proto for link in at.get("page_link")]
    assert any(link.page == "lens" and "Perturbation probe" in link.label for link in links)


def test_a_typed_pair_is_scored_as_the_backend_scores_it():
    at = run_app("pages/tokens.py")
    at.segmented_control(key="tok_mode").set_value("Type a sentence").run()
    ref, hyp = "나는 어제 학교에 갔다.", "어제 나는 학교로 갔어요."
    at.text_input(key="tok_text").set_value(ref).run()
    at.text_input(key="tok_hyp").set_value(hyp).run()
    assert_clean(at)
    text = _text(at)
    assert f"Reference · {ref}" in text and f"Hypothesis (typed) · {hyp}" in text
    want = segment_level_scores(ref, hyp, LEVELS)
    got = _tidy(at)
    assert got["score"].to_list() == [f"{v:.2f}" for v in want["score"]]
    assert got["signature"].to_list() == want["signature"].to_list()


def test_defaults_score_a_pair_that_differs_at_every_level():
    frame = segment_level_scores(token_demo.DEFAULT_REFERENCE, token_demo.DEFAULT_HYPOTHESIS, LEVELS)
    chrf = frame[frame["metric"] == "chrf"].set_index("level")["score"]
    assert chrf["word"] == chrf["char"] != chrf["kiwi"]  # plain chrF moves only where Kiwi lemmatises
