"""TER and CharacTER per pair as segments grow from a sentence to a paragraph, at the jamo level.

    python benchmarks/bench_ter_length.py                      # 100, 300, 1,000, 3,000, 10,000 jamo tokens
    python benchmarks/bench_ter_length.py --lengths 100 300 --pairs 4 --out benchmarks/results/ter_length.md

MT-like pairs: the benchmark set of ``make_data.build`` (references and the four simulated systems, as far from
their references as real MT output is), tokenised at the jamo level; a pair of ``L`` tokens is a run of consecutive
segments of one system and their references, concatenated, the reference cut to its first ``L`` jamo and the
hypothesis to the same share of its own tokens. Pair ``k`` of a length starts at segment ``k · 97`` and takes the
system ``k mod 4``.

Timed per pair (CPU seconds of this process, one thread, warm kernels; mean over the pairs):

* fast TER (:func:`korean_eval.metrics.fast_ter.ter_statistics`) against sacrebleu's own TER
  (:func:`~korean_eval.metrics.fast_ter.ter_statistics_sacrebleu`), statistics checked identical;
* CharacTER (:func:`korean_eval.metrics.character.character_scores`) against the direct Python port of the
  rwth-i6 reference the tests use (``tests/unit/metrics/test_extended_metrics.py::_ref_cer``), scores checked equal.

The slow implementations run only up to ``--sacrebleu-max`` resp. ``--reference-max`` tokens, and a cell stops
after ``--budget`` seconds once one pair is done (the ``pairs`` columns say how many were timed). The table says
where a method stops being interactive (over 1 s per pair). It asserts nothing; it prints the load average, which
decides how far the figures can be trusted on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import make_data  # noqa: E402

from korean_eval.levels.registry import get_level  # noqa: E402
from korean_eval.metrics.character import character_scores  # noqa: E402
from korean_eval.metrics.fast_ter import ter_statistics, ter_statistics_sacrebleu  # noqa: E402

SEGMENT_STEP = 97  # first segment of pair k: k * SEGMENT_STEP
INTERACTIVE_SECONDS = 1.0


def reference_port() -> Callable[[list[str], list[str]], float]:
    """The tests' direct Python port of the rwth-i6 CharacTER (``_ref_cer``)."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    from test_extended_metrics import _ref_cer

    return _ref_cer


def jamo_segments(n_refs: int) -> tuple[list[list[str]], dict[str, list[list[str]]]]:
    """Jamo tokens of the benchmark set's references and of each system's hypotheses."""
    dataset = make_data.build(4 * n_refs)
    level = get_level("jamo")
    systems = {name: level.tokenize(hyps).tokens for name, hyps in dataset.systems.items()}
    return level.tokenize(dataset.refs).tokens, systems


def paragraph_pair(refs: list[list[str]], systems: dict[str, list[list[str]]], length: int,
                   k: int) -> tuple[list[str], list[str]]:
    """Pair ``k`` of ``length`` reference tokens: (hypothesis tokens, reference tokens), see the module docstring."""
    hyps = systems[make_data.SYSTEMS[k % len(make_data.SYSTEMS)]]
    start = (k * SEGMENT_STEP) % len(refs)
    ref: list[str] = []
    hyp: list[str] = []
    i = start
    while len(ref) < length:
        ref += refs[i % len(refs)]
        hyp += hyps[i % len(refs)]
        i += 1
    return hyp[:round(length * len(hyp) / len(ref))], ref[:length]


def timed(run: Callable[[], object]) -> tuple[float, object]:
    """(CPU seconds, result) of one call."""
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


