"""The judgments' database: its tables and the one way to open it, SQLite (a file) or PostgreSQL (a server), one URL.

SQLAlchemy 2 Core over either database (no dialect-specific SQL here beyond SQLite's connection settings). A URL:
``sqlite:///PATH`` or a plain file path (SQLite), ``postgresql://USER@HOST/DB`` (PostgreSQL through psycopg 3;
``postgresql+psycopg://`` is the same). The tables are created on first use. The dashboard's annotation page opens
:func:`default_database`: ``$KOREAN_EVAL_ANNOTATION_DB`` (:data:`DATABASE_VAR`), else ``annotation.db`` in the user's
data directory (platformdirs' ``user_data_dir("korean-eval")``).

SQLite is opened for durability: write-ahead log (``journal_mode=WAL``), ``synchronous=FULL`` (every commit
reaches the disk before it returns, so a process killed at any moment keeps every committed transaction),
foreign keys on, a 30 s busy timeout; a write transaction starts with ``BEGIN IMMEDIATE`` (it takes the write lock
before it reads, so two writers queue instead of failing on a stale snapshot), a read one with ``BEGIN`` (one
consistent snapshot). PostgreSQL runs each transaction at its default isolation (read committed); the unique
constraints decide between two writers.
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError

__all__ = ["DATABASE_VAR", "METADATA", "annotators", "campaigns", "database_url", "default_database", "item_units", "items",
           "judgments", "open_engine", "queue", "units"]

#: The environment variable naming the database the dashboard's annotation page opens (a path or a URL).
DATABASE_VAR = "KOREAN_EVAL_ANNOTATION_DB"

METADATA = sa.MetaData()

campaigns = sa.Table(
    "annotation_campaigns", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("protocol", sa.String(20), nullable=False),
    sa.Column("settings", sa.Text, nullable=False),  # JSON: the CampaignSettings and the plan's notes
    sa.Column("show_reference", sa.Boolean, nullable=False),
    sa.Column("admin_token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

annotators = sa.Table(
    "annotation_annotators", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", sa.Integer, sa.ForeignKey("annotation_campaigns.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.UniqueConstraint("campaign_id", "number"),
)

units = sa.Table(
    "annotation_units", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", sa.Integer, sa.ForeignKey("annotation_campaigns.id"), nullable=False),
    sa.Column("key", sa.String(32), nullable=False),
    sa.Column("seg_id", sa.Text, nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("system", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("attention_of", sa.String(32)),  # the key of the unit a check damages
    sa.Column("damage", sa.String(20)),
    sa.UniqueConstraint("campaign_id", "key"),
)

items = sa.Table(
    "annotation_items", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("campaign_id", sa.Integer, sa.ForeignKey("annotation_campaigns.id"), nullable=False),
    sa.Column("key", sa.String(32), nullable=False),
    sa.Column("seg_id", sa.Text, nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("source", sa.Text),
    sa.Column("reference", sa.Text),
    sa.Column("is_check", sa.Boolean, nullable=False),
    sa.UniqueConstraint("campaign_id", "key"),
)

item_units = sa.Table(
    "annotation_item_units", METADATA,
    sa.Column("item_id", sa.Integer, sa.ForeignKey("annotation_items.id"), primary_key=True),
    sa.Column("unit_id", sa.Integer, sa.ForeignKey("annotation_units.id"), primary_key=True),
)

queue = sa.Table(
    "annotation_queue", METADATA,
    sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotation_annotators.id"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("item_id", sa.Integer, sa.ForeignKey("annotation_items.id"), nullable=False),
    sa.Column("unit_order", sa.Text, nullable=False),  # JSON list of unit keys, as this annotator sees them
    sa.UniqueConstraint("annotator_id", "item_id"),
)

judgments = sa.Table(
    "annotation_judgments", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotation_annotators.id"), nullable=False),
    sa.Column("item_id", sa.Integer, sa.ForeignKey("annotation_items.id"), nullable=False),
    sa.Column("unit_id", sa.Integer, sa.ForeignKey("annotation_units.id"), nullable=False),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("spans", sa.Text, nullable=False),  # JSON (korean_eval.annotation.judgments.spans_to_json)
    sa.Column("seconds", sa.Float, nullable=False),
    sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
    # one judgment per annotator, screen and translation: a double click or a resubmission cannot add a second
    sa.UniqueConstraint("annotator_id", "item_id", "unit_id", name="one_judgment_each"),
)


def database_url(text: str) -> URL:
    """The SQLAlchemy URL of ``text``: a URL as given (``postgresql://`` → psycopg 3), or a file path → SQLite.

    Raises:
        ValueError: a URL SQLAlchemy cannot read, or a database other than SQLite and PostgreSQL.
    """
    if "://" not in text:
        if not text.strip():
            raise ValueError("the database is empty: give a file path or a URL")
        return URL.create("sqlite", database=text)
    try:
        url = make_url(text)
    except ArgumentError as err:
        raise ValueError(f"cannot read the database URL: {err}") from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    if backend != "sqlite":
        raise ValueError(f"the database must be SQLite or PostgreSQL, not {backend!r}")
    return url


def default_database() -> str | None:
    """The database the dashboard's annotation page opens: ``$KOREAN_EVAL_ANNOTATION_DB`` when set and not blank,
    else the file ``annotation.db`` in platformdirs' ``user_data_dir("korean-eval")`` if it exists (a file that
    does not exist holds no campaign: None, and nothing is created)."""
    chosen = os.environ.get(DATABASE_VAR, "").strip()
    if chosen:
        return chosen
    import platformdirs

    path = os.path.join(platformdirs.user_data_dir("korean-eval"), "annotation.db")
    return path if os.path.isfile(path) else None


def open_engine(text: str) -> Engine:
    """An engine for the database ``text`` (:func:`database_url`), its tables created if missing."""
    url = database_url(text)
    if url.get_backend_name() == "sqlite":
        if url.database in (None, "", ":memory:"):
            raise ValueError("an in-memory SQLite database keeps nothing: give a file")
        engine = sa.create_engine(url, connect_args={"timeout": 30})
        _sqlite_settings(engine)
    else:
        engine = sa.create_engine(url, pool_pre_ping=True)
    METADATA.create_all(engine)
    return engine


def _sqlite_settings(engine: Engine) -> None:
    """WAL, synchronous=FULL, foreign keys, busy timeout; ``BEGIN IMMEDIATE`` for write transactions (those run with
    the execution option ``write=True``), ``BEGIN`` for the others (pysqlite's own transaction handling off)."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=30000"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")
