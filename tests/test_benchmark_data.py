"""The paper-scale benchmark data (benchmarks/make_data.py): distinct, deterministic, and as hard as real MT output.

The naive loop's cost — and so the benchmark's speed-up — depends on how far the systems are from their references,
so the generated systems must stay close to the study's real MT output (document 1) in TER and chrF.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys

import pytest
import sacrebleu

from tests.support.helpers import ROOT, STUDY, require


@pytest.fixture(scope="module")
def make_data():
    spec = importlib.util.spec_from_file_location("_ke_bench_make_data", ROOT / "benchmarks" / "make_data.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dataset(make_data):
    return make_data.build(512)


def test_sentences_are_distinct_and_lengths_realistic(dataset):
    summary = dataset.summary()
    assert summary["pairs"] == 512 and summary["references"] == 128
    assert summary["all sentences distinct"]
    assert 45 <= summary["reference length mean"] <= 75


def test_build_is_deterministic(make_data, dataset):
    again = make_data.build(512)
    assert again.refs == dataset.refs and again.systems == dataset.systems and again.human == dataset.human


def _chrf(pairs: list[tuple[str, str]]) -> float:
    return statistics.mean(sacrebleu.sentence_chrf(h, [r]).score for r, h in pairs)


def test_systems_are_as_far_from_the_references_as_real_mt_output(make_data, dataset):
    require(STUDY / "doc1_with_text.csv")
    real = make_data.study_pairs(STUDY / "doc1_with_text.csv")
    assert len(real) == 64
    synthetic = [(ref, hyps[i]) for hyps in dataset.systems.values() for i, ref in enumerate(dataset.refs)]
    real_profile = make_data.profile(real, ("word",))
    ours = make_data.profile(synthetic, ("word",))
    real_ter, real_chrf = real_profile["word"]["mean TER"], real_profile["raw text"]["mean chrF"]
    assert real_ter == pytest.approx(78.9, abs=0.1) and real_chrf == pytest.approx(28.4, abs=0.1)
    assert real_chrf == pytest.approx(_chrf(real))
    assert abs(ours["word"]["mean TER"] - real_ter) < 8, "word-level TER drifted away from real MT output"
    assert abs(ours["raw text"]["mean chrF"] - real_chrf) < 6, "chrF drifted away from real MT output"


def test_systems_differ_in_quality_and_human_scores_spread(dataset):
    chrf = {name: _chrf(list(zip(dataset.refs, hyps, strict=True))) for name, hyps in dataset.systems.items()}
    assert chrf["sys_a_strong"] > chrf["sys_d_weak"] + 3
    scores = [s for _, _, s in dataset.human]
    assert 0.8 * 512 <= len(scores) <= 0.98 * 512
    assert 30 <= statistics.mean(scores) <= 85 and statistics.pstdev(scores) >= 8
