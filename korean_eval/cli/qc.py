"""Command-line options and the ``qc`` subcommand for human-judgment quality control (docs/design.md §6).

``add_qc_options(parser)`` adds the QC flags (also used by the ``run`` command); ``qc_options_from_args(args)``
turns parsed flags into a ``QCOptions``; ``register_qc_command(subparsers)`` adds::

    python -m korean_eval qc --judgments FILE [--rater-col C] [--system-col C] [--item-cols C1,C2]
        [--score-cols Adequacy,Fluency] [--drop-first 10] [--iqr 1.5 | --no-fences] [--no-zscore]
        [--no-average-repeats] [--flag-outlier-systems [--outlier-threshold 2.5]]
        [--out KEPT.csv] [--item-scores-out ITEMS.csv] [--report-json REPORT.json]

The judgments file is read by the one table reader (:func:`korean_eval.inputs.table_reader.read_table`, docs/design.md §4).
It prints the QC report's summary lines to stdout; ``--out`` writes the kept judgments (the input's columns with
their header as in the file, then ``<col>_z`` for every score column, then ``seg_id``, rows in input order, UTF-8
CSV); ``--item-scores-out`` writes ``QCResult.item_scores``; both CSVs prefix ``'`` to text cells a spreadsheet would
run as a formula, as ``run``'s CSVs do (:func:`korean_eval.exports.csv_zip.to_csv_bytes`); ``--report-json`` writes
``QCReport.to_dict()``. Bad input (unreadable file or not a regular file, unknown or undetectable columns, bad option
values, unwritable output) prints one ``error: …`` line to stderr and returns 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from korean_eval.cli.checks import check_regular_file
from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.table_reader import read_table
from korean_eval.inputs.text_files import read_input_file


def _nonneg_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 0, got {text!r}")
    return value


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number ≥ 0, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number ≥ 0, got {text!r}")
    return value


def _pos_float(text: str) -> float:
    value = _nonneg_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def _split_cols(text: str | None) -> tuple[str, ...] | None:
    """``"A, B"`` → ``("A", "B")``; ``None`` stays ``None`` (auto-detect)."""
    if text is None:
        return None
    cols = tuple(c.strip() for c in text.split(","))
    if not cols or any(not c for c in cols):
        raise ValueError(f"bad column list {text!r}: give comma-separated column names, e.g. DocID,SentID")
    return cols


QC_DEFAULTS: dict[str, float] = {"drop_first": 10, "iqr": 1.5, "outlier_threshold": 2.5}
"""The QC flags' defaults (the kor_sacrebleu study's procedure), applied by :func:`qc_options_from_args`."""


def add_qc_options(parser: argparse.ArgumentParser, *, judgments_required: bool = False) -> None:
    """Add the human-judgment QC flags to ``parser`` (an argument group "human judgments QC").

    Destinations: ``judgments``, ``rater_col``, ``system_col``, ``item_cols``, ``score_cols`` (comma-separated
    text or ``None`` = auto-detect), ``drop_first`` (int, default 10), ``iqr`` (float, default 1.5), ``no_fences``,
    ``no_zscore``, ``average_repeats`` (False with ``--no-average-repeats``), ``flag_outlier_systems``,
    ``outlier_threshold`` (default 2.5). Defaults reproduce the kor_sacrebleu study's procedure; every destination
    is ``None`` unless the flag is given (so ``run`` can refuse QC flags without ``--judgments``), and
    :func:`qc_options_from_args` applies the defaults.
    """
    g = parser.add_argument_group("human judgments QC")
    g.add_argument("--judgments", metavar="FILE", required=judgments_required, default=None,
                   help="CSV/TSV of human judgments, one row per judgment")
    g.add_argument("--rater-col", metavar="C", default=None, help="rater column (default: auto-detect, e.g. worker)")
    g.add_argument("--system-col", metavar="C", default=None, help="system column (default: auto-detect, e.g. Sys)")
    g.add_argument("--item-cols", metavar="C1,C2", default=None,
                   help="item-key columns, joined by '-' into seg_id (default: auto-detect, e.g. DocID,SentID)")
    g.add_argument("--score-cols", metavar="C1,C2", default=None,
                   help="score columns; the first gives the item score (default: auto-detect, e.g. Adequacy,Fluency)")
    g.add_argument("--drop-first", metavar="N", type=_nonneg_int, default=None,
                   help="drop each rater's first N judgments in file order (warm-up; default 10; 0 = off)")
    g.add_argument("--iqr", metavar="K", type=_pos_float, default=None,
                   help="Tukey fence multiplier k: keep Q1-k*IQR <= z <= Q3+k*IQR on every score column (default 1.5)")
    g.add_argument("--no-fences", action="store_true", default=None, help="skip the Tukey fences")
    g.add_argument("--no-zscore", action="store_true", default=None,
                   help="skip per-rater z-scores (fences and item scores then use raw scores)")
    g.add_argument("--no-average-repeats", dest="average_repeats", action="store_false", default=None,
                   help="keep each judgment of a repeated (system, item) as its own item-score row")
    g.add_argument("--flag-outlier-systems", action="store_true", default=None,
                   help="flag systems whose mean human score has |robust z| > threshold (Mathur et al., 2020)")
    g.add_argument("--outlier-threshold", metavar="T", type=_pos_float, default=None,
                   help="robust-z threshold for --flag-outlier-systems (default 2.5)")


def qc_options_from_args(args: argparse.Namespace) -> QCOptions:
    """Build ``QCOptions`` from flags added by ``add_qc_options``; ``ValueError`` on bad values."""
    return QCOptions(
        rater_col=args.rater_col,
        system_col=args.system_col,
        item_cols=_split_cols(args.item_cols),
        score_cols=_split_cols(args.score_cols),
        drop_first=QC_DEFAULTS["drop_first"] if args.drop_first is None else args.drop_first,
        zscore=not args.no_zscore,
        iqr_k=None if args.no_fences else QC_DEFAULTS["iqr"] if args.iqr is None else args.iqr,
        average_repeats=args.average_repeats is not False,
        flag_outlier_systems=bool(args.flag_outlier_systems),
        outlier_threshold=QC_DEFAULTS["outlier_threshold"] if args.outlier_threshold is None else args.outlier_threshold,
    )


def _error(message: str) -> int:
    text = " ".join(str(message).split())
    print(f"error: {text}", file=sys.stderr)
    return 2


def _write_csv(df: pd.DataFrame, path: str, what: str) -> None:
    """Write ``df`` as ``run``'s CSVs are written (:func:`korean_eval.exports.csv_zip.to_csv_bytes`: formula-like text cells
    defused with a leading ``'``)."""
    try:
        Path(path).write_bytes(to_csv_bytes(df))
    except OSError as exc:
        raise ValueError(f"cannot write {what} to {path}: {exc.strerror or exc}") from None


