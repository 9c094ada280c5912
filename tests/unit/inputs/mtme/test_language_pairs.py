"""Language pairs named as WMT names them (``en-ko``, ``ja-zh``, ``cs-uk``, WMT25's ``en-ko_KR``, ``en-ar_EG``) in an
mt-metrics-eval folder (korean_eval.inputs.mtme.layout) and in ``run --mtme DIR --lp …``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from korean_eval.cli.main import main
from korean_eval.inputs.mtme.files import DirTree
from korean_eval.inputs.mtme.layout import scan, without_locales
from korean_eval.inputs.text_files import InputError
from tests.support.command_line import FAST
from tests.support.make_mtme_fixture import LP, write_fixture

WMT_NAMES = ("en-ko", "en-ko_KR", "ja-zh", "cs-uk", "en-ar_EG")


def _rename_pair(base: Path, old: str, new: str, keep_old: bool) -> None:
    """Copy (or move) every file of language pair ``old`` of the test set ``base`` to the name ``new``."""
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base).as_posix()
        if not path.is_file() or not (f"/{old}." in f"/{rel}" or f"/{old}/" in f"/{rel}"):
            continue
        target = base / rel.replace(f"/{old}/", f"/{new}/").replace(f"/{old}.", f"/{new}.")
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copyfile if keep_old else shutil.move)(path, target)


@pytest.fixture
def many_pairs(tmp_path: Path) -> Path:
    """One test set holding the fixture's pair under every name of :data:`WMT_NAMES` (the same files)."""
    base = write_fixture(tmp_path / "data")
    for name in WMT_NAMES[1:]:
        _rename_pair(base, LP, name, keep_old=True)
    return base


def test_every_wmt_name_is_a_language_pair_with_its_own_files(many_pairs: Path) -> None:
    contents = scan(DirTree(many_pairs))
    assert contents.language_pairs() == sorted(WMT_NAMES)
    for name in WMT_NAMES:
        pair = contents.find(name)
        assert pair.lp == name
        assert sorted(pair.references) == ["refA", "refB"] and len(pair.systems) == 7, name
        assert pair.human_names("seg") == ["esa", "mqm"] and not pair.skipped, (name, pair.skipped)
        assert all(f"/{name}." in path or f"/{name}/" in path for path in [*pair.references.values(),
                                                                          *pair.systems.values()]), name


def test_a_name_without_locale_finds_the_only_pair_with_one(tmp_path: Path) -> None:
    base = write_fixture(tmp_path / "data")
    _rename_pair(base, LP, "en-ko_KR", keep_old=False)
    contents = scan(DirTree(base))
    assert contents.language_pairs() == ["en-ko_KR"]
    assert contents.find("en-ko").lp == "en-ko_KR"
    with pytest.raises(InputError, match="no language pair 'ja-zh'"):
        contents.find("ja-zh")
    _rename_pair(base, "en-ko_KR", "en-ko_KP", keep_old=True)
    with pytest.raises(InputError, match=r"en-ko matches several language pairs \(en-ko_KP, en-ko_KR\)"):
        scan(DirTree(base)).find("en-ko")
    assert scan(DirTree(base)).find("en-ko_KP").lp == "en-ko_KP"


def test_exact_name_wins_over_locale_match(many_pairs: Path) -> None:
    assert scan(DirTree(many_pairs)).find("en-ko").lp == "en-ko"


@pytest.mark.parametrize(("name", "base"), [("en-ko_KR", "en-ko"), ("en-ar_EG", "en-ar"), ("ja-zh", "ja-zh"),
                                            ("cs-uk", "cs-uk"), ("zh_Hant-en", "zh-en")])
def test_without_locales(name: str, base: str) -> None:
    assert without_locales(name) == base


def test_cli_runs_on_a_wmt25_pair_name(many_pairs: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code = main(["run", "--mtme", str(many_pairs), "--lp", "en-ko_KR", "--mtme-human", "mqm", *FAST,
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    scores = pd.read_csv(out / "segment_scores.csv")
    assert len(scores) and (pd.read_csv(out / "correlations.csv")["value"].notna()).any()
    code = main(["run", "--mtme", str(many_pairs), "--lp", "xx-yy", *FAST, "--out", str(tmp_path / "bad")])
    assert code != 0 and "no language pair 'xx-yy'" in capsys.readouterr().err
