"""The campaign database the annotation page opens: one :class:`CampaignStore` per database and server process.

The database is :func:`korean_eval.annotation.database.default_database` — ``$KOREAN_EVAL_ANNOTATION_DB`` (a SQLite
file path, ``sqlite:///PATH`` or ``postgresql://USER@HOST/DB``), else ``annotation.db`` in the user's data
directory where it exists.
"""

from __future__ import annotations

import streamlit as st

from korean_eval.annotation.database import DATABASE_VAR, default_database
from korean_eval.annotation.storage import CampaignStore


class NoDatabase(RuntimeError):
    """No campaign database is set up on this server, or it cannot be opened; the message says which."""


@st.cache_resource(show_spinner=False)
def _store(url: str) -> CampaignStore:
    """The store of ``url``, shared by every session of the server process (SQLAlchemy pools its connections)."""
    return CampaignStore(url)


def campaign_store() -> CampaignStore:
    """The store of :func:`~korean_eval.annotation.database.default_database`; :class:`NoDatabase` if there is none."""
    url = default_database()
    if url is None:
        raise NoDatabase(f"no annotation campaign is set up on this server (${DATABASE_VAR} is not set)")
    try:
        return _store(url)
    except Exception as err:  # a bad URL, a server that does not answer: one line, no trace of the URL
        raise NoDatabase(f"the annotation database cannot be opened ({type(err).__name__})") from None
