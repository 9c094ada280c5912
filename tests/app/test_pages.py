"""The dashboard through Streamlit's AppTest: every page on the bundled sample, settings that change the charts,
data injected as the Data page would (AppTest cannot drive a file uploader, so the "uploaded bytes → EvalSet" step
is tested directly in ``ui.inputs`` and its result put into session state).

Runs use three token levels (word, kiwi, char) to stay fast; numbers are checked against independent computations
(scipy, sacrebleu through the backend's own tables only where the page merely displays them).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from streamlit.testing.v1 import AppTest

from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.sample import load_sample
from korean_eval.model.evalset import InputError
from tests.support.apptest import (
    APP,
    FAST,
    METRIC_OF_LABEL,
    assert_clean,
    bar_points,
    figure_titled,
    figures,
    renamed_human,
    run_app,
    sample_results,
    sample_uploads,
    significance_figure,
    tables,
    values,
)
from ui import formats, state, views
from ui.inputs import (
    TableRoles,
    Upload,
    build_from_table,
    build_from_texts,
    guess_table_roles,
    with_human_scores,
)
from ui.widgets import md_escape

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


# ------------------------------------------------------------------------------------------ Correlations


def test_first_screen_shows_correlation_charts_on_the_sample():
    at = run_app()
    figs = figures(at)
    titles = [f["layout"]["title"]["text"] for f in figs]
    assert titles[0].startswith("Segment level") and titles[1].startswith("System level")
    seg = bar_points(figs[0])
    assert {lv for _, lv in seg} == {"word", "kiwi", "char"}
    assert {m for m, _ in seg} == {"BLEU", "chrF", "chrF+", "chrF++", "−TER"}
    assert all(np.isfinite(v) for v in seg.values())
    assert figs[0]["layout"]["yaxis"]["title"]["text"] == "Pearson r with humans"
    # simulated human scores are said to be simulated
    assert any("SIMULATED" in i.value for i in at.info)
    # highest level per metric in words (untested: never "best"), and TER's sign explained
    text = re.sub(r"\\(.)", r"\1", " ".join(m.value for m in at.markdown))
    assert "highest agreement at the" in text and "agrees best" not in text
    # an error rate is named as the charts and the significance matrix name it: −TER, its agreement −r
    assert re.search(r"−TER: highest agreement at the \w+ level \(−r = \d\.\d{3}\)", text), text
    assert "Error rates (TER), lower is better" in text
    assert "Plain chrF ignores whitespace" in text
    # headline cards: the top significance cluster per level, and the metric whose level matters most
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))
    assert "Segment level" in captions and "System level · 5 systems" in captions
    assert "Token level matters most for" in captions
    assert "Only 5 systems: too few to call a winner" in text
    # PNG download configured in the Plotly toolbar
    config = json.loads(at.get("plotly_chart")[0].proto.config)
    assert config["toImageButtonOptions"]["format"] == "png"


def test_segment_correlation_matches_scipy():
    """The plotted segment-level Pearson r of BLEU at char is scipy's over the (system, segment) pairs."""
    at = run_app()
    seg = bar_points(figures(at)[0])
    evalset = load_sample()
    res = state._store().get(state.results_key(evalset, at.session_state[state.SETTINGS_KEY].config))
    scores = res.segment_scores.query("level == 'char' and metric == 'bleu'")
    merged = scores.merge(evalset.human, on=["system", "seg_id"], suffixes=("_m", "_h"))
    expected = sps.pearsonr(merged["score_m"], merged["score_h"]).statistic
    assert seg[("BLEU", "char")] == pytest.approx(expected, abs=1e-9)
    # TER is plotted as agreement: −r
    ter = res.segment_scores.query("level == 'char' and metric == 'ter'").merge(
        evalset.human, on=["system", "seg_id"], suffixes=("_m", "_h")
    )
    assert seg[("−TER", "char")] == pytest.approx(-sps.pearsonr(ter["score_m"], ter["score_h"]).statistic, abs=1e-9)


