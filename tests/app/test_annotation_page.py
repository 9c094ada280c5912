"""The annotation page through AppTest: an annotator's link opens their own queue and nothing else; a submission is
committed before the next item shows; no system name reaches the page; a wrong token, or another annotator's,
reads nothing of this annotator's work.

The campaign is the bundled sample (five systems, documents of five segments added here) stored in a SQLite file
of the test's own, named by ``$KOREAN_EVAL_ANNOTATION_DB``. AppTest cannot drive the span editor (a custom
component runs only in a browser): its value is set through the session state, as the browser's would arrive;
tests/e2e/test_browser_annotation.py drives the real one.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.annotation.access import admin_session, annotator_session
from korean_eval.annotation.campaign import CampaignSettings, plan_campaign
from korean_eval.annotation.database import DATABASE_VAR
from korean_eval.annotation.judgments import Judgment, spans_from_json
from korean_eval.annotation.storage import CampaignStore
from korean_eval.inputs.sample import load_sample
from tests.support.apptest import APP
from ui.annotation.store import _store

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

SPANS, SCORE, SUBMIT = "ann_spans_", "ann_score_", "ann_submit_"


def sample_with_documents():
    """The bundled sample with its segments in documents of five (so that an item has document context)."""
    evalset = load_sample()
    evalset.segment_info = pd.DataFrame({"seg_id": evalset.seg_ids,
                                         "document": [f"doc{i // 5}" for i in range(len(evalset.seg_ids))]})
    return evalset


@pytest.fixture
def campaign(tmp_path, monkeypatch):
    """A two-annotator ESA campaign of the sample in a fresh SQLite file: (plan, created tokens, store)."""
    db = str(tmp_path / "judgments.db")
    monkeypatch.setenv(DATABASE_VAR, db)
    _store.clear()
    store = CampaignStore(db)
    evalset = sample_with_documents()
    plan = plan_campaign(evalset, CampaignSettings(annotators=2, double=0.0, attention=0.0, seed=3))
    created = store.create(plan, "sample")
    yield plan, created, store, evalset
    store.close()
    _store.clear()


def open_page(token: str | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if token is not None:
        at.query_params["token"] = token
    else:
        at.switch_page("pages/annotate.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def everything(at: AppTest) -> str:
    """Every element's protobuf as text (the page's data, the span editor's included), main area and sidebar."""
    out = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                walk(child)

    walk(at._tree)
    return "\n".join(out)


def no_system_name(at: AppTest, evalset) -> None:
    page = everything(at)
    assert not [name for name in evalset.systems if name in page]


def test_an_annotator_submits_a_judgment_it_is_committed_and_the_next_item_shows(campaign):
    plan, created, store, evalset = campaign
    token = created.annotator_tokens[0]
    shown = annotator_session(store, token).next_item()
    at = open_page(token)
    assert not at.error
    assert at.get("progress")[0].proto.text.startswith(f"Item 1 of {len(plan.queues[0])} · 0 judged")
    texts = [m.value for m in at.markdown]
    assert f"**{shown.source}**".replace(".", "\\.") in texts  # the source, escaped, bold
    for line in (*shown.before, *shown.after):  # its document's neighbours, greyed
        assert any(t.startswith(":gray[") for t in texts), line
    (unit, text), = shown.candidates
    editor = at.get("bidi_component")
    assert [e.key for e in editor] == [SPANS + unit]
    assert json.loads(editor[0].proto.json)["text"] == text
    no_system_name(at, evalset)
    submit = at.button(key=SUBMIT + shown.item)
    assert submit.disabled  # no score yet

    marks = [{"start": 0, "end": 2, "severity": "major", "missing": False},
             {"start": len(text), "end": len(text), "severity": "minor", "missing": True}]
    at.session_state[SPANS + unit] = {"spans": marks}
    at.slider(key=SCORE + unit).set_value(40).run()
    assert not at.warning  # a low score with marked errors: no warning
    assert not at.button(key=SUBMIT + shown.item).disabled
    at.button(key=SUBMIT + shown.item).click().run()
    assert not at.exception and not at.error

    table = admin_session(store, created.admin_token).judgments()
    assert len(table) == 1 and table.loc[0, "unit"] == unit and table.loc[0, "score"] == 40.0
    assert [s.to_dict() for s in spans_from_json(table.loc[0, "spans"])] == marks
    assert table.loc[0, "seconds"] >= 0
    assert [s.value for s in at.success] == ["Item 1 stored."]
    assert at.get("progress")[0].proto.text.startswith(f"Item 2 of {len(plan.queues[0])} · 1 judged")
    following = annotator_session(store, token).next_item()
    assert [e.key for e in at.get("bidi_component")] == [SPANS + u for u, _t in following.candidates]
    no_system_name(at, evalset)


