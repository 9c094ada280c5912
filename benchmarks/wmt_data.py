"""A WMT-shaped benchmark set: N systems of graded quality × M segments, a third of them paragraphs.

    python benchmarks/make_data.py --wmt                                  # 24 systems × 2,000 segments
    python benchmarks/make_data.py --wmt --systems 6 --segments 300 --out DIR

WMT's general task ships 15–30 systems, and since 2024 many of its segments are whole paragraphs (hundreds to
1,500+ characters). This set has that shape, built from the same text and the same perturbation engine as the
4-system set of :mod:`make_data` (whose output this module leaves unchanged):

* references: ``M − round(M · paragraph_share)`` sentences drawn by :func:`make_data.choose_references` (median 52
  characters), and paragraphs of 300–1,500 characters (target length uniform in that range), each a run of distinct
  candidate sentences of :func:`make_data.reference_pool` joined by spaces; every reference distinct. Paragraphs are
  the segments whose 0-based id is ≡ 2 (mod 3) while paragraphs remain, so they are spread over the set;
* systems ``sysNN_<style>``: system k (0-based) of N has the error style of the four benchmark systems by quarter
  (strong, josa, order, weak: :data:`make_data.MAKERS`; style ⌊4k / N⌋) and a rewrite strength interpolated linearly from the strongest
  system's (:data:`make_data.REWRITE` ``sys_a_strong``, k = 0) to the weakest's (``sys_d_weak``, k = N − 1), so
  quality falls with k and the distances stay MT-like (the 4-system set's calibration on real MT output);
* a paragraph's hypothesis is the hypotheses of its sentences (each made as a sentence hypothesis is) joined by
  spaces; its simulated human score is ``clip(round(HUMAN_BASE − mean sentence penalty + rater noise), 0, 100)``
  (the sentence formula of ``make_sample.human_score`` with the penalty averaged over its sentences); ~10% of the
  (system, segment) pairs unscored, as in the 4-system set.

Deterministic: every random choice comes from ``random.Random(<string seed>)``.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from dataclasses import fields
from pathlib import Path

HERE = Path(__file__).resolve().parent
WMT_SEED = "korean-eval-bench-wmt-v1"
STYLES: tuple[str, ...] = ("sys_a_strong", "sys_b_josa", "sys_c_order", "sys_d_weak")
PARAGRAPH_MIN, PARAGRAPH_MAX = 300, 1500
PARAGRAPH_SENTENCE_MAX = 200  # a paragraph is made of candidate sentences up to this length


def _make_data():
    """The :mod:`make_data` module (loaded by path under one name, whether this runs as a script or in a test)."""
    name = "_ke_bench_make_data"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "make_data.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {HERE / 'make_data.py'}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


md = _make_data()


def system_specs(n_systems: int) -> list[tuple[str, str, md.Rewrite]]:
    """(name, error style, rewrite strength) of each of ``n_systems`` systems, best first (see the module docstring)."""
    strong, weak = md.REWRITE["sys_a_strong"], md.REWRITE["sys_d_weak"]
    specs = []
    for k in range(n_systems):
        t = k / (n_systems - 1) if n_systems > 1 else 0.0
        strength = md.Rewrite(
            **{f.name: round((1 - t) * getattr(strong, f.name) + t * getattr(weak, f.name), 4) for f in fields(strong)}
        )
        style = STYLES[len(STYLES) * k // n_systems]
        specs.append((f"sys{k + 1:02d}_{style.split('_')[-1]}", style, strength))
    return specs


def paragraphs(pool: list[str], n: int, taken: set[str], seed: str) -> list[list[str]]:
    """``n`` distinct paragraphs (each a list of its sentences) of 300–1,500 characters, none in ``taken``."""
    rng = random.Random(f"{seed}:paragraphs")
    candidates = [s for s in pool if len(s) <= PARAGRAPH_SENTENCE_MAX]
    out: list[list[str]] = []
    texts: set[str] = set(taken)
    while len(out) < n:
        target = PARAGRAPH_MIN + rng.random() * (PARAGRAPH_MAX - PARAGRAPH_MIN)
        sentences: list[str] = []
        length = -1
        while length < target:
            s = candidates[int(rng.random() * len(candidates))]
            if s in sentences or length + 1 + len(s) > PARAGRAPH_MAX:
                if length >= PARAGRAPH_MIN:
                    break
                continue
            sentences.append(s)
            length += 1 + len(s)
        text = " ".join(sentences)
        if PARAGRAPH_MIN <= len(text) <= PARAGRAPH_MAX and text not in texts:
            texts.add(text)
            out.append(sentences)
    return out


def reference_units(n_segments: int, paragraph_share: float, seed: str) -> tuple[list[list[str]], md.Vocabulary]:
    """Each segment's reference as its list of sentences (one for a sentence segment), and the corpus vocabulary."""
    sentences = md.corpus_sentences()
    vocab = md.Vocabulary.from_sentences(sentences)
    pool = md.reference_pool(sentences, seed)
    n_paragraphs = round(n_segments * paragraph_share)
    singles = md.choose_references(pool, n_segments - n_paragraphs, seed)
    paras = paragraphs(pool, n_paragraphs, set(singles), seed)
    units: list[list[str]] = []
    for seg_id in range(n_segments):
        if paras and (seg_id % 3 == 2 or not singles):
            units.append(paras.pop(0))
        else:
            units.append([singles.pop(0)])
    return units, vocab


def paragraph_score(sentence_edits: list[list[tuple[str, str, int]]], rng: random.Random) -> int:
    """``clip(round(HUMAN_BASE − mean sentence penalty + rater noise), 0, 100)`` (see the module docstring)."""
    mean_penalty = sum(md.ms.penalty(e) for e in sentence_edits) / len(sentence_edits)
    return int(min(100, max(0, round(md.ms.HUMAN_BASE - mean_penalty + md.ms.rater_noise(rng)))))


def build_wmt(n_systems: int = 24, n_segments: int = 2000, paragraph_share: float = 1 / 3, seed: str = WMT_SEED):
    """The WMT-shaped :class:`make_data.Dataset` (see the module docstring)."""
    if n_systems < 1 or n_segments < 1:
        raise ValueError("need at least one system and one segment")
    units, vocab = reference_units(n_segments, paragraph_share, seed)
    refs = [" ".join(u) for u in units]
    seen: set[str] = set(refs)
    dataset = md.Dataset(refs, {}, [], [])
    for name, style, strength in system_specs(n_systems):
        hyps: list[str] = []
        for seg_id, unit in enumerate(units):
            segs = [
                md.hypothesis(s, f"{seed}:{name}:{seg_id}:{k}", md.MAKERS[style], strength, vocab, seen)
                for k, s in enumerate(unit)
            ]
            hyp = " ".join(seg.text() for seg in segs)
            while len(segs) > 1 and hyp in seen:  # a paragraph equal to another text: one more light edit
                md._one_more_edit(segs[-1])
                hyp = " ".join(seg.text() for seg in segs)
            seen.add(hyp)
            hyps.append(hyp)
            all_edits = [e for seg in segs for e in seg.edits]
            dataset.edits.append((name, seg_id, md.ms.penalty(all_edits), md.edit_log(all_edits)))
            rng = random.Random(f"{seed}:human:{name}:{seg_id}")
            if rng.random() >= md.MISSING_RATE:
                dataset.human.append((name, seg_id, paragraph_score([seg.edits for seg in segs], rng)))
        dataset.systems[name] = hyps
    return dataset
