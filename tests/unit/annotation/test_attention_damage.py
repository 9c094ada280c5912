"""Attention checks' damage (korean_eval.annotation.attention): deterministic by seed, and really damaged."""

from __future__ import annotations

import math

import pytest

from korean_eval.annotation.attention import attention_passed, can_damage, damage

TEXT = "정부는 고금리와 소비 위축으로 어려움을 겪는 소상공인을 지원하기 위해 대출 프로그램을 시행한다"


@pytest.mark.parametrize("seed", [0, 1, "a:b", 12345])
def test_the_same_seed_gives_the_same_damage(seed):
    assert damage(TEXT, seed) == damage(TEXT, seed)


def test_seeds_choose_both_kinds_and_different_damage():
    results = {damage(TEXT, seed) for seed in range(40)}
    assert {d.kind for d in results} == {"drop", "shuffle"}
    assert len({d.text for d in results}) > 20


@pytest.mark.parametrize("seed", range(30))
def test_dropping_removes_a_contiguous_third_of_the_words(seed):
    words = TEXT.split()
    bad = damage(TEXT, seed, "drop")
    run = math.ceil(len(words) / 3)
    kept = bad.text.split()
    assert bad.kind == "drop" and len(kept) == len(words) - run
    starts = [s for s in range(len(words) - run + 1) if words[:s] + words[s + run:] == kept]
    assert starts, (bad.text, TEXT)


@pytest.mark.parametrize("seed", range(30))
def test_shuffling_keeps_every_word_in_another_order(seed):
    bad = damage(TEXT, seed, "shuffle")
    assert bad.kind == "shuffle" and bad.text != TEXT
    assert sorted(bad.text.split()) == sorted(TEXT.split())


def test_texts_that_cannot_be_shuffled_are_dropped():
    assert damage("네 네 네", 3, "shuffle") == damage("네 네 네", 3, "drop")
    assert damage("네 네 네", 3, "shuffle").text == "네 네"
    one = damage("안녕하세요", 7, "shuffle")
    assert one.kind == "drop" and one.text in ("세요", "안녕")  # the first or the last half of the characters


def test_what_cannot_be_damaged_is_refused():
    assert not can_damage("") and not can_damage("가") and not can_damage("   ")
    with pytest.raises(ValueError, match="cannot damage"):
        damage("가", 1)
    with pytest.raises(ValueError, match="unknown damage"):
        damage(TEXT, 1, "swap")


def test_a_check_passes_only_clearly_below_the_original():
    assert attention_passed(80, 70) and attention_passed(80, 0)
    assert not attention_passed(80, 75) and not attention_passed(50, 60)
    assert attention_passed(80, 75, margin=5)
