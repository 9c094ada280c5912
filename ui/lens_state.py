"""The "Korean lens" page's cached result (as :mod:`ui.state` keeps the pipeline's results).

:func:`lens_result` runs :func:`korean_eval.lens.run.run_lens` on the current data with the sidebar's token levels
and metrics (the probe's configurations), the dashboard's seed and resample count, with a progress bar, and keeps
the result in a small in-process store shared by all sessions, keyed by the data's content hash + every setting
that changes a number; the backend's disk cache keeps the Kiwi analyses, tokens and statistics. What the user asked
for with a button (the lens or its probe, when their estimate is long) is remembered per session (:func:`ask`).
Like an evaluation, the lens waits for its turn in the server's queue and is refused beyond the server's size limit
(:mod:`ui.service`); when the server keeps the large analyzers out of its own process, the lens runs in a worker
process of its own (:data:`korean_eval.engine.workers.LENS_ROLE`), which ends with the other pools when idle. Its
progress bar has a Stop button (:mod:`ui.stopping`); a stopped lens waits for its button.
"""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from korean_eval.engine.limits import size_problem
from korean_eval.engine.pools import analyzers_in_workers
from korean_eval.engine.worker_call import run_in_worker
from korean_eval.engine.workers import LENS_ROLE
from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.lens.perturb import KINDS
from korean_eval.lens.run import LensResult, run_lens, run_lens_with_disk_cache
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from ui import service, state, statistics_state, stopping
from ui.formats import duration
from ui.shared_store import SharedStore
from ui.widgets import input_error

MAX_RESULTS = 3
#: Lens work estimated (:func:`korean_eval.lens.costs.lens_estimate`) at up to this many seconds runs when the page
#: opens; longer work waits for its button.
AUTO_SECONDS = 20
#: Session-state key of the lens keys (:func:`lens_key`) the user asked for with a button.
ASKED_KEY = "ke_lens_asked"
#: The button that runs the lens (and starts a stopped one again).
RUN_BUTTON = "Run the Korean lens"
#: The button that runs the perturbation probe (and starts a stopped one again).
PROBE_BUTTON = "Run the perturbation probe"


@st.cache_resource(show_spinner=False)
def _store() -> SharedStore:
    return SharedStore(MAX_RESULTS, service.limits().result_idle_seconds)


@st.cache_resource(show_spinner=False)
def _files_store() -> SharedStore:
    return SharedStore(MAX_RESULTS, service.limits().result_idle_seconds)


def lens_key(evalset: EvalSet, config: EvalConfig, with_probe: bool) -> str:
    """Content hash of the data + the settings of the lens (levels, metrics, options, kinds, seed, resamples)."""
    spec = json.dumps([with_probe, list(KINDS), statistics_state.SEED, statistics_state.N_RESAMPLES], sort_keys=True)
    return "lens|" + state.results_key(evalset, config) + "|" + hashlib.sha256(spec.encode()).hexdigest()


def cached_lens(evalset: EvalSet, config: EvalConfig, with_probe: bool) -> LensResult | None:
    """The lens of these data and settings if it was computed already (never computes), else None."""
    return _store().get(lens_key(evalset, config, with_probe))


def ask(key: str) -> None:
    """Remember that the user asked for the lens of ``key`` (:func:`lens_key`), and forget that it was stopped: a
    button's callback."""
    st.session_state[ASKED_KEY] = {*st.session_state.get(ASKED_KEY, ()), key}
    stopping.start_again(key)


def asked(key: str) -> bool:
    """Whether the user asked for the lens of ``key`` in this session (:func:`ask`)."""
    return key in st.session_state.get(ASKED_KEY, ())


def lens_result(evalset: EvalSet, config: EvalConfig, with_probe: bool | None = None,
                estimate: float | None = None) -> LensResult | None:
    """The lens on ``evalset`` (cached), computed with a progress bar when new (``estimate``: its expected seconds,
    said in the bar); the probe runs when ``with_probe`` (default: when ``config`` has levels and metrics). None
    (after an error message) when it cannot be computed."""
    if with_probe is None:
        with_probe = bool(config.levels and config.metrics)
    key = lens_key(evalset, config, with_probe)
    store = _store()
    hit = store.get(key)
    if hit is not None:
        return hit
    if stopping.stopped(key):  # the user stopped it: it waits for the button
        stopping.stopped_notice(key, RUN_BUTTON)
        return None
    pairs = evalset.system_pairs()
    problem = size_problem(pairs, len(config.levels) if with_probe else 1, service.limits())
    if problem:
        st.error(problem, icon=":material/block:")
        return None
    expected = f", {duration(estimate)} expected" if estimate is not None else ""
    with stopping.Interruption(key) as interruption:
        result = _lens_with_bar(key, evalset, config, with_probe, pairs, f"Starting the Korean lens{expected}…",
                                interruption)
    if result is not None:
        store.put(key, result)
    return result


def _lens_with_bar(key: str, evalset: EvalSet, config: EvalConfig, with_probe: bool, pairs: int, start_text: str,
                   interruption: stopping.Interruption) -> LensResult | None:
    """:func:`lens_result`'s computation: the bar, the server's queue, then the lens (in a worker process of its
    own when the analyzers run only in workers)."""
    bar = stopping.StoppableBar(key, start_text)

    @interruption.guard
    def progress(fraction: float, message: str) -> None:
        bar.progress(fraction, f"{message} ({fraction:.0%})")

    def run() -> LensResult:
        if analyzers_in_workers():
            return run_in_worker(run_lens_with_disk_cache,
                                 (evalset, config, with_probe, statistics_state.SEED, statistics_state.N_RESAMPLES), LENS_ROLE, progress)
        return run_lens(evalset, config, with_probe=with_probe, seed=statistics_state.SEED, n_resamples=statistics_state.N_RESAMPLES,
                        cache=state.disk_cache(), progress=progress)

    try:
        result = service.queued(run, pairs, interruption.guard(lambda text: bar.progress(0.0, text)))
    except (ValueError, RuntimeError) as err:
        bar.empty()
        input_error(err)
        return None
    bar.empty()
    return result


def table_files(evalset: EvalSet, config: EvalConfig, result: LensResult) -> dict[str, bytes]:
    """``result.tables()`` as CSV bytes (:func:`korean_eval.exports.csv_zip.to_csv_bytes`, the files of ``profile --out``),
    made once per result of :func:`lens_result` (same key) rather than on every rerun of the page."""
    key = lens_key(evalset, config, result.probe is not None)
    store = _files_store()
    hit = store.get(key)
    if hit is None:
        hit = {name: to_csv_bytes(frame) for name, frame in result.tables().items()}
        store.put(key, hit)
    return hit
