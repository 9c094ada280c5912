"""The real dashboard as a process, for process-level tests and the memory benchmark.

* :class:`AppServer`: ``streamlit run app.py`` (headless, a free port, its own cache directory) in a new process
  group, so that everything it starts — worker processes included, even after they lost their parent — can be
  found (:func:`group_members`) and killed by the group.
* :class:`Session`: a browser-less client speaking Streamlit's websocket protocol (its own protobuf messages, as the
  browser sends them): it asks for a run of the first page and reads the progress texts the run sends.
* :func:`launch_chromium`, :func:`chromium_page`, :func:`upload`, :func:`idle`, :func:`watch_first_paint`,
  :func:`shot`: driving its pages in a real browser (Playwright); :data:`BARS` and :data:`NO_EXCEPTION` find drawn
  bars and shown exceptions.
* The process table from ``/proc`` (Linux): parents, process groups, states, resident memory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass(frozen=True)
class Proc:
    """One line of the process table: ``/proc/<pid>/stat`` fields 3 (state), 4 (ppid), 5 (pgrp), 24 (rss pages)."""

    pid: int
    state: str
    ppid: int
    pgrp: int
    rss_mb: float

    @property
    def running(self) -> bool:
        """Not a zombie (an exited process nobody has reaped yet) and not dead."""
        return self.state not in ("Z", "X")


def process_table() -> dict[int, Proc]:
    """Every process visible in ``/proc`` (processes that end while it is read are left out)."""
    page_mb = os.sysconf("SC_PAGE_SIZE") / 2**20
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (command)"; the command may hold spaces and ")"
        table[int(entry)] = Proc(int(entry), fields[0], int(fields[1]), int(fields[2]), int(fields[21]) * page_mb)
    return table


def descendants(pid: int, table: dict[int, Proc] | None = None) -> list[int]:
    """The running children of ``pid``, their children, and so on."""
    table = table or process_table()
    found, frontier = [], [pid]
    while frontier:
        frontier = [p.pid for p in table.values() if p.ppid in frontier and p.running]
        found += frontier
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the running processes ``pids`` (``/proc/<pid>/stat`` fields 14 and 15)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def group_members(pgrp: int) -> list[int]:
    """The running processes of process group ``pgrp`` (a process keeps its group when its parent dies)."""
    return [p.pid for p in process_table().values() if p.pgrp == pgrp and p.running]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, seconds: float, log_text: Callable[[], str]) -> None:
    """Poll Streamlit's ``/_stcore/health`` at ``url`` until it answers ``ok``; ``RuntimeError`` if ``proc`` exits
    first, ``TimeoutError`` after ``seconds`` (both with the end of ``log_text()``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"the server did not answer within {seconds} s:\n{log_text()[-3000:]}")


#: Streamlit options of the servers the browser tests drive (``AppServer(..., options=BROWSER_TEST_OPTIONS)``): two
#: pieces of Streamlit's housekeeping that change nothing a page shows and cost a quarter of such a server's CPU
#: (tests/e2e/test_browser_scale.py's server: 21 CPU-s with them, 16 without). No file watcher: without the ``watchdog``
#: package Streamlit polls every source file every 0.2 s and walks ``sys.modules`` after every run, to offer a rerun
#: when a file changes; nothing edits the sources during a test. No full garbage collection after every script run
#: (``runner.postScriptGC``, which only returns memory sooner; Python's own collector still runs). The process-level
#: tests and the memory benchmark keep Streamlit's defaults.
BROWSER_TEST_OPTIONS = {"server.fileWatcherType": "none", "runner.postScriptGC": "false"}


