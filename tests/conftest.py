"""The tests keep every cache in a temporary directory of the test session, never in the user's home.

korean-eval's cache (``$KOREAN_EVAL_CACHE_DIR``, else platformdirs' ``~/.cache/korean-eval``) holds tokens,
statistics and stored results, and numba's compiled kernels go to ``$NUMBA_CACHE_DIR`` (else ``<cache>/numba``,
:func:`korean_eval.engine.cache.configure_numba_cache`). Both places are fixed when :mod:`korean_eval` is imported, which
test modules do when they are collected, so this file sets the environment when pytest loads it, before any test
module. One directory per session: pytest-xdist's workers inherit it from the controller, which loads this file
first; each worker gets a korean-eval cache of its own (no test sees another process's stored results), while the
compiled kernels are shared (numba writes its cache files atomically; each process would otherwise compile every
kernel again), and start as a copy of those scripts/setup compiled (``.venv/numba-kernels``, when it exists:
numba checks each entry against its source file, so a stale one is compiled again). ``XDG_CACHE_HOME``,
``MPLCONFIGDIR`` and the Hypothesis example database (otherwise ``.hypothesis/`` in the working directory) go
there too; subprocesses of the tests inherit the environment. The process that made
the directory removes it at the end. tests/test_no_home_writes.py checks that a pipeline run with these settings
leaves the home directory untouched.

Under pytest-xdist the tests are handed out a file at a time (``--dist loadfile --no-loadscope-reorder``,
pyproject.toml), so a module-scoped fixture (a large evaluation, an app server, a browser) is built by one worker
only; ``--dist loadgroup`` would group finer, but pytest-xdist 3.8 names a test's group by rewriting
``item._nodeid``, which pytest 9.2 no longer reads, so its groups are silently ignored. The hook at the end hands the
files with tests marked ``slow`` or ``browser`` out first, so the longest work does not start last and leave one
worker running it alone at the end. Without xdist it changes only the order. The files that analyse with KoNLPy in
the test process (:data:`KONLPY_FILES`) are handed out together, to one worker: its JVM and dictionaries are loaded
once (Okt, Komoran, Kkma and Hannanum: ≈ 10 CPU-s with the JVM options below) instead of in both workers; so are
the real-browser files (:data:`BROWSER_FILES`): one dashboard server and one Chromium serve them all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

ROOT_VAR = "KOREAN_EVAL_TEST_CACHE_ROOT"
_OWNER = ROOT_VAR not in os.environ  # this process made the directory (the xdist controller, or a plain run)
TEST_CACHE_ROOT = Path(os.environ.get(ROOT_VAR) or tempfile.mkdtemp(prefix="korean-eval-tests-"))
_PROCESS = os.environ.get("PYTEST_XDIST_WORKER", "main")

os.environ.update(
    {
        ROOT_VAR: str(TEST_CACHE_ROOT),
        "KOREAN_EVAL_CACHE_DIR": str(TEST_CACHE_ROOT / f"korean-eval-{_PROCESS}"),
        "NUMBA_CACHE_DIR": str(TEST_CACHE_ROOT / "numba"),
        "XDG_CACHE_HOME": str(TEST_CACHE_ROOT / "xdg-cache"),
        "MPLCONFIGDIR": str(TEST_CACHE_ROOT / "matplotlib"),
    }
)

# KoNLPy's JVM (started in-process by JPype, which reads JAVA_TOOL_OPTIONS) with the client compiler only and the
# serial collector: the tests' analyses are short, so the JVM's start and the analyzers' dictionary loading are
# most of their cost, and these halve its CPU (Okt, Komoran, Kkma and Hannanum loaded and run on 4 lines: 18.4 s of
# CPU with the JVM's defaults, 10.3 s with these). Compiler tier and collector change no result of the Java code.
# The JVM notes the setting on stderr ("Picked up JAVA_TOOL_OPTIONS"); a value set by the user is kept.
os.environ.setdefault("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

#: The repository's root (pytest's rootdir: test ids and the paths below are relative to it).
ROOT = Path(__file__).resolve().parent.parent

#: The numba kernels scripts/setup compiled (``korean-eval compile``): copied, so that no worker compiles them again.
KERNELS_FROM_SETUP = ROOT / ".venv" / "numba-kernels"
if _OWNER and KERNELS_FROM_SETUP.is_dir() and not (TEST_CACHE_ROOT / "numba").exists():
    shutil.copytree(KERNELS_FROM_SETUP, TEST_CACHE_ROOT / "numba")

settings.register_profile("korean-eval-tests", database=DirectoryBasedExampleDatabase(TEST_CACHE_ROOT / "hypothesis"))
settings.load_profile("korean-eval-tests")


def pytest_unconfigure(config) -> None:
    if _OWNER:
        shutil.rmtree(TEST_CACHE_ROOT, ignore_errors=True)



# ------------------------------------------------------------------ fixtures shared by several test modules


@pytest.fixture
def streamlit_navigation(monkeypatch):
    """AppTest re-arms Streamlit's legacy ``pages/``-folder mode before *every* run (it resets
    ``PagesManager.uses_pages_directory``); a real server leaves that mode for good at the first ``st.navigation``
    call. Keep it off, as on a running server, or widget values set by a test are dropped between runs. The AppTest
    modules use it for every test (``pytestmark = pytest.mark.usefixtures(...)``)."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    _scan_components_once(monkeypatch)


