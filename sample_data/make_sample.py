#!/usr/bin/env python3
"""Regenerate the bundled sample evaluation set (English→Korean) deterministically.

    python sample_data/make_sample.py            # rewrite the files beside this script
    python sample_data/make_sample.py --out DIR  # write them into DIR instead

Inputs: ``sentences_ko.py`` (hand-written English/Korean sentence pairs). Outputs (all UTF-8, ``\\n`` line ends):

* ``src.txt`` / ``ref.txt``: English sources and Korean references, one segment per line;
* ``systems/<name>.txt``: five simulated MT systems, line-aligned with ``ref.txt``, each made by seeded,
  rule-based perturbations of the references (particle/ending substitution, spacing and order errors, literal
  "translationese" rewrites, dropped words, wrong word choices, wrong numbers, truncation);
* ``edits.tsv``: every perturbation applied to every (system, segment) and the resulting human penalty;
* ``human.tsv``: SIMULATED DA-like human scores (0–100) from the formula in :func:`human_score`, with ~10% of the
  (system, segment) pairs left unscored.

Only ``random.Random(<string seed>).random()`` and integer arithmetic are used, so the output is byte-identical
across platforms and Python versions (no set iteration, no ``choice``/``shuffle``/``gauss``).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import re
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = "korean-eval-sample-v1"
SYSTEMS: tuple[str, ...] = ("sys_strong", "sys_literal", "sys_josa", "sys_order", "sys_weak")
MISSING_RATE = 0.10  # share of (system, segment) pairs without a human score

# ---- simulated human judgement -----------------------------------------------------------------------------------
# Penalty (DA points) per perturbation. Meaning errors cost far more than form errors; spacing costs almost nothing.
COST: dict[str, float] = {
    "synonym": 1.0,  # acceptable paraphrase
    "spacing": 1.5,  # 띄어쓰기 error (merged or split eojeol)
    "order": 3.0,  # two adjacent eojeol swapped
    "register": 2.0,  # speech-level switch (-습니다 / -어요 / -다)
    "particle": 5.0,  # wrong josa inside an otherwise correct eojeol
    "literal": 4.0,  # translationese: unnatural but meaning-preserving
    "tense": 7.0,  # wrong tense / mood of a predicate
    "lexical": 15.0,  # wrong word sense / wrong content word
    "drop": 15.0,  # content eojeol left out
    "number": 20.0,  # a number changed
    "truncate": 5.0,  # per eojeol cut off at the end of the segment
}
HUMAN_BASE = 95.0  # mean score of a perfect translation (raters rarely give 100)
RATER_NOISE = 5.0  # standard deviation of the rater noise (Irwin–Hall approximation of a Gaussian)

# ---- Hangul helpers --------------------------------------------------------------------------------------------
_S0, _SN = 0xAC00, 11172
JONG_NONE, JONG_RIEUL, JONG_SSANGSIOT = 0, 8, 20


def is_syllable(c: str) -> bool:
    return len(c) == 1 and _S0 <= ord(c) < _S0 + _SN


def jong(c: str) -> int:
    """Index of the final consonant (batchim) of a Hangul syllable, 0 if none or if ``c`` is no syllable."""
    return (ord(c) - _S0) % 28 if is_syllable(c) else 0


def with_jong(c: str, j: int) -> str:
    """The syllable ``c`` with its final consonant replaced by index ``j``."""
    return chr(ord(c) - jong(c) + j)


LEAD = "\"'(["
TRAIL = ".,?!\"':)]"


def split_punct(word: str) -> tuple[str, str, str]:
    """``'"경제'`` → ``('"', '경제', '')``: leading punctuation, core, trailing punctuation of an eojeol."""
    i, j = 0, len(word)
    while i < j and word[i] in LEAD:
        i += 1
    while j > i and word[j - 1] in TRAIL:
        j -= 1
    return word[:i], word[i:j], word[j:]


# ---- particles (josa) --------------------------------------------------------------------------------------------
# Surface particles, longest first. Allomorph pairs are written "after-consonant/after-vowel".
PARTICLES: tuple[str, ...] = (
    "으로부터", "로부터", "으로도", "에서는", "에서도", "에게서", "이랑", "으로", "에서", "에게", "까지", "부터", "처럼",
    "보다", "에는", "마다", "로도",
    "와", "과", "은", "는", "이", "가", "을", "를", "에", "의", "도", "만", "로", "랑",
)  # fmt: skip
ALLOMORPHS: dict[str, str] = {
    "은": "은/는", "는": "은/는", "이": "이/가", "가": "이/가", "을": "을/를", "를": "을/를",
    "과": "과/와", "와": "과/와", "으로": "으로/로", "로": "으로/로", "이랑": "이랑/랑", "랑": "이랑/랑",
    "으로부터": "으로부터/로부터", "로부터": "으로부터/로부터", "으로도": "으로도/로도", "로도": "으로도/로도",
}  # fmt: skip
# Wrong-particle substitutions an MT system makes (canonical forms), first choice first.
JOSA_SWAP: dict[str, tuple[str, ...]] = {
    "은/는": ("이/가", "도"),
    "이/가": ("은/는", "을/를"),
    "을/를": ("이/가", "은/는"),
    "에": ("에서", "으로/로", "의"),
    "에서": ("에", "으로/로"),
    "에서는": ("에는", "은/는"),
    "에서도": ("에도",),
    "에는": ("에서는", "은/는"),
    "의": ("에", "이/가"),
    "으로/로": ("에", "에서"),
    "으로부터/로부터": ("에서", "까지"),
    "으로도/로도": ("에도", "으로/로"),
    "과/와": ("의", "도"),
    "도": ("은/는", "이/가"),
    "까지": ("부터", "에"),
    "부터": ("까지", "에서"),
    "보다": ("처럼", "만큼"),
    "에게": ("에", "에서"),
    "에게서": ("에게", "에서"),
    "처럼": ("보다",),
    "만": ("도", "은/는"),
    "마다": ("에", "도"),
    "이랑/랑": ("을/를", "도"),
}
# Eojeol that end like a particle but are not "noun + particle" (adverbs, adnominal verb forms, nouns ending in
# 가/이/도/의, connective endings). Checked once against a morphological analyser when the sentences were written.
NOT_JOSA: tuple[str, ...] = (
    "물가", "오는", "새로", "같은", "변이", "닫는", "겪는", "바로", "있는", "껐다가", "품절이지만", "제대로", "나은",
    "있다는", "보는", "정도", "뽑을", "방문하는", "추가", "붙을", "뜨는", "가까이", "예매하는", "도난당했을", "받을",
    "있지만", "다르므로", "줄인다는", "그대로", "넘을", "평가하는", "거의", "온도", "받은", "두었다가", "많이", "자는",
    "고려해도", "걸렸을", "쉬는", "길었지만", "같이", "늦을", "어려웠지만",
)  # fmt: skip


def anchor(body: str) -> str:
    """The syllable that decides the particle allomorph: for ``세계보건기구(WHO)`` it is ``구``."""
    if body.endswith(")") and "(" in body:
        body = body[: body.rindex("(")]
    return body[-1] if body else ""


def attach(body: str, canon: str) -> str:
    """``body`` + the particle ``canon`` in the allomorph its last syllable requires."""
    if "/" not in canon:
        return body + canon
    after_consonant, after_vowel = canon.split("/")
    j = jong(anchor(body))
    if after_consonant.startswith("으"):  # 으로-type: ㄹ-final nouns take the vowel form (서울로)
        return body + (after_consonant if j not in (JONG_NONE, JONG_RIEUL) else after_vowel)
    return body + (after_consonant if j else after_vowel)


def parse_josa(core: str) -> tuple[str, str] | None:
    """``(body, particle)`` if ``core`` is a noun phrase + particle whose allomorph fits; else None."""
    if core in NOT_JOSA:
        return None
    for p in PARTICLES:
        if core.endswith(p) and len(core) > len(p):
            body = core[: -len(p)]
            if not is_syllable(anchor(body)):
                continue
            if p in ALLOMORPHS and attach(body, ALLOMORPHS[p]) != core:
                continue
            return body, p
    return None


def canonical(particle: str) -> str:
    return ALLOMORPHS.get(particle, particle)


# ---- predicate endings -------------------------------------------------------------------------------------------
R, T = "register", "tense"
ENDINGS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("했습니다", (("했어요", R), ("합니다", T))),
    ("졌습니다", (("졌어요", R), ("집니다", T))),
    ("겠습니다", (("겠어요", R), ("겠다", R))),
    ("드립니다", (("드려요", R), ("드렸습니다", T))),
    ("바랍니다", (("바라요", R), ("바랐습니다", T))),
    ("합니다", (("해요", R), ("했습니다", T))),
    ("됩니다", (("돼요", R), ("되었습니다", T))),
    ("집니다", (("져요", R), ("졌습니다", T))),
    ("립니다", (("려요", R), ("렸습니다", T))),
    ("답습니다", (("다워요", R), ("다웠습니다", T))),
    ("좋습니다", (("좋아요", R), ("좋았습니다", T))),
    ("있습니다", (("있어요", R), ("있었습니다", T))),
    ("없습니다", (("없어요", R), ("없었습니다", T))),
    ("시겠어요", (("시겠습니까", R), ("셨어요", T))),
    ("있을까요", (("있습니까", R), ("있었을까요", T))),
    ("올래요", (("오시겠어요", R), ("왔어요", T))),
    ("세요", (("십시오", R), ("셨어요", T))),
    ("했어요", (("했습니다", R), ("해요", T))),
    ("해요", (("합니다", R), ("했어요", T))),
    ("이에요", (("입니다", R), ("이었어요", T))),
    ("했다", (("했습니다", R), ("한다", T))),
    ("혔다", (("혔습니다", R), ("힌다", T))),
    ("켰다", (("켰습니다", R), ("킨다", T))),
    ("졌다", (("졌습니다", R), ("진다", T))),
    ("됐다", (("됐습니다", R), ("된다", T))),
    ("쳤다", (("쳤습니다", R), ("친다", T))),
    ("났다", (("났습니다", R), ("난다", T))),
    ("않는다", (("않습니다", R), ("않았다", T))),
    ("넘는다", (("넘습니다", R), ("넘었다", T))),
    ("한다", (("합니다", R), ("했다", T))),
    ("진다", (("집니다", R), ("졌다", T))),
    ("된다", (("됩니다", R), ("됐다", T))),
    ("긴다", (("깁니다", R), ("겼다", T))),
    ("돈다", (("돕니다", R), ("돌았다", T))),
    ("언다", (("업니다", R), ("얼었다", T))),
    ("있다", (("있습니다", R), ("있었다", T))),
    ("이다", (("입니다", R), ("이었다", T))),
)


def ending_variants(core: str) -> list[tuple[str, str]]:
    """Wrong-ending variants ``(new_core, kind)`` of a clause-final predicate, kind ``register`` or ``tense``."""
    if core.endswith("입니다") and len(core) > 3:
        stem = core[:-3]
        has_final = jong(stem[-1]) != JONG_NONE or not is_syllable(stem[-1])
        return [
            (stem + ("이에요" if has_final else "예요"), R),
            (stem + ("이었습니다" if has_final else "였습니다"), T),
        ]
    for suffix, replacements in ENDINGS:
        if core.endswith(suffix):
            return [(core[: -len(suffix)] + rep, kind) for rep, kind in replacements]
    if core.endswith("게요") and len(core) >= 3:  # promise: 놓을게요 / 드릴게요
        if core[-3] == "을":
            return [(core[:-3] + "겠습니다", R)]
        if jong(core[-3]) == JONG_RIEUL:
            return [(core[:-4] + with_jong(core[-3], JONG_NONE) + "겠습니다", R)]
    if len(core) >= 3 and core[-2:] in ("어요", "아요") and jong(core[-3]) != JONG_NONE:  # 먹어요 / 돌았어요
        stem = core[:-2]
        if jong(stem[-1]) == JONG_SSANGSIOT:
            tense = stem[:-1] + with_jong(stem[-1], JONG_NONE) + "요"
        else:
            tense = stem + ("았" if core[-2] == "아" else "었") + "어요"
        return [(stem + "습니다", R), (tense, T)]
    if (
        len(core) >= 2 and core.endswith("요") and is_syllable(core[-2]) and jong(core[-2]) == JONG_NONE
    ):  # 편해요
        if core[-2] not in "세게까래예에":
            return [(core[:-2] + with_jong(core[-2], JONG_SSANGSIOT) + "어요", T)]
    if len(core) >= 4 and core.endswith("습니다") and jong(core[-4]) == JONG_SSANGSIOT:
        return [(core[:-3] + "어요", R)]
    if len(core) >= 2 and core.endswith("다") and jong(core[-2]) == JONG_SSANGSIOT:
        return [(core[:-1] + "습니다", R)]
    return []


def is_clause_final(words: list[str], i: int) -> bool:
    return i == len(words) - 1 or bool(re.search(r"[.?!][\"']?$", words[i]))


# ---- lexical tables ----------------------------------------------------------------------------------------------
# Acceptable paraphrases (used by the strong system): whole noun/adverb → synonym.
SYNONYMS: dict[str, str] = {
    "매우": "아주", "정말": "참", "가장": "제일", "바로": "즉시", "모두": "전부", "미리": "사전에", "이미": "벌써",
    "여전히": "아직도", "보통": "대개", "꼭": "반드시", "잠시만": "잠깐만", "작년": "지난해", "지난해": "작년",
    "올해": "금년", "당분간": "한동안", "제대로": "올바르게", "무상": "무료", "인근": "근처", "요즘": "최근",
    "이메일": "메일", "비행기": "항공기", "다시": "재차", "약": "대략", "빠르게": "신속하게", "훨씬": "한층",
    "이번": "금번", "현재": "지금", "그동안": "그 시간 동안", "자주": "수시로", "결국": "끝내",
}  # fmt: skip
# Wrong word choices (meaning errors) for the weak system: substring → wrong substring.
WRONG_LEXICON: dict[str, str] = {
    "보조금": "장려금", "기준금리": "기본 이율", "심야": "주간", "출생아": "사망자", "사고": "생각",
    "영업이익": "매출", "법안": "예산안", "찬성": "반대", "감시": "연구", "수출액": "수입액", "공청회": "청문회",
    "개막": "폐막", "교과서": "참고서", "부동산": "주식", "회복": "성장", "화재": "폭발", "최저임금": "최고 임금",
    "상장": "합병", "지침": "바늘", "초등학교": "대학교", "치료제": "백신", "금메달": "은메달", "소상공인": "대기업",
    "대출": "투자", "상품": "경품", "비밀번호": "아이디", "불편": "불만", "환불": "교환", "업데이트": "삭제",
    "계정": "계좌", "배송지": "배송일", "영수증": "계산서", "상담": "회의", "무상": "유상", "요금제": "요금",
    "공유기": "컴퓨터", "쿠폰": "포인트", "고객센터": "매장", "포인트": "쿠폰", "기술팀": "영업팀", "품절": "판매 중",
    "스팸": "받은", "점검": "공사", "프린터": "모니터", "의견": "주문", "반품": "교환", "공항철도": "공항버스",
    "체크아웃": "체크인", "정상": "보통", "여권": "지갑", "휴관": "개관", "안개": "폭설", "현금": "외화",
    "취소": "변경", "출구": "입구", "평일": "주말", "렌터카": "택시", "단풍": "벚꽃", "현지인": "외국인",
    "편의점": "은행", "해외": "국내", "면세점": "백화점", "성수기": "비수기", "셔틀버스": "택시", "보관소": "분실물 센터",
    "오른쪽": "왼쪽", "보험": "보증", "끓고": "녹고", "망원경": "위성", "염증": "통증", "편향": "오류", "염기": "단백질",
    "산업화": "산업", "배터리": "엔진", "양자컴퓨터": "슈퍼컴퓨터", "꿀벌": "나비", "지표": "데이터", "대기": "대기열",
    "연구실": "교실", "위성": "기지국", "면역": "신경", "속도": "용량", "화산재": "연기", "실마리": "결론",
    "효율": "수명", "메모리": "시간", "산호초": "해초", "항생제": "진통제", "수면": "수명", "우산": "모자",
    "자전거": "오토바이", "알람": "약속", "김치찌개": "된장찌개", "결혼": "이사", "주차장": "주유소", "감기": "배탈",
    "전기": "가스", "우유": "주스", "영화": "책", "팀장님": "사장님", "강아지": "고양이", "체중": "근육",
    "할머니": "할아버지", "세탁기": "냉장고", "엘리베이터": "에스컬레이터", "커피": "녹차", "작가": "감독",
    "증가": "감소", "상승": "하락", "동결": "인상", "도착": "출발", "출발": "도착", "예약": "약속",
}  # fmt: skip
_WRONG_KEYS = sorted(WRONG_LEXICON, key=lambda k: (-len(k), k))
# Translationese rewrites (literal system): regex → replacement, applied on the whole line.
LITERAL_PHRASES: tuple[tuple[str, str], ...] = (
    (r"에 대한 ", "에 대해서의 "),
    (r"고객님의 ", "당신의 "),
    (r"비밀번호", "패스워드"),
    (r"확인해 ", "체크해 "),
    (r"진화됐다", "진화되어졌다"),
    (r"옮겨졌다", "옮겨지게 되었다"),
    (r"처리됩니다", "처리되어집니다"),
    (r"계산됩니다", "계산되어집니다"),
    (r"적용되며", "적용되어지며"),
    (r"진행되며", "진행되어지며"),
    (r"지연되고", "지연되어지고"),
    (r"연결되어 ", "연결되어져 "),
    (r"차감될 ", "차감되어질 "),
    (r"재현될 ", "재현되어질 "),
    (r"이루어져 ", "이루어지게 되어 "),
    (r"때문에 ", "때문으로 인해 "),
    (r"(\S+)에 따르면 ", r"\1에 의하면 "),
    (r"것이 좋습니다", "것이 더 좋은 선택입니다"),
    (r"것이 좋아요", "것이 더 좋은 선택이에요"),
    (r"([고며데만]), ", r"\1, 그리고 "),
    (r"잠겨 있습니다", "잠겨진 상태입니다"),
    (r"가장 시급한 과제", "가장 시급한 과제들 중 하나"),
    (r"이용해 ", "이용함으로써 "),
    (r"되었으며 ", "되어졌으며 "),
)
# Nouns that modify the next noun directly; translationese inserts 의 (심야 버스 → 심야의 버스).
MODIFIER_NOUNS: tuple[str, ...] = (
    "심야", "기준", "전기차", "영업", "인근", "임상", "고등학교", "소형", "공항", "교통", "시내", "여행자", "수면",
    "기계", "유전", "학습", "데이터", "태양광", "농작물", "서비스", "배송", "주문", "인증", "처리", "결제", "회원",
    "요금", "최저임금", "인구", "경제", "부동산", "기술", "스팸", "숙소", "공장", "국제", "변이", "규제", "저금리",
    "대출", "신청", "상담", "문의", "왕복", "환불", "짐", "입장료", "점심", "전기", "서비스", "체중", "세부", "면역",
)  # fmt: skip
PLURAL_NOUNS: tuple[str, ...] = (
    "고객", "관광객", "참가자", "사람", "직장인", "부상자", "소상공인", "꿀벌", "위성", "바이러스", "세포", "작품",
    "포인트", "연구진", "친구", "위원", "전문가", "패널", "물건", "상품", "제품", "문제", "사진", "지역", "신호",
    "작품", "노선", "농작물", "참가자", "현지인", "관광객", "조개류", "교과서", "치료제", "쿠폰",
)  # fmt: skip
# People/animals the speaker owns: translationese spells out "my" (어머니가 → 나의 어머니가).
POSSESSED: tuple[str, ...] = ("어머니", "동생", "친구", "팀장님", "할머니", "강아지", "아이", "체중")
# Right-hand eojeol that MT output often glues to the previous one (bound nouns, auxiliaries).
GLUE_RIGHT: tuple[str, ...] = (
    "수", "수도", "것", "것이", "것을", "것으로", "것이라고", "게", "때", "때는", "때문에", "등", "중", "중이다",
    "중이라", "중에", "만에", "동안", "전에", "전까지", "후", "있는지", "주세요", "보세요", "드립니다", "드리겠습니다",
    "드릴게요", "주시면", "주셔야", "주신", "놓을게요", "있습니다", "있어요", "있다", "있으며", "없습니다",
    "이내에", "정도", "정도의", "거리라", "번", "명", "편을", "보시겠어요", "바랍니다", "부탁드립니다", "지",
)  # fmt: skip
HA_SYLLABLES = "하한할함합했해"
# Case particles whose noun phrases Korean lets move (the order system swaps two adjacent ones).
SCRAMBLABLE: tuple[str, ...] = (
    "은/는",
    "이/가",
    "을/를",
    "에",
    "에서",
    "에게",
    "으로/로",
    "부터",
    "까지",
    "도",
    "에는",
)


# ---- perturbation engine -----------------------------------------------------------------------------------------
class Segment:
    """One hypothesis being built from a reference: a list of eojeol plus the log of edits made to it."""

    def __init__(self, ref: str, rng: random.Random):
        self.words = ref.split(" ")
        self.rng = rng
        self.edits: list[tuple[str, str, int]] = []  # (kind, description, count)

    # random helpers built on rng.random() only (stable across Python versions)
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: list | tuple):
        return items[int(self.rng.random() * len(items))]

    def log(self, kind: str, what: str, count: int = 1) -> None:
        self.edits.append((kind, what, count))

    def text(self) -> str:
        return " ".join(w for w in self.words if w)

    # -- form errors ------------------------------------------------------------------------------------------
    def josa_candidates(self) -> list[int]:
        return [
            i for i, w in enumerate(self.words) if parse_josa(split_punct(w)[1]) and split_punct(w)[1] != ""
        ]

    def swap_josa(self, i: int) -> bool:
        pre, core, post = split_punct(self.words[i])
        parsed = parse_josa(core)
        if not parsed:
            return False
        body, particle = parsed
        options = JOSA_SWAP.get(canonical(particle))
        if not options:
            return False
        new_core = attach(body, self.pick(options))
        if new_core == core:
            return False
        self.words[i] = pre + new_core + post
        self.log("particle", f"{core}→{new_core}")
        return True

    def ending_candidates(self) -> list[int]:
        return [
            i
            for i in range(len(self.words))
            if is_clause_final(self.words, i) and ending_variants(split_punct(self.words[i])[1])
        ]

    def change_ending(self, i: int, want: str | None = None) -> bool:
        pre, core, post = split_punct(self.words[i])
        variants = ending_variants(core)
        if want is not None:
            variants = [v for v in variants if v[1] == want] or variants
        if not variants:
            return False
        new_core, kind = self.pick(variants)
        self.words[i] = pre + new_core + post
        self.log(kind, f"{core}→{new_core}")
        return True

    def split_candidates(self) -> list[tuple[int, int]]:
        """(eojeol index, character offset in the core) where a spacing error can split an eojeol."""
        out = []
        for i, w in enumerate(self.words):
            pre, core, post = split_punct(w)
            cut = next(
                (
                    k
                    for k in range(2, len(core))
                    if core[k] in HA_SYLLABLES and all(is_syllable(c) for c in core[:k])
                ),
                None,
            )  # 발표했다 → 발표 했다
            parsed = parse_josa(core)
            if (
                cut is None
                and parsed
                and len(parsed[0]) >= 4
                and all(is_syllable(c) for c in parsed[0])
                and not parsed[0].endswith("들")
            ):
                cut = 2  # compound noun: 고객센터로 → 고객 센터로
            if cut is not None:
                out.append((i, cut))
        return out

    def split_word(self, i: int, cut: int) -> None:
        pre, core, post = split_punct(self.words[i])
        left, right = pre + core[:cut], core[cut:] + post
        self.words[i : i + 1] = [left, right]
        self.log("spacing", f"split {core[:cut]}|{core[cut:]}")

    def merge_candidates(self) -> list[int]:
        out = []
        for i in range(len(self.words) - 1):
            left, right = self.words[i], self.words[i + 1]
            if split_punct(left)[2] or split_punct(right)[0] or not left or not right:
                continue
            out.append(i)
        return out

    def merge_at(self, i: int) -> None:
        self.log("spacing", f"merge {self.words[i]}+{self.words[i + 1]}")
        self.words[i : i + 2] = [self.words[i] + self.words[i + 1]]

    def swap_candidates(self) -> list[int]:
        """Adjacent argument pairs (noun + case particle, no punctuation) that can be scrambled."""

        def argument(w: str) -> bool:
            parsed = parse_josa(w) if w == split_punct(w)[1] else None
            return bool(parsed) and canonical(parsed[1]) in SCRAMBLABLE

        def free(i: int) -> bool:  # the left one must not be modified by a preceding bare noun or determiner
            return i == 0 or argument(self.words[i - 1]) or bool(split_punct(self.words[i - 1])[2])

        return [
            i
            for i in range(len(self.words) - 2)
            if argument(self.words[i]) and argument(self.words[i + 1]) and free(i)
        ]

    def swap_at(self, i: int) -> None:
        self.log("order", f"{self.words[i]}<->{self.words[i + 1]}")
        self.words[i], self.words[i + 1] = self.words[i + 1], self.words[i]

    # -- paraphrase / meaning errors -------------------------------------------------------------------------------
    def replace_in_word(
        self, i: int, table: dict[str, str], keys: list[str], whole_body: bool
    ) -> tuple[str, str] | None:
        pre, core, post = split_punct(self.words[i])
        parsed = parse_josa(core)
        body, particle = parsed if parsed else (core, "")
        for key in keys:
            if (body == key) if whole_body else (key in body):
                new_body = body.replace(key, table[key], 1)
                new_core = attach(new_body, canonical(particle)) if particle else new_body
                self.words[i] = pre + new_core + post
                return core, new_core
        return None

    def synonym_candidates(self) -> list[int]:
        return [
            i
            for i, w in enumerate(self.words)
            if (parse_josa(split_punct(w)[1]) or (split_punct(w)[1], ""))[0] in SYNONYMS
        ]

    def wrong_word_candidates(self) -> list[int]:
        return [i for i, w in enumerate(self.words) if any(k in split_punct(w)[1] for k in _WRONG_KEYS)]

    def drop_candidates(self) -> list[int]:
        return [
            i
            for i, w in enumerate(self.words)
            if not is_clause_final(self.words, i) and w == split_punct(w)[1] and len(w) >= 2
        ]

    def change_number(self) -> bool:
        line = self.text()
        runs = [m for m in re.finditer(r"\d+", line)]
        if not runs:
            return False
        m = self.pick(runs)
        pos = m.start() + int(self.rng.random() * (m.end() - m.start()))
        d = int(line[pos])
        new = (d + 1 + int(self.rng.random() * 8)) % 10
        if new == 0 and pos == m.start() and m.end() - m.start() > 1:
            new = 9 if d != 9 else 8
        new_line = line[:pos] + str(new) + line[pos + 1 :]
        self.words = new_line.split(" ")
        self.log("number", f"{m.group()}→{new_line[m.start() : m.end()]}")
        return True


# ---- the systems ---------------------------------------------------------------------------------------------------
def make_strong(seg: Segment) -> None:
    """Near-perfect: half the segments identical, the rest one light edit (mostly a synonym)."""
    if seg.chance(0.45):
        return
    r = seg.rng.random()
    if r < 0.55 and (cands := seg.synonym_candidates()):
        i = seg.pick(cands)
        old_new = seg.replace_in_word(i, SYNONYMS, list(SYNONYMS), whole_body=True)
        if old_new:
            seg.log("synonym", "→".join(old_new))
    elif r < 0.75 and (cands := seg.merge_candidates()):
        seg.merge_at(seg.pick(cands))
    elif r < 0.88 and (cands := seg.ending_candidates()):
        seg.change_ending(seg.pick(cands), want=R)
    elif cands := seg.josa_candidates():
        seg.swap_josa(seg.pick(cands))


def make_josa(seg: Segment) -> None:
    """Right words, wrong particles (≈30% of particle-bearing eojeol) and often a wrong predicate ending."""
    cands = seg.josa_candidates()
    chosen = [i for i in cands if seg.chance(0.3)]
    if not chosen and cands:
        chosen = [seg.pick(cands)]
    for i in chosen:
        seg.swap_josa(i)
    ends = seg.ending_candidates()
    if ends and seg.chance(0.55):
        seg.change_ending(seg.pick(ends), want=R if seg.chance(0.6) else T)


def make_order(seg: Segment) -> None:
    """Right words and particles, wrong spacing (merged/split eojeol) and sometimes two eojeol swapped."""
    if (cands := seg.swap_candidates()) and seg.chance(0.6):
        seg.swap_at(seg.pick(cands))
    splits = seg.split_candidates()
    for i, cut in reversed(splits):  # right to left so earlier indices stay valid
        if seg.chance(0.35):
            seg.split_word(i, cut)
    for i in reversed(seg.merge_candidates()):
        if i + 1 < len(seg.words):
            glue = split_punct(seg.words[i + 1])[1] in GLUE_RIGHT
            if seg.chance(0.6 if glue else 0.07):
                seg.merge_at(i)
    if not any(kind == "spacing" for kind, _, _ in seg.edits):
        if splits and seg.chance(0.5):
            i, cut = seg.pick(splits)
            seg.split_word(i, cut)
        elif cands := seg.merge_candidates():
            seg.merge_at(seg.pick(cands))


def make_literal(seg: Segment) -> None:
    """Translationese: 되어지다 passives, 들 plurals, 'have' → 가지고 있다, -ㄹ 수 있다 → -는 것이 가능하다, 당신."""
    if (cands := seg.josa_candidates()) and seg.chance(0.3):
        seg.swap_josa(seg.pick(cands))
    line = seg.text()
    for pattern, repl in LITERAL_PHRASES:
        for m in list(re.finditer(pattern, line))[:1]:
            if seg.chance(0.85):
                new = m.expand(repl)
                line = line[: m.start()] + new + line[m.end() :]
                seg.log("literal", f"{m.group().strip()}→{new.strip()}")
    line = _literal_possibility(seg, line)
    seg.words = line.split(" ")
    for i, w in enumerate(seg.words):  # plural 들 on countable nouns
        pre, core, post = split_punct(w)
        parsed = parse_josa(core)
        body, particle = parsed if parsed else (core, "")
        if body in PLURAL_NOUNS and particle and seg.chance(0.7):
            new_core = attach(body + "들", canonical(particle)) if particle else body + "들"
            seg.words[i] = pre + new_core + post
            seg.log("literal", f"{core}→{new_core}")
    for i in range(len(seg.words) - 1):  # X이/가 있다 → X을/를 가지고 있다
        pre, core, post = split_punct(seg.words[i])
        parsed = parse_josa(core)
        if parsed and canonical(parsed[1]) == "이/가" and not post and seg.words[i + 1].startswith("있"):
            if seg.chance(0.8):
                new_core = attach(parsed[0], "을/를")
                seg.words[i] = pre + new_core + post + " 가지고"
                seg.log("literal", f"{core} 있→{new_core} 가지고 있")
    owned = [
        i
        for i, w in enumerate(seg.words)
        if (parse_josa(w) or (w, ""))[0] in POSSESSED
        and (i == 0 or seg.words[i - 1] not in ("나의", "저의", "우리", "새로", "다음"))
    ]
    if owned and seg.chance(0.8):
        i = owned[0]
        seg.words[i] = "나의 " + seg.words[i]
        seg.log("literal", f"+나의 {seg.words[i][3:]}")
    genitive = [
        i
        for i in range(len(seg.words) - 1)
        if seg.words[i] in MODIFIER_NOUNS
        and not seg.words[i + 1].endswith("의")
        and not is_clause_final(seg.words, i + 1)
    ]
    if genitive and seg.chance(0.7):  # 심야 버스 → 심야의 버스 (once per segment)
        i = seg.pick(genitive)
        seg.log("literal", f"{seg.words[i]}→{seg.words[i]}의")
        seg.words[i] += "의"
    if seg.words and seg.words[0] not in ("당신은", "저는", "우리는", "나는"):  # explicit subject pronouns
        if seg.words[-1].endswith("세요.") and seg.chance(0.6):
            seg.words.insert(0, "당신은")
            seg.log("literal", "+당신은")
        elif re.search(r"[어아]요[.?]$", seg.words[-1]) and not parse_josa(seg.words[0]) and seg.chance(0.5):
            seg.words.insert(0, "저는")
            seg.log("literal", "+저는")
    seg.words = " ".join(seg.words).split(" ")


def _literal_possibility(seg: Segment, line: str) -> str:
    """``달릴 수 있습니다`` → ``달리는 것이 가능합니다`` (and 없 → 불가능)."""
    tail = {"습니다": "합니다", "어요": "해요", "다": "하다"}

    def repl(m: re.Match) -> str:
        verb, exists, ending = m.group(1), m.group(2), m.group(3)
        if verb.endswith("을"):
            adn = verb[:-1] + "는"
        elif jong(verb[-1]) == JONG_RIEUL:
            adn = verb[:-1] + with_jong(verb[-1], JONG_NONE) + "는"
        else:
            return m.group(0)
        new = f"{adn} 것이 {'가능' if exists == '있' else '불가능'}{tail[ending]}"
        seg.log("literal", f"{m.group(0)}→{new}")
        return new

    pattern = re.compile(r"(\S+) 수 (있|없)(습니다|어요|다)(?=[\s.,?!]|$)")
    out, last = [], 0
    for m in pattern.finditer(line):
        if seg.chance(0.8):
            out.append(line[last : m.start()] + repl(m))
            last = m.end()
    out.append(line[last:])
    return "".join(out)


def make_weak(seg: Segment) -> None:
    """Meaning errors: wrong word choices, dropped content words, wrong numbers, truncations, plus form errors."""
    cands = seg.wrong_word_candidates()
    for i in cands:
        if seg.chance(0.4):
            old_new = seg.replace_in_word(i, WRONG_LEXICON, _WRONG_KEYS, whole_body=False)
            if old_new:
                seg.log("lexical", "→".join(old_new))
    if seg.chance(0.35):
        seg.change_number()
    if (cands := seg.josa_candidates()) and seg.chance(0.4):
        seg.swap_josa(seg.pick(cands))
    if (cands := seg.ending_candidates()) and seg.chance(0.3):
        seg.change_ending(seg.pick(cands))
    n_drop = (1 if seg.chance(0.6) else 0) + (1 if len(seg.words) >= 9 and seg.chance(0.4) else 0)
    for _ in range(n_drop):
        if cands := seg.drop_candidates():
            i = seg.pick(cands)
            seg.log("drop", seg.words[i])
            del seg.words[i]
    if len(seg.words) >= 6 and seg.chance(0.15):
        keep = max(3, int(len(seg.words) * (0.6 + 0.25 * seg.rng.random())))
        cut = len(seg.words) - keep
        seg.log("truncate", " ".join(seg.words[keep:]), cut)
        seg.words = seg.words[:keep]
    if not seg.edits and (cands := seg.drop_candidates()):
        i = seg.pick(cands)
        seg.log("drop", seg.words[i])
        del seg.words[i]


MAKERS: dict[str, Callable[[Segment], None]] = {
    "sys_strong": make_strong,
    "sys_literal": make_literal,
    "sys_josa": make_josa,
    "sys_order": make_order,
    "sys_weak": make_weak,
}


# ---- human scores ------------------------------------------------------------------------------------------------
def penalty(edits: list[tuple[str, str, int]]) -> float:
    return sum(COST[kind] * count for kind, _, count in edits)


def rater_noise(rng: random.Random) -> float:
    """≈ N(0, RATER_NOISE²): the Irwin–Hall sum of 12 uniforms minus 6."""
    return RATER_NOISE * (sum(rng.random() for _ in range(12)) - 6.0)


def human_score(edits: list[tuple[str, str, int]], rng: random.Random) -> int:
    """score = clip(round(HUMAN_BASE − Σ COST[kind]·count + noise), 0, 100)."""
    return int(min(100, max(0, round(HUMAN_BASE - penalty(edits) + rater_noise(rng)))))


# ---- driver ------------------------------------------------------------------------------------------------------
def load_sentences() -> list[tuple[str, str, str]]:
    spec = importlib.util.spec_from_file_location("sentences_ko", HERE / "sentences_ko.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SENTENCES


def generate(sentences: list[tuple[str, str, str]]) -> dict[str, str]:
    """All output files as ``{relative path: text}``."""
    refs = [ko for _, _, ko in sentences]
    files: dict[str, str] = {
        "src.txt": "".join(en + "\n" for _, en, _ in sentences),
        "ref.txt": "".join(ko + "\n" for ko in refs),
    }
    edits_rows = ["system\tseg_id\tpenalty\tedits"]
    human_rows = ["system\tseg_id\tscore"]
    for name in SYSTEMS:
        hyps = []
        for seg_id, ref in enumerate(refs):
            seg = Segment(ref, random.Random(f"{SEED}:{name}:{seg_id}"))
            MAKERS[name](seg)
            hyp = seg.text()
            if hyp == ref and seg.edits:  # an edit that undid itself
                seg.edits.clear()
            hyps.append(hyp)
            edit_text = " | ".join(f"{k}:{w}" + (f"×{c}" if c != 1 else "") for k, w, c in seg.edits)
            edits_rows.append(f"{name}\t{seg_id}\t{penalty(seg.edits):g}\t{edit_text}")
            rng = random.Random(f"{SEED}:human:{name}:{seg_id}")
            if rng.random() >= MISSING_RATE:
                human_rows.append(f"{name}\t{seg_id}\t{human_score(seg.edits, rng)}")
        files[f"systems/{name}.txt"] = "".join(h + "\n" for h in hyps)
    files["edits.tsv"] = "\n".join(edits_rows) + "\n"
    files["human.tsv"] = "\n".join(human_rows) + "\n"
    return files


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=HERE, help="output directory (default: beside this script)"
    )
    args = parser.parse_args(argv)
    for rel, text in generate(load_sentences()).items():
        path = args.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        print(f"wrote {path} ({len(text.encode('utf-8'))} bytes)")


if __name__ == "__main__":
    main()
