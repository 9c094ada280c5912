"""The dashboard's mt-metrics-eval panel by default (AppTest): every rater group of the first human score method
chosen, and the folder's metric scores meta-evaluated next to ours unless the box is unticked."""

from __future__ import annotations

import pytest

from tests.support.data_page import assert_handled, mtme_key, upload_mtme
from tests.support.make_mtme_fixture import write_fixture, zip_folder
from tests.support.make_spans_fixture import write_rater_groups
from ui import state

pytestmark = pytest.mark.usefixtures("streamlit_navigation", "private_cache")


@pytest.fixture(scope="module")
def groups_archive(tmp_path_factory) -> bytes:
    root = tmp_path_factory.mktemp("mtme-groups")
    write_rater_groups(write_fixture(root))
    return zip_folder(root)


def test_both_rater_groups_and_the_folders_metrics_by_default(groups_archive: bytes):
    at = upload_mtme(groups_archive)
    assert list(at.multiselect(key=mtme_key(groups_archive, "human")).value) == ["mqm.rater1", "mqm.rater2"]
    assert at.checkbox(key=mtme_key(groups_archive, "with_metrics")).value is True
    at.button(key="use_mtme").click().run()
    assert_handled(at, r"2 rater group\(s\)", r"meta-evaluated|your own metrics", evaluate=False)
    evalset = at.session_state[state.EVALSET_KEY]
    assert sorted(evalset.human_ratings["group"].unique()) == ["mqm.rater1", "mqm.rater2"]
    assert sorted(evalset.given["metric"].unique()) == ["COMET-22-refA", "MetricX-24-refA"]


def test_the_folders_metrics_can_be_left_out(groups_archive: bytes):
    at = upload_mtme(groups_archive)
    at.checkbox(key=mtme_key(groups_archive, "with_metrics")).uncheck().run()
    at.button(key="use_mtme").click().run()
    assert_handled(at, r"2 rater group\(s\)", evaluate=False)
    assert at.session_state[state.EVALSET_KEY].given is None