def test_display_settings_update_charts_without_recomputing(monkeypatch):
    calls = []
    original = state.evaluate

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(state, "evaluate", counting)
    at = run_app(ter_cap=True, **{"level|kiwi": False})  # settings no other test uses: computed here, once
    assert len(calls) == 1
    pearson = bar_points(figures(at)[0])

    at.radio(key="statistic").set_value("kendall").run()
    assert_clean(at)
    fig = figures(at)[0]
    assert fig["layout"]["yaxis"]["title"]["text"] == "Kendall τ-b with humans"
    kendall = bar_points(fig)
    assert kendall.keys() == pearson.keys() and kendall != pearson

    at.selectbox(key="grouping").set_value("item").run()
    assert "grouping: item" in figures(at)[0]["layout"]["title"]["text"]
    item = bar_points(figures(at)[0])
    assert item.keys() == kendall.keys() and item != kendall
    at.toggle(key="corr_agree").set_value(False).run()
    raw = bar_points(figures(at)[0])
    assert ("TER", "word") in raw and raw[("TER", "word")] < 0

    at.switch_page("pages/scores.py").run()
    at.switch_page("pages/correlations.py").run()
    assert_clean(at)
    assert len(calls) == 1, "display options and page switches must not recompute"


def _apply_levels(at) -> None:
    next(b for b in at.sidebar.button if b.label.startswith("Apply")).click().run()


def test_changing_token_levels_recomputes_and_redraws():
    at = run_app()
    at.checkbox(key="level|kiwi").uncheck().run()
    assert {lv for _, lv in bar_points(figures(at)[0])} == {"word", "kiwi", "char"}  # until Apply
    _apply_levels(at)
    assert_clean(at)
    assert {lv for _, lv in bar_points(figures(at)[0])} == {"word", "char"}
    at.checkbox(key="level|jamo").check().run()
    _apply_levels(at)
    assert {lv for _, lv in bar_points(figures(at)[0])} == {"word", "char", "jamo"}


def _spm_model_from_hypotheses() -> bytes:
    """A small SentencePiece model trained on one system's hypotheses (so its pieces differ from the default's)."""
    from korean_eval.levels.registry import SpmLevel

    evalset = load_sample()
    hyps = [h for h in next(iter(evalset.systems.values())) if h]
    return SpmLevel(vocab_size=600).fit(hyps)._model_bytes


def test_uploaded_sentencepiece_model_is_used_for_the_spm_level():
    levels = {"level|kiwi": False, "level|char": False, "level|spm": True}
    at = run_app(**levels)
    assert at.session_state[state.SETTINGS_KEY].config.spm_model is None
    trained = bar_points(figures(at)[0])  # SentencePiece trained on the references
    model = _spm_model_from_hypotheses()
    at.sidebar.file_uploader(key="spm_model_upload").set_value(("my_mt.model", model, "application/octet-stream"))
    at.run()
    assert_clean(at)
    config = at.session_state[state.SETTINGS_KEY].config
    assert config.spm_model == model
    assert at.number_input(key="spm_vocab").disabled
    assert any(md_escape("my_mt.model") in c.value and "pieces" in c.value for c in at.sidebar.caption)
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.model.config import EvalConfig

    res = evaluate(load_sample(), EvalConfig(levels=("word", "spm"), metrics=config.metrics, spm_model=model))
    expected = res.correlations.query(
        "level == 'spm' and metric == 'bleu' and granularity == 'segment' and statistic == 'pearson' "
        "and grouping == 'none'"
    )["value"].item()
    seg = bar_points(figures(at)[0])
    assert seg[("BLEU", "spm")] == pytest.approx(expected, abs=1e-12)
    assert seg[("BLEU", "spm")] != trained[("BLEU", "spm")]
    assert seg[("BLEU", "word")] == trained[("BLEU", "word")]


def test_a_file_that_is_not_a_sentencepiece_model_is_refused_by_name():
    at = run_app(**{"level|kiwi": False, "level|char": False, "level|spm": True})
    at.sidebar.file_uploader(key="spm_model_upload").set_value(("notes.model", b"not a model", "text/plain"))
    at.run()
    assert not at.exception
    assert any(
        md_escape("notes.model") in e.value and "not a SentencePiece model" in e.value for e in at.error
    ), [e.value for e in at.error]
    assert at.session_state[state.SETTINGS_KEY].config.spm_model is None
    assert len(figures(at)) >= 2  # the evaluation still runs, with the model trained on the references


def test_unavailable_level_is_shown_disabled_with_its_reason():
    at = run_app()
    khaiii = at.checkbox(key="level|khaiii")
    assert khaiii.disabled and not khaiii.value
    assert "PyPI" in khaiii.help
    assert any("khaiii is unavailable" in c.value for c in at.sidebar.caption)


