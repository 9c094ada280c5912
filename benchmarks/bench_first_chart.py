"""Seconds from a dashboard server's start to its first chart, on the bundled sample, in a real browser.

    python benchmarks/bench_first_chart.py                 # 3 fresh servers, each after `korean-eval compile`
    python benchmarks/bench_first_chart.py --runs 5 --cold # also without the compile step (an empty cache)

Each run starts the dashboard as a user does, ``korean-eval app`` (``python -m korean_eval app``: headless, a cache
directory of its own, Streamlit's default options), with numba's kernels compiled beforehand (``$NUMBA_CACHE_DIR``,
as ``scripts/setup`` leaves them) and, unless ``--cold``, with the cache prepared by ``korean-eval compile
--cache-dir`` (which stores the sample's result and its first screen's statistics for the dashboard's default
settings). Chromium (Debian's, through Playwright) is started, and the two visitors' tabs opened (each in a browser
context of its own: nothing cached), before the server, so that neither is counted. As soon as the server answers ``/_stcore/health``, the first visitor
opens ``/``; the clock stops when the Correlations page's first chart has drawn its bars in the page (a Plotly bar or
heatmap cell in the DOM). Then the second visitor opens the page on the same, now warm, server.

Printed per run: the server's start (spawn → healthy), the first visitor's first chart counted from the server's
start (healthy) and from the spawn, and the second visitor's; and the CPU seconds the server's processes and
Chromium's used (``/proc``), which, unlike the wall-clock seconds, do not grow with other work on the machine.
Target (first chart ≤ 3 s after the server starts): the median of "first chart after start". Needs
/usr/bin/chromium; Linux.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.support.app_server import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    command_line,
    cpu_seconds,
    descendants,
    free_port,
    group_members,
    wait_healthy,
)

#: A drawn chart: a bar of a bar chart or a heatmap's image (the correlation grid).
DRAWN = ".js-plotly-plot .barlayer .point path, .js-plotly-plot .heatmaplayer image"
KERNELS = ROOT / ".venv" / "numba-kernels"


def _chromium_pids() -> list[int]:
    """Chromium's processes started by this benchmark (through Playwright's driver)."""
    return [p for p in descendants(os.getpid()) if "chromium" in command_line(p)]


def _first_chart(page, url: str, seconds: float, server_group: int) -> tuple[float, float, float]:
    """Open ``url`` in ``page`` (a tab of a new browser context: nothing cached): seconds until a chart is drawn
    (:data:`DRAWN`), and the CPU seconds the server (its process group) and Chromium used meanwhile."""
    server_cpu, browser_cpu = cpu_seconds(group_members(server_group)), cpu_seconds(_chromium_pids())
    start = time.monotonic()
    page.goto(url, wait_until="commit")
    page.locator(DRAWN).first.wait_for(state="attached", timeout=seconds * 1000)
    wall = time.monotonic() - start
    return (wall, cpu_seconds(group_members(server_group)) - server_cpu,
            cpu_seconds(_chromium_pids()) - browser_cpu)


def _new_tab(stack: ExitStack, browser):
    """A tab in a new browser context (closed when ``stack`` closes), 1280 × 900."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    stack.callback(context.close)
    return context.new_page()


class Dashboard:
    """``korean-eval app`` as a user starts it (``python -m korean_eval app``: the server with its first screen
    prepared meanwhile), headless on a free port, in a process group of its own; stopped (the whole group) on
    leaving."""

    def __init__(self, tmp: Path, env: dict[str, str]):
        self.tmp, self.env, self.port = tmp, env, free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Dashboard:
        with open(self.tmp / "server.log", "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "korean_eval", "app", "--server.headless", "true", "--server.port",
                 str(self.port), "--browser.gatherUsageStats", "false"],
                cwd=ROOT, env={**os.environ, **self.env}, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
        wait_healthy(self.url, self.proc, 120, (self.tmp / "server.log").read_text)
        return self

    def __exit__(self, *exc) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)


def one_run(browser, cold: bool, seconds: float) -> dict[str, float]:
    """One fresh server (its own cache directory, prepared by ``compile`` unless ``cold``) and two visitors."""
    with tempfile.TemporaryDirectory(prefix="ke-first-chart-") as tmp:
        tmp_path = Path(tmp)
        env = {"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(KERNELS)),
               "KOREAN_EVAL_CACHE_DIR": str(tmp_path / "cache")}
        prepared = 0.0
        if not cold:
            mark = time.monotonic()
            subprocess.run([sys.executable, "-m", "korean_eval", "compile", "--quiet", "--cache-dir",
                            str(tmp_path / "cache")], check=True, env={**os.environ, **env}, cwd=ROOT,
                           stdout=subprocess.DEVNULL)
            prepared = time.monotonic() - mark
        with ExitStack() as tabs:
            first_tab, second_tab = _new_tab(tabs, browser), _new_tab(tabs, browser)  # open before the server starts
            spawn = time.monotonic()
            with Dashboard(tmp_path, env) as server:
                healthy = time.monotonic()
                server_start_cpu = cpu_seconds(group_members(server.proc.pid))
                first, first_server, first_browser = _first_chart(first_tab, server.url, seconds, server.proc.pid)
                drawn = time.monotonic()
                second, second_server, second_browser = _first_chart(second_tab, server.url, seconds,
                                                                     server.proc.pid)
    return {"compile": prepared, "server start": healthy - spawn, "first chart after start": drawn - healthy,
            "first chart after spawn": drawn - spawn, "first visit (page open → chart)": first,
            "second visitor": second, "CPU-s: server until healthy": server_start_cpu,
            "CPU-s: server, first visit": first_server, "CPU-s: Chromium, first visit": first_browser,
            "CPU-s: server, second visit": second_server, "CPU-s: Chromium, second visit": second_browser}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also measure servers whose cache was not prepared")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for a chart")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is required (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    print(f"load average at start: {os.getloadavg()}; cores: {os.cpu_count()}")
    with ExitStack() as stack:
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, "--no-first-run"])
        stack.callback(browser.close)
        for cold in ([False, True] if args.cold else [False]):
            label = "empty cache (no compile)" if cold else "cache prepared by `korean-eval compile`"
            rows = [one_run(browser, cold, args.timeout) for _ in range(args.runs)]
            print(f"\n{label}, {args.runs} runs (seconds)")
            for name in rows[0]:
                values = [r[name] for r in rows]
                print(f"  {name:34s} median {statistics.median(values):6.2f}   runs "
                      + " ".join(f"{v:.2f}" for v in values))
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
