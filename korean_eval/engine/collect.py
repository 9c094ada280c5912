"""The collect stage of the pipeline (docs/design.md §2): tidy table rows from the score matrices.

A :class:`Cell` is one level × metric after scoring (or one of the user's own metrics, level ``given``);
:func:`collect_cell` turns it into rows of ``segment_scores`` (one per present pair) and ``system_scores`` (one per
system); :func:`segment_table`, :func:`system_table`, :func:`token_stats_row` and :func:`timing_table` build the
tables of :class:`korean_eval.model.results.Results`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from korean_eval.engine.planning import TokenisedLevel

SEGMENT_COLUMNS = ["system", "seg_id", "level", "metric", "score"]
SYSTEM_COLUMNS = ["system", "level", "metric", "score", "signature", "n_segments"]
TIMING_COLUMNS = ["stage", "level", "metric", "seconds"]


@dataclass
class Cell:
    """One level × metric.

    Attributes:
        segment_scores: ``(systems, segments)`` segment scores, NaN where a system lacks the segment.
        system_scores: one score per system (NaN for a system without any segment).
        signature: how the system scores were computed (metric signature and level version).
        higher_is_better: the metric's direction.
    """

    level: str
    metric: str
    segment_scores: np.ndarray
    system_scores: np.ndarray
    signature: str
    higher_is_better: bool


@dataclass
class CellRows:
    """A cell's rows of the ``segment_scores`` and ``system_scores`` tables."""

    segments: pd.DataFrame
    systems: list[dict]


def collect_cell(cell: Cell, systems: Sequence[str], seg_ids: Sequence[str]) -> CellRows:
    """One ``segment_scores`` row per present (system, segment) pair, one ``system_scores`` row per system."""
    seg_mat, level, name = cell.segment_scores, cell.level, cell.metric
    present = np.isfinite(seg_mat)
    s_idx, i_idx = np.nonzero(present)
    segments = pd.DataFrame(
        {
            "system": np.array(systems, dtype=object)[s_idx],
            "seg_id": np.array(seg_ids, dtype=object)[i_idx],
            "level": level,
            "metric": name,
            "score": seg_mat[present],
        }
    )
    rows = [
        {
            "system": systems[s],
            "level": level,
            "metric": name,
            "score": float(cell.system_scores[s]),
            "signature": cell.signature,
            "n_segments": int(present[s].sum()),
        }
        for s in range(len(systems))
    ]
    return CellRows(segments, rows)


def segment_table(rows: Sequence[CellRows]) -> pd.DataFrame:
    """The ``segment_scores`` table: every cell's segment rows, in cell order."""
    if not rows:
        return pd.DataFrame(columns=SEGMENT_COLUMNS)
    return pd.concat([r.segments for r in rows], ignore_index=True)


def system_table(rows: Sequence[CellRows]) -> pd.DataFrame:
    """The ``system_scores`` table: every cell's system rows, in cell order."""
    return pd.DataFrame([row for r in rows for row in r.systems], columns=SYSTEM_COLUMNS)


def token_stats_row(t: TokenisedLevel, texts: Sequence[str], words: int) -> dict:
    """The level's row of ``token_stats``: tokens over all ``texts`` (repeats counted) and tokens per word."""
    n_tokens = sum(len(t.tokens[text].split()) for text in texts)
    return {
        "level": t.name,
        "family": t.level.family,
        "version": t.level.version(),
        "texts": len(texts),
        "tokens": n_tokens,
        "words": words,
        "tokens_per_word": n_tokens / words if words else np.nan,
        "tokenizer_seconds": t.tokenizer_seconds,
        "fallbacks": t.fallbacks,
    }


def timing_table(
    tokenise: Sequence[tuple[str, float]],
    score: Sequence[Sequence[tuple[str, str, float]]],
    meta: Sequence[tuple[str, str, float]],
    worker_seconds: Mapping[tuple[str, str], float],
) -> pd.DataFrame:
    """``timings``: per level its tokenise row then its score rows, then every meta row.

    tokenise[k]: the k-th level's (name, wall seconds); score[k]: its cells' (level, metric, seconds in this
    process), to which the CPU seconds of the work done for that level × metric in worker processes (or in this
    process, earlier) are added; meta: (level, metric, seconds of collecting the cell here plus the CPU seconds of its
    meta-evaluation task).
    """
    rows: list[dict] = []
    for (level, seconds), cells in zip(tokenise, score, strict=True):
        rows.append({"stage": "tokenise", "level": level, "metric": "", "seconds": seconds})
        rows += [
            {"stage": "score", "level": lv, "metric": m, "seconds": s + worker_seconds.get((lv, m), 0.0)}
            for lv, m, s in cells
        ]
    rows += [{"stage": "meta", "level": lv, "metric": m, "seconds": s} for lv, m, s in meta]
    return pd.DataFrame(rows, columns=TIMING_COLUMNS)
