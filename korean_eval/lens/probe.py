"""The perturbation probe: which token level × metric notices which error (docs/design.md §8).

Every kind of :mod:`korean_eval.lens.perturb` is applied to every reference (the first reference stream when there
are several); each perturbed reference is scored against its original by the project's own pipeline
(:func:`korean_eval.engine.pipeline.evaluate`: the same tokenisation, sacrebleu statistics, options and caches as ``run``),
as one "system" per kind, next to the unperturbed reference scored against itself. For a segment, level and metric:

* ``change = score(perturbed, reference) − score(reference, reference)`` (metric units; BLEU of a reference against
  itself is 100 up to floating-point rounding, TER 0);
* ``penalty = −change`` for a metric where higher is better, ``+change`` for an error rate (TER, CharacTER, EED):
  how much worse the metric rates the perturbed text, in the metric's units.

Per kind × level × metric: ``applied`` (segments), ``not_applicable`` (segments where the kind cannot apply, with
their reasons in the perturbation table), ``mean_change`` and ``mean_penalty`` over the applied segments, and
``relative_to_drop = mean_penalty / mean_penalty of drop_content`` at the same level × metric: 1 means the metric
punishes this error as much as losing a content eojeol, 0 not at all, a negative value rewards it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.engine.cache import NullCache, text_key
from korean_eval.engine.pipeline import Progress, evaluate
from korean_eval.lens.analysis import analyse, kiwi_tokens
from korean_eval.lens.perturb import KINDS, SEVERE_KIND, perturbation_table
from korean_eval.levels.registry import KiwiLevel
from korean_eval.model.config import EvalConfig
from korean_eval.model.defaults import SEED
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import higher_is_better

UNPERTURBED = "(unperturbed)"
"""The probe's system name of the references scored against themselves."""

SUMMARY_COLUMNS = ["kind", "level", "metric", "applied", "not_applicable", "mean_change", "mean_penalty",
                   "relative_to_drop", "higher_is_better"]
SEGMENT_COLUMNS = ["kind", "seg_id", "level", "metric", "score", "unperturbed", "change", "penalty"]
MIN_PROBE_SEGMENTS = 10
"""A summary cell resting on fewer perturbed segments is marked (greyed in the charts, out of their colour scale):
its mean is that of a handful of sentences."""


def small_probe_support(summary: pd.DataFrame, minimum: int = MIN_PROBE_SEGMENTS) -> pd.Series:
    """True for the rows of ``summary`` (:data:`SUMMARY_COLUMNS`) resting on fewer than ``minimum`` perturbed
    segments (``applied``)."""
    return summary["applied"] < minimum


@dataclass
class ProbeResult:
    """The probe's tables: ``perturbations`` (:data:`korean_eval.lens.perturb.TABLE_COLUMNS`), ``segments``
    (:data:`SEGMENT_COLUMNS`, applied perturbations only) and ``summary`` (:data:`SUMMARY_COLUMNS`), plus the
    pipeline's notes."""

    perturbations: pd.DataFrame
    segments: pd.DataFrame
    summary: pd.DataFrame
    notes: list[str]


class _KnownKiwiTokens:
    """A cache whose token look-ups for the ``kiwi`` level are answered from analyses done already (Kiwi's forms
    are that level's tokens, :func:`korean_eval.lens.analysis.kiwi_tokens`), so no text is analysed twice; every
    other look-up and store goes to ``base``. The probe's whole results are not stored (``store_results``): they
    would push the user's own evaluations out of the result store, and the token and statistics caches already
    make a rerun cheap."""

    store_results = False

    def __init__(self, base: NullCache, known: dict[bytes, str]):
        self.base, self.known, self.level_key = base, known, KiwiLevel().options_key()

    def get_tokens(self, level_key: str, keys: Sequence[bytes]) -> dict[bytes, str]:
        if level_key != self.level_key:
            return self.base.get_tokens(level_key, keys)
        found = {k: self.known[k] for k in keys if k in self.known}
        rest = [k for k in keys if k not in found]
        return {**found, **(self.base.get_tokens(level_key, rest) if rest else {})}

    def __getattr__(self, name: str):
        return getattr(self.base, name)


def scaled_progress(progress: Progress | None, low: float, high: float) -> Progress | None:
    """``progress`` for a stage that covers ``low`` … ``high`` of the whole run."""
    if progress is None:
        return None
    return lambda fraction, message: progress(low + (high - low) * fraction, message)


