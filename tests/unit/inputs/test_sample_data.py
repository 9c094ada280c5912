"""The bundled sample evaluation set: reproducible from its generator, aligned, and with valid human scores."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.helpers import ROOT

SAMPLE = ROOT / "sample_data"
GENERATOR = SAMPLE / "make_sample.py"
GENERATED = ("src.txt", "ref.txt", "edits.tsv", "human.tsv")
SYSTEMS = ("sys_strong", "sys_literal", "sys_josa", "sys_order", "sys_weak")


def committed_files() -> list[str]:
    return sorted([*GENERATED, *(f"systems/{p.name}" for p in (SAMPLE / "systems").glob("*.txt"))])


def read_lines(rel: str) -> list[str]:
    data = (SAMPLE / rel).read_bytes().decode("utf-8")
    assert data.endswith("\n") and "\r" not in data, f"{rel}: must use \\n line ends and end with a newline"
    return data[:-1].split("\n")


def read_human() -> list[dict[str, str]]:
    with open(SAMPLE / "human.tsv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sample")
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out)], check=True, capture_output=True)
    return out


def test_generator_reproduces_committed_files_byte_for_byte(regenerated):
    produced = sorted(str(p.relative_to(regenerated)) for p in regenerated.rglob("*") if p.is_file())
    assert produced == committed_files()
    for rel in produced:
        assert (regenerated / rel).read_bytes() == (SAMPLE / rel).read_bytes(), (
            f"{rel} differs from the generator's output"
        )


def test_expected_systems_present():
    assert sorted(p.stem for p in (SAMPLE / "systems").glob("*.txt")) == sorted(SYSTEMS)


def test_all_text_files_line_aligned():
    ref = read_lines("ref.txt")
    assert 100 <= len(ref) <= 200
    assert all(line.strip() == line and line for line in ref)
    assert len(read_lines("src.txt")) == len(ref)
    for name in SYSTEMS:
        hyp = read_lines(f"systems/{name}.txt")
        assert len(hyp) == len(ref), name
        assert all(line.strip() == line and "  " not in line for line in hyp), name


def test_systems_differ_from_reference_and_each_other():
    ref = read_lines("ref.txt")
    outputs = {name: read_lines(f"systems/{name}.txt") for name in SYSTEMS}
    changed = {name: sum(h != r for h, r in zip(hyp, ref, strict=True)) for name, hyp in outputs.items()}
    assert 0 < changed["sys_strong"] < len(ref) * 0.75  # near-perfect: many segments identical
    for name in ("sys_josa", "sys_order", "sys_weak"):
        assert changed[name] > len(ref) * 0.9, name
    assert len({tuple(v) for v in outputs.values()}) == len(SYSTEMS)


def test_reference_statistics():
    ref = read_lines("ref.txt")
    mean_len = sum(map(len, ref)) / len(ref)
    assert 40 <= mean_len <= 60
    assert max(map(len, ref)) >= 100
    assert sum(any(c.isdigit() for c in r) for r in ref) >= 30
    assert sum(any("A" <= c <= "Z" for c in r) for r in ref) >= 8


def test_human_scores_valid():
    rows = read_human()
    n_seg = len(read_lines("ref.txt"))
    assert rows and list(rows[0]) == ["system", "seg_id", "score"]
    seen = set()
    for row in rows:
        assert row["system"] in SYSTEMS
        seg = int(row["seg_id"])
        assert 0 <= seg < n_seg and row["seg_id"] == str(seg)
        assert 0 <= float(row["score"]) <= 100
        key = (row["system"], seg)
        assert key not in seen, f"duplicate human score for {key}"
        seen.add(key)
    coverage = len(seen) / (len(SYSTEMS) * n_seg)
    assert 0.8 <= coverage < 1.0  # most but not all pairs scored, like a real DA campaign
    for name in SYSTEMS:
        assert sum(1 for s, _ in seen if s == name) >= 0.8 * n_seg


def test_human_means_order_systems_sensibly():
    rows = read_human()
    means = {
        name: sum(float(r["score"]) for r in rows if r["system"] == name)
        / sum(1 for r in rows if r["system"] == name)
        for name in SYSTEMS
    }
    assert means["sys_strong"] == max(means.values())
    assert means["sys_weak"] == min(means.values())
    assert means["sys_order"] > means["sys_josa"]  # humans forgive spacing errors more than particle errors


def test_edit_log_matches_outputs():
    ref = read_lines("ref.txt")
    with open(SAMPLE / "edits.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert len(rows) == len(SYSTEMS) * len(ref)
    outputs = {name: read_lines(f"systems/{name}.txt") for name in SYSTEMS}
    for row in rows:
        hyp = outputs[row["system"]][int(row["seg_id"])]
        unchanged = hyp == ref[int(row["seg_id"])]
        assert (row["edits"] == "") == unchanged
        assert (float(row["penalty"]) == 0) == unchanged
