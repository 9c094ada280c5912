"""The metric registry: names, option declarations (validated), and construction.

Registry names are lower-case and used by the CLI and the dashboard: ``bleu``, ``chrf``, ``chrf+``, ``chrf++``,
``ter`` (group "sacrebleu") and the extended metrics (group "extended") where installed.

Per-level option overrides are declared as :class:`OptionSpec` rows, which validate values and from which the
dashboard builds its widgets: BLEU ``max_ngram_order``; chrF family ``char_order``, ``word_order``, ``beta``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from korean_eval.metrics.base import Metric, MetricInfo
from korean_eval.metrics.sacre import BleuMetric, ChrfMetric, TerMetric

__all__ = [
    "METRIC_NAMES",
    "OPTION_SPECS",
    "Metric",
    "MetricInfo",
    "OptionSpec",
    "make_metric",
    "metric_group",
    "metric_info",
    "validate_options",
]


@dataclass(frozen=True)
class OptionSpec:
    """One overridable integer option of a metric: its bounds, default and meaning."""

    metric: str
    name: str
    default: int
    low: int
    high: int
    help: str

    def validate(self, value: object) -> int:
        try:
            number = int(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{self.metric} {self.name} must be an integer, got {value!r}") from None
        if number != value and not isinstance(value, str):
            raise ValueError(f"{self.metric} {self.name} must be an integer, got {value!r}")
        if not self.low <= number <= self.high:
            raise ValueError(f"{self.metric} {self.name} must be between {self.low} and {self.high}, got {number}")
        return number


def _chrf_specs(metric: str, word_order: int) -> list[OptionSpec]:
    return [
        OptionSpec(metric, "char_order", 6, 1, 12, "character n-gram order"),
        OptionSpec(metric, "word_order", word_order, 0, 4, "word (token) n-gram order"),
        OptionSpec(metric, "beta", 2, 1, 5, "recall weight β of the F-score"),
    ]


OPTION_SPECS: dict[str, list[OptionSpec]] = {
    "bleu": [OptionSpec("bleu", "max_ngram_order", 4, 1, 9, "maximum n-gram order")],
    "chrf": _chrf_specs("chrf", 0),
    "chrf+": _chrf_specs("chrf+", 1),
    "chrf++": _chrf_specs("chrf++", 2),
    "ter": [],
}


def _chrf_factory(name: str, word_order: int) -> Callable[..., Metric]:
    def factory(char_order: int = 6, word_order: int = word_order, beta: int = 2, **_: object) -> Metric:
        return ChrfMetric(char_order=char_order, word_order=word_order, beta=beta, name=name)

    return factory


_FACTORIES: dict[str, Callable[..., Metric]] = {
    "bleu": lambda max_ngram_order=4, **_: BleuMetric(max_ngram_order=max_ngram_order),
    "chrf": _chrf_factory("chrf", 0),
    "chrf+": _chrf_factory("chrf+", 1),
    "chrf++": _chrf_factory("chrf++", 2),
    "ter": lambda implementation="fast", n_jobs=None, **_: TerMetric(implementation=implementation, n_jobs=n_jobs),
}


def _register_extended() -> None:
    """Register the extended metrics (NLTK-based, CharacTER, EED)."""
    from korean_eval.metrics.extended_registry import EXTENDED_FACTORIES, EXTENDED_OPTION_SPECS

    for name, factory in EXTENDED_FACTORIES.items():
        _FACTORIES[name] = factory
        OPTION_SPECS.setdefault(name, [])
    for metric, option, default, low, high, text in EXTENDED_OPTION_SPECS:
        OPTION_SPECS[metric].append(OptionSpec(metric, option, default, low, high, text))


_register_extended()
METRIC_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def validate_options(metric: str, options: Mapping[str, object]) -> dict[str, int]:
    """Check per-level overrides against :data:`OPTION_SPECS`; raise ValueError naming the bad option."""
    specs = {s.name: s for s in OPTION_SPECS.get(metric, [])}
    out: dict[str, int] = {}
    for key, value in options.items():
        if key not in specs:
            allowed = ", ".join(specs) or "none"
            raise ValueError(f"{metric} has no option {key!r} (options: {allowed})")
        out[key] = specs[key].validate(value)
    return out


def make_metric(name: str, options: Mapping[str, object] | None = None, **runtime: object) -> Metric:
    """Construct a metric by registry name with validated options (and runtime settings such as TER's n_jobs)."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown metric {name!r}; metrics are {', '.join(METRIC_NAMES)}")
    return _FACTORIES[name](**validate_options(name, options or {}), **runtime)


def metric_info(name: str) -> MetricInfo:
    return make_metric(name).info


def metric_group(name: str) -> str:
    return metric_info(name).group
