"""The perturbation probe (docs/design.md §8): score changes come from the project's own pipeline and equal sacrebleu
called directly; summaries are the means of the segment changes; segments where a kind cannot apply are counted."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from korean_eval.engine.cache import NullCache
from korean_eval.engine.pipeline import evaluate
from korean_eval.inputs.sample import load_sample
from korean_eval.lens.analysis import analyse, kiwi_tokens
from korean_eval.lens.perturb import KINDS, SEVERE_KIND
from korean_eval.lens.probe import UNPERTURBED, probe_evalset, run_probe
from korean_eval.levels.registry import KiwiLevel
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet

CONFIG = EvalConfig(levels=("word", "kiwi", "char"), metrics=("bleu", "chrf", "ter"))
SEED = 7


@pytest.fixture(scope="module")
def evalset() -> EvalSet:
    sample = load_sample()
    n = 24
    return EvalSet(seg_ids=sample.seg_ids[:n], refs=[sample.refs[0][:n]], systems={"A": sample.refs[0][:n]})


@pytest.fixture(scope="module")
def probe(evalset):
    return run_probe(evalset, CONFIG, seed=SEED)


def test_changes_equal_sacrebleu_called_directly(probe):
    seg = probe.segments
    chars = seg[(seg["level"] == "char") & (seg["metric"] == "chrf")]
    rows = probe.perturbations.set_index(["kind", "seg_id"])
    for kind, seg_id, change in chars[["kind", "seg_id", "change"]].itertuples(index=False):
        ref, new = rows.loc[(kind, seg_id), ["reference", "perturbed"]]
        spaced = [" ".join(c for c in text if not c.isspace()) for text in (new, ref)]
        expected = sacrebleu.sentence_chrf(spaced[0], [spaced[1]]).score - sacrebleu.sentence_chrf(spaced[1], [spaced[1]]).score
        assert change == pytest.approx(expected, abs=1e-9)
    bleu = seg[(seg["level"] == "word") & (seg["metric"] == "bleu")]
    for kind, seg_id, score in bleu[["kind", "seg_id", "score"]].head(30).itertuples(index=False):
        ref, new = rows.loc[(kind, seg_id), ["reference", "perturbed"]]
        assert score == pytest.approx(sacrebleu.sentence_bleu(new, [ref]).score, abs=1e-9)


def test_spacing_is_invisible_at_char_level_and_penalties_have_the_metric_direction(probe):
    seg = probe.segments
    spaced = seg[(seg["kind"] == "spacing") & (seg["level"] == "char")]
    assert len(spaced) and (spaced["change"] == 0).all()
    ter = seg[(seg["metric"] == "ter") & (seg["kind"] == SEVERE_KIND)]
    assert (ter["penalty"] == ter["change"]).all() and (ter["change"] > 0).all()
    bleu = seg[(seg["metric"] == "bleu") & (seg["kind"] == SEVERE_KIND)]
    assert (bleu["penalty"] == -bleu["change"]).all() and (bleu["change"] < 0).all()
    assert seg[seg["metric"] == "bleu"]["unperturbed"].to_numpy() == pytest.approx(100.0)


def test_summary_is_the_mean_of_the_segment_changes_relative_to_dropping_a_content_eojeol(probe):
    summary = probe.summary.set_index(["kind", "level", "metric"])
    assert len(summary) == len(KINDS) * 3 * 3
    for (kind, level, metric), rows in probe.segments.groupby(["kind", "level", "metric"]):
        row = summary.loc[(kind, level, metric)]
        assert row["applied"] == len(rows)
        assert row["mean_change"] == pytest.approx(rows["change"].mean(), abs=1e-12)
        severe = summary.loc[(SEVERE_KIND, level, metric), "mean_penalty"]
        assert row["relative_to_drop"] == pytest.approx(rows["penalty"].mean() / severe)
    assert (summary.xs(SEVERE_KIND)["relative_to_drop"] == 1).all()


def test_segments_where_a_kind_cannot_apply_are_counted_not_dropped(probe, evalset):
    table = probe.perturbations
    summary = probe.summary[(probe.summary["level"] == "word") & (probe.summary["metric"] == "bleu")]
    for kind, row in summary.set_index("kind").iterrows():
        rows = table[table["kind"] == kind]
        assert row["applied"] + row["not_applicable"] == evalset.n_segments
        assert row["not_applicable"] == (~rows["applied"]).sum()
    assert summary["not_applicable"].sum() > 0
    probe_set = probe_evalset(table, evalset.seg_ids, evalset.refs[0])
    number = table[table["kind"] == "number"]
    assert [h is None for h in probe_set.systems["number"]] == list(~number["applied"])
    assert probe_set.systems[UNPERTURBED] == evalset.refs[0]


def test_known_kiwi_tokens_equal_the_kiwi_level(probe, evalset):
    """The probe hands the pipeline Kiwi's forms from its own analyses; they are the kiwi level's tokens, so the
    scores equal a run that tokenises everything itself."""
    texts = [t for t in probe.perturbations["perturbed"].dropna()][:80] + evalset.refs[0]
    level = KiwiLevel().tokenize(texts).tokens
    analyses = analyse(texts)
    assert [kiwi_tokens(analyses[t]) for t in texts] == [" ".join(toks) for toks in level]
    probe_set = probe_evalset(probe.perturbations, evalset.seg_ids, evalset.refs[0])
    plain = evaluate(probe_set, EvalConfig(levels=("kiwi",), metrics=("bleu",)), cache=NullCache()).segment_scores
    mine = probe.segments[(probe.segments["level"] == "kiwi") & (probe.segments["metric"] == "bleu")]
    merged = mine.merge(plain.rename(columns={"system": "kind"}), on=["kind", "seg_id", "level", "metric"])
    assert len(merged) == len(mine) and np.array_equal(merged["score_x"], merged["score_y"])


def test_the_probe_is_deterministic_for_its_seed(probe, evalset):
    again = run_probe(evalset, EvalConfig(levels=("char",), metrics=("chrf",)), seed=SEED)
    assert again.perturbations.equals(probe.perturbations)
    mine = probe.segments[(probe.segments["level"] == "char") & (probe.segments["metric"] == "chrf")]
    assert np.array_equal(again.segments["change"].to_numpy(), mine["change"].to_numpy())
