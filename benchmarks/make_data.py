#!/usr/bin/env python3
"""Paper-scale benchmark data: 2,048 distinct Korean references × 4 simulated systems = 8,192 distinct pairs.

    python benchmarks/make_data.py                      # writes benchmarks/results/data/ (gitignored)
    python benchmarks/make_data.py --pairs 2048 --out DIR
    python benchmarks/make_data.py --wmt                # 24 systems × 2,000 segments, a third paragraphs
                                                        # (benchmarks/wmt_data.py) → benchmarks/results/data_wmt/

Nothing generated here is committed. The text is built at run time from

* KoNLPy's bundled corpora (public legal texts inside a GPL-3 package, read at run time and never copied into the
  repository): ``konlpy.corpus.kolaw`` (the Constitution) and ``konlpy.corpus.kobill`` (ten bills), re-joined
  across their hard line breaks, split into sentences and cleaned of article numbers, list markers and tables;
* the project's own hand-written sentences (``sample_data/sentences_ko.py``);

recombined into a pool of distinct candidate references (the sentences themselves, the clause tails after a
comma, a sentence with a discourse adverbial in front, two short sentences as one segment), from which
``n_refs = pairs / 4`` references are drawn so that the lengths follow a log-normal shape (median ≈ 52 characters,
mean ≈ 60, tail up to 200).

The four systems are as far from their references as real MT output is from an independent human reference. A
reference and a real system output share little surface: on the study's document 1 (64 real pairs in
``../shared/data/kor_sacrebleu``) the mean sentence TER is 79 at word level, 64 at character level and 55 at jamo
level, and chrF is 28. Each system therefore first gets its characteristic errors from the perturbation engine of
``sample_data/make_sample.py`` (particles, endings, spacing, word order, wrong and dropped words, numbers,
truncation; legal-vocabulary tables defined here) and then :func:`rewrite`: other wording for a share of the eojeol
(a noun body from the corpus vocabulary with the original particle, or another corpus eojeol; "synonym" edits),
particle swaps on the rest, other endings, phrase moves, dropped and inserted eojeol, with the strengths in
:data:`REWRITE`. They were calibrated on document 1: ``python benchmarks/make_data.py --calibrate 256`` prints the
means of both side by side (the benchmark prints them too). Without the rewrite layer the systems were 2-20 jamo-TER
points from their references, and sacrebleu's jamo TER cost 46 ms per segment instead of the ~800 ms it costs on
the study's real outputs, so the naive baseline was measured on unrealistically easy data.

Every reference and every hypothesis is distinct from every other sentence of the set (a hypothesis that would
repeat a sentence gets one more light edit), so no cache can shortcut a cold run. Simulated human (DA-like, 0–100)
scores follow ``make_sample.human_score`` (penalty per edit + rater noise), ~10% of the pairs unscored.

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
SEED = "korean-eval-bench-v2"
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


@dataclass(frozen=True)
class Rewrite:
    """Strengths of :func:`rewrite` for one system (probabilities per eojeol unless stated)."""

    reword: float  # other wording: the eojeol's noun body (particle kept) or the whole eojeol replaced
    josa: float  # particle swapped, on the eojeol not reworded
    ending: float  # another ending on a clause-final predicate
    moves: float  # phrase moves (1-3 eojeol) per eojeol
    drop: float  # eojeol dropped
    insert: float  # corpus eojeol inserted


# Calibrated on the study's document 1 (see the module docstring and ``--calibrate``).
REWRITE: dict[str, Rewrite] = {
    "sys_a_strong": Rewrite(reword=0.40, josa=0.5, ending=0.4, moves=0.06, drop=0.06, insert=0.06),
    "sys_b_josa": Rewrite(reword=0.45, josa=0.9, ending=0.5, moves=0.08, drop=0.07, insert=0.07),
    "sys_c_order": Rewrite(reword=0.45, josa=0.5, ending=0.5, moves=0.14, drop=0.07, insert=0.07),
    "sys_d_weak": Rewrite(reword=0.55, josa=0.6, ending=0.6, moves=0.10, drop=0.10, insert=0.10),
}


@dataclass(frozen=True)
class Vocabulary:
    """Corpus words for :func:`rewrite`: noun bodies (2-4 syllables, seen before a particle) and bare eojeol."""

    bodies: tuple[str, ...]
    eojeol: tuple[str, ...]

    @classmethod
    def from_sentences(cls, sentences: list[str]) -> Vocabulary:
        bodies: set[str] = set()
        eojeol: set[str] = set()
        for sentence in sentences:
            for word in sentence.split():
                core = ms.split_punct(word)[1]
                if not core or not all(ms.is_syllable(c) for c in core):
                    continue
                parsed = ms.parse_josa(core)
                if parsed and 2 <= len(parsed[0]) <= 4:
                    bodies.add(parsed[0])
                elif not parsed and 2 <= len(core) <= 5:
                    eojeol.add(core)
        return cls(tuple(sorted(bodies)), tuple(sorted(eojeol)))


def rewrite(seg, vocab: Vocabulary, strength: Rewrite) -> None:
    """Make ``seg`` differ from its reference as much as real MT output does (see :data:`REWRITE`)."""
    for i, word in enumerate(seg.words):
        pre, core, post = ms.split_punct(word)
        if not core:
            continue
        if ms.is_clause_final(seg.words, i):
            if seg.chance(strength.ending) and ms.ending_variants(core):
                seg.change_ending(i)
            continue
        parsed = ms.parse_josa(core)
        if seg.chance(strength.reword):
            new = ms.attach(seg.pick(vocab.bodies), ms.canonical(parsed[1])) if parsed else seg.pick(vocab.eojeol)
            seg.words[i] = pre + new + post
            seg.log("synonym", f"{core}→{new}")
        elif parsed and seg.chance(strength.josa):
            seg.swap_josa(i)
    for _ in range(round(strength.moves * len(seg.words))):
        if len(seg.words) < 4:
            break
        size = 1 + int(seg.rng.random() * 3)
        start = int(seg.rng.random() * (len(seg.words) - size))
        chunk = seg.words[start : start + size]
        del seg.words[start : start + size]
        to = int(seg.rng.random() * (len(seg.words) + 1))
        seg.words[to:to] = chunk
        seg.log("order", " ".join(chunk))
    for i in reversed(range(len(seg.words))):
        if len(seg.words) > 3 and seg.chance(strength.drop):
            seg.log("drop", seg.words[i])
            del seg.words[i]
        elif seg.chance(strength.insert):
            new = seg.pick(vocab.eojeol)
            seg.words.insert(i, new)
            seg.log("literal", f"+{new}")


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
    sentences = corpus_sentences()
    vocab = Vocabulary.from_sentences(sentences)
    refs = choose_references(reference_pool(sentences, seed), n_refs, seed)
    seen: set[str] = set(refs)
    systems: dict[str, list[str]] = {}
    human: list[tuple[str, int, int]] = []
    edits: list[tuple[str, int, float, str]] = []
    for name in SYSTEMS:
        hyps: list[str] = []
        for seg_id, ref in enumerate(refs):
            seg = hypothesis(ref, f"{seed}:{name}:{seg_id}", MAKERS[name], REWRITE[name], vocab, seen)
            hyps.append(seg.text())
            edits.append((name, seg_id, ms.penalty(seg.edits), edit_log(seg.edits)))
            rng = random.Random(f"{seed}:human:{name}:{seg_id}")
            if rng.random() >= MISSING_RATE:
                human.append((name, seg_id, ms.human_score(seg.edits, rng)))
        systems[name] = hyps
    return Dataset(refs, systems, human, edits)


def hypothesis(ref: str, key: str, maker, strength: Rewrite, vocab: Vocabulary, seen: set[str]):
    """One system's output for ``ref`` (an ``ms.Segment``): the system's errors (``maker``), then :func:`rewrite`
    with ``strength``, with every random choice from ``random.Random(key)``; distinct from every text in ``seen``
    (light edits added until it is), and added to it."""
    seg = ms.Segment(ref, random.Random(key))
    maker(seg)
    rewrite(seg, vocab, strength)
    tries = 0
    while seg.text() in seen or not seg.text().strip():
        _one_more_edit(seg)
        tries += 1
        if tries > 50:  # cannot happen with real sentences; keeps the loop finite regardless
            seg.words.append(f"({tries})")
    seen.add(seg.text())
    return seg


def edit_log(edits: list[tuple[str, str, int]]) -> str:
    """The edits of a hypothesis as one ``kind:what | …`` cell of ``edits.tsv``."""
    return " | ".join(f"{k}:{w}" for k, w, _ in edits)


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


STUDY_DOC1 = ROOT.parent / "shared" / "data" / "kor_sacrebleu" / "doc1_with_text.csv"
PROFILE_LEVELS: tuple[str, ...] = ("word", "mecab", "kiwi", "char", "jamo")


def study_pairs(path: Path = STUDY_DOC1) -> list[tuple[str, str]]:
    """(reference, hypothesis) of the study's document 1: 64 real English→Korean MT outputs (4 systems)."""
    import csv

    with path.open(encoding="utf-8", newline="") as f:
        return [(row["Ref"].strip(), row["Hyp"].strip()) for row in csv.DictReader(f)]


