"""A throwaway PostgreSQL server for the tests: ``initdb`` into a fresh temporary folder, ``pg_ctl start`` on a free
port with its unix socket in that folder (no TCP), stopped and removed at the end. Run as the ``postgres`` user
(which Debian's package creates) when the tests run as root, since PostgreSQL refuses to run as root.

Without PostgreSQL's binaries (``apt-get install postgresql``; scripts/setup installs it under CI) the tests that
need a server skip locally and fail under ``CI=true`` (:func:`postgres_binaries`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path

import pytest

from tests.support.helpers import IN_CI


def postgres_binaries() -> Path:
    """The folder of ``initdb`` and ``pg_ctl`` (the newest installed version); skips the test when there is none
    locally, fails it under CI."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    if IN_CI:
        pytest.fail("PostgreSQL's binaries (initdb, pg_ctl) are required under CI=true but are missing")
    pytest.skip("PostgreSQL's binaries (initdb, pg_ctl) are not installed (apt-get install postgresql)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PostgresServer:
    """A running server: its socket folder and port; :meth:`new_database` gives each test a database of its own."""

    folder: Path
    port: int
    bin_dir: Path
    _numbers: Iterator[int]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.folder}&port={self.port}"

    def new_database(self) -> str:
        """A fresh empty database's URL."""
        import psycopg

        name = f"test_{next(self._numbers)}"
        with psycopg.connect(host=str(self.folder), port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _as_postgres_user() -> list[str]:
    """The command prefix that runs a PostgreSQL binary as a user it accepts: ``runuser -u postgres --`` as root."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and no 'postgres' user to run PostgreSQL as")
    return ["runuser", "-u", "postgres", "--"]


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """Start a throwaway server (:mod:`this module <tests.support.postgres_server>`); stop and remove it after."""
    bin_dir = postgres_binaries()
    prefix = _as_postgres_user()
    folder = Path(tempfile.mkdtemp(prefix="korean-eval-pg-"))
    if prefix:
        shutil.chown(folder, "postgres")
    port = _free_port()
    data = folder / "data"
    run = dict(check=True, capture_output=True, text=True, timeout=120)
    try:
        subprocess.run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                        "-E", "UTF8", "--no-sync"], **run)
        options = f"-p {port} -k {folder} -c listen_addresses=''"
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                        str(folder / "server.log"), "-w", "-t", "60", "start"], **run)
    except subprocess.CalledProcessError as err:
        log = folder / "server.log"
        message = f"PostgreSQL did not start: {err.stderr}\n{log.read_text() if log.exists() else ''}"
        _stop(prefix, bin_dir, data, folder)
        raise RuntimeError(message) from err
    try:
        yield PostgresServer(folder, port, bin_dir, count(1))
    finally:
        _stop(prefix, bin_dir, data, folder)


def _stop(prefix: list[str], bin_dir: Path, data: Path, folder: Path) -> None:
    """Stop the server (immediately: nothing in it is kept) and remove its folder."""
    if (data / "postmaster.pid").exists():
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60)
    shutil.rmtree(folder, ignore_errors=True)