def test_metric_selection_and_overrides_feed_the_config():
    at = run_app(**{"metrics|sacrebleu": ["bleu", "chrf"], "ovr|word|bleu|max_ngram_order": 2})
    config = at.session_state[state.SETTINGS_KEY].config
    assert config.metrics == ("bleu", "chrf")
    assert config.overrides == {"word": {"bleu": {"max_ngram_order": 2}}}
    assert {m for m, _ in bar_points(figures(at)[0])} == {"BLEU", "chrF"}
    # the BLEU-2 system scores differ from BLEU-4's
    default = run_app(**{"metrics|sacrebleu": ["bleu", "chrf"]})
    assert bar_points(figures(at)[1])[("BLEU", "word")] != bar_points(figures(default)[1])[("BLEU", "word")]
    assert bar_points(figures(at)[1])[("BLEU", "char")] == bar_points(figures(default)[1])[("BLEU", "char")]


def test_extended_metric_group_draws_all_six_at_every_level():
    """The "extended" group toggle gives the six extended metrics, same charts as the sacrebleu group.
    At the word and char levels: the group's wiring (toggle → config → charts) does not depend on the levels, and the
    extended metrics at a morpheme level are tests/unit/metrics/test_extended_metrics.py's."""
    at = run_app(**{"metric_groups": ["extended"], "level|kiwi": False})
    config = at.session_state[state.SETTINGS_KEY].config
    assert config.metrics == ("nltk-bleu", "gleu", "nist", "ribes", "character", "eed")
    segment, system = figures(at)[0], figures(at)[1]
    for fig in (segment, system):
        points = bar_points(fig)
        assert len({m for m, _ in points}) == 6
        assert {lv for _, lv in points} == {"word", "char"}
        assert all(np.isfinite(v) for v in points.values())
    assert not any("not installed" in c.value for c in at.caption)


def test_confidence_intervals_draw_error_bars_and_compare_two():
    at = run_app(corr_ci=True, corr_compare=True)  # the comparison: tested once its expander is open
    fig = figures(at)[0]
    bars = [t for t in fig["data"] if t.get("error_y")]
    assert bars and all(np.isfinite(values(t["error_y"]["array"])).all() for t in bars)
    verdicts = [e.value for e in (*at.success, *at.info) if "correlates more strongly" in e.value]
    assert verdicts


# -------------------------------------------------------------------------------------- other pages


def test_scores_and_rankings_page():
    at = run_app("pages/scores.py")
    assert any("not comparable across token levels" in w.value for w in at.warning)
    assert any("SIMULATED" in i.value for i in at.info)
    figs = figures(at)
    assert figs[0]["layout"]["title"]["text"].startswith("System ranking: humans vs BLEU")
    assert figure_titled(at, "Flipped system pairs")
    bleu = tables(at)[0].set_index("system")  # the BLEU tab of the Table-4 view
    assert list(bleu.columns) == ["Human", "word", "kiwi", "char"]
    # cells "score  (rank)", rank 1 = highest BLEU
    evalset = load_sample()
    res = state._store().get(state.results_key(evalset, at.session_state[state.SETTINGS_KEY].config))
    word = res.system_scores.query("level == 'word' and metric == 'bleu'").set_index("system")["score"]
    best = word.idxmax()
    assert bleu.loc[best, "word"] == f"{word[best]:.2f} (1)"
    human = res.human_systems.set_index("system")
    top = human["human_rank"].idxmin()
    assert bleu.loc[top, "Human"] == f"{human.loc[top, 'human_mean']:.2f} (1)"  # human means: 2 decimals, rank integer
    chrf = tables(at)[1].set_index("system")  # the chrF tab: its own scores
    chrf_word = res.system_scores.query("level == 'word' and metric == 'chrf'").set_index("system")["score"]
    assert chrf.loc[best, "word"].startswith(f"{chrf_word[best]:.2f} (")
    at.selectbox(key="rank_metric").set_value("chrf++").run()
    assert "chrF++" in figures(at)[0]["layout"]["title"]["text"]
    signatures = tables(at)[-1]
    assert signatures["signature"].str.contains("level:").all()


def test_score_table_marks_rank_disagreements():
    res = _results()
    scores, ranks, differs = views.score_table(res, "bleu")
    human = res.human_systems.set_index("system")["human_rank"]
    for level in ["word", "char"]:
        expected = ranks[level] != human.reindex(ranks.index)
        assert (differs[level] == expected).all()
    assert not differs["Human"].any()


def test_segments_page():
    at = run_app("pages/segments.py")
    fig = figures(at)[0]
    assert fig["data"] and all(t["mode"] == "markers" for t in fig["data"])
    table = tables(at)[0]
    assert (table["difference"].astype(float).abs().diff().dropna() <= 1e-12).all()  # largest disagreement first
    assert table["difference"].str.match(r"^[+-]\d\.\d\d$").all() and table["human"].str.match(r"^-?\d+\.\d\d$").all()
    assert (table["reference"].str.replace(r"\s", "", regex=True).str.len() >= 10).all()  # the default minimum length
    at.selectbox(key="seg_metric").set_value("ter").run()
    assert_clean(at)
    assert "TER" in figures(at)[0]["layout"]["title"]["text"]


