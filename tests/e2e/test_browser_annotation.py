"""The annotation page in a real browser: an annotator marks error spans with the mouse and the keyboard in the span
editor (a custom component), changes a severity, deletes a mark, marks an omission, scores, submits and reloads;
the database then holds exactly the submitted spans, at Python's character offsets (a translation with an emoji,
which is two UTF-16 code units in the browser and one character in Python, before the marked words).

A server of its own (``$KOREAN_EVAL_ANNOTATION_DB`` names the campaign's SQLite file), opened first by the
annotator's link straight to the page (the redirect through app.py keeps the token). Screenshots at 1280 px go to
the module's artifacts folder (``$KOREAN_EVAL_ARTIFACTS`` when set). Needs ``/usr/bin/chromium``.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from korean_eval.annotation.access import admin_session, annotator_session
from korean_eval.annotation.campaign import CampaignSettings, plan_campaign
from korean_eval.annotation.database import DATABASE_VAR
from korean_eval.annotation.judgments import spans_from_json
from korean_eval.annotation.storage import CampaignStore
from korean_eval.model.evalset import EvalSet
from tests.support.app_server import BROWSER_TEST_OPTIONS, NO_EXCEPTION, AppServer, chromium_page, idle, shot

pytestmark = pytest.mark.browser
#: The fixtures ``chromium`` and ``artifacts``.
pytest_plugins = ("tests.support.browser_server",)

#: Every translation has an emoji (outside the BMP) before the words the test marks.
SYSTEMS = {
    "sys_first": ["오늘 😀 날씨가 정말 좋습니다.", "회의는 🎉 내일 오후 세 시에 시작합니다.", "지하철 🚇 이 호선은 지금 운행하지 않습니다."],
    "sys_second": ["오늘은 😀 날씨가 정말 좋아요.", "회의가 🎉 내일 오후 세 시에 열립니다.", "지하철 🚇 이 호선은 운행을 멈췄습니다."],
}
SOURCES = ["The weather is really nice today.", "The meeting starts tomorrow at three.", "Line 2 is not running now."]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("annotation")
    db = str(folder / "judgments.db")
    evalset = EvalSet(seg_ids=["0", "1", "2"], refs=[SOURCES], systems={k: list(v) for k, v in SYSTEMS.items()},
                      src=SOURCES)
    evalset.segment_info = pd.DataFrame({"seg_id": ["0", "1", "2"], "document": ["d", "d", "d"]})
    store = CampaignStore(db)
    created = store.create(plan_campaign(evalset, CampaignSettings(annotators=1, double=0.0, attention=0.0, seed=7)))
    yield db, created, store
    store.close()


@pytest.fixture(scope="module")
def server(campaign, tmp_path_factory, chromium):
    db, _created, _store = campaign
    with AppServer(tmp_path_factory.mktemp("annotation-server"), env={DATABASE_VAR: db},
                   options=BROWSER_TEST_OPTIONS) as app:
        yield app.url


def _drag(page, editor, start: int, end: int) -> None:
    """Drag the mouse from character ``start`` to character ``end - 1`` of the editor's text (code points)."""
    first = editor.locator(f'.ch[data-i="{start}"]').bounding_box()
    last = editor.locator(f'.ch[data-i="{end - 1}"]').bounding_box()
    page.mouse.move(first["x"] + 2, first["y"] + first["height"] / 2)
    page.mouse.down()
    page.mouse.move(last["x"] + last["width"] / 2, last["y"] + last["height"] / 2, steps=5)
    page.mouse.move(last["x"] + last["width"] - 1, last["y"] + last["height"] / 2)
    page.mouse.up()


def _marks(editor) -> list[dict]:
    return json.loads(editor.get_attribute("data-spans"))


