"""CPU of the dashboard's page runs and of its figures, on the bundled sample (word, kiwi, char × the five sacrebleu
metrics), in this process.

    python benchmarks/bench_app_pages.py              # every page: first run, then 5 reruns each
    python benchmarks/bench_app_pages.py --reruns 10

Each page is run through Streamlit's AppTest (the page script as a server runs it, without a browser): the first
run of the session evaluates the sample (with an empty cache directory; the numba kernels scripts/setup compiled are
copied in, as the tests do), then
every page is opened once and rerun ``--reruns`` times with nothing changed — what a widget click on that page
costs when everything is cached. Printed per page: CPU milliseconds of this process per rerun (the page script and
AppTest's own work). Then each chart of the Correlations and Scores pages is built 20 times: milliseconds per figure
as the dashboard builds it (:func:`ui.figures.figure`, the template as Plotly's default) and with the template named
in the layout (Plotly deep-copies and validates it for every figure), with their ratio. The machine's load average
is printed: other work on a shared machine inflates every figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CACHE = Path(tempfile.mkdtemp(prefix="korean-eval-bench-pages-"))
os.environ["KOREAN_EVAL_CACHE_DIR"] = str(CACHE)
#: The numba kernels scripts/setup compiled, copied (as tests/conftest.py does) so that none is compiled again.
KERNELS = ROOT / ".venv" / "numba-kernels"
if "NUMBA_CACHE_DIR" not in os.environ and KERNELS.is_dir():
    shutil.copytree(KERNELS, CACHE / "numba")

PAGES = ["pages/correlations.py", "pages/scores.py", "pages/segments.py", "pages/tokens.py", "pages/data.py",
         "pages/downloads.py", "pages/lens.py"]
SETTINGS = {"level|mecab": False, "level|jamo": False}  # word, kiwi, char


def cpu_ms(action: Callable[[], object], repeat: int) -> float:
    """CPU milliseconds of this process per call of ``action``."""
    start = time.process_time()
    for _ in range(repeat):
        action()
    return (time.process_time() - start) / repeat * 1000


def page_runs(reruns: int) -> list[tuple[str, float]]:
    """(page, CPU ms per rerun) of every page after a first run that evaluated the sample."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    for key, value in SETTINGS.items():
        at.session_state[key] = value
    first = cpu_ms(at.run, 1)
    assert not at.exception, [e.value for e in at.exception]
    rows = [("first run (evaluates the sample)", first)]
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        rows.append((page, cpu_ms(at.run, reruns)))
    return rows


def figure_builds() -> list[tuple[str, float, float]]:
    """(chart, ms per figure as built, ms with the template named in the layout) of the sample's charts."""
    import plotly.io as pio

    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.metaeval.tables.system_pairs import pairwise_accuracy_table
    from korean_eval.model.config import EvalConfig
    from ui import charts, figures, grid_charts, significance_views, views

    res = evaluate(load_sample(), EvalConfig(levels=("word", "kiwi", "char")))
    view = views.correlation_view(res, "pearson", "none")
    accuracy = significance_views.accuracy_view(pairwise_accuracy_table(res), res)
    builds = {
        "correlation bars (15 bars)": lambda: grid_charts.correlation_chart(view, "segment", "pearson", "auto"),
        "correlation grid (15 cells)": lambda: grid_charts.correlation_chart(view, "segment", "pearson", "grid"),
        "ranking (5 systems)": lambda: charts.bump_chart(views.rank_paths(res, "bleu"), "BLEU"),
        "flipped pairs": lambda: grid_charts.flip_heatmap(views.flip_counts(res), 10),
        "pairwise accuracy": lambda: grid_charts.accuracy_chart(accuracy),
    }
    rows = []
    for name, build in builds.items():
        pio.templates.default = figures.TEMPLATE
        fast = cpu_ms(build, 20)
        pio.templates.default = "plotly"  # figures.figure names the template in the layout
        named = cpu_ms(build, 20)
        rows.append((name, fast, named))
    pio.templates.default = figures.TEMPLATE
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reruns", type=int, default=5, help="reruns per page (default 5)")
    args = parser.parse_args()
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n| page | CPU ms per rerun |\n| --- | ---: |")
    for page, ms in page_runs(args.reruns):
        print(f"| {page} | {ms:,.0f} |")
    print("\n| chart | ms per figure | template named: ms | ratio |\n| --- | ---: | ---: | ---: |")
    for name, fast, named in figure_builds():
        print(f"| {name} | {fast:.1f} | {named:.1f} | {named / fast:.1f}× |")
    print(f"\nload average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
