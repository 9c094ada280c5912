"""What the Korean lens costs, estimated before it runs from measured per-character costs.

Definition: the lens's *analysis* (:func:`korean_eval.lens.run.run_lens` without the probe) costs Kiwi's model load
(unless loaded) plus :data:`ANALYSIS_US_PER_CHAR` per character of distinct text (references and hypotheses). Its
*probe* costs :data:`PERTURB_US_PER_REF_CHAR` per reference character (every kind applied, each perturbed text
analysed again), then an evaluation of the perturbed references against the originals at the chosen levels ×
metrics: the references and one perturbed copy per kind tokenised at each level
(:func:`korean_eval.levels.costs.tokenize_seconds`; Kiwi's tokens come from the analyses) and scored
(:func:`korean_eval.metrics.costs.score_seconds`). Analyses and tokens found in the cache cost nothing, so an
estimate is an upper bound. Measured by ``benchmarks/bench_costs.py`` on the project's shared 2-core machine (load
average ≈ 10 from other work at the time).
"""

from __future__ import annotations

from dataclasses import dataclass

from korean_eval.levels.costs import TOKENIZE_COSTS, started_levels, tokenize_seconds
from korean_eval.metrics.costs import score_seconds
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet

ANALYSIS_US_PER_CHAR = 110.7
PERTURB_US_PER_REF_CHAR = 415.3


@dataclass(frozen=True)
class LensEstimate:
    """Estimated seconds of the lens's analysis and of its probe (0 when there is nothing to probe)."""

    analysis: float
    probe: float

    @property
    def total(self) -> float:
        return self.analysis + self.probe


def lens_estimate(evalset: EvalSet, config: EvalConfig, kinds: int | None = None) -> LensEstimate:
    """The estimate of :func:`korean_eval.lens.run.run_lens` on ``evalset`` with ``config``'s levels × metrics and
    ``kinds`` perturbation kinds (default all) — see the module docstring."""
    from korean_eval.lens.perturb import KINDS

    kinds = len(KINDS) if kinds is None else kinds
    refs = list(dict.fromkeys(evalset.refs[0])) if evalset.refs else []
    texts = set(refs) | {h for hyps in evalset.systems.values() for h in hyps if h is not None}
    started = started_levels()
    load = 0.0 if "kiwi" in started else TOKENIZE_COSTS["kiwi"][0]
    analysis = load + ANALYSIS_US_PER_CHAR * sum(len(t) for t in texts) / 1e6
    if not (config.levels and config.metrics and refs):
        return LensEstimate(analysis, 0.0)
    ref_chars = sum(len(r) for r in refs)
    probe_chars = (kinds + 1) * ref_chars
    levels = [lv for lv in config.levels if lv != "kiwi"]  # its tokens: the analyses
    tokenise = sum(tokenize_seconds(levels, probe_chars, ref_chars, started).values())
    probe = PERTURB_US_PER_REF_CHAR * ref_chars / 1e6 + tokenise + score_seconds(config.metrics, len(config.levels),
                                                                                   kinds * ref_chars)
    return LensEstimate(analysis, probe)
