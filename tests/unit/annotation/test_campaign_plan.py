"""Campaign plans (korean_eval.annotation.campaign): reproducible from the seed, balanced over systems, documents
whole, the double-annotated share, attention checks, nothing in keys that names a system."""

from __future__ import annotations

import collections
import math

import numpy as np
import pandas as pd
import pytest

from korean_eval.annotation.campaign import CampaignSettings, disagreement_order, plan_campaign, queue_systems
from korean_eval.inputs.sample import load_sample
from tests.support.campaign_data import SYSTEMS, small_evalset
from tests.support.helpers import SHARED, require


def _regular(plan, queue):
    return [e for e in queue if plan.items[e.item].annotator is None]


def test_the_plan_is_reproducible_from_the_seed():
    settings = CampaignSettings(annotators=3, seed=7)
    a, b = plan_campaign(small_evalset(), settings), plan_campaign(small_evalset(), settings)
    assert a == b
    other = plan_campaign(small_evalset(), CampaignSettings(annotators=3, seed=8))
    assert [[e.item for e in q] for q in a.queues] != [[e.item for e in q] for q in other.queues]


def test_every_translation_is_judged_once_or_twice_and_systems_are_balanced():
    evalset = small_evalset(documents=10)
    plan = plan_campaign(evalset, CampaignSettings(annotators=3, double=0.1, attention=0.0))
    judged = collections.Counter(u for q in plan.queues for e in q for u in e.unit_order)
    assert set(judged) == set(plan.units) and len(plan.units) == 30 * len(SYSTEMS)
    twice = [u for u, n in judged.items() if n == 2]
    assert set(judged.values()) == {1, 2} and abs(len(twice) - 0.1 * len(plan.units)) <= 9  # whole documents
    assert len(set(collections.Counter(plan.units[u].system for u in twice).values())) == 1  # balanced
    for q in plan.queues:  # two judgments of one translation come from two annotators
        assert len({u for e in q for u in e.unit_order}) == sum(len(e.unit_order) for e in q)
    loads = [len(q) for q in plan.queues]
    assert max(loads) - min(loads) <= 3
    assert all(sum(c.values()) == n for c, n in zip(queue_systems(plan), loads, strict=True))


def test_esa_shows_a_document_by_one_system_in_order_and_contrastive_all_systems():
    evalset = small_evalset()
    plan = plan_campaign(evalset, CampaignSettings(annotators=2, double=0.0, attention=0.0))
    for queue in plan.queues:
        units = [plan.units[e.unit_order[0]] for e in queue]
        assert all(len(e.unit_order) == 1 for e in queue)
        for start in range(0, len(units), 3):  # blocks of one document × one system, segments in order
            block = units[start:start + 3]
            assert len({(u.document, u.system) for u in block}) == 1
            assert [int(u.seg_id) for u in block] == sorted(int(u.seg_id) for u in block)
    plan = plan_campaign(evalset, CampaignSettings(protocol="contrastive", annotators=2, double=0.0, attention=0.0))
    assert len(plan.items) == 12
    for queue in plan.queues:
        for entry in queue:
            assert sorted(plan.units[u].system for u in entry.unit_order) == sorted(SYSTEMS)
    orders = {tuple(plan.units[u].system for u in e.unit_order) for q in plan.queues for e in q}
    assert len(orders) > 1  # candidates shuffled per screen


def test_a_number_of_items_takes_whole_documents_for_every_system():
    evalset = small_evalset(documents=10, per_document=3)
    plan = plan_campaign(evalset, CampaignSettings(items=20, annotators=2, attention=0.0))
    segs = {u.seg_id for u in plan.units.values()}
    per_system = collections.Counter(u.system for u in plan.units.values())
    assert len(segs) == 9  # ⌈20 / 3 systems⌉ = 7 segments → 3 whole documents of 3
    assert set(per_system.values()) == {9}
    docs = collections.Counter(u.document for u in plan.units.values())
    assert set(docs.values()) == {9}  # 3 segments × 3 systems: no document cut
    assert any("kept whole" in n for n in plan.notes)
    contrastive = plan_campaign(evalset, CampaignSettings(protocol="contrastive", items=6, annotators=1))
    assert len({i.seg_id for i in contrastive.items.values()}) == 6