def test_a_low_score_without_a_marked_error_warns(campaign):
    _plan, created, store, _evalset = campaign
    token = created.annotator_tokens[0]
    (unit, _text), = annotator_session(store, token).next_item().candidates
    at = open_page(token)
    assert not at.warning  # not scored yet
    at.button(key=f"ann_keep_{unit}").click().run()  # 50, where the slider starts, kept as the score
    assert [w.value for w in at.warning] and "below 66" in at.warning[0].value
    at.slider(key=SCORE + unit).set_value(66).run()
    assert not at.warning
    at.slider(key=SCORE + unit).set_value(12).run()
    assert "below 66" in at.warning[0].value
    at.session_state[SPANS + unit] = {"spans": [{"start": 0, "end": 1, "severity": "major", "missing": False}]}
    at.run()
    assert not at.warning


def test_the_previous_item_is_shown_read_only_with_what_was_submitted(campaign):
    _plan, created, store, _evalset = campaign
    token = created.annotator_tokens[0]
    first = annotator_session(store, token).next_item()
    (unit, text), = first.candidates
    at = open_page(token)
    assert at.button(key="ann_back").disabled  # nothing judged yet
    marks = [{"start": 1, "end": 4, "severity": "minor", "missing": False}]
    at.session_state[SPANS + unit] = {"spans": marks}
    at.slider(key=SCORE + unit).set_value(80).run()
    at.button(key=SUBMIT + first.item).click().run()
    at.button(key="ann_back").click().run()
    assert not at.exception and not at.error
    assert "cannot be changed" in at.info[0].value
    (editor,) = at.get("bidi_component")
    data = json.loads(editor.proto.json)
    assert data["readonly"] is True and data["text"] == text and data["spans"] == marks
    assert not at.slider and not [b for b in at.button if b.key.startswith(SUBMIT)]
    at.button(key="ann_current").click().run()
    assert at.get("progress")[0].proto.text.startswith("Item 2 of")
    assert len(admin_session(store, created.admin_token).judgments()) == 1  # looking back stored nothing


def test_a_wrong_token_shows_a_refusal_and_nothing_else(campaign):
    _plan, created, _store_, evalset = campaign
    for wrong in (created.admin_token, created.annotator_tokens[0][:-1], "' OR 1=1 --"):
        at = open_page(wrong)
        assert len(at.error) == 1 and "opens no annotation queue" in at.error[0].value
        assert not at.get("bidi_component") and not at.slider and not at.button and not at.get("progress")
        assert not at.sidebar.children or not everything(at.sidebar)  # no sidebar, no evaluation page
        no_system_name(at, evalset)


def test_another_annotators_token_shows_none_of_this_annotators_items(campaign):
    plan, created, store, evalset = campaign
    mine = annotator_session(store, created.annotator_tokens[0])
    first = mine.next_item()
    mine.submit(first.item, [Judgment(u, 70.0) for u, _t in first.candidates])
    theirs_keys = {e.item for e in plan.queues[1]}
    mine_units = {u for e in plan.queues[0] for u in e.unit_order}
    at = open_page(created.annotator_tokens[1])
    assert not at.error
    assert at.get("progress")[0].proto.text.startswith(f"Item 1 of {len(plan.queues[1])} · 0 judged")
    keys = [e.key.removeprefix(SPANS) for e in at.get("bidi_component")]
    assert keys and not set(keys) & mine_units
    assert annotator_session(store, created.annotator_tokens[1]).next_item().item in theirs_keys
    assert at.button(key="ann_back").disabled  # annotator 1's judged item is not theirs to look back at
    page = everything(at)
    assert first.item not in page and not [u for u in mine_units if u in page]
    no_system_name(at, evalset)


def test_the_page_without_a_token_asks_for_one_and_loads_no_evaluation(campaign):
    _plan, created, _store_, _evalset = campaign
    at = open_page(None)
    assert not at.error and not at.get("bidi_component")
    assert at.text_input(key="ann_token_input").label == "Annotator token"
    assert "ke_evalset" not in at.session_state  # the sample was not loaded for this page
    at.text_input(key="ann_token_input").set_value(created.annotator_tokens[0])
    at.button[0].click().run()
    assert at.query_params["token"] == [created.annotator_tokens[0]] or at.query_params["token"] == created.annotator_tokens[0]
    assert at.get("bidi_component")