def test_disagreement_definition():
    res = _results()
    evalset = load_sample()
    table = views.disagreements(res, evalset, "char", "ter")
    merged = res.segment_scores.query("level == 'char' and metric == 'ter'").merge(
        evalset.human, on=["system", "seg_id"], suffixes=("_m", "_h")
    )
    assert len(table) == len(merged)
    n = len(merged)
    expected = sps.rankdata(-merged["score_m"]) / n - sps.rankdata(merged["score_h"]) / n
    got = table.set_index(["system", "seg_id"])["difference"]
    want = pd.Series(expected, index=pd.MultiIndex.from_frame(merged[["system", "seg_id"]]))
    assert np.allclose(got.reindex(want.index), want)


def test_tokens_page_side_by_side_and_typed_sentence():
    at = run_app("pages/tokens.py")
    table = tables(at)[0]
    assert len(table) == 3 and [lv.split(" ·")[0].strip("*") for lv in table["level"]] == ["word", "kiwi", "char"]
    assert len(figures(at)) >= 2  # tokens per word, metric timings
    at.segmented_control(key="tok_mode").set_value("Type a sentence").run()
    at.text_input(key="tok_text").set_value("나는 학교에 갔다.").run()
    assert_clean(at)
    side = tables(at)[0]
    counts = dict(zip([lv.split(" ·")[0].strip("*") for lv in side["level"]], side["count"].astype(int), strict=True))
    assert counts["char"] == len("나는학교에갔다.")
    assert counts["word"] == 4  # 13a splits the final full stop off


def test_data_page_shows_validation_report_and_preview():
    at = run_app("pages/data.py")
    labels = {m.label: m.value for m in at.metric}
    assert labels["segments"] == "120" and labels["systems"] == "5"
    assert any("SIMULATED" in i.value for i in at.info)
    preview = tables(at)[-1]
    first = next(iter(load_sample().systems))
    assert {"seg_id", "source", "reference", first} <= set(preview.columns) and len(preview.columns) == 3 + 3
    overview = next(t for t in tables(at) if "mean human score" in t.columns)
    assert overview["mean human score"].str.match(r"^-?\d+\.\d\d$").all()  # 2 decimals, as on every page


def test_downloads_page_offers_every_table_and_a_zip():
    at = run_app("pages/downloads.py")
    labels = [b.label for b in at.get("download_button")]
    assert labels[0] == "All results as one zip"
    for name in ["segment_scores.csv", "system_scores.csv", "correlations.csv", "rankings.csv", "flipped_pairs.csv",
                 "token_stats.csv", "timings.csv", "human_scores.csv"]:
        assert any(label.startswith(name) for label in labels), name


# ------------------------------------------------------------------------------------------- uploads


def test_uploaded_text_files_become_the_data_of_every_page():
    refs, systems, human = sample_uploads()
    names = [f"mt_{i}" for i in range(len(systems))]
    evalset = build_from_texts(refs, systems, names, renamed_human(names))
    assert evalset.system_names == names and evalset.human is not None and evalset.human_note == ""
    at = run_app(**{state.EVALSET_KEY: evalset, state.SOURCE_KEY: "my upload"})
    assert not any("SIMULATED" in i.value for i in at.info)
    assert any("my upload" in c.value for c in at.sidebar.caption)
    at.switch_page("pages/scores.py").run()
    assert_clean(at)
    assert set(tables(at)[0]["system"]) == set(names)


def test_upload_errors_name_file_and_line():
    refs, systems, _ = sample_uploads()
    short = Upload("short.txt", b"\n".join(systems[0].data.splitlines()[:5]))
    with pytest.raises(InputError, match="short.txt.*line"):
        build_from_texts(refs, [short])
    with pytest.raises(InputError, match="duplicate system name"):
        build_from_texts(refs, systems[:2], ["same", "same"])


STUDY_LIKE = (
    "worker,DocID,SentID,Sys,Src,Ref,Hyp,Adequacy,Z_adequacy\n"
    "1,1,1,Sys_A,a,나는 학교에 갔다.,나는 학교에 갔다.,90,0.8\n"
    "2,1,1,Sys_B,a,나는 학교에 갔다.,나 학교 갔다.,40,-0.7\n"
    "1,1,2,Sys_A,b,비가 온다.,비가 온다.,95,0.9\n"
    "2,1,2,Sys_B,b,비가 온다.,비 온다,50,-0.5\n"
).encode()


