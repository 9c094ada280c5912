"""How a metric declares itself: registry name, group, direction, options, fixed parameters and runtime settings.

Every metric class carries its :class:`MetricDeclaration` (chrF, chrF+ and chrF++ are one class with three), and
everything else is read from it: the class's constructor defaults, the registry (:mod:`korean_eval.metrics`), the
dashboard's per-level option widgets, the CLI's ``--override LEVEL:METRIC:OPTION=N`` parsing and their validation
messages. The metric definitions themselves are in ``docs/design.md §3``.

A metric's constructor arguments are of three kinds:

* :class:`IntOption`: an integer a user may override per token level (bounds, default, help text);
* :class:`Parameter`: a parameter of the definition that the registry keeps at its default (settable only by
  constructing the class directly); options and parameters together (the declaration's ``arguments``, in the
  constructor's order) are ``MetricInfo.options``, hence part of the statistics' cache key (``Metric.options_key``);
* :class:`RuntimeSetting`: how the statistics are computed (implementation, threads), never what they are; not
  part of ``MetricInfo.options`` or of any cache key.

The dataclasses validate themselves on construction (a default outside its bounds, an unknown group, two arguments
with one name all raise ``ValueError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

GROUPS: tuple[str, ...] = ("sacrebleu", "extended")
SUMMED_STATISTICS = "computed from the segment statistics summed over the corpus"

ParameterValue = int | float | str


@dataclass(frozen=True)
class IntOption:
    """An integer option a user may override per token level: default and inclusive bounds ``low..high``."""

    name: str
    default: int
    low: int
    high: int
    help: str

    def __post_init__(self) -> None:
        if not self.low <= self.default <= self.high:
            raise ValueError(f"option {self.name}: default {self.default} is outside {self.low}..{self.high}")

    def validate(self, metric: str, value: object) -> int:
        """``value`` as an int (an integer or a string of one), or ``ValueError`` naming ``metric`` and the bounds."""
        try:
            number = int(value)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise ValueError(f"{metric} {self.name} must be an integer, got {value!r}") from None
        if number != value and not isinstance(value, str):
            raise ValueError(f"{metric} {self.name} must be an integer, got {value!r}")
        if not self.low <= number <= self.high:
            raise ValueError(f"{metric} {self.name} must be between {self.low} and {self.high}, got {number}")
        return number


@dataclass(frozen=True)
class Parameter:
    """A parameter of the metric's definition that the registry keeps at ``default``."""

    name: str
    default: ParameterValue
    help: str


@dataclass(frozen=True)
class RuntimeSetting:
    """A setting of how the statistics are computed (the statistics do not depend on it)."""

    name: str
    default: object
    help: str


