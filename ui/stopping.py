"""The Stop button beside a running computation's progress bar, and what a page says once the user stopped one.

A computation a page starts — an evaluation (:func:`ui.state.results`), the Korean lens
(:func:`ui.lens_state.lens_result`) — draws its progress bar with a Stop button beside it (:class:`StoppableBar`),
keyed by the computation's key (content hash + settings). A click makes Streamlit interrupt the running script at
its next message, which is the next progress report — the engine reports at least every half second while it works
(:mod:`korean_eval.engine.progress`), a lens in a worker process likewise
(:func:`korean_eval.engine.worker_call.run_in_worker`). The exception unwinds the run: its scheduler cancels its queued
tasks, the server's queue gives its slot back, the cache gets nothing (:mod:`korean_eval.engine.stopping`); a lens
running in a worker process stops at its next report there.

The button's callback, which Streamlit runs first thing in the rerun the click causes, marks the key as stopped in
the session (:func:`stop`). A page that finds its key stopped says so and offers a button that starts it again
(:func:`stopped_notice`) instead of computing, so the rerun does not silently start the same work again; changed
settings make another key, which computes as usual.
"""

from __future__ import annotations

import hashlib

import streamlit as st

#: Session-state key of the computation keys the user stopped.
STOPPED_KEY = "ke_stopped"
#: What a page says where a stopped computation's result would be (the button's label filled in).
STOPPED_TEXT = "Stopped — nothing computed for these settings; press **{button}** to start again."


def stopped(key: str) -> bool:
    """Whether the user stopped the computation of ``key`` in this session (and did not start it again)."""
    return key in st.session_state.get(STOPPED_KEY, ())


def stop(key: str) -> None:
    """Mark ``key`` as stopped: the Stop button's callback."""
    st.session_state[STOPPED_KEY] = {*st.session_state.get(STOPPED_KEY, ()), key}


def start_again(key: str) -> None:
    """Forget that ``key`` was stopped (a button's callback): the page computes it again."""
    st.session_state[STOPPED_KEY] = set(st.session_state.get(STOPPED_KEY, ())) - {key}


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
                                 on_click=stop, args=(key,), help="Stop this computation; nothing of it is kept")

    def progress(self, fraction: float, text: str) -> None:
        self.bar.progress(min(max(fraction, 0.0), 1.0), text=text)

    def empty(self) -> None:
        self.slot.empty()


def stopped_notice(key: str, button: str) -> None:
    """Where the result of ``key`` would be: the stopped message and a button labelled ``button`` that starts the
    computation again (its callback forgets the stop, so the rerun it causes computes)."""
    st.info(STOPPED_TEXT.format(button=button), icon=":material/stop_circle:")
    st.button(button, key=_widget_key("again", key), type="primary", icon=":material/play_arrow:",
              on_click=start_again, args=(key,))