def test_long_table_with_composite_segment_id_and_human_column():
    up = Upload("doc.csv", STUDY_LIKE)
    columns = ["worker", "DocID", "SentID", "Sys", "Src", "Ref", "Hyp", "Adequacy", "Z_adequacy"]
    guess = guess_table_roles(columns)
    assert guess["system"] == ("Sys",) and guess["seg_id"] == ("DocID", "SentID")
    assert guess["hyp"] == ("Hyp",) and guess["ref"] == ("Ref",) and guess["src"] == ("Src",)
    roles = TableRoles("Sys", ("DocID", "SentID"), "Hyp", ("Ref",), "Src", "Z_adequacy")
    evalset = build_from_table(up, roles)
    assert evalset.seg_ids == ["1-1", "1-2"]
    assert evalset.systems["Sys_B"] == ["나 학교 갔다.", "비 온다"]
    human = evalset.human.set_index(["system", "seg_id"])["score"]
    assert human[("Sys_B", "1-2")] == pytest.approx(-0.5)
    with pytest.raises(InputError, match="two roles"):
        build_from_table(up, TableRoles("Sys", ("DocID",), "Hyp", ("Hyp",)))
    with pytest.raises(InputError, match="seg_id"):
        build_from_table(up, TableRoles("Sys", (), "Hyp", ("Ref",)))


def test_qc_item_scores_replace_the_human_scores():
    rows = []
    for rater in ("r1", "r2"):
        for seg in range(120):
            for k, system in enumerate(("sys_strong", "sys_josa", "sys_weak")):
                rows.append({"worker": rater, "SentID": seg, "Sys": system, "Adequacy": 90 - 40 * k + (seg % 7)})
    judgments = pd.DataFrame(rows)
    result = run_qc(judgments, QCOptions(drop_first=0, iqr_k=None))
    sample = load_sample()
    updated = with_human_scores(sample, result.item_scores, "judgments.csv")
    assert updated.human_note == "" and sample.human_note  # the cached sample is untouched
    assert len(updated.human) == 360
    expected = result.item_scores.set_index(["system", "seg_id"])["score"]
    got = updated.human.set_index(["system", "seg_id"])["score"]
    assert np.allclose(got.reindex(expected.index), expected)
    at = run_app(**{state.EVALSET_KEY: updated, state.SOURCE_KEY: "QC"})
    sys_fig = figures(at)[1]
    bars = [t for t in sys_fig["data"] if t.get("name") != "top significance cluster"]  # not its outline
    assert {row[2] for t in bars for row in t["customdata"]} == {3}  # 3 systems have human scores


def test_no_human_scores_is_explained_not_an_error():
    refs, systems, _ = sample_uploads()
    evalset = build_from_texts(refs, systems)
    at = run_app(**{state.EVALSET_KEY: evalset})
    assert not figures(at)
    assert any("no human scores" in i.value for i in at.info)
    at.switch_page("pages/segments.py").run()
    assert_clean(at)
    at.switch_page("pages/scores.py").run()
    assert_clean(at)
    assert len(at.table) >= 3


def test_own_metric_scores_are_plotted_as_given():
    refs, systems, human = sample_uploads()
    sample = load_sample()
    rng = np.random.default_rng(0)
    h = sample.human
    given = pd.DataFrame({"system": h["system"], "seg_id": h["seg_id"], "COMET": h["score"] / 100 + rng.normal(0, 0.05, len(h))})
    evalset = build_from_texts(refs, systems, None, human, Upload("comet.csv", given.to_csv(index=False).encode()))
    at = run_app(**{state.EVALSET_KEY: evalset})
    seg = bar_points(figures(at)[0])
    assert ("COMET", "given") in seg and seg[("COMET", "given")] > 0.9


def test_user_text_is_escaped_in_charts_and_markdown():
    refs, systems, human = sample_uploads()
    names = ["<b>bold</b>", *[f"s{i}" for i in range(1, len(systems))]]
    evalset = build_from_texts(refs, systems, names, renamed_human(names))
    at = run_app("pages/scores.py", **{state.EVALSET_KEY: evalset})
    spec = at.get("plotly_chart")[0].proto.spec
    assert "&lt;b&gt;bold&lt;" in spec and "<b>bold" not in spec
    assert md_escape("[x](http://e) *y*") == r"\[x\]\(http\://e\) \*y\*"
    assert re.sub(r"\\(.)", r"\1", md_escape(":red[a] $x$")) == ":red[a] $x$"


