"""The Data page's mt-metrics-eval panel through Streamlit's AppTest: a .zip upload, the choices, the load, and the
sidebar's lower-is-better metrics; unsafe or foreign archives refused by name."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.support.data_page import assert_handled, assert_refused, mtme_key, unescape, upload_mtme
from tests.support.make_mtme_fixture import LP, MT_SYSTEMS, N_SEGMENTS, write_fixture, zip_folder
from ui import directions, state

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")

@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> bytes:
    root = tmp_path_factory.mktemp("mtme")
    write_fixture(root)
    return zip_folder(root)


def test_a_zip_is_loaded_with_the_chosen_references_human_scores_and_metrics(archive: bytes):
    at = upload_mtme(archive)
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key=mtme_key(archive, "pair", pair="")).value == f"wmt24 · {LP}"
    assert list(at.multiselect(key=mtme_key(archive, "refs")).value) == ["refA"]
    at.multiselect(key=mtme_key(archive, "refs")).set_value(["refA", "refB"])
    at.multiselect(key=mtme_key(archive, "human")).set_value(["mqm"])
    at.run()
    metrics = at.multiselect(key=mtme_key(archive, "metrics"))
    assert list(metrics.options) == ["BLEU-refB", "COMET-22-refA", "MetricX-24-refA"]
    metrics.set_value(["COMET-22-refA", "MetricX-24-refA"]).run()
    at.button(key="use_mtme").click().run()
    assert_handled(at, r"human scores 'mqm': lower is better", r"None \(no score\)", evaluate=False)
    evalset = at.session_state[state.EVALSET_KEY]
    assert evalset.system_names == list(MT_SYSTEMS) and evalset.n_segments == N_SEGMENTS and evalset.n_refs == 2
    assert evalset.human_lower_is_better and (evalset.human["score"] <= 0).all()
    assert evalset.human_system is not None and evalset.segment_info["domain"].nunique() == 2
    assert sorted(evalset.given["metric"].unique()) == ["COMET-22-refA", "MetricX-24-refA"]
    assert list(at.sidebar.multiselect(key=directions.SIDEBAR_KEY).value) == ["MetricX-24-refA"]
    assert any("wmt24 en-ko (wmt24.zip)" in unescape(c.value) for c in at.sidebar.caption)
    at.switch_page("pages/correlations.py").run()
    assert not at.exception and not at.error
    assert "nrefs:2" in str(at.get("plotly_chart")[0].proto.spec)
    at.switch_page("pages/downloads.py").run()
    assert not at.exception and not at.error
    labels = [b.label for b in at.get("download_button")]
    assert any(label.startswith("domain_scores.csv") for label in labels)
    assert any(label.startswith("domain_correlations.csv") for label in labels)


def test_reference_copies_become_systems_on_request(archive: bytes):
    at = upload_mtme(archive)
    at.checkbox(key=mtme_key(archive, "refsys")).check().run()
    at.button(key="use_mtme").click().run()
    assert_handled(at, r"refB: evaluated as systems", evaluate=False)
    assert at.session_state[state.EVALSET_KEY].system_names == sorted([*MT_SYSTEMS, "refB"])


def test_unsafe_and_foreign_archives_are_refused_by_name():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("wmt24/sources/en-ko.txt", "a\n")
        zf.writestr("../../etc/cron.d/x", "boom")
    assert_refused(upload_mtme(buf.getvalue(), "evil.zip"), "evil.zip", r"outside the archive")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("notes/readme.txt", "hello")
    assert_refused(upload_mtme(buf.getvalue(), "other.zip"), "other.zip", r"no test set in mt-metrics-eval's layout")


def test_a_bad_file_inside_is_named_with_its_line(tmp_path):
    folder = write_fixture(tmp_path)
    path = folder / "system-outputs" / LP / "sys_josa.txt"
    path.write_text(path.read_text(encoding="utf-8") + "one more\n", encoding="utf-8")
    at = upload_mtme(zip_folder(tmp_path))
    at.button(key="use_mtme").click().run()
    assert_refused(at, f"system-outputs/{LP}/sys_josa.txt", r"has 37 lines", line=N_SEGMENTS + 1)
