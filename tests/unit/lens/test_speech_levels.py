"""The speech-level detector on sentences written for this test, each labelled by hand (docs/design.md §8): the label
is the speech level of the sentence's final ending as a Korean grammar assigns it (a quotation inside a sentence
does not count; -ㅂ시다, -오/-소, -구려 are 하오체 and headlines/notices without a final ending are ``other``), not
what the detector says. The detector must be right on at least 95 %.
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

FORMAL = [
    "회의는 오후 세 시에 시작합니다.",
    "모든 직원이 교육을 받았습니다.",
    "이 제품은 어디에서 구입할 수 있습니까?",
    "여권을 보여 주십시오.",
    "잠시만 기다려 주십시오.",
    "신청서는 다음 주까지 제출하셔야 합니다.",
    "오늘 날씨가 무척 춥습니다.",
    "그분은 우리 학교 교장 선생님이십니다.",
    "결과는 내일 발표될 예정입니다.",
    "고객님의 주문이 정상적으로 접수되었습니다.",
    "비밀번호를 다시 입력해 주십시오.",
    "이번 주말에도 영업합니까?",
    "새로운 정책이 내년부터 시행됩니다.",
    "문의 사항이 있으시면 언제든지 연락 주십시오.",
    "저희가 확인해 보겠습니다.",
    "다음 역은 서울역입니다.",
    "그 문제는 이미 해결되었습니까?",
    "감사합니다.",
    "여러분 모두 환영합니다.",
    "연구팀은 새로운 물질을 발견했다고 밝혔습니다.",
    '"곧 도착해요"라고 기사가 말했습니다.',
    "어제 보낸 메일을 받으셨습니까?",
    "이 약은 하루에 두 번 드십시오.",
    "회의실은 3층에 있습니다.",
    "총 비용은 약 200만 원입니다.",
    '그는 "내일 다시 오겠다"고 말했습니다.',
    "안전벨트를 꼭 매 주십시오.",
    "오늘 회의는 취소되었습니다.",
    "궁금한 점이 있으십니까?",
    "자세한 내용은 홈페이지를 참고하십시오.",
]
POLITE = [
    "저는 커피를 좋아해요.",
    "지금 어디에 가요?",
    "이건 제 동생 책이에요.",
    "저 사람은 의사예요.",
    "주말에 뭐 했어요?",
    "날씨가 정말 좋네요.",
    "이 식당 음식이 맛있죠?",
    "내일 다시 올게요.",
    "잠깐만 기다려 주세요.",
    "여기 앉으세요.",
    "어제 영화를 봤는데 재미있었어요.",
    "벌써 다 끝났군요!",
    "같이 점심 먹을래요?",
    "그건 제가 할게요.",
    "문이 잠겨 있어서 못 들어갔어요.",
    "버스가 곧 올 거예요.",
    "이 옷은 얼마예요?",
    '그 사람이 "늦겠다"고 했어요.',
    "아직 숙제를 안 했거든요.",
    "시간이 좀 걸릴 것 같아요.",
    "그렇게 하시면 안 돼요.",
    "혹시 이 근처에 약국이 있나요?",
    "생각보다 쉽지 않죠.",
    "저도 그렇게 생각해요.",
    "조금 더 천천히 말해 주시겠어요?",
    "회의가 길어져서 늦었어요.",
    "이 길로 쭉 가시면 돼요.",
    "정말 고마워요.",
    "아이들이 벌써 잠들었어요.",
    "밖에 비가 오는데요.",
    "그래서 어떻게 됐는데요?",
    "내일은 일찍 출발하고요.",
]
PLAIN = [
    "정부는 내년부터 보조금을 줄이기로 했다.",
    "나는 매일 아침 운동한다.",
    "이 책은 정말 재미있다.",
    "너 지금 어디 가?",
    "밥 먹었어?",
    "그건 내 잘못이야.",
    "내일은 비가 오겠지.",
    "너도 같이 갈래?",
    "빨리 와!",
    "우리 같이 가자.",
    "이것 좀 봐라.",
    "그게 정말이냐?",
    "너 어제 뭐 했니?",
    "벌써 봄이 왔구나.",
    "오늘따라 하늘이 참 맑네.",
    "그 사람은 학생이다.",
    "연구진은 새로운 치료법을 개발했다고 밝혔다.",
    "경찰은 사고 원인을 조사하고 있다.",
    '그는 "괜찮습니다"라고 말했다.',
    '엄마가 "밥 먹어요"라고 하셨어.',
    "이제 그만 자야지.",
    "내가 할게.",
    "시험이 어려웠어.",
    "조심해서 가.",
    "다음 주에 다시 만나자.",
    "왜 이렇게 늦었어?",
    "그 영화 봤냐?",
    "모두 자리에 앉아라.",
    "이 문제를 풀어라.",
    "한국의 수도는 서울이다.",
    "네가 먼저 말해.",
    "배가 너무 고프다.",
    "그래서 어떻게 됐는데?",
    "이번 대회에서 우리 팀이 우승했다.",
    "저 산은 정말 높구나!",
    "주가가 3% 하락했다.",
    "선생님께서 교실에 들어오셨다.",
]
OTHER = [
    "우리 함께 노력합시다.",
    "자, 이제 출발합시다!",
    "여기서 잠시 쉬어 갑시다.",
    "내일 다시 봅시다.",
    "택시를 타고 갑시다.",
    "이리 오시오.",
    "참 잘했소.",
    "그 사람 참 훌륭하구려.",
    "정부, 전기차 보조금 축소",
    "서울시 심야 버스 노선 확대",
    "회의 결과를 보고함.",
    "오늘 오후 3시 회의 예정",
    "2024년 국내 출생아 수 역대 최저",
    "출입 금지",
    "새 학기 시작!",
    "대한민국 만세!",
    "세계 경제 전망 보고서",
    "서류는 금요일까지 제출할 것.",
]
LABELLED = (
    [(s, "formal") for s in FORMAL]
    + [(s, "polite") for s in POLITE]
    + [(s, "plain") for s in PLAIN]
    + [(s, "other") for s in OTHER]
)


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