def run_qc_command(args: argparse.Namespace) -> int:
    """The ``qc`` subcommand: read, QC, write, print the summary. Returns the exit status (0, or 2 on bad input)."""
    if not args.judgments:
        return _error("qc needs --judgments FILE")
    try:
        options = qc_options_from_args(args)
        check_regular_file(args.judgments, "--judgments")
        name, data = read_input_file(args.judgments, "judgments")
        table = read_table(data, name, multiline_cells=False)
        result = run_qc(table.frame(), options, lines=table.lines)
        if args.out:
            kept = result.judgments_with_seg_id().rename(columns={c: "" for c in table.unnamed})
            _write_csv(kept, args.out, "the kept judgments")
        if args.item_scores_out:
            _write_csv(result.item_scores, args.item_scores_out, "the item scores")
        if args.report_json:
            try:
                Path(args.report_json).write_text(json.dumps(result.report.to_dict(), ensure_ascii=False, indent=2),
                                                  encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"cannot write the report to {args.report_json}: {exc.strerror or exc}") from None
    except ValueError as exc:
        return _error(str(exc))
    for line in result.report.summary_lines():
        print(line)
    if args.out:
        print(f"Wrote {result.report.n_kept:,} kept judgments to {args.out}.")
    if args.item_scores_out:
        print(f"Wrote {len(result.item_scores):,} item scores to {args.item_scores_out}.")
    return 0


def register_qc_command(subparsers: Any) -> None:
    """Register the ``qc`` subcommand on an ``argparse`` subparsers object; ``args.func(args)`` runs it (→ int)."""
    p = subparsers.add_parser(
        "qc",
        help="quality-control human judgments (warm-up, per-rater z, Tukey fences) and write item scores",
        description="Quality-control human Direct Assessment judgments (defaults: the kor_sacrebleu study's "
                    "procedure) and print a report.",
    )
    add_qc_options(p, judgments_required=False)
    p.add_argument("--out", metavar="FILE", default=None,
                   help="write the kept judgments (input columns + <col>_z + seg_id) as CSV")
    p.add_argument("--item-scores-out", metavar="FILE", default=None,
                   help="write per-(system, item) scores: system, seg_id, score, score_raw, n_judgments, ...")
    p.add_argument("--report-json", metavar="FILE", default=None, help="write the full QC report as JSON")
    p.set_defaults(func=run_qc_command)
