"""The span → Korean category mapping (korean_eval.lens.span_category, docs/design.md §8) on spans of real Korean
sentences, each labelled by hand: the label is what the marked characters are in Korean grammar (a particle, an
ending, a spacing error …), written before running the mapper. A span is written in brackets inside its sentence:
``저는 학교[에] 갑니다.`` is the span 에; ``[]`` is an empty span at that position.
"""

from __future__ import annotations

import pytest

from korean_eval.lens.analysis import analyse, analyse_one
from korean_eval.lens.span_category import SPAN_CATEGORIES, korean_categories, korean_category

LABELLED: list[tuple[str, str]] = [
    # content morphemes
    ("저는 [학교]에 갑니다.", "content"),
    ("회의는 오후 세 시에 [시작합니다].", "content"),
    ("비밀번호를 [다시] 입력해 주십시오.", "content"),
    ("[고객님의] 주문이 접수되었습니다.", "content"),
    ("그 [문제는] 이미 해결되었습니다.", "content"),
    ("[학]교에 갑니다.", "content"),
    ("그건 내 [거야]", "content"),
    ("배송이 [늦어서] 죄송합니다.", "content"),
    # particles
    ("저는 학교[에] 갑니다.", "particle"),
    ("고객님[이] 주문을 취소했습니다.", "particle"),
    ("회의[에서도] 그 이야기가 나왔어요.", "particle"),
    ("친구[를] 만났어요.", "particle"),
    ("서울[의] 날씨가 좋아요.", "particle"),
    ("동생[과] 함께 왔어요.", "particle"),
    ("회의에[서도]요", "particle"),
    # endings
    ("어제 친구를 만났[어요].", "ending"),
    ("이 제품은 어디에서 구입할 수 있[습니까]?", "ending"),
    ("밥을 먹[고] 학교에 갔다.", "ending"),
    ("밥을 먹[었]어요.", "ending"),
    ("회의가 끝났[다].", "ending"),
    ("제가 확인해 보겠[습니다].", "ending"),
    # affixes
    ("비밀번호를 [재]설정해 주세요.", "affix"),
    ("선생님[들]이 오셨어요.", "affix"),
    # foreign script
    ("새 [iPhone]을 샀습니다.", "foreign"),
    ("[Google] 계정으로 로그인하세요.", "foreign"),
    ("이 문서는 [漢字]로 쓰여 있다.", "foreign"),
    # numbers
    ("사과 [3]개를 주문했어요.", "number"),
    ("[2024]년에 출시되었습니다.", "number"),
    ("[15]분 후에 다시 전화해 주세요.", "number"),
    ("[3개를] 샀어요.", "number"),
    # punctuation
    ("정말 감사합니다[!]", "punctuation"),
    ("확인해 주세요[.]", "punctuation"),
    ("무엇을 도와드릴까요[?]", "punctuation"),
    ("서울[,] 부산, 대구에 지점이 있습니다.", "punctuation"),
    # spacing: inserted spaces, missing spaces
    ("저는 학교[ ]에 갑니다.", "spacing"),
    ("저는 [학교 에] 갑니다.", "spacing"),
    ("저는 학교[에가]요.", "spacing"),
    ("밥을 먹[고싶]어요.", "spacing"),
    ("할[]수 있어요.", "spacing"),
    ("내일[ ]다시 연락드리겠습니다.", "spacing"),
    # omissions
    ("저는 []학교에 갑니다.", "omission"),
    ("감사합니다.[]", "omission"),
    ("주문을 []취소했습니다.", "omission"),
    # other
    ("감사합니다 [😀]", "other"),
]


def _unbracket(marked: str) -> tuple[str, int, int]:
    start = marked.index("[")
    end = marked.index("]") - 1
    return marked.replace("[", "", 1).replace("]", "", 1), start, end


@pytest.mark.parametrize(("marked", "expected"), LABELLED)
def test_hand_labelled_span(marked: str, expected: str) -> None:
    text, start, end = _unbracket(marked)
    assert korean_category(text, start, end, analyse_one(text)) == expected


def test_enough_labels_of_every_kind() -> None:
    labels = [label for _marked, label in LABELLED]
    assert len(labels) >= 30
    for needed in ("particle", "ending", "spacing", "content", "punctuation", "foreign", "number", "omission"):
        assert labels.count(needed) >= 3, needed
    assert set(labels) <= set(SPAN_CATEGORIES)


def test_many_spans_at_once_equal_one_at_a_time() -> None:
    spans = [_unbracket(marked) for marked, _label in LABELLED]
    texts = [t for t, _s, _e in spans]
    got = korean_categories(texts, [s for _t, s, _e in spans], [e for _t, _s, e in spans])
    assert got == [label for _marked, label in LABELLED]
    given = analyse(texts[:3])
    assert korean_categories(texts[:3], [s for _t, s, _e in spans[:3]], [e for _t, _s, e in spans[:3]], given) == \
        got[:3]


def test_auxiliary_predicate_written_together_is_not_a_missing_space() -> None:
    """-어 + 주다 may be written together (한글 맞춤법 제47항): 해주 is no spacing error, 고싶 is one."""
    text = "확인해주세요"
    assert korean_category(text, 2, 4, analyse_one(text)) == "content"
    assert korean_category(text, 3, 3, analyse_one(text)) == "omission"
    text = "먹고싶어요"
    assert korean_category(text, 2, 2, analyse_one(text)) == "spacing"


def test_a_span_beyond_the_junction_is_not_spacing() -> None:
    """The whole word 학교에가요 is marked: it reaches past the two morphemes that meet at the junction."""
    text = "저는 학교에가요."
    assert korean_category(text, 3, 8, analyse_one(text)) == "content"


def test_whitespace_around_a_span_is_ignored() -> None:
    text = "저는 학교에 갑니다."
    assert korean_category(text, 2, 6, analyse_one(text)) == "content"  # " 학교에"


@pytest.mark.parametrize(("start", "end"), [(-1, 2), (3, 2), (0, 99)])
def test_span_outside_the_text_is_refused(start: int, end: int) -> None:
    text = "저는 학교에 갑니다."
    with pytest.raises(ValueError, match="does not fit"):
        korean_category(text, start, end, analyse_one(text))


def test_analysis_of_another_text_is_refused() -> None:
    with pytest.raises(ValueError, match="not of this text"):
        korean_category("짧다", 0, 1, analyse_one("이 문장은 훨씬 더 깁니다."))


def test_lengths_must_agree() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        korean_categories(["짧다"], [0, 1], [1])
