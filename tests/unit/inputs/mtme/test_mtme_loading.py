"""A folder in mt-metrics-eval's layout → EvalSet (korean_eval.inputs.mtme.files / mtme_layout / mtme_scores / mtme_load),
on the fixture of tests/support/make_mtme_fixture.py, as a directory and as a zip archive."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from korean_eval.inputs.mtme.files import DirTree, ZipTree, open_tree
from korean_eval.inputs.mtme.layout import describe, scan
from korean_eval.inputs.mtme.load import (
    ALL_METRICS,
    MtmeOptions,
    human_lower_is_better,
    load_mtme,
    metric_lower_is_better,
)
from korean_eval.inputs.tables import attach_human_frame
from korean_eval.inputs.text_files import InputError
from tests.support.make_mtme_fixture import (
    DOCUMENTS,
    LP,
    MT_SYSTEMS,
    N_SEGMENTS,
    NO_TRANSLATION_AT,
    esa_scores,
    mqm_penalties,
    mqm_system_scores,
    write_fixture,
    zip_folder,
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_fixture(tmp_path)


def load(folder: Path, **options) -> object:
    return load_mtme(DirTree(folder), MtmeOptions(lp=LP, **options))


# ------------------------------------------------------------------------------------------------------ listing


def test_scan_lists_every_file_kind(folder: Path):
    contents = scan(DirTree(folder.parent))
    assert contents.test_sets() == ["wmt24"] and contents.language_pairs() == [LP]
    pair = contents.find(LP)
    assert sorted(pair.references) == ["refA", "refB"]
    assert sorted(pair.systems) == sorted([*MT_SYSTEMS, "refA", "refB"])
    assert pair.reference_systems() == ["refA", "refB"]
    assert [(f.name, f.level) for f in pair.human] == [("esa", "seg"), ("mqm", "sys"), ("mqm", "domain"), ("mqm", "seg")]
    assert pair.metric_names("seg") == ["BLEU-refB", "COMET-22-refA", "MetricX-24-refA"]
    assert pair.metric_names("sys") == ["COMET-22-refA"]
    text = describe(contents)
    assert "wmt24 en-ko:" in text and "mqm (sys/domain/seg)" in text and "reference copies among the systems: refA, refB" in text


def test_the_test_set_folder_itself_and_a_zip_of_its_parent_list_the_same(folder: Path):
    direct = scan(DirTree(folder)).find(LP)
    zipped = scan(ZipTree(zip_folder(folder.parent), "fx.zip")).find(LP)
    assert direct.test_set == "wmt24" and zipped.test_set == "wmt24"
    assert direct.systems.keys() == zipped.systems.keys() and direct.human == [
        type(f)(f.path.removeprefix("wmt24/"), f.name, f.level) for f in zipped.human
    ]


def test_files_that_do_not_fit_are_listed_as_skipped(folder: Path):
    (folder / "references" / f"{LP}.ref-x.txt").write_text("x\n")
    (folder / "human-scores" / f"{LP}.mqm.merged.sys.rating").write_text("x\n")
    (folder / "system-outputs" / LP / "sysX.jsonl").write_text("{}\n")
    (folder / "metric-scores" / LP / "COMET-refC.seg.score").write_text("x\n")
    skipped = "\n".join(scan(DirTree(folder)).find(LP).skipped)
    assert "ref-x.txt: a reference name has no '.' or '-'" in skipped
    assert "sys.rating: not SRC-TGT.NAME.seg.rating" in skipped and "sysX.jsonl: only .txt" in skipped
    assert "COMET-refC.seg.score: uses reference(s) refC" in skipped


# ---------------------------------------------------------------------------------------------------- loading


def test_default_load_counts_and_attributes(folder: Path):
    loaded = load(folder)
    ev = loaded.evalset
    assert loaded.references == ("refA",) and ev.n_refs == 1 and ev.n_segments == N_SEGMENTS
    assert ev.system_names == list(MT_SYSTEMS)  # reference copies left out by default
    assert ev.src is not None and len(ev.src) == N_SEGMENTS
    assert ev.systems[NO_TRANSLATION_AT[0]][NO_TRANSLATION_AT[1]] is None
    info = ev.segment_info
    assert list(info.columns) == ["seg_id", "document", "domain"] and info["document"].nunique() == len(DOCUMENTS)
    assert info.groupby("domain").size().to_dict() == {"news": 18, "speech": 18}
    assert loaded.human == "esa" and not ev.human_lower_is_better  # the first seg-level name in sorted order
    assert any("human scores: esa (the first in sorted order); not used: mqm; choose with" in n for n in ev.report.notes)
    assert loaded.metrics == () and ev.given is None


def test_mqm_penalties_are_lower_is_better_and_negated_with_nones_excluded(folder: Path):
    ev = load(folder, human="mqm").evalset
    assert ev.human_lower_is_better and ev.summary()["human scores"].startswith("lower is better")
    raw = mqm_penalties()
    got = ev.human.set_index(["system", "seg_id"])
    for system in MT_SYSTEMS:
        for i, value in enumerate(raw[system]):
            if value is None:
                assert (system, str(i)) not in got.index
            else:
                assert got.loc[(system, str(i)), "score"] == -value and got.loc[(system, str(i)), "score_raw"] == value
    excluded = ev.report.excluded_frame()
    mine = excluded[excluded["file"] == f"human-scores/{LP}.mqm.seg.score"]
    nones = sum(v is None for s in MT_SYSTEMS for v in raw[s])
    assert (mine["reason"] == "None (no score)").sum() == nones
    assert (mine["reason"].str.startswith("system not evaluated")).sum() == 2 * N_SEGMENTS  # refA, refB copies
    assert len(ev.human) == len(MT_SYSTEMS) * N_SEGMENTS - nones
    # the sys and domain files of the same name, negated like the segment scores
    sys_scores = ev.human_system.set_index("system")["score"]
    assert sys_scores.to_dict() == {s: -v for s, v in mqm_system_scores().items() if s in MT_SYSTEMS}
    assert set(ev.human_domain["domain"]) == {"news", "speech"} and (ev.human_domain["score"] <= 0).all()
    assert any("lower is better (read from the name" in n for n in ev.report.notes)


def test_esa_is_higher_is_better_and_a_declared_direction_wins(folder: Path):
    ev = load(folder, human="esa").evalset
    assert not ev.human_lower_is_better
    first = esa_scores()["sys_josa"][0]
    assert ev.human.set_index(["system", "seg_id"]).loc[("sys_josa", "0"), "score"] == first
    declared = load(folder, human=f"human-scores/{LP}.esa.seg.score", human_direction="lower").evalset
    assert declared.human_lower_is_better
    assert declared.human.set_index(["system", "seg_id"]).loc[("sys_josa", "0"), "score"] == -first
    assert not load(folder, human="mqm", human_direction="higher").evalset.human_lower_is_better


def test_direction_rules():
    assert human_lower_is_better("mqm", [0.0, 5.0, 1.0])
    assert human_lower_is_better("round2.mqm.merged", [0.0, 2.0])
    assert not human_lower_is_better("mqm", [-0.0, -5.0, -1.0])  # mt-metrics-eval's negated MQM
    assert not human_lower_is_better("esa", [10.0, 90.0])
    assert human_lower_is_better("esa", [10.0, 90.0], "lower") and not human_lower_is_better("mqm", [1.0], "higher")
    assert metric_lower_is_better("MetricX-24-Hybrid-refA", [0.5, 3.0])
    assert not metric_lower_is_better("MetricX-24-refA", [-0.5, -3.0])  # stored negated: higher is better
    assert metric_lower_is_better("TER-refA", [10.0, 50.0]) and metric_lower_is_better("GEMBA-MQM-src", [0.0, 5.0])
    assert not metric_lower_is_better("COMET-22-refA", [0.5, 0.9]) and not metric_lower_is_better("chrF-refA", [50.0])


def test_metric_files_become_given_metrics_with_their_direction(folder: Path):
    loaded = load(folder, metrics=ALL_METRICS)
    assert loaded.metrics == ("COMET-22-refA", "MetricX-24-refA")  # BLEU-refB used a reference not scored against
    assert loaded.lower_is_better == ("MetricX-24-refA",)
    given = loaded.evalset.given
    assert set(given["system"]) == set(MT_SYSTEMS) and set(given["metric"]) == set(loaded.metrics)
    per_metric = given.groupby("metric").size()
    assert (per_metric == len(MT_SYSTEMS) * N_SEGMENTS - 1).all()  # the missing translation's score is excluded
    assert any("not loaded (computed with other references than refA): BLEU-refB" in n for n in loaded.evalset.report.notes)
    both = load(folder, references=("refA", "refB"), metrics=ALL_METRICS)
    assert both.metrics == ("BLEU-refB", "COMET-22-refA", "MetricX-24-refA") and both.evalset.n_refs == 2
    with pytest.raises(InputError, match="BLEU-refB.seg.score: computed with reference"):
        load(folder, metrics=("BLEU-refB",))
    with pytest.raises(InputError, match="no segment-level scores of metric 'chrF-refA'"):
        load(folder, metrics=("chrF-refA",))


def test_reference_copies_as_systems_on_request(folder: Path):
    loaded = load(folder, refs_as_systems=True, human="mqm", metrics=ALL_METRICS)
    ev = loaded.evalset
    assert ev.system_names == sorted([*MT_SYSTEMS, "refB"])  # refA is scored against: never a system
    assert ev.systems["refB"] == load(folder, references=("refB",)).evalset.refs[0]
    assert "refB" in set(ev.human["system"]) and "refB" in set(ev.given["system"])
    two_refs = load(folder, references=("refA", "refB"), refs_as_systems=True).evalset
    assert two_refs.system_names == list(MT_SYSTEMS)


def test_zip_and_directory_give_the_same_evalset(folder: Path):
    options = MtmeOptions(lp=LP, human="mqm", metrics=ALL_METRICS, references=("refA", "refB"))
    a = load_mtme(DirTree(folder), options).evalset
    b = load_mtme(ZipTree(zip_folder(folder.parent), "fx.zip"), options).evalset
    assert a.content_hash() == b.content_hash()
    path = folder.parent / "fx.zip"
    path.write_bytes(zip_folder(folder.parent))
    assert load_mtme(open_tree(path), options).evalset.content_hash() == a.content_hash()


# ----------------------------------------------------------------------------------------------------- errors


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_a_system_file_of_another_length_names_file_and_line(folder: Path):
    _append(folder / "system-outputs" / LP / "sys_josa.txt", "extra line\n")
    with pytest.raises(InputError, match=rf"system-outputs/{LP}/sys_josa.txt, line {N_SEGMENTS + 1}: has {N_SEGMENTS + 1} lines"):
        load(folder)


def test_an_unknown_system_in_a_score_file_names_file_and_line(folder: Path):
    _append(folder / "human-scores" / f"{LP}.esa.seg.score", "ghost\t50\n")
    n_lines = len((folder / "human-scores" / f"{LP}.esa.seg.score").read_text().splitlines())
    with pytest.raises(InputError, match=rf"{LP}.esa.seg.score, line {n_lines}: unknown system 'ghost'"):
        load(folder)


def test_wrong_score_counts_and_fields_name_the_line(folder: Path):
    path = folder / "human-scores" / f"{LP}.esa.seg.score"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[1:]) + "\n")  # sys_josa loses its first score
    with pytest.raises(InputError, match=rf"line {N_SEGMENTS - 1}: system 'sys_josa' has {N_SEGMENTS - 1} seg-level score\(s\), expected {N_SEGMENTS}"):
        load(folder)
    path.write_text("\n".join(lines[:3] + ["sys_josa 1 2"] + lines[3:]) + "\n")
    with pytest.raises(InputError, match=r"line 4: 3 field\(s\)"):
        load(folder)
    sys_file = folder / "human-scores" / f"{LP}.mqm.sys.score"
    _append(sys_file, "sys_josa\t1.0\n")
    with pytest.raises(InputError, match="mqm.sys.score, line .*more than 1 score"):
        load(folder, human="mqm")


def test_bad_documents_and_choices_are_refused(folder: Path):
    docs = folder / "documents" / f"{LP}.docs"
    original = docs.read_text()
    lines = original.splitlines()
    lines[20] = "news\tn1"  # n1 again inside s1
    docs.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"documents/en-ko.docs, line 21: document 'n1' again after its block ended on line 8"):
        load(folder)
    docs.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(InputError, match=rf"documents/en-ko.docs, line {N_SEGMENTS}: has {N_SEGMENTS - 1} lines"):
        load(folder)
    docs.write_text(original)
    with pytest.raises(InputError, match="unknown reference 'refZ'; references: refA, refB"):
        load(folder, references=("refZ",))
    with pytest.raises(InputError, match="no segment-level human scores named 'da'"):
        load(folder, human="da")
    with pytest.raises(InputError, match="name the segment-level"):
        load(folder, human=f"{LP}.mqm.sys.score")
    with pytest.raises(InputError, match="no language pair 'de-en'"):
        load_mtme(DirTree(folder), MtmeOptions(lp="de-en"))


def test_none_is_not_a_number_error_but_text_is_excluded(folder: Path):
    path = folder / "metric-scores" / LP / "COMET-22-refA.seg.score"
    lines = path.read_text().splitlines()
    lines[0] = "sys_josa\tabc"
    path.write_text("\n".join(lines) + "\n")
    ev = load(folder, metrics=ALL_METRICS).evalset
    bad = ev.report.excluded_frame()
    row = bad[bad["file"] == f"metric-scores/{LP}/COMET-22-refA.seg.score"].iloc[0]
    assert row["line"] == 1 and "not a finite number" in row["reason"]


# -------------------------------------------------------------------------------------------------- zip safety


def _zip(members: dict[str, bytes], symlink: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


@pytest.mark.parametrize("name", ["../evil/sources/en-ko.txt", "/abs/sources/en-ko.txt", "a/../../x.txt", "C:/x.txt", "a\\..\\..\\x.txt"])
def test_zip_members_leaving_the_root_are_refused(name: str):
    with pytest.raises(InputError, match=r"bad.zip: member .*(absolute|outside)"):
        ZipTree(_zip({"wmt/sources/en-ko.txt": b"a\n", name: b"x"}), "bad.zip")


def test_zip_symlinks_duplicates_and_bombs_are_refused():
    with pytest.raises(InputError, match="symbolic link"):
        ZipTree(_zip({"wmt/sources/en-ko.txt": b"a\n"}, symlink="wmt/references/en-ko.refA.txt"), "link.zip")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a/x.txt", b"1")
        zf.writestr("a/./x.txt", b"2")  # the same path once normalised
    with pytest.raises(InputError, match="appears twice"):
        ZipTree(buf.getvalue(), "dup.zip")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("wmt/sources/en-ko.txt", b"a\n" * 600_000)  # 1.2 MB that compresses to a few KB
    tree = ZipTree(buf.getvalue(), "bomb.zip", max_total_bytes=1_000_000)
    assert len(buf.getvalue()) < 20_000
    with pytest.raises(InputError, match="would exceed 1 MB together"):
        tree.read("wmt/sources/en-ko.txt")
    with pytest.raises(InputError, match="not a readable zip archive"):
        ZipTree(b"PK\x03\x04 broken", "broken.zip")


def test_macos_resource_entries_are_ignored(folder: Path):
    data = zip_folder(folder.parent)
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as zf:
        zf.writestr("__MACOSX/wmt24/sources/._en-ko.txt", b"\x00\x05junk")
        zf.writestr("wmt24/.DS_Store", b"junk")
    contents = scan(ZipTree(buf.getvalue(), "mac.zip"))
    assert contents.language_pairs() == [LP]


def test_an_empty_or_foreign_folder_says_so(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(InputError, match="no test set in mt-metrics-eval's layout"):
        scan(DirTree(tmp_path)).find(LP)
    with pytest.raises(InputError, match="directory in mt-metrics-eval's layout or a .zip"):
        open_tree(tmp_path / "notes.txt")


def test_new_human_scores_replace_the_ones_that_came_with_the_folder(folder: Path):
    ev = load(folder, human="mqm").evalset
    assert ev.human_system is not None and ev.human_lower_is_better
    attach_human_frame(ev, ev.human[["system", "seg_id"]].assign(score=1.0), "qc.csv")
    assert ev.human_system is None and ev.human_domain is None and not ev.human_lower_is_better
    assert (ev.human["score"] == 1.0).all()


def test_frames_have_the_documented_columns(folder: Path):
    ev = load(folder, human="mqm", metrics=ALL_METRICS).evalset
    assert list(ev.human.columns[:3]) == ["system", "seg_id", "score"] and "score_raw" in ev.human
    assert list(ev.human_system.columns) == ["system", "score"]
    assert list(ev.human_domain.columns) == ["domain", "system", "score"]
    assert list(ev.given.columns) == ["system", "seg_id", "metric", "score"]
    assert isinstance(ev.segment_info, pd.DataFrame)


def test_system_file_named_in_nfd_matches_nfc_score_lines(folder: Path):
    import unicodedata

    old = MT_SYSTEMS[0]
    nfc = "한국어시스템"
    outputs = folder / "system-outputs" / LP
    (outputs / f"{old}.txt").rename(outputs / f"{unicodedata.normalize('NFD', nfc)}.txt")
    for path in (folder / "human-scores").glob("*.score"):
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("".join(
            "\t".join(nfc if cell == old else cell for cell in line.split("\t")) + "\n" for line in lines
        ), encoding="utf-8")
    ev = load(folder).evalset
    assert nfc in ev.systems and old not in ev.systems
    assert (ev.human["system"] == nfc).sum() > 0  # the NFC score lines found the NFD-named file
