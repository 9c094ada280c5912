"""Fixtures of the annotation tests: the same storage tests over SQLite
(a file in the test's folder) and PostgreSQL (a throwaway server per test session, a fresh database per test:
:mod:`tests.support.postgres_server`)."""

from __future__ import annotations

import pytest

from korean_eval.annotation.storage import CampaignStore
from tests.support.postgres_server import postgres_server


@pytest.fixture(scope="session")
def postgres():
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "judgments.db")
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def store(store_url):
    opened = CampaignStore(store_url)
    yield opened
    opened.close()
