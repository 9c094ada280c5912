"""Benchmark: sacrebleu's sentence-level TER vs :func:`korean_eval.metrics.fast_ter.ter_statistics`.

50 Korean segment pairs with ~60-character references (25 hand-written MT-like hypotheses plus 25 systematic
perturbations: clause reordering, particle swaps, dropped words) are tokenised at the word (sacrebleu 13a), char
and jamo levels. For each level the script prints the average tokens per reference, sacrebleu's and the fast
implementation's milliseconds per segment (fast: warm, single thread, best of ``--repeat`` runs; also with all
cores), the speed-up, and whether the statistics are identical. It asserts nothing.

Run from the repository root: ``python benchmarks/bench_ter.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

# (reference, hand-written hypothesis) pairs; references are ~60 characters.
PAIRS: tuple[tuple[str, str], ...] = (
    ("오늘 아침 서울 지역에는 짙은 안개가 끼어 출근길 교통이 크게 혼잡했으며 일부 항공편도 지연되었다.",
     "오늘 아침 서울에는 짙은 안개가 끼어서 출근길 교통이 매우 혼잡했고 일부 비행기도 늦게 출발했다."),
    ("정부는 청년 일자리 문제를 해결하기 위해 내년 예산에서 관련 지원금을 두 배로 늘리겠다고 밝혔다.",
     "청년 일자리 문제 해결을 위해 정부는 내년 예산의 관련 지원금을 두 배 늘릴 것이라고 말했다."),
    ("이번 연구는 규칙적인 운동이 노인의 기억력 저하를 늦추는 데 효과가 있다는 사실을 보여 준다.",
     "이 연구는 규칙적 운동이 노인들의 기억력 감퇴를 늦추는 데 효과적이라는 것을 보여준다."),
    ("우리 회사는 다음 달부터 직원들이 일주일에 이틀은 집에서 근무할 수 있도록 제도를 바꾸기로 했다.",
     "다음 달부터 우리 회사는 직원들이 주 2일은 재택근무를 할 수 있게 제도를 변경하기로 했다."),
    ("박물관 측은 전시된 유물을 보호하기 위해 관람객들에게 사진 촬영을 자제해 달라고 요청했다.",
     "박물관은 전시 유물 보호를 위해 관람객에게 사진을 찍지 말아 달라고 부탁했다."),
    ("기상청은 이번 주말 남부 지방을 중심으로 최대 백 밀리미터가 넘는 많은 비가 내릴 것으로 예보했다.",
     "기상청은 이번 주말에 남부 지방에 최대 100밀리미터 이상의 많은 비가 올 것이라고 예보했다."),
    ("그 작가는 어린 시절 시골에서 보낸 기억을 바탕으로 따뜻하고 섬세한 소설을 여러 편 발표했다.",
     "그 작가는 시골에서 보낸 어린 시절의 기억을 바탕으로 따뜻하고 섬세한 소설 여러 편을 냈다."),
    ("시민들은 새로 문을 연 도서관이 밤늦게까지 운영되어 퇴근 후에도 이용할 수 있어 편리하다고 말했다.",
     "새로 개관한 도서관이 밤늦게까지 운영돼 퇴근 후에도 이용 가능해서 편하다고 시민들은 말했다."),
    ("전문가들은 인공지능 기술이 빠르게 발전하면서 일자리 구조에도 큰 변화가 생길 것이라고 전망한다.",
     "인공지능 기술의 빠른 발전으로 일자리 구조에도 큰 변화가 생길 것으로 전문가들은 예상한다."),
    ("할머니는 매년 겨울이 되면 온 가족이 모여 김장을 하던 시절이 가장 행복했다고 말씀하신다.",
     "할머니께서는 겨울마다 온 가족이 모여서 김장하던 때가 제일 행복했다고 말씀하셨다."),
    ("이 제품은 기존 모델보다 무게가 가벼워지고 배터리도 오래가서 여행객들 사이에서 인기가 높다.",
     "이 제품은 이전 모델보다 가볍고 배터리가 오래 지속되어 여행자들에게 인기가 많다."),
    ("경찰은 어젯밤 시내 한 상가에서 발생한 화재의 정확한 원인을 밝히기 위해 조사를 진행하고 있다.",
     "경찰은 어제 밤 시내의 한 상가에서 일어난 화재 원인을 정확히 밝히려고 조사 중이다."),
    ("학교 측은 학생들의 안전을 위해 등하교 시간에 정문 앞 도로의 차량 통행을 제한하기로 결정했다.",
     "학생 안전을 위해 학교는 등하교 시간 동안 정문 앞 도로의 차량 통행을 막기로 했다."),
    ("그 식당은 신선한 제철 재료만을 사용하기 때문에 메뉴가 계절마다 조금씩 바뀌는 것으로 유명하다.",
     "그 레스토랑은 신선한 제철 재료만 쓰기 때문에 계절마다 메뉴가 조금씩 바뀌는 걸로 유명하다."),
    ("올해 열린 국제 영화제에서는 한국 감독이 만든 단편 영화가 최우수 작품상을 받아 화제가 되었다.",
     "올해 국제 영화제에서 한국 감독의 단편 영화가 최우수 작품상을 수상해 화제가 됐다."),
    ("의료진은 독감 환자가 급증하고 있으니 손을 자주 씻고 사람이 많은 곳에서는 마스크를 쓰라고 당부했다.",
     "독감 환자가 급격히 늘고 있어서 의료진은 손을 자주 씻고 사람 많은 곳에서 마스크를 쓸 것을 당부했다."),
    ("주민들은 오래된 공원을 새로 단장하는 공사가 끝나면 아이들이 더 안전하게 놀 수 있을 것이라고 기대한다.",
     "오래된 공원의 리모델링 공사가 끝나면 아이들이 더 안전하게 놀 수 있을 거라고 주민들은 기대하고 있다."),
    ("그는 대학을 졸업한 뒤 작은 출판사에 입사해 십 년 동안 어린이 책을 만드는 일을 해 왔다.",
     "그는 대학 졸업 후 작은 출판사에 들어가 10년간 어린이 책 만드는 일을 해왔다."),
    ("환경 단체는 해안가에 버려진 플라스틱 쓰레기가 바다 생물에게 심각한 피해를 주고 있다고 경고했다.",
     "환경단체는 해변에 버려진 플라스틱 쓰레기가 해양 생물에게 심각한 피해를 준다고 경고했다."),
    ("새로 개통된 지하철 노선 덕분에 신도시 주민들의 출퇴근 시간이 평균 이십 분 정도 줄어들었다.",
     "새 지하철 노선이 개통되어 신도시 주민들의 통근 시간이 평균 20분가량 단축되었다."),
    ("아버지는 주말마다 텃밭에 나가 상추와 고추를 기르며 이웃들과 수확한 채소를 나누어 드신다.",
     "아버지는 주말이면 텃밭에 가서 상추랑 고추를 키우고 수확한 채소를 이웃과 나눠 드신다."),
    ("이번 협상에서 양국은 무역 장벽을 낮추고 기술 협력을 확대하는 데 원칙적으로 합의했다고 발표했다.",
     "양국은 이번 협상에서 무역 장벽 완화와 기술 협력 확대에 원칙적으로 합의했다고 밝혔다."),
    ("많은 관광객이 찾는 이 마을은 전통 한옥이 잘 보존되어 있어 옛날 분위기를 그대로 느낄 수 있다.",
     "관광객이 많이 찾는 이 마을은 한옥이 잘 보존되어 있어서 옛 분위기를 그대로 느낄 수 있다."),
    ("회사는 고객 정보가 유출된 사실을 확인한 직후 피해를 막기 위한 긴급 조치를 시행했다고 설명했다.",
     "회사 측은 고객 정보 유출을 확인한 즉시 피해 방지를 위한 긴급 조치를 취했다고 설명했다."),
    ("그 선수는 무릎 부상에서 회복한 뒤 첫 경기에서 두 골을 넣으며 팀의 승리를 이끌었다.",
     "무릎 부상에서 회복한 그 선수는 복귀 첫 경기에서 두 골을 넣어 팀을 승리로 이끌었다."),
)


def _perturb(sentence: str, seed: int) -> str:
    """A systematic perturbation: swap the two halves, swap one particle, drop one word."""
    words = sentence.split()
    half = len(words) // 2
    words = words[half:] + words[:half]
    text = " ".join(words)
    for a, b in (("은 ", "는 "), ("는 ", "은 "), ("이 ", "가 "), ("을 ", "를 "), ("를 ", "을 "), ("에서 ", "에 ")):
        if a in text:
            text = text.replace(a, b, 1)
            break
    words = text.split()
    del words[seed % len(words)]
    return " ".join(words)


def _levels() -> dict[str, Callable[[str], str]]:
    """Tokenisers (text -> space-joined tokens) for the benchmarked levels."""
    import jamo
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok13a = Tokenizer13a()
    return {
        "word": tok13a,
        "char": lambda t: " ".join(c for c in t if not c.isspace()),
        "jamo": lambda t: " ".join(c for c in jamo.j2hcj(jamo.h2j(t)) if not c.isspace()),
    }


def main() -> None:
    """Time both implementations per level and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing runs of the fast implementation (best)")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import numpy as np

    from korean_eval.metrics.fast_ter import ter_statistics, ter_statistics_sacrebleu

    refs_raw = [r for r, _ in PAIRS] * 2
    hyps_raw = [h for _, h in PAIRS] + [_perturb(r, i) for i, (r, _) in enumerate(PAIRS)]
    n = len(hyps_raw)
    avg_chars = sum(len(r) for r in refs_raw) / n

    t0 = time.perf_counter()
    ter_statistics(["가 나"], [["나 가"]], n_jobs=1)  # load (or compile) the numba kernels
    load_s = time.perf_counter() - t0
    print(f"{n} segment pairs, references {avg_chars:.0f} characters on average; "
          f"numba load/compile {load_s:.2f} s (not included below)\n")

    header = (f"{'level':<6} {'tok/ref':>7} {'sacrebleu ms/seg':>17} {'fast ms/seg':>12} {'speed-up':>9} "
              f"{'fast all-cores ms/seg':>22} {'identical':>9}")
    print(header)
    print("-" * len(header))
    for level, tok in _levels().items():
        hyps = [tok(h) for h in hyps_raw]
        refs = [[tok(r) for r in refs_raw]]
        tok_per_ref = sum(len(r.split()) for r in refs[0]) / n

        t0 = time.perf_counter()
        expected = ter_statistics_sacrebleu(hyps, refs)
        sacre_ms = (time.perf_counter() - t0) * 1000 / n

        fast_ms = float("inf")
        got = expected
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            got = ter_statistics(hyps, refs, n_jobs=1)
            fast_ms = min(fast_ms, (time.perf_counter() - t0) * 1000 / n)
        par_ms = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            par = ter_statistics(hyps, refs, n_jobs=None)
            par_ms = min(par_ms, (time.perf_counter() - t0) * 1000 / n)
        identical = bool(np.array_equal(got, expected) and np.array_equal(par, expected))
        print(f"{level:<6} {tok_per_ref:>7.1f} {sacre_ms:>17.3f} {fast_ms:>12.4f} {sacre_ms / fast_ms:>8.0f}x "
              f"{par_ms:>22.4f} {'yes' if identical else 'NO':>9}")


if __name__ == "__main__":
    main()
