"""MQM segment scores from error spans, with the published weights (docs/design.md §4, "Error spans").

Weights of Freitag et al. (2021), "Experts, Errors, and Context: A Large-Scale Study of Human Evaluation for
Machine Translation", TACL 9, Table 2 — Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Non-translation 25,
Neutral 0 — written as mt-metrics-eval writes them (``converters/score_mqm.py``, flag ``--weights``):
``severity[/category[/subcategory]]:weight``, the most specific match applied to each error, case-insensitive,
no match = 0. Non-translation is a whole-segment error: a segment's penalty is capped at 25 (``cap:25``), the
weight of a non-translation, so that no segment counts more than one that was not translated at all.

A rater's penalty of a segment = min(cap, Σ weights of its errors); an error without a severity counts its own
``score`` (mt-metrics-eval's ``Error.score``) when given. Penalties are lower-is-better; the human score used by
every statistic is their negation (docs/design.md §4), as mt-metrics-eval stores MQM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from korean_eval.inputs.spans.records import ErrorSpan, Judgment

__all__ = ["DEFAULT_WEIGHTS", "MqmWeights", "NO_ERROR", "judgment_penalty", "parse_weights"]

#: The published weights (see the module docstring), in mt-metrics-eval's spec syntax, with the segment cap.
DEFAULT_WEIGHTS = "Major:5 Minor:1 Neutral:0 Major/Non-translation:25 Minor/Fluency/Punctuation:0.1 cap:25"
#: The severity (and category) of a row that says "rated, no error" in Google's MQM files.
NO_ERROR = "no-error"


def _key(parts: list[str]) -> str:
    """Normalised ``severity/category/subcategory``: lower case, trimmed, without the ``!`` Google's files append
    to ``Non-translation!``."""
    return "/".join(p.strip().lower().rstrip("!").strip() for p in parts)


@dataclass(frozen=True)
class MqmWeights:
    """Weights by ``severity[/category[/subcategory]]`` (normalised keys) and the per-segment cap (None = none)."""

    weights: tuple[tuple[str, float], ...]
    cap: float | None = 25.0

    @property
    def severities(self) -> frozenset[str]:
        return frozenset(k.split("/")[0] for k, _ in self.weights) | {NO_ERROR}

    def weight(self, severity: str, category: str | None) -> float:
        """The most specific match of ``severity/category``; 0 when nothing matches (mt-metrics-eval's ``Score``)."""
        table = dict(self.weights)
        items = [severity] + (category or "").split("/")
        while items:
            key = _key(items)
            if key in table:
                return table[key]
            items = items[:-1]
        return 0.0

    def signature(self) -> str:
        """``mqm-weights:Major=5,Minor=1,…|cap:25`` (the spec as used; goes wherever the human scores are named)."""
        body = ",".join(f"{k}={w:g}" for k, w in self.weights)
        return f"mqm-weights:{body}|cap:{'none' if self.cap is None else f'{self.cap:g}'}"


def parse_weights(spec: str | None) -> MqmWeights:
    """``"Major:5 Minor:1 … cap:25"`` (space- or comma-separated ``KEY:WEIGHT``; ``cap:none`` for no cap) →
    :class:`MqmWeights`; None or empty → the published weights. ValueError naming the bad item."""
    spec = spec if spec and spec.strip() else DEFAULT_WEIGHTS
    weights: dict[str, float] = {}
    cap: float | None = None
    for item in spec.replace(",", " ").split():
        key, sep, value = item.rpartition(":")
        if not sep or not key:
            raise ValueError(f"MQM weight {item!r}: not KEY:WEIGHT (e.g. Major:5, Minor/Fluency/Punctuation:0.1)")
        if key.lower() == "cap" and value.lower() == "none":
            cap = None
            continue
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"MQM weight {item!r}: {value!r} is not a number") from None
        if not math.isfinite(number) or number < 0:
            raise ValueError(f"MQM weight {item!r}: weights are finite and ≥ 0")
        if key.lower() == "cap":
            cap = number
        else:
            weights[_key(key.split("/"))] = number
    if not weights:
        raise ValueError(f"MQM weights {spec!r}: no severity weight given")
    return MqmWeights(tuple(weights.items()), cap)


def error_problem(error: ErrorSpan, weights: MqmWeights) -> str:
    """Why ``error`` cannot be weighted, or ``""``: a severity the weights do not name (and no error score)."""
    if error.severity is None:
        return "" if error.score is not None else "an error with neither severity nor score"
    if _key([error.severity]) not in weights.severities:
        known = ", ".join(sorted(weights.severities))
        return f"severity {error.severity!r} has no weight (weighted: {known}; set them with --mqm-weights)"
    return ""


def error_weight(error: ErrorSpan, weights: MqmWeights) -> float:
    """The penalty of one error: its weight, or its own score when it has no severity; 0 for a no-error row."""
    if error.severity is None:
        return float(error.score or 0.0)
    if _key([error.severity]) == NO_ERROR:
        return 0.0
    return weights.weight(error.severity, error.category)


def judgment_penalty(judgment: Judgment, weights: MqmWeights) -> float:
    """min(cap, Σ error weights) of one judgment (module docstring)."""
    total = sum(error_weight(e, weights) for e in judgment.errors)
    return min(total, weights.cap) if weights.cap is not None else total