class AppServer:
    """``streamlit run app.py`` in its own process group; stdout and stderr go to files in ``tmp``; ``options``:
    further Streamlit options (name → value, e.g. :data:`BROWSER_TEST_OPTIONS`).

    Used as a context manager: on leaving, every process of the group is killed (SIGKILL) and the server reaped.
    """

    def __init__(self, tmp: Path, env: dict[str, str] | None = None, startup_seconds: float = 60,
                 options: dict[str, str] | None = None):
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "KOREAN_EVAL_CACHE_DIR": str(tmp / "cache"), **(env or {})}
        self.startup_seconds = startup_seconds
        self.options = {"server.headless": "true", "server.port": str(self.port),
                        "browser.gatherUsageStats": "false", **(options or {})}
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> AppServer:
        flags = [part for name, value in self.options.items() for part in (f"--{name}", value)]
        with open(self.tmp / "stdout.log", "wb") as out, open(self.tmp / "stderr.log", "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", *flags],
                cwd=ROOT, env=self.env, stdout=out, stderr=err, start_new_session=True,
            )
        try:
            self._wait_healthy()
        except BaseException:
            self.kill_all()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.kill_all()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def _wait_healthy(self) -> None:
        wait_healthy(self.url, self.proc, self.startup_seconds, self.stderr)

    def workers(self) -> list[int]:
        """The server's running worker processes (spawned by multiprocessing; not its resource tracker)."""
        return [p for p in descendants(self.pid) if "multiprocessing.spawn" in command_line(p)]

    def stderr(self) -> str:
        return (self.tmp / "stderr.log").read_text(errors="replace")

    def wait_exit(self, seconds: float) -> int | None:
        """The server's exit code, or None if it is still running after ``seconds``."""
        try:
            return self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def kill_all(self) -> None:
        """SIGKILL to every process of the server's group, then reap the server."""
        if self.proc is None:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)


