"""Session state of the dashboard: the current data, the settings, and cached results.

* The current :class:`EvalSet` lives in ``st.session_state`` (the bundled sample until the user loads other data).
* Results are kept in a small in-process store keyed by ``EvalSet.content_hash()`` + ``EvalConfig.as_dict()``
  (+ the hash of a user-supplied SentencePiece model), shared by all sessions: switching pages or changing a display
  option (statistic, grouping, chart toggles) never recomputes; the backend's :class:`DiskCache` makes even a new
  setting cheap for tokenisations and statistics seen before. Tables a page derives from the results only to draw
  them (the correlation view, the score tables) are kept the same way, with every statistics table a page computes
  from a result (:mod:`ui.statistics_state`), so a rerun that changes nothing in them does not build them again.
* Token levels take effect together, when the sidebar's Apply button is pressed (:data:`APPLIED_LEVELS_KEY`): ticking
  several levels starts one evaluation, not one per tick.
* While computing, a progress bar follows the pipeline's ``progress(fraction, message)`` callback; its Stop button
  stops the evaluation, and the pages then wait for a button rather than start it again (:mod:`ui.stopping`),
  showing meanwhile the last results this session saw finished on the same data (:data:`LAST_SHOWN_KEY`), with a
  note naming the settings they are for.
* Several users (:mod:`ui.service`): an evaluation larger than the server's limit (pairs × levels) is refused with
  a message; a new one computes when the queue gives it a turn ("Waiting: position 2 of 3" meanwhile); sessions that
  ask for the same evaluation at the same time (same content hash and settings) share one computation; a stored
  result no session used for ``result_idle_seconds`` leaves memory
  (:meth:`ui.shared_store.SharedStore.sweep`; the disk cache keeps it).
  Every store is keyed by content hashes, never by a file name or by which session came first, and nothing a user
  uploads is written to a file.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

import streamlit as st

from korean_eval.engine import stored_views
from korean_eval.engine.cache import NullCache, open_cache
from korean_eval.engine.limits import size_problem
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.pools import analyzers_in_workers
from korean_eval.engine.tokenise_stage import prepare_level
from korean_eval.engine.worker_call import run_in_worker
from korean_eval.engine.workers import (
    holds_large_model,
    level_role,
    task_tokenize,
)
from korean_eval.inputs.sample import shared_sample
from korean_eval.levels.registry import level_class
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import Results
from ui import directions, service, stopping
from ui.navigation import app_run, enter_page, resume_target_page  # noqa: F401  (the pages call them here)
from ui.shared_store import SharedStore
from ui.widgets import input_error, md_escape

EVALSET_KEY = "ke_evalset"
SOURCE_KEY = "ke_source"
SETTINGS_KEY = "ke_settings"
#: Session-state key prefix of the sidebar's token level checkboxes (``level|kiwi``: ticked or not).
LEVEL_PREFIX = "level|"
#: Session-state key of the token levels applied (the sidebar's Apply button): the levels the pages compute.
APPLIED_LEVELS_KEY = "ke_levels_applied"
#: Session-state key of the last results this session was shown: (content hash of the data, results key, config).
LAST_SHOWN_KEY = "ke_last_shown"
SAMPLE_LABEL = "bundled sample"
MAX_RESULTS = 6
#: The button that starts a stopped evaluation again.
EVALUATE_BUTTON = "Evaluate"


@dataclass(frozen=True)
class Settings:
    """The sidebar's choices: what to compute (``config``) and how to show correlations."""

    config: EvalConfig
    statistic: str = "pearson"
    grouping: str = "none"


@dataclass
class Context:
    evalset: EvalSet
    settings: Settings
    results: Results
    key: str

    @property
    def has_human(self) -> bool:
        return self.evalset.human is not None and not self.results.correlations.empty


# ------------------------------------------------------------------------------------------------- data


@st.cache_resource(show_spinner=False)
def disk_cache() -> NullCache:
    return open_cache()


def evalset() -> EvalSet | None:
    """The current evaluation set (the sample unless the user loaded data); None if the sample cannot load."""
    current = st.session_state.get(EVALSET_KEY)
    if current is not None:
        return current
    try:
        return shared_sample()
    except (OSError, ValueError) as err:
        st.error(f"The bundled sample could not be loaded ({md_escape(err)}). Load data on the Data page.")
        return None


def source() -> str:
    return st.session_state.get(SOURCE_KEY, SAMPLE_LABEL)


def is_sample() -> bool:
    return EVALSET_KEY not in st.session_state


def use(evalset: EvalSet, label: str) -> None:
    """Make ``evalset`` the data of every page."""
    st.session_state[EVALSET_KEY] = evalset
    st.session_state[SOURCE_KEY] = label


def use_sample() -> None:
    st.session_state.pop(EVALSET_KEY, None)
    st.session_state.pop(SOURCE_KEY, None)


def upload_limit_bytes() -> int:
    """Per-file upload limit of the dashboard: ``server.maxUploadSize`` (MB, ``.streamlit/config.toml``). The
    server refuses bigger uploads itself; the Data page checks again, so a file that arrives some other way is
    refused with a message naming it too."""
    return int(st.config.get_option("server.maxUploadSize")) * 2**20