def profile(pairs: list[tuple[str, str]], levels: tuple[str, ...] = PROFILE_LEVELS) -> dict[str, dict[str, float]]:
    """Per level: mean sacrebleu sentence TER and its milliseconds per segment; plus chrF on the raw text.

    The same token strings as the pipeline's (``korean_eval.levels.registry``), so the figures are comparable with the
    benchmark's naive loop.
    """
    import time

    import sacrebleu

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from korean_eval.levels.registry import get_level

    out: dict[str, dict[str, float]] = {}
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    for level in levels:
        lvl = get_level(level)
        ref_tok = [" ".join(t) for t in lvl.tokenize(refs).tokens]
        hyp_tok = [" ".join(t) for t in lvl.tokenize(hyps).tokens]
        start = time.perf_counter()
        scores = [sacrebleu.sentence_ter(h, [r]).score for h, r in zip(hyp_tok, ref_tok, strict=True)]
        seconds = time.perf_counter() - start
        out[level] = {"mean TER": statistics.mean(scores), "sacrebleu TER ms/segment": 1000 * seconds / len(pairs)}
    out["raw text"] = {"mean chrF": statistics.mean(sacrebleu.sentence_chrf(h, [r]).score for r, h in pairs)}
    return out


def calibration_table(real: dict, synthetic: dict, n_real: int, n_synthetic: int) -> str:
    """Markdown: :func:`profile` of the study's real pairs next to the benchmark's."""
    lines = [
        f"| level | mean sentence TER, study doc 1 ({n_real} real pairs) | benchmark ({n_synthetic} pairs) "
        "| sacrebleu TER ms/segment, study | benchmark |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for level in real:
        if level == "raw text":
            continue
        a, b = real[level], synthetic[level]
        lines.append(
            f"| {level} | {a['mean TER']:.1f} | {b['mean TER']:.1f} | {a['sacrebleu TER ms/segment']:.1f} "
            f"| {b['sacrebleu TER ms/segment']:.1f} |"
        )
    lines.append(f"| chrF on raw text (mean) | {real['raw text']['mean chrF']:.1f} "
                 f"| {synthetic['raw text']['mean chrF']:.1f} | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=8192, help="number of (system, segment) pairs (4 systems)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "data", help="output directory")
    parser.add_argument("--seed", default=SEED, help="seed string")
    parser.add_argument(
        "--calibrate", type=int, metavar="N", default=0,
        help="print the TER/chrF profile of N random generated pairs next to the study's document 1 (no files)",
    )
    parser.add_argument("--wmt", action="store_true",
                        help="the WMT-shaped set instead (benchmarks/wmt_data.py): --systems × --segments, a third paragraphs")
    parser.add_argument("--systems", type=int, default=24, help="with --wmt: number of systems (graded quality)")
    parser.add_argument("--segments", type=int, default=2000, help="with --wmt: number of segments")
    args = parser.parse_args(argv)
    if args.wmt:
        wmt = _load("_ke_bench_wmt_data", HERE / "wmt_data.py")
        dataset = wmt.build_wmt(args.systems, args.segments, seed=args.seed if args.seed != SEED else wmt.WMT_SEED)
        out = args.out if args.out != HERE / "results" / "data" else HERE / "results" / "data_wmt"
        write(dataset, out)
        print(json.dumps(dataset.summary(), ensure_ascii=False, indent=2))
        print(f"wrote {out}")
        return
    dataset = build(args.pairs, args.seed)
    if args.calibrate:
        rng = random.Random(f"{args.seed}:calibrate")
        pairs = [(ref, hyps[i]) for hyps in dataset.systems.values() for i, ref in enumerate(dataset.refs)]
        sample = [pairs[int(rng.random() * len(pairs))] for _ in range(args.calibrate)]
        real = study_pairs()
        print(calibration_table(profile(real), profile(sample), len(real), len(sample)))
        return
    write(dataset, args.out)
    print(json.dumps(dataset.summary(), ensure_ascii=False, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