def test_backend_error_becomes_a_message(monkeypatch):
    def failing(*args, **kwargs):
        raise ValueError("ref.txt, line 3: cannot be <scored>")

    monkeypatch.setattr(state, "evaluate", failing)
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {**FAST, "ter_cap": True, "level|char": False}.items():  # settings no other test computes
        at.session_state[key] = value
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_escape("ref.txt, line 3: cannot be <scored>")]
    assert not figures(at)


# ------------------------------------------------------------------------------------------- helpers


_RESULTS = {}


def _results():
    if "r" not in _RESULTS:
        from korean_eval.engine.pipeline import evaluate
        from korean_eval.model.config import EvalConfig

        _RESULTS["r"] = evaluate(load_sample(), EvalConfig(levels=("word", "char")))
    return _RESULTS["r"]


# ------------------------------------------------------------------------------- statistics a reviewer accepts

PAIR_LABELS = {
    "agree",
    "flipped",
    "flipped, neither significant",
    "metric significant, humans not",
    "humans significant, metric not",
}


def test_significance_matrix_is_behind_a_button_then_drawn_with_clusters(monkeypatch):
    from korean_eval.metaeval.tables import significance
    at = run_app()
    assert significance_figure(at) is None  # off by default: nothing computed
    calls = []
    original = significance.significance_table
    monkeypatch.setattr(significance, "significance_table", lambda *a, **k: calls.append(1) or original(*a, **k))
    at.button(key="sig_compute").click().run()
    assert_clean(at)
    fig = significance_figure(at)
    assert fig is not None and any("Pearson r, segment level" in c.value for c in at.caption)
    res = sample_results(at)
    table = original(res, "pearson", "segment", "none", n_permutations=1000, seed=12345, tests=("perm-inputs",))
    clusters = significance.rank_clusters_table(res, "pearson", "segment", "none", table=table)
    heat = fig["data"][0]
    z = np.array(values(heat["z"]), dtype=float)
    n = len(clusters)
    assert z.shape == (n, n) and np.isnan(np.diag(z)).all()
    # every off-diagonal cell is the one-sided p of "row agrees more than column", rows in cluster order
    order = list(clusters["config"])
    p = table.set_index(["config_a", "config_b"])["p_value"]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if i != j:
                assert z[i, j] == pytest.approx(p[(a, b)], abs=1e-12)
    # rank clusters: in the row labels and as a table, best (1) first, never decreasing
    rows = fig["layout"]["yaxis"]["ticktext"]  # "<rank>. [<cluster>] <configuration> (<agreement>)", all labelled
    assert fig["layout"]["yaxis"]["tickmode"] == "array" and len(rows) == n
    assert [int(y.split("[")[1].split("]")[0]) for y in rows] == list(clusters["cluster"])
    assert len(fig["layout"]["shapes"]) == clusters["cluster"].nunique()  # each cluster outlined
    shown = next(t for t in tables(at) if "cluster" in t.columns)
    clusters_shown = shown["cluster"].astype(int)
    assert list(clusters_shown) == sorted(clusters_shown) and clusters_shown.iloc[0] == 1
    assert list(clusters_shown) == sorted(set(clusters["cluster"].astype(int)))  # one row per cluster
    # one name per configuration: the matrix's rows and the cluster table write it alike (an error rate: −TER@…)
    row_names = [y.split("] ", 1)[1].rsplit(" (", 1)[0] for y in rows]
    members = [m.rsplit(" (", 1)[0] for cell in shown["configurations (agreement)"] for m in cell.split(", ")]
    assert row_names == members and any(name.startswith("−TER@") for name in row_names)
    assert any("1000 permutations, seed 12345" in c.value for c in at.caption)
    # settings change → a new matrix on request (never computed at the change); going back is served from the cache
    at.radio(key="sig_gran").set_value("system").run()
    assert significance_figure(at) is None
    at.button(key="sig_compute").click().run()
    assert significance_figure(at) is not None
    assert any("Pearson r, system level" in c.value for c in at.caption)
    before = len(calls)
    at.radio(key="sig_gran").set_value("segment").run()
    assert_clean(at)
    assert len(calls) == before, "a matrix computed before must come from the cache"
    # Williams test with a grouping: p undefined, said so (both set before one run: the permutation matrix of the
    # grouping is not what is checked here)
    at.selectbox(key="grouping").set_value("system")
    at.radio(key="sig_test").set_value("williams").run()
    at.button(key="sig_compute").click().run()
    assert_clean(at)
    assert any("Empty cells: p undefined" in c.value for c in at.caption)