@dataclass(frozen=True)
class MetricDeclaration:
    """Everything the registry, the dashboard and the CLI know about one registered metric.

    Attributes:
        name: stable lower-case registry/CLI name, e.g. ``"chrf++"``.
        label: display name, e.g. ``"chrF++"``.
        group: one of :data:`GROUPS` (the dashboard's metric-group toggle).
        higher_is_better: False for error rates (TER, CharacTER, EED).
        corpus_definition: one sentence stating how the system score is computed from segment statistics.
        arguments: the constructor's options (:class:`IntOption`, overridable per token level) and parameters
            (:class:`Parameter`, fixed at their defaults by the registry), in the constructor's order.
        runtime: the runtime settings the constructor accepts.
        kernels: the modules of the numba kernels its statistics call (compiled on first use, then loaded from numba's
            cache; :mod:`korean_eval.engine.kernel_warmup` tells a run which of them it will compile).
        kernels_only_with: ``(runtime setting, value)`` when the kernels are called only with that value of the
            setting (TER's ``("implementation", "fast")``); None: always.
        run_runtime: whether a run passes its runtime settings to the metric (:data:`RUN_RUNTIME`: the run's
            implementation choice as ``implementation``, the threads a task may use as ``n_jobs``); False: the
            metric keeps its declared runtime defaults.
        correlation_cap: the value its segment scores are capped at before correlations when the run asks for the
            cap (``EvalConfig.ter_cap``; TER's 100); None: never capped.
    """

    name: str
    label: str
    group: str
    higher_is_better: bool
    corpus_definition: str = SUMMED_STATISTICS
    arguments: tuple[IntOption | Parameter, ...] = ()
    runtime: tuple[RuntimeSetting, ...] = ()
    kernels: tuple[str, ...] = ()
    kernels_only_with: tuple[str, object] | None = None
    run_runtime: bool = False
    correlation_cap: float | None = None

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.lower():
            raise ValueError(f"metric name {self.name!r} must be non-empty and lower-case")
        if self.group not in GROUPS:
            raise ValueError(f"metric {self.name}: group {self.group!r} is not one of {', '.join(GROUPS)}")
        names = [item.name for item in (*self.arguments, *self.runtime)]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"metric {self.name} declares {', '.join(repeated)} more than once")

    @property
    def error_rate(self) -> bool:
        """An error rate: lower is better, so its correlations with human scores are negative when it agrees."""
        return not self.higher_is_better

    def kernels_for(self, runtime: Mapping[str, object]) -> tuple[str, ...]:
        """The kernel modules its statistics call with the runtime settings ``runtime`` (the undeclared ones at
        their defaults)."""
        if self.kernels_only_with is not None:
            setting, value = self.kernels_only_with
            if runtime.get(setting, self.default(setting)) != value:
                return ()
        return self.kernels

    def default(self, name: str) -> object:
        """The declared default of the option, parameter or runtime setting ``name`` (``KeyError`` if undeclared)."""
        for item in (*self.arguments, *self.runtime):
            if item.name == name:
                return item.default
        raise KeyError(f"metric {self.name} declares no {name!r}")

    @property
    def options(self) -> tuple[IntOption, ...]:
        """The options a user may override per token level."""
        return tuple(item for item in self.arguments if isinstance(item, IntOption))

    def option(self, name: str) -> IntOption:
        """The overridable option ``name`` (``KeyError`` if it is not one)."""
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(f"metric {self.name} has no option {name!r}")

    @property
    def defaults(self) -> dict[str, ParameterValue]:
        """Every option's and parameter's default: the ``MetricInfo.options`` of the metric built with defaults."""
        return {item.name: item.default for item in self.arguments}

    def validate_options(self, options: Mapping[str, object]) -> dict[str, int]:
        """Per-level overrides checked against :attr:`options`; ``ValueError`` naming the bad option."""
        by_name = {option.name: option for option in self.options}
        out: dict[str, int] = {}
        for key, value in options.items():
            if key not in by_name:
                allowed = ", ".join(by_name) or "none"
                raise ValueError(f"{self.name} has no option {key!r} (options: {allowed})")
            out[key] = by_name[key].validate(self.name, value)
        return out

    def constructor_arguments(self, options: Mapping[str, int]) -> dict[str, int]:
        """Constructor arguments for validated ``options``: every option, overridden or at its default."""
        return {option.name: options.get(option.name, option.default) for option in self.options}

    def runtime_arguments(self, runtime: Mapping[str, object]) -> dict[str, object]:
        """The settings of ``runtime`` this metric declares; the others are ignored, so that one set of runtime
        settings can be passed to every metric."""
        declared = {setting.name for setting in self.runtime}
        return {key: value for key, value in runtime.items() if key in declared}

    def run_arguments(self, implementation: str, threads: int | None) -> dict[str, object]:
        """The runtime settings a run passes to this metric: with :attr:`run_runtime`, ``implementation`` and
        ``threads`` as ``n_jobs`` (those it declares); else none."""
        if not self.run_runtime:
            return {}
        return self.runtime_arguments({"implementation": implementation, "n_jobs": threads})
