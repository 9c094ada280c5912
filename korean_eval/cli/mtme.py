"""Command-line options for a folder in mt-metrics-eval's layout, and the ``mtme-list`` subcommand (docs/design.md §4).

``run`` options (:func:`add_mtme_options`)::

    --mtme DIR|ZIP --lp en-ko [--mtme-set wmt24] [--mtme-ref refA[,refB]] [--mtme-human mqm|FILE|NAME,NAME]
        [--human-direction auto|higher|lower] [--mtme-refs-as-systems] [--mtme-metrics NAME-REF,... |
        --no-mtme-metrics] [--mqm-weights SPEC]

load one language pair (:func:`korean_eval.inputs.mtme.load.load_mtme`); their conflicts with the other inputs are
checked in :mod:`korean_eval.cli.checks`. ``python -m korean_eval mtme-list DIR|ZIP`` prints what a folder holds
(:func:`korean_eval.inputs.mtme.layout.describe`). With documents, ``run`` also writes the per-domain tables
(:func:`korean_eval.exports.csv_zip.domain_tables`; their summary: :func:`domain_summary`).
"""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from korean_eval.inputs.mtme.files import open_tree
from korean_eval.inputs.mtme.layout import describe, scan
from korean_eval.inputs.mtme.load import ALL_METRICS, HUMAN_DIRECTIONS, MtmeLoaded, MtmeOptions, load_mtme
from korean_eval.inputs.spans.weights import DEFAULT_WEIGHTS


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(t.strip() for t in (text or "").split(",") if t.strip())


def add_mtme_options(run: argparse.ArgumentParser) -> None:
    """The ``run`` options of an mt-metrics-eval folder; every destination is None unless given (so that
    :mod:`korean_eval.cli.checks` can refuse them without ``--mtme``)."""
    g = run.add_argument_group("mt-metrics-eval folder (instead of --ref/--sys/--table)")
    g.add_argument("--mtme", metavar="DIR|ZIP", help="a test-set folder in mt-metrics-eval's layout (or a folder or "
                   ".zip holding several): sources/, references/, system-outputs/, human-scores/, metric-scores/")
    g.add_argument("--lp", metavar="SRC-TGT", help="language pair as the folder names it, e.g. en-ko, ja-zh or WMT25's en-ko_KR "
                   "(en-ko also finds the only en-ko_XX); needed when the folder has several")
    g.add_argument("--mtme-set", metavar="NAME", help="test set, e.g. wmt24 (needed when several hold the pair)")
    g.add_argument("--mtme-ref", metavar="NAME[,NAME]", help="reference(s) to score against (default: the first "
                   "name in sorted order; several = multi-reference)")
    g.add_argument("--mtme-human", metavar="NAME|FILE[,…]", help="human scores: a name such as mqm or esa, or its "
                   "SRC-TGT.NAME.seg.score or .seg.rating file; several names = rater groups (e.g. "
                   "esa-human1,esa-human2): merged per item, their agreement is the human ceiling; a method whose "
                   "scores are rater groups (mqm for mqm.rater1, mqm.rater2): all of them. Default: the first method "
                   "in sorted order, with all its rater groups")
    g.add_argument("--mtme-refs-as-systems", action="store_true", default=None, help="evaluate the other references copied into "
                   "system-outputs/ as systems (mt-metrics-eval's human systems; default: left out)")
    g.add_argument("--mtme-metrics", nargs="?", const="*", metavar="NAME-REF,...", help="which of the folder's "
                   "segment-level metric scores (e.g. COMET, MetricX) to meta-evaluate next to ours, as your own "
                   "metrics (default: every one computed with the references scored against)")
    g.add_argument("--no-mtme-metrics", action="store_true", default=None, help="leave the folder's metric scores out")


def add_human_direction_option(group: Any) -> None:
    """``--human-direction``, for every human-score input."""
    group.add_argument("--human-direction", choices=HUMAN_DIRECTIONS, default=None,
                       help="lower = the human scores are error penalties (e.g. MQM counts): negated so that higher "
                       "is better; auto (default): higher, except an mt-metrics-eval MQM file of scores ≥ 0")


def add_mqm_weights_option(group: Any) -> None:
    """``--mqm-weights``, for ``--ratings`` and rating files of ``--mtme``."""
    group.add_argument("--mqm-weights", metavar="SPEC", default=None,
                       help=f"MQM weights, severity[/category]:weight and cap:N (default, Freitag et al. 2021: "
                       f"{DEFAULT_WEIGHTS!r}); written into the human scores' note")


def mtme_options(args: argparse.Namespace) -> MtmeOptions:
    """The loader's options from the parsed ``run`` arguments (``--mtme-human a,b``: rater groups)."""
    metrics = () if args.no_mtme_metrics else _names(args.mtme_metrics) if args.mtme_metrics not in (None, "*") else ALL_METRICS
    humans = _names(args.mtme_human)
    return MtmeOptions(
        lp=args.lp,
        test_set=args.mtme_set,
        references=_names(args.mtme_ref),
        human=humans[0] if len(humans) == 1 else None,
        human_direction=args.human_direction or "auto",
        refs_as_systems=bool(args.mtme_refs_as_systems),
        metrics=metrics,
        human_groups=humans if len(humans) > 1 else (),
        mqm_weights=getattr(args, "mqm_weights", None),
    )


def load_from_args(args: argparse.Namespace) -> MtmeLoaded:
    """Load the language pair named on the command line (InputError naming file and line for bad input), with a
    note in the validation report on the folder's metric scores: which are meta-evaluated and how to choose."""
    loaded = load_mtme(open_tree(args.mtme), mtme_options(args))
    note = _metrics_note(loaded, args)
    if note:
        loaded.evalset.report.note(f"metric-scores/{loaded.pair.lp}", note)
    return loaded


def _metrics_note(loaded: MtmeLoaded, args: argparse.Namespace) -> str:
    """How the folder's metric scores were chosen and how to choose others ("" when the folder has none)."""
    available = loaded.pair.metric_names("seg")
    if not available:
        return ""
    if args.no_mtme_metrics:
        return (f"the folder's metric scores ({', '.join(available)}) are left out (--no-mtme-metrics); without it, "
                "every one computed with the references scored against is meta-evaluated next to ours")
    chosen = "as named" if args.mtme_metrics not in (None, "*") else "every one computed with the references scored against"
    return (f"meta-evaluated next to ours ({chosen}): {', '.join(loaded.metrics) or 'none'}; --mtme-metrics NAME,… "
            "chooses some, --no-mtme-metrics leaves them out")


def domain_summary(correlations: pd.DataFrame, statistic: str) -> list[str]:
    """The per-domain correlations of ``statistic`` (grouping none) as a plain text table."""
    rows = correlations[(correlations["statistic"] == statistic) & (correlations["grouping"] == "none")]
    if rows.empty:
        return []
    table = rows.pivot_table(index=["level", "metric"], columns=["domain", "granularity"], values="value", sort=False)
    return [f"{statistic.title()} correlation with humans within each domain:", table.round(3).to_string(), ""]


def list_command(args: argparse.Namespace) -> int:
    print(describe(scan(open_tree(args.folder))))
    return 0


def register_list_command(subparsers: Any) -> None:
    """``mtme-list DIR|ZIP``: what an mt-metrics-eval folder holds."""
    p = subparsers.add_parser("mtme-list", help="list the test sets, language pairs, references, systems and score "
                              "files of an mt-metrics-eval folder")
    p.add_argument("folder", metavar="DIR|ZIP")
    p.set_defaults(func=list_command)
