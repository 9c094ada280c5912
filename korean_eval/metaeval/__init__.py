"""The meta-evaluation: how metric scores agree with human scores, and how sure we can be (docs/design.md §5).

Two layers. Pure functions over numpy arrays (no :class:`~korean_eval.results.Results`):

* :mod:`~korean_eval.metaeval.names` — the vocabulary (statistics, groupings, granularities, configuration names,
  direction sign) and its one validation helper;
* :mod:`~korean_eval.metaeval.correlation` — correlations at either granularity with any grouping;
* :mod:`~korean_eval.metaeval.pdp` — Pairwise Difference Pearson, its bootstrap and permutation sums in closed form;
* :mod:`~korean_eval.metaeval.kernels`, :mod:`~korean_eval.metaeval.weighted` — compiled correlations of weighted
  point sets, the core of every resampling;
* :mod:`~korean_eval.metaeval.resampling` — bootstrap indices, counts, percentile intervals, resampled correlations;
* :mod:`~korean_eval.metaeval.permutation`, :mod:`~korean_eval.metaeval.comparisons` — the paired permutation test,
  the Williams test, comparisons of two configurations and significance clusters;
* :mod:`~korean_eval.metaeval.pairwise` — system pairs: paired bootstraps, Wilcoxon, labels, pairwise accuracy;
* :mod:`~korean_eval.metaeval.reference` — slow loop definitions the tests compare the fast code against.

Applied to one evaluation: :mod:`~korean_eval.metaeval.tidy` (the pipeline's correlation, ranking and flip
rows), :mod:`~korean_eval.metaeval.configs`, :mod:`~korean_eval.metaeval.intervals` (confidence intervals),
:mod:`~korean_eval.metaeval.significance` (significance tables, clusters), :mod:`~korean_eval.metaeval.system_pairs`
(system pairs, pairwise accuracy, ranking view) and :mod:`~korean_eval.metaeval.compare` (one comparison in words).
"""
