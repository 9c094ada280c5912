"""Several users on one dashboard server: what the load test (tests/test_several_users.py) and the benchmark
(benchmarks/bench_several_users.py) share — each session's own files, loading them in a browser page, reading
back the session's downloaded system scores, and a thread asking the server's health endpoint meanwhile."""

from __future__ import annotations

import csv
import io
import re
import shutil
import threading
import time
import urllib.request
from pathlib import Path

from korean_eval.inputs.sample import sample_files
from tests.support.app_server import idle, upload

BARS = ".js-plotly-plot .barlayer .point path"
#: Any Plotly chart drawn in the page's main area (with many levels the first one is a grid, not bars; the sidebar's
#: empty chart that loads Plotly's script at a session's first run is not one)
CHART = '[data-testid="stMain"] .js-plotly-plot .main-svg'
NO_EXCEPTION = '[data-testid="stException"]'
WAITING = re.compile(r"Waiting: position \d+ of \d+")

#: In-page watch started just before a click that opens a chart: ``window.__keWatch`` gets ``clickAt`` (now),
#: ``chartAt`` (when the first Plotly chart is drawn) and ``waited`` (whether a queue position was shown), noted by a
#: MutationObserver at the moment they happen, whatever the test driver is doing meanwhile (timestamps in ms,
#: ``performance.now()``: the page stays the same document across Streamlit's page changes).
WATCH_JS = """() => {
  const watch = window.__keWatch = {clickAt: performance.now(), chartAt: null, waited: false};
  const before = new Set(document.querySelectorAll('CHART'));  // a chart already there is not the page's
  const check = () => {
    if (watch.chartAt === null && [...document.querySelectorAll('CHART')].some(e => !before.has(e)))
      watch.chartAt = performance.now();
    if (!watch.waited && [...document.querySelectorAll('[data-testid="stProgress"]')]
        .some(e => /Waiting: position \\d+ of \\d+/.test(e.innerText))) watch.waited = true;
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, characterData: true});
  check();
}""".replace("CHART", CHART)


def open_charts_at_once(pages, link: str, seconds: float) -> tuple[dict[int, float], set[int]]:
    """Click ``link`` on every page one right after the other, then wait until each shows a chart (at most
    ``seconds``): (page index → seconds from its click to its first chart, the pages that showed a queue position)."""
    for page in pages:
        page.evaluate(WATCH_JS)
        page.get_by_role("link", name=link).click()
    deadline = time.monotonic() + seconds
    watches: dict[int, dict] = {}
    while len(watches) < len(pages) and time.monotonic() < deadline:
        for i, page in enumerate(pages):
            if i not in watches:
                watch = page.evaluate("() => window.__keWatch")
                if watch["chartAt"] is not None:
                    watches[i] = watch
        time.sleep(0.3)
    charts = {i: (w["chartAt"] - w["clickAt"]) / 1000 for i, w in watches.items()}
    waited = {i for i, page in enumerate(pages) if (watches.get(i) or page.evaluate("() => window.__keWatch"))["waited"]}
    return charts, waited


class HealthProbe:
    """Asks ``/_stcore/health`` every ``step`` seconds in a thread; keeps every answer's seconds (a failure or a
    wrong answer counts as infinitely slow)."""

    def __init__(self, url: str, step: float = 0.25):
        self.url, self.step = f"{url}/_stcore/health", step
        self.seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.step):
            start = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=10) as reply:
                    ok = reply.read().strip() == b"ok"
            except OSError:
                ok = False
            self.seconds.append(time.monotonic() - start if ok else float("inf"))

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(15)


def session_files(folder: Path, i: int, n_systems: int = 3) -> tuple[dict, dict[str, tuple[list[str], list[str]]]]:
    """Session ``i``'s files in ``folder``: the sample's reference, ``n_systems`` (at most 5) of its systems, the
    first ones under the names ``sys_a``, ``sys_b`` … (every session the same names, each session other texts:
    the systems are rotated by ``i``; from the sixth session on, whose rotation repeats an earlier one's, each
    hypothesis file's first line ends in a mark of the session, so that its texts are its own) and the last under
    ``only_u<i>`` (this session only), their human scores renamed alike; and per system name its (hypotheses,
    references)."""
    folder.mkdir(parents=True)
    sample = sample_files()
    originals = sorted(sample["systems"])
    new_names = [f"sys_{chr(ord('a') + k)}" for k in range(n_systems - 1)] + [f"only_u{i}"]
    names = {originals[(i + k) % len(originals)].stem: new for k, new in enumerate(new_names)}
    ref = folder / "ref.txt"
    shutil.copyfile(sample["ref"], ref)
    refs = ref.read_text(encoding="utf-8").splitlines()
    systems, texts = [], {}
    for path in originals:
        if path.stem in names:
            target = folder / f"{names[path.stem]}.txt"
            shutil.copyfile(path, target)
            if i >= len(originals):
                lines = target.read_text(encoding="utf-8").splitlines()
                lines[0] = f"{lines[0]} ({i})"
                target.write_text("\n".join(lines) + "\n", encoding="utf-8")
            systems.append(target)
            texts[names[path.stem]] = (target.read_text(encoding="utf-8").splitlines(), refs)
    rows = list(csv.reader(io.StringIO(sample["human"].read_text(encoding="utf-8")), delimiter="\t"))
    human = folder / "human.tsv"
    with human.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(rows[0])
        writer.writerows([names[r[0]], *r[1:]] for r in rows[1:] if r[0] in names)
    return {"ref": ref, "systems": systems, "human": human}, texts


def load_files(page, url: str, files: dict) -> None:
    """Open the Data page, upload the session's files and use them (nothing is evaluated yet)."""
    page.goto(f"{url}/data")
    page.get_by_role("heading", name="Data", exact=True).wait_for()
    idle(page)
    upload(page, "Reference file(s)", [files["ref"]])
    upload(page, "System outputs", files["systems"])
    page.get_by_text("System names (from the file names").wait_for()
    upload(page, "Human scores", [files["human"]])
    page.get_by_role("button", name="Use these files").click()
    page.get_by_text("Every page now shows these data").wait_for()
    idle(page)


def downloaded_system_scores(page, folder: Path) -> list[dict[str, str]]:
    """The Downloads page's ``system_scores.csv`` of this session, saved into ``folder`` and read."""
    page.get_by_role("link", name="Downloads").click()
    idle(page)
    with page.expect_download() as info:
        page.get_by_role("button", name=re.compile(r"^system_scores\.csv")).click()
    path = folder / "system_scores.csv"
    info.value.save_as(path)
    return list(csv.DictReader(path.open(encoding="utf-8")))
