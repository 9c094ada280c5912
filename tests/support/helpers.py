"""Shared test helpers: where ../shared is, and skipping that fails under CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


def head_of_sample(segments: int):
    """The bundled sample's first ``segments`` segments (an :class:`~korean_eval.model.evalset.EvalSet`): every system, the
    reference and their human scores."""
    from korean_eval.inputs.sample import sample_segments

    return sample_segments(range(segments))


def write_head_of_sample(directory: Path, segments: int, systems: tuple[str, ...] | None = None) -> list[str]:
    """The first ``segments`` lines of the bundled sample's reference and of its ``systems`` (all when None), with
    their human scores, written into ``directory`` (made here); the arguments of ``korean-eval run`` that read them."""
    sample_dir = ROOT / "sample_data"
    names = systems or tuple(sorted(p.stem for p in (sample_dir / "systems").glob("*.txt")))
    directory.mkdir(parents=True)
    args = []
    for source, option in [(sample_dir / "ref.txt", "--ref"), *((sample_dir / "systems" / f"{n}.txt", "--sys")
                                                                for n in names)]:
        lines = source.read_text(encoding="utf-8").splitlines()[:segments]
        (directory / source.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        args += [option, str(directory / source.name)]
    human = (sample_dir / "human.tsv").read_text(encoding="utf-8").splitlines()
    kept = [row for row in human[1:] if row.split("\t")[0] in names and int(row.split("\t")[1]) < segments]
    (directory / "human.tsv").write_text("\n".join([human[0], *kept]) + "\n", encoding="utf-8")
    return [*args, "--human", str(directory / "human.tsv")]
