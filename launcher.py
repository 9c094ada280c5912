"""``python launcher.py app.py [STREAMLIT OPTIONS…]``: ``streamlit run app.py …`` in this process, the dashboard's
first screen prepared by a background thread while the server starts (what ``korean-eval app`` runs).

A freshly started dashboard's first run would otherwise import the whole backend and read the bundled sample's
stored result before it can draw a chart — seconds on a small machine, spent after the first visitor arrived.
:func:`prepare_first_screen` does that work as soon as the process starts, in a daemon thread: modules stay imported
for the whole process, so the first run finds them ready (Python's import lock makes a run that arrives earlier
wait for a module being imported, never import it twice). It computes nothing the dashboard keeps, and a failure
there only means the first run does the work itself. It does only what the first screen needs (its statistics are
stored by ``compile``): the thread shares the interpreter's lock, and the machine's cores, with the server and the
browser serving the first visitor. What only later pages need — numba's start, ``scipy.stats`` — is warmed by
:func:`prepare_later_pages` once the first visitor's page has been sent and drawn.

A module that one thread is still importing is half-initialised for every other thread that finds it in
``sys.modules``: Plotly (and narwhals, through it) look there for numpy, pandas and pyarrow whenever a figure is
built, and fail on a half-imported one ("partially initialized module 'pandas' has no attribute 'Series'"); and
two threads importing each other's modules at once are handed half-initialised modules by Python itself. So
Streamlit, Plotly, numpy, pandas and pyarrow are imported before the thread starts (≈ 0.5 s), and the dashboard's
script waits (:func:`wait_for_first_screen`) before importing the dashboard's modules itself.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

#: Seconds :func:`prepare_later_pages` waits for a first visitor before warming anyway.
FIRST_VISIT_WAIT_SECONDS = 60.0
#: Seconds it then leaves the visitor's browser to load Plotly's script and draw the charts (≈ 1.3 s measured on
#: 2 cores after the server has sent the page), so that the warming competes with neither.
BROWSER_DRAW_SECONDS = 3.0
#: The longest a run waits for the background start (:func:`wait_for_first_screen`).
FIRST_SCREEN_WAIT_SECONDS = 120.0
_FIRST_SCREEN_READY = threading.Event()
_FIRST_SCREEN_READY.set()  # cleared while the background start prepares the first screen
_PAGE_SENT = threading.Event()  # set once a run of the dashboard's script has sent its whole page


def wait_for_first_screen() -> None:
    """Return once the background start has prepared the first screen — at once in a process that does not run it
    (``streamlit run app.py``), at the latest after :data:`FIRST_SCREEN_WAIT_SECONDS`."""
    _FIRST_SCREEN_READY.wait(FIRST_SCREEN_WAIT_SECONDS)


def page_sent() -> None:
    """Record that a run of the dashboard's script has sent its whole page (the dashboard's script calls it)."""
    _PAGE_SENT.set()


def wait_for_first_page(timeout: float) -> bool:
    """Wait until a run has sent its whole page (True) or ``timeout`` seconds have passed (False)."""
    return _PAGE_SENT.wait(timeout)


def prepare_in_background() -> None:
    """:func:`prepare_first_screen` (then releasing :func:`wait_for_first_screen`), then, if it succeeded,
    :func:`prepare_later_pages`."""
    try:
        prepared = prepare_first_screen()
    finally:
        _FIRST_SCREEN_READY.set()
    if prepared:
        prepare_later_pages()


def prepare_first_screen() -> bool:
    """Import what the first run needs — the dashboard's modules and the backend, the metrics' and levels' modules the
    sidebar lists —, and load the bundled sample (the dashboard's shared copy) and its stored result (``korean-eval
    compile`` stores it). Returns False on an error, which it ignores (the first run then does the work)."""
    try:
        import ui.correlation_sections  # noqa: F401  - the first page's modules, and the backend through them
        import ui.grid_charts  # noqa: F401
        import ui.sidebar  # noqa: F401
        from korean_eval.cli.sample_result import dashboard_default_config
        from korean_eval.engine.cache import open_cache
        from korean_eval.engine.result_store import stored_evaluation
        from korean_eval.inputs.sample import shared_sample
        from korean_eval.levels.registry import level_table
        from korean_eval.metrics import metric_group, metric_names

        for name in metric_names():  # imports each metric's module, as the sidebar's list of metric groups does
            metric_group(name)
        level_table()  # imports each level's library (KoNLPy's, JPype's) without starting any
        stored_evaluation(shared_sample(), dashboard_default_config(), open_cache())
    except Exception:  # noqa: BLE001 - an optimisation only: the first run does whatever is left
        return False
    return True


def prepare_later_pages() -> None:
    """Once a first visitor's page has been sent (or after :data:`FIRST_VISIT_WAIT_SECONDS` without one) and
    :data:`BROWSER_DRAW_SECONDS` later: start numba (its typing registries, a quarter of a second, come with the
    first kernel it loads; run on a few numbers) and import ``scipy.stats`` (half a second), which the first screen
    does not use but most other views do; errors are ignored."""
    try:
        import numpy as np

        from korean_eval.metaeval.stats.weighted import weighted_correlations

        wait_for_first_page(FIRST_VISIT_WAIT_SECONDS)
        time.sleep(BROWSER_DRAW_SECONDS)
        weighted_correlations(np.arange(3.0), np.array([1.0, 3.0, 2.0]), "pearson")
        import scipy.stats  # noqa: F401
    except Exception:  # noqa: BLE001 - an optimisation only
        pass


def start_in_background() -> None:
    """Import Streamlit, the Plotly modules its first chart needs and the modules Plotly looks for in ``sys.modules``
    (here, before any other thread imports: module docstring), then start :func:`prepare_in_background` in a daemon
    thread; :func:`wait_for_first_screen` waits for its first part."""
    import numpy  # noqa: F401  - found in sys.modules by Plotly's validators and narwhals
    import pandas  # noqa: F401
    import plotly.io  # noqa: F401  - what Streamlit's first chart (the page's warm-up chart) imports
    import plotly.tools  # noqa: F401
    import pyarrow  # noqa: F401
    import streamlit.web.cli  # noqa: F401

    _FIRST_SCREEN_READY.clear()
    threading.Thread(target=prepare_in_background, name="korean-eval-first-screen", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    """:func:`start_in_background`, then ``streamlit run`` with ``argv`` (the app's path first) in this process's main
    thread (Streamlit's signal handlers need it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(Path(argv[0]).resolve().parent))  # `import ui`, as Streamlit will allow for the script
    start_in_background()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", *argv]
    return cli.main()


if __name__ == "__main__":  # run as a script: go on as the module ``launcher``, the one the dashboard's script imports
    import launcher

    sys.exit(launcher.main())
