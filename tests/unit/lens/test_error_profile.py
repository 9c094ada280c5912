"""The error profile and the spacing counts on hand-made Korean pairs whose answer is known (docs/design.md §8)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from korean_eval.engine.pipeline import evaluate
from korean_eval.lens import profile, spacing
from korean_eval.lens.analysis import analyse, analyse_one
from korean_eval.lens.pos_categories import CATEGORIES, SUBCATEGORIES, TAG_CATEGORIES, classify
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet

# (reference, hypothesis that differs in exactly one particle)
ONE_PARTICLE = [
    ("정부는 내년부터 보조금을 줄이기로 했다.", "정부가 내년부터 보조금을 줄이기로 했다."),
    ("아이들이 공원에서 축구를 한다.", "아이들이 공원에 축구를 한다."),
    ("나는 친구와 영화를 봤다.", "나는 친구와 영화가 봤다."),
    ("회의는 3층 회의실에서 열립니다.", "회의가 3층 회의실에서 열립니다."),
    ("동생이 학교에 갔어요.", "동생은 학교에 갔어요."),
    ("선생님의 책을 빌렸다.", "선생님에 책을 빌렸다."),
]
# (reference, hypothesis that differs only in its spacing)
SPACING_ONLY = [
    ("정부는 내년부터 보조금을 줄이기로 했다.", "정부는 내년부터 보조금을줄이기로 했다.", 1),
    ("서울시는 오는 10월부터 심야 버스를 운영한다.", "서울시는 오는 10월 부터 심야버스를 운영한다.", 2),
    ("할 수 있다.", "할수있다.", 2),
]


def pair_frame(pairs: list[tuple[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [("sys", str(i), hyp, ref) for i, (ref, hyp) in enumerate(pairs)], columns=["system", "seg_id", "hyp", "ref"]
    )


def test_every_kiwi_tag_has_one_category():
    from kiwipiepy.utils import _valid_tags

    assert set(_valid_tags) <= set(TAG_CATEGORIES)
    assert {cat for cat, _sub in SUBCATEGORIES} == set(CATEGORIES)
    assert classify("시", "EP") == ("ending", "prefinal:honorific")
    assert classify("었", "EP") == ("ending", "prefinal:tense")
    assert classify("걷", "VV-I") == ("content", "predicate")
    assert classify("3", "SN") == ("foreign_number", "number")


@pytest.mark.parametrize(("ref", "hyp"), ONE_PARTICLE)
def test_one_particle_changes_only_the_particle_category(ref, hyp):
    segments = profile.segment_table(pair_frame([(ref, hyp)]), analyse([ref, hyp]))
    errors = segments.groupby(["category", "subcategory"])["errors"].sum()
    assert errors[("particle", profile.ALL)] == 2  # one extra, one missing
    assert errors.drop("particle", level=0).eq(0).all(), errors[errors > 0]
    whole = profile.system_table(segments, ["sys"]).set_index(["category", "subcategory"])
    particle = whole.loc[("particle", profile.ALL)]
    assert particle["precision"] == particle["recall"] == pytest.approx((particle["ref"] - 1) / particle["ref"])
    assert whole.loc[("content", profile.ALL), "f1"] == 1.0


def test_identical_texts_have_f1_one_and_no_errors():
    text = "한국은행은 기준금리를 연 3.5%로 동결했다."
    segments = profile.segment_table(pair_frame([(text, text)]), analyse([text]))
    assert segments["errors"].eq(0).all()
    table = profile.system_table(segments, ["sys"])
    present = table[table["hyp"] > 0]
    assert present["f1"].eq(1.0).all() and present["precision"].eq(1.0).all()
    assert table[table["hyp"] == 0]["f1"].isna().all()  # a category that never occurs has no F1


def test_system_level_sums_counts_and_never_averages_ratios():
    pairs = ONE_PARTICLE[:3] + [(r, r) for r, _h in ONE_PARTICLE[3:]]
    frame = pair_frame(pairs)
    segments = profile.segment_table(frame, analyse([t for p in pairs for t in p]))
    table = profile.system_table(segments, ["sys"]).set_index(["category", "subcategory"])
    part = segments[(segments["category"] == "particle") & (segments["subcategory"] == profile.ALL)]
    row = table.loc[("particle", profile.ALL)]
    assert row["matched"] == part["matched"].sum() and row["hyp"] == part["hyp"].sum()
    assert row["f1"] == pytest.approx(2 * part["matched"].sum() / (part["hyp"].sum() + part["ref"].sum()))
    # independently: multiset intersection of (form, tag) particles over the whole corpus
    matched = sum(
        (Counter((m.form, m.tag) for m in analyse_one(h) if m.tag.startswith("J"))
         & Counter((m.form, m.tag) for m in analyse_one(r) if m.tag.startswith("J"))).total()
        for r, h in pairs
    )
    assert row["matched"] == matched


def test_unmatched_lists_the_differing_morphemes():
    ref, hyp = ONE_PARTICLE[0]
    extra, missing = profile.unmatched(analyse_one(hyp), analyse_one(ref), "particle")
    assert [(m.form, m.tag) for m in extra] == [("가", "JKS")]
    assert [(m.form, m.tag) for m in missing] == [("는", "JX")]
    assert hyp[extra[0].start : extra[0].end] == "가"
    assert profile.unmatched(analyse_one(hyp), analyse_one(ref), "content") == ([], [])


@pytest.mark.parametrize(("ref", "hyp", "n_errors"), SPACING_ONLY)
def test_spacing_only_difference_is_counted_and_leaves_character_metrics_unchanged(ref, hyp, n_errors):
    counts = spacing.spacing_counts(hyp, ref)
    assert counts.errors == n_errors and counts.aligned == len(ref.replace(" ", "")) - 1
    assert spacing.spacing_counts(ref, ref).errors == 0
    evalset = EvalSet(seg_ids=["0"], refs=[[ref]], systems={"spaced": [hyp], "same": [ref]})
    results = evaluate(evalset, EvalConfig(levels=("char", "jamo"), metrics=("bleu", "chrf", "chrf+", "chrf++", "ter")))
    scores = results.segment_scores.pivot_table(index=["level", "metric"], columns="system", values="score")
    assert len(scores) == 10
    assert (scores["spaced"] == scores["same"]).all(), scores
    word = evaluate(evalset, EvalConfig(levels=("word",), metrics=("bleu",))).segment_scores
    assert word.set_index("system").loc["spaced", "score"] < word.set_index("system").loc["same", "score"]


def test_spacing_f1_of_summed_counts():
    pairs = [(r, h) for r, h, _n in SPACING_ONLY]
    segments = spacing.segment_table(pair_frame(pairs))
    row = spacing.system_table(segments, ["sys"]).iloc[0]
    assert row["errors"] == sum(n for *_x, n in SPACING_ONLY) and row["segments_with_errors"] == 3
    assert row["precision"] == pytest.approx(row["both"] / row["hyp_spaces"])
    assert row["f1"] == pytest.approx(2 * row["both"] / (row["hyp_spaces"] + row["ref_spaces"]))
    missing = spacing.spacing_errors("정부는 보조금을줄이기로", "정부는 보조금을 줄이기로")
    inserted = spacing.spacing_errors("정부 는", "정부는")
    assert missing == [(7, "missing")] and inserted == [(2, "inserted")]


def test_only_aligned_regions_are_judged():
    counts = spacing.spacing_counts("정부는 보조금을 늘렸다", "정부는 보조금을 줄였다")
    assert counts.errors == 0 and counts.aligned < len("정부는보조금을줄였다") - 1
    assert np.isnan(spacing.system_table(spacing.segment_table(pair_frame([("가", "나")])), ["sys"])["f1"].iloc[0])
