"""The settings of one evaluation (:class:`EvalConfig`): everything that changes a number, validated on construction."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from korean_eval.levels.registry import SpmLevel, level_names
from korean_eval.metrics import make_metric, metric_names
from korean_eval.model import defaults
from korean_eval.model.defaults import ALPHA, AR_TRIALS, RESAMPLES, SEED
from korean_eval.model.vocabulary import GROUPINGS, STATISTICS, check_choice


@dataclass(frozen=True)
class EvalConfig:
    """Everything that changes the numbers. Validates itself on construction.

    Attributes:
        levels: token levels to evaluate (registry names).
        metrics: metrics (registry names).
        overrides: per-level metric options, ``{level: {metric: {option: value}}}`` (e.g. BLEU max_ngram_order).
        ter_cap: cap segment TER at 100 before correlating (the study did; TER exceeds 100 when the hypothesis is
            much longer than the reference). System TER is never capped.
        statistics: correlation statistics; groupings: segment-level groupings.
        spm_vocab: SentencePiece vocabulary size (upper bound); spm_model: a user-supplied model (bytes).
        ter_implementation: "fast" (exact reimplementation) or "sacrebleu" (reference implementation).
        jobs: worker processes/threads (None = all cores).
        scheduler: address of a Dask distributed scheduler (e.g. ``tcp://10.0.0.5:8786``): the worker tasks run on
            that cluster instead of local processes (:mod:`korean_eval.engine.dask_executor`); None = the local pool. Like
            ``jobs`` it changes where the numbers are computed, never what they are (not in :meth:`as_dict`).
        given_lower_is_better: names of the user's own metric scores (level ``given``) where lower is better
            (error rates such as MetricX); the others count as higher-is-better.
        spa_permutations: permutations of the soft pairwise accuracy's tests (0 = no SPA); seed: their seed.
        replace_nans_with_zeros: a grouped segment-level correlation counts its undefined groups (e.g. an item where
            every system got the same score) as 0 instead of leaving them out (mt-metrics-eval's option).
    """

    levels: tuple[str, ...] = defaults.LEVELS
    metrics: tuple[str, ...] = defaults.METRICS
    overrides: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    ter_cap: bool = False
    statistics: tuple[str, ...] = STATISTICS
    groupings: tuple[str, ...] = GROUPINGS
    spm_vocab: int = SpmLevel.DEFAULT_VOCAB
    spm_model: bytes | None = None
    ter_implementation: str = "fast"
    jobs: int | None = None
    scheduler: str | None = None
    given_lower_is_better: tuple[str, ...] = ()
    spa_permutations: int = RESAMPLES
    seed: int = SEED
    replace_nans_with_zeros: bool = False

    def __post_init__(self) -> None:
        for level in self.levels:
            if level not in level_names():
                raise ValueError(f"unknown token level {level!r}; levels are {', '.join(level_names())}")
        for metric in self.metrics:
            if metric not in metric_names():
                raise ValueError(f"unknown metric {metric!r}; metrics are {', '.join(metric_names())}")
        for s in self.statistics:
            check_choice("correlation statistic", s, STATISTICS)
        for g in self.groupings:
            check_choice("grouping", g, GROUPINGS)
        for level, per_metric in self.overrides.items():
            if level not in level_names():
                raise ValueError(f"override for unknown level {level!r}")
            for metric, options in per_metric.items():
                make_metric(metric, options)  # validates
        if self.spa_permutations < 0:
            raise ValueError(f"spa_permutations must be 0 or more, got {self.spa_permutations}")
        if self.ter_implementation not in ("fast", "sacrebleu"):
            raise ValueError("ter_implementation must be 'fast' or 'sacrebleu'")
        if self.scheduler is not None and not self.scheduler.strip():
            raise ValueError("scheduler must be the address of a Dask scheduler (e.g. tcp://host:8786) or None")

    @property
    def spm_model_id(self) -> str | None:
        """``sha256:<hex>`` of the user-supplied SentencePiece model; None when the model is trained on the references."""
        return "sha256:" + hashlib.sha256(self.spm_model).hexdigest() if self.spm_model else None

    def options_for(self, level: str, metric: str) -> dict[str, int]:
        return dict(self.overrides.get(level, {}).get(metric, {}))

    def as_dict(self) -> dict:
        """JSON-safe settings (for exports and cache keys)."""
        return {
            "levels": list(self.levels),
            "metrics": list(self.metrics),
            "overrides": {lv: {m: dict(o) for m, o in per.items()} for lv, per in self.overrides.items()},
            "ter_cap": self.ter_cap,
            "statistics": list(self.statistics),
            "groupings": list(self.groupings),
            "spm_vocab": self.spm_vocab,
            "spm_model": self.spm_model_id,
            "ter_implementation": self.ter_implementation,
            "given_lower_is_better": sorted(self.given_lower_is_better),
            "spa_permutations": self.spa_permutations,
            "seed": self.seed,
            "replace_nans_with_zeros": self.replace_nans_with_zeros,
        }


#: The tests that can decide a cluster: name → what it is.
RANKING_TESTS: dict[str, str] = {
    "bootstrap": "paired bootstrap resampling (sacrebleu --paired-bs)",
    "randomization": "paired approximate randomization (sacrebleu --paired-ar)",
}


@dataclass(frozen=True)
class RankingSettings:
    """The settings of the ranking checks: bootstrap resamples, approximate-randomization trials (0: that test is
    skipped), their seed, the significance level, and the test that decides the clusters (:data:`RANKING_TESTS`)."""

    resamples: int = RESAMPLES
    ar_trials: int = AR_TRIALS
    seed: int = SEED
    alpha: float = ALPHA
    test: str = "bootstrap"

    def __post_init__(self) -> None:
        check_choice("test", self.test, tuple(RANKING_TESTS))
        if self.test == "randomization" and self.ar_trials < 1:
            raise ValueError("clusters by approximate randomization need ar_trials >= 1")

    def describe(self, n_items: int) -> str:
        """One sentence naming the tests, their draws and seed, and what decides "significant"."""
        ar = (f"; approximate randomization: {self.ar_trials:,} trials, each segment's two outputs swapped with "
              "probability 0.5" if self.ar_trials > 0 else "")
        return (f"Paired bootstrap: {self.resamples:,} resamples of the {n_items:,} segments{ar}; seed {self.seed}. "
                f"Significant: p < {self.alpha:g} by {RANKING_TESTS[self.test]}.")