def probe_evalset(perturbations: pd.DataFrame, seg_ids: Sequence[str], references: Sequence[str]) -> EvalSet:
    """The evaluation set the probe scores: the references as the only reference stream; one system per kind that
    applies somewhere (its perturbed references, None where it cannot apply) and :data:`UNPERTURBED`."""
    systems: dict[str, list[str | None]] = {UNPERTURBED: list(references)}
    for kind, rows in perturbations.groupby("kind", sort=False):
        if rows["applied"].any():
            systems[str(kind)] = [t if ok else None for t, ok in zip(rows["perturbed"], rows["applied"], strict=True)]
    return EvalSet(seg_ids=list(seg_ids), refs=[list(references)], systems=systems)


def run_probe(
    evalset: EvalSet,
    config: EvalConfig,
    kinds: Sequence[str] = tuple(KINDS),
    seed: int = SEED,
    cache: NullCache | None = None,
    progress: Progress | None = None,
) -> ProbeResult:
    """Perturb the references of ``evalset`` and score every kind at ``config``'s levels × metrics."""
    cache = cache or NullCache()
    references = list(evalset.refs[0])
    if progress is not None:
        progress(0.0, f"perturbing the references ({len(kinds)} kinds) and re-analysing the results")
    perturbations = perturbation_table(evalset.seg_ids, references, kinds, seed, cache)
    probe_set = probe_evalset(perturbations, evalset.seg_ids, references)
    texts = [t for hyps in probe_set.systems.values() for t in hyps if t is not None]
    known = {text_key(t): kiwi_tokens(a) for t, a in analyse(texts, cache).items()} if "kiwi" in config.levels else {}
    plain = dataclasses.replace(config, ter_cap=False, given_lower_is_better=())
    results = evaluate(probe_set, plain, progress=scaled_progress(progress, 0.3, 1.0), cache=_KnownKiwiTokens(cache, known))  # type: ignore[arg-type]
    segments = segment_changes(results.segment_scores)
    summary = summarise(segments, perturbations, kinds, config.levels, config.metrics)
    notes = [n for n in results.notes if not n.startswith("no human scores")]
    if evalset.n_refs > 1:
        notes.append(f"the probe perturbs the first of the {evalset.n_refs} reference streams only")
    return ProbeResult(perturbations, segments, summary, notes)


def segment_changes(segment_scores: pd.DataFrame) -> pd.DataFrame:
    """:data:`SEGMENT_COLUMNS` from the probe's segment scores (``system, seg_id, level, metric, score``)."""
    base = segment_scores[segment_scores["system"] == UNPERTURBED]
    base = base[["seg_id", "level", "metric", "score"]].rename(columns={"score": "unperturbed"})
    rows = segment_scores[segment_scores["system"] != UNPERTURBED].rename(columns={"system": "kind"})
    out = rows.merge(base, on=["seg_id", "level", "metric"], how="left", validate="many_to_one")
    out["change"] = out["score"] - out["unperturbed"]
    sign = np.where([higher_is_better(m, lv) for m, lv in zip(out["metric"], out["level"], strict=True)], -1.0, 1.0)
    out["penalty"] = sign * out["change"]
    return out[SEGMENT_COLUMNS].reset_index(drop=True)


def summarise(
    segments: pd.DataFrame, perturbations: pd.DataFrame, kinds: Sequence[str], levels: Sequence[str],
    metrics: Sequence[str],
) -> pd.DataFrame:
    """:data:`SUMMARY_COLUMNS` for every kind × level × metric (kinds, levels and metrics in the given order)."""
    full = pd.MultiIndex.from_product([list(kinds), list(levels), list(metrics)], names=["kind", "level", "metric"])
    grouped = segments.groupby(["kind", "level", "metric"])
    out = pd.DataFrame(
        {"applied": grouped.size(), "mean_change": grouped["change"].mean(), "mean_penalty": grouped["penalty"].mean()}
    ).reindex(full)
    out["applied"] = out["applied"].fillna(0).astype(int)
    out = out.reset_index()
    missing = (~perturbations["applied"]).groupby(perturbations["kind"]).sum()
    out.insert(4, "not_applicable", out["kind"].map(missing).fillna(0).astype(int))
    severe = out[out["kind"] == SEVERE_KIND].set_index(["level", "metric"])["mean_penalty"]
    reference = pd.Series([severe.get((lv, m), np.nan) for lv, m in zip(out["level"], out["metric"], strict=True)])
    with np.errstate(invalid="ignore", divide="ignore"):
        out["relative_to_drop"] = np.where(reference != 0, out["mean_penalty"] / reference.where(reference != 0), np.nan)
    out["higher_is_better"] = [higher_is_better(m, lv) for m, lv in zip(out["metric"], out["level"], strict=True)]
    return out[SUMMARY_COLUMNS]
