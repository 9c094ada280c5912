"""The metric registry, built from the metrics' own declarations (``docs/design.md §3``).

Registry names are lower-case and used by the CLI and the dashboard: ``bleu``, ``chrf``, ``chrf+``, ``chrf++``,
``ter`` (group "sacrebleu") and ``nltk-bleu``, ``gleu``, ``nist``, ``ribes``, ``character``, ``eed`` (group
"extended"). Each name is a :class:`~korean_eval.metrics.declaration.MetricDeclaration` listed by its class in
:data:`METRIC_CLASSES`; its overridable options (BLEU ``max_ngram_order``; chrF family ``char_order``,
``word_order``, ``beta``; NLTK-BLEU and NIST ``max_ngram_order``; GLEU ``max_len``) validate the per-level overrides
and are the dashboard's widgets.
"""

from __future__ import annotations

from collections.abc import Mapping

from korean_eval.metrics.base import Metric, MetricInfo
from korean_eval.metrics.character import CharacTER
from korean_eval.metrics.declaration import MetricDeclaration
from korean_eval.metrics.eed import EED
from korean_eval.metrics.gleu import Gleu
from korean_eval.metrics.nist import Nist
from korean_eval.metrics.nltk_bleu import NltkBleu
from korean_eval.metrics.ribes import Ribes
from korean_eval.metrics.sacre import BleuMetric, ChrfMetric, TerMetric

__all__ = [
    "METRIC_CLASSES",
    "METRIC_NAMES",
    "Metric",
    "MetricDeclaration",
    "MetricInfo",
    "declaration",
    "make_metric",
    "metric_group",
    "metric_info",
    "validate_options",
]

METRIC_CLASSES: tuple[type[Metric], ...] = (
    BleuMetric, ChrfMetric, TerMetric, NltkBleu, Gleu, Nist, Ribes, CharacTER, EED
)

_REGISTRY: dict[str, tuple[type[Metric], MetricDeclaration]] = {
    declared.name: (cls, declared) for cls in METRIC_CLASSES for declared in cls.declarations
}
METRIC_NAMES: tuple[str, ...] = tuple(_REGISTRY)


def declaration(name: str) -> MetricDeclaration:
    """The declaration of the registered metric ``name`` (``ValueError`` naming the registered ones otherwise)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown metric {name!r}; metrics are {', '.join(METRIC_NAMES)}")
    return _REGISTRY[name][1]


def validate_options(metric: str, options: Mapping[str, object]) -> dict[str, int]:
    """Check per-level overrides against the metric's declared options; ``ValueError`` naming the bad option."""
    return declaration(metric).validate_options(options)


def make_metric(name: str, options: Mapping[str, object] | None = None, **runtime: object) -> Metric:
    """Construct a metric by registry name with validated options; of the ``runtime`` settings (TER's
    ``implementation`` and ``n_jobs``, CharacTER's ``n_jobs``) the metric's declared ones are passed on."""
    declared = declaration(name)
    cls = _REGISTRY[name][0]
    return cls.from_declaration(declared, declared.validate_options(options or {}), declared.runtime_arguments(runtime))


def metric_info(name: str) -> MetricInfo:
    """The info of the metric ``name`` with its default options (read from the declaration, nothing constructed)."""
    declared = declaration(name)
    return MetricInfo.declared(declared, declared.defaults)


def metric_group(name: str) -> str:
    """The group of the metric ``name``: ``"sacrebleu"`` or ``"extended"``."""
    return declaration(name).group
