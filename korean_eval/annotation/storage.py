"""Campaigns and judgments kept in the database (:mod:`korean_eval.annotation.database`): nothing submitted is lost.

Every write is one committed transaction: a campaign with its units, items, queues and tokens at once; each
submission (every translation of one screen) at once, committed before the call returns — so the next item an
annotator is shown follows a judgment already on disk, and a process killed with SIGKILL at any moment keeps every
submission it acknowledged. A submission is idempotent: the database holds at most one judgment per annotator,
screen and translation (a unique constraint); a second submission of a screen already judged — a double click, a
page sent again, two requests at once — stores nothing and reports ``duplicate``; the first judgment stays.

Tokens are ``secrets.token_urlsafe(32)`` (256 random bits), shown once when the campaign is made and stored only as
their SHA-256 hashes (:func:`token_hash`). This module trusts its caller; what each token may read is
:mod:`korean_eval.annotation.access`.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from korean_eval.annotation.campaign import CampaignPlan
from korean_eval.annotation.database import (
    annotators,
    campaigns,
    item_units,
    items,
    judgments,
    open_engine,
    queue,
    units,
)
from korean_eval.annotation.judgments import (
    Judgment,
    JudgmentError,
    check_judgment,
    spans_from_json,
    spans_to_json,
)

__all__ = ["CONTEXT_SEGMENTS", "CampaignStore", "CreatedCampaign", "JudgedItem", "NotInQueue", "ShownItem", "SubmitResult",
           "new_token", "token_hash"]

#: Segments of document context shown before and after an item's segment (:attr:`ShownItem.before`, ``after``).
CONTEXT_SEGMENTS = 2


class NotInQueue(LookupError):
    """The item is not in this annotator's queue."""


