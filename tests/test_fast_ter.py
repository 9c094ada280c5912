"""Exactness tests for :mod:`korean_eval.metrics.fast_ter`: zero differences from sacrebleu's TER statistics.

Korean sentence pairs (hand-written sentences plus systematic perturbations: particle swaps, dropped, duplicated
and reordered words, spacing changes) are tokenised at the word, mecab, kiwi, char and jamo levels and compared
with sacrebleu by exact float equality, together with edge cases (empty sides, identical strings, 400+ tokens,
heavily repeated tokens, mixed-case Latin, two references, random sequences over a tiny alphabet, long pairs of
very unequal lengths at every checkpoint stride of the banded kernel) and a hypothesis property test. sacrebleu is slow on long jamo sequences, so the jamo level uses mostly short
fragments and only a few full sentences.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from functools import cache

import jamo
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from korean_eval.metrics.fast_ter import ter_statistics, ter_statistics_sacrebleu
from korean_eval.metrics.ter_kernels import CHECKPOINT_CELLS, ter_pair

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
def _mecab() -> Callable[[str], list[str]]:
    from mecab import MeCab

    return MeCab().morphs


@cache
def _kiwi() -> Callable[[str], list[str]]:
    from kiwipiepy import Kiwi

    kiwi = Kiwi()
    return lambda text: [t.form for t in kiwi.tokenize(text)]


def _tok_word(text: str) -> str:
    return Tokenizer13a()(text)


def _tok_mecab(text: str) -> str:
    return " ".join(_mecab()(text))


def _tok_kiwi(text: str) -> str:
    return " ".join(_kiwi()(text))


def _tok_char(text: str) -> str:
    return " ".join(c for c in text if not c.isspace())


def _tok_jamo(text: str) -> str:
    return " ".join(c for c in jamo.j2hcj(jamo.h2j(text)) if not c.isspace())


LEVELS: dict[str, Callable[[str], str]] = {
    "word": _tok_word,
    "mecab": _tok_mecab,
    "kiwi": _tok_kiwi,
    "char": _tok_char,
    "jamo": _tok_jamo,
}


@pytest.fixture(scope="module", autouse=True)
def _sacrebleu_once_per_pair() -> Iterator[None]:
    """sacrebleu's per-pair ``translation_edit_rate`` (what ``ter_statistics_sacrebleu`` spends its time in) is a
    pure function of the two token lists, so each distinct pair is computed once per module: the case-sensitive
    and case-insensitive runs of the edge cases share their Korean pairs (1.7 s of sacrebleu CPU for one jamo pair),
    and a few fragment pairs repeat. Still a live sacrebleu computation of every pair the tests compare.
    ``test_unequal_lengths_and_shift_budget_identical`` puts its counting wrapper over this one (it must see
    sacrebleu's rounds, and does: its pairs occur nowhere else)."""
    import sacrebleu.metrics.ter as ter_module

    original = ter_module.translation_edit_rate
    results: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[int, int]] = {}

    def once(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
        key = (tuple(words_hyp), tuple(words_ref))
        if key not in results:
            results[key] = original(words_hyp, words_ref)
        return results[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ter_module, "translation_edit_rate", once)
        yield


def _assert_identical(hyps: Sequence[str], refs: Sequence[Sequence[str | None]], **options: bool) -> np.ndarray:
    """Assert fast == sacrebleu exactly (and n_jobs-independence); return the statistics."""
    expected = ter_statistics_sacrebleu(hyps, refs, **options)
    got = ter_statistics(hyps, refs, n_jobs=1, **options)
    assert got.shape == (len(hyps), 2)
    assert got.dtype == np.float64
    diff = np.nonzero((got != expected).any(axis=1))[0]
    assert diff.size == 0, [(hyps[i], [r[i] for r in refs], got[i], expected[i]) for i in diff[:5]]
    return got


@pytest.mark.parametrize("level", list(LEVELS))
def test_korean_pairs_identical(level: str) -> None:
    """>= 500 tokenised Korean pairs per level (full sentences + fragments), zero differences."""
    tok = LEVELS[level]
    sentence_pairs = _sentence_pairs()
    if level == "jamo":
        sentence_pairs = sentence_pairs[::8]  # fewer full sentences: sacrebleu is slow on long jamo sequences
    pairs = sentence_pairs + _fragment_pairs(max(0, 520 - len(sentence_pairs)))
    hyps = [tok(h) for h, _ in pairs]
    refs = [tok(r) for _, r in pairs]
    assert len(hyps) >= 500
    stats = _assert_identical(hyps, [refs])
    assert (stats[:, 0] > 0).any() and (stats[:, 0] == 0).any()


@pytest.mark.parametrize("level", list(LEVELS))
def test_two_references_identical(level: str) -> None:
    """Two references per segment: best edits over references, average reference length."""
    tok = LEVELS[level]
    rng = random.Random(7)
    pairs = _fragment_pairs(60, seed=3)
    hyps = [tok(h) for h, _ in pairs]
    refs1 = [tok(r) for _, r in pairs]
    refs2 = [tok(rng.choice(_perturbations(r, rng)) if len(r.split()) > 1 else r + " 것") for _, r in pairs]
    stats = _assert_identical(hyps, [refs1, refs2])
    assert (stats[:, 1] != np.floor(stats[:, 1])).any()  # some averages are non-integers


def test_edge_cases_identical() -> None:
    """Empty sides, identical strings, a few 400+ token pairs, repeated tokens, mixed-case Latin."""
    long_ref = " ".join(SENTENCES[:16])
    long_words = long_ref.split()
    long_words.insert(40, long_words.pop(10))
    long_words[20] += "요"
    del long_words[60]
    long_hyp = " ".join(long_words).replace("는 ", "은 ", 1)
    rep_a = " ".join(["가"] * 120)
    rep_b = " ".join(["가", "나"] * 60)
    hyps = [
        "", "", "가 나 다", "가 나 다",
        _tok_char(long_hyp), _tok_word(long_hyp), _tok_jamo(long_hyp), _tok_jamo(SENTENCES[3] + " " + SENTENCES[4]),
        rep_a, rep_b, " ".join(["가"] * 40 + ["나"] * 40), "가 " * 30 + "나",
        "Samsung 은 OLED TV 를 공개 했다", "SAMSUNG 은 oled tv 를 공개 했다", "The Cat sat", "the cat SAT",
        "  가 나   다  ", "a b c d e f g h i j k l m n o p",
    ]
    refs = [
        "", "가 나 다", "", "가 나 다",
        _tok_char(long_ref), _tok_word(long_ref), _tok_jamo(long_ref), _tok_jamo(SENTENCES[4] + " " + SENTENCES[3]),
        rep_b, rep_a, " ".join(["나"] * 40 + ["가"] * 40), "나 " + "가 " * 30,
        "samsung 은 oled tv 를 공개 했다", "Samsung 은 OLED TV 를 공개 했다", "the cat sat", "The Cat Sat",
        "가 나 다", "i j k l m n o p a b c d e f g h",
    ]
    assert len(_tok_char(long_hyp).split()) >= 400
    for case_sensitive in (False, True):
        _assert_identical(hyps, [refs], case_sensitive=case_sensitive)
    # Case handling really matters for these inputs.
    lower = ter_statistics(hyps[12:16], [refs[12:16]])
    upper = ter_statistics(hyps[12:16], [refs[12:16]], case_sensitive=True)
    assert (lower[:, 0] == 0).all() and (upper[:, 0] > 0).all()


def test_tercom_options_identical() -> None:
    """normalized / no_punct / asian_support go through the same Tercom tokenizer as sacrebleu."""
    pairs = _sentence_pairs()[:60] + [("Dr. Kim's 3.5-m &amp; \"A, B\"", "dr. kim's 3.5 - m & \"a,b\" 。")]
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    for normalized in (False, True):
        for no_punct in (False, True):
            for asian_support in (False, True):
                _assert_identical(hyps, [refs], normalized=normalized, no_punct=no_punct,
                                  asian_support=asian_support)


def test_random_small_alphabet_identical() -> None:
    """Seeded random sequences over tiny alphabets (many equal-cost shifts: stresses ranking and tie-breaking)."""
    rng = random.Random(12345)
    hyps: list[str] = []
    refs: list[str] = []
    for _ in range(1500):
        alphabet = "가나다라마바사"[: rng.randint(1, 7)]
        m = rng.randint(0, 20)
        ref = [rng.choice(alphabet) for _ in range(m)]
        if ref and rng.random() < 0.5:  # block moves of the reference
            hyp = ref[:]
            for _ in range(rng.randint(1, 4)):
                s = rng.randrange(len(hyp))
                seg = hyp[s:s + rng.randint(1, 10)]
                del hyp[s:s + len(seg)]
                t = rng.randrange(len(hyp) + 1)
                hyp[t:t] = seg
        else:
            hyp = [rng.choice(alphabet) for _ in range(rng.randint(0, 20))]
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    _assert_identical(hyps, [refs])


def test_unequal_lengths_and_shift_budget_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    """Very unequal lengths (widened beam) and pairs that exhaust sacrebleu's 1000-candidate shift budget.

    The budget can run out in the first shift round or after some shifts were applied (then the best shift of
    that round is discarded); sacrebleu's ``_shift`` is wrapped to check that the data covers both.
    """
    import sacrebleu.metrics.lib_ter as lib_ter

    rounds: list[int] = []
    exhausted_in_round: list[int] = []
    original_shift = lib_ter._shift
    original_ter = lib_ter.translation_edit_rate

    def counting_shift(words_h: list[str], words_r: list[str], cached_ed: lib_ter.BeamEditDistance,
                       checked: int) -> tuple[int, list[str], int]:
        result = original_shift(words_h, words_r, cached_ed, checked)
        rounds[-1] += 1
        if result[2] >= lib_ter._MAX_SHIFT_CANDIDATES:
            exhausted_in_round.append(rounds[-1])
        return result

    def counting_ter(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
        rounds.append(0)
        return original_ter(words_hyp, words_ref)

    monkeypatch.setattr(lib_ter, "_shift", counting_shift)
    monkeypatch.setattr("sacrebleu.metrics.ter.translation_edit_rate", counting_ter)

    rng = random.Random(99)
    hyps: list[str] = []
    refs: list[str] = []
    for _ in range(12):
        short = " ".join(rng.choice("ab") for _ in range(rng.randint(1, 3)))
        long = " ".join(rng.choice("abc") for _ in range(rng.randint(120, 180)))
        hyps += [short, long]
        refs += [long, short]
    for _ in range(2):  # rotation: the budget runs out in the first round
        ref = [rng.choice("abcd") for _ in range(60)]
        hyp = ref[30:] + ref[:30]
        hyp[rng.randrange(60)] = "e"
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    rng = random.Random(5)
    for _ in range(30):  # several block moves: the budget often runs out after some shifts
        ref = [rng.choice("abc") for _ in range(35)]
        hyp = ref[:]
        for _ in range(4):
            s = rng.randrange(len(hyp))
            seg = hyp[s:s + rng.randint(1, 8)]
            del hyp[s:s + len(seg)]
            t = rng.randrange(len(hyp) + 1)
            hyp[t:t] = seg
        if rng.random() < 0.5:
            hyp[rng.randrange(35)] = "z"
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    _assert_identical(hyps, [refs])
    assert 1 in exhausted_in_round
    assert any(r > 1 for r in exhausted_in_round)


def _moved_blocks(rng: random.Random, tokens: list[str], moves: int) -> list[str]:
    """``tokens`` with ``moves`` blocks of 1-8 tokens moved elsewhere."""
    out = tokens[:]
    for _ in range(moves):
        if len(out) < 3:
            break
        s = rng.randrange(len(out))
        block = out[s:s + rng.randint(1, 8)]
        del out[s:s + len(block)]
        t = rng.randrange(len(out) + 1)
        out[t:t] = block
    return out


def _subsequence(rng: random.Random, tokens: list[str], k: int) -> list[str]:
    """``k`` tokens of ``tokens`` in their order (random positions)."""
    return [tokens[i] for i in sorted(rng.sample(range(len(tokens)), k))]


def _long_unequal_pairs(seed: int) -> list[tuple[list[str], list[str]]]:
    """(hypothesis, reference) token lists of very unequal lengths: the short side is a subsequence of the long
    one with a few blocks moved. ``m >> n``: ``m >= 51 n``, so the beam widens to ``ceil(m / 2n + 25)``;
    ``n >> m``: up to 80 times longer hypotheses; and 2-4 times longer pairs of 60-120 tokens on either side (at
    30-60 or 45-90 tokens sacrebleu takes half the CPU, but the pairs no longer catch a shift distance limit of 49
    instead of 50: seed 12's 75 × 300 pair does)."""
    rng = random.Random(seed)
    pairs: list[tuple[list[str], list[str]]] = []
    for kind in ("wide", "tall", "mid") * 3:
        alphabet = [f"w{i}" for i in range(rng.randint(2, 40) if kind != "mid" else rng.randint(30, 60))]
        if kind == "wide":
            n = rng.randint(1, 40)
            ref = [rng.choice(alphabet) for _ in range(n * rng.randint(51, 200))]
            pairs.append((_moved_blocks(rng, _subsequence(rng, ref, n), rng.randint(0, 3)), ref))
        elif kind == "tall":
            m = rng.randint(1, 40)
            hyp = [rng.choice(alphabet) for _ in range(m * rng.randint(20, 80))]
            pairs.append((hyp, _moved_blocks(rng, _subsequence(rng, hyp, m), rng.randint(0, 3))))
        else:
            n = rng.randint(60, 120)
            long = [rng.choice(alphabet) for _ in range(n * rng.randint(2, 4))]
            short = _moved_blocks(rng, _subsequence(rng, long, n), rng.randint(1, 6))
            pairs.append((short, long) if rng.random() < 0.5 else (long, short))
    return pairs


def _ids(hyp: list[str], ref: list[str]) -> tuple[np.ndarray, np.ndarray]:
    vocab = {w: i for i, w in enumerate(sorted(set(hyp) | set(ref)))}
    return (np.array([vocab[w] for w in hyp], np.int32), np.array([vocab[w] for w in ref], np.int32))


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_long_unequal_lengths_identical(seed: int) -> None:
    """Long, very unequal pairs (widened beam; rows much wider or much narrower than the diagonal step) equal
    sacrebleu's ``translation_edit_rate``, for the kernel at every checkpoint stride (all rows kept, every 7th or
    64th band cell, or no checkpoint at all) and through :func:`ter_statistics`."""
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    pairs = _long_unequal_pairs(seed)
    assert any(len(r) > 51 * len(h) for h, r in pairs) and any(len(h) > 20 * len(r) for h, r in pairs)
    expected = [translation_edit_rate(h, r)[0] for h, r in pairs]
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
    hyps = [_tok_char(h) for h, _ in pairs]
    refs = [_tok_char(r) for _, r in pairs]
    serial = ter_statistics(hyps, [refs], n_jobs=1)
    for n_jobs in (2, 3, None):
        assert np.array_equal(ter_statistics(hyps, [refs], n_jobs=n_jobs), serial)


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
