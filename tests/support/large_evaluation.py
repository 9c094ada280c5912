"""A large evaluation for the dashboard's scale tests: 20 systems × ``segments`` segments (500 by default) with
simulated human scores.

Built from the benchmark generator (``benchmarks/make_data.py``: distinct Korean references from KoNLPy's bundled
corpora, four simulated systems with MT-like distances and DA-like human scores): each of its four systems gets
``variants`` descendants, variant ``k`` being the system with ``k`` further light edits per segment and a human score
lowered by ``EDIT_PENALTY`` points per extra edit (plus the generator's own rater noise already in the base score).
The systems therefore differ in quality in a known order, close enough that neighbours tie. Deterministic.

With ``shared_outputs`` the systems are instead mixtures of two of the generator's systems, its strongest and its
weakest (:func:`mixed_rows`): system ``i`` of ``n`` emits the weak system's output (and its human score) on the first
``i · segments / n`` segments of one fixed random order and the strong system's elsewhere, so each system takes more
weak outputs than the one before it (a known order of expected quality). A segment then has at most 2 distinct
hypotheses instead of 20: the tokenisers see at most ``3 × segments`` distinct texts instead of ``21 × segments``, and
the metrics score at most ``2 × segments`` distinct pairs instead of ``20 × segments`` (the pipeline tokenises and
scores each distinct text and pair once). With at least as many segments as systems the systems stay distinct — each
takes a different number of weak outputs, and the generator's hypotheses are pairwise distinct — so they differ in
score and rank, and a segment's systems share at most 2 segment scores: ties, as real segment-level data has. For
tests whose checks depend on the systems, levels and metrics but not on how the systems differ
(tests/app/test_large_evaluation_pages.py).

    write_large_evaluation(tmp_path)  # → tmp_path / "large.csv", a long table (system, seg_id, ref, hyp, score)
"""

from __future__ import annotations

import csv
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EDIT_PENALTY = 3
SEED = "korean-eval-large-v1"
#: Segments per system in the dashboard's layout tests (tests/app/test_large_evaluation_pages.py,
#: tests/e2e/test_browser_scale.py). What they check (every level and metric labelled, charts as grids beyond 30
#: configurations, the top-cluster headline of 20 systems, no table, grid, button or card wider than its box)
#: depends on the systems, levels and metrics, not on the segments: no page has a threshold on segments; the tables
#: that grow with them show their first 25 to 300 rows. 30 segments (600 pairs) exercise every page as 500 do, at a
#: sixteenth of the tokenising and scoring.
LAYOUT_SEGMENTS = 30


def _make_data():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import make_data
    finally:
        sys.path.pop(0)
    return make_data


def large_rows(segments: int = 500, variants: int = 5, shared_outputs: bool = False) -> list[dict[str, object]]:
    """Rows of the long table: ``4 × variants`` systems × ``segments`` segments (about 10 % without a human score);
    ``shared_outputs``: the systems of :func:`mixed_rows` (module docstring)."""
    make_data = _make_data()
    base = make_data.build(pairs=4 * segments, seed=SEED)
    human = {(name, seg_id): score for name, seg_id, score in base.human}
    if shared_outputs:
        return mixed_rows(base, human, 4 * variants)
    rows: list[dict[str, object]] = []
    for name, hyps in base.systems.items():
        for k in range(variants):
            system = f"{name}_v{k}"
            for seg_id, (ref, hyp) in enumerate(zip(base.refs, hyps, strict=True)):
                seg = make_data.ms.Segment(hyp, random.Random(f"{SEED}:{system}:{seg_id}"))
                for _ in range(k):
                    make_data._one_more_edit(seg)
                score = human.get((name, seg_id))
                rows.append({
                    "system": system, "seg_id": seg_id, "ref": ref, "hyp": seg.text(),
                    "score": "" if score is None else max(0, score - EDIT_PENALTY * k),
                })
    return rows


def mixed_rows(base, human: dict[tuple[str, int], int], n_systems: int) -> list[dict[str, object]]:
    """Rows of ``n_systems`` systems mixed from the strongest and the weakest system of the generator's dataset
    ``base`` (``human``: its scores by (system, segment)): system ``mix_<i>`` emits the weak output on the first
    ``i · segments / n_systems`` segments of a fixed random order, the strong one elsewhere (module docstring)."""
    names = list(base.systems)
    strong, weak = names[0], names[-1]
    segments = len(base.refs)
    if segments < n_systems:
        raise ValueError(f"{n_systems} mixed systems need at least as many segments, got {segments}")
    order = random.Random(f"{SEED}:mixed").sample(range(segments), segments)
    rows: list[dict[str, object]] = []
    for i in range(n_systems):
        weak_segments = set(order[: i * segments // n_systems])
        for seg_id, ref in enumerate(base.refs):
            source = weak if seg_id in weak_segments else strong
            score = human.get((source, seg_id))
            rows.append({
                "system": f"mix_{i:02d}", "seg_id": seg_id, "ref": ref, "hyp": base.systems[source][seg_id],
                "score": "" if score is None else score,
            })
    return rows


def write_large_evaluation(
    directory: Path, segments: int = 500, variants: int = 5, shared_outputs: bool = False
) -> Path:
    """Write :func:`large_rows` as ``directory / "large.csv"`` (RFC 4180, UTF-8) and return its path."""
    path = directory / "large.csv"
    rows = large_rows(segments, variants, shared_outputs)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["system", "seg_id", "ref", "hyp", "score"])
        writer.writeheader()
        writer.writerows(rows)
    return path
