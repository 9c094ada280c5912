"""Memory of the running dashboard — the Streamlit server and every process it started — for one evaluation.

    python benchmarks/bench_app_memory.py --data DIR      # DIR laid out like sample_data/: ref.txt, systems/*.txt, human.tsv
    python benchmarks/bench_app_memory.py                 # the bundled sample (600 pairs: below the worker threshold)

First, on two fresh servers, when the navigation shows after opening ``/`` and a link straight to ``/data``, and
whether Streamlit's own list of page files ever shows. Then starts ``streamlit run app.py`` as a user would
(headless, its own empty cache directory, default settings), opens its Data page in Chromium (Playwright), uploads
the files, opens Correlations and waits for its first chart.
Meanwhile the resident memory (VmRSS, /proc) of the server and of all its descendants (worker processes,
multiprocessing's resource tracker) is sampled every 0.2 s. Prints the sum at each step, its peak, the share of
each process at the end, the lines the server printed to the terminal, the seconds from "Use these files" to the
first chart, and how long the server takes to stop after SIGTERM. Linux only; needs /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from korean_eval.inputs.sample import SAMPLE_DIR, sample_files  # noqa: E402
from tests.support.app_server import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    AppServer,
    command_line,
    descendants,
    group_members,
    idle,
    process_table,
    upload,
    watch_first_paint,
)

BARS = ".js-plotly-plot .barlayer .point path"


class TreeMemory:
    """Samples the summed VmRSS of a process and its descendants (MB) in a thread; keeps the peak and, at the
    peak, each process's share (``peak_parts``: MB, the root process first, the others largest first)."""

    def __init__(self, pid: int, interval: float = 0.2):
        self.pid, self.interval = pid, interval
        self.peak = 0.0
        self.peak_parts: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> tuple[float, dict[int, float]]:
        table = process_table()
        per = {p: table[p].rss_mb for p in [self.pid, *descendants(self.pid, table)] if p in table}
        total = sum(per.values())
        if total > self.peak:
            self.peak = total
            self.peak_parts = [per.get(self.pid, 0.0)] + sorted((v for p, v in per.items() if p != self.pid), reverse=True)
        return total, per

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.now()

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _role(pid: int, server: int) -> str:
    if pid == server:
        return "server"
    cmd = command_line(pid)
    return "worker" if "multiprocessing.spawn" in cmd else "resource tracker" if "resource_tracker" in cmd else cmd


def first_paint(pw, tmp: Path, path: str) -> None:
    """On a fresh server: when ``path`` shows the navigation and the sidebar's settings; whether Streamlit's own
    list of page files shows on the way."""
    with AppServer(tmp) as server:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        paint = watch_first_paint(browser.new_page(), f"{server.url}{path}", "Token levels", 600)
        browser.close()
    nav_after = next((f"{t:.1f} s" for t, state in paint if state["topNav"]), "never")
    settings_after = next((f"{t:.1f} s" for t, state in paint if state["done"]), "never")
    file_list = "shown" if any(state["fileList"] for _, state in paint) else "never shown"
    print(f"fresh server, {path:<6} navigation after {nav_after}, the sidebar's settings after {settings_after}; "
          f"Streamlit's list of page files {file_list}")


def evaluate_in_app(pw, data: Path, tmp: Path) -> None:
    """Upload ``data`` on the Data page, open Correlations, wait for its chart; memory all along; then stop."""
    files = sample_files(data)
    with AppServer(tmp) as server, TreeMemory(server.pid) as memory:
        report = lambda step: print(f"{step:<40} {memory.now()[0]:>8,.0f} MB")  # noqa: E731
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.set_default_timeout(600_000)
        page.goto(f"{server.url}/data")
        page.get_by_role("heading", name="Data", exact=True).wait_for()
        idle(page, 600)
        report("Data page shown")
        upload(page, "Reference file(s)", [files["ref"]])
        upload(page, "System outputs", files["systems"])
        upload(page, "Human scores", [files["human"]])
        report("files uploaded")
        lines_before = len(server.stderr().splitlines())
        page.get_by_role("button", name="Use these files").click()
        page.get_by_text("Every page now shows these data").wait_for()
        idle(page)
        start = time.monotonic()
        page.get_by_role("link", name="Correlations").click()
        page.locator(BARS).first.wait_for()
        first_chart = time.monotonic() - start
        idle(page, 600)
        report("Correlations drawn")
        print(f"{'peak while evaluating':<40} {memory.peak:>8,.0f} MB")
        for pid, mb in sorted(memory.now()[1].items(), key=lambda kv: -kv[1]):
            print(f"    {_role(pid, server.pid):<36} {mb:>8,.0f} MB")
        print(f"first chart {first_chart:.1f} s after opening Correlations; the server printed "
              f"{len(server.stderr().splitlines()) - lines_before} lines meanwhile")
        browser.close()
        stop(server)


def stop(server: AppServer) -> None:
    """SIGTERM to the server: its exit code and when every process of its group is gone."""
    stopped = time.monotonic()
    os.kill(server.pid, signal.SIGTERM)
    code = server.wait_exit(60)
    while group_members(server.pid) and time.monotonic() - stopped < 60:
        time.sleep(0.1)
    left = group_members(server.pid)
    print(f"SIGTERM: exit code {code}, all processes gone after {time.monotonic() - stopped:.1f} s"
          + (f"; still running: {left}" if left else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SAMPLE_DIR, help="ref.txt, systems/*.txt, human.tsv")
    parser.add_argument("--no-paint", action="store_true", help="skip the two first-paint checks (two more servers)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    n_pairs = sum(1 for p in sample_files(args.data)["systems"] for _ in p.open(encoding="utf-8"))
    print(f"data: {args.data} ({n_pairs:,} pairs); load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="ke-app-memory-") as tmp, sync_playwright() as pw:
        if not args.no_paint:
            for n, path in enumerate(["/", "/data"]):
                (Path(tmp) / f"paint{n}").mkdir()
                first_paint(pw, Path(tmp) / f"paint{n}", path)
        (Path(tmp) / "run").mkdir()
        evaluate_in_app(pw, args.data, Path(tmp) / "run")


if __name__ == "__main__":
    main()
