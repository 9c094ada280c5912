"""The speech-level detector on sentences written for these tests, each labelled by hand
(tests/support/speech_level_sentences.py; docs/design.md §8): the label is the speech level of the sentence's final
ending as a Korean grammar assigns it (a quotation inside a sentence does not count; -ㅂ시다, -오/-소, -구려 are 하오체 and
headlines/notices without a final ending are ``other``), not what the detector says. The detector must be right on
at least 95 %.
"""

from __future__ import annotations

import pandas as pd
import pytest

from korean_eval.lens.analysis import analyse
from korean_eval.lens.speech_level import (
    SPEECH_LEVELS,
    confusion_table,
    honorific_count,
    speech_level,
    system_table,
)
from tests.support.speech_level_sentences import LABELLED


def test_there_are_at_least_100_distinct_hand_labelled_sentences_of_every_level():
    sentences = [s for s, _ in LABELLED]
    assert len(sentences) >= 100 and len(set(sentences)) == len(sentences)
    assert {label for _, label in LABELLED} == set(SPEECH_LEVELS)


def test_the_detector_is_right_on_at_least_95_percent():
    analyses = analyse([s for s, _ in LABELLED])
    wrong = [(s, label, speech_level(analyses[s])) for s, label in LABELLED if speech_level(analyses[s]) != label]
    accuracy = 1 - len(wrong) / len(LABELLED)
    assert accuracy >= 0.95, wrong


@pytest.mark.parametrize(
    ("sentence", "count"),
    [
        ("선생님께서 학교에 가셨습니다.", 1),
        ("여기 앉으세요.", 1),
        ("확인하세요.", 1),
        ("잠시만 기다려 주십시오.", 1),
        ("저는 학교에 갔습니다.", 0),
        ("서울시는 새 정책을 발표했다.", 0),
        ("할머니께서 책을 읽으시고 웃으셨다.", 2),
        ("할머니께서 진지를 드셨다.", 0),  # 드시다 is a lexical honorific verb, not the morpheme 시
    ],
)
def test_honorific_si_is_counted(sentence, count):
    assert honorific_count(analyse([sentence])[sentence]) == count


def test_agreement_and_confusion_tables_count_segments():
    segments = pd.DataFrame(
        {
            "system": ["A", "A", "A", "B"],
            "seg_id": ["0", "1", "2", "0"],
            "ref_level": ["plain", "plain", "formal", "plain"],
            "hyp_level": ["plain", "polite", "formal", "other"],
            "agree": [True, False, True, False],
            "ref_honorific": [False, True, False, False],
            "hyp_honorific": [False, False, False, False],
            "honorific_mismatch": [False, True, False, False],
        }
    )
    summary = system_table(segments, ["A", "B", "C"]).set_index("system")
    assert summary.loc["A", "agreement"] == pytest.approx(2 / 3) and summary.loc["A", "honorific_mismatch"] == 1
    assert summary.loc["B", "agreement"] == 0 and summary.loc["C", "segments"] == 0
    assert pd.isna(summary.loc["C", "agreement"])
    confusion = confusion_table(segments, ["A", "B"])
    assert len(confusion) == 2 * len(SPEECH_LEVELS) ** 2 and confusion["segments"].sum() == 4
    row = confusion[(confusion["system"] == "A") & (confusion["ref_level"] == "plain") & (confusion["hyp_level"] == "polite")]
    assert row["segments"].item() == 1