def wait_until(condition, seconds: float, step: float = 0.2) -> bool:
    """Poll ``condition()`` until it is true (True) or ``seconds`` have passed (False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


class Session:
    """A client of the server's websocket that runs the first page (``with Session(server) as s: ...``)."""

    def __init__(self, server: AppServer):
        self.server = server
        self.progress: list[str] = []  # progress texts of the run, in order
        self.finished = False
        self._stack = ExitStack()

    def __enter__(self) -> Session:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from websockets.sync.client import connect

        self.ws = self._stack.enter_context(
            connect(f"ws://127.0.0.1:{self.server.port}/_stcore/stream", subprotocols=["streamlit"],
                    max_size=None, open_timeout=30)
        )
        rerun = BackMsg()
        rerun.rerun_script.query_string = ""
        rerun.rerun_script.page_script_hash = ""  # the default page
        self.ws.send(rerun.SerializeToString())
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._stack.close()
        except Exception:  # the server may be gone: nothing to close
            pass

    def wait_for_progress(self, word: str, seconds: float) -> bool:
        """Read messages until a progress text contains ``word`` or the run finished (True), or ``seconds`` passed
        (False)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                data = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.finished = True
                return True
            if kind == "delta" and msg.delta.new_element.WhichOneof("type") == "progress":
                self.progress.append(msg.delta.new_element.progress.text)
                if word in self.progress[-1]:
                    return True
        return False


def require_chromium() -> None:
    """Skip the calling test when Debian's Chromium is missing; fail instead under ``CI=true``."""
    import pytest

    if not CHROMIUM.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{CHROMIUM} is required under CI=true (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")


def launch_chromium(stack: ExitStack):
    """Debian's headless Chromium (:data:`CHROMIUM_ARGS`) through Playwright's synchronous API, both stopped when
    ``stack`` closes: a Playwright ``Browser``."""
    from playwright.sync_api import sync_playwright

    playwright = stack.enter_context(sync_playwright())
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    stack.callback(browser.close)
    return browser


@contextmanager
def chromium_page(width: int, height: int, timeout_ms: float, browser=None) -> Iterator:
    """A Playwright page in a context of its own of ``browser`` (e.g. the shared one of
    tests/support/browser_server.py) or, without one, of a Chromium launched for it (:func:`launch_chromium`) and
    closed afterwards: viewport ``width`` × ``height`` at scale 1, every wait bounded by ``timeout_ms``, script runs
    counted (:data:`RUN_COUNTER_JS`)."""
    with ExitStack() as stack:
        browser = browser or launch_chromium(stack)
        context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
        stack.callback(context.close)
        context.add_init_script(RUN_COUNTER_JS)
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        yield page


#: Streamlit's frontend states a script run in ``data-test-script-state`` on ``[data-testid="stApp"]``: ``running``
#: from the server's "run started" message, ``notRunning`` at its end, ``initial`` before the first; these values
#: mean a run is under way or about to be (its status widget, by contrast, appears only after 500 ms of running).
_BUSY_STATES = "['running', 'rerunRequested', 'stopRequested', 'initial']"

#: In-page function: whether a script run is under way (:data:`_BUSY_STATES`).
_BUSY_JS = """const busy = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return BUSY_STATES.includes(app ? app.getAttribute('data-test-script-state') : 'initial');
  };""".replace("BUSY_STATES", _BUSY_STATES)

#: Init script of every page :func:`chromium_page` opens: counts the script runs that ended (``window.__keRuns.ended``:
#: the run state went from busy, :data:`_BUSY_STATES`, to not), seen by a MutationObserver, which misses no change
#: however short the run; :func:`idle` counts the runs it has waited for in ``window.__keRuns.waited``.
RUN_COUNTER_JS = """(() => {
  const runs = window.__keRuns = {ended: 0, waited: 0};
  const attr = 'data-test-script-state';
  new MutationObserver(records => records.forEach((record, i) => {
    const after = i + 1 < records.length ? records[i + 1].oldValue : record.target.getAttribute(attr);
    if (BUSY_STATES.includes(record.oldValue ?? 'initial') && !BUSY_STATES.includes(after)) runs.ended++;
  })).observe(document, {subtree: true, attributes: true, attributeFilter: [attr], attributeOldValue: true});
})();""".replace("BUSY_STATES", _BUSY_STATES)

#: Interval of the in-page waits' checks, ms. They poll on a timer rather than at every animation frame: a
#: ``requestAnimationFrame`` loop makes Chromium produce a frame 60 times a second while the test waits (measured
#: on a drawn Correlations page: 0.17 CPU-s of Chromium per second of waiting, against < 0.01 with a 50 ms timer),
#: CPU the server and the page's own drawing then lack on a shared machine. No run is missed between two checks: the
#: runs that ended are counted by a MutationObserver (:data:`RUN_COUNTER_JS`).
POLL_MS = 20

#: In-page wait (a Promise) for the end of the script run an action started: resolves ``true`` once no run is under
#: way (:data:`_BUSY_JS`) after a run was seen, or after a run ended since the previous wait (a run that ended
#: before this wait began, or between two checks: :data:`RUN_COUNTER_JS`, where the page has it), or when none
#: started within ``start`` ms (an action that runs no script); ``false`` after ``timeout`` ms.
_RUN_ENDED_JS = """([start, timeout]) => new Promise(resolve => {
  BUSY
  const runs = window.__keRuns;
  const t0 = performance.now();
  let seen = false;
  const check = () => {
    const elapsed = performance.now() - t0;
    if (busy()) seen = true;
    else if (seen || elapsed >= start || (runs && runs.ended > runs.waited)) {
      if (runs) runs.waited = runs.ended;
      return resolve(true);
    }
    if (elapsed >= timeout) return resolve(false);
    setTimeout(check, POLL_MS);
  };
  check();
})""".replace("BUSY", _BUSY_JS).replace("POLL_MS", str(POLL_MS))


def idle(page, seconds: float = 120) -> None:
    """Wait until the script run an action started has finished (:data:`_RUN_ENDED_JS`: at once when it has
    already ended, else a run is waited for up to 500 ms after the action, then to its end), for at most
    ``seconds`` (Playwright ``page``). Call it after every action that starts a run: a run nobody waited for would
    end the next wait at once."""
    if not page.evaluate(_RUN_ENDED_JS, [500, seconds * 1000]):
        raise TimeoutError(f"the script run did not end within {seconds} s")


#: In-page wait (a Promise) until no run is under way (:data:`_BUSY_JS`), every shown chart is drawn at its box's
#: width and the layout has kept still for ``quiet`` ms: the main container's size, the number of elements and every
#: chart's box unchanged, checked every :data:`POLL_MS` ms (``timeout`` ms at most, then it resolves anyway and the
#: caller's own checks decide). The dashboard's charts take their box's width (``ui.widgets``: ``width="stretch"``),
#: which Streamlit measures and hands to Plotly, which draws the chart again: after a new viewport width a chart keeps
#: its old width for 130-540 ms (measured at 1280 ↔ 1920 px), in which the rest of the page is still, so a quiet
#: period alone would end before that redraw unless it were longer than any such delay; a box narrower than 150 px
#: gets a 150 px chart (Streamlit's least width).
_SETTLE_JS = """([quiet, timeout]) => new Promise(resolve => {
  BUSY
  const layout = () => {
    const main = document.querySelector('[data-testid="stMain"]');
    const charts = [...document.querySelectorAll('.js-plotly-plot .main-svg')].map(svg => {
      const b = svg.getBoundingClientRect();
      return `${b.width}x${b.height}`;
    });
    return [main ? `${main.scrollWidth}x${main.scrollHeight}` : '', document.getElementsByTagName('*').length,
            charts.join(',')].join('|');
  };
  const chartsFit = () => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(box => {
    if (box.clientWidth === 0) return true;  // hidden (another tab, a closed expander)
    const svg = box.querySelector('.main-svg');
    return svg !== null && Math.abs(svg.getBoundingClientRect().width - Math.max(box.clientWidth, 150)) <= 1;
  });
  const start = performance.now();
  let last = layout(), since = start;
  const check = () => {
    const now = performance.now(), current = layout();
    if (current !== last || busy() || !chartsFit()) { last = current; since = now; }
    if (now - since >= quiet || now - start >= timeout) resolve();
    else setTimeout(check, POLL_MS);
  };
  requestAnimationFrame(check);
})""".replace("BUSY", _BUSY_JS).replace("POLL_MS", str(POLL_MS))


def settle(page, quiet_ms: float = 100, timeout_ms: float = 10_000) -> None:
    """Wait until the page's layout stopped changing (:data:`_SETTLE_JS`): after a change that runs no script
    (a new viewport size, an opened expander or tab), instead of a fixed sleep."""
    page.evaluate(_SETTLE_JS, [quiet_ms, timeout_ms])


def upload(page, label: str, paths: list[Path]) -> None:
    """Put files into the uploader whose label starts with ``label``, wait until each shows and all have reached the
    server (no chip's spinner left: only then does the upload start its script run), then for that run."""
    uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text=label)
    uploader.locator('input[type="file"]').set_input_files([str(p) for p in paths])
    for path in paths:
        uploader.get_by_text(path.name, exact=True).wait_for()
    uploader.locator('[data-testid="stFileChipIconSpinner"]').first.wait_for(state="detached")
    idle(page)


