"""A server process killed with SIGKILL in the middle of a campaign loses nothing that was submitted, and the
annotator resumes at the next item (SQLite: WAL, synchronous=FULL, each submission committed before it returns)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys

from korean_eval.annotation.access import admin_session, annotator_session
from korean_eval.annotation.campaign import CampaignSettings, plan_campaign
from korean_eval.annotation.storage import CampaignStore
from tests.support.campaign_data import small_evalset
from tests.support.helpers import ROOT


def _run_until_killed(db: str, token: str, acknowledged: int) -> list[str]:
    """Start the annotator's process, read ``acknowledged`` stored items, SIGKILL it; the items it acknowledged."""
    child = subprocess.Popen([sys.executable, "-m", "tests.support.submit_until_killed", db, token], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stored: list[str] = []
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        while len(stored) < acknowledged:
            line = child.stdout.readline()
            assert line, child.stderr.read()
            status, item = line.split()
            assert status == "stored"
            stored.append(item)
    finally:
        os.kill(child.pid, signal.SIGKILL)  # in the middle of its next submission
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    return stored


def test_sigkill_loses_no_acknowledged_judgment_and_the_annotator_resumes(tmp_path):
    db = str(tmp_path / "campaign.db")
    plan = plan_campaign(small_evalset(documents=20), CampaignSettings(annotators=2, attention=0.0, double=0.0))
    store = CampaignStore(db)
    created = store.create(plan)
    store.close()
    queue = [e.item for e in plan.queues[0]]
    acknowledged: list[str] = []
    for round_ in range(3):
        acknowledged += _run_until_killed(db, created.annotator_tokens[0], 12)
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        store = CampaignStore(db)
        session = annotator_session(store, created.annotator_tokens[0])
        done = session.progress().done
        # every acknowledged judgment is there; at most the one in flight was committed unacknowledged
        assert done in (len(acknowledged), len(acknowledged) + 1), round_
        assert queue[:len(acknowledged)] == acknowledged
        judged = admin_session(store, created.admin_token).judgments()
        assert list(dict.fromkeys(judged["item"])) == queue[:done]
        assert session.next_item().item == queue[done]  # resumes at the next item, none skipped
        if done > len(acknowledged):
            acknowledged.append(queue[len(acknowledged)])
        store.close()