def new_token() -> str:
    """An unguessable token: ``secrets.token_urlsafe(32)`` (256 random bits, 43 URL-safe characters)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The SHA-256 of ``token`` (UTF-8) in hexadecimal: what the database keeps of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CreatedCampaign:
    """A campaign just stored: its id and its tokens, which exist nowhere else (the database keeps their hashes)."""

    campaign_id: int
    admin_token: str
    annotator_tokens: tuple[str, ...]


@dataclass(frozen=True)
class ShownItem:
    """What an annotator is shown of one item: no system name, nothing that marks an attention check.

    Attributes:
        item: the item's opaque key (the key to submit).
        position: 1-based place in the annotator's queue; ``total``: the queue's length.
        source: the source segment (None without one); ``reference``: the reference where the campaign shows it.
        candidates: ``(unit key, translation)`` in this annotator's order.
        before, after: the document context — the texts shown for up to :data:`CONTEXT_SEGMENTS` segments of the
            same document before and after this one (sources, or references where the campaign shows those), in
            the document's order, among the campaign's chosen segments (a selection by disagreement keeps no whole
            documents, so its context may skip segments).
    """

    item: str
    position: int
    total: int
    source: str | None
    reference: str | None
    candidates: tuple[tuple[str, str], ...]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgedItem:
    """An item the annotator has judged, as they saw it, with their judgments in the order of its candidates."""

    shown: ShownItem
    judgments: tuple[Judgment, ...]


@dataclass(frozen=True)
class SubmitResult:
    """``stored`` (committed) or ``duplicate`` (the item was judged before; nothing changed)."""

    status: str
    item: str


def _now() -> datetime:
    return datetime.now(UTC)


class CampaignStore:
    """The campaigns of one database (a SQLite file or a PostgreSQL database), opened from one URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = open_engine(url)
        self._writer = self.engine.execution_options(write=True)

    def close(self) -> None:
        self.engine.dispose()

    def create(self, plan: CampaignPlan, name: str = "campaign") -> CreatedCampaign:
        """Store ``plan`` as a new campaign in one transaction; returns its id and fresh tokens."""
        admin = new_token()
        tokens = tuple(new_token() for _ in plan.queues)
        settings = {**asdict(plan.settings), "notes": list(plan.notes)}
        with self._writer.begin() as conn:
            cid = conn.execute(campaigns.insert().values(
                name=name, protocol=plan.settings.protocol, settings=json.dumps(settings, ensure_ascii=False),
                show_reference=plan.show_reference, admin_token_hash=token_hash(admin), created_at=_now(),
            )).inserted_primary_key[0]
            conn.execute(units.insert(), [
                {"campaign_id": cid, "key": u.key, "seg_id": u.seg_id, "document": u.document, "system": u.system,
                 "text": u.text, "attention_of": u.attention_of, "damage": u.damage} for u in plan.units.values()])
            conn.execute(items.insert(), [
                {"campaign_id": cid, "key": i.key, "seg_id": i.seg_id, "document": i.document, "source": i.source,
                 "reference": i.reference, "is_check": i.annotator is not None} for i in plan.items.values()])
            unit_id = dict(conn.execute(sa.select(units.c.key, units.c.id).where(units.c.campaign_id == cid)).all())
            item_id = dict(conn.execute(sa.select(items.c.key, items.c.id).where(items.c.campaign_id == cid)).all())
            conn.execute(item_units.insert(), [{"item_id": item_id[i.key], "unit_id": unit_id[u]}
                                               for i in plan.items.values() for u in i.units])
            for number, token in enumerate(tokens):
                aid = conn.execute(annotators.insert().values(
                    campaign_id=cid, number=number + 1, token_hash=token_hash(token))).inserted_primary_key[0]
                rows = [{"annotator_id": aid, "position": p, "item_id": item_id[e.item],
                         "unit_order": json.dumps(list(e.unit_order))} for p, e in enumerate(plan.queues[number])]
                if rows:
                    conn.execute(queue.insert(), rows)
        return CreatedCampaign(int(cid), admin, tokens)

    # -- tokens

    def annotator_of(self, token: str) -> tuple[int, int, int] | None:
        """``(annotator id, campaign id, annotator number)`` of an annotator token, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(annotators.c.id, annotators.c.campaign_id, annotators.c.number)
                               .where(annotators.c.token_hash == token_hash(token))).first()
        return tuple(row) if row else None

    def campaign_of_admin(self, token: str) -> int | None:
        """The campaign id whose admin token is ``token``, or None."""
        with self.engine.connect() as conn:
            return conn.execute(sa.select(campaigns.c.id)
                                .where(campaigns.c.admin_token_hash == token_hash(token))).scalar()

    # -- an annotator's queue

    def _done_items(self, annotator_id: int):
        return sa.select(judgments.c.item_id).where(judgments.c.annotator_id == annotator_id).distinct()

    def next_item(self, annotator_id: int) -> ShownItem | None:
        """The first item of the annotator's queue they have not judged (None when all are), as they see it."""
        with self.engine.connect() as conn:
            row = conn.execute(self._queue_rows(annotator_id)
                               .where(queue.c.item_id.not_in(self._done_items(annotator_id)))
                               .order_by(queue.c.position).limit(1)).first()
            return None if row is None else self._shown(conn, annotator_id, row)

    def judged_positions(self, annotator_id: int) -> list[int]:
        """The 1-based queue positions of the items the annotator has judged, in queue order."""
        with self.engine.connect() as conn:
            return [p + 1 for p in conn.execute(
                sa.select(queue.c.position).where(queue.c.annotator_id == annotator_id,
                                                  queue.c.item_id.in_(self._done_items(annotator_id)))
                .order_by(queue.c.position)).scalars()]

    def judged_item(self, annotator_id: int, position: int) -> JudgedItem | None:
        """The item at 1-based ``position`` of the annotator's queue with their own judgments of it, as they saw it;
        None when there is no such position or they have not judged it."""
        with self.engine.connect() as conn:
            row = conn.execute(self._queue_rows(annotator_id).where(queue.c.position == position - 1)).first()
            if row is None:
                return None
            given = {r.key: r for r in conn.execute(
                sa.select(units.c.key, judgments.c.score, judgments.c.spans, judgments.c.seconds)
                .join(units, units.c.id == judgments.c.unit_id)
                .where(judgments.c.annotator_id == annotator_id, judgments.c.item_id == row.item_id))}
            if not given:
                return None
            shown = self._shown(conn, annotator_id, row)
        return JudgedItem(shown, tuple(Judgment(u, given[u].score, spans_from_json(given[u].spans), given[u].seconds)
                                       for u, _text in shown.candidates if u in given))

    def _queue_rows(self, annotator_id: int):
        """The annotator's queue rows joined with their items and campaign (what :meth:`_shown` reads)."""
        return (sa.select(queue.c.position, queue.c.unit_order, queue.c.item_id, items.c.key, items.c.source,
                          items.c.reference, items.c.document, items.c.seg_id, items.c.campaign_id,
                          campaigns.c.show_reference)
                .join(items, items.c.id == queue.c.item_id).join(campaigns, campaigns.c.id == items.c.campaign_id)
                .where(queue.c.annotator_id == annotator_id))

    def _shown(self, conn, annotator_id: int, row) -> ShownItem:
        """What the annotator sees of the queue row ``row`` (:meth:`_queue_rows`): texts, order, context."""
        total = conn.execute(sa.select(sa.func.count()).select_from(queue)
                             .where(queue.c.annotator_id == annotator_id)).scalar_one()
        order = json.loads(row.unit_order)
        texts = dict(conn.execute(sa.select(units.c.key, units.c.text).join(item_units, item_units.c.unit_id == units.c.id)
                                  .where(item_units.c.item_id == row.item_id)).all())
        # the document's segments in the campaign's order (items are stored in segment order; checks come later)
        shown_text = items.c.reference if row.show_reference else items.c.source
        document: dict[str, str] = {}
        for seg_id, text in conn.execute(
                sa.select(items.c.seg_id, shown_text).where(items.c.campaign_id == row.campaign_id,
                                                            items.c.document == row.document, items.c.is_check.is_(False))
                .order_by(items.c.id)):
            document.setdefault(seg_id, text or "")
        segments = list(document)
        at = segments.index(row.seg_id) if row.seg_id in document else None
        before = tuple(document[s] for s in segments[max(0, at - CONTEXT_SEGMENTS):at]) if at is not None else ()
        after = tuple(document[s] for s in segments[at + 1:at + 1 + CONTEXT_SEGMENTS]) if at is not None else ()
        return ShownItem(row.key, row.position + 1, total, row.source, row.reference if row.show_reference else None,
                         tuple((u, texts[u]) for u in order), before, after)

    def progress(self, annotator_id: int) -> tuple[int, int]:
        """``(items judged, items in the queue)`` of one annotator."""
        with self.engine.connect() as conn:
            total = conn.execute(sa.select(sa.func.count()).select_from(queue)
                                 .where(queue.c.annotator_id == annotator_id)).scalar_one()
            done = conn.execute(sa.select(sa.func.count()).select_from(self._done_items(annotator_id).subquery())).scalar_one()
        return done, total

    def submit(self, annotator_id: int, item_key: str, given: Sequence[Judgment]) -> SubmitResult:
        """Store the annotator's judgments of every translation of one item, in one committed transaction.

        Raises:
            NotInQueue: the item is not in this annotator's queue.
            JudgmentError: not exactly one judgment per translation of the item, or a judgment that does not fit
                its translation (:func:`~korean_eval.annotation.judgments.check_judgment`).
        """
        try:
            with self._writer.begin() as conn:
                item_id = conn.execute(
                    sa.select(queue.c.item_id).join(items, items.c.id == queue.c.item_id)
                    .where(queue.c.annotator_id == annotator_id, items.c.key == item_key)).scalar()
                if item_id is None:
                    raise NotInQueue(f"item {item_key!r} is not in this annotator's queue")
                if conn.execute(sa.select(judgments.c.id).where(judgments.c.annotator_id == annotator_id,
                                                                judgments.c.item_id == item_id).limit(1)).first():
                    return SubmitResult("duplicate", item_key)
                texts = {r.key: (r.id, r.text) for r in conn.execute(
                    sa.select(units.c.key, units.c.id, units.c.text).join(item_units, item_units.c.unit_id == units.c.id)
                    .where(item_units.c.item_id == item_id))}
                keys = [j.unit for j in given]
                if sorted(keys) != sorted(texts):
                    raise JudgmentError(f"give one judgment for each of the item's {len(texts)} translation(s)")
                now = _now()
                conn.execute(judgments.insert(), [
                    {"annotator_id": annotator_id, "item_id": item_id, "unit_id": texts[j.unit][0],
                     "score": float(check_judgment(j, texts[j.unit][1]).score), "spans": spans_to_json(j.spans),
                     "seconds": float(j.seconds), "submitted_at": now} for j in given])
        except IntegrityError:  # another request stored this item first (the unique constraint decided)
            return SubmitResult("duplicate", item_key)
        return SubmitResult("stored", item_key)

    # -- a campaign's results (admin)

    def judgments_table(self, campaign_id: int) -> pd.DataFrame:
        """Every judgment of the campaign: ``annotator, item, unit, seg_id, document, system, is_check,
        attention_of, damage, score, spans, seconds, submitted_at, text``, in the order submitted."""
        query = (sa.select(annotators.c.number.label("annotator"), items.c.key.label("item"), units.c.key.label("unit"),
                           units.c.seg_id, units.c.document, units.c.system, items.c.is_check, units.c.attention_of,
                           units.c.damage, judgments.c.score, judgments.c.spans, judgments.c.seconds,
                           judgments.c.submitted_at, units.c.text)
                 .join(annotators, annotators.c.id == judgments.c.annotator_id)
                 .join(items, items.c.id == judgments.c.item_id).join(units, units.c.id == judgments.c.unit_id)
                 .where(annotators.c.campaign_id == campaign_id).order_by(judgments.c.id))
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        columns = ["annotator", "item", "unit", "seg_id", "document", "system", "is_check", "attention_of", "damage",
                   "score", "spans", "seconds", "submitted_at", "text"]
        return pd.DataFrame([dict(r) for r in rows], columns=columns)

    def status_table(self, campaign_id: int) -> pd.DataFrame:
        """Per annotator: ``annotator, items, done, judgments, seconds`` (seconds: the sum over their screens)."""
        with self.engine.connect() as conn:
            people = conn.execute(sa.select(annotators.c.id, annotators.c.number)
                                  .where(annotators.c.campaign_id == campaign_id).order_by(annotators.c.number)).all()
            ids = [p.id for p in people]
            queued = dict(conn.execute(sa.select(queue.c.annotator_id, sa.func.count()).where(queue.c.annotator_id.in_(ids))
                                       .group_by(queue.c.annotator_id)).all())
            per_item = conn.execute(
                sa.select(judgments.c.annotator_id, sa.func.count(), sa.func.max(judgments.c.seconds))
                .where(judgments.c.annotator_id.in_(ids)).group_by(judgments.c.annotator_id, judgments.c.item_id)).all()
        done = pd.DataFrame(per_item, columns=["id", "judgments", "seconds"]).groupby("id").agg(
            done=("judgments", "size"), judgments=("judgments", "sum"), seconds=("seconds", "sum"))
        rows = [{"annotator": p.number, "items": queued.get(p.id, 0),
                 "done": int(done["done"].get(p.id, 0)), "judgments": int(done["judgments"].get(p.id, 0)),
                 "seconds": float(done["seconds"].get(p.id, 0.0))} for p in people]
        return pd.DataFrame(rows, columns=["annotator", "items", "done", "judgments", "seconds"])

    def campaign_row(self, campaign_id: int) -> dict[str, object]:
        """The campaign's name, protocol, settings (with the plan's notes) and creation time."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(campaigns.c.name, campaigns.c.protocol, campaigns.c.settings,
                                         campaigns.c.created_at).where(campaigns.c.id == campaign_id)).one()
        return {"name": row.name, "protocol": row.protocol, "settings": json.loads(row.settings),
                "created_at": row.created_at}
