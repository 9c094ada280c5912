"""GLEU (Wu et al. 2016) on token strings (group "extended", ``docs/design.md §3``).

Reproduces ``nltk.translate`` (nltk 3.10.4) on the tokens of one token level (``hyp.split(" ")``; an empty string
has no tokens). ``refs[j][i]`` is the j-th reference of segment ``i``; a ``None`` reference is dropped (variable
number of references per segment, as in sacrebleu), and every segment needs at least one reference.
Segment and corpus scores are on a 0-100 scale (nltk's value × 100).

Statistics ``[n_match, n_all]`` where, over all 1..4-grams (``everygrams``), ``n_match`` = clipped matches and
``n_all = max(#hyp n-grams, #ref n-grams)`` of the reference with the highest ``n_match / n_all`` (first such
reference; references with ``n_all == 0`` are skipped, a segment without any contributes ``[0, 0]``). Score =
``n_match / n_all`` (0 if ``n_all == 0``), which is ``sentence_gleu`` per segment and ``corpus_gleu`` on summed
statistics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from importlib.metadata import version

import numpy as np

from korean_eval.metrics.base import Metric, MetricInfo, Tokens, safe_divide, segment_references, tokens_of
from korean_eval.metrics.declaration import IntOption, MetricDeclaration, Parameter

GLEU_DECLARATION = MetricDeclaration(
    "gleu",
    "GLEU",
    "extended",
    True,
    corpus_definition="nltk corpus_gleu × 100: summed n-gram matches / summed max(hyp, ref) n-gram counts",
    arguments=(
        Parameter("min_len", 1, "minimum n-gram order (nltk's default)"),
        IntOption("max_len", 4, 1, 9, "maximum n-gram order"),
    ),
)


def gleu_match_total(
    hyp: Tokens,
    refs: Sequence[Tokens],
    min_len: int = GLEU_DECLARATION.default("min_len"),
    max_len: int = GLEU_DECLARATION.default("max_len"),
) -> tuple[int, int]:
    """``(n_match, n_all)`` that ``nltk.translate.gleu_score.corpus_gleu`` adds up for one segment.

    Over all ``min_len..max_len``-grams: ``n_match = |hyp ∩ ref|`` (clipped counts) and
    ``n_all = max(|hyp|, |ref|)`` for the reference maximising ``n_match / n_all`` (first maximum; references
    with ``n_all == 0`` are skipped; ``(0, 0)`` if none is left).
    """
    from nltk.util import everygrams  # imported on use, not with the registry (docs/design.md §7)

    hyp_ngrams = Counter(everygrams(hyp, min_len, max_len))
    tpfp = sum(hyp_ngrams.values())
    best: tuple[int, int] | None = None
    for ref in refs:
        ref_ngrams = Counter(everygrams(ref, min_len, max_len))
        tpfn = sum(ref_ngrams.values())
        tp = sum((ref_ngrams & hyp_ngrams).values())
        n_all = max(tpfp, tpfn)
        if n_all > 0 and (best is None or tp / n_all > best[0] / best[1]):
            best = (tp, n_all)
    return best if best is not None else (0, 0)


class Gleu(Metric):
    """Google-BLEU (Wu et al. 2016) as ``nltk.translate.gleu_score``, × 100.

    Statistics ``[n_match, n_all]`` (:func:`gleu_match_total`); score ``100 · n_match / n_all`` (0 when
    ``n_all == 0``) = ``100 · sentence_gleu`` per segment and ``100 · corpus_gleu`` on summed statistics.

    Args:
        min_len, max_len: n-gram orders (nltk defaults 1 and 4).
    """

    declarations = (GLEU_DECLARATION,)

    def __init__(
        self, min_len: int = GLEU_DECLARATION.default("min_len"), max_len: int = GLEU_DECLARATION.default("max_len")
    ):
        if not 1 <= int(min_len) <= int(max_len):
            raise ValueError("need 1 <= min_len <= max_len")
        self.min_len, self.max_len = int(min_len), int(max_len)
        self.info = MetricInfo.declared(GLEU_DECLARATION, {"min_len": self.min_len, "max_len": self.max_len})

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2)`` rows ``[n_match, n_all]``."""
        seg_refs = segment_references(hyps, refs)
        out = np.zeros((len(hyps), 2), dtype=np.float64)
        for i, hyp in enumerate(hyps):
            out[i] = gleu_match_total(tokens_of(hyp), [tokens_of(r) for r in seg_refs[i]], self.min_len,
                                      self.max_len)
        return out

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """``100 · n_match / n_all`` of summed statistics (0 when ``n_all == 0``)."""
        sums = np.asarray(sums, dtype=np.float64)
        return 100.0 * safe_divide(sums[..., 0], sums[..., 1])

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """``100 · sentence_gleu`` of every row."""
        return self.scores_from_sums(stats)

    def signature(self, nrefs: int) -> str:
        """E.g. ``gleu|nrefs:1|ngram:1-4|version:3.10.4``."""
        return f"gleu|nrefs:{nrefs}|ngram:{self.min_len}-{self.max_len}|version:{version('nltk')}"
