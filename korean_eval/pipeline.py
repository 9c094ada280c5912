"""Orchestration: EvalSet + settings → tidy result tables (GUIDE §2), with progress callbacks and caching.

Order of work: for each token level, every distinct text (references shared by all systems) is tokenised once
(cached by text hash, level and library version); for each level × metric, per-segment statistics are computed
for every (system, segment) pair that has a hypothesis (cached by token hash and metric options); segment scores
come from each segment's statistics, system scores from statistics summed over the system's segments; then the
meta-evaluation. Nothing here touches a UI: progress is reported through ``progress(fraction, message)``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from korean_eval import meta
from korean_eval.cache import NullCache, pair_key, text_key
from korean_eval.correlation import GROUPINGS, STATISTICS
from korean_eval.data import EvalSet
from korean_eval.metrics import METRIC_NAMES, Metric, make_metric, metric_info
from korean_eval.tokenizers import LEVEL_NAMES, SpmLevel, TokenLevel, get_level, level_availability

Progress = Callable[[float, str], None]
GIVEN_LEVEL = "given"


@dataclass(frozen=True)
class EvalConfig:
    """Everything that changes the numbers. Validates itself on construction.

    Attributes:
        levels: token levels to evaluate (registry names).
        metrics: metrics (registry names).
        overrides: per-level metric options, ``{level: {metric: {option: value}}}`` (e.g. BLEU max_ngram_order).
        ter_cap: cap segment TER at 100 before correlating (the study did; TER exceeds 100 when the hypothesis is
            much longer than the reference). System TER is never capped.
        statistics: correlation statistics; groupings: segment-level groupings.
        spm_vocab: SentencePiece vocabulary size (upper bound); spm_model: a user-supplied model (bytes).
        ter_implementation: "fast" (exact reimplementation) or "sacrebleu" (reference implementation).
        jobs: worker processes/threads (None = all cores).
    """

    levels: tuple[str, ...] = ("word", "mecab", "kiwi", "char", "jamo")
    metrics: tuple[str, ...] = ("bleu", "chrf", "chrf+", "chrf++", "ter")
    overrides: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    ter_cap: bool = False
    statistics: tuple[str, ...] = STATISTICS
    groupings: tuple[str, ...] = GROUPINGS
    spm_vocab: int = SpmLevel.DEFAULT_VOCAB
    spm_model: bytes | None = None
    ter_implementation: str = "fast"
    jobs: int | None = None

    def __post_init__(self) -> None:
        for level in self.levels:
            if level not in LEVEL_NAMES:
                raise ValueError(f"unknown token level {level!r}; levels are {', '.join(LEVEL_NAMES)}")
        for metric in self.metrics:
            if metric not in METRIC_NAMES:
                raise ValueError(f"unknown metric {metric!r}; metrics are {', '.join(METRIC_NAMES)}")
        for s in self.statistics:
            if s not in STATISTICS:
                raise ValueError(f"unknown statistic {s!r}; choose from {', '.join(STATISTICS)}")
        for g in self.groupings:
            if g not in GROUPINGS:
                raise ValueError(f"unknown grouping {g!r}; choose from {', '.join(GROUPINGS)}")
        for level, per_metric in self.overrides.items():
            if level not in LEVEL_NAMES:
                raise ValueError(f"override for unknown level {level!r}")
            for metric, options in per_metric.items():
                make_metric(metric, options)  # validates
        if self.ter_implementation not in ("fast", "sacrebleu"):
            raise ValueError("ter_implementation must be 'fast' or 'sacrebleu'")

    def options_for(self, level: str, metric: str) -> dict[str, int]:
        return dict(self.overrides.get(level, {}).get(metric, {}))

    def as_dict(self) -> dict:
        """JSON-safe settings (for exports and cache keys)."""
        return {
            "levels": list(self.levels),
            "metrics": list(self.metrics),
            "overrides": {lv: {m: dict(o) for m, o in per.items()} for lv, per in self.overrides.items()},
            "ter_cap": self.ter_cap,
            "statistics": list(self.statistics),
            "groupings": list(self.groupings),
            "spm_vocab": self.spm_vocab,
            "spm_model": "user-supplied" if self.spm_model else None,
            "ter_implementation": self.ter_implementation,
        }


@dataclass
class Results:
    """The tidy tables of one evaluation (GUIDE §2) plus what the statistics layer needs."""

    segment_scores: pd.DataFrame
    system_scores: pd.DataFrame
    correlations: pd.DataFrame
    rankings: pd.DataFrame
    flips: pd.DataFrame
    human_systems: pd.DataFrame
    token_stats: pd.DataFrame
    timings: pd.DataFrame
    systems: list[str]
    seg_ids: list[str]
    stats: dict[tuple[str, str], np.ndarray]
    metrics: dict[tuple[str, str], Metric]
    segment_matrices: dict[tuple[str, str], np.ndarray]
    human_matrix: np.ndarray
    settings: dict
    notes: list[str] = field(default_factory=list)
    tokens: dict[str, dict[str, str]] = field(default_factory=dict)

    def signatures(self) -> dict[str, str]:
        """``"level/metric"`` → signature of its system scores."""
        df = self.system_scores.drop_duplicates(["level", "metric"])
        return {f"{r.level}/{r.metric}": r.signature for r in df.itertuples()}


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0), message)


def _jobs(jobs: int | None) -> int:
    return max(1, jobs or os.cpu_count() or 1)


def prepare_level(name: str, evalset: EvalSet, config: EvalConfig) -> TokenLevel:
    """Instantiate a level; SentencePiece is trained on the evaluation's references (or loads the given model)."""
    ok, reason = level_availability(name)
    if not ok:
        raise ValueError(f"token level {name!r} is unavailable: {reason}")
    if name == "spm":
        level = SpmLevel(config.spm_vocab, config.spm_model)
        return level.fit([r for stream in evalset.refs for r in stream])
    return get_level(name)


