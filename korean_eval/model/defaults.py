"""The defaults every entry point shares: the token levels and metrics of a first evaluation, and the settings of
the resampling statistics (docs/design.md §5)."""

from __future__ import annotations

#: Token levels evaluated unless others are named: fast, no JVM (the study's full grid is ``levels="all"``).
LEVELS: tuple[str, ...] = ("word", "mecab", "kiwi", "char", "jamo")
#: Metrics evaluated unless others are named: sacrebleu's BLEU, chrF, chrF+, chrF++ and TER.
METRICS: tuple[str, ...] = ("bleu", "chrf", "chrf+", "chrf++", "ter")
#: Seed of every bootstrap resampling and permutation test.
SEED = 12345
#: Bootstrap resamples and permutations.
RESAMPLES = 1000
#: Approximate-randomization trials of the system-pair tests: sacrebleu's default (``--paired-ar-n``).
AR_TRIALS = 10_000
#: Significance level of every test and cluster.
ALPHA = 0.05
