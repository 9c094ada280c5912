"""No tracked text file holds a merge-conflict marker (a merge resolved by hand can leave one where no linter looks,
e.g. in README.md)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_tracked_file_holds_a_conflict_marker():
    found = []
    for path in tracked_files():
        if not path.is_file() or path.suffix in {".png", ".zip", ".gz"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}" for m in MARKER.finditer(text)]
    assert not found, "merge-conflict markers at " + ", ".join(found)


def test_the_check_finds_a_marker():
    assert MARKER.search("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n")
