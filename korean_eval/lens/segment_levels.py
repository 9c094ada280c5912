"""One segment's sentence-level scores at every token level: how BLEU, chrF, chrF++ and TER of a single
(hypothesis, reference) pair move when the text is cut into words, morphemes, subwords, characters or jamo.

Definitions (``docs/design.md §3``), the engine's own for segment scores:

* the texts are NFC-normalised, then tokenised by the project's levels
  (:meth:`korean_eval.levels.base.TokenLevel.tokenize_joined`, the form the pipeline scores): each side becomes its
  tokens joined by single spaces;
* each metric is the registry's (:func:`korean_eval.metrics.make_metric`, with the evaluation's per-level options
  from :meth:`korean_eval.model.config.EvalConfig.options_for` and its TER implementation) and scores the pair by
  its per-segment statistics (``segment_statistics``) and sentence score (``segment_scores``), the code path of
  :func:`korean_eval.engine.scoring.score_cell`. With the default options these are sacrebleu's sentence scores on
  the space-joined tokens: ``BLEU(tokenize="none", effective_order=True)``, ``CHRF()`` (character order 6, β = 2),
  ``CHRF(word_order=2)`` for chrF++, ``TER()``.

Plain chrF ignores whitespace, so it changes across levels only where a tokenizer changes the characters
(lemmatising analyzers such as Kiwi, and jamo); chrF++ also counts token n-grams, so it moves with every level.
TER is an error rate (edits per 100 reference tokens): lower is better.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from korean_eval.levels.base import TokenLevel
from korean_eval.levels.registry import get_level
from korean_eval.levels.sentencepiece import SpmLevel
from korean_eval.metrics import Metric, make_metric
from korean_eval.metrics.base import tokens_of
from korean_eval.metrics.sacre import BleuMetric
from korean_eval.model.config import EvalConfig

#: The metrics of the demonstration, in display order (registry names).
SEGMENT_METRICS: tuple[str, ...] = ("bleu", "chrf", "chrf++", "ter")
#: Columns of :func:`score_segment_tokens` and :func:`segment_level_scores`.
COLUMNS = ["level", "metric", "score", "ref_tokens", "hyp_tokens", "signature"]


@dataclass(frozen=True)
class SegmentTokens:
    """One segment cut at one token level.

    Attributes:
        level: the level's registry name.
        hypothesis: the hypothesis's tokens joined by single spaces (what the metrics see).
        references: each reference's tokens joined by single spaces (several as in sacrebleu's multi-reference).
        version: the level's version (``kiwi-0.24.1-model-0.24.0``), the level part of a signature; "" if unknown.
    """

    level: str
    hypothesis: str
    references: tuple[str, ...]
    version: str = ""

    @property
    def hypothesis_tokens(self) -> list[str]:
        return tokens_of(self.hypothesis)

    @property
    def reference_tokens(self) -> list[list[str]]:
        return [tokens_of(r) for r in self.references]


def _references(reference: str | Sequence[str]) -> list[str]:
    refs = [reference] if isinstance(reference, str) else list(reference)
    if not refs:
        raise ValueError("at least one reference is needed")
    return refs


def _level(level: str | TokenLevel) -> TokenLevel:
    """The level instance of a name or an instance; a SentencePiece level must come with its model."""
    instance = get_level(level) if isinstance(level, str) else level
    if isinstance(instance, SpmLevel) and not instance.fitted:
        raise ValueError(
            "the spm level needs its model: pass a fitted SpmLevel (trained on the evaluation's references, as "
            "korean_eval.engine.tokenise_stage.prepare_level does, or loaded from a .model file)"
        )
    ok, reason = instance.start()
    if not ok:
        raise ValueError(f"token level {instance.name!r} is unavailable: {reason}")
    return instance


def tokenise_segment(
    reference: str | Sequence[str], hypothesis: str, levels: Sequence[str | TokenLevel]
) -> list[SegmentTokens]:
    """The pair cut at each of ``levels`` (NFC first, ``docs/design.md §3``), in the order given.

    Args:
        reference: the reference, or several (multi-reference).
        hypothesis: the system's translation.
        levels: registry names or level instances; ``spm`` must be a fitted
            :class:`~korean_eval.levels.sentencepiece.SpmLevel` (its model depends on an evaluation's references).

    Raises:
        ValueError: an unknown or unavailable level, or an spm level without a model.
    """
    refs = [unicodedata.normalize("NFC", r) for r in _references(reference)]
    hyp = unicodedata.normalize("NFC", hypothesis)
    out = []
    for level in levels:
        instance = _level(level)
        joined = instance.tokenize_joined([hyp, *refs]).joined
        out.append(SegmentTokens(instance.name, joined[0], tuple(joined[1:]), instance.version()))
    return out


def sentence_signature(metric: Metric, nrefs: int) -> str:
    """The metric's signature for sentence scores: :meth:`~korean_eval.metrics.Metric.signature`, except that
    BLEU's records ``eff:yes`` (sentence BLEU uses the effective n-gram order; sacrebleu's ``sentence_score``
    signature says so, the system score's says ``eff:no``)."""
    signature = metric.signature(nrefs)
    return signature.replace("|eff:no|", "|eff:yes|", 1) if isinstance(metric, BleuMetric) else signature


def score_segment_tokens(
    segment: Sequence[SegmentTokens], metrics: Sequence[str] = SEGMENT_METRICS, config: EvalConfig | None = None
) -> pd.DataFrame:
    """Sentence-level ``metrics`` of one tokenised segment at each of its levels (module docstring).

    Args:
        segment: the segment at each level (:func:`tokenise_segment`, or the token strings of an evaluation's
            results).
        metrics: registry names (default :data:`SEGMENT_METRICS`).
        config: the evaluation's settings: per-level metric options and TER's implementation (default
            :class:`~korean_eval.model.config.EvalConfig`'s, i.e. sacrebleu's defaults).

    Returns:
        :data:`COLUMNS`: one row per level × metric, levels in the order given, metrics in ``metrics``' order;
        ``ref_tokens`` counts the first reference's tokens, ``hyp_tokens`` the hypothesis's; ``signature`` is
        :func:`sentence_signature` plus ``|level:<version>`` where the level's version is known.
    """
    config = config or EvalConfig()
    rows = []
    for seg in segment:
        if not seg.references:
            raise ValueError(f"level {seg.level}: at least one reference is needed")
        streams = [[r] for r in seg.references]  # sacrebleu's layout: refs[j][i], here one segment
        for name in metrics:
            metric = make_metric(name, config.options_for(seg.level, name),
                                 implementation=config.ter_implementation, n_jobs=1)
            score = float(metric.segment_scores(metric.segment_statistics([seg.hypothesis], streams))[0])
            signature = sentence_signature(metric, len(seg.references))
            rows.append({
                "level": seg.level,
                "metric": name,
                "score": score,
                "ref_tokens": len(seg.reference_tokens[0]),
                "hyp_tokens": len(seg.hypothesis_tokens),
                "signature": signature + (f"|level:{seg.version}" if seg.version else ""),
            })
    return pd.DataFrame(rows, columns=COLUMNS)


def segment_level_scores(
    reference: str | Sequence[str],
    hypothesis: str,
    levels: Sequence[str | TokenLevel],
    metrics: Sequence[str] = SEGMENT_METRICS,
    config: EvalConfig | None = None,
) -> pd.DataFrame:
    """Sentence-level BLEU, chrF, chrF++ and TER (or ``metrics``) of one pair at each of ``levels``: equal to the
    segment scores :func:`korean_eval.evaluate` gives the pair with the same levels and settings.

    Args:
        reference: the reference, or several (multi-reference).
        hypothesis: the system's translation.
        levels: registry names or level instances (:func:`tokenise_segment`).
        metrics: registry names (default :data:`SEGMENT_METRICS`).
        config: per-level metric options and TER's implementation (:func:`score_segment_tokens`).

    Returns:
        A tidy frame of :data:`COLUMNS` (:func:`score_segment_tokens`).
    """
    return score_segment_tokens(tokenise_segment(reference, hypothesis, levels), metrics, config)
