"""Exactness tests for :mod:`korean_eval.metrics.fast_ter`: zero differences from sacrebleu 2.6.0's TER statistics.

Every rule of sacrebleu's TER (``sacrebleu/metrics/lib_ter.py``, ``ter.py``) that the fast TER reproduces is hit on
purpose by small constructed pairs at its boundary, each compared with a live sacrebleu computation (never a stored
value): the shift distance limit (50), the shift size limit (10), the edges of the beam's band (25 columns around the
pseudo-diagonal, widened to ``ceil(m / 2n + 25)`` past a length ratio of 50, last row unbounded), the budget of 1000
shift candidates (boundary, and a round that runs out is discarded, in the first round or after shifts), the ranking
of shifts and its tie-breaks, the back-trace's preferences, the Tercom filters, the cost of a shift, several
references (fewest edits, average length, ``None``), empty sides and the tokenizer options. Where the boundary is one
of sacrebleu's constants, sacrebleu run with the neighbouring value shows that the pair depends on it; where it is a
tie, sacrebleu's own candidate keys show the tie. Realistic Korean pairs at every token level, long pairs of very
unequal lengths at every checkpoint stride of the banded kernel, one seeded random sweep and a property test look
for what no rule above names.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache

import numpy as np
import pytest
import sacrebleu.metrics.lib_ter as lib_ter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_eval.levels.registry import get_level
from korean_eval.metrics.fast_ter import ter_statistics, ter_statistics_sacrebleu
from korean_eval.metrics.kernels.ter_shift import CHECKPOINT_CELLS, ter_pair

TokenPair = tuple[list[str], list[str]]

SENTENCES: tuple[str, ...] = (
    "오늘 아침에 나는 동생과 함께 시장에 가서 사과를 샀다.",
    "회의는 오후 세 시에 시작될 예정이니 늦지 않도록 주의하세요.",
    "그 영화는 생각보다 훨씬 재미있었고 배우들의 연기도 훌륭했다.",
    "정부는 내년부터 대중교통 요금을 인상하겠다고 발표했다.",
    "비가 많이 와서 우리는 소풍을 다음 주로 미루기로 했다.",
    "이 책은 한국의 전통 음식과 그 역사를 자세히 소개한다.",
    "할머니께서는 매일 아침 공원에서 산책을 하신다.",
    "새로운 스마트폰은 배터리 수명이 길고 카메라 성능이 뛰어나다.",
    "학생들은 시험이 끝나자마자 도서관을 나와 운동장으로 뛰어갔다.",
    "저는 커피보다 녹차를 더 좋아하지만 오늘은 커피를 마시겠습니다.",
    "서울에서 부산까지 기차로 가면 두 시간 반 정도 걸린다.",
    "그는 어려운 문제를 포기하지 않고 끝까지 해결하려고 노력했다.",
    "이번 주말에는 가족들과 함께 제주도로 여행을 떠날 계획이다.",
    "의사는 환자에게 충분한 휴식과 규칙적인 운동을 권했다.",
    "우리 회사는 다음 달에 새로운 제품을 출시할 예정입니다.",
    "어제 본 뉴스에 따르면 올해 여름은 유난히 더울 것이라고 한다.",
    "아이들이 눈사람을 만들면서 즐겁게 웃고 있었다.",
    "이 식당의 김치찌개는 맵지만 정말 맛있어서 자주 온다.",
    "도서관에서는 휴대전화를 무음으로 설정해 주시기 바랍니다.",
    "경찰은 사고 원인을 조사하기 위해 목격자들을 찾고 있다.",
    "나는 어릴 때부터 피아노를 배워서 지금도 가끔 연주한다.",
    "환경을 보호하려면 일회용품 사용을 줄여야 한다.",
    "친구가 보낸 편지를 읽고 나는 한참 동안 아무 말도 하지 못했다.",
    "내일 아침 일곱 시까지 공항에 도착해야 하니 일찍 자자.",
    "그 가수의 새 앨범은 발매되자마자 음원 차트 일위를 차지했다.",
    "고양이가 창문 옆에 앉아서 밖을 조용히 바라보고 있다.",
    "선생님은 학생들에게 숙제를 금요일까지 제출하라고 말씀하셨다.",
    "봄이 오면 이 길은 벚꽃으로 가득 차서 많은 사람들이 찾는다.",
    "그녀는 외국어를 배우는 것이 즐겁다고 말했다.",
    "박물관은 월요일마다 휴관하므로 다른 날에 방문하시기 바랍니다.",
    "Samsung과 LG는 새로운 OLED TV를 CES에서 공개했다.",
    "나는 Python으로 간단한 Web 서버를 만들었다.",
)

# Particle alternations (both directions are tried; the first match in the sentence is swapped).
PARTICLE_SWAPS: tuple[tuple[str, str], ...] = (
    ("은 ", "는 "), ("는 ", "은 "), ("이 ", "가 "), ("가 ", "이 "), ("을 ", "를 "), ("를 ", "을 "),
    ("에서 ", "에게 "), ("에게 ", "에서 "), ("과 ", "와 "), ("와 ", "과 "), ("도 ", "만 "), ("에 ", "로 "),
)

LEVELS: tuple[str, ...] = ("word", "mecab", "kiwi", "char", "jamo")


# ------------------------------------------------------------------------------------------------ helpers


def _words(prefix: str, count: int) -> list[str]:
    """``count`` distinct tokens ``prefix0, prefix1, …`` (lower-case and unpunctuated: Tercom keeps them as they are)."""
    return [f"{prefix}{i}" for i in range(count)]


def _split(hyp: str, ref: str) -> TokenPair:
    return hyp.split(), ref.split()


def _assert_identical(hyps: Sequence[str], refs: Sequence[Sequence[str | None]], **options: bool) -> np.ndarray:
    """Assert fast == sacrebleu exactly; return the statistics."""
    expected = ter_statistics_sacrebleu(hyps, refs, **options)
    got = ter_statistics(hyps, refs, n_jobs=1, **options)
    assert got.shape == (len(hyps), 2)
    assert got.dtype == np.float64
    diff = np.nonzero((got != expected).any(axis=1))[0]
    assert diff.size == 0, [(hyps[i], [r[i] for r in refs], got[i], expected[i]) for i in diff[:5]]
    return got


def _assert_pairs_identical(pairs: Sequence[TokenPair]) -> list[int]:
    """Each (hypothesis, reference) token pair has sacrebleu's edits; returns them."""
    stats = _assert_identical([" ".join(h) for h, _ in pairs], [[" ".join(r) for _, r in pairs]])
    return [int(e) for e in stats[:, 0]]


