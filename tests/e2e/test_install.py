"""The package as a user installs it: ``pip install .`` into a fresh virtualenv gives a working ``korean-eval``.

Fast checks: pyproject.toml's dependency ranges admit requirements.txt's pins (and name the same packages), every
package of the source tree is listed, and ``korean-eval app`` hands its arguments to ``streamlit run`` on the
dashboard.

The slow test copies the checkout into ``tmp_path`` (the build writes ``build/`` and ``*.egg-info`` next to its
sources), creates a virtualenv there without system site-packages, and ``pip install --no-deps`` the copy into it
(pip builds it in an isolated build environment with setuptools from the package index, as any user's pip does).
The virtualenv is made without a pip of its own (``--without-pip``): the running environment's pip installs into
it (``pip --python <venv>/bin/python``, which runs that pip under the virtualenv's interpreter), since copying a
pip into every new virtualenv (``ensurepip``) cost 3.5 s of CPU and proves nothing about korean-eval. The
dependencies are not downloaded again: a ``.pth`` file makes the pinned packages of the running environment
importable, and the test checks that they satisfy the installed package's requirements. That the entry point, the
package and its metadata are the new virtualenv's, not the checkout's, is checked before anything runs; then
``korean-eval run`` scores the bundled sample (shipped inside the package) and must write the same system scores as
the checkout (its ``cli.main``, called in the test's process), and ``korean-eval app`` serves the installed dashboard
until ``/_stcore/health`` answers ``ok`` and its first page runs without an exception. ``--version`` is checked in
this process (the installed version is the distribution's metadata and ``run.json``'s, both checked in the
virtualenv).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import korean_eval
from korean_eval.cli.app import dashboard_dir, streamlit_command
from korean_eval.cli.main import build_parser, main
from tests.support.app_server import Session, free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
                                     "build", "*.egg-info", "out", "tmp", "artifacts", "results")
RUN_ARGS = ["--levels", "word,char", "--metrics", "bleu,chrf", "--bootstrap", "0", "--spa-permutations", "0", "--quiet"]


def _pins(name: str) -> dict[str, str]:
    """``name``'s ``package==version`` lines (``-r`` lines and comments skipped), by canonical name (extras such as
    ``psycopg[binary]`` left out of the name)."""
    pins = {}
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            package, version = line.split("==")
            pins[canonicalize_name(Requirement(package).name)] = version
    return pins


def _ranges(requirements: list[str]) -> dict[str, Requirement]:
    found = {canonicalize_name(Requirement(r).name): Requirement(r) for r in requirements}
    return {name: req for name, req in found.items() if name != "korean-eval"}  # dev = korean-eval[test] + ruff


@pytest.mark.parametrize(
    ("requirements_file", "ranges"),
    [
        ("requirements.txt", PYPROJECT["project"]["dependencies"]),
        ("requirements-test.txt", [r for extra in PYPROJECT["project"]["optional-dependencies"].values() for r in extra]),
    ],
)
def test_dependency_ranges_admit_the_pins(requirements_file, ranges) -> None:
    pins, declared = _pins(requirements_file), _ranges(ranges)
    assert set(pins) == set(declared)
    outside = {name: f"{pins[name]} not in {req.specifier}" for name, req in declared.items()
               if not req.specifier.contains(pins[name])}
    assert outside == {}


def test_every_package_of_the_tree_is_listed() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    tree = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "korean_eval").rglob("__init__.py")}
    assert tree <= listed
    assert {"korean_eval_app", "korean_eval_app.ui", "korean_eval_app.pages", "korean_eval.sample_data"} <= listed
    assert PYPROJECT["project"]["scripts"] == {"korean-eval": "korean_eval.cli.main:main"}


def test_app_hands_every_argument_to_streamlit_run() -> None:
    args = build_parser().parse_args(["app", "--server.port", "8600", "--help"])
    assert args.streamlit_args == ["--server.port", "8600", "--help"]
    assert dashboard_dir() == ROOT  # a checkout: the dashboard at its top
    assert streamlit_command(["--server.port", "8600"]) == [
        sys.executable, str(ROOT / "launcher.py"), str(ROOT / "app.py"), "--server.port", "8600"
    ]  # `streamlit run` in-process, the first screen prepared meanwhile (launcher.py)


def test_version_option_prints_the_package_version(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"korean-eval {korean_eval.__version__}"


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _make_venv(tmp_path: Path) -> Path:
    """A fresh virtualenv (no system site-packages) that sees the running environment's pinned packages through a
    ``.pth`` file; nothing of korean-eval is importable from there."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for site in ours:
        assert not (Path(site) / "korean_eval").exists() and not (Path(site) / "korean_eval_app").exists()
    purelib = subprocess.run([_venv_python(venv), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "_pinned_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    return venv


def _clean_env(home: Path) -> dict[str, str]:
    """The tests' environment without any path to the checkout, HOME an empty folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "HOME": str(home)}


def _installed_facts(venv: Path, env: dict[str, str], cwd: Path) -> dict:
    script = (
        "import json, importlib.metadata as md, korean_eval\n"
        "from packaging.requirements import Requirement\n"
        "dist = md.distribution('korean-eval')\n"
        "reqs = [Requirement(r) for r in dist.requires if 'extra ==' not in r]\n"
        "unmet = [str(r) for r in reqs if not r.specifier.contains(md.version(r.name))]\n"
        "print(json.dumps({'module': korean_eval.__file__, 'version': dist.version, 'unmet': unmet,\n"
        "  'metadata': str(dist.locate_file('korean_eval')), 'n_requires': len(reqs)}))\n"
    )
    result = subprocess.run([_venv_python(venv), "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def _first_page_starts(port: int, seconds: float = 240) -> str:
    """Run the first page from a browser-less session until it shows progress (the evaluation began: the app, its
    pages and ``ui`` imported) or finished. Returns ``"progress"`` or ``"finished"``; fails on an exception
    element."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    class _Server:  # what Session needs of a server
        pass

    server = _Server()
    server.port = port
    with Session(server) as session:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            msg = ForwardMsg()
            msg.ParseFromString(session.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            kind = msg.WhichOneof("type")
            if kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return "finished"
            if kind == "delta":
                element = msg.delta.new_element
                assert element.WhichOneof("type") != "exception", element.exception.message
                if element.WhichOneof("type") == "progress":
                    return "progress"
    raise AssertionError(f"the first page neither progressed nor finished within {seconds} s")


@pytest.mark.slow
def test_pip_install_into_a_fresh_virtualenv_gives_a_working_korean_eval(tmp_path) -> None:
    source = tmp_path / "checkout"
    shutil.copytree(ROOT, source, ignore=COPY_IGNORE)
    venv = _make_venv(tmp_path)
    (tmp_path / "home-pip").mkdir()
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(_venv_python(venv)), "install", "--no-deps",
                              "--no-input", str(source)],
                             cwd=tmp_path, env=_clean_env(tmp_path / "home-pip"), capture_output=True, text=True,
                             timeout=900)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-3000:]
    home = tmp_path / "home"  # what korean-eval writes into HOME: nothing (pip's build may, e.g. rustup's settings)
    home.mkdir()
    env = _clean_env(home)

    site = _installed_facts(venv, env, tmp_path)
    assert site["module"].startswith(str(venv)) and site["metadata"].startswith(str(venv)), site
    assert site["version"] == korean_eval.__version__ and site["unmet"] == [] and site["n_requires"] >= 20, site
    script = venv / "bin" / "korean-eval"
    assert script.read_text().splitlines()[0] == f"#!{_venv_python(venv)}"

    installed = subprocess.run([script, "run", *RUN_ARGS, "--out", str(tmp_path / "installed")], cwd=tmp_path,
                               env=env, capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert main(["run", *RUN_ARGS, "--out", str(tmp_path / "checkout-out")]) == 0  # the checkout, in this process
    scores = (tmp_path / "installed" / "system_scores.csv").read_text()
    assert scores == (tmp_path / "checkout-out" / "system_scores.csv").read_text() and "sys_strong" in scores
    run_json = json.loads((tmp_path / "installed" / "run.json").read_text())
    assert run_json["korean_eval_version"] == korean_eval.__version__ and "SIMULATED" in run_json["human_scores_note"]

    _serve_the_installed_dashboard(script, venv, env, tmp_path)
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []


def _serve_the_installed_dashboard(script: Path, venv: Path, env: dict[str, str], tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "app.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([script, "app", "--server.port", str(port), "--server.headless", "true"], cwd=tmp_path,
                                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, 120, log.read_text)
        command = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0") if sys.platform.startswith("linux") else []
        if command:  # `korean-eval app` became the server itself (os.execv), on the installed dashboard
            app_py = next(Path(c.decode()) for c in command if c.endswith(b"app.py"))
            assert app_py.parent.name == "korean_eval_app" and str(app_py).startswith(str(venv))
        assert _first_page_starts(port) in ("progress", "finished")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) is not None
        assert "Traceback" not in log.read_text(errors="replace"), log.read_text()[-3000:]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
