"""Campaign storage (korean_eval.annotation.storage, .access) over SQLite and PostgreSQL alike: tokens stored hashed,
judgments kept and resumed, one judgment each under double clicks and concurrent submits, and an annotator's token
that reads nothing but its own queue."""

from __future__ import annotations

import hashlib
import threading

import pytest
import sqlalchemy as sa

from korean_eval.annotation.access import AccessDenied, admin_session, annotator_session
from korean_eval.annotation.campaign import CampaignSettings, plan_campaign
from korean_eval.annotation.database import annotators, campaigns, judgments
from korean_eval.annotation.judgments import ErrorSpan, Judgment, JudgmentError
from korean_eval.annotation.storage import CampaignStore
from tests.support.campaign_data import SYSTEMS, small_evalset


def _judge(shown, score: float = 70.0):
    return [Judgment(unit, score, (ErrorSpan(0, 2, "minor"),), 4.5) for unit, _text in shown.candidates]


@pytest.fixture
def campaign(store):
    plan = plan_campaign(small_evalset(), CampaignSettings(annotators=3, double=0.2, attention=0.05, seed=5))
    return plan, store.create(plan, "test")


def test_tokens_are_unguessable_and_stored_only_as_sha256(store, campaign):
    _plan, created = campaign
    tokens = [created.admin_token, *created.annotator_tokens]
    assert len(set(tokens)) == 4 and all(len(t) == 43 for t in tokens)  # token_urlsafe(32): 256 bits
    with store.engine.connect() as conn:
        stored = [*conn.execute(sa.select(annotators.c.token_hash)).scalars(),
                  *conn.execute(sa.select(campaigns.c.admin_token_hash)).scalars()]
        raw = " ".join(str(v) for table in (annotators, campaigns) for row in conn.execute(sa.select(table))
                       for v in row)
    assert sorted(stored) == sorted(hashlib.sha256(t.encode()).hexdigest() for t in tokens)
    assert not any(t in raw for t in tokens)


def test_judgments_are_kept_and_the_annotator_resumes_where_they_were(store_url, campaign):
    _plan, created = campaign
    first = CampaignStore(store_url)
    session = annotator_session(first, created.annotator_tokens[0])
    done = []
    for _ in range(5):
        shown = session.next_item()
        assert session.submit(shown.item, _judge(shown)).status == "stored"
        done.append(shown.item)
    first.close()
    reopened = CampaignStore(store_url)  # a new process would see the same
    session = annotator_session(reopened, created.annotator_tokens[0])
    assert session.progress().done == 5
    shown = session.next_item()
    assert shown.item not in done and shown.position == 6
    table = admin_session(reopened, created.admin_token).judgments()
    assert list(dict.fromkeys(table[table["annotator"] == 1]["item"])) == done
    assert set(table["score"]) == {70.0} and set(table["seconds"]) == {4.5}
    reopened.close()


def test_a_double_click_or_a_resubmission_stores_one_judgment(store, campaign):
    _plan, created = campaign
    session = annotator_session(store, created.annotator_tokens[1])
    shown = session.next_item()
    assert session.submit(shown.item, _judge(shown, 80)).status == "stored"
    assert session.submit(shown.item, _judge(shown, 10)).status == "duplicate"
    table = admin_session(store, created.admin_token).judgments()
    assert len(table) == len(shown.candidates) and set(table["score"]) == {80.0}  # the first judgment stays


