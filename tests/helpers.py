"""Shared test helpers: where ../shared is, and skipping that fails under CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
STUDY = SHARED / "data" / "kor_sacrebleu"
IN_CI = os.environ.get("CI", "").lower() == "true"


def require(path: Path) -> Path:
    """Return ``path``; skip when it is absent locally, fail when absent under CI=true."""
    if not path.exists():
        if IN_CI:
            pytest.fail(f"{path} is required under CI=true but is missing")
        pytest.skip(f"{path} not present")
    return path
