"""Write every number korean-eval computes on the bundled sample and the study data, for before/after comparisons.

A refactor that promises "behaviour and numbers unchanged" runs this before and after and compares the two
directories byte for byte (``diff -r before after``). Floats are written with 17 significant digits, so any change
in the last bit shows (wall-clock columns, ``*_seconds``, are left out). Bootstrap, permutation tests and rank clusters are on.

    .venv/bin/python scripts/snapshot_numbers.py OUT_DIR [--shared ../shared] [--resamples 200]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.inputs.human_qc.run import run_qc  # noqa: E402
from korean_eval.inputs.sample import load_sample  # noqa: E402
from korean_eval.inputs.table_reader import read_table  # noqa: E402
from korean_eval.inputs.tables import evalset_from_table  # noqa: E402
from korean_eval.metaeval.tables.compare import compare_two  # noqa: E402
from korean_eval.metaeval.tables.intervals import add_confidence_intervals  # noqa: E402
from korean_eval.metaeval.tables.significance import rank_clusters_table, significance_table  # noqa: E402
from korean_eval.metaeval.tables.system_pairs import pairwise_accuracy_table, ranking_view, system_pairs_table  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402

LEVELS = ("word", "mecab", "kiwi", "spm", "char", "jamo")
METRICS = ("bleu", "chrf", "chrf++", "ter", "character", "eed")


def _write(frame: pd.DataFrame, path: Path) -> None:
    frame.to_csv(path, index=False, float_format="%.17g")


def snapshot_results(name: str, evalset, out: Path, resamples: int) -> None:
    results = evaluate(evalset, EvalConfig(levels=LEVELS, metrics=METRICS))
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    for table in ("segment_scores", "system_scores", "correlations", "rankings", "flips", "human_systems", "token_stats"):
        frame = getattr(results, table)
        _write(frame.drop(columns=[c for c in frame.columns if c.endswith("_seconds")]), d / f"{table}.csv")
    _write(add_confidence_intervals(results, n_resamples=resamples, seed=7), d / "correlations_ci.csv")
    for gran in ("segment", "system"):
        for stat in ("pearson", "kendall"):
            for grouping in (("none", "item") if gran == "segment" else ("none",)):
                tag = f"{gran}_{stat}_{grouping}"
                table = significance_table(
                    results, statistic=stat, granularity=gran, grouping=grouping, n_permutations=resamples, seed=7
                )
                _write(table, d / f"significance_{tag}.csv")
                clusters = rank_clusters_table(
                    results, statistic=stat, granularity=gran, grouping=grouping, n_permutations=resamples, seed=7
                )
                _write(clusters, d / f"clusters_{tag}.csv")
    for human_test in ("bootstrap", "wilcoxon"):
        pairs = system_pairs_table(results, n_resamples=resamples, seed=7, human_test=human_test)
        _write(pairs, d / f"system_pairs_{human_test}.csv")
        view = ranking_view(results, pairs=pairs, n_resamples=resamples, seed=7, human_test=human_test)
        _write(view, d / f"ranking_view_{human_test}.csv")
    _write(pairwise_accuracy_table(results), d / "pairwise_accuracy.csv")
    verdicts = {}
    for gran in ("segment", "system"):
        verdict = compare_two(results, "char/chrf", "word/bleu", granularity=gran, n_permutations=resamples, seed=7)
        verdicts[gran] = verdict
    (d / "compare_two.json").write_text(json.dumps(verdicts, indent=1, default=repr, ensure_ascii=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    parser.add_argument("--resamples", type=int, default=200)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    snapshot_results("sample", load_sample(), args.out, args.resamples)
    study = args.shared / "data" / "kor_sacrebleu"
    doc1 = study / "doc1_with_text.csv"
    snapshot_results("doc1", evalset_from_table(doc1.read_bytes(), doc1.name, human_col="Z_adequacy"), args.out,
                     args.resamples)
    judgments = read_table((study / "judgments_raw.csv").read_bytes(), "judgments_raw.csv")
    qc = run_qc(judgments.frame(), lines=judgments.lines)
    _write(qc.item_scores, args.out / "qc_item_scores.csv")
    print(f"wrote {sum(1 for _ in args.out.rglob('*.*'))} files to {args.out}")


if __name__ == "__main__":
    main()