# --------------------------------------------------------------------------------------------- settings


def store_settings(settings: Settings) -> None:
    st.session_state[SETTINGS_KEY] = settings


def settings() -> Settings:
    return st.session_state.get(SETTINGS_KEY) or Settings(EvalConfig())


def apply_levels(levels: tuple[str, ...]) -> None:
    """Make ``levels`` the applied token levels and tick exactly their checkboxes (a button's callback)."""
    st.session_state[APPLIED_LEVELS_KEY] = tuple(levels)
    for key in [k for k in st.session_state if str(k).startswith(LEVEL_PREFIX)]:
        st.session_state[key] = str(key).removeprefix(LEVEL_PREFIX) in levels


# ---------------------------------------------------------------------------------------------- results


@st.cache_resource(show_spinner=False)
def _store() -> SharedStore:
    return SharedStore(MAX_RESULTS, service.limits().result_idle_seconds)


class _Flights:
    """Evaluations being computed now, by key, so that a second session asking for the same one waits for it
    instead of computing it again; each with the last progress (fraction, message) its computing session saw."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[str, tuple[threading.Event, list]] = {}

    def lead(self, key: str) -> tuple[threading.Event, list] | None:
        """None when the caller now computes ``key`` (it must call :meth:`done`); else the running computation's
        (event set at its end, [fraction, message])."""
        with self.lock:
            if key in self.running:
                return self.running[key]
            self.running[key] = (threading.Event(), [0.0, "Starting the evaluation…"])
            return None

    def report(self, key: str, fraction: float, message: str) -> None:
        with self.lock:
            if key in self.running:
                self.running[key][1][:] = [fraction, message]

    def done(self, key: str) -> None:
        with self.lock:
            entry = self.running.pop(key, None)
        if entry is not None:
            entry[0].set()


@st.cache_resource(show_spinner=False)
def _flights() -> _Flights:
    return _Flights()


def results_key(evalset: EvalSet, config: EvalConfig) -> str:
    """Content hash of the data + every setting that changes the numbers (:func:`stored_views.content_key`)."""
    return stored_views.content_key(evalset, config)


def results(evalset: EvalSet, config: EvalConfig, show_last: bool = False) -> Results | None:
    """Cached results, computed with a progress bar when new; None (after a message) if they cannot be: too large
    for the server's limit, the queue full, an error of the data, or stopped by the user (the bar's Stop button,
    :mod:`ui.stopping`: the page then says so and waits for the :data:`EVALUATE_BUTTON` button; ``show_last``: and
    names the settings of the last results shown instead, :func:`context`).

    A new evaluation waits for its turn in the server's queue (:func:`ui.service.queued`). While one session
    computes it, another asking for the same key (same content and settings) follows that computation's progress
    and takes its result; if the computing session goes away, the next one computes it."""
    key = results_key(evalset, config)
    store = _store()
    hit = store.get(key)
    if hit is not None:
        return hit
    if stopping.stopped(key):  # the user stopped this evaluation: it waits for the button
        if show_last:
            _stopped_notice(key, evalset, config)
        else:
            stopping.stopped_notice(key, EVALUATE_BUTTON)
        return None
    pairs = evalset.system_pairs()
    problem = size_problem(pairs, len(config.levels), service.limits())
    if problem:
        st.error(problem, icon=":material/block:")
        return None
    with stopping.Interruption(key) as interruption:
        return _evaluate_with_bar(key, evalset, config, pairs, store, interruption)


def _evaluate_with_bar(key: str, evalset: EvalSet, config: EvalConfig, pairs: int, store,
                       interruption: stopping.Interruption):
    """:func:`results`' computation: the bar, the other session's progress when it computes the same key, the
    server's queue, then the evaluation."""
    bar = stopping.StoppableBar(key, "Starting the evaluation…")
    flights = _flights()
    while (running := flights.lead(key)) is not None:
        event, last = running
        while not event.wait(0.5):  # the other session's progress, twice a second
            bar.progress(last[0], f"{last[1]} ({last[0]:.0%})")
        hit = store.get(key)
        if hit is not None:
            bar.empty()
            return hit

    @interruption.guard
    def progress(fraction: float, message: str) -> None:
        flights.report(key, fraction, message)
        bar.progress(fraction, f"{message} ({fraction:.0%})")

    @interruption.guard
    def show(text: str) -> None:
        bar.progress(0.0, text)

    try:
        res = service.queued(lambda: evaluate(evalset, config, progress=progress, cache=disk_cache()), pairs, show)
    except (ValueError, RuntimeError) as err:
        bar.empty()
        input_error(err)
        return None
    finally:
        flights.done(key)
    bar.empty()
    if res is not None:
        store.put(key, res)
    return res