def test_concurrent_submits_store_one_judgment_each(store, campaign):
    plan, created = campaign
    sessions = [annotator_session(store, t) for t in created.annotator_tokens]
    work = [(sessions[a], entry.item, [Judgment(u, 60.0, (), 1.0) for u in entry.unit_order])
            for a, queue in enumerate(plan.queues) for entry in queue]
    results: list[str] = []
    barrier = threading.Barrier(4)

    def submit(chunk) -> None:
        barrier.wait()
        for session, item, given in chunk:
            results.append(session.submit(item, given).status)

    # four threads: every (annotator, item) submitted by two of them at once, all annotators interleaved
    chunks = [work[0::2], work[1::2], work[0::2][::-1], work[1::2][::-1]]
    threads = [threading.Thread(target=submit, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("stored") == len(work) and results.count("duplicate") == len(work)
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(judgments.c.annotator_id, judgments.c.item_id, judgments.c.unit_id)).all()
    assert len(rows) == len(set(rows)) == sum(len(e.unit_order) for q in plan.queues for e in q)
    status = admin_session(store, created.admin_token).status()
    assert (status["done"] == status["items"]).all()
    assert all(s.next_item() is None for s in sessions)


def test_an_annotator_token_reads_only_its_own_queue(store, campaign):
    plan, created = campaign
    me, other = (annotator_session(store, t) for t in created.annotator_tokens[:2])
    shown = me.next_item()
    everything = repr(shown) + repr(me.progress())
    assert not any(name in everything for name in SYSTEMS)  # no system name in what an annotator sees
    assert not any(word in everything for word in ("attention", "drop", "shuffle", "check"))
    assert all(text == plan.units[u].text for u, text in shown.candidates)
    theirs = other.next_item()
    mine = {e.item for e in plan.queues[0]}
    if theirs.item not in mine:  # an item of another annotator's queue is refused, nothing stored
        with pytest.raises(AccessDenied):
            me.submit(theirs.item, _judge(theirs))
    with pytest.raises(AccessDenied):
        me.submit("0123456789abcdef", [])
    for wrong in (created.annotator_tokens[0], created.admin_token[:-1] + "x", "", "' OR 1=1 --"):
        with pytest.raises(AccessDenied):
            admin_session(store, wrong)  # an annotator's token (or a guess) reads no results or system names
    for wrong in (created.admin_token, created.annotator_tokens[0][:-2], ""):
        with pytest.raises(AccessDenied):
            annotator_session(store, wrong)
    for name in ("judgments", "status", "attention", "campaign"):
        assert not hasattr(me, name)
    assert admin_session(store, created.admin_token).judgments().empty


def test_a_judgment_must_cover_the_item_and_fit_its_translations(store):
    plan = plan_campaign(small_evalset(), CampaignSettings(protocol="contrastive", annotators=1, attention=0.0))
    created = store.create(plan)
    session = annotator_session(store, created.annotator_tokens[0])
    shown = session.next_item()
    assert len(shown.candidates) == len(SYSTEMS)
    with pytest.raises(JudgmentError, match="one judgment for each"):
        session.submit(shown.item, _judge(shown)[:2])
    too_long = [Judgment(u, 50, (ErrorSpan(0, len(t) + 1, "major"),)) for u, t in shown.candidates]
    with pytest.raises(JudgmentError, match="not inside"):
        session.submit(shown.item, too_long)
    assert session.progress().done == 0  # nothing of a refused screen was stored
    assert session.submit(shown.item, _judge(shown)).status == "stored"
    assert session.progress().done == 1


def test_the_admin_sees_attention_checks_and_systems(store):
    plan = plan_campaign(small_evalset(documents=10), CampaignSettings(annotators=1, double=0.0, attention=0.1))
    created = store.create(plan)
    session = annotator_session(store, created.annotator_tokens[0])
    while (shown := session.next_item()) is not None:
        damaged = plan.units[shown.candidates[0][0]].attention_of is not None
        session.submit(shown.item, _judge(shown, 20 if damaged else 80))
    admin = admin_session(store, created.admin_token)
    checks = admin.attention()
    assert len(checks) == 9 and checks["passed"].all() and set(checks["system"]) <= set(SYSTEMS)
    table = admin.judgments()
    assert set(table["system"]) == set(SYSTEMS) and len(table) == 30 * 3 + 9
    status = admin.status()
    assert status.to_dict("records") == [{"annotator": 1, "items": 99, "done": 99, "judgments": 99,
                                          "seconds": 99 * 4.5}]
    assert admin.campaign()["settings"]["attention"] == 0.1


def test_two_campaigns_share_a_database_without_sharing_tokens(store):
    plan = plan_campaign(small_evalset(), CampaignSettings(annotators=1, seed=1))
    one, two = store.create(plan, "one"), store.create(plan, "two")  # the same plan (same keys) twice
    first = annotator_session(store, one.annotator_tokens[0])
    shown = first.next_item()
    first.submit(shown.item, _judge(shown))
    assert annotator_session(store, two.annotator_tokens[0]).progress().done == 0
    assert admin_session(store, two.admin_token).judgments().empty
    assert len(admin_session(store, one.admin_token).judgments()) == 1


def test_an_item_shows_its_documents_neighbouring_segments_as_context(store):
    plan = plan_campaign(small_evalset(documents=2, per_document=4), CampaignSettings(annotators=1, attention=0.0))
    created = store.create(plan)
    session = annotator_session(store, created.annotator_tokens[0])
    seen = 0
    while (shown := session.next_item()) is not None:
        item = plan.items[shown.item]
        position = int(item.seg_id) % 4  # small_evalset: segment i is in document i // 4, sources "source sentence i"
        first = int(item.seg_id) - position
        assert shown.before == tuple(f"source sentence {i}" for i in range(max(first, int(item.seg_id) - 2),
                                                                             int(item.seg_id)))
        assert shown.after == tuple(f"source sentence {i}" for i in range(int(item.seg_id) + 1,
                                                                            min(first + 4, int(item.seg_id) + 3)))
        session.submit(shown.item, _judge(shown))
        seen += 1
    assert seen == 8 * len(SYSTEMS)


def test_an_annotator_reads_back_only_their_own_earlier_judgments(store, campaign):
    _plan, created = campaign
    me, other = (annotator_session(store, t) for t in created.annotator_tokens[:2])
    assert me.judged_positions() == [] and me.judged(1) is None
    first = me.next_item()
    given = [Judgment(u, 40.0, (ErrorSpan(1, 3, "major"), ErrorSpan(len(t), len(t), "minor", missing=True)), 2.0)
             for u, t in first.candidates]
    me.submit(first.item, given)
    second = me.next_item()
    assert me.judged_positions() == [1]
    back = me.judged(1)
    assert back.shown.item == first.item and back.shown.candidates == first.candidates
    assert back.judgments == tuple(given)
    assert me.judged(second.position) is None and me.judged(10_000) is None
    assert other.judged_positions() == [] and other.judged(1) is None  # another annotator reads none of mine
    assert not any(name in repr(back) for name in SYSTEMS)
