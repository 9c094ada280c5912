"""Command line: ``korean-eval {run,qc,profile,levels,mtme-list,app,annotate}`` (or ``python -m korean_eval …``).

``run`` scores systems at token levels with metrics, meta-evaluates them against human scores and writes the tidy
tables (``segment_scores.csv``, ``system_scores.csv``, ``correlations.csv``, ``rankings.csv`` …) into ``--out``.
Inputs: ``--ref FILE`` (repeatable: several references) with ``--sys NAME=FILE`` (repeatable) or ``--sys-dir DIR``;
or ``--table FILE`` (long table; ``--table-cols system=Sys,seg_id=DocID+SentID,hyp=Hyp,ref=Ref``); human scores
with ``--human FILE`` (``--human-cols``), ``--human-from-table COL``, or raw judgments through quality control
(``--judgments FILE`` and the ``qc`` flags); bring-your-own metric scores with ``--scores FILE``; or one language
pair of a folder in mt-metrics-eval's layout (``--mtme DIR --lp en-ko``, :mod:`korean_eval.cli.mtme`; with
documents, per-domain tables too). ``--human-direction lower`` declares human scores lower-is-better. Without any
input, the bundled sample data is used. Options are checked before any file is read (:mod:`korean_eval.cli.checks`). A
progress bar goes to stderr, a summary to stdout; bad input exits with status 2 and one line
``error: <file or option>, line <n>: <problem>``. ``app`` serves the dashboard (:mod:`korean_eval.cli.app`); ``annotate`` creates
campaigns of ESA judgments and shows their progress (:mod:`korean_eval.cli.annotate`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import pandas as pd

import korean_eval
from korean_eval.cli.annotate import register_annotate_command
from korean_eval.cli.app import register_app_command
from korean_eval.cli.checks import (
    check_input_files,
    check_level_names,
    check_mqm_weights,
    check_names,
    check_option_combinations,
    check_run_numbers,
)
from korean_eval.cli.exports import add_export_options, check_export_args, write_exports
from korean_eval.cli.inputs import (
    ProgressBar,
    add_input_options,
    build_evalset,
    print_kernel_notice,
    print_validation_report,
    split_names,
)
from korean_eval.cli.mtme import add_mtme_options, domain_summary, load_from_args, register_list_command
from korean_eval.cli.profile import register_profile_command
from korean_eval.cli.qc import register_qc_command
from korean_eval.cli.stopping import STOPPED_STATUS, RunStop
from korean_eval.engine.cache import ENV_VAR, open_cache, use_cache_dir
from korean_eval.engine.held_writes import held_writes
from korean_eval.engine.progress import pipeline_share, scaled
from korean_eval.engine.result_store import stored_evaluation
from korean_eval.engine.small_samples import small_sample_notes
from korean_eval.engine.statistics import StatisticsSettings, evaluation_tables
from korean_eval.engine.stopping import EvaluationStopped, check_stop
from korean_eval.inputs.text_files import read_input_file
from korean_eval.levels.registry import choose_levels, level_table
from korean_eval.metaeval.tables.degenerate import degenerate_notes
from korean_eval.metrics import error_rate_labels, metric_names, validate_options
from korean_eval.metrics.sacre import SACREBLEU_METRIC_NAMES
from korean_eval.model.config import EvalConfig, RankingSettings
from korean_eval.model.defaults import AR_TRIALS, LEVELS, RESAMPLES, SEED
from korean_eval.model.evalset import EvalSet, InputError
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import STATISTICS, headline_grouping


def _read_spm_model(path: str) -> bytes:
    """The bytes of a SentencePiece ``.model`` file, checked to load (InputError naming the file otherwise)."""
    from korean_eval.levels.registry import SpmLevel

    data = read_input_file(path, "SentencePiece model")[1]
    try:
        SpmLevel(model=data)
    except ValueError as err:
        raise InputError(path, str(err)) from None
    return data


def parse_overrides(items: Sequence[str]) -> dict[str, dict[str, dict[str, int]]]:
    """``LEVEL:METRIC:OPTION=VALUE`` (LEVEL may be ``*`` for every level) → nested overrides.

    METRIC, OPTION and VALUE are checked against the metric's declared options (their bounds and messages); an
    unknown level is left to :class:`EvalConfig`. Raises :class:`InputError` naming ``--override``.
    """
    out: dict[str, dict[str, dict[str, int]]] = {}
    for item in items:
        head, sep, value = item.partition("=")
        parts = head.split(":")
        if not sep or len(parts) != 3:
            raise InputError("--override", f"cannot read {item!r}; use LEVEL:METRIC:OPTION=VALUE, e.g. char:bleu:max_ngram_order=6")
        level, metric, option = (p.strip() for p in parts)
        try:
            number = validate_options(metric, {option: value})[option]
        except ValueError as err:
            raise InputError("--override", f"{item!r}: {err}") from None
        out.setdefault(level, {}).setdefault(metric, {})[option] = number
    return out


def summary_text(results: Results, statistic: str = "pearson") -> str:
    """System scores (levels × metrics by system) and correlations, as plain text tables: segment rows of grouping
    :func:`~korean_eval.model.vocabulary.headline_grouping` (``item`` for ``pdp``, else ``none``)."""
    lines = []
    pd.set_option("display.width", 200)
    if not results.system_scores.empty:
        table = results.system_scores.pivot_table(index=["level", "metric"], columns="system", values="score", sort=False)
        lines += ["System scores (raw scores are NOT comparable across token levels):", table.round(2).to_string(), ""]
    hs = results.human_systems
    if hs["human_mean"].notna().any():
        lines += ["Human mean per system:", hs.round(3).to_string(index=False), ""]
        corr = results.correlations
        wanted = corr["granularity"].map({"segment": headline_grouping(statistic), "system": "none"})
        corr = corr[(corr["statistic"] == statistic) & (corr["grouping"] == wanted)]
        if not corr.empty:
            order = pd.MultiIndex.from_frame(corr[["level", "metric"]].drop_duplicates())
            table = corr.pivot(index=["level", "metric"], columns="granularity", values="value").reindex(order)
            table = table[list(dict.fromkeys(corr["granularity"]))]  # undefined values kept, shown as n/a
            name = "PDP (segment level: grouping item)" if statistic == "pdp" else statistic.title()
            lines += [
                f"{name} correlation with humans"
                + (f" (error rates {rates}: negative = agreement):" if (rates := ", ".join(error_rate_labels(results.system_scores["metric"]))) else ":"),
                table.round(3).to_string(na_rep="n/a"),
                "",
            ]
        lines += _pairwise_summary(results.correlations)
    if not results.flips.empty:
        lines.append(f"{len(results.flips)} (level, metric, system pair) combination(s) rank two systems against the humans' order")
    lines += results.notes
    return "\n".join(lines)


def _pairwise_summary(corr: pd.DataFrame) -> list[str]:
    """The WMT statistics as a table: acc_eq over items with its ε, pairwise accuracy and SPA per level × metric."""
    acc = corr[(corr["statistic"] == "acc_eq") & (corr["grouping"] == "item")].set_index(["level", "metric"])
    if acc.empty:
        return []
    table = pd.DataFrame({"acc_eq": acc["value"], "epsilon": acc["epsilon"]})
    for statistic in ("pairwise_accuracy", "spa"):
        rows = corr[corr["statistic"] == statistic].set_index(["level", "metric"])
        if not rows.empty:
            table[statistic] = rows["value"]
    return ["WMT statistics (acc_eq: tie-calibrated pairwise accuracy over items, with its ε; pairwise accuracy "
            "and soft pairwise accuracy of the system scores):", table.round(4).to_string(na_rep="n/a"), ""]


def ceiling_summary(ceiling: pd.DataFrame, statistic: str) -> list[str]:
    """The human ceiling (:func:`korean_eval.metaeval.tables.human_ceiling.reference_rows`) of ``statistic`` and the WMT
    statistics, as plain text."""
    from korean_eval.metaeval.tables.human_ceiling import reference_rows

    rows = reference_rows(ceiling)
    rows = rows[rows["statistic"].isin([statistic, "acc_eq", "pairwise_accuracy", "spa"])]
    if rows.empty:
        return []  # the run's notes say why (korean_eval.metaeval.tables.human_ceiling.no_ceiling_note)
    shown = rows[["comparison", "granularity", "grouping", "statistic", "value", "ci_low", "ci_high", "n"]]
    return ["Human ceiling (agreement between raters, the same statistics as the metrics; a metric above it: check "
            "the data):", shown.round(4).to_string(index=False), ""]


def check_run_args(args: argparse.Namespace) -> None:
    """Every check of the ``run`` options that needs no file contents (:mod:`korean_eval.cli.checks`); raises
    :class:`InputError` naming the option, before any input is read."""
    check_option_combinations(args)
    if args.scheduler is not None and args.jobs is not None:
        raise InputError("--jobs", "is ignored with --scheduler (the Dask cluster's workers do the work); give one of them")
    check_run_numbers(args)
    check_mqm_weights(args)
    check_level_names(args.levels)
    check_names("--metrics", split_names(args.metrics), metric_names(), "metric")
    check_input_files(args)
    check_export_args(args)


def run_command(args: argparse.Namespace) -> int:
    """``run``; Ctrl+C stops it with one line saying what was written (:mod:`korean_eval.cli.stopping`), exit
    status 130."""
    stop = RunStop(args.out, bool(args.latex or args.report), not args.no_cache)
    progress = None if args.quiet else ProgressBar()
    try:
        return _run(args, stop, progress)
    except (EvaluationStopped, KeyboardInterrupt):
        if progress is not None:
            progress.end_line()
        print(stop.message(), file=sys.stderr)
        return STOPPED_STATUS


def _run(args: argparse.Namespace, stop: RunStop, progress: ProgressBar | None) -> int:
    """The work of :func:`run_command`."""
    check_run_args(args)
    loaded = load_from_args(args) if args.mtme else None
    evalset = loaded.evalset if loaded else build_evalset(args)
    given_lower = tuple(split_names(args.lower_is_better))
    if loaded and loaded.lower_is_better and not given_lower:
        given_lower = loaded.lower_is_better
        print(f"note: lower is better (read from the scores): {', '.join(given_lower)}; --lower-is-better "
              "NAMES replaces this choice", file=sys.stderr)
    overrides = parse_overrides(args.override or [])  # a bad value ends the run before any analyzer is loaded
    levels = _chosen_levels(args.levels, evalset)
    metrics = split_names(args.metrics) or list(SACREBLEU_METRIC_NAMES)
    config = EvalConfig(
        levels=tuple(levels),
        metrics=tuple(metrics),
        overrides=_expand_overrides(overrides, levels),
        ter_cap=args.ter_cap,
        spm_vocab=args.spm_vocab,
        spm_model=_read_spm_model(args.spm_model) if args.spm_model else None,
        ter_implementation=args.ter_impl,
        given_lower_is_better=given_lower,
        jobs=args.jobs,
        scheduler=args.scheduler,
        spa_permutations=args.spa_permutations,
        replace_nans_with_zeros=args.replace_nans_with_zeros,
        seed=args.seed,
    )
    if args.cache_dir:
        use_cache_dir(args.cache_dir)
    cache = open_cache(args.cache_dir, enabled=not args.no_cache)
    print_validation_report(evalset)
    share = pipeline_share(args.bootstrap, evalset)
    with stop.computing() as event, held_writes(cache) as held:  # made once all is computed, or when stopped
        stop.held = held
        results, _key = stored_evaluation(evalset, config, held)
        if results is None:  # the pipeline (scipy, numba, the metrics) is imported only when something is computed
            from korean_eval.engine.pipeline import evaluate

            print_kernel_notice(config.metrics, config.ter_implementation, evalset, args.bootstrap)
            results = evaluate(evalset, config, progress=scaled(progress, 0.0, share), cache=held, stop=event)
        elif progress is not None:
            progress(share, "done (stored result of an identical evaluation)")
        settings = StatisticsSettings(resamples=args.bootstrap, seed=args.seed, statistic=args.statistic,
                                      ar_trials=args.ar_trials)
        extra = evaluation_tables(results, evalset, settings, held, config, scaled(progress, share, 1.0), event)
        to_store = bool(held.writes)
    stop.cache_written = to_store
    if cache.problem and cache.problem not in results.notes:  # a write that failed once the run finished
        results.notes.append(cache.problem)
    check_stop(stop.event)  # a Ctrl+C while the cache was written: stop before the tables
    for note in degenerate_notes(results.correlations):
        print(f"note: {note}", file=sys.stderr)
    extra_meta: dict[str, object] = {"bootstrap": {"resamples": args.bootstrap, "seed": args.seed},
                                     "approximate_randomization": {"trials": args.ar_trials, "seed": args.seed}}
    few = small_sample_notes(results)
    for note in few:
        print(f"note: {note}", file=sys.stderr)
    if few:
        extra_meta["statistics_notes"] = few
    if args.out:
        from korean_eval.exports.csv_zip import write_tables

        stop.out_state = "writing"
        paths = write_tables(results, args.out, evalset, extra, extra_meta)
        stop.out_state = "written"
        print(f"wrote {len(paths)} files to {args.out}", file=sys.stderr)
    stop.exports_state = "writing"
    write_exports(args, results, evalset, extra, extra_meta)
    stop.exports_state = "written"
    print(_summary(results, extra, args.statistic, settings))
    return 0


def _chosen_levels(option: str | None, evalset: EvalSet) -> list[str]:
    """The levels of ``--levels`` (:func:`~korean_eval.levels.registry.choose_levels`: without it the dashboard's five
    defaults, ``all`` the study's grid, each leaving out a level unavailable here with a note in the validation
    report, hence on stderr and in ``run.json``); none when the input has no texts (given metric scores alone), where
    no level could be used."""
    if not evalset.refs:
        return []
    choice = choose_levels(split_names(option))
    evalset.report.notes.extend(choice.notes)
    return list(choice.levels)


def _summary(results: Results, extra: dict[str, pd.DataFrame], statistic: str, settings: StatisticsSettings) -> str:
    summary = summary_text(results, statistic)
    if "domain_correlations.csv" in extra:
        summary += "\n" + "\n".join(domain_summary(extra["domain_correlations.csv"], statistic))
    if "human_ceiling.csv" in extra:
        summary += "\n" + "\n".join(ceiling_summary(extra["human_ceiling.csv"], statistic))
    if "system_ranking.csv" in extra and len(extra["system_ranking.csv"]):
        summary += "\n" + "\n".join(_ranking_summary(extra, settings, len(results.seg_ids)))
    if "category_correlations.csv" in extra:
        from korean_eval.lens.span_detection import tracking_sentences

        summary += "\nWhich MQM error categories each configuration tracks (descriptive):\n" + "\n".join(
            tracking_sentences(extra["category_correlations.csv"]))
    return summary


def _ranking_summary(extra: dict[str, pd.DataFrame], settings: StatisticsSettings, n_items: int) -> list[str]:
    """Each configuration's order of the systems with its significance clusters, the tests behind them, and how
    many system pairs the configurations order differently."""
    from korean_eval.metaeval.tables.ranking_text import ranking_lines

    described = RankingSettings(resamples=settings.resamples, ar_trials=settings.ar_trials, seed=settings.seed)
    splits = extra["order_splits.csv"]
    split = splits[(splits["prefer_a"] > 0) & (splits["prefer_b"] > 0)]
    lines = ["System rankings per level/metric, best first ('>' a significant step, ',' a tie): "
             + described.describe(n_items), *ranking_lines(extra["system_ranking.csv"])]
    lines.append(f"{len(split)} of {len(splits)} system pair(s) are ordered one way by some configurations and the "
                 "other way by others (order_splits.csv)" if len(splits) else "")
    return lines + [""]


def _expand_overrides(overrides: dict, levels: Sequence[str]) -> dict:
    """``overrides`` (changed in place) with the ``*`` level's options set at every level of ``levels``; where a
    level names the same option itself, the ``*`` value wins."""
    if "*" not in overrides:
        return overrides
    star = overrides.pop("*")
    for level in levels:
        for metric, opts in star.items():
            overrides.setdefault(level, {}).setdefault(metric, {}).update(opts)
    return overrides


def levels_command(args: argparse.Namespace) -> int:
    print(pd.DataFrame(level_table()).drop(columns=["description"]).to_string(index=False))
    return 0


def compile_command(args: argparse.Namespace) -> int:
    """Compile every numba kernel into the kernel cache now (:mod:`korean_eval.engine.kernel_warmup`), and store the
    bundled sample's result for the dashboard's first screen (:mod:`korean_eval.cli.sample_result`)."""
    if args.cache_dir:
        use_cache_dir(args.cache_dir)
    from korean_eval.engine.kernel_warmup import compile_kernels

    done = compile_kernels(None if args.quiet else ProgressBar())
    print(f"kernels compiled (or loaded from the cache) in {done.seconds:.0f} s: {done.functions} functions in "
          f"{done.directory}")
    from korean_eval.cli.sample_result import store_sample_result

    seconds = store_sample_result(progress=None if args.quiet else ProgressBar())
    print(f"the bundled sample's result for the dashboard's first screen stored in the cache ({seconds:.0f} s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="korean-eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {korean_eval.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="score, meta-evaluate and write the tables")
    add_input_options(run)
    given = run.add_argument_group("bring-your-own metric scores")
    given.add_argument("--scores", metavar="FILE", help="system, seg_id, one column per metric (level 'given')")
    given.add_argument(
        "--lower-is-better",
        metavar="NAMES",
        help="comma-separated --scores/--mtme metric scores where lower is better (e.g. MetricX); the others: "
        "higher is better (with --mtme, replaces the choice read from the scores)",
    )
    given.add_argument("--scores-cols", metavar="MAP", help="column mapping for --scores (system=…,seg_id=…)")
    add_mtme_options(run)
    cfg = run.add_argument_group("levels and metrics")
    cfg.add_argument("--levels", help=f"comma-separated token levels (default: {','.join(LEVELS)}; all: the study's "
                     "grid, every level but khaiii; a level of either that cannot run here is left out with a note)")
    cfg.add_argument("--metrics", help=f"comma-separated metrics (default: {','.join(SACREBLEU_METRIC_NAMES)}); all: {','.join(metric_names())}")
    cfg.add_argument("--override", action="append", metavar="LEVEL:METRIC:OPTION=N", help="per-level option, e.g. char:bleu:max_ngram_order=6 (LEVEL * = all)")
    cfg.add_argument("--ter-cap", action="store_true", help="cap segment TER at 100 before correlating")
    cfg.add_argument("--ter-impl", choices=("fast", "sacrebleu"), default="fast", help="TER statistics implementation (identical results)")
    cfg.add_argument("--spm-vocab", type=int, default=4000, help="SentencePiece vocabulary size (upper bound)")
    cfg.add_argument("--spm-model", metavar="FILE", help="use this SentencePiece .model instead of training one")
    cfg.add_argument("--statistic", choices=STATISTICS, default="pearson", help="statistic of the summary and significance tests")
    st = run.add_argument_group("statistics")
    st.add_argument("--bootstrap", type=int, default=RESAMPLES, metavar="N", help="bootstrap/permutation resamples (0 = no CIs or tests)")
    st.add_argument("--seed", type=int, default=SEED, help="seed of every resampling")
    st.add_argument("--ar-trials", type=int, default=AR_TRIALS, metavar="N",
                    help="approximate randomization trials of the system-pair tests (sacrebleu's --paired-ar; "
                    "0 = paired bootstrap only)")
    st.add_argument("--replace-nans-with-zeros", action="store_true",
                    help="grouped segment-level correlations count undefined groups (e.g. an item every system scored "
                    "the same) as 0 instead of leaving them out (mt-metrics-eval's option)")
    st.add_argument("--spa-permutations", type=int, default=RESAMPLES, metavar="N",
                    help="permutations of the soft pairwise accuracy's tests (0 = no SPA)")
    perf = run.add_argument_group("performance")
    perf.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    perf.add_argument("--scheduler", metavar="ADDRESS",
                      help="run the worker tasks on the Dask cluster of this scheduler (e.g. tcp://10.0.0.5:8786) "
                      "instead of local processes; identical numbers")
    perf.add_argument("--cache-dir", metavar="DIR", help=f"cache directory (default: ${ENV_VAR} or the user cache dir)")
    perf.add_argument("--no-cache", action="store_true", help="bypass the persistent cache")
    run.add_argument("--out", metavar="DIR", help="write the tables into this directory")
    add_export_options(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=run_command)
    register_qc_command(sub)
    register_profile_command(sub)
    register_list_command(sub)
    lv = sub.add_parser("levels", help="list token levels, their versions and availability")
    lv.set_defaults(func=levels_command)
    register_app_command(sub)
    register_annotate_command(sub)
    comp = sub.add_parser("compile", help="compile the numba kernels into the kernel cache now (else the first "
                          "evaluation does, ~50 s of CPU) and store the bundled sample's result, so that the "
                          "dashboard's first screen needs no evaluation")
    comp.add_argument("--cache-dir", metavar="DIR", help=f"cache directory whose numba/ gets the kernels and which "
                      f"stores the sample's result (default: $NUMBA_CACHE_DIR for the kernels, else ${ENV_VAR}/numba "
                      "or the user cache dir's)")
    comp.add_argument("--quiet", action="store_true", help="no progress bar")
    comp.set_defaults(func=compile_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (ValueError, RuntimeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
