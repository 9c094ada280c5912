"""The ``run`` command's paper-ready exports: ``--latex DIR`` (:mod:`korean_eval.exports.latex`) and
``--report FILE.html`` (:mod:`korean_eval.exports.html`); docs/design.md §2, "Exports".

The top significance cluster (bold in the LaTeX grids, outlined in the report) is cluster 1 of the run's
``clusters.csv`` (:mod:`korean_eval.engine.statistics`: ``--statistic``, the paired permutation test
``perm-inputs`` with ``--bootstrap`` permutations and ``--seed``, α = :data:`CLUSTER_ALPHA`; segment level with
the statistic's :func:`~korean_eval.model.vocabulary.headline_grouping`, ``item`` for PDP), so nothing is tested
twice; with ``--bootstrap 0`` or without human scores there is none, and the captions say so.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from korean_eval.model.config import RankingSettings
from korean_eval.model.evalset import EvalSet, InputError
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import headline_grouping

#: The α of the run's ``clusters.csv`` (:func:`korean_eval.metaeval.tables.significance.rank_clusters_table`'s default).
CLUSTER_ALPHA = 0.05


def add_export_options(run: argparse.ArgumentParser) -> None:
    """``--latex DIR`` and ``--report FILE.html``."""
    group = run.add_argument_group("paper-ready exports")
    group.add_argument("--latex", metavar="DIR",
                       help="write LaTeX (booktabs) tables into DIR: correlations_segment.tex, correlations_system.tex "
                       "(top significance cluster in bold, 95%% CIs when --bootstrap > 0), system_scores.tex, "
                       "token_stats.tex")
    group.add_argument("--report", metavar="FILE.html",
                       help="write one self-contained HTML report (charts, tables, settings, signatures, data hash, "
                       "validation report) that opens offline")


def check_export_args(args: argparse.Namespace) -> None:
    """Refuse an export path that cannot be written before any work: ``--latex`` naming an existing file,
    ``--report`` naming an existing directory."""
    if args.latex and Path(args.latex).exists() and not Path(args.latex).is_dir():
        raise InputError("--latex", f"{args.latex} exists and is not a directory")
    if args.report and Path(args.report).is_dir():
        raise InputError("--report", f"{args.report} is a directory; give a file name such as report.html")


def _top_clusters(args: argparse.Namespace, extra: Mapping[str, pd.DataFrame]):
    from korean_eval.exports.tables import TopClusters, significance_method, top_clusters_from_table

    clusters = extra.get("clusters.csv")
    if clusters is None:
        why = "--bootstrap 0" if args.bootstrap == 0 else "no human scores"
        return TopClusters(method=f"no significance test was run: {why}")
    return top_clusters_from_table(clusters, args.statistic,
                                   significance_method(args.bootstrap, args.seed, CLUSTER_ALPHA),
                                   extra.get("significance.csv"), args.bootstrap, args.seed, CLUSTER_ALPHA)


def write_exports(args: argparse.Namespace, results: Results, evalset: EvalSet, extra: Mapping[str, pd.DataFrame],
                  extra_meta: Mapping[str, object]) -> None:
    """Write what ``--latex`` and ``--report`` ask for (nothing when neither is given)."""
    if not (args.latex or args.report):
        return
    top = _top_clusters(args, extra)
    ranking = {name: extra[name] for name in ("system_ranking.csv", "metric_pairs.csv") if name in extra}
    how = RankingSettings(resamples=args.bootstrap, ar_trials=args.ar_trials, seed=args.seed).describe(
        len(results.seg_ids))
    if args.latex:
        from korean_eval.exports.latex import latex_tables, write_latex

        paths = write_latex(latex_tables(results, top, args.statistic, headline_grouping(args.statistic),
                                         ranking=ranking.get("system_ranking.csv"), ranking_how=how), args.latex)
        print(f"wrote {len(paths)} LaTeX tables to {args.latex}", file=sys.stderr)
    if args.report:
        from korean_eval.exports.csv_zip import run_metadata
        from korean_eval.exports.html import html_report

        report = html_report(results, evalset, top, args.statistic, headline_grouping(args.statistic),
                             meta=run_metadata(results, evalset, extra_meta), ranking=ranking or None,
                             ranking_how=how)
        path = Path(args.report)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report, encoding="utf-8")
        print(f"wrote the HTML report to {args.report}", file=sys.stderr)