def _pair_frame(at: AppTest) -> pd.DataFrame:
    """The system-pair table, with ``system a``/``system b`` split from its pair column and ``metric Δ``/``human Δ``
    (the difference) and ``… CI`` (the interval text) split from their cells."""
    table = next(t for t in tables(at) if "label" in t.columns and "pair (a vs b)" in t.columns)
    pair = table["pair (a vs b)"].str.split(" vs ", n=1)
    out = table.assign(**{"system a": pair.str[0], "system b": pair.str[1]})
    for side in ("metric", "human"):
        cell = table[f"{side} Δ (a − b) [95% CI]"].str.split(" ", n=1)
        out[f"{side} Δ (a − b)"] = cell.str[0].astype(float)
        out[f"{side} 95% CI"] = cell.str[1]
    return out


def test_system_pair_table_labels_and_human_test():
    at = run_app("pages/scores.py")
    table = _pair_frame(at)
    res = sample_results(at)
    n = len(res.systems)
    assert len(table) == 3 * n * (n - 1) // 2  # word, kiwi, char × every pair
    assert set(table["label"]) <= PAIR_LABELS
    # the metric difference is the difference of the reported system scores (BLEU is the default metric)
    sys_scores = res.system_scores.query("metric == 'bleu'").set_index(["level", "system"])["score"]
    for _, row in table.head(5).iterrows():
        expected = sys_scores[(row["level"], row["system a"])] - sys_scores[(row["level"], row["system b"])]
        assert row["metric Δ (a − b)"] == pytest.approx(expected, abs=0.005 + 1e-9)  # shown with 2 decimals
    # seeds and resample counts next to the results
    captions = " ".join(c.value for c in at.caption)
    assert "1000 resamples" in captions and "seed 12345" in captions
    bootstrap_p = table["human p"].to_numpy()
    assert table["human 95% CI"].str.match(r"^\[-?\d+\.\d{2}, -?\d+\.\d{2}\]$").all()
    assert table["metric p"].str.match(r"^(< 0\.001|\d\.\d{3})$").all()  # "< 0.001" at the bootstrap's floor 1/1001

    at.radio(key="pair_human_test").set_value("wilcoxon").run()
    assert_clean(at)
    wilcoxon = _pair_frame(at)
    assert set(wilcoxon["label"]) <= PAIR_LABELS
    assert list(wilcoxon["human p"]) != list(bootstrap_p)
    assert (wilcoxon["human 95% CI"] == "(rank-sum test: no interval)").all()  # rank-sum: no interval, and it says so
    assert "Wilcoxon rank-sum" in " ".join(c.value for c in at.caption)
    # independent check: scipy's rank-sum test on the two systems' human scores
    human = load_sample().human
    row = wilcoxon.iloc[0]
    a = human.loc[human["system"] == row["system a"], "score"]
    b = human.loc[human["system"] == row["system b"], "score"]
    assert row["human p"] == formats.p_value(sps.ranksums(a, b).pvalue)
    assert row["human Δ (a − b)"] == pytest.approx(a.mean() - b.mean(), abs=0.005 + 1e-9)
    # another metric: the table follows it
    at.selectbox(key="rank_metric").set_value("ter").run()
    assert_clean(at)
    assert set(_pair_frame(at)["label"]) <= PAIR_LABELS


def test_pair_label_filter_and_counts():
    at = run_app("pages/scores.py")
    counts = next(t for t in tables(at) if "agree" in t.columns and "level" in t.columns)
    assert list(counts["level"]) == ["word", "kiwi", "char"]
    table = _pair_frame(at)
    assert counts.drop(columns="level").to_numpy().sum() == (table["label"] != "undefined").sum()
    at.pills(key="pair_labels").set_value(["agree"]).run()
    assert set(_pair_frame(at)["label"]) <= {"agree", "undefined"}


