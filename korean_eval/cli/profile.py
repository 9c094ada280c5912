"""The ``profile`` subcommand: the Korean lens (docs/design.md §8) on the command line.

    python -m korean_eval profile [--ref FILE --sys NAME=FILE … | --sys-dir DIR | --table FILE] [--human FILE]
        [--levels word,kiwi,char] [--metrics bleu,chrf,ter] [--kinds spacing,negation] [--no-probe]
        [--seed 12345] [--bootstrap 1000] [--jobs N] [--cache-dir DIR | --no-cache] [--out DIR] [--quiet]

Inputs are ``run``'s (:func:`korean_eval.cli.inputs.add_input_options`, read by the same
:func:`korean_eval.cli.inputs.build_evalset`; without any, the bundled sample) and are checked the same way before
any file is read (:mod:`korean_eval.cli.checks`). ``--out`` writes the tables of
:meth:`korean_eval.lens.run.LensResult.tables` (``profile.csv``, ``profile_segments.csv``, ``speech_levels.csv``,
``speech_level_confusion.csv``, ``speech_level_segments.csv``, ``spacing.csv``, ``spacing_segments.csv``,
``probe.csv``, ``probe_segments.csv``, ``probe_perturbations.csv``, ``human_links.csv``) through
:func:`korean_eval.exports.csv_zip.to_csv_bytes` (formula-like text cells defused), and ``lens.json`` (settings, analyzer
version, notes). A summary goes to stdout, the progress bar to stderr; bad input exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from korean_eval.cli.checks import (
    check_input_files,
    check_level_names,
    check_names,
    check_option_combinations,
    check_run_numbers,
)
from korean_eval.cli.inputs import (
    ProgressBar,
    add_input_options,
    build_evalset,
    print_kernel_notice,
    print_validation_report,
    split_names,
)
from korean_eval.engine.cache import ENV_VAR, open_cache, use_cache_dir
from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.lens.perturb import KINDS
from korean_eval.lens.pos_categories import CATEGORIES
from korean_eval.lens.profile import ALL
from korean_eval.levels.registry import choose_levels
from korean_eval.metrics import metric_names
from korean_eval.metrics.sacre import SACREBLEU_METRIC_NAMES
from korean_eval.model.config import EvalConfig
from korean_eval.model.defaults import LEVELS, RESAMPLES, SEED
from korean_eval.model.evalset import InputError

if TYPE_CHECKING:  # the lens (scipy, Kiwi) is imported only when `profile` runs
    from korean_eval.lens.run import LensResult

DEFAULT_METRICS = tuple(SACREBLEU_METRIC_NAMES)


def check_profile_args(args: argparse.Namespace) -> None:
    """The checks of ``run`` that apply here, plus: ``--levels``/``--metrics``/``--kinds`` with ``--no-probe``
    would be ignored; unknown or repeated perturbation kinds."""
    check_option_combinations(args)
    check_run_numbers(args)
    if args.no_probe:
        for dest in ("levels", "metrics", "kinds"):
            if getattr(args, dest):
                raise InputError(f"--{dest}", "cannot be combined with --no-probe (it would be ignored)")
    check_level_names(args.levels)
    check_names("--metrics", split_names(args.metrics), metric_names(), "metric")
    check_names("--kinds", split_names(args.kinds), tuple(KINDS), "perturbation kind")
    check_input_files(args)


def profile_command(args: argparse.Namespace) -> int:
    """Read, run the lens, write the tables, print the summary (status 0; bad input raises InputError)."""
    check_profile_args(args)
    evalset = build_evalset(args)
    levels = LEVELS
    if not args.no_probe:  # the probe's levels: by default the dashboard's five; all: the study's grid
        choice = choose_levels(split_names(args.levels))
        evalset.report.notes.extend(choice.notes)
        levels = choice.levels
    config = EvalConfig(
        levels=levels,
        metrics=tuple(split_names(args.metrics)) or DEFAULT_METRICS,
        spm_vocab=args.spm_vocab,
        jobs=args.jobs,
        seed=args.seed,
    )
    if args.cache_dir:
        use_cache_dir(args.cache_dir)
    cache = open_cache(args.cache_dir, enabled=not args.no_cache)
    print_validation_report(evalset)
    from korean_eval.lens.run import run_lens

    if not args.no_probe:
        print_kernel_notice(config.metrics, config.ter_implementation, evalset, 0, statistics=False)
    result = run_lens(
        evalset, config, with_probe=not args.no_probe, kinds=tuple(split_names(args.kinds)) or tuple(KINDS),
        seed=args.seed, n_resamples=args.bootstrap, cache=cache, progress=None if args.quiet else ProgressBar(),
    )
    if args.out:
        paths = write_lens_tables(result, args.out)
        print(f"wrote {len(paths)} files to {args.out}", file=sys.stderr)
    print(summary_text(result))
    return 0


def write_lens_tables(result: LensResult, out_dir: str | Path) -> list[Path]:
    """Every table of ``result`` as CSV (:func:`korean_eval.exports.csv_zip.to_csv_bytes`) and ``lens.json`` in ``out_dir``."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, frame in result.tables().items():
            (out / name).write_bytes(to_csv_bytes(frame))
            written.append(out / name)
        (out / "lens.json").write_text(json.dumps(result.metadata(), ensure_ascii=False, indent=2), encoding="utf-8")
    except OSError as exc:
        raise InputError(str(out_dir), f"cannot write the tables: {exc.strerror or exc}") from None
    return [*written, out / "lens.json"]


