"""korean-eval: evaluate machine translation into Korean at every token level, against human judgments.

The package is the dashboard's backend and a command-line tool (``python -m korean_eval``); it never imports
Streamlit. Pipeline (docs/design.md §2): inputs → :class:`korean_eval.data.EvalSet` → token levels
(:mod:`korean_eval.tokenizers`) → per-segment statistics per metric (:mod:`korean_eval.metrics`) → segment and
system scores → meta-evaluation (:mod:`korean_eval.metaeval`) → tidy tables (:mod:`korean_eval.report`).
"""

from korean_eval.cache import configure_numba_cache

__version__ = "0.1.0"

configure_numba_cache()  # before any numba kernel is decorated: compiled kernels never go into the package
