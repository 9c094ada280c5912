"""The Stop button beside a running computation's progress bar, and what a page says once the user stopped one.

A computation a page starts — an evaluation (:func:`ui.state.results`), the Korean lens
(:func:`ui.lens_state.lens_result`) — draws its progress bar with a Stop button beside it (:class:`StoppableBar`),
keyed by the computation's key (content hash + settings). A click makes Streamlit interrupt the running script at
its next message, which is the next progress report — the engine reports at least every half second while it works
(:mod:`korean_eval.engine.progress`), a lens in a worker process likewise
(:func:`korean_eval.engine.worker_call.run_in_worker`). The exception unwinds the run: its scheduler cancels its queued
tasks, the server's queue gives its slot back, the cache keeps what the run finished and no result
(:mod:`korean_eval.engine.stopping`); a lens
running in a worker process stops at its next report there.

Inside the computation, Streamlit's interruption (the rerun the click asks for, or the Stop of Streamlit's own
header) is turned into :class:`~korean_eval.engine.stopping.EvaluationStopped` (:class:`Interruption`), so the
engine ends as a stopped run does — keeping in the cache what it finished — and raised again outside it, so that
Streamlit reruns or stops the script as it asked. The button's callback, which Streamlit runs first thing in the
rerun the click causes, marks the key as stopped in the session (:func:`stop`); the header's Stop marks it too, by
the session's id (its session state cannot be touched while Streamlit stops the script), and the session's next
:func:`stopped` takes it into its state. A click while a script runs makes Streamlit stop that run and start
another in a new thread; the stop the old thread then meets is not the user's, and is not marked. A page that finds its key stopped says so and offers a button that starts it again
(:func:`stopped_notice`) instead of computing, so the rerun does not silently start the same work again; changed
settings make another key, which computes as usual. A results page meanwhile shows the last results it showed
before on the same data, and says which settings they are for (:func:`ui.state.context`).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable
from typing import TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException, StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from korean_eval.engine.stopping import EvaluationStopped

F = TypeVar("F", bound=Callable)

#: Session-state key of the computation keys the user stopped.
STOPPED_KEY = "ke_stopped"
#: What a page says where a stopped computation's result would be (the button's label filled in).
STOPPED_TEXT = "Stopped — no result for these settings; press **{button}** to go on from what it finished."
#: What it says when the page shows earlier results instead (``kept``: which ones).
STOPPED_KEPT_TEXT = "Stopped — {kept} Press **{button}** to go on with the new settings from what their run finished."


class _HeaderStops:
    """Keys stopped by Streamlit's header Stop, by session id, until that session's next :func:`stopped` moves them
    into its session state (which cannot be touched while Streamlit stops the script: every access raises its
    ``StopException`` again); and the thread of each session's latest script run that asked :func:`stopped` (a
    stop met by an older run's thread is Streamlit ending that run for a newer one — a click while it ran — not the
    user's header Stop). A thread is held weakly: a session's entries go once its runs' threads are gone (its keys
    at the next :meth:`take` of any session)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.keys: dict[str, set[str]] = {}
        self.latest: weakref.WeakValueDictionary[str, threading.Thread] = weakref.WeakValueDictionary()

    def mark(self, session: str, key: str) -> None:
        with self.lock:
            if self.latest.get(session) is threading.current_thread():
                self.keys.setdefault(session, set()).add(key)

    def take(self, session: str) -> set[str]:
        """The keys marked for ``session`` (forgotten here), the calling thread noted as its latest run."""
        with self.lock:
            self.latest[session] = threading.current_thread()
            for gone in [other for other in self.keys if other not in self.latest]:
                del self.keys[gone]
            return self.keys.pop(session, set())


@st.cache_resource(show_spinner=False)
def _header_stops() -> _HeaderStops:
    """The server's one :class:`_HeaderStops` (every session's, each under its own session id)."""
    return _HeaderStops()


def _session_id() -> str | None:
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


def stopped(key: str) -> bool:
    """Whether the user stopped the computation of ``key`` in this session (and did not start it again)."""
    session = _session_id()
    by_header = _header_stops().take(session) if session is not None else set()
    if by_header:
        st.session_state[STOPPED_KEY] = {*st.session_state.get(STOPPED_KEY, ()), *by_header}
    return key in st.session_state.get(STOPPED_KEY, ())


def stop(key: str) -> None:
    """Mark ``key`` as stopped: the Stop button's callback."""
    st.session_state[STOPPED_KEY] = {*st.session_state.get(STOPPED_KEY, ()), key}


def start_again(key: str) -> None:
    """Forget that ``key`` was stopped (a button's callback): the page computes it again."""
    st.session_state[STOPPED_KEY] = set(st.session_state.get(STOPPED_KEY, ())) - {key}


class Interruption:
    """The computation of ``key`` as Streamlit interrupts it: ``with Interruption(key) as interruption:`` around it,
    and its progress callbacks wrapped by :meth:`guard`. A Streamlit interruption raised inside a callback becomes
    :class:`~korean_eval.engine.stopping.EvaluationStopped` there and is raised again when the block ends; the
    header's Stop (Streamlit's ``StopException``), inside or outside the computation, marks ``key`` stopped."""

    def __init__(self, key: str):
        self.key = key
        self.caught: ScriptControlException | None = None
        self.session = _session_id()
        self.header_stops = _header_stops()  # fetched now: nothing of Streamlit can be called once it stops the run

    def _stopped_by_header(self) -> None:
        if self.session is not None:
            self.header_stops.mark(self.session, self.key)

    def guard(self, callback: F) -> F:
        """``callback`` turning Streamlit's interruption into ``EvaluationStopped``."""
        def guarded(*args, **kwargs):
            try:
                return callback(*args, **kwargs)
            except ScriptControlException as exc:
                self.caught = exc
                if isinstance(exc, StopException):
                    self._stopped_by_header()
                raise EvaluationStopped() from exc

        return guarded  # type: ignore[return-value]

    def __enter__(self) -> Interruption:
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if isinstance(exc, StopException):
            self._stopped_by_header()
        if isinstance(exc, EvaluationStopped) and self.caught is not None:
            raise self.caught from None
        return False


def _widget_key(kind: str, key: str) -> str:
    return f"ke_{kind}_{hashlib.sha256(key.encode()).hexdigest()[:20]}"


class StoppableBar:
    """A progress bar with a Stop button beside it, for the computation of ``key``; :meth:`empty` removes both."""

    def __init__(self, key: str, text: str):
        self.slot = st.empty()
        with self.slot.container():
            bar_column, button_column = st.columns([8, 1], vertical_alignment="center")
            self.bar = bar_column.progress(0.0, text=text)
            button_column.button("Stop", key=_widget_key("stop", key), icon=":material/stop_circle:",
                                 on_click=stop, args=(key,), help="Stop this computation; what it finished is kept for the next one")

    def progress(self, fraction: float, text: str) -> None:
        self.bar.progress(min(max(fraction, 0.0), 1.0), text=text)

    def empty(self) -> None:
        self.slot.empty()


def stopped_notice(key: str, button: str, kept: str = "") -> None:
    """Where the result of ``key`` would be: the stopped message and a button labelled ``button`` that starts the
    computation again (its callback forgets the stop, so the rerun it causes computes); ``kept``: the sentences
    saying which earlier results the page shows instead, when it does."""
    text = STOPPED_KEPT_TEXT.format(kept=kept, button=button) if kept else STOPPED_TEXT.format(button=button)
    st.info(text, icon=":material/stop_circle:")
    st.button(button, key=_widget_key("again", key), type="primary", icon=":material/play_arrow:",
              on_click=start_again, args=(key,))
