"""MQM ratings through the dashboard (Streamlit AppTest): a layout .zip with two raters' .seg.rating files loaded as
rater groups → the human ceiling on the Correlations page (a dashed line on the bars, a row in the numbers table);
error-span rating files uploaded beside text files."""

from __future__ import annotations

import json

import pytest

from tests.support.apptest import tables
from tests.support.data_page import assert_handled, data_page, mtme_key, upload_mtme
from tests.support.make_mtme_fixture import LP, zip_folder
from tests.support.make_spans_fixture import write_rating_fixture
from ui import state

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> bytes:
    root = tmp_path_factory.mktemp("mqm")
    write_rating_fixture(root)
    return zip_folder(root)


def test_a_layout_zip_with_two_raters_shows_the_ceiling(archive: bytes):
    at = upload_mtme(archive)
    human = at.multiselect(key=mtme_key(archive, "human"))
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
    at.session_state["corr_numbers"] = True  # the numbers behind the charts: drawn once their expander is open
    at.run()
    table = next(f for f in tables(at) if {"level", "metric", "statistic"} <= set(f.columns))
    ceiling = table[table["level"] == "human ceiling"]
    assert set(ceiling["metric"]) == {"group mqm.rater1 vs mqm.rater2"} and len(ceiling) == 2


def test_rating_files_beside_text_files(tmp_path):
    from tests.support.make_mtme_fixture import all_outputs, texts
    from tests.support.make_spans_fixture import rating_lines

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
    at = upload_mtme(archive)
    at.multiselect(key=mtme_key(archive, "human")).set_value(["mqm.rater1", "mqm.rater2"]).run()
    at.button(key="use_mtme").click().run()
    at.switch_page("pages/lens.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any("MQM category × Korean category" in m.value for m in at.markdown)
    assert any("penalties most closely" in m.value or "penalties alike" in m.value for m in at.markdown)
    table = next(f for f in tables(at) if "korean category" in f.columns and "examples" in f.columns)
    assert {"content", "particle"} & set(table["korean category"])
    assert table["spans"].str.replace(",", "").astype(int).sum() > 100


def _text_files(at, refs: list[str], hyps: dict[str, list[str]]) -> None:
    at.file_uploader(key="up_refs").set_value([("ref.txt", ("\n".join(refs) + "\n").encode(), "text/plain")])
    at.file_uploader(key="up_systems").set_value(
        [(f"{n}.txt", ("\n".join(v) + "\n").encode(), "text/plain") for n, v in hyps.items()])


def test_a_google_tsv_beside_text_files_names_the_offset_then_uses_it():
    from tests.support.rating_texts import RATED_HYPS as HYPS
    from tests.support.rating_texts import REF, google_tsv

    at = data_page()
    _text_files(at, REF, HYPS)
    at.file_uploader(key="up_ratings_txt").set_value([("mqm.tsv", google_tsv(), "text/tab-separated-values")])
    at.run()
    at.button(key="use_texts").click().run()
    assert_handled(at, r"6 of 8 judgment\(s\).*“seg_id offset of the ratings” -1", evaluate=False)
    at.number_input(key="ratings_seg_offset_txt").set_value(-1).run()
    at.button(key="use_texts").click().run()
    assert_handled(at, r"seg_id offset added to the ratings' ids \(mqm.tsv: -1\)", evaluate=False)
    evalset = at.session_state[state.EVALSET_KEY]
    assert evalset.report.excluded_frame().empty and len(evalset.human_ratings) == 8


def _long_table(first: int) -> bytes:
    from tests.support.rating_texts import RATED_HYPS as HYPS
    from tests.support.rating_texts import REF

    rows = ["system,seg_id,hyp,ref"]
    rows += [f"{name},{i + first},{hyp},{REF[i]}" for name, hyps in HYPS.items() for i, hyp in enumerate(hyps)]
    return ("\n".join(rows) + "\n").encode()


def test_ratings_beside_one_long_table():
    from tests.support.rating_texts import google_tsv

    at = data_page()
    at.segmented_control(key="data_mode").set_value("One long table").run()
    at.file_uploader(key="up_table").set_value(("long.csv", _long_table(0), "text/csv"))
    at.run()
    at.file_uploader(key="up_ratings_table").set_value([("mqm.tsv", google_tsv(), "text/tab-separated-values")])
    at.number_input(key="ratings_seg_offset_table").set_value(-1)
    at.run()
    at.button(key="use_table").click().run()
    assert_handled(at, r"mqm-weights:major=5", r"seg_id offset added to the ratings' ids \(mqm.tsv: -1\)",
                   evaluate=False)
    evalset = at.session_state[state.EVALSET_KEY]
    assert evalset.report.excluded_frame().empty and len(evalset.human_ratings) == 8


def test_ratings_with_a_human_score_column_are_refused():
    from korean_eval.model.evalset import InputError
    from tests.support.rating_texts import google_tsv
    from ui.inputs import TableRoles, Upload, build_from_table

    roles = TableRoles(system="system", seg_id=("seg_id",), hyp="hyp", ref=("ref",), score="ref")
    with pytest.raises(InputError, match="human score column 'ref' or error-span ratings, not both"):
        build_from_table(Upload("long.csv", _long_table(1)), roles, ratings=[Upload("mqm.tsv", google_tsv())])
    plain = TableRoles(system="system", seg_id=("seg_id",), hyp="hyp", ref=("ref",))
    evalset = build_from_table(Upload("long.csv", _long_table(1)), plain, ratings=[Upload("mqm.tsv", google_tsv())])
    assert len(evalset.human_ratings) == 8  # a table numbered from 1 needs no offset
