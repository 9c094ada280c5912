"""``python -m korean_eval.cli.serve APP.py [STREAMLIT OPTIONS…]``: ``streamlit run APP.py …`` in this process, the
dashboard's first screen prepared by a background thread while the server starts (what ``korean-eval app`` runs).

A freshly started dashboard's first run would otherwise import the whole backend, read the bundled sample's stored
result and load the compiled kernels of the headline's significance tests before it can draw a chart — seconds on
a small machine, spent after the first visitor arrived. :func:`prepare_first_screen` does that work as soon as the
process starts, in a daemon thread: modules stay imported and kernels loaded for the whole process, so the first run
finds them ready (Python's import lock makes a run that arrives earlier wait for a module being imported, never
import it twice). It computes nothing the dashboard keeps, and a failure there only means the first run does the
work itself.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path


def prepare_first_screen() -> None:
    """Import the dashboard's modules and the backend, load the bundled sample's stored result (``korean-eval
    compile`` stores it) and run the headline's top-cluster tests on it once (their kernels loaded); errors are
    ignored (the first run then does the work)."""
    try:
        import ui.correlation_sections  # noqa: F401  - the first page's modules, and the backend through them
        import ui.grid_charts  # noqa: F401
        import ui.sidebar  # noqa: F401
        from korean_eval.cli.sample_result import dashboard_default_config
        from korean_eval.engine.cache import open_cache
        from korean_eval.engine.result_store import stored_evaluation
        from korean_eval.inputs.sample import load_sample
        from korean_eval.metaeval.tables.significance import top_cluster_table
        from korean_eval.model.defaults import RESAMPLES, SEED

        results, _ = stored_evaluation(load_sample(), dashboard_default_config(), open_cache())
        if results is not None:
            for granularity in ("segment", "system"):
                top_cluster_table(results, "pearson", granularity, "none", n_permutations=RESAMPLES, seed=SEED)
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
