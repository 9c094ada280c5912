"""Several users on one dashboard server: first-chart time and memory for 1, 3 and 6 users at once, and the memory
after they leave.

    python benchmarks/bench_several_users.py                    # 1, 3 and 6 users on the bundled sample
    python benchmarks/bench_several_users.py --users 6 --after 150
    python benchmarks/bench_several_users.py --grid DIR         # one user, every available level, DIR's data

For each user count, a fresh ``streamlit run app.py`` (its own empty cache directory, the numba kernels of
``scripts/setup``, the default limits of korean_eval.engine.limits unless ``KOREAN_EVAL_*`` variables are set, no
file watcher, as docs/deployment.md recommends) and one Chromium (Playwright) with one browser context per user.
Every user loads the bundled sample's reference, human scores and its five systems under names of its own (the
same file names ``sys_a.txt`` … in every session, each session other texts, and one ``only_u<i>.txt``), then all
open the Correlations page at the same moment. Printed: each user's seconds from that click to its first chart
(timed in the page), whether it waited in the queue, the slowest answer of ``/_stcore/health`` meanwhile (asked
every 0.25 s), the peak resident memory (VmRSS, /proc) of the server and every process it started, sampled every
0.2 s, exceptions shown, cross-session leaks (a system of another session in a session's downloaded ``system_scores.csv``); then,
after every browser context closed, the memory every 15 s for ``--after`` seconds and when it first fell to 1 GB.

``--grid DIR`` (DIR laid out like sample_data/: ref.txt, systems/*.txt, human.tsv): one user ticks every available
token level in the sidebar and evaluates DIR with the default metrics; the same figures. Linux only; needs
/usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench_app_memory import TreeMemory  # noqa: E402

from korean_eval.inputs.sample import sample_files  # noqa: E402
from korean_eval.levels.registry import available_levels  # noqa: E402
from tests.support.app_server import (  # noqa: E402
    AppServer,
    chromium_page,
    command_line,
    cpu_seconds,
    descendants,
    idle,
    launch_chromium,
)
from tests.support.several_users import (  # noqa: E402
    NO_EXCEPTION,
    HealthProbe,
    downloaded_system_scores,
    load_files,
    open_charts_at_once,
    session_files,
)

GB = 1024.0  # MB
OPTIONS = {"server.fileWatcherType": "none"}


def server_env(cache: Path) -> dict[str, str]:
    """The server's environment: an empty cache of its own, the compiled kernels of scripts/setup when present."""
    env = {"KOREAN_EVAL_CACHE_DIR": str(cache)}
    kernels = HERE.parent / ".venv" / "numba-kernels"
    if kernels.is_dir() and "NUMBA_CACHE_DIR" not in os.environ:
        env["NUMBA_CACHE_DIR"] = str(kernels)
    return env


