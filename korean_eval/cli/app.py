"""``korean-eval app [STREAMLIT OPTIONS…]``: serve the dashboard with ``streamlit run``.

The dashboard is ``app.py`` with ``launcher.py``, ``pages/``, ``ui/`` and ``.streamlit/config.toml`` beside it: at the top of a
checkout, or the package ``korean_eval_app`` of an installed copy (pyproject.toml). Streamlit puts the script's
folder on ``sys.path`` (so ``import ui`` works) and reads the script folder's ``.streamlit/config.toml``, so the
dashboard runs the same from either place. Every argument after ``app`` goes to ``streamlit run``, e.g.
``korean-eval app --server.port 8600 --server.headless true``, which runs in-process with the dashboard's first
screen prepared while the server starts (the dashboard's ``launcher.py``). On POSIX the command *becomes* the
Streamlit server (``os.execv``): Ctrl+C and SIGTERM reach the server itself, which stops its worker processes
(docs/design.md §7).

The limits of a server shared by several users (:mod:`korean_eval.engine.limits`) are options of ``app`` too:
``--max-running N``, ``--max-large-running N``, ``--max-waiting N``, ``--session-running N``,
``--max-pair-levels N``, ``--pool-idle-seconds S|never``, ``--result-idle-seconds S``,
``--analyzers-in-workers 1|0``, ``--analyzer-processes N|any`` set the environment variables of the same names for the server, and
``--max-upload-mb N`` is Streamlit's ``--server.maxUploadSize N`` (docs/deployment.md, "Several users").
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
    """``python <dashboard>/launcher.py <dashboard>/app.py ARGS…`` with this interpreter: ``streamlit run`` with
    the first screen prepared while the server starts (the dashboard's ``launcher.py``)."""
    dashboard = dashboard_dir()
    return [sys.executable, str(dashboard / "launcher.py"), str(dashboard / "app.py"), *streamlit_args]


#: ``app``'s own options: option → the environment variable it sets (:data:`korean_eval.engine.limits.ENV_NAMES`).
LIMIT_OPTIONS = {
    "--max-running": "max_running",
    "--max-large-running": "max_large_running",
    "--max-waiting": "max_waiting",
    "--session-running": "session_running",
    "--max-pair-levels": "max_pair_levels",
    "--pool-idle-seconds": "pool_idle_seconds",
    "--result-idle-seconds": "result_idle_seconds",
    "--analyzers-in-workers": "analyzers_in_workers",
    "--analyzer-processes": "analyzer_processes",
}
UPLOAD_OPTION = "--max-upload-mb"  # Streamlit's server.maxUploadSize (MB per file)


def split_limit_options(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """(environment variables set by ``app``'s limit options, the other arguments for ``streamlit run``, with
    ``--max-upload-mb N`` as ``--server.maxUploadSize N``). Each option takes one value (``--opt V`` or
    ``--opt=V``); a value that is not a valid setting raises ``ValueError`` naming its variable."""
    from korean_eval.engine.limits import ENV_NAMES, ServiceLimits

    env: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        name, has_value, value = args[i].partition("=")
        if name in LIMIT_OPTIONS or name == UPLOAD_OPTION:
            if not has_value:
                if i + 1 >= len(args):
                    raise ValueError(f"{name} needs a value")
                value = args[i + 1]
                i += 1
            if name == UPLOAD_OPTION:
                rest += ["--server.maxUploadSize", value]
            else:
                env[ENV_NAMES[LIMIT_OPTIONS[name]]] = value
        else:
            rest.append(args[i])
        i += 1
    ServiceLimits.from_env({**os.environ, **env})  # refuses a bad value now, naming its variable
    return env, rest


def limits_help() -> str:
    """The limit options of ``app``, one per line, with their variables and defaults."""
    from korean_eval.engine.limits import ENV_NAMES, ServiceLimits

    defaults = ServiceLimits().as_env()
    lines = ["korean-eval app: limits of a server shared by several users (docs/deployment.md):"]
    for option, field in LIMIT_OPTIONS.items():
        lines.append(f"  {option:<24} ${ENV_NAMES[field]} (default {defaults[ENV_NAMES[field]]})")
    lines.append(f"  {UPLOAD_OPTION:<24} Streamlit's --server.maxUploadSize, MB per uploaded file")
    lines.append("Every other option goes to `streamlit run`:")
    return "\n".join(lines)


def app_command(args: argparse.Namespace) -> int:
    try:
        env, streamlit_args = split_limit_options(list(args.streamlit_args))
    except ValueError as err:
        print(f"korean-eval app: {err}", file=sys.stderr)
        return 2
    if {"-h", "--help"} & set(streamlit_args):
        print(limits_help())
    os.environ.update(env)
    command = streamlit_command(streamlit_args)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(command[0], command)  # never returns
    return subprocess.call(command)


def register_app_command(sub: argparse._SubParsersAction) -> None:
    # no options of its own ("+" marks none of them): every argument, --help too, goes to `streamlit run`
    app = sub.add_parser(
        "app",
        help="serve the dashboard (streamlit run): the limits of a shared server (--max-running N, --max-pair-levels N, "
             "--pool-idle-seconds S, --max-upload-mb N …; `korean-eval app --help` lists them), every other argument "
             "goes to Streamlit, e.g. --server.port 8600",
        prefix_chars="+",
        add_help=False,
    )
    app.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="options of `streamlit run`")
    app.set_defaults(func=app_command)
