"""``python -m korean_eval.cli.serve APP.py [STREAMLIT OPTIONS…]``: ``streamlit run APP.py …`` in this process, the
dashboard's first screen prepared by a background thread while the server starts (what ``korean-eval app`` runs).

A freshly started dashboard's first run would otherwise import the whole backend and read the bundled sample's
stored result before it can draw a chart — seconds on a small machine, spent after the first visitor arrived.
:func:`prepare_first_screen` does that work as soon as the process starts, in a daemon thread: modules stay imported
for the whole process, so the first run finds them ready (Python's import lock makes a run that arrives earlier
wait for a module being imported, never import it twice). It computes nothing the dashboard keeps, and a failure
there only means the first run does the work itself. It does no more than the first screen needs (its views are
stored by ``compile`` too): the thread shares the interpreter's lock with the server serving the first visitor.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path


def prepare_first_screen() -> None:
    """Import the dashboard's modules and the backend — the metrics' and levels' modules the sidebar lists too —,
    load the bundled sample (the dashboard's shared copy) and its stored result (``korean-eval compile`` stores it),
    and start numba (its first compiled kernel loaded, on a few numbers); errors are ignored (the first run then does
    the work)."""
    try:
        import numpy as np

        import ui.correlation_sections  # noqa: F401  - the first page's modules, and the backend through them
        import ui.grid_charts  # noqa: F401
        import ui.sidebar  # noqa: F401
        from korean_eval.cli.sample_result import dashboard_default_config
        from korean_eval.engine.cache import open_cache
        from korean_eval.engine.result_store import stored_evaluation
        from korean_eval.inputs.sample import shared_sample
        from korean_eval.levels.registry import level_table
        from korean_eval.metaeval.stats.weighted import weighted_correlations
        from korean_eval.metrics import METRIC_NAMES, metric_group

        for name in METRIC_NAMES:  # imports each metric's module, as the sidebar's list of metric groups does
            metric_group(name)
        level_table()  # imports each level's library (KoNLPy's, JPype's) without starting any
        stored_evaluation(shared_sample(), dashboard_default_config(), open_cache())
        # numba's own start (its typing registries, a quarter of a second) comes with the first kernel it loads
        weighted_correlations(np.arange(3.0), np.array([1.0, 3.0, 2.0]), "pearson")
        import scipy.stats  # noqa: F401  - last: the headline's comparison is the first screen's only use of it
    except Exception:  # noqa: BLE001 - an optimisation only: the first run does whatever is left
        pass


def main(argv: list[str] | None = None) -> int:
    """Start :func:`prepare_first_screen` in a daemon thread, then ``streamlit run`` with ``argv`` (the app's path
    first) in this process's main thread (Streamlit's signal handlers need it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(Path(argv[0]).resolve().parent))  # `import ui`, as Streamlit will allow for the script
    threading.Thread(target=prepare_first_screen, name="korean-eval-first-screen", daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", *argv]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
