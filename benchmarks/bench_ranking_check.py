"""The ranking check's cost (``korean_eval.metaeval.tables.system_ranking.ranking_tables``: sacrebleu's paired
bootstrap and approximate randomization between every two systems under every configuration, clusters, splits),
with and without approximate randomization, one process, after the scores are computed.

    python benchmarks/bench_ranking_check.py                       # WMT24 chat en→ko (../shared) and a WMT-shaped set
    python benchmarks/bench_ranking_check.py --systems 24 --segments 2000

Data: the WMT24 chat en→ko release (4 systems × 550 segments; skipped when ../shared is absent) and the WMT-shaped
set of ``benchmarks/wmt_data.py`` at the given size; levels word, mecab, char, jamo (Kiwi's model does not travel to
every machine) × BLEU, chrF, chrF+, chrF++, TER. Prints CPU seconds and wall seconds of the check, the number of
configurations, system pairs and segments, and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import korean_eval  # noqa: E402
from korean_eval.metaeval.tables.system_ranking import ranking_tables  # noqa: E402
from korean_eval.model.config import RankingSettings  # noqa: E402

LEVELS = ["word", "mecab", "char", "jamo"]
WMT24 = ROOT.parent / "shared" / "heldout" / "wmt24_chat_enko"


def _measure(name: str, results) -> list[str]:
    rows = []
    k = len(results.systems)
    for label, settings in (("bootstrap + randomization (10,000 trials)", RankingSettings()),
                            ("bootstrap only", RankingSettings(ar_trials=0))):
        cpu, wall = time.process_time(), time.perf_counter()
        ranking_tables(results, settings)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rows.append(f"| {name} | {len(results.segment_matrices)} | {k * (k - 1) // 2} | {len(results.seg_ids):,} | "
                    f"{label} | {cpu:.1f} | {wall:.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--segments", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    if WMT24.exists():
        systems = {p.stem: p for p in sorted((WMT24 / "systems").glob("*.txt"))}
        results = korean_eval.evaluate(WMT24 / "ref.txt", systems, levels=LEVELS, resamples=0)
        rows += _measure("WMT24 chat en→ko", results)
    from wmt_data import build_wmt

    data = build_wmt(args.systems, args.segments)
    results = korean_eval.evaluate(data.refs, data.systems, levels=LEVELS, resamples=0)
    rows += _measure(f"WMT-shaped {args.systems} × {args.segments:,}", results)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("| data | configurations | system pairs | segments | tests | CPU s | wall s |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
