"""The metric registry, built from the metrics' own declarations (``docs/design.md §3``).

The registry holds the built-in metrics by location (:data:`_LOCATIONS`: a metric's module is imported when the
metric is first used) and any metric class registered at run time with :func:`register_metric` (a package's own
metric, by its declarations alone). Registry names are lower-case and used by the CLI and the dashboard: ``bleu``, ``chrf``, ``chrf+``, ``chrf++``,
``ter`` (group "sacrebleu") and ``nltk-bleu``, ``gleu``, ``nist``, ``ribes``, ``character``, ``eed`` (group
"extended"). Each name is a :class:`~korean_eval.metrics.declaration.MetricDeclaration` listed by its class
(:data:`METRIC_CLASSES`; a metric's module is imported when the metric is first used, so nltk and numba load only
for the metrics that need them); its overridable options (BLEU ``max_ngram_order``; chrF family ``char_order``,
``word_order``, ``beta``; NLTK-BLEU and NIST ``max_ngram_order``; GLEU ``max_len``) validate the per-level overrides
and are the dashboard's widgets.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping

from korean_eval.metrics.base import Metric, MetricInfo
from korean_eval.metrics.declaration import MetricDeclaration

__all__ = [
    "METRIC_CLASSES",
    "METRIC_NAMES",
    "Metric",
    "MetricDeclaration",
    "MetricInfo",
    "declaration",
    "error_rate_labels",
    "make_metric",
    "metric_class",
    "metric_group",
    "metric_info",
    "metric_names",
    "register_metric",
    "unregister_metric",
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
# Registry name → a metric class registered at run time (:func:`register_metric`), after the built-ins.
_REGISTERED: dict[str, type[Metric]] = {}


def metric_names() -> tuple[str, ...]:
    """Every registered metric's name: the built-ins in registry order, then those registered at run time."""
    return (*_LOCATIONS, *_REGISTERED)


def register_metric(cls: type[Metric]) -> type[Metric]:
    """Register every metric ``cls`` declares (:attr:`Metric.declarations`) under its declared name, so that the
    CLI, the API, the exports and the dashboard offer it; returns ``cls`` (usable as a class decorator).
    ``ValueError`` when it declares nothing or a name that is registered already."""
    if not cls.declarations:
        raise ValueError(f"{cls.__name__} declares no metric (its `declarations` is empty)")
    taken = [d.name for d in cls.declarations if d.name in _LOCATIONS or d.name in _REGISTERED]
    if taken:
        raise ValueError(f"metric {', '.join(taken)} is registered already")
    for declared in cls.declarations:
        _REGISTERED[declared.name] = cls
    return cls


def unregister_metric(name: str) -> None:
    """Remove the metric ``name`` registered with :func:`register_metric` (``ValueError`` for a built-in)."""
    if name in _LOCATIONS:
        raise ValueError(f"metric {name!r} is built in")
    _REGISTERED.pop(name, None)


def metric_class(name: str) -> type[Metric]:
    """The class of the registered metric ``name``, its module imported now (``ValueError`` for an unknown name)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in _LOCATIONS:
        raise ValueError(f"unknown metric {name!r}; metrics are {', '.join(metric_names())}")
    module, cls = _LOCATIONS[name]
    return getattr(importlib.import_module(f"korean_eval.metrics.{module}"), cls)


def __getattr__(name: str) -> object:
    """``METRIC_NAMES``: :func:`metric_names` now; ``METRIC_CLASSES``: every registered class, in registry order
    (importing every metric module)."""
    if name == "METRIC_NAMES":
        return metric_names()
    if name == "METRIC_CLASSES":
        return tuple(dict.fromkeys(metric_class(n) for n in metric_names()))
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


def error_rate_labels(names: Iterable[str]) -> tuple[str, ...]:
    """The labels of the error rates (lower is better) among the registered metrics of ``names``, in order."""
    registered = set(metric_names())
    return tuple(declaration(n).label for n in dict.fromkeys(names) if n in registered and declaration(n).error_rate)


def metric_group(name: str) -> str:
    """The group of the metric ``name``: ``"sacrebleu"`` or ``"extended"``."""
    return declaration(name).group
