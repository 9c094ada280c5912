"""The ``annotate`` subcommand: collecting ESA judgments (:mod:`korean_eval.annotation`; docs/design.md §4).

    python -m korean_eval annotate create --ref FILE (--sys NAME=FILE … | --sys-dir DIR) [--src FILE] --db URL
        --annotators N [--protocol esa|contrastive] [--items all|N] [--double 0.1] [--attention 0.05]
        [--seed 12345] [--name NAME]
    python -m korean_eval annotate status --db URL [--admin-token T]

``create`` plans a campaign (:func:`korean_eval.annotation.campaign.plan_campaign`) from the texts, stores it in the
database (a SQLite file path or ``sqlite:///PATH``, or ``postgresql://USER@HOST/DB``) and prints the admin token and
each annotator's token once: the database keeps only their hashes. ``status`` prints each annotator's progress and
the attention checks' outcomes; the admin token comes from ``--admin-token`` or ``$KOREAN_EVAL_ADMIN_TOKEN`` (which
keeps it out of the shell's history). Bad input prints one ``error: …`` line naming the file or option, status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from korean_eval.annotation.access import AccessDenied, admin_session
from korean_eval.annotation.campaign import PROTOCOLS, CampaignSettings, plan_campaign
from korean_eval.annotation.storage import CampaignStore
from korean_eval.cli.checks import check_regular_file, sys_dir_files, system_spec_path
from korean_eval.inputs.text_files import read_input_file, system_identifier
from korean_eval.model.defaults import SEED
from korean_eval.model.evalset import EvalSet, InputError, evalset_from_texts

TOKEN_VAR = "KOREAN_EVAL_ADMIN_TOKEN"


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1 (e.g. 0.1), got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1 (e.g. 0.1), got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {text!r}")
    return value


def _items(text: str) -> int | str:
    return "all" if text == "all" else _positive(text)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value <= 2**32 - 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 2**32-1, got {text!r}")
    return value


def register_annotate_command(sub: argparse._SubParsersAction) -> None:
    """Add ``annotate create`` and ``annotate status`` to the command line."""
    annotate = sub.add_parser("annotate", help="collect ESA judgments: create a campaign, see its progress")
    commands = annotate.add_subparsers(dest="annotate_command", required=True)
    create = commands.add_parser("create", help="plan and store a campaign; print its tokens once")
    texts = create.add_argument_group("texts")
    texts.add_argument("--ref", action="append", metavar="FILE", required=True,
                       help="reference file (the first is stored with the items; shown when there is no --src)")
    texts.add_argument("--sys", action="append", metavar="NAME=FILE", help="system output file (repeatable)")
    texts.add_argument("--sys-dir", metavar="DIR", help="directory of system files (*.txt, name = file stem)")
    texts.add_argument("--src", metavar="FILE", help="source file, line-aligned (shown to the annotators)")
    plan = create.add_argument_group("campaign")
    plan.add_argument("--db", required=True, metavar="URL", help="SQLite file (path or sqlite:///PATH) or "
                      "postgresql://USER@HOST/DB")
    plan.add_argument("--annotators", type=_positive, required=True, metavar="N", help="number of annotators")
    plan.add_argument("--protocol", choices=PROTOCOLS, default="esa",
                      help="esa: one translation at a time (WMT24/25); contrastive: every system's translation of "
                      "a source side by side (WMT26)")
    plan.add_argument("--items", type=_items, default="all", metavar="all|N",
                      help="all, or N items (ESA: translations; contrastive: sources) over whole documents, the "
                      "same segments for every system")
    plan.add_argument("--double", type=_share, default=0.10, metavar="SHARE",
                      help="share of items annotated by two annotators, for agreement (default 0.1)")
    plan.add_argument("--attention", type=_share, default=0.05, metavar="SHARE",
                      help="share of each annotator's items repeated with a damaged translation (default 0.05)")
    plan.add_argument("--seed", type=_seed, default=SEED, help="seed of the selection, assignment and order")
    plan.add_argument("--name", default="campaign", help="the campaign's name")
    create.set_defaults(func=create_command)
    status = commands.add_parser("status", help="each annotator's progress and the attention checks")
    status.add_argument("--db", required=True, metavar="URL", help="the campaign's database")
    status.add_argument("--admin-token", metavar="T", help=f"the campaign's admin token (default: ${TOKEN_VAR})")
    status.set_defaults(func=status_command)


def _evalset(args: argparse.Namespace) -> EvalSet:
    """The texts named by ``--ref``, ``--sys``/``--sys-dir`` and ``--src`` (InputError naming the file or option)."""
    if not (args.sys or args.sys_dir):
        raise InputError("--sys", "give the systems' translations with --sys NAME=FILE or --sys-dir DIR")
    for path, option in [*((r, "--ref") for r in args.ref), *(((args.src, "--src"),) if args.src else ())]:
        check_regular_file(path, option)
    refs = [read_input_file(r, "reference") for r in args.ref]
    systems, names = [], []
    for spec in args.sys or []:
        name, sep, _ = spec.partition("=")
        if sep:
            system_identifier(name, "--sys")
        systems.append(read_input_file(system_spec_path(spec), "system"))
        names.append(name if sep else Path(spec).stem)
    if args.sys_dir:
        files, skipped = sys_dir_files(args.sys_dir)
        if skipped:
            print(f"note: {skipped}", file=sys.stderr)
        if not files:
            raise InputError(args.sys_dir, "no *.txt system files in this directory")
        for path in files:
            systems.append(read_input_file(path, "system"))
            names.append(path.stem)
    src = read_input_file(args.src, "source") if args.src else None
    return evalset_from_texts(refs, systems, names, src=src)


def _open(db: str) -> CampaignStore:
    try:
        return CampaignStore(db)
    except ValueError as err:
        raise InputError("--db", str(err)) from None
    except SQLAlchemyError as err:
        raise InputError("--db", f"cannot open the database: {_first_line(err)}") from None


def _first_line(err: Exception) -> str:
    text = str(getattr(err, "orig", None) or err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def create_command(args: argparse.Namespace) -> int:
    evalset = _evalset(args)
    settings = CampaignSettings(protocol=args.protocol, items=args.items, annotators=args.annotators,
                                double=args.double, attention=args.attention, seed=args.seed)
    plan = plan_campaign(evalset, settings)
    store = _open(args.db)
    try:
        created = store.create(plan, args.name)
    except SQLAlchemyError as err:
        raise InputError("--db", f"cannot store the campaign: {_first_line(err)}") from None
    finally:
        store.close()
    regular = sum(1 for i in plan.items.values() if i.annotator is None)
    print(f"campaign {created.campaign_id} ({args.name!r}, {args.protocol}) stored in {args.db}: {regular} items, "
          f"{len(plan.units)} translations to judge, {args.annotators} annotator(s)")
    for note in plan.notes:
        print(f"note: {note}")
    print("Tokens (shown once; the database keeps only their SHA-256 hashes):")
    print(f"admin\t{created.admin_token}")
    for number, (token, queue) in enumerate(zip(created.annotator_tokens, plan.queues, strict=True), start=1):
        print(f"annotator {number}\t{token}\t({len(queue)} items)")
    return 0


def status_command(args: argparse.Namespace) -> int:
    token = args.admin_token or os.environ.get(TOKEN_VAR, "")
    if not token:
        raise InputError("--admin-token", f"give the campaign's admin token (or set ${TOKEN_VAR})")
    store = _open(args.db)
    try:
        admin = admin_session(store, token)
        info, status, checks = admin.campaign(), admin.status(), admin.attention()
    except AccessDenied as err:
        raise InputError("--admin-token", str(err)) from None
    except SQLAlchemyError as err:
        raise InputError("--db", f"cannot read the database: {_first_line(err)}") from None
    finally:
        store.close()
    print(f"campaign {admin.campaign_id} ({info['name']!r}, {info['protocol']}): "
          f"{int(status['done'].sum())} of {int(status['items'].sum())} items judged")
    print(status.to_string(index=False))
    judged = checks[checks["passed"].notna()]
    if len(checks):
        print(f"attention checks: {len(checks)} judged, {int(judged['passed'].sum())} of {len(judged)} with the "
              "damaged translation scored clearly below its original")
        per = judged.groupby("annotator")["passed"].agg(["size", "sum"]).rename(columns={"size": "checks",
                                                                                          "sum": "passed"})
        if len(per):
            print(per.reset_index().to_string(index=False))
    return 0
