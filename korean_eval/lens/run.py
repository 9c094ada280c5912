"""The Korean lens on one evaluation set: error profile, speech levels, spacing, the perturbation probe and the
links to human scores, as tidy tables (docs/design.md §8).

:func:`run_lens` is what the CLI's ``profile`` command and the dashboard's "Korean lens" page both call, so the
page's numbers are the CSVs' numbers. Hypotheses are compared with the first reference stream (a note says so when
there are several).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from korean_eval.engine.cache import NullCache
from korean_eval.engine.pipeline import Progress
from korean_eval.lens import humans, profile, spacing, speech_level
from korean_eval.lens.analysis import analyse
from korean_eval.lens.perturb import KINDS
from korean_eval.lens.probe import ProbeResult, run_probe, scaled_progress
from korean_eval.levels.registry import KiwiLevel, kiwi_analyzer
from korean_eval.metaeval.tables.tidy import human_matrix
from korean_eval.model.config import EvalConfig
from korean_eval.model.defaults import RESAMPLES, SEED
from korean_eval.model.evalset import EvalSet

PAIR_COLUMNS = ["system", "seg_id", "hyp", "ref"]


@dataclass
class LensResult:
    """Every table of the lens (see each module for its columns) and the notes of the run."""

    pairs: pd.DataFrame
    profile: pd.DataFrame
    profile_segments: pd.DataFrame
    speech_levels: pd.DataFrame
    speech_level_confusion: pd.DataFrame
    speech_level_segments: pd.DataFrame
    spacing: pd.DataFrame
    spacing_segments: pd.DataFrame
    human_links: pd.DataFrame
    probe: ProbeResult | None
    settings: dict
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        """CSV file name → table: what ``profile --out`` writes and the page offers for download."""
        out = {
            "profile.csv": self.profile,
            "profile_segments.csv": self.profile_segments,
            "speech_levels.csv": self.speech_levels,
            "speech_level_confusion.csv": self.speech_level_confusion,
            "speech_level_segments.csv": self.speech_level_segments,
            "spacing.csv": self.spacing,
            "spacing_segments.csv": self.spacing_segments,
            "human_links.csv": self.human_links,
        }
        if self.probe is not None:
            out["probe.csv"] = self.probe.summary
            out["probe_segments.csv"] = self.probe.segments
            out["probe_perturbations.csv"] = self.probe.perturbations
        return out

    def metadata(self) -> dict:
        """Settings, analyzer version and notes (``lens.json``)."""
        return {"settings": self.settings, "analyzer": KiwiLevel().version(), "notes": self.notes,
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}}


def pair_table(evalset: EvalSet) -> pd.DataFrame:
    """Every (system, segment) with a hypothesis: ``system, seg_id, hyp, ref`` (the first reference)."""
    refs = evalset.refs[0]
    rows = [
        (system, seg_id, hyp, refs[i])
        for system, hyps in evalset.systems.items()
        for i, (seg_id, hyp) in enumerate(zip(evalset.seg_ids, hyps, strict=True))
        if hyp is not None
    ]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def run_lens(
    evalset: EvalSet,
    config: EvalConfig,
    *,
    with_probe: bool = True,
    kinds: Sequence[str] = tuple(KINDS),
    seed: int = SEED,
    n_resamples: int = RESAMPLES,
    cache: NullCache | None = None,
    progress: Progress | None = None,
) -> LensResult:
    """Analyse, profile, probe (``config``'s levels × metrics; skipped without ``with_probe``) and link to the human
    scores. Raises ValueError when the evaluation set has no texts."""
    if not evalset.refs:
        raise ValueError("the Korean lens needs texts (references and hypotheses), not only scores")
    cache = cache or NullCache()
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    report = progress or (lambda fraction, message: None)
    pairs = pair_table(evalset)
    report(0.0, "loading Kiwi's model")
    kiwi_analyzer()
    seconds["analyzer load"] = time.perf_counter() - start
    report(0.05, "analysing every distinct text with Kiwi")
    analyses = analyse([*evalset.refs[0], *pairs["hyp"]], cache, scaled_progress(progress, 0.05, 0.15))
    seconds["analysis"] = time.perf_counter() - start - seconds["analyzer load"]
    report(0.15, "error profile, speech levels, spacing")
    systems = evalset.system_names
    prof_seg = profile.segment_table(pairs, analyses)
    speech_seg = speech_level.segment_table(pairs, analyses)
    space_seg = spacing.segment_table(pairs)
    seconds["profile"] = time.perf_counter() - start - seconds["analysis"] - seconds["analyzer load"]
    probe = None
    if with_probe:
        mark = time.perf_counter()
        probe = run_probe(evalset, config, kinds, seed, cache, scaled_progress(progress, 0.2, 0.9))
        seconds["probe"] = time.perf_counter() - mark
    report(0.9, "linking the errors to the human scores")
    mark = time.perf_counter()
    features = humans.feature_matrices(prof_seg, space_seg, speech_seg, systems, evalset.seg_ids)
    links, notes = humans.human_links(features, human_matrix(evalset.human, systems, evalset.seg_ids), n_resamples, seed)
    seconds["humans"] = time.perf_counter() - mark
    if evalset.n_refs > 1:
        notes.insert(0, f"hypotheses are compared with the first of the {evalset.n_refs} reference streams")
    notes += probe.notes if probe is not None else []
    settings = {"levels": list(config.levels), "metrics": list(config.metrics), "kinds": list(kinds), "seed": seed,
                "bootstrap": n_resamples, "probe": with_probe}
    report(1.0, "done")
    return LensResult(
        pairs, profile.system_table(prof_seg, systems), prof_seg, speech_level.system_table(speech_seg, systems),
        speech_level.confusion_table(speech_seg, systems), speech_seg, spacing.system_table(space_seg, systems),
        space_seg, links, probe, settings, notes, seconds,
    )


def run_lens_with_disk_cache(
    evalset: EvalSet, config: EvalConfig, with_probe: bool, seed: int, n_resamples: int,
    progress: Progress | None = None,
) -> LensResult:
    """:func:`run_lens` with the process's persistent cache (:func:`korean_eval.engine.cache.open_cache`, the same
    directory in a worker process as in its parent): the task the dashboard hands to a worker process of its own
    (:func:`korean_eval.engine.worker_call.run_in_worker`), so that Kiwi's model and the lens's analyses leave the
    server's memory with the worker."""
    from korean_eval.engine.cache import open_cache

    return run_lens(evalset, config, with_probe=with_probe, seed=seed, n_resamples=n_resamples, cache=open_cache(),
                    progress=progress)
