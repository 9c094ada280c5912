"""The extended metrics (NLTK-BLEU, GLEU, NIST, RIBES, CharacTER, EED) at the benchmark's scale.

    python benchmarks/bench_extended.py                 # 8,192 pairs, levels word, mecab, kiwi, char, jamo
    python benchmarks/bench_extended.py --pairs 2048 --out benchmarks/results/extended.md

Builds the same data as ``run_benchmark.py`` (``make_data.build``), tokenises once (cached in a fresh temporary
cache so every metric starts from the same tokens), then runs each metric cold through the real pipeline
(``korean_eval.engine.pipeline.evaluate``, statistics not cached) and prints, per level × metric, the seconds the scoring
took (the pipeline's ``timings``: CPU seconds of worker tasks plus main-process wall time) and milliseconds per
segment pair, plus the wall time of the whole extended grid including meta-evaluation.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import make_data  # noqa: E402
import pandas as pd  # noqa: E402

from korean_eval.engine.cache import DiskCache  # noqa: E402
from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.inputs.tables import attach_human  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402
from korean_eval.model.evalset import evalset_from_texts  # noqa: E402

LEVELS = ("word", "mecab", "kiwi", "char", "jamo")
EXTENDED = ("nltk-bleu", "gleu", "nist", "ribes", "character", "eed")


def load(pairs: int, directory: Path):
    dataset = make_data.build(pairs)
    make_data.write(dataset, directory)
    ref = directory / "ref.txt"
    systems = sorted((directory / "systems").glob("*.txt"))
    evalset = evalset_from_texts([(ref.name, ref.read_bytes())], [(p.name, p.read_bytes()) for p in systems])
    attach_human(evalset, (directory / "human.tsv").read_bytes(), "human.tsv")
    return evalset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=8192)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--out", type=Path, help="also write the table as markdown")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        evalset = load(args.pairs, tmp_path / "data")
        n_pairs = evalset.system_pairs()
        cache = DiskCache(tmp_path / "cache")
        cache.store_results = False
        evaluate(evalset, EvalConfig(levels=LEVELS, metrics=("chrf",), jobs=args.jobs), cache=cache)  # tokens only
        rows = []
        start = time.perf_counter()
        for metric in EXTENDED:
            # tokens come from the cache; this metric's statistics were never computed before (cold)
            t0 = time.perf_counter()
            res = evaluate(evalset, EvalConfig(levels=LEVELS, metrics=(metric,), jobs=args.jobs), cache=cache)
            wall = time.perf_counter() - t0
            timings = res.timings[res.timings["stage"] == "score"]
            for r in timings.itertuples():
                rows.append({"metric": metric, "level": r.level, "seconds": r.seconds, "ms/pair": 1000 * r.seconds / n_pairs})
            rows.append({"metric": metric, "level": "all five (wall, incl. tokens from cache + meta)", "seconds": wall, "ms/pair": float("nan")})
        total = time.perf_counter() - start
    table = pd.DataFrame(rows)
    header = (
        f"Extended metrics on {n_pairs:,} distinct pairs ({os.cpu_count()} cores), levels {', '.join(LEVELS)}; "
        f"statistics computed cold; total wall {total:.1f} s"
    )
    md = table.to_markdown(index=False, floatfmt=".3f")
    print(header)
    print(md)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(header + "\n\n" + md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
