"""Which page runs: app.py's navigation hands each run to a page, and a page opened without app.py goes through it.

Kept apart from :mod:`ui.state` so that the annotation page, which an annotator's link opens, needs none of the
evaluation's modules.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import streamlit as st

TARGET_KEY = "ke_target_page"

_run = threading.local()


@contextmanager
def app_run():
    """Marks a page run as started by app.py (which draws the shared sidebar and settings)."""
    _run.active = True
    try:
        yield
    finally:
        _run.active = False


def enter_page(path: str) -> None:
    """First line of every page: a page opened without app.py goes through it and comes back, with its query
    parameters (an annotator's token).

    Streamlit runs ``pages/*.py`` on their own (its older multipage mode, because the folder is called ``pages``)
    for a link straight to a page until some session has run app.py's ``st.navigation`` since the server started.
    """
    if not getattr(_run, "active", False):
        params = st.query_params.to_dict()
        st.session_state[TARGET_KEY] = (path, params)
        st.switch_page("app.py", query_params=params)


def resume_target_page() -> None:
    """Called by app.py after ``st.navigation``: finish a redirect started by :func:`enter_page`."""
    target = st.session_state.pop(TARGET_KEY, None)
    if target:
        path, params = target
        st.switch_page(path, query_params=params)