def tokenize_texts(level: TokenLevel, texts: Sequence[str], cache: NullCache) -> tuple[dict[str, str], float, int]:
    """Map each distinct text to its space-joined tokens; return (map, tokenizer seconds, fallbacks)."""
    unique = list(dict.fromkeys(texts))
    keys = [text_key(t) for t in unique]
    level_key = level.options_key()
    hit = cache.get_tokens(level_key, keys)
    out: dict[str, str] = {}
    missing: list[str] = []
    missing_keys: list[bytes] = []
    for text, key in zip(unique, keys, strict=True):
        if key in hit:
            out[text] = hit[key]
        else:
            missing.append(text)
            missing_keys.append(key)
    seconds, fallbacks = 0.0, 0
    if missing:
        result = level.tokenize(missing)
        seconds, fallbacks = result.seconds, result.fallbacks
        joined = [" ".join(toks) for toks in result.tokens]
        out.update(zip(missing, joined, strict=True))
        cache.put_tokens(level_key, zip(missing_keys, joined, strict=True))
    return out, seconds, fallbacks


def _pairs(evalset: EvalSet, tok: Mapping[str, str]) -> tuple[list[tuple[int, int]], list[str], list[list[str]]]:
    """(positions (system index, segment index), hypotheses, reference streams) of every present pair, as tokens."""
    positions: list[tuple[int, int]] = []
    hyps: list[str] = []
    refs: list[list[str]] = [[] for _ in evalset.refs]
    ref_tokens = [[tok[r] for r in stream] for stream in evalset.refs]
    for s, name in enumerate(evalset.systems):
        for i, hyp in enumerate(evalset.systems[name]):
            if hyp is None:
                continue
            positions.append((s, i))
            hyps.append(tok[hyp])
            for j, stream in enumerate(ref_tokens):
                refs[j].append(stream[i])
    return positions, hyps, refs


