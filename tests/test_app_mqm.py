"""MQM ratings through the dashboard (Streamlit AppTest): a layout .zip with two raters' .seg.rating files loaded as
rater groups → the human ceiling on the Correlations page (a dashed line on the bars, a row in the numbers table);
error-span rating files uploaded beside text files."""

from __future__ import annotations

import json

import pytest

from tests.make_mtme_fixture import LP, zip_folder
from tests.make_spans_fixture import write_rating_fixture
from tests.test_app import _private_cache, _streamlit_navigation, tables  # noqa: F401 - fixtures used by name
from tests.test_app_bad_inputs import assert_handled, data_page
from tests.test_app_mtme import key, upload
from ui import state


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> bytes:
    root = tmp_path_factory.mktemp("mqm")
    write_rating_fixture(root)
    return zip_folder(root)


def test_a_layout_zip_with_two_raters_shows_the_ceiling(archive: bytes):
    at = upload(archive)
    human = at.multiselect(key=key(archive, "human"))
    assert {"mqm.rater1", "mqm.rater2"} <= set(human.options)
    human.set_value(["mqm.rater1", "mqm.rater2"]).run()
    at.button(key="use_mtme").click().run()
    assert_handled(at, r"2 rater group\(s\) \(mqm.rater1: 1 rater\(s\), mqm.rater2: 1 rater\(s\)\)",
                   r"offsets that do not fit the text: 0", evaluate=False)
    evalset = at.session_state[state.EVALSET_KEY]
    assert set(evalset.human_ratings["group"]) == {"mqm.rater1", "mqm.rater2"} and evalset.human_lower_is_better
    at.switch_page("pages/correlations.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    lines = [a["text"] for s in specs for a in s["layout"].get("annotations", []) if "human ceiling" in a.get("text", "")]
    assert len(lines) == 2, lines  # segment and system level
    assert any("human ceiling" in c.value for c in at.caption)
    table = next(f for f in tables(at) if {"level", "metric", "signature"} <= set(f.columns))
    ceiling = table[table["level"] == "human ceiling"]
    assert set(ceiling["metric"]) == {"group mqm.rater1 vs mqm.rater2"} and len(ceiling) == 2


def test_rating_files_beside_text_files(tmp_path):
    from tests.make_mtme_fixture import all_outputs, texts
    from tests.make_spans_fixture import rating_lines

    _, refs, systems = texts()
    at = data_page()
    at.file_uploader(key="up_refs").set_value([("ref.txt", ("\n".join(refs["refA"]) + "\n").encode(), "text/plain")])
    at.file_uploader(key="up_systems").set_value(
        [(f"{n}.txt", ("\n".join(v) + "\n").encode(), "text/plain") for n, v in all_outputs().items()])
    at.file_uploader(key="up_ratings_txt").set_value(
        [(f"{LP}.mqm.{r}.seg.rating", rating_lines(r).encode(), "text/plain") for r in ("rater1", "rater2")])
    at.run()
    at.button(key="use_texts").click().run()
    assert_handled(at, r"mqm-weights:major=5", r"2 rater group", evaluate=False)
    assert set(at.session_state[state.EVALSET_KEY].human_ratings["group"]) == {"mqm.rater1", "mqm.rater2"}


def test_the_lens_page_shows_the_category_tables(archive: bytes):
    at = upload(archive)
    at.multiselect(key=key(archive, "human")).set_value(["mqm.rater1", "mqm.rater2"]).run()
    at.button(key="use_mtme").click().run()
    at.switch_page("pages/lens.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any("MQM category × Korean category" in m.value for m in at.markdown)
    assert any("penalties most closely" in m.value for m in at.markdown)
    table = next(f for f in tables(at) if "korean category" in f.columns and "examples" in f.columns)
    assert {"content", "particle"} & set(table["korean category"])
    assert table["spans"].str.replace(",", "").astype(int).sum() > 100