_PAINT_STATE = """(text) => ({  // right after the request the document may have no body yet
    fileList: [...document.querySelectorAll('[data-testid="stSidebarNavLink"]')].map(a => a.innerText.trim()),
    topNav: [...document.querySelectorAll('[data-testid="stTopNavLink"]')].map(a => a.innerText.split("\\n").pop()),
    loading: (document.body?.innerText ?? "").includes("Loading the evaluation library"),
    done: (document.body?.innerText ?? "").includes(text),
})"""


def watch_first_paint(page, url: str, until_text: str, seconds: float = 120) -> list[tuple[float, dict]]:
    """Open ``url`` and record what the page shows every 50 ms until ``until_text`` and the navigation are there:
    (seconds since the request, state) with ``fileList`` (Streamlit's own list of ``pages/*.py``), ``topNav`` (the
    navigation's titles), ``loading`` (app.py's spinner while the backend is imported) and ``done`` (the text)."""
    start = time.monotonic()
    page.goto(url, wait_until="commit")
    seen: list[tuple[float, dict]] = []
    while time.monotonic() - start < seconds and not (seen and seen[-1][1]["done"] and seen[-1][1]["topNav"]):
        seen.append((time.monotonic() - start, page.evaluate(_PAINT_STATE, until_text)))
        time.sleep(0.05)
    return seen


#: The bars of a drawn Plotly bar chart.
BARS = ".js-plotly-plot .barlayer .point path"
#: An exception Streamlit shows on the page.
NO_EXCEPTION = '[data-testid="stException"]'


def shot(pg, folder: Path, name: str, height: int = 1800, width: int = 1500) -> Path:
    """Screenshot ``width`` px wide with a tall viewport (Streamlit scrolls inside its own container, not the page);
    the viewport is then ``width`` × 1100."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    pg.set_viewport_size({"width": width, "height": height})
    settle(pg)
    pg.screenshot(path=str(path))
    pg.set_viewport_size({"width": width, "height": 1100})
    return path