_COMPONENT_MANIFESTS: list = []  # [the scan's result] once a test of this process scanned


def _scan_components_once(monkeypatch) -> None:
    """Every ``AppTest`` run scans the metadata of every installed distribution for Streamlit components
    (``streamlit.components.v2.manifest_scanner.scan_component_manifests``, 20,416 metadata parses for 54 runs:
    0.32 s of CPU each), where a server does it once at start. The installed distributions do not change while the
    tests run, so each test process scans once and later runs get that result."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests

    def scan_once(*args, **kwargs):
        if not _COMPONENT_MANIFESTS:
            _COMPONENT_MANIFESTS.append(scan(*args, **kwargs))
        return list(_COMPONENT_MANIFESTS[0])

    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", scan_once)


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory):
    """A korean-eval cache directory of the module's own (``$KOREAN_EVAL_CACHE_DIR``) while its tests run.

    The dashboard opens its cache once per process (``ui.state.disk_cache``, a Streamlit resource, which AppTest
    sessions share): it is opened again in the module's directory, and once more after the module. Without that, the
    modules a worker runs after the first would share that module's cache, and what a page shows would depend on
    which modules ran before (the Tokens page draws no timing charts for levels whose tokens came from the cache)."""
    from ui import state

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        state.disk_cache.clear()
        yield
    state.disk_cache.clear()


@pytest.fixture(scope="session")
def export_run(tmp_path_factory):
    """One CLI run with every export on the bundled sample (:func:`tests.support.export_fixture.run_exports`), read by
    tests/unit/exports/test_html_report.py and tests/unit/exports/test_latex_tables.py."""
    from tests.support.export_fixture import run_exports

    return run_exports(tmp_path_factory.mktemp("exports"))

#: Test files whose tests start KoNLPy's JVM in the test process (found by recording, over a whole run, the tests
#: calling ``korean_eval.levels.konlpy._konlpy_tagger``): one unit of work for pytest-xdist. A file missing here
#: only costs a second JVM.
KONLPY_FILES = frozenset({
    "tests/app/test_large_evaluation_pages.py",
    "tests/unit/engine/test_progress_and_stop.py",
    "tests/unit/inputs/test_hostile_inputs.py",
    "tests/unit/levels/test_fast_tokenisation.py",
    "tests/unit/levels/test_random_unicode.py",
    "tests/unit/levels/test_token_levels.py",
})


#: Test files that use tests/support/browser_server.py's dashboard server (one per pytest process) and shared
#: Chromium: one unit of work, so that a single server is started (≈ 3 CPU-s, and its first run, which imports the
#: backend, ≈ 3 more) and its caches of tokens and results serve them all (the MQM test's texts are the sample's,
#: which tests/e2e/test_browser_dashboard.py evaluated before it), and Chromium and Playwright's driver are started
#: once: 98 CPU-s (whole process trees, Chromium included; two runs: 94, 101) against 108 (107, 108) split as they
#: were before, the MQM, report and scale files in one worker and the other file in the other. Collected in this
#: order, which the unit keeps.
BROWSER_FILES = frozenset({
    "tests/e2e/test_browser_dashboard.py",
    "tests/e2e/test_browser_everyday_uses.py",
    "tests/e2e/test_browser_mqm.py",
    "tests/e2e/test_browser_report.py",
    "tests/e2e/test_browser_scale.py",
})

#: Units of work of more than one file: name → files.
UNITS = {"KoNLPy's files": KONLPY_FILES, "the real-browser files": BROWSER_FILES}


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, except that the files of each of :data:`UNITS` form one unit."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    unit_of = {path: unit for unit, paths in UNITS.items() for path in paths}
    missing = sorted(path for path in unit_of if not (ROOT / path).is_file())
    if missing:  # a test file renamed or moved without this list: its unit would silently split
        raise pytest.UsageError(f"tests/conftest.py names test files that do not exist: {', '.join(missing)}")

    class FilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return unit_of.get(scope, scope)  # scope: the file's path from the repository's root

    return FilesTogether(config, log)


#: Markers of the tests (and so the files) scheduled first (pyproject.toml declares them).
FIRST_MARKERS = ("slow", "browser")


@pytest.hookimpl(trylast=True)  # after pytest-randomly's shuffle, whose order is kept within each part
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in FIRST_MARKERS))
