"""korean-eval: evaluate machine translation into Korean at every token level, against human judgments.

The public API (docs/design.md §2)::

    import korean_eval
    results = korean_eval.evaluate(references, {"A": hyps_a, "B": hyps_b}, human=scores)
    results.system_scores, results.correlations, results.significance, results.to_csv("out")

:func:`evaluate`, the loaders :func:`load_texts` and :func:`load_mtme`, the data classes :class:`EvalSet`,
:class:`EvalConfig` and :class:`Results`, and the exceptions :class:`InputError` and :class:`EvaluationStopped` (an
evaluation stopped by its ``stop`` signal) are imported on first use, so that ``import korean_eval`` (and the
command line's start) stays fast. The package never imports Streamlit.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from korean_eval.engine.cache import configure_numba_cache

__version__ = "0.1.0"

configure_numba_cache()  # before any numba kernel is decorated: compiled kernels never go into the package

_PUBLIC = {
    "evaluate": "korean_eval.api",
    "load_texts": "korean_eval.api",
    "load_mtme": "korean_eval.api",
    "EvalSet": "korean_eval.model.evalset",
    "EvalConfig": "korean_eval.model.config",
    "Results": "korean_eval.model.results",
    "InputError": "korean_eval.inputs.text_files",
    "EvaluationStopped": "korean_eval.engine.stopping",
}
__all__ = ["__version__", *_PUBLIC]

if TYPE_CHECKING:
    from korean_eval.api import evaluate as evaluate
    from korean_eval.api import load_mtme as load_mtme
    from korean_eval.api import load_texts as load_texts
    from korean_eval.engine.stopping import EvaluationStopped as EvaluationStopped
    from korean_eval.inputs.text_files import InputError as InputError
    from korean_eval.model.config import EvalConfig as EvalConfig
    from korean_eval.model.evalset import EvalSet as EvalSet
    from korean_eval.model.results import Results as Results


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'korean_eval' has no attribute {name!r}")