@contextmanager
def _sacrebleu_constants(**values: float) -> Iterator[None]:
    """sacrebleu's ``lib_ter`` module constants set to ``values`` for a while (its functions read them per call)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in values.items():
            patch.setattr(lib_ter, name, value, raising=True)
        yield


def _sacrebleu_edits(pair: TokenPair, **constants: float) -> int:
    """sacrebleu's number of edits of ``pair``, with some of its constants changed."""
    with _sacrebleu_constants(**constants):
        return lib_ter.translation_edit_rate(*pair)[0]


def _sacrebleu_rounds(pair: TokenPair) -> tuple[int, list[list[tuple[int, int, int, int]]], list[int]]:
    """sacrebleu's edits of ``pair``, the ranking keys ``(gain, length, -start_h, -target)`` of every candidate it
    scored in each shift round (``lib_ter._shift``), and the candidates checked so far at the end of each round.

    ``_perform_shift`` is wrapped to see each candidate; the gains are read back from the round's own
    ``BeamEditDistance`` (a cached, deterministic function of the shifted words)."""
    keys: list[list[tuple[int, int, int, int]]] = []
    checked: list[int] = []
    shift, perform = lib_ter._shift, lib_ter._perform_shift
    moves: list[tuple[int, int, int, list[str]]] = []

    def recording_perform(words: list[str], start: int, length: int, target: int) -> list[str]:
        out = perform(words, start, length, target)
        moves.append((start, length, target, out))
        return out

    def recording_shift(words_h: list[str], words_r: list[str], cached_ed: lib_ter.BeamEditDistance,
                        checked_so_far: int) -> tuple[int, list[str], int]:
        moves.clear()
        result = shift(words_h, words_r, cached_ed, checked_so_far)
        pre_score = cached_ed(words_h)[0]
        keys.append([(pre_score - cached_ed(out)[0], length, -start, -target) for start, length, target, out in moves])
        checked.append(result[2])
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lib_ter, "_shift", recording_shift)
        patch.setattr(lib_ter, "_perform_shift", recording_perform)
        edits = lib_ter.translation_edit_rate(*pair)[0]
    return edits, keys, checked