def tick_every_level(page) -> list[str]:
    """Tick every available token level in the sidebar (each tick reruns the page), then Apply them together; the
    levels ticked."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    levels = available_levels()
    for level in levels:
        box = sidebar.locator('[data-testid="stCheckbox"]').filter(has_text=re.compile(f"^{re.escape(level)}$"))
        if not box.locator("input").is_checked():
            box.locator("label").click()
            idle(page, 120)
    apply = sidebar.get_by_role("button", name=re.compile("Apply"))
    if apply.count():
        apply.click()
        idle(page, 120)
    return levels


def grid_files(folder: Path) -> dict:
    files = sample_files(folder)
    return {"ref": files["ref"], "systems": files["systems"], "human": files["human"]}


def run(users: int, tmp: Path, after: float, grid: Path | None) -> dict:
    """One server, ``users`` browser sessions evaluating at once; the figures printed and returned."""
    (tmp / "server").mkdir(parents=True)
    if grid is not None:
        data = [(grid_files(grid), None)]
    else:
        data = [session_files(tmp / f"user{i}", i, n_systems=5) for i in range(users)]
    with AppServer(tmp / "server", env=server_env(tmp / "cache"), options=OPTIONS) as server, \
            TreeMemory(server.pid) as memory, ExitStack() as browsers:
        base = memory.now()[0]
        browser = launch_chromium(browsers)
        contexts = ExitStack()
        browsers.enter_context(contexts)
        pages = [contexts.enter_context(chromium_page(1300, 1000, 1_800_000, browser)) for _ in data]
        for page, (files, _) in zip(pages, data, strict=True):
            load_files(page, server.url, files)
        levels = tick_every_level(pages[0]) if grid is not None else None
        loaded = memory.now()[0]
        memory.peak = loaded
        cpu_before = _cpu_split(server.pid)
        with HealthProbe(server.url) as health:
            charts, waited = open_charts_at_once(pages, "Correlations", 1800)
            cpu_charts = _cpu_split(server.pid)
            for page in pages:
                idle(page, 1800)
        peak, peak_parts = memory.peak, memory.peak_parts
        exceptions = sum(page.locator(NO_EXCEPTION).count() for page in pages)
        leaks, scored = 0, []
        if grid is not None:  # every ticked level scored (none skipped or failed on the way)
            rows = downloaded_system_scores(pages[0], tmp / "user0")
            scored = sorted({r["level"] for r in rows})
        else:
            for i, (page, (_files, texts)) in enumerate(zip(pages, data, strict=True)):
                seen = {r["system"] for r in downloaded_system_scores(page, tmp / f"user{i}")}
                leaks += len(seen - set(texts)) + len(set(texts) - seen)
        held = memory.now()[0]
        contexts.close()  # every user leaves
        left = time.monotonic()
        after_leaving, below_1gb = [], None
        while time.monotonic() - left < after:
            time.sleep(1.0)
            mb = memory.now()[0]
            if below_1gb is None and mb <= GB:
                below_1gb = time.monotonic() - left
            if not after_leaving or time.monotonic() - left >= 15 * len(after_leaving):
                after_leaving.append((round(time.monotonic() - left), mb))
        tracebacks = server.stderr().count("Traceback")
    figures = {
        "users": users, "levels": levels, "charts": [round(charts[i], 1) for i in sorted(charts)],
        "waited": len(waited), "health_max": max(health.seconds, default=float("nan")),
        "health_n": len(health.seconds), "base_mb": base, "loaded_mb": loaded, "peak_mb": peak, "held_mb": held,
        "peak_parts": [round(mb) for mb in peak_parts], "scored": scored,
        "cpu_server": cpu_charts[0] - cpu_before[0], "cpu_chromium": cpu_charts[1] - cpu_before[1],
        "after": after_leaving, "below_1gb_after": below_1gb, "exceptions": exceptions + tracebacks, "leaks": leaks,
    }
    report(figures)
    return figures


def _cpu_split(server: int) -> tuple[float, float]:
    """CPU seconds used so far by the server and every process it started, and by this benchmark's Chromium."""
    chromium = [p for p in descendants(os.getpid()) if "chromium" in command_line(p)]
    return cpu_seconds([server, *descendants(server)]), cpu_seconds(chromium)


def report(f: dict) -> None:
    what = f"1 user, every level ({', '.join(f['levels'])})" if f["levels"] else f"{f['users']} user(s), the sample"
    charts = f["charts"]
    print(f"\n== {what}; load average {os.getloadavg()[0]:.1f}")
    print(f"first chart (s after the click), per user: {charts}; slowest {max(charts, default=float('nan')):.1f} s; "
          f"{f['waited']} user(s) shown a queue position")
    print(f"CPU seconds from the clicks to the last first chart: server and its processes {f['cpu_server']:.1f}, "
          f"Chromium {f['cpu_chromium']:.1f}")
    print(f"/_stcore/health: {f['health_n']} answers while evaluating, slowest {f['health_max']:.3f} s")
    print(f"memory (server + every process it started): idle {f['base_mb']:,.0f} MB, data loaded "
          f"{f['loaded_mb']:,.0f} MB, peak {f['peak_mb']:,.0f} MB, charts drawn {f['held_mb']:,.0f} MB")
    if f["levels"]:
        missing = sorted(set(f["levels"]) - set(f["scored"]))
        print(f"levels with system scores: {len(f['scored'])} of {len(f['levels'])}"
              + (f" (missing: {', '.join(missing)})" if missing else ""))
    parts = f.get("peak_parts") or []
    if parts:
        print(f"at the peak: server {parts[0]:,} MB; the processes it started {', '.join(f'{mb:,}' for mb in parts[1:])} MB")
    print("after every user left: " + ", ".join(f"{t} s {mb:,.0f} MB" for t, mb in f["after"]))
    below = f["below_1gb_after"]
    print(f"≤ 1 GB {'after ' + format(below, '.0f') + ' s' if below is not None else 'not reached'}; "
          f"exceptions {f['exceptions']}; cross-session leaks {f['leaks']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=[1, 3, 6], help="user counts, one server each")
    parser.add_argument("--after", type=float, default=150, help="seconds to watch the memory after users leave")
    parser.add_argument("--grid", type=Path, help="one user, every level, this folder's data (like sample_data/)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ke-several-users-") as tmp:
        if args.grid is not None:
            run(1, Path(tmp) / "grid", args.after, args.grid)
            return
        for n in args.users:
            run(n, Path(tmp) / f"users{n}", args.after, None)


if __name__ == "__main__":
    main()
