"""The meta-evaluation: how metric scores agree with human scores, and how sure we can be (docs/design.md §5).

Two layers. Pure functions over numpy arrays (no :class:`~korean_eval.model.results.Results`):

* :mod:`~korean_eval.model.vocabulary` — the vocabulary (statistics, groupings, granularities, configuration names,
  direction sign) and its one validation helper;
* :mod:`~korean_eval.metaeval.stats.correlation` — correlations at either granularity with any grouping;
* :mod:`~korean_eval.metaeval.stats.pdp` — Pairwise Difference Pearson, its bootstrap and permutation sums in closed form;
* :mod:`~korean_eval.metaeval.stats.kernels`, :mod:`~korean_eval.metaeval.stats.weighted` — compiled correlations of weighted
  point sets, the core of every resampling;
* :mod:`~korean_eval.metaeval.stats.resampling` — bootstrap indices, counts, percentile intervals, resampled correlations;
* :mod:`~korean_eval.metaeval.stats.permutation`, :mod:`~korean_eval.metaeval.stats.comparisons` — the paired permutation test,
  the Williams test, comparisons of two configurations and significance clusters;
* :mod:`~korean_eval.metaeval.stats.pairwise` — system pairs: paired bootstraps, Wilcoxon, labels, pairwise accuracy;
* :mod:`~korean_eval.metaeval.stats.reference` — slow loop definitions the tests compare the fast code against.

Applied to one evaluation: :mod:`~korean_eval.metaeval.tables.tidy` (the pipeline's correlation, ranking and flip
rows), :mod:`~korean_eval.metaeval.tables.configs`, :mod:`~korean_eval.metaeval.tables.intervals` (confidence intervals),
:mod:`~korean_eval.metaeval.tables.significance` (significance tables, clusters), :mod:`~korean_eval.metaeval.tables.system_pairs`
(system pairs, pairwise accuracy, ranking view) and :mod:`~korean_eval.metaeval.tables.compare` (one comparison in words).
"""