def _tie_broken_by(keys: list[list[tuple[int, int, int, int]]], field: int) -> bool:
    """Whether in some round the best candidate (positive gain) ties with another on the key's first ``field``
    fields and the tie is broken by field ``field`` (1: length, 2: start, 3: target)."""
    for round_keys in keys:
        if round_keys and max(round_keys)[0] > 0:
            best = max(round_keys)
            if len({k[field] for k in round_keys if k[:field] == best[:field]}) > 1:
                return True
    return False


def _ids(hyp: Sequence[str], ref: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    vocab = {w: i for i, w in enumerate(sorted(set(hyp) | set(ref)))}
    return (np.array([vocab[w] for w in hyp], np.int32), np.array([vocab[w] for w in ref], np.int32))


def _moved_blocks(rng: random.Random, tokens: list[str], moves: int, longest: int = 8) -> list[str]:
    """``tokens`` with ``moves`` blocks of 1-``longest`` tokens moved elsewhere."""
    out = tokens[:]
    for _ in range(moves):
        if len(out) < 3:
            break
        s = rng.randrange(len(out))
        block = out[s:s + rng.randint(1, longest)]
        del out[s:s + len(block)]
        t = rng.randrange(len(out) + 1)
        out[t:t] = block
    return out


# ------------------------------------------------------------------------- the rules, one at a time


def test_shift_distance_limit() -> None:
    """``_find_shifted_pairs`` skips ``|start_r - start_h| > 50`` (``_MAX_SHIFT_DIST``): one of 60 distinct tokens
    moved 50 or 51 places to the right or to the left. At 50 one shift puts it back (1 edit), at 51 it costs a
    deletion and an insertion (2), and sacrebleu with the limit at 49 (for 50) or 51 (for 51) counts otherwise."""
    ref = _words("t", 60)
    pairs: list[TokenPair] = []
    neighbours: list[int] = []
    for distance, other_limit in ((50, 49), (51, 51)):
        pairs.append((ref[1:distance + 1] + ref[:1] + ref[distance + 1:], ref))  # ref[0] moved right
        pairs.append((ref[distance:distance + 1] + ref[:distance] + ref[distance + 1:], ref))  # moved left
        neighbours += [other_limit, other_limit]
    edits = _assert_pairs_identical(pairs)
    assert edits == [1, 1, 2, 2]
    for pair, limit, e in zip(pairs, neighbours, edits, strict=True):
        assert _sacrebleu_edits(pair, _MAX_SHIFT_DIST=limit) != e


def test_shift_size_limit() -> None:
    """``_find_shifted_pairs`` stops a match at 10 tokens (``_MAX_SHIFT_SIZE``): a block of 10 or 11 distinct
    tokens moved past 15 or 14 others. 10 take one shift, 11 take two, and sacrebleu with the limit at 9 (for 10)
    or 11 (for 11) counts otherwise."""
    ref = _words("t", 40)
    pairs = [(ref[:5] + ref[5 + size:30] + ref[5:5 + size] + ref[30:], ref) for size in (10, 11)]
    edits = _assert_pairs_identical(pairs)
    assert edits == [1, 2]
    assert _sacrebleu_edits(pairs[0], _MAX_SHIFT_SIZE=9) != edits[0]
    assert _sacrebleu_edits(pairs[1], _MAX_SHIFT_SIZE=11) != edits[1]


def test_beam_band_edges() -> None:
    """``BeamEditDistance`` fills columns ``[diag - 25, diag + 25)`` of each row (``_BEAM_WIDTH``; ``diag =
    floor(i · m / n)``). The best path of distinct tokens behind ``k`` extra tokens runs ``k`` columns off the
    diagonal at its widest: right of it when the reference has them (``k`` columns, in row 1: 24 inside the band,
    25 outside), left of it when the hypothesis has them (``floor(k · m / (m + k))`` columns for ``m`` reference
    tokens, in row ``k``: 25 inside, 26 outside). sacrebleu with a beam of 24 and 26 shows which pair touches
    which edge."""
    extra = _words("x", 60)
    ref_30 = _words("t", 30)
    ref_50 = _words("t", 50)
    ref_52 = _words("t", 52)
    pairs: list[TokenPair] = [
        (ref_30, extra[:24] + ref_30),  # right edge, inside: 24 columns
        (ref_30, extra[:25] + ref_30),  # right edge, just outside
        (extra[:50] + ref_50, ref_50),  # left edge, inside: 25 columns
        (extra[:52] + ref_52, ref_52),  # left edge, just outside: 26 columns
    ]
    edits = _assert_pairs_identical(pairs)
    assert _sacrebleu_edits(pairs[0], _BEAM_WIDTH=24) != edits[0]
    assert _sacrebleu_edits(pairs[1], _BEAM_WIDTH=26) != edits[1]
    assert _sacrebleu_edits(pairs[2], _BEAM_WIDTH=24) != edits[2]
    assert _sacrebleu_edits(pairs[3], _BEAM_WIDTH=26) != edits[3]


def test_widened_beam_and_last_row() -> None:
    """Past a length ratio ``m / n`` of 50 the beam is ``ceil(m / 2n + 25)`` (strictly past: at 50 it stays 25),
    and the last row is filled to the end. Hypotheses of 2-3 tokens against 100-300: at ratio exactly 50 (a
    match 80 tokens in, outside row 1's band ``[25, 75)``; a full Levenshtein would use it), at 50.5 (a match at
    column 100, inside the band of ``ceil(50.25) = 51`` only: sacrebleu with the beam 24, i.e. ``ceil(49.25) = 50``,
    counts otherwise), far past it (ratio 100) and the reverse, 300 hypothesis tokens against 3."""
    long = _words("t", 302)
    pairs: list[TokenPair] = [
        ([long[80], long[99]], long[:100]),
        ([long[99], long[100]], long[:101]),
        ([long[10], long[150], long[299]], long[:300]),
        (long[:300], [long[5], long[150], long[290]]),
    ]
    assert len(pairs[0][1]) == 50 * len(pairs[0][0])
    edits = _assert_pairs_identical(pairs)
    assert _sacrebleu_edits(pairs[0], _BEAM_WIDTH=10**6) != edits[0]
    assert _sacrebleu_edits(pairs[1], _BEAM_WIDTH=24) != edits[1]


# (hypothesis, reference) pairs over two or three letters whose shift search reaches its 1000 candidates, found by
# a seeded search over block moves (the shortest found); the test checks with sacrebleu what each one hits.
BUDGET_PAIRS: dict[str, tuple[str, str]] = {
    # the first round passes 1000 checked candidates (at 1003): its best shift is discarded, no shift is made
    "first round": ("a z b a a a a a a b a a a a a a b a a a a a a",
                    "a a a a a b a a a a a a a b a a a a a a a b a"),
    # the second round runs out, after one shift
    "after a shift": ("b b z a a b b a a b b b a a b b a b a a b a a b a a b",
                      "b b a b b a a b b a a b a a b a a b a a b a b b a a b"),
    # the first round ends at exactly 1000: a budget of 1001 would make its shift
    "ends at 1000": ("a a a a a a a a a a a b a b a b a a z b", "a a b b a a a a b a a a a a a a a a"),
    # the second round ends at exactly 999 (its shift is made), the third checks no candidate
    "ends at 999": ("b a b b b a a a a b z b b a b b b b b a b a b a b a b",
                    "b a b b b b b b a b a a a a b a b a b a b b a b b b"),
}


def test_shift_candidate_budget() -> None:
    """sacrebleu stops the shift search once 1000 candidates (``_MAX_SHIFT_CANDIDATES``, counted over all rounds)
    have been checked (a target repeated within a match is skipped, not counted), and discards the best shift of
    the round in which that happened. Pairs whose budget runs out in the first round and after a shift (an
    unlimited budget counts otherwise), and whose rounds end at exactly 1000 and 999 checked candidates (sacrebleu
    with a budget of 1001 and 999 counts otherwise)."""
    pairs = {name: _split(*texts) for name, texts in BUDGET_PAIRS.items()}
    edits = dict(zip(pairs, _assert_pairs_identical(list(pairs.values())), strict=True))
    checked = {name: _sacrebleu_rounds(pair)[2] for name, pair in pairs.items()}
    assert len(checked["first round"]) == 1 and checked["first round"][0] >= 1000
    assert len(checked["after a shift"]) > 1 and checked["after a shift"][-1] >= 1000
    assert checked["ends at 1000"][0] == 1000
    assert 999 in checked["ends at 999"][:-1]
    assert _sacrebleu_edits(pairs["ends at 1000"], _MAX_SHIFT_CANDIDATES=1001) != edits["ends at 1000"]
    assert _sacrebleu_edits(pairs["ends at 999"], _MAX_SHIFT_CANDIDATES=999) != edits["ends at 999"]
    for name in ("first round", "after a shift"):
        assert _sacrebleu_edits(pairs[name], _MAX_SHIFT_CANDIDATES=10**6) != edits[name]


# Tiny pairs: for each rule, the shortest pair a seeded random search found on which breaking that rule in
# korean_eval's kernels changes the edits.
TIE_PAIRS: dict[str, tuple[str, str]] = {
    "length": ("b b c a", "a c b b"),  # equal gains: the longer shift wins
    "start": ("a a b c", "b a c a"),  # equal gains and lengths: the earlier start wins
    "target": ("a b c b", "b b a c"),  # equal gains, lengths and starts: the earlier target wins
}
RULE_PAIRS: dict[str, tuple[str, str]] = {
    "one shift": ("a b", "b a"),  # a shift costs one edit
    "back-trace: substitution before deletion": ("a b c b", "b b a"),
    "back-trace: deletion before insertion": ("a z b b", "b b a a"),
    "gain bound": ("a b z", "b e a"),  # a block moved past d tokens changes up to 2 min(L, d) edits
    "target inside the span": ("a b b z", "b a a b"),  # Tercom filter: no shift within its own span
    "hypothesis span without error": ("c a a b d", "b c b a"),  # Tercom filter: both spans need an error
    "gain of one": ("b c a b", "c b b a"),  # a shift is made for a gain of one edit (its own cost)
    "target clamped": ("a b a a a b", "b a a b a a"),  # _perform_shift with a target inside the span, near the end
}


def test_shift_ranking_and_filters() -> None:
    """sacrebleu's ranking key ``(gain, length, -start_h, -target)`` with ties broken in that order (each tie shown
    by sacrebleu's own candidate keys), a shift taken for any positive gain, the back-trace's preference
    (substitution or match, then deletion, then insertion), the Tercom filters, ``_perform_shift``'s clamping and
    the gain bound that lets the kernel skip candidates, on the shortest pairs where each matters."""
    pairs = {name: _split(*texts) for name, texts in {**TIE_PAIRS, **RULE_PAIRS}.items()}
    _assert_pairs_identical(list(pairs.values()))
    for field, name in enumerate(TIE_PAIRS, start=1):
        assert _tie_broken_by(_sacrebleu_rounds(pairs[name])[1], field), name


# ------------------------------------------------------------------------------ references and options


def test_several_references() -> None:
    """``num_edits`` is the fewest edits over a segment's references, ``ref_length`` their average length (true
    division, over the references present: ``None`` is dropped), an empty reference counts 0 tokens and
    ``len(hyp)`` edits. The best reference is the first, the second or the third; averages are non-integers."""
    hyps = ["가 나 다 라", "가 나 다 라", "가 나 다 라", "마 바", "가 나", "가"]
    refs: list[list[str | None]] = [
        ["가 나 다 라", "라 다 나 가 마", "가 나 다 라 마 바 사", "바 마 사", "", None],
        ["나 가 다", "가 나 다 라 마", None, "마 바", "가 나", "가 나"],
        ["가 나", "가", "가 나 다 라", None, None, "가 나 다"],
    ]
    stats = _assert_identical(hyps, refs)
    assert (stats[:, 1] != np.floor(stats[:, 1])).sum() >= 3
    best = [min((lib_ter.translation_edit_rate(h.split(), stream[i].split())[0], j)
                for j, stream in enumerate(refs) if stream[i] is not None)[1] for i, h in enumerate(hyps)]
    assert set(best) == {0, 1, 2}


def test_empty_sides() -> None:
    """An empty reference scores ``(len(hyp), 0)``, an empty hypothesis ``len(ref)`` edits, also when the Tercom
    tokenizer empties a side (punctuation removed)."""
    hyps = ["", "", "가 나 다", "가 나 다", "?!", "가 나 .", "  가 나   다  "]
    refs = ["", "가 나 다", "", "가 나 다", "가 나", "...", "가 나 다"]
    for no_punct in (False, True):
        _assert_identical(hyps, [refs], no_punct=no_punct)
    stats = ter_statistics(hyps[:3], [refs[:3]])
    assert stats.tolist() == [[0, 0], [3, 3], [3, 0]]


def test_tercom_options_identical() -> None:
    """case_sensitive / normalized / no_punct / asian_support go through the same Tercom tokenizer as sacrebleu,
    references pre-processed twice as sacrebleu does."""
    pairs = [(p, s) for s in SENTENCES[::3] for p in _perturbations(s, random.Random(0))[:2]]
    pairs += [
        ("Dr. Kim's 3.5-m &amp; \"A, B\"", "dr. kim's 3.5 - m & \"a,b\" 。"),
        ("Samsung 은 OLED TV 를 공개 했다", "samsung 은 oled tv 를 공개 했다"),
        ("The Cat sat", "the cat SAT"),
        ("카카오's 새 서비스", "새 서비스는 카카오's."),  # normalized: a second pass splits "'s" once "." is split off
        ("가격은 1만 원", "가격은 .,1만 원"),  # normalized: a second pass splits ",1"
    ]
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    for case_sensitive in (False, True):
        for normalized in (False, True):
            for no_punct in (False, True):
                for asian_support in (False, True):
                    _assert_identical(hyps, [refs], case_sensitive=case_sensitive, normalized=normalized,
                                      no_punct=no_punct, asian_support=asian_support)
    lower = ter_statistics(hyps[-4:-2], [refs[-4:-2]])
    upper = ter_statistics(hyps[-4:-2], [refs[-4:-2]], case_sensitive=True)
    assert (lower[:, 0] == 0).all() and (upper[:, 0] > 0).all()


def test_none_references_and_validation() -> None:
    """``None`` references are dropped as in sacrebleu; malformed inputs raise ValueError."""
    hyps = ["가 나 다", "라 마"]
    refs: list[list[str | None]] = [["가 나", None], [None, "라 마 바"]]
    _assert_identical(hyps, refs)
    assert ter_statistics([], [[]]).shape == (0, 2)
    with pytest.raises(ValueError):
        ter_statistics(["가"], [])
    with pytest.raises(ValueError):
        ter_statistics(["가", "나"], [["가"]])
    with pytest.raises(ValueError):
        ter_statistics(["가"], [[None]])
    with pytest.raises(ValueError):
        ter_statistics(["가"], [["가"]], n_jobs=0)


# --------------------------------------------------------------------------------- Korean at every level


def _perturbations(sentence: str, rng: random.Random) -> list[str]:
    """Systematic perturbations of ``sentence``: particle swap, drop, duplicate, reorder, move, spacing."""
    words = sentence.split()
    out: list[str] = []
    for a, b in PARTICLE_SWAPS:
        if a in sentence:
            out.append(sentence.replace(a, b, 1))
            break
    k = rng.randrange(len(words))
    out.append(" ".join(words[:k] + words[k + 1:]))  # dropped word
    k = rng.randrange(len(words))
    out.append(" ".join(words[:k + 1] + words[k:]))  # duplicated word
    if len(words) > 2:
        k = rng.randrange(len(words) - 1)
        swapped = words[:]
        swapped[k], swapped[k + 1] = swapped[k + 1], swapped[k]
        out.append(" ".join(swapped))  # adjacent words reordered
        moved = words[:]
        w = moved.pop(rng.randrange(len(moved)))
        moved.insert(rng.randrange(len(moved) + 1), w)
        out.append(" ".join(moved))  # one word moved far
        tail_first = words[len(words) // 2:] + words[: len(words) // 2]
        out.append(" ".join(tail_first))  # clause-level reordering
    k = rng.randrange(len(words) - 1)
    out.append(" ".join(words[:k] + [words[k] + words[k + 1]] + words[k + 2:]))  # missing space
    k = rng.randrange(len(words))
    w = words[k]
    if len(w) > 1:
        cut = rng.randrange(1, len(w))
        out.append(" ".join(words[:k] + [w[:cut], w[cut:]] + words[k + 1:]))  # extra space
    return out


def _sentence_pairs(seed: int = 0) -> list[tuple[str, str]]:
    """(hypothesis, reference) raw-text pairs: perturbations of every sentence against the original."""
    rng = random.Random(seed)
    pairs: list[tuple[str, str]] = []
    for s in SENTENCES:
        pairs.append((s, s))  # identical
        pairs.extend((p, s) for p in _perturbations(s, rng))
    return pairs


def _fragment_pairs(n: int, seed: int = 1) -> list[tuple[str, str]]:
    """``n`` short (1-4 word) fragment pairs with perturbations, cheap for sacrebleu even at the jamo level."""
    rng = random.Random(seed)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < n:
        words = rng.choice(SENTENCES).split()
        k = rng.randint(1, min(4, len(words)))
        start = rng.randrange(len(words) - k + 1)
        ref = " ".join(words[start:start + k])
        other = " ".join(rng.choice(SENTENCES).split()[:k])
        candidates = [ref, other] + (_perturbations(ref, rng) if k > 1 else [])
        pairs.append((rng.choice(candidates), ref))
    return pairs


@cache
def _tokenized(level: str, texts: tuple[str, ...]) -> tuple[str, ...]:
    """``texts`` as the pipeline gives them to TER at ``level`` (tokens joined by single spaces)."""
    return tuple(get_level(level).tokenize_joined(texts).joined)


@pytest.mark.parametrize("level", LEVELS)
def test_korean_pairs_identical(level: str) -> None:
    """Korean pairs at every token level as the pipeline tokenizes them (a third of the full sentences with particle
    swaps, dropped, duplicated and reordered words and spacing changes, a 24th at the jamo level, where sacrebleu
    takes 0.1 s per sentence pair; plus 60 short fragments), one and two references: zero differences."""
    sentence_pairs = _sentence_pairs()
    pairs = sentence_pairs[:: 24 if level == "jamo" else 3] + _fragment_pairs(60)
    hyps = _tokenized(level, tuple(h for h, _ in pairs))
    refs = _tokenized(level, tuple(r for _, r in pairs))
    stats = _assert_identical(hyps, [refs])
    assert (stats[:, 0] > 0).any() and (stats[:, 0] == 0).any()
    rng = random.Random(7)
    second = tuple(rng.choice(_perturbations(r, rng)) if len(r.split()) > 1 else r + " 것" for _, r in pairs[-60:])
    stats = _assert_identical(hyps[-60:], [refs[-60:], _tokenized(level, second)])
    assert (stats[:, 1] != np.floor(stats[:, 1])).any()  # some averages are non-integers


# ------------------------------------------------------------------- long pairs and the banded kernel


def _subsequence(rng: random.Random, tokens: list[str], k: int) -> list[str]:
    """``k`` tokens of ``tokens`` in their order (random positions)."""
    return [tokens[i] for i in sorted(rng.sample(range(len(tokens)), k))]


def _long_unequal_pairs(seed: int) -> list[TokenPair]:
    """(hypothesis, reference) token lists of very unequal lengths: the short side is a subsequence of the long
    one with a few blocks moved. ``m >> n`` (``m >= 51 n``: the beam widens to ``ceil(m / 2n + 25)``) and
    ``n >> m`` (up to 80 times longer hypotheses)."""
    rng = random.Random(seed)
    pairs: list[TokenPair] = []
    for kind in ("wide", "tall") * 3:
        alphabet = [f"w{i}" for i in range(rng.randint(2, 40))]
        if kind == "wide":
            n = rng.randint(1, 20)
            ref = [rng.choice(alphabet) for _ in range(n * rng.randint(51, 120))]
            pairs.append((_moved_blocks(rng, _subsequence(rng, ref, n), rng.randint(0, 3)), ref))
        else:
            m = rng.randint(1, 20)
            hyp = [rng.choice(alphabet) for _ in range(m * rng.randint(20, 80))]
            pairs.append((hyp, _moved_blocks(rng, _subsequence(rng, hyp, m), rng.randint(0, 3))))
    return pairs


def test_long_unequal_lengths_identical() -> None:
    """Long, very unequal pairs (widened beam; rows much wider or much narrower than the diagonal step) equal
    sacrebleu's ``translation_edit_rate``, for the kernel at every checkpoint stride (all rows kept, every 7th or
    64th band cell, or no checkpoint at all) and through :func:`ter_statistics`."""
    pairs = _long_unequal_pairs(11)
    assert any(len(r) > 51 * len(h) for h, r in pairs) and any(len(h) > 20 * len(r) for h, r in pairs)
    expected = [lib_ter.translation_edit_rate(h, r)[0] for h, r in pairs]
    for (hyp, ref), edits in zip(pairs, expected, strict=True):
        h_ids, r_ids = _ids(hyp, ref)
        for cells in (1, 7, 64, CHECKPOINT_CELLS):
            assert ter_pair(h_ids, r_ids, cells) == edits, (len(hyp), len(ref), cells)
    stats = ter_statistics([" ".join(h) for h, _ in pairs], [[" ".join(r) for _, r in pairs]], n_jobs=1)
    np.testing.assert_array_equal(stats[:, 0], expected)


def test_long_similar_pairs_do_not_depend_on_checkpoints() -> None:
    """Long, nearly identical pairs (block moves and substitutions, so shifts are applied and candidates are scored
    far from any checkpoint) give the same edits whether every band row is kept or only a few checkpoints."""
    rng = random.Random(21)
    for length in (3_000, 12_000):
        ref = [f"t{rng.randrange(30)}" for _ in range(length)]
        hyp = _moved_blocks(rng, ref, 6)
        for _ in range(10):
            hyp[rng.randrange(len(hyp))] = "x"
        h_ids, r_ids = _ids(hyp, ref)
        full = ter_pair(h_ids, r_ids, 10**12)
        assert 0 < full < length // 10
        for cells in (1, 1000, 50_000):
            assert ter_pair(h_ids, r_ids, cells) == full


def test_n_jobs_does_not_change_results() -> None:
    """Thread-parallel runs give the same array as the serial one."""
    pairs = _sentence_pairs()
    hyps = _tokenized("char", tuple(h for h, _ in pairs))
    refs = _tokenized("char", tuple(r for _, r in pairs))
    serial = ter_statistics(hyps, [refs], n_jobs=1)
    for n_jobs in (2, 3, None):
        assert np.array_equal(ter_statistics(hyps, [refs], n_jobs=n_jobs), serial)


# ---------------------------------------------------------------------------------------- random sweeps


def test_random_small_alphabet_identical() -> None:
    """Seeded random sequences over tiny alphabets (many equal-cost shifts: stresses ranking and tie-breaking)."""
    rng = random.Random(12345)
    hyps: list[str] = []
    refs: list[str] = []
    for _ in range(400):
        alphabet = "가나다라마바사"[: rng.randint(1, 7)]
        ref = [rng.choice(alphabet) for _ in range(rng.randint(0, 20))]
        if ref and rng.random() < 0.5:  # block moves of the reference
            hyp = _moved_blocks(rng, ref, rng.randint(1, 4), longest=10)
        else:
            hyp = [rng.choice(alphabet) for _ in range(rng.randint(0, 20))]
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    _assert_identical(hyps, [refs])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hyp=st.lists(st.sampled_from(["가", "나", "다", "A", "a"]), max_size=25),
    ref=st.lists(st.sampled_from(["가", "나", "다", "A", "a"]), max_size=25),
    ref2=st.none() | st.lists(st.sampled_from(["가", "나", "다"]), max_size=25),
    case_sensitive=st.booleans(),
)
def test_property_matches_sacrebleu(hyp: list[str], ref: list[str], ref2: list[str] | None,
                                    case_sensitive: bool) -> None:
    """Random short token lists over a tiny alphabet: fast == sacrebleu, one or two references."""
    refs = [[" ".join(ref)]] if ref2 is None else [[" ".join(ref)], [" ".join(ref2)]]
    _assert_identical([" ".join(hyp)], refs, case_sensitive=case_sensitive)