def summary_text(result: LensResult) -> str:
    """F1 per category and system, speech-level agreement, spacing F1, the probe's relative penalties and the
    strongest links to the human scores, as plain text."""
    pd.set_option("display.width", 200)
    whole = result.profile[result.profile["subcategory"] == ALL]
    f1 = whole.pivot_table(index="system", columns="category", values="f1", sort=False, dropna=False)
    f1 = f1.reindex(columns=list(CATEGORIES))
    lines = ["Error profile: F1 of the morphemes per category (1 = the reference's morphemes exactly):",
             f1.round(3).to_string(), ""]
    extra = result.speech_levels.set_index("system")[["agreement", "honorific_mismatch"]]
    extra["spacing_f1"] = result.spacing.set_index("system")["f1"]
    lines += ["Speech level agreement, honorific mismatches (segments), spacing F1:", extra.round(3).to_string(), ""]
    if result.probe is not None:
        table = result.probe.summary.pivot_table(
            index="kind", columns=["metric", "level"], values="relative_to_drop", sort=False
        )
        lines += ["Probe: mean penalty relative to dropping a content eojeol (1 = as severe, 0 = not noticed):",
                  table.round(2).to_string(), ""]
    links = result.human_links
    corr = links[(links["analysis"] == "correlation") & (links["statistic"] == "pearson")]
    if not corr.empty:
        top = corr.reindex(corr["value"].abs().sort_values(ascending=False).index).head(8)
        lines += ["Error counts most correlated with the human scores (Pearson r, descriptive):",
                  top[["feature", "value", "ci_low", "ci_high", "n"]].round(3).to_string(index=False), ""]
    return "\n".join(lines + [f"note: {n}" for n in result.notes])


def register_profile_command(subparsers: Any) -> None:
    """Register ``profile`` on an ``argparse`` subparsers object; ``args.func(args)`` runs it."""
    p = subparsers.add_parser(
        "profile",
        help="the Korean lens: error profile, speech levels, spacing, perturbation probe, links to human scores",
        description="Which Korean errors each system makes (Kiwi's morphemes against the references), and which "
                    "token level × metric notices which error (seeded perturbations of the references).",
    )
    add_input_options(p)
    g = p.add_argument_group("probe")
    g.add_argument("--levels", help=f"comma-separated token levels of the probe (default: {','.join(LEVELS)}; all: every "
                   "level but khaiii; a level of either that cannot run here is left out with a note)")
    g.add_argument("--metrics", help=f"comma-separated metrics of the probe (default: {','.join(DEFAULT_METRICS)})")
    g.add_argument("--kinds", help=f"comma-separated perturbation kinds (default: all: {','.join(KINDS)})")
    g.add_argument("--no-probe", action="store_true", help="skip the perturbation probe")
    g.add_argument("--spm-vocab", type=int, default=4000, help="SentencePiece vocabulary size (level spm)")
    st = p.add_argument_group("statistics")
    st.add_argument("--seed", type=int, default=SEED, help="seed of the perturbations and the bootstrap")
    st.add_argument("--bootstrap", type=int, default=RESAMPLES, metavar="N", help="bootstrap resamples (0 = no CIs)")
    perf = p.add_argument_group("performance")
    perf.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    perf.add_argument("--cache-dir", metavar="DIR", help=f"cache directory (default: ${ENV_VAR} or the user cache dir)")
    perf.add_argument("--no-cache", action="store_true", help="bypass the persistent cache")
    p.add_argument("--out", metavar="DIR", help="write the tables into this directory")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=profile_command)