def test_mark_change_delete_score_submit_and_reload(server, campaign, chromium, artifacts):
    _db, created, store = campaign
    token = created.annotator_tokens[0]
    first = annotator_session(store, token).next_item()
    (unit, text), = first.candidates
    with chromium_page(1280, 1100, 120_000, chromium) as page:
        page.goto(f"{server}/annotate?token={token}")
        page.get_by_text("Item 1 of 6").wait_for()
        idle(page)
        assert page.locator(NO_EXCEPTION).count() == 0
        assert page.get_by_text("Correlations").count() == 0  # an annotator's link shows no other page
        editor = page.locator(".ke-spans").first  # Playwright's CSS reaches into the component's shadow root
        editor.locator(".ke-text").wait_for()
        assert editor.locator(".ke-text").inner_text().startswith(text)

        word = next(i for i, c in enumerate(text) if ord(c) > 0xFFFF) + 2  # the word after the emoji and a space
        # (in the browser the emoji is two UTF-16 code units: offsets counted in those would be one more)
        # 1. drag over a word, mark it minor with the button
        _drag(page, editor, word, word + 3)
        editor.get_by_role("button", name="Minor (1)").click()
        idle(page)
        assert _marks(editor) == [{"start": word, "end": word + 3, "severity": "minor", "missing": False}]
        # 2. click the mark, change its severity
        editor.locator(f'.ch[data-i="{word + 1}"]').click()
        editor.get_by_role("button", name="Minor ⇄ major (S)").click()
        idle(page)
        assert _marks(editor)[0]["severity"] == "major"
        # 3. another mark with the mouse and the key 1, then delete it
        other = len(text) - 4
        _drag(page, editor, other, other + 2)
        page.keyboard.press("1")
        idle(page)
        assert len(_marks(editor)) == 2
        editor.locator(f'.ch[data-i="{other}"]').click()
        editor.get_by_role("button", name="Delete mark (Del)").click()
        idle(page)
        assert len(_marks(editor)) == 1
        # 4. a mark from the keyboard alone: Home, → to the first character, Shift+→ twice, 2 (major)
        editor.locator(".ke-text").focus()
        page.keyboard.press("Home")
        page.keyboard.press("Shift+ArrowRight")
        page.keyboard.press("Shift+ArrowRight")  # characters 0–2: the selection covers three characters
        page.keyboard.press("2")
        idle(page)
        # 5. an omission on [MISSING]
        editor.locator(".missing-token").click()
        editor.get_by_role("button", name="Minor (1)").click()
        idle(page)
        expected = [{"start": 0, "end": 3, "severity": "major", "missing": False},
                    {"start": word, "end": word + 3, "severity": "major", "missing": False},
                    {"start": len(text), "end": len(text), "severity": "minor", "missing": True}]
        assert _marks(editor) == expected
        # 6. the score: the slider from the keyboard (50 → 40)
        slider = page.locator('[data-testid="stSlider"] input[type="range"]').first  # react-aria's thumb
        slider.focus()
        for _ in range(10):
            page.keyboard.press("ArrowLeft")
        page.get_by_text("Your score 40").wait_for()
        idle(page)
        picture = shot(page, artifacts, "annotation-item-marked", height=1400, width=1280)
        assert picture.stat().st_size > 30_000
        page.get_by_role("button", name="Submit and show the next item").click()
        page.get_by_text("Item 1 stored.").wait_for()
        idle(page)
        # 7. reload: a new session shows the next item; the database holds exactly what was submitted
        page.reload()
        page.get_by_text("Item 2 of 6 · 1 judged").wait_for()
        idle(page)
        assert page.locator(NO_EXCEPTION).count() == 0
        shot(page, artifacts, "annotation-after-reload", height=1400, width=1280)
        page.get_by_role("button", name="← Previous item").click()
        page.get_by_text("cannot be changed here").wait_for()
        idle(page)
        shot(page, artifacts, "annotation-previous-item", height=1400, width=1280)

    table = admin_session(store, created.admin_token).judgments()
    assert len(table) == 1 and table.loc[0, "unit"] == unit and table.loc[0, "score"] == 40.0
    stored = [s.to_dict() for s in spans_from_json(table.loc[0, "spans"])]
    assert stored == expected
    assert [text[s["start"]:s["end"]] for s in stored[:2]] == [text[:3], text[word:word + 3]]
    assert 0 < table.loc[0, "seconds"] < 600
