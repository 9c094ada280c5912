"""The command line's inputs, shared by ``run`` and ``profile`` (docs/design.md §4): the options that name them
(:func:`add_input_options`), reading and validating them into an :class:`~korean_eval.model.evalset.EvalSet`
(:func:`build_evalset`), the line both commands say before numba compiles kernels (:func:`print_kernel_notice`) and
the progress bar they draw on stderr (:class:`ProgressBar`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from korean_eval.cli.checks import sys_dir_files, system_spec_path
from korean_eval.cli.mtme import add_human_direction_option, add_mqm_weights_option
from korean_eval.cli.qc import add_qc_options, qc_options_from_args
from korean_eval.inputs.columns import ColumnMap
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.sample import SAMPLE_NOTE, load_sample
from korean_eval.inputs.spans.attach import attach_ratings
from korean_eval.inputs.spans.reading import read_ratings
from korean_eval.inputs.spans.weights import parse_weights
from korean_eval.inputs.table_reader import read_table
from korean_eval.inputs.tables import (
    attach_given_scores,
    attach_human,
    attach_human_frame,
    declare_human_lower_is_better,
    evalset_from_table,
    given_only_evalset,
)
from korean_eval.inputs.text_files import read_input_file, system_identifier
from korean_eval.model.evalset import EvalSet, InputError, evalset_from_texts


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """The argument groups "texts" (``--ref``, ``--sys``, ``--sys-dir``, ``--table``, ``--table-cols``), "human
    scores" (``--human``, ``--human-cols``, ``--human-from-table``, ``--ratings``, ``--ratings-seg-offset``,
    ``--human-direction``, ``--mqm-weights``) and the raw judgments' quality control
    (:func:`korean_eval.cli.qc.add_qc_options`)."""
    src = parser.add_argument_group("texts")
    src.add_argument("--ref", action="append", metavar="FILE", help="reference file (repeat for several references)")
    src.add_argument("--sys", action="append", metavar="NAME=FILE", help="system output file (repeatable)")
    src.add_argument("--sys-dir", metavar="DIR", help="directory of system files (*.txt, name = file stem)")
    src.add_argument("--table", metavar="FILE", help="long table (CSV/TSV/JSONL) with system, seg_id, hyp, ref")
    src.add_argument("--table-cols", metavar="MAP", help="column mapping, e.g. system=Sys,seg_id=DocID+SentID,hyp=Hyp,ref=Ref")
    hum = parser.add_argument_group("human scores")
    hum.add_argument("--human", metavar="FILE", help="per-item human scores: system, seg_id, score")
    hum.add_argument("--human-cols", metavar="MAP", help="column mapping for --human, e.g. system=Sys,seg_id=DocID+SentID,score=Z")
    hum.add_argument("--human-from-table", metavar="COL", help="take human scores from this column of --table")
    hum.add_argument("--ratings", action="append", metavar="FILE", help="error-span ratings, one rater group per file "
                     "(repeatable): an mt-metrics-eval SRC-TGT.NAME.seg.rating file, a Google MQM TSV or an ESA table; "
                     "human scores = the mean over raters per item, their agreement = the human ceiling")
    hum.add_argument("--ratings-seg-offset", type=int, metavar="N", default=None,
                     help="added to the integer seg_id of --ratings tables (e.g. -1: a Google MQM TSV numbers "
                     "segments from 1, text files from 0); written into the human scores' note")
    add_human_direction_option(hum)
    add_mqm_weights_option(hum)
    add_qc_options(parser)


def split_names(text: str | None) -> list[str]:
    """``"word, kiwi,"`` → ``["word", "kiwi"]`` (a comma-separated option value; empty entries dropped)."""
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def build_evalset(args: argparse.Namespace) -> EvalSet:
    """Load and validate the inputs named on the command line (raises InputError); without any input, the bundled
    sample. ``--human-direction lower`` declares the human scores lower-is-better
    (:func:`korean_eval.inputs.tables.declare_human_lower_is_better`)."""
    evalset = _read_inputs(args)
    if args.human_direction == "lower":
        declare_human_lower_is_better(evalset, "--human-direction")
    return evalset


def _read_inputs(args: argparse.Namespace) -> EvalSet:
    """The inputs as read. ``--scores`` (bring-your-own metric scores) is an option of ``run`` only: a parser
    without it reads as if it were not given."""
    scores, scores_cols = getattr(args, "scores", None), getattr(args, "scores_cols", None)
    if scores and not (args.ref or args.table):
        if not (args.human or args.judgments):
            raise InputError("--scores", "given scores without texts need human scores too (--human or --judgments)")
        if args.human:
            return given_only_evalset(
                read_input_file(args.human, "human score"), read_input_file(scores, "metric score"),
                ColumnMap.parse(scores_cols), ColumnMap.parse(args.human_cols),
            )
    if args.table:
        name, data = read_input_file(args.table, "table")
        evalset = evalset_from_table(data, name, ColumnMap.parse(args.table_cols), args.human_from_table)
    elif args.ref:
        refs = [read_input_file(r, "reference") for r in args.ref]
        systems: list[tuple[str, bytes]] = []
        names: list[str] = []
        for spec in args.sys or []:
            name, sep, _ = spec.partition("=")
            if sep:  # named on the command line: refused there when it holds a control character
                system_identifier(name, "--sys")
            systems.append(read_input_file(system_spec_path(spec), "system"))
            names.append(name if sep else Path(spec).stem)
        if args.sys_dir:
            files, skipped_note = sys_dir_files(args.sys_dir)
            if skipped_note:
                print(f"note: {skipped_note}", file=sys.stderr)
            for p in files:
                systems.append(read_input_file(p, "system"))
                names.append(p.stem)
            if not systems:
                raise InputError(args.sys_dir, "no *.txt system files in this directory")
        evalset = evalset_from_texts(refs, systems, names)
    elif scores:
        raise InputError("--scores", "given scores without texts need --human (or add --ref/--table)")
    else:
        print(f"note: no input given, using the bundled sample data. {SAMPLE_NOTE}", file=sys.stderr)
        evalset = load_sample()
    if args.human:
        name, data = read_input_file(args.human, "human score")
        attach_human(evalset, data, name, ColumnMap.parse(args.human_cols))
    if getattr(args, "ratings", None):
        offset = args.ratings_seg_offset or 0
        reads = [read_ratings(data, name, evalset.n_segments, offset) for name, data in
                 (read_input_file(path, "ratings") for path in args.ratings)]
        attach_ratings(evalset, reads, parse_weights(args.mqm_weights), args.human_direction == "lower")
    if args.judgments:
        name, data = read_input_file(args.judgments, "judgments")
        table = read_table(data, name, multiline_cells=False)
        try:
            qc = run_qc(table.frame(), qc_options_from_args(args), lines=table.lines)
        except ValueError as err:
            raise InputError(name, str(err)) from None
        for line in qc.report.summary_lines():
            print(f"qc: {line}", file=sys.stderr)
        attach_human_frame(evalset, qc.item_scores, f"{name} (after quality control)")
    if scores:
        name, data = read_input_file(scores, "metric score")
        attach_given_scores(evalset, data, name, ColumnMap.parse(scores_cols))
    return evalset


def print_validation_report(evalset: EvalSet) -> None:
    """The validation report's notes and the excluded input rows counted by file and reason, on stderr."""
    for note in evalset.report.notes:
        print(f"note: {note}", file=sys.stderr)
    if evalset.report.excluded:
        print(f"note: {len(evalset.report.excluded)} input row(s) excluded:", file=sys.stderr)
        print(evalset.report.excluded_summary().to_string(index=False), file=sys.stderr)


