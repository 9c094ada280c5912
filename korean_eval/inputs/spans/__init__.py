"""Error-span annotations (MQM, ESA), several raters and the human ceiling (docs/design.md §4, §5).

* :mod:`~korean_eval.inputs.spans.records` — :class:`ErrorSpan`, :class:`Judgment`, :class:`RatingsRead`;
* readers: :mod:`~korean_eval.inputs.spans.rating_file` (mt-metrics-eval ``.seg.rating``), :mod:`~korean_eval.inputs.spans.mqm_tsv`
  (Google's MQM TSV), :mod:`~korean_eval.inputs.spans.esa` (ESA), :mod:`~korean_eval.inputs.spans.reading` (chooses one);
* :mod:`~korean_eval.inputs.spans.weights` — MQM weights (Freitag et al. 2021) and segment penalties;
* :mod:`~korean_eval.inputs.spans.attach` — ratings → ``EvalSet.human`` / ``human_ratings`` / ``spans``;
* :mod:`~korean_eval.metaeval.tables.human_ceiling` — the human ceiling: inter-rater agreement with the metrics' statistics.
"""

from korean_eval.inputs.spans.records import ErrorSpan, Judgment, RatingsRead

__all__ = ["ErrorSpan", "Judgment", "RatingsRead"]
