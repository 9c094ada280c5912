#!/usr/bin/env python3
"""Paper-scale benchmark data: 2,048 distinct Korean references × 4 simulated systems = 8,192 distinct pairs.

    python benchmarks/make_data.py                      # writes benchmarks/results/data/ (gitignored)
    python benchmarks/make_data.py --pairs 2048 --out DIR

Nothing generated here is committed. The text is built at run time from

* KoNLPy's bundled corpora (public legal texts inside a GPL-3 package, read at run time and never copied into the
  repository): ``konlpy.corpus.kolaw`` (the Constitution) and ``konlpy.corpus.kobill`` (ten bills), re-joined
  across their hard line breaks, split into sentences and cleaned of article numbers, list markers and tables;
* the project's own hand-written sentences (``sample_data/sentences_ko.py``);

recombined into a pool of distinct candidate references (the sentences themselves, the clause tails after a
comma, a sentence with a discourse adverbial in front, two short sentences as one segment), from which
``n_refs = pairs / 4`` references are drawn so that the lengths follow a log-normal shape (median ≈ 52 characters,
mean ≈ 60, tail up to 200). The four systems are made with the perturbation engine of
``sample_data/make_sample.py`` (particles, endings, spacing, word order, synonyms, wrong words, dropped words,
numbers, truncation) plus legal-vocabulary tables defined here, at four levels of quality. Every reference and
every hypothesis is distinct from every other sentence of the set (a hypothesis that would repeat a sentence gets
one more light edit), so no cache can shortcut a cold run. Simulated human (DA-like, 0–100) scores follow
``make_sample.human_score`` (penalty per edit + rater noise), ~10% of the pairs unscored.

Deterministic: every random choice comes from ``random.Random(<string seed>)``; the same arguments give the same
files on every run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEED = "korean-eval-bench-v1"
SYSTEMS: tuple[str, ...] = ("sys_a_strong", "sys_b_josa", "sys_c_order", "sys_d_weak")
MISSING_RATE = 0.10
LENGTH_MEDIAN = 52.0  # characters; log-normal with sigma 0.5 → mean ≈ 59
LENGTH_SIGMA = 0.5
MIN_LEN, MAX_LEN = 12, 200


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ms = _load("_ke_make_sample", ROOT / "sample_data" / "make_sample.py")

# Legal / administrative vocabulary of the KoNLPy corpora (the sample tables target everyday sentences).
LEGAL_SYNONYMS: dict[str, str] = {
    "국가": "나라", "법률": "법", "의무": "책무", "권리": "권한", "모든": "일체의", "즉시": "곧바로",
    "다만": "단", "각각": "각기", "현행": "지금의", "필요한": "필요로 하는", "해당": "관련", "경우": "때",
    "규정": "조항", "조치": "대처", "시행": "실시", "개정": "변경", "요건": "조건", "절차": "과정",
    "확대": "확장", "강화": "보강", "지원": "원조", "제도": "체계", "사항": "내용", "목적": "취지",
}  # fmt: skip
LEGAL_WRONG: dict[str, str] = {
    "대통령": "국무총리", "국회": "정부", "헌법": "조례", "국민": "외국인", "의원": "위원", "자유": "책임",
    "대법원": "헌법재판소", "공무원": "군인", "선거": "투표", "임명": "해임", "동의": "거부", "법관": "검사",
    "재판": "수사", "예산": "결산", "법원": "검찰", "국군": "경찰", "파견": "철수", "연장": "단축", "이하": "이상",
    "이상": "이하", "초과": "미만", "부모": "조부모", "자녀": "손자", "근로자": "사용자", "결혼": "이혼",
    "신설": "삭제", "폐지": "유지", "허가": "금지", "보호": "감시", "평화": "안보", "통일": "분단",
}  # fmt: skip
_LEGAL_SYN_KEYS = sorted(LEGAL_SYNONYMS, key=lambda k: (-len(k), k))
_LEGAL_WRONG_KEYS = sorted(LEGAL_WRONG, key=lambda k: (-len(k), k))
ADVERBIALS: tuple[str, ...] = (
    "또한", "그러나", "한편", "특히", "이에 따라", "다만", "따라서", "아울러", "그리고", "이와 함께", "나아가",
    "결국", "실제로", "원칙적으로", "구체적으로",
)  # fmt: skip


# ---- source sentences --------------------------------------------------------------------------------------------
def _rejoin(text: str) -> str:
    """Undo hard line breaks: a line ending in a space breaks between words, otherwise inside a word.

    Lines of only dashes, dots or page numbers (``- 3 -``: the bills' comparison tables and footers) are dropped.
    """
    out: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or re.fullmatch(r"[-\s.─]*|-\s*\d+\s*-", stripped):
            continue
        if out and not line.endswith(" ") and not re.search(r"[.:)」｣]$", out[-1]) and len(out[-1]) >= 20:
            out[-1] += stripped
        else:
            out.append(stripped)
    return re.sub(r"\s+", " ", " ".join(out))


_ENUM = re.compile(
    r"^(?:(?:제\d+(?:장|절|관|조)(?:의\d+)?(?:\([^)]{0,20}\))?|부칙|[①-⑳]|\d{1,2}\.|[가-하]\.|[○※*·-])\s*)+"
)
_HANGUL = re.compile(r"[가-힣]")


def _clean(sentence: str) -> str | None:
    s = _ENUM.sub("", sentence.strip()).strip()
    s = re.sub(r"부\s*칙\s*|[①-⑳]\s*(?:\([^)]{0,10}\))?\s*", "", s)  # addenda headings, paragraph marks
    s = re.sub(r"\s+", " ", s)
    s = re.sub(r"\s+([,.)])", r"\1", s)
    if not s:
        return None
    if not s.endswith((".", "?", "!")):
        s += "."
    core = s.replace(" ", "")
    if not (MIN_LEN <= len(s) <= 400) or len(_HANGUL.findall(core)) < 0.75 * len(core):
        return None
    if re.search(r"--|번 호|발의|연월일|의원\(|☎|\d{3}\s*-\s*\d{4}|“|”|「|」", s):
        return None
    if sum(c.isdigit() for c in s) > 0.1 * len(core):
        return None
    return s


def _split_sentences(text: str) -> list[str]:
    return re.split(r"(?<=[다임함음요])\.\s+", _rejoin(text))


def corpus_sentences() -> list[str]:
    """Cleaned, distinct sentences: KoNLPy kolaw + kobill (read now), then the project's own sentences."""
    from konlpy.corpus import kobill, kolaw

    raw = _split_sentences(kolaw.open("constitution.txt").read())
    for fileid in sorted(kobill.fileids()):
        raw += _split_sentences(kobill.open(fileid).read())
    own = _load("_ke_sentences_ko", ROOT / "sample_data" / "sentences_ko.py").SENTENCES
    raw += [ko for _, _, ko in own]
    cleaned = (_clean(s) for s in raw)
    return list(dict.fromkeys(s for s in cleaned if s))


def reference_pool(sentences: list[str], seed: str = SEED) -> list[str]:
    """Distinct candidate references of 12–200 characters built from ``sentences`` (deterministic order)."""
    rng = random.Random(f"{seed}:pool")
    pool: dict[str, None] = {}

    def add(s: str) -> None:
        s = s.strip()
        if MIN_LEN <= len(s) <= MAX_LEN and s not in pool:
            pool[s] = None

    short = [s for s in sentences if len(s) <= 90]
    for s in sentences:
        add(s)
        # clause tails after each ", " (the predicate and its ending stay): grammatical shorter sentences
        for m in re.finditer(r", ", s):
            tail = s[m.end() :]
            if len(tail) >= 15 and _HANGUL.match(tail):
                add(tail)
        # the same sentence opened by a discourse adverbial (two different ones)
        for _ in range(2):
            adv = ADVERBIALS[int(rng.random() * len(ADVERBIALS))]
            body = s
            add(f"{adv} {body}")
    # two short sentences as one segment (the long tail of the length distribution)
    for _ in range(3 * len(short)):
        a = short[int(rng.random() * len(short))]
        b = short[int(rng.random() * len(short))]
        if a != b:
            add(f"{a} {b}")
    return list(pool)


def choose_references(pool: list[str], n: int, seed: str = SEED) -> list[str]:
    """``n`` distinct references whose lengths follow a log-normal target (median 52, sigma 0.5, within 12–200)."""
    if n > len(pool):
        raise ValueError(f"only {len(pool)} distinct candidate references, {n} requested")
    rng = random.Random(f"{seed}:choose")
    by_len: dict[int, list[str]] = {}
    for s in pool:
        by_len.setdefault(len(s), []).append(s)
    for bucket in by_len.values():  # deterministic shuffle (Fisher–Yates on rng.random())
        for i in range(len(bucket) - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            bucket[i], bucket[j] = bucket[j], bucket[i]
    lengths = sorted(by_len)
    chosen: list[str] = []
    while len(chosen) < n:
        # Box–Muller from two uniforms: a log-normal target length
        u1, u2 = rng.random() or 1e-12, rng.random()
        z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
        target = min(MAX_LEN, max(MIN_LEN, round(LENGTH_MEDIAN * math.exp(LENGTH_SIGMA * z))))
        best = min((abs(L - target), L) for L in lengths if by_len[L])[1]
        chosen.append(by_len[best].pop())
    return chosen


# ---- systems -------------------------------------------------------------------------------------------------------
def _legal_synonym(seg) -> None:
    cands = [i for i, w in enumerate(seg.words) if any(k in ms.split_punct(w)[1] for k in _LEGAL_SYN_KEYS)]
    if cands:
        old_new = seg.replace_in_word(seg.pick(cands), LEGAL_SYNONYMS, _LEGAL_SYN_KEYS, whole_body=False)
        if old_new:
            seg.log("synonym", "→".join(old_new))


def _legal_wrong(seg, p: float) -> None:
    for i, w in enumerate(seg.words):
        if any(k in ms.split_punct(w)[1] for k in _LEGAL_WRONG_KEYS) and seg.chance(p):
            old_new = seg.replace_in_word(i, LEGAL_WRONG, _LEGAL_WRONG_KEYS, whole_body=False)
            if old_new:
                seg.log("lexical", "→".join(old_new))


def make_a(seg) -> None:
    """Strong: the sample's near-perfect system, with a legal synonym now and then."""
    ms.make_strong(seg)
    if seg.chance(0.3):
        _legal_synonym(seg)


def make_b(seg) -> None:
    """Wrong particles and endings, plus a paraphrase in some segments."""
    ms.make_josa(seg)
    if seg.chance(0.3):
        _legal_synonym(seg)


def make_c(seg) -> None:
    """Spacing and word-order errors, some particle errors, an occasional wrong word."""
    ms.make_order(seg)
    if (cands := seg.josa_candidates()) and seg.chance(0.4):
        seg.swap_josa(seg.pick(cands))
    _legal_wrong(seg, 0.1)


def make_d(seg) -> None:
    """Weak: meaning errors (wrong words, dropped words, numbers, truncation) and form errors."""
    _legal_wrong(seg, 0.35)
    ms.make_weak(seg)
    if seg.chance(0.5):
        ms.make_order(seg)


MAKERS = {"sys_a_strong": make_a, "sys_b_josa": make_b, "sys_c_order": make_c, "sys_d_weak": make_d}


def _one_more_edit(seg) -> None:
    """One light edit (used to make a hypothesis distinct from every other sentence)."""
    r = seg.rng.random()
    if r < 0.3 and (cands := seg.merge_candidates()):
        seg.merge_at(seg.pick(cands))
    elif r < 0.5 and (cands := seg.split_candidates()):
        seg.split_word(*seg.pick(cands))
    elif r < 0.7 and (cands := seg.josa_candidates()):
        seg.swap_josa(seg.pick(cands))
    elif r < 0.85 and (cands := seg.ending_candidates()):
        seg.change_ending(seg.pick(cands))
    elif (cands := seg.drop_candidates()) and len(seg.words) > 3:
        i = seg.pick(cands)
        seg.log("drop", seg.words[i])
        del seg.words[i]
    else:
        adv = ADVERBIALS[int(seg.rng.random() * len(ADVERBIALS))]
        seg.words.insert(0, adv)
        seg.log("literal", f"+{adv}")


@dataclass
class Dataset:
    refs: list[str]
    systems: dict[str, list[str]]
    human: list[tuple[str, int, int]]  # (system, seg_id, score)
    edits: list[tuple[str, int, float, str]]

    def summary(self) -> dict:
        lens = sorted(len(r) for r in self.refs)
        hyp_lens = [len(h) for hyps in self.systems.values() for h in hyps]
        everything = self.refs + [h for hyps in self.systems.values() for h in hyps]
        return {
            "references": len(self.refs),
            "systems": len(self.systems),
            "pairs": len(self.refs) * len(self.systems),
            "distinct sentences": len(set(everything)),
            "all sentences distinct": len(set(everything)) == len(everything),
            "reference length mean": round(statistics.mean(lens), 1),
            "reference length median": statistics.median(lens),
            "reference length p95": lens[int(0.95 * (len(lens) - 1))],
            "reference length max": lens[-1],
            "reference length min": lens[0],
            "hypothesis length mean": round(statistics.mean(hyp_lens), 1),
            "human scores": len(self.human),
            "human mean per system": {
                name: round(statistics.mean(s for n, _, s in self.human if n == name), 2) for name in self.systems
            },
        }


def build(pairs: int = 8192, seed: str = SEED) -> Dataset:
    """The benchmark set with ``pairs // 4`` references and the four systems (see the module docstring)."""
    n_refs = pairs // len(SYSTEMS)
    if n_refs < 1:
        raise ValueError("need at least 4 pairs")
    refs = choose_references(reference_pool(corpus_sentences(), seed), n_refs, seed)
    seen: set[str] = set(refs)
    systems: dict[str, list[str]] = {}
    human: list[tuple[str, int, int]] = []
    edits: list[tuple[str, int, float, str]] = []
    for name in SYSTEMS:
        hyps: list[str] = []
        for seg_id, ref in enumerate(refs):
            seg = ms.Segment(ref, random.Random(f"{seed}:{name}:{seg_id}"))
            MAKERS[name](seg)
            tries = 0
            while seg.text() in seen or not seg.text().strip():
                _one_more_edit(seg)
                tries += 1
                if tries > 50:  # cannot happen with real sentences; keeps the loop finite regardless
                    seg.words.append(f"({tries})")
            hyp = seg.text()
            seen.add(hyp)
            hyps.append(hyp)
            edits.append((name, seg_id, ms.penalty(seg.edits), " | ".join(f"{k}:{w}" for k, w, _ in seg.edits)))
            rng = random.Random(f"{seed}:human:{name}:{seg_id}")
            if rng.random() >= MISSING_RATE:
                human.append((name, seg_id, ms.human_score(seg.edits, rng)))
        systems[name] = hyps
    return Dataset(refs, systems, human, edits)


def write(dataset: Dataset, out: Path) -> dict[str, Path]:
    """``ref.txt``, ``systems/<name>.txt``, ``human.tsv``, ``edits.tsv``, ``summary.json`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "systems").mkdir(exist_ok=True)
    paths = {"ref": out / "ref.txt", "human": out / "human.tsv", "summary": out / "summary.json"}
    paths["ref"].write_text("".join(r + "\n" for r in dataset.refs), encoding="utf-8")
    for name, hyps in dataset.systems.items():
        p = out / "systems" / f"{name}.txt"
        p.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
        paths[name] = p
    paths["human"].write_text(
        "system\tseg_id\tscore\n" + "".join(f"{n}\t{i}\t{s}\n" for n, i, s in dataset.human), encoding="utf-8"
    )
    (out / "edits.tsv").write_text(
        "system\tseg_id\tpenalty\tedits\n" + "".join(f"{n}\t{i}\t{p:g}\t{e}\n" for n, i, p, e in dataset.edits),
        encoding="utf-8",
    )
    paths["summary"].write_text(json.dumps(dataset.summary(), ensure_ascii=False, indent=2), encoding="utf-8")
    return paths


def read(directory: Path) -> Dataset:
    """A data set written by :func:`write` (edits are not read back)."""
    refs = (directory / "ref.txt").read_text(encoding="utf-8").splitlines()
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines() for p in sorted((directory / "systems").glob("*.txt"))}
    human = []
    for line in (directory / "human.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        name, seg_id, score = line.split("\t")
        human.append((name, int(seg_id), int(score)))
    return Dataset(refs, systems, human, [])


def n_pairs_in(directory: Path) -> int:
    return len(read(directory).refs) * len(SYSTEMS)


def subset(dataset: Dataset, pairs: int) -> Dataset:
    """The first ``pairs // n_systems`` references with their hypotheses and human scores."""
    n = max(1, pairs // len(dataset.systems))
    return Dataset(
        dataset.refs[:n],
        {name: hyps[:n] for name, hyps in dataset.systems.items()},
        [row for row in dataset.human if row[1] < n],
        [row for row in dataset.edits if row[1] < n],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=8192, help="number of (system, segment) pairs (4 systems)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "data", help="output directory")
    parser.add_argument("--seed", default=SEED, help="seed string")
    args = parser.parse_args(argv)
    dataset = build(args.pairs, args.seed)
    write(dataset, args.out)
    print(json.dumps(dataset.summary(), ensure_ascii=False, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
