"""Driving the dashboard's Data page through Streamlit's AppTest as a person would (its file uploaders, choices and
buttons), and reading its outcome: the data loaded and what was done said on the page, or one red message naming
the file, the line and the reason. Small Korean texts to upload (a reference, three systems, human scores).
"""

from __future__ import annotations

import hashlib
import re

from streamlit.testing.v1 import AppTest

from tests.support.apptest import APP
from tests.support.make_mtme_fixture import LP
from ui import state

#: Settings of every session :func:`data_page` opens: the word and char levels only, to stay fast.
FAST = {"level|mecab": False, "level|kiwi": False, "level|jamo": False}  # → word, char
REF = [
    "고양이가 매트 위에 앉았다.",
    "오늘은 날씨가 정말 좋습니다.",
    "회의는 오후 3시에 시작합니다.",
    "서울역에서 KTX를 탔어요.",
    "그는 어제 도서관에서 책을 빌렸다.",
    "이 식당의 김치찌개는 아주 맛있어요.",
]
SYS_A = [
    "고양이가 매트에 앉았다.",
    "오늘 날씨가 정말 좋다.",
    "회의는 3시에 시작한다.",
    "서울역에서 KTX를 탔다.",
    "그는 어제 도서관에서 책을 빌렸습니다.",
    "이 식당 김치찌개는 아주 맛있다.",
]
SYS_B = [
    "고양이는 매트 위에 앉았다.",
    "오늘은 날씨 좋습니다.",
    "회의가 오후 3시 시작합니다.",
    "서울 역에서 케이티엑스를 탔어요.",
    "그가 어제 도서관 책 빌렸다.",
    "이 식당의 김치찌개 아주 맛있어요.",
]
SYS_C = ["매트 위 고양이.", "날씨가 좋습니다.", "회의 3시.", "기차를 탔어요.", "책을 빌렸다.", "김치찌개 맛있다."]
HUMAN = {"sys_a": [80, 75, 82, 90, 70, 77], "sys_b": [70, 60, 66, 58, 40, 72], "sys_c": [30, 45, 20, 35, 25, 40]}


def text(lines: list[str], end: str = "\n", encoding: str = "utf-8", final: bool = True) -> bytes:
    return (end.join(lines) + (end if final else "")).encode(encoding)


def human_csv(scores: dict[str, list[object]] | None = None, extra: str = "") -> bytes:
    rows = ["system,seg_id,score"]
    for system, values in (scores or HUMAN).items():
        rows += [f"{system},{i},{v}" for i, v in enumerate(values)]
    return ("\n".join(rows) + "\n" + extra).encode()


def unescape(markdown: str) -> str:
    """Markdown source as the reader sees it (the page escapes every special character of user text)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def data_page(**session) -> AppTest:
    """A fresh session opened on the Data page (nothing evaluated yet)."""
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {**FAST, **session}.items():
        at.session_state[key] = value
    at.switch_page("pages/data.py")
    at.run()
    assert not at.exception
    return at


def page_text(at: AppTest) -> str:
    parts = [*at.markdown, *at.warning, *at.caption, *at.info, *at.success]
    return unescape("\n".join(str(p.value) for p in parts))


def assert_handled(at: AppTest, *said: str, evaluate: bool = True) -> str:
    """Loaded, each of ``said`` (regexes) shown on the Data page, no error; then (``evaluate``) the Correlations
    page evaluates the data without an error, and ``at`` stays on it: read the Data page's elements before."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [unescape(e.value) for e in at.error]
    assert any("Loaded" in s.value for s in at.success), "the data were not loaded"
    shown = page_text(at)
    assert "Current data: validation report" in [s.value for s in at.subheader]
    for pattern in said:
        assert re.search(pattern, shown), f"{pattern!r} not on the page:\n{shown[:3000]}"
    if evaluate:
        at.switch_page("pages/correlations.py").run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [unescape(e.value) for e in at.error]
    return shown


def assert_refused(at: AppTest, file: str, reason: str, line: int | None = None) -> str:
    """One red message naming ``file`` (and ``line``) with a reason matching ``reason``; the sample still in use."""
    assert not at.exception, [e.value for e in at.exception]
    errors = [unescape(e.value) for e in at.error]
    assert len(errors) == 1, errors
    message = errors[0]
    assert message.startswith(file), message
    if line is not None:
        assert f"line {line}" in message, message
    assert re.search(reason, message), message
    assert not any("Loaded" in s.value for s in at.success)
    assert state.EVALSET_KEY not in at.session_state  # the previous data (the sample) is still the data
    return message


#: The Data page's choice of the mt-metrics-eval panel.
MTME_MODE = "mt-metrics-eval (.zip)"


def upload_mtme(data: bytes, name: str = "wmt24.zip") -> AppTest:
    at = data_page()
    at.segmented_control(key="data_mode").set_value(MTME_MODE).run()
    at.file_uploader(key="up_mtme").set_value((name, data, "application/zip")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def mtme_key(data: bytes, widget: str, pair: str = f"wmt24{LP}_") -> str:
    """The widget key the panel gives ``widget`` (of the language pair ``pair``; "" for the pair selectbox)."""
    return f"mtme_{hashlib.sha1(data).hexdigest()[:8]}_{pair}{widget}"