def compute_statistics(
    metric: Metric,
    metric_key: str,
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    cache: NullCache,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-pair statistics and segment scores (cached by token hash); returns (stats, scores, seconds computed)."""
    keys = [pair_key(h, [stream[i] for stream in refs]) for i, h in enumerate(hyps)]
    hit = cache.get_stats(metric_key, keys)
    todo = [i for i, k in enumerate(keys) if k not in hit]
    seconds = 0.0
    computed: dict[int, tuple[np.ndarray, float]] = {}
    if todo:
        start = time.perf_counter()
        unique: dict[bytes, int] = {}
        for i in todo:
            unique.setdefault(keys[i], i)
        idx = list(unique.values())
        stats = metric.segment_statistics([hyps[i] for i in idx], [[stream[i] for i in idx] for stream in refs])
        scores = metric.segment_scores(stats)
        seconds = time.perf_counter() - start
        by_key = {keys[i]: (stats[n], float(scores[n])) for n, i in enumerate(idx)}
        cache.put_stats(metric_key, ((k, v[0], v[1]) for k, v in by_key.items()))
        computed = {i: by_key[keys[i]] for i in todo}
    rows = [hit[k] if k in hit else computed[i] for i, k in enumerate(keys)]
    if not rows:
        return np.zeros((0, 0)), np.zeros(0), seconds
    return np.vstack([r[0] for r in rows]), np.array([r[1] for r in rows]), seconds


def evaluate(
    evalset: EvalSet,
    config: EvalConfig | None = None,
    progress: Progress | None = None,
    cache: NullCache | None = None,
) -> Results:
    """Run the whole pipeline on ``evalset``; see the module docstring."""
    config = config or EvalConfig()
    cache = cache or NullCache()
    systems = evalset.system_names
    seg_ids = evalset.seg_ids
    n_sys, n_seg = len(systems), len(seg_ids)
    human = meta.human_matrix(evalset.human, systems, seg_ids)
    human_sys = meta.human_system_means(human)
    has_text = bool(evalset.refs)
    levels = list(config.levels) if has_text else []
    steps = len(levels) * (1 + len(config.metrics)) + 1
    done = 0
    notes: list[str] = []
    seg_frames: list[pd.DataFrame] = []
    sys_rows: list[dict] = []
    corr_rows: list[dict] = []
    rank_rows: list[dict] = []
    flip_rows: list[dict] = []
    token_rows: list[dict] = []
    timing_rows: list[dict] = []
    all_stats: dict[tuple[str, str], np.ndarray] = {}
    metric_objs: dict[tuple[str, str], Metric] = {}
    matrices: dict[tuple[str, str], np.ndarray] = {}
    token_maps: dict[str, dict[str, str]] = {}
    texts = [r for stream in evalset.refs for r in stream]
    texts += [h for hyps in evalset.systems.values() for h in hyps if h is not None]
    words = sum(len(t.split()) for t in texts)
    sys_index = np.array([s for s in range(n_sys)])

    def add_metric(level: str, name: str, seg_mat: np.ndarray, sys_scores: np.ndarray, signature: str, hib: bool) -> None:
        present = np.isfinite(seg_mat)
        s_idx, i_idx = np.nonzero(present)
        seg_frames.append(
            pd.DataFrame(
                {
                    "system": np.array(systems, dtype=object)[s_idx],
                    "seg_id": np.array(seg_ids, dtype=object)[i_idx],
                    "level": level,
                    "metric": name,
                    "score": seg_mat[present],
                }
            )
        )
        for s in range(n_sys):
            sys_rows.append(
                {
                    "system": systems[s],
                    "level": level,
                    "metric": name,
                    "score": float(sys_scores[s]),
                    "signature": signature,
                    "n_segments": int(present[s].sum()),
                }
            )
        corr_mat = np.minimum(seg_mat, 100.0) if (config.ter_cap and name == "ter") else seg_mat
        matrices[(level, name)] = corr_mat
        corr_rows.extend(
            meta.correlation_rows(level, name, corr_mat, human, sys_scores, config.statistics, config.groupings)
        )
        rank_rows.extend(meta.ranking_rows(level, name, systems, sys_scores, human_sys, hib))
        flip_rows.extend(meta.flipped_pairs(level, name, systems, sys_scores, human_sys, hib))

    for level_name in levels:
        _report(progress, done / steps, f"tokenising at level {level_name}")
        start = time.perf_counter()
        level = prepare_level(level_name, evalset, config)
        tok, tok_seconds, fallbacks = tokenize_texts(level, texts, cache)
        wall = time.perf_counter() - start
        token_maps[level_name] = tok
        n_tokens = sum(len(tok[t].split()) for t in texts)
        token_rows.append(
            {
                "level": level_name,
                "family": level.family,
                "version": level.version(),
                "texts": len(texts),
                "tokens": n_tokens,
                "words": words,
                "tokens_per_word": n_tokens / words if words else np.nan,
                "tokenizer_seconds": tok_seconds,
                "fallbacks": fallbacks,
            }
        )
        timing_rows.append({"stage": "tokenise", "level": level_name, "metric": "", "seconds": wall})
        if fallbacks:
            notes.append(
                f"{level.label}: {fallbacks} sentence(s) could not be analysed and were split on whitespace instead"
            )
        done += 1
        positions, hyps, refs = _pairs(evalset, tok)
        pos = np.array(positions, dtype=int).reshape(-1, 2)
        for metric_name in config.metrics:
            _report(progress, done / steps, f"scoring {metric_name} at level {level_name}")
            start = time.perf_counter()
            runtime = {"implementation": config.ter_implementation, "n_jobs": config.jobs} if metric_name == "ter" else {}
            metric = make_metric(metric_name, config.options_for(level_name, metric_name), **runtime)
            metric_key = f"{level.options_key()}|{metric_name}|{metric.options_key()}"
            stats, scores, _ = compute_statistics(metric, metric_key, hyps, refs, cache)
            k = stats.shape[1] if stats.size else 1
            stats_cube = np.full((n_sys, n_seg, k), np.nan)
            seg_mat = np.full((n_sys, n_seg), np.nan)
            if len(pos):
                stats_cube[pos[:, 0], pos[:, 1]] = stats
                seg_mat[pos[:, 0], pos[:, 1]] = scores
            sys_scores = np.array(
                [
                    metric.corpus_score(stats_cube[s][np.isfinite(seg_mat[s])]) if np.isfinite(seg_mat[s]).any() else np.nan
                    for s in sys_index
                ]
            )
            signature = f"{metric.signature(evalset.n_refs)}|level:{level.version()}"
            add_metric(level_name, metric_name, seg_mat, sys_scores, signature, metric.info.higher_is_better)
            all_stats[(level_name, metric_name)] = stats_cube
            metric_objs[(level_name, metric_name)] = metric
            timing_rows.append(
                {"stage": "score", "level": level_name, "metric": metric_name, "seconds": time.perf_counter() - start}
            )
            done += 1

    if evalset.given is not None:
        for name, (mat, sys_scores) in meta.given_system_scores(evalset.given, systems, seg_ids).items():
            add_metric(GIVEN_LEVEL, name, mat, sys_scores, "given|system score = mean of segment scores", True)
    _report(progress, done / steps, "meta-evaluation")
    if evalset.human is None:
        notes.append("no human scores: correlations and rankings against humans are empty")

    hib = {name: metric_info(name).higher_is_better for name in config.metrics}
    correlations = pd.DataFrame(corr_rows, columns=meta.CORRELATION_COLUMNS)
    correlations["higher_is_better"] = correlations["metric"].map(hib).fillna(True).astype(bool)
    segment_scores = (
        pd.concat(seg_frames, ignore_index=True)
        if seg_frames
        else pd.DataFrame(columns=["system", "seg_id", "level", "metric", "score"])
    )
    human_systems = pd.DataFrame(
        {
            "system": systems,
            "human_mean": human_sys,
            "human_rank": meta.rank(human_sys),
            "n_scored": np.isfinite(human).sum(axis=1),
        }
    )
    _report(progress, 1.0, "done")
    return Results(
        segment_scores=segment_scores,
        system_scores=pd.DataFrame(
            sys_rows, columns=["system", "level", "metric", "score", "signature", "n_segments"]
        ),
        correlations=correlations,
        rankings=pd.DataFrame(rank_rows, columns=meta.RANKING_COLUMNS),
        flips=pd.DataFrame(flip_rows, columns=meta.FLIP_COLUMNS),
        human_systems=human_systems,
        token_stats=pd.DataFrame(token_rows),
        timings=pd.DataFrame(timing_rows, columns=["stage", "level", "metric", "seconds"]),
        systems=systems,
        seg_ids=seg_ids,
        stats=all_stats,
        metrics=metric_objs,
        segment_matrices=matrices,
        human_matrix=human,
        settings=config.as_dict(),
        notes=notes + ([cache.problem] if cache.problem else []),
        tokens=token_maps,
    )
