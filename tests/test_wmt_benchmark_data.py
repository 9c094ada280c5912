"""The WMT-shaped benchmark set (benchmarks/wmt_data.py, ``make_data.py --wmt``) and the unchanged 4-system set.

The generator makes N systems; with four it must write the 4-system set byte for byte as pinned by the digests below
(of ``make_data.build(512)``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import statistics
import sys

import pytest

from tests.support.helpers import ROOT

BUILD_512_SHA256 = {
    "edits.tsv": "ccf372e06ea927e4ef7565db20075ddcf65ed7515e34413091a7a04e7443fec1",
    "human.tsv": "427a97b2c5086e8f212c6001b60a0a1908c11c0e82263bfebbb17ee704ffdc05",
    "ref.txt": "e634ba072a101c852f196fd843e018b427c0decffc4da4726c5959166d4243f2",
    "systems/sys_a_strong.txt": "e9801285c55f7624ab24a92fb56d09fc0eb50dbe2c65ddfc6eb9eedbaf25516b",
    "systems/sys_b_josa.txt": "c1b8dd0885c16b4181013a25f40c3dd7ec12242c2b9c933fadf1008e0ff49a22",
    "systems/sys_c_order.txt": "21e26dd173841ca148241428c7ad20f23b8a280bb43b550c0e00d90a4b4bea3b",
    "systems/sys_d_weak.txt": "3389ae04fb615cef5387f12e73b3cf4c8248ceac6f12432afb210265db0a51bd",
}


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / file)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def make_data():
    return sys.modules.get("_ke_bench_make_data") or _load("_ke_bench_make_data", "make_data.py")


@pytest.fixture(scope="module")
def wmt(make_data):
    return _load("_ke_bench_wmt_data", "wmt_data.py")


@pytest.fixture(scope="module")
def dataset(wmt):
    return wmt.build_wmt(8, 60)


def test_the_four_system_set_is_unchanged(make_data, tmp_path):
    make_data.write(make_data.build(512), tmp_path)
    written = {
        str(p.relative_to(tmp_path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(tmp_path.rglob("*")) if p.is_file() and p.name != "summary.json"
    }
    assert written == BUILD_512_SHA256


def test_shape_a_third_paragraphs(dataset, wmt):
    assert len(dataset.systems) == 8 and len(dataset.refs) == 60
    assert [name for name, _, _ in wmt.system_specs(8)] == list(dataset.systems)
    paragraphs = [i for i, r in enumerate(dataset.refs) if len(r) >= wmt.PARAGRAPH_MIN]
    assert paragraphs == [i for i in range(60) if i % 3 == 2]
    assert all(wmt.PARAGRAPH_MIN <= len(dataset.refs[i]) <= wmt.PARAGRAPH_MAX for i in paragraphs)
    assert all(len(r) <= 200 for i, r in enumerate(dataset.refs) if i not in paragraphs)
    assert dataset.summary()["all sentences distinct"]


def test_deterministic(wmt, dataset):
    again = wmt.build_wmt(8, 60)
    assert again.refs == dataset.refs and again.systems == dataset.systems and again.human == dataset.human


def test_graded_quality_and_human_scores(dataset):
    names = list(dataset.systems)
    mean = {n: statistics.mean(s for m, _, s in dataset.human if m == n) for n in names}
    assert min(mean[n] for n in names[:2]) > max(mean[n] for n in names[-2:]) + 10
    assert 0.8 * 480 <= len(dataset.human) <= 0.98 * 480
    assert all(0 <= s <= 100 for _, _, s in dataset.human)


def test_rewrite_strength_runs_from_the_strongest_to_the_weakest(wmt, make_data):
    specs = wmt.system_specs(24)
    assert specs[0][2] == make_data.REWRITE["sys_a_strong"] and specs[-1][2] == make_data.REWRITE["sys_d_weak"]
    assert [style for _, style, _ in specs] == [s for s in wmt.STYLES for _ in range(6)]
