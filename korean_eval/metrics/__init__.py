"""The metric registry, built from the metrics' own declarations (``docs/design.md §3``).

Registry names are lower-case and used by the CLI and the dashboard: ``bleu``, ``chrf``, ``chrf+``, ``chrf++``,
``ter`` (group "sacrebleu") and ``nltk-bleu``, ``gleu``, ``nist``, ``ribes``, ``character``, ``eed`` (group
"extended"). Each name is a :class:`~korean_eval.metrics.declaration.MetricDeclaration` listed by its class
(:data:`METRIC_CLASSES`; a metric's module is imported when the metric is first used, so nltk and numba load only
for the metrics that need them); its overridable options (BLEU ``max_ngram_order``; chrF family ``char_order``,
``word_order``, ``beta``; NLTK-BLEU and NIST ``max_ngram_order``; GLEU ``max_len``) validate the per-level overrides
and are the dashboard's widgets.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from korean_eval.metrics.base import Metric, MetricInfo
from korean_eval.metrics.declaration import MetricDeclaration

__all__ = [
    "METRIC_CLASSES",
    "METRIC_NAMES",
    "Metric",
    "MetricDeclaration",
    "MetricInfo",
    "declaration",
    "make_metric",
    "metric_class",
    "metric_group",
    "metric_info",
    "validate_options",
]

# Registry name → (module of korean_eval.metrics, class). A metric's module is imported when the metric is first
# used, so that nltk and numba are loaded only for the metrics that need them (the whole-result and statistics
# caches make a warm run import none of them). tests/unit/metrics/test_metric_declarations.py checks that the names are the
# classes' declared ones, in this order.
_LOCATIONS: dict[str, tuple[str, str]] = {
    "bleu": ("sacre", "BleuMetric"),
    "chrf": ("sacre", "ChrfMetric"),
    "chrf+": ("sacre", "ChrfMetric"),
    "chrf++": ("sacre", "ChrfMetric"),
    "ter": ("sacre", "TerMetric"),
    "nltk-bleu": ("nltk_bleu", "NltkBleu"),
    "gleu": ("gleu", "Gleu"),
    "nist": ("nist", "Nist"),
    "ribes": ("ribes", "Ribes"),
    "character": ("character", "CharacTER"),
    "eed": ("eed", "EED"),
}
METRIC_NAMES: tuple[str, ...] = tuple(_LOCATIONS)


def metric_class(name: str) -> type[Metric]:
    """The class of the registered metric ``name``, its module imported now (``ValueError`` for an unknown name)."""
    if name not in _LOCATIONS:
        raise ValueError(f"unknown metric {name!r}; metrics are {', '.join(METRIC_NAMES)}")
    module, cls = _LOCATIONS[name]
    return getattr(importlib.import_module(f"korean_eval.metrics.{module}"), cls)


def __getattr__(name: str) -> object:
    """``METRIC_CLASSES``: every registered class, in registry order (importing every metric module)."""
    if name == "METRIC_CLASSES":
        return tuple(dict.fromkeys(metric_class(n) for n in METRIC_NAMES))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def declaration(name: str) -> MetricDeclaration:
    """The declaration of the registered metric ``name`` (``ValueError`` naming the registered ones otherwise)."""
    return next(d for d in metric_class(name).declarations if d.name == name)


def validate_options(metric: str, options: Mapping[str, object]) -> dict[str, int]:
    """Check per-level overrides against the metric's declared options; ``ValueError`` naming the bad option."""
    return declaration(metric).validate_options(options)


def make_metric(name: str, options: Mapping[str, object] | None = None, **runtime: object) -> Metric:
    """Construct a metric by registry name with validated options; of the ``runtime`` settings (TER's
    ``implementation`` and ``n_jobs``, CharacTER's ``n_jobs``) the metric's declared ones are passed on."""
    declared = declaration(name)
    cls = metric_class(name)
    return cls.from_declaration(declared, declared.validate_options(options or {}), declared.runtime_arguments(runtime))


def metric_info(name: str) -> MetricInfo:
    """The info of the metric ``name`` with its default options (read from the declaration, nothing constructed)."""
    declared = declaration(name)
    return MetricInfo.declared(declared, declared.defaults)


def metric_group(name: str) -> str:
    """The group of the metric ``name``: ``"sacrebleu"`` or ``"extended"``."""
    return declaration(name).group