def context() -> Context:
    """What a results page needs; stops the page with a message when there is no data or no result."""
    data = evalset()
    if data is None:
        st.stop()
    cfg = settings()
    if not cfg.config.levels and data.given is None:
        st.warning("Choose at least one token level in the sidebar.")
        st.stop()
    if not cfg.config.metrics and data.given is None:
        st.warning("Choose at least one metric in the sidebar.")
        st.stop()
    key = results_key(data, cfg.config)
    res = results(data, cfg.config, show_last=True)
    if res is None:
        last = _last_shown(data, key)
        if last is None:
            st.stop()
        key, config, res = last
        cfg = Settings(config, cfg.statistic, cfg.grouping)
    else:
        st.session_state[LAST_SHOWN_KEY] = (data.content_hash(), key, cfg.config)
    if data.given is not None:
        directions.warning(res)
    return Context(data, cfg, res, key)


def _last_shown(data: EvalSet, stopped_key: str) -> tuple[str, EvalConfig, Results] | None:
    """The last results this session was shown on ``data`` — ``(key, config, results)`` — when the evaluation of
    ``stopped_key`` was stopped by the user and they are still in the store; else None."""
    last = st.session_state.get(LAST_SHOWN_KEY)
    if last is None or not stopping.stopped(stopped_key) or last[0] != data.content_hash() or last[1] == stopped_key:
        return None
    res = _store().get(last[1])
    return None if res is None else (last[1], last[2], res)


def settings_text(config: EvalConfig) -> str:
    """The settings of ``config`` a reader tells results apart by: ``levels word, kiwi · metrics BLEU, chrF``."""
    from ui.views import metric_label

    return (f"levels {', '.join(config.levels) or '—'} · metrics "
            f"{', '.join(metric_label(m) for m in config.metrics) or '—'}")


def _stopped_notice(key: str, evalset: EvalSet, config: EvalConfig) -> None:
    """What the page says where the result of the stopped evaluation ``key`` would be: the stopped message and the
    button that goes on with it; when the last results this session saw on the same data are shown instead, which
    settings they are for, and a button back to their token levels when only those differ."""
    last = _last_shown(evalset, key)
    if last is None:
        stopping.stopped_notice(key, EVALUATE_BUTTON)
        return
    shown = last[1]
    same_but_levels = dataclasses.replace(shown, levels=config.levels) == config
    kept = (f"no result yet for the new settings ({settings_text(config)}); the page shows the last finished "
            f"results, for {settings_text(shown)}"
            + ("" if same_but_levels else ", with other settings as they were then") + ".")
    stopping.stopped_notice(key, EVALUATE_BUTTON, kept=kept)
    if same_but_levels and shown.levels != config.levels:
        st.button(f"Back to levels {', '.join(shown.levels)}", key=f"ke_back_{key[:16]}", icon=":material/undo:",
                  on_click=apply_levels, args=(shown.levels,))


# ----------------------------------------------------------------------------------------------- tokens


@st.cache_resource(show_spinner="Starting the tokenizer…", max_entries=32)
def _level(name: str, data_hash: str, spm: str, _evalset: EvalSet, _config: EvalConfig):
    return prepare_level(name, _evalset, _config)


def spm_key(config: EvalConfig) -> str:
    """What decides the SentencePiece pieces: the vocabulary of the trained model, or the user's model (hash)."""
    return config.spm_model_id or f"trained:{config.spm_vocab}"


def tokenize(text: str, levels: list[str], evalset: EvalSet, config: EvalConfig) -> dict[str, list[str]]:
    """``text`` tokenised at each level (SentencePiece trained on the current references, as in the pipeline). The
    analyzers with a large model tokenise in a worker process when the server keeps them there
    (:func:`korean_eval.engine.pools.analyzers_in_workers`): their tokens are then the space-joined tokens the
    pipeline scores, split again."""
    out: dict[str, list[str]] = {}
    for name in levels:
        if holds_large_model(name) and analyzers_in_workers():
            (joined, _seconds, _fallbacks), _cpu = run_in_worker(task_tokenize, (name, [text]), level_role(name))
            out[name] = joined[0].split()
            continue
        per_evaluation = level_class(name).trained_on_references
        level = _level(name, evalset.content_hash() if per_evaluation else "", spm_key(config), evalset, config)
        out[name] = level.tokenize_one(text)
    return out


@st.cache_data(show_spinner="Timing the tokenizers without the cache…", max_entries=8)
def tokenizer_timing(
    data_hash: str, levels: tuple[str, ...], spm: str, _evalset: EvalSet, _config: EvalConfig
) -> list[dict]:
    """Seconds each level takes to tokenise every distinct text of the data from scratch (no cache)."""
    texts = [r for stream in _evalset.refs for r in stream]
    texts += [h for hyps in _evalset.systems.values() for h in hyps if h is not None]
    rows = []
    for name in levels:
        if holds_large_model(name) and analyzers_in_workers():  # the model stays out of the server
            (_joined, seconds, _fallbacks), _cpu = run_in_worker(task_tokenize, (name, list(set(texts))),
                                                                 level_role(name))
            rows.append({"level": name, "seconds": seconds, "texts": len(set(texts))})
            continue
        level = prepare_level(
            name, _evalset, EvalConfig(levels=(name,), spm_vocab=_config.spm_vocab, spm_model=_config.spm_model)
        )
        result = level.tokenize(texts)
        rows.append({"level": name, "seconds": result.seconds, "texts": len(set(texts))})
    return rows