def test_ranking_view_and_pairwise_accuracy():
    at = run_app("pages/scores.py")
    res = sample_results(at)
    human = load_sample().human.groupby("system")["score"].mean().sort_values(ascending=False)
    ranking = next(t for t in tables(at) if list(t.columns)[:1] == ["Human"])  # one row per position, best first
    assert list(ranking.columns) == ["Human", "word", "kiwi", "char"]
    assert [cell.split("(")[0].strip() for cell in ranking["Human"]] == list(human.index)
    bleu_char = res.system_scores.query("level == 'char' and metric == 'bleu'").sort_values("score", ascending=False)
    assert [cell.split("(")[0].strip() for cell in ranking["char"]] == list(bleu_char["system"])
    # pairwise accuracy: share of system pairs ordered as the human means order them, computed here from scratch
    fig = figure_titled(at, "Pairwise accuracy")
    bars = bar_points(fig)
    hm = human.to_dict()
    for (metric_shown, level), y in bars.items():
        metric = {"BLEU": "bleu", "chrF": "chrf", "chrF+": "chrf+", "chrF++": "chrf++", "TER": "ter"}[metric_shown]
        sc = res.system_scores.query("level == @level and metric == @metric").set_index("system")["score"].to_dict()
        sign = -1 if metric == "ter" else 1
        systems = sorted(sc)
        pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:]]
        good = sum(np.sign(sign * (sc[a] - sc[b])) == np.sign(hm[a] - hm[b]) != 0 for a, b in pairs)
        assert y == pytest.approx(good / len(pairs)), (metric, level)


def _statistic_value(corr: pd.DataFrame, statistic: str, shown: str, level: str, grouping: str = "none") -> float:
    mask = (corr["statistic"] == statistic) & (corr["grouping"] == grouping) & (corr["level"] == level)
    return float(corr.loc[mask & (corr["metric"] == METRIC_OF_LABEL[shown]), "value"].iloc[0])


def test_acc_eq_is_offered_with_spa_at_system_level_and_spa_beside_pairwise_accuracy():
    at = run_app()
    at.radio(key="statistic").set_value("acc_eq").run()
    assert_clean(at)
    res = sample_results(at)
    corr = res.correlations
    seg_fig, sys_fig = figures(at)[:2]
    assert seg_fig["layout"]["yaxis"]["title"]["text"].startswith("acc_eq")
    assert sys_fig["layout"]["yaxis"]["title"]["text"].startswith("SPA")
    for (shown, level), y in bar_points(seg_fig).items():  # acc_eq is agreement already: TER is not negated
        assert y == pytest.approx(_statistic_value(corr, "acc_eq", shown, level), abs=1e-12)
    for (shown, level), y in bar_points(sys_fig).items():
        assert y == pytest.approx(_statistic_value(corr, "spa", shown, level), abs=1e-12)
    # the headline states what the charts draw: acc_eq over all pairs has no test here (WMT's is by item, offered as
    # a choice), SPA ranks with WMT's test
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))
    assert "Not tested: WMT's test (mt-metrics-eval PairwisePermutationSigDiff) compares acc_eq grouped by item" in captions
    assert "mt-metrics-eval PermutationSigDiff" in captions
    at.segmented_control(key="headline_follows").set_value("acc_eq").run()
    assert_clean(at)
    seg_fig = figures(at)[0]
    assert "grouping: item" in seg_fig["layout"]["title"]["text"]
    for (shown, level), y in bar_points(seg_fig).items():  # the chart follows: WMT's acc_eq by item
        assert y == pytest.approx(_statistic_value(corr, "acc_eq", shown, level, "item"), abs=1e-12)
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))
    assert "grouping item (the system pairs of each segment, averaged over segments: WMT's official acc_eq)" in captions
    assert "PairwisePermutationSigDiff" in captions
    at.segmented_control(key="headline_follows").set_value("chart").run()
    at.switch_page("pages/scores.py").run()
    assert_clean(at)
    spa = bar_points(figure_titled(at, "Pairwise accuracy"), kind="scatter")
    assert len(spa) == len(res.segment_matrices)
    for (shown, level), y in spa.items():
        assert y == pytest.approx(_statistic_value(corr, "spa", shown, level), abs=1e-12)


def test_computed_statistics_are_offered_as_downloads():
    at = run_app("pages/scores.py")
    at.switch_page("pages/correlations.py").run()
    if any(b.key == "sig_compute" for b in at.button):  # not computed yet in this process
        at.button(key="sig_compute").click().run()
    at.switch_page("pages/downloads.py").run()
    assert_clean(at)
    labels = [b.label for b in at.get("download_button")]
    assert any(label.startswith("system_pairs_bleu_bootstrap.csv") for label in labels)
    assert any(label.startswith("correlations_with_ci.csv") for label in labels)  # the charts' intervals
    assert any(label.startswith("significance_pearson_segment_none_perm-inputs.csv") for label in labels)
    assert any(label.startswith("clusters_pearson_segment_none_perm-inputs.csv") for label in labels)
    assert any("seed 12345" in c.value for c in at.caption)
