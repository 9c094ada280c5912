"""Shared test helpers: where ../shared is, skipping that fails under CI, the head of the bundled sample, and two
evaluations' results compared table by table."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
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


#: The tables of a :class:`~korean_eval.model.results.Results` that :func:`assert_same_results` compares.
TABLES = ("segment_scores", "system_scores", "correlations", "rankings", "flips", "human_systems", "token_stats")


def assert_same_results(a, b) -> None:
    """Two Results with equal tables (``==``; the tokenisers' timings aside) and equal statistics (NaN where NaN)."""
    for name in TABLES:
        x, y = getattr(a, name), getattr(b, name)
        if name == "token_stats":
            x, y = x.drop(columns="tokenizer_seconds"), y.drop(columns="tokenizer_seconds")
        pd.testing.assert_frame_equal(x, y, check_exact=True)
    assert a.stats.keys() == b.stats.keys()
    for key in a.stats:
        assert np.array_equal(a.stats[key], b.stats[key], equal_nan=True), key