def print_kernel_notice(
    metrics: Sequence[str], ter_implementation: str, evalset: EvalSet, resamples: int, statistics: bool = True
) -> None:
    """One line on stderr when the run is about to compile numba kernels that are not cached yet
    (:func:`korean_eval.engine.kernel_warmup.first_run_notice`: with the seconds it takes; only the kernels of these
    metrics, and with ``statistics`` those of the statistics when there are human scores, with ``resamples`` > 0
    those of their resampling too, and of the ranking check with two systems or more)."""
    from korean_eval.engine.kernel_warmup import first_run_notice

    with_humans = statistics and (evalset.human is not None or evalset.human_system is not None)
    notice = first_run_notice(metrics, ter_implementation, statistics=with_humans, resampling=resamples > 0,
                              ranking=len(evalset.systems) >= 2)
    if notice:
        print(notice, file=sys.stderr)


class ProgressBar:
    """A one-line text progress bar on stderr; the line ends at 100 % (later reports are not drawn) or at
    :meth:`end_line`."""

    def __init__(self, stream=sys.stderr, width: int = 30):
        self.stream, self.width, self.start = stream, width, time.perf_counter()
        self.open = False  # a bar drawn on a line not ended yet
        self.ended = False

    def __call__(self, fraction: float, message: str) -> None:
        if self.ended:
            return
        filled = int(round(fraction * self.width))
        bar = "█" * filled + "·" * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r[{bar}] {fraction:4.0%} {elapsed:6.1f}s  {message[:60]:<60}")
        self.open = True
        if fraction >= 1.0:
            self.end_line()
            self.ended = True
        self.stream.flush()

    def end_line(self) -> None:
        """End the bar's line (before another message on stderr)."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False