class Cell:
    """Per-pair times of one method at one length, stopping after ``budget`` seconds (one pair at least)."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.seconds: list[float] = []

    def open(self) -> bool:
        return sum(self.seconds) < self.budget

    def add(self, run: Callable[[], object]) -> object:
        seconds, result = timed(run)
        self.seconds.append(seconds)
        return result

    def ms(self) -> float | None:
        return 1000.0 * sum(self.seconds) / len(self.seconds) if self.seconds else None


def measure(length: int, pairs: list[tuple[list[str], list[str]]], args: argparse.Namespace) -> dict:
    """Time the four methods on the pairs of one length; check the fast results against the slow ones."""
    cells = {name: Cell(args.budget) for name in ("ter", "sacrebleu", "character", "reference")}
    mismatches = 0
    port = reference_port() if length <= args.reference_max else None
    for hyp, ref in pairs:
        h, r = " ".join(hyp), " ".join(ref)
        fast = cells["ter"].add(lambda h=h, r=r: ter_statistics([h], [[r]], n_jobs=1))
        if length <= args.sacrebleu_max and cells["sacrebleu"].open():
            slow = cells["sacrebleu"].add(lambda h=h, r=r: ter_statistics_sacrebleu([h], [[r]]))
            mismatches += int(not (fast == slow).all())
        if length <= args.character_max and cells["character"].open():
            score = cells["character"].add(lambda h=h, r=r: character_scores([h], [[r]], 1))[0]
            if port is not None and cells["reference"].open():
                mismatches += int(abs(cells["reference"].add(lambda hyp=hyp, ref=ref: port(hyp, ref)) - score) > 1e-12)
    row = {"tokens": length, "mismatches": mismatches}
    for name, cell in cells.items():
        row[name] = cell.ms()
        row[f"{name}_pairs"] = len(cell.seconds)
    return row


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def _ratio(slow: float | None, fast: float | None) -> str:
    return "—" if slow is None or fast is None else f"{slow / fast:,.0f}×"


def table(rows: list[dict]) -> str:
    """The markdown table of per-pair milliseconds and speed-ups."""
    lines = [
        "| jamo tokens | fast TER ms | sacrebleu TER ms (pairs) | speed-up | CharacTER ms (pairs) "
        "| reference port ms (pairs) | speed-up | mismatches |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['tokens']:,} | {_ms(row['ter'])} | {_ms(row['sacrebleu'])} ({row['sacrebleu_pairs']}) "
            f"| {_ratio(row['sacrebleu'], row['ter'])} | {_ms(row['character'])} ({row['character_pairs']}) "
            f"| {_ms(row['reference'])} ({row['reference_pairs']}) | {_ratio(row['reference'], row['character'])} "
            f"| {row['mismatches']} |"
        )
    return "\n".join(lines)


def interactive_limits(rows: list[dict]) -> str:
    """Per method: the first measured length over :data:`INTERACTIVE_SECONDS` per pair."""
    names = {"ter": "fast TER", "sacrebleu": "sacrebleu TER", "character": "CharacTER", "reference": "reference port"}
    parts = []
    for key, label in names.items():
        over = [row["tokens"] for row in rows if row[key] is not None and row[key] > 1000 * INTERACTIVE_SECONDS]
        parts.append(f"{label}: > 1 s per pair from {over[0]:,} tokens" if over else f"{label}: ≤ 1 s where measured")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
    parser.add_argument("--pairs", type=int, default=5, help="pairs per length")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per cell after its first pair")
    parser.add_argument("--sacrebleu-max", type=int, default=3000, help="longest pair given to sacrebleu's TER")
    parser.add_argument("--reference-max", type=int, default=100, help="longest pair given to the Python port")
    parser.add_argument("--character-max", type=int, default=10000, help="longest pair given to CharacTER")
    parser.add_argument("--out", type=Path, help="also write the table as markdown")
    args = parser.parse_args(argv)
    refs, systems = jamo_segments(n_refs=max(512, args.pairs * SEGMENT_STEP))
    warm_hyp, warm_ref = (" ".join(side) for side in paragraph_pair(refs, systems, 100, args.pairs))
    ter_statistics([warm_hyp], [[warm_ref]], n_jobs=1)  # compile or load the kernels before timing
    character_scores([warm_hyp], [[warm_ref]], 1)
    load_before = os.getloadavg()
    rows = []
    for length in args.lengths:
        rows.append(measure(length, [paragraph_pair(refs, systems, length, k) for k in range(args.pairs)], args))
        print(f"{table(rows[-1:]).splitlines()[-1]}  (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    text = "\n".join([
        table(rows), "",
        f"CPU ms per pair (process time, one thread, warm); load average before {load_before[0]:.1f}, "
        f"after {load_after[0]:.1f} (1 min), {os.cpu_count()} CPUs.", "",
        interactive_limits(rows),
    ])
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
