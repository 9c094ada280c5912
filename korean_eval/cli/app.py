"""``korean-eval app [STREAMLIT OPTIONS…]``: serve the dashboard with ``streamlit run``.

The dashboard is ``app.py`` with ``pages/``, ``ui/`` and ``.streamlit/config.toml`` beside it: at the top of a
checkout, or the package ``korean_eval_app`` of an installed copy (pyproject.toml). Streamlit puts the script's
folder on ``sys.path`` (so ``import ui`` works) and reads the script folder's ``.streamlit/config.toml``, so the
dashboard runs the same from either place. Every argument after ``app`` goes to ``streamlit run``, e.g.
``korean-eval app --server.port 8600 --server.headless true``, which runs in-process with the dashboard's first
screen prepared while the server starts (:mod:`korean_eval.cli.serve`). On POSIX the command *becomes* the
Streamlit server (``os.execv``): Ctrl+C and SIGTERM reach the server itself, which stops its worker processes
(docs/design.md §7).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def dashboard_dir() -> Path:
    """The folder holding the dashboard's ``app.py``, beside the imported :mod:`korean_eval` package: the installed
    ``korean_eval_app`` package, or the checkout's top folder. Raises RuntimeError when neither has it."""
    root = Path(__file__).resolve().parents[2]
    for candidate in (root / "korean_eval_app", root):
        if (candidate / "app.py").is_file() and (candidate / "ui").is_dir() and (candidate / "pages").is_dir():
            return candidate
    raise RuntimeError(f"the dashboard (app.py with ui/ and pages/) is neither in {root / 'korean_eval_app'} nor in {root}")


def streamlit_command(streamlit_args: list[str]) -> list[str]:
    """``python -m korean_eval.cli.serve <dashboard>/app.py ARGS…`` with this interpreter: ``streamlit run`` with the
    first screen prepared while the server starts (:mod:`korean_eval.cli.serve`)."""
    return [sys.executable, "-m", "korean_eval.cli.serve", str(dashboard_dir() / "app.py"), *streamlit_args]


def app_command(args: argparse.Namespace) -> int:
    command = streamlit_command(list(args.streamlit_args))
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(command[0], command)  # never returns
    return subprocess.call(command)


def register_app_command(sub: argparse._SubParsersAction) -> None:
    # no options of its own ("+" marks none of them): every argument, --help too, goes to `streamlit run`
    app = sub.add_parser(
        "app",
        help="serve the dashboard (streamlit run); every further argument goes to Streamlit, e.g. --server.port 8600",
        prefix_chars="+",
        add_help=False,
    )
    app.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="options of `streamlit run`")
    app.set_defaults(func=app_command)