def test_disagreement_orders_segments_by_the_metric_variance_across_systems():
    evalset = small_evalset(documents=4)
    rng = np.random.default_rng(0)
    rows = [{"system": s, "seg_id": seg, "metric": m, "score": float(rng.normal(scale=1 + int(seg)))
             * (100 if m == "chrf" else 1)}
            for s in SYSTEMS for seg in evalset.seg_ids for m in ("bleu", "chrf")]
    scores = pd.DataFrame(rows)
    order = disagreement_order(scores, evalset.seg_ids)
    expected = {}  # independent: per metric z over all scores, population variance per segment, mean over metrics
    for seg in evalset.seg_ids:
        variances = []
        for m in ("bleu", "chrf"):
            values = scores[scores["metric"] == m]["score"].to_numpy()
            z = (values - values.mean()) / values.std()
            mine = z[(scores[scores["metric"] == m]["seg_id"] == seg).to_numpy()]
            variances.append(np.var(mine))
        expected[seg] = np.mean(variances)
    assert order == sorted(evalset.seg_ids, key=lambda s: -expected[s])
    one_metric = scores[scores["metric"] == "bleu"]  # one metric: subset2evaluate's metric_var order
    raw = {seg: np.var(one_metric[one_metric["seg_id"] == seg]["score"]) for seg in evalset.seg_ids}
    assert disagreement_order(one_metric, evalset.seg_ids) == sorted(evalset.seg_ids, key=lambda s: -raw[s])
    plan = plan_campaign(evalset, CampaignSettings(items=9, selection="disagreement", annotators=1), scores)
    assert {u.seg_id for u in plan.units.values()} == set(order[:3])
    with pytest.raises(ValueError, match="metric scores"):
        plan_campaign(evalset, CampaignSettings(items=9, selection="disagreement"))


def test_attention_checks_damage_a_translation_after_its_original():
    evalset = small_evalset(documents=20)
    plan = plan_campaign(evalset, CampaignSettings(annotators=2, double=0.0, attention=0.05, seed=3))
    for a, queue in enumerate(plan.queues):
        checks = [(p, e) for p, e in enumerate(queue) if plan.items[e.item].annotator is not None]
        assert len(checks) == math.floor(0.05 * len(_regular(plan, queue)) + 0.5)  # half up
        position = {u: p for p, e in enumerate(queue) for u in e.unit_order}
        for p, entry in checks:
            assert plan.items[entry.item].annotator == a
            (bad,) = (plan.units[u] for u in entry.unit_order)
            original = plan.units[bad.attention_of]
            assert bad.text != original.text and bad.damage in ("drop", "shuffle")
            assert (bad.seg_id, bad.system) == (original.seg_id, original.system)
            assert position[original.key] < p
    contrastive = plan_campaign(evalset, CampaignSettings(protocol="contrastive", annotators=1, attention=0.05))
    checks = [i for i in contrastive.items.values() if i.annotator is not None]
    assert len(checks) == 3
    for item in checks:  # the screen again with one translation damaged in place of its original
        damaged = [u for u in item.units if contrastive.units[u].attention_of]
        assert len(damaged) == 1 and len(item.units) == len(SYSTEMS)


def test_keys_name_no_system_and_settings_are_checked():
    plan = plan_campaign(small_evalset(), CampaignSettings(annotators=2))
    for key in [*plan.units, *plan.items]:
        assert len(key) == 16 and all(c in "0123456789abcdef" for c in key)
    for bad in [dict(protocol="mqm"), dict(items=0), dict(items="some"), dict(annotators=0), dict(double=1.5),
                dict(attention=-0.1), dict(selection="random")]:
        with pytest.raises(ValueError):
            CampaignSettings(**bad)
    alone = plan_campaign(small_evalset(), CampaignSettings(annotators=1, double=0.1))
    assert any("two annotators" in n for n in alone.notes)


def test_a_campaign_from_the_bundled_sample():
    sample = load_sample()
    plan = plan_campaign(sample, CampaignSettings(annotators=3))
    regular = [u for u in plan.units.values() if u.attention_of is None]
    assert len(regular) == sample.n_segments * len(sample.systems)
    assert not plan.show_reference and all(i.source for i in plan.items.values())
    counts = collections.Counter(plan.units[u].system for q in plan.queues for e in _regular(plan, q)
                                 for u in e.unit_order)
    assert len(set(counts.values())) == 1  # every system's translations of a doubled segment are doubled


def test_a_campaign_from_wmt24_chat():
    from korean_eval.model.evalset import evalset_from_texts

    folder = require(SHARED / "heldout" / "wmt24_chat_enko")
    systems = sorted((folder / "systems").glob("*.txt"))
    evalset = evalset_from_texts([("ref.txt", (folder / "ref.txt").read_bytes())],
                                 [(p.name, p.read_bytes()) for p in systems],
                                 src=("src.txt", (folder / "src.txt").read_bytes()))
    plan = plan_campaign(evalset, CampaignSettings(protocol="contrastive", items=100, annotators=4))
    assert len({i.seg_id for i in plan.items.values() if i.annotator is None}) == 100
    assert len(plan.queues) == 4 and all(plan.queues)
