"""A campaign's plan: which translations are judged, by whom, in which order (pure; nothing is stored here).

Protocols (:data:`PROTOCOLS`):

* ``esa`` — Error Span Annotation (Kocmi et al. 2024, "Error Span Annotation: A Balanced Approach for Human
  Evaluation of Machine Translation", WMT; WMT24/25's human evaluation): one translation per screen (an *item*),
  a document's segments by one system in their order, with the source (or, without one, the reference) beside it.
* ``contrastive`` — contrastive ESA (WMT26): one source per screen with every system's translation of it side by
  side, each judged as in ESA; the candidates' order is shuffled per annotator and screen.

A *unit* is one translation to judge; an *item* is one screen (one unit in ESA, a segment's units in contrastive
ESA). Selection of the source segments (:class:`CampaignSettings` ``items``): ``all``; a number N of items balanced
over the systems with documents kept whole (whole documents in a seeded random order until N items: every system's
translation of every chosen segment, so each system gets the same segments); or ``disagreement`` with N: the N
segments whose metric scores vary most across the systems, subset2evaluate's metric-variance selection (Zouhar et
al. 2025, "How to Select Datapoints for Efficient Human Evaluation of NLG Models?"; ``methods.metric_var``: items
sorted by the variance of a metric's scores over the systems, highest first), with several metrics the mean of the
variances of their scores standardised over all items and systems (:func:`disagreement_order`).

Assignment: items are cut into *blocks* — a document by one system (ESA) or a document (contrastive; one segment
per block when segments are chosen by disagreement) — and blocks go to the annotator with the least work so far
(largest block first); a seeded share of blocks (``double``, default 10 % of the items) goes to two annotators,
for their agreement. Each annotator's blocks are shuffled by the seed; an attention check (``attention``, default
5 % of an annotator's items, at least one) repeats an item of theirs with one translation damaged
(:func:`korean_eval.annotation.attention.damage`), placed after the block of its original. Unit and item keys are
random hexadecimal strings drawn from the seed: nothing an annotator sees names a system or marks a check.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from korean_eval.annotation.attention import can_damage, damage
from korean_eval.model.evalset import EvalSet

__all__ = ["PROTOCOLS", "CampaignPlan", "CampaignSettings", "Item", "QueueEntry", "Unit", "disagreement_order", "plan_campaign",
           "queue_systems"]

PROTOCOLS: tuple[str, ...] = ("esa", "contrastive")


@dataclass(frozen=True)
class CampaignSettings:
    """Every setting of a campaign's plan.

    Attributes:
        protocol: ``esa`` or ``contrastive``.
        items: ``"all"``, or the number of items (ESA: translations; contrastive: sources) to select.
        selection: ``balanced`` (whole documents, every system) or ``disagreement`` (needs metric scores); used
            only with a number of items.
        annotators: the number of annotators (≥ 1).
        double: the share of items annotated by two annotators (0–1).
        attention: the share of each annotator's items repeated as attention checks (0–1).
        seed: the seed of every random choice.
    """

    protocol: str = "esa"
    items: int | str = "all"
    selection: str = "balanced"
    annotators: int = 1
    double: float = 0.10
    attention: float = 0.05
    seed: int = 12345

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"protocol {self.protocol!r} is not one of {', '.join(PROTOCOLS)}")
        if self.selection not in ("balanced", "disagreement"):
            raise ValueError(f"selection {self.selection!r} is not balanced or disagreement")
        if self.items != "all" and (isinstance(self.items, bool) or not isinstance(self.items, int) or self.items < 1):
            raise ValueError(f"items must be 'all' or a whole number ≥ 1, got {self.items!r}")
        if isinstance(self.annotators, bool) or not isinstance(self.annotators, int) or self.annotators < 1:
            raise ValueError(f"annotators must be a whole number ≥ 1, got {self.annotators!r}")
        for name in ("double", "attention"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 <= value <= 1):
                raise ValueError(f"{name} must be a share from 0 to 1, got {value!r}")


@dataclass(frozen=True)
class Unit:
    """One translation to judge; ``attention_of`` names the unit it damages (``damage`` the damage) for a check."""

    key: str
    seg_id: str
    document: str
    system: str
    text: str
    attention_of: str | None = None
    damage: str | None = None


@dataclass(frozen=True)
class Item:
    """One screen: a source segment with ``units`` (unit keys); ``annotator`` set for an attention check's own item."""

    key: str
    seg_id: str
    document: str
    source: str | None
    reference: str | None
    units: tuple[str, ...]
    annotator: int | None = None


@dataclass(frozen=True)
class QueueEntry:
    """An item in an annotator's queue, with the order in which its units are shown to that annotator."""

    item: str
    unit_order: tuple[str, ...]


@dataclass(frozen=True)
class CampaignPlan:
    """A campaign's plan: units, items and one queue per annotator (index = annotator), with notes on what was done."""

    settings: CampaignSettings
    units: dict[str, Unit]
    items: dict[str, Item]
    queues: tuple[tuple[QueueEntry, ...], ...]
    show_reference: bool
    notes: tuple[str, ...] = field(default=())


def _documents(evalset: EvalSet) -> list[str]:
    """Each segment's document (``segment_info``); without documents every segment is a document of its own."""
    info = evalset.segment_info
    if info is not None and "document" in info:
        return [str(d) for d in info["document"]]
    return [f"#{s}" for s in evalset.seg_ids]


def disagreement_order(metric_scores: pd.DataFrame, seg_ids: Sequence[str]) -> list[str]:
    """Segments by the metrics' disagreement across systems, highest first (subset2evaluate's ``metric_var``).

    Args:
        metric_scores: tidy per-item scores ``system, seg_id, metric, score`` (+ ``level``: each level × metric is
            a metric of its own), e.g. :attr:`korean_eval.model.results.Results.segment_scores`.
        seg_ids: the segments to order (others in ``metric_scores`` are ignored).

    Returns:
        ``seg_ids`` ordered by the mean over metrics of the population variance (ddof 0) of the metric's scores
        over the systems, each metric's scores first standardised (z) over all its items and systems so that no
        scale dominates (with one metric the order is subset2evaluate's); ties and segments without scores keep
        their input order, the latter last.
    """
    scores = metric_scores.copy()
    scores["seg_id"] = scores["seg_id"].astype(str)
    scores = scores[scores["seg_id"].isin(set(seg_ids)) & np.isfinite(scores["score"].astype(float))]
    keys = ["level", "metric"] if "level" in scores else ["metric"]
    spread = scores.groupby(keys)["score"].transform(lambda s: s.std(ddof=0))
    centre = scores.groupby(keys)["score"].transform("mean")
    scores["z"] = ((scores["score"] - centre) / spread.where(spread > 0, 1.0)).astype(float)
    variance = scores.groupby([*keys, "seg_id"])["z"].var(ddof=0).groupby("seg_id").mean()
    position = {s: i for i, s in enumerate(seg_ids)}
    return sorted(seg_ids, key=lambda s: (-variance.get(s, -1.0), position[s]))


def _select_segments(evalset: EvalSet, settings: CampaignSettings, documents: list[str],
                     metric_scores: pd.DataFrame | None, notes: list[str]) -> list[int]:
    """Positions of the chosen segments, in input order."""
    n = len(evalset.seg_ids)
    if settings.items == "all":
        return list(range(n))
    per_segment = 1 if settings.protocol == "contrastive" else max(1, len(evalset.systems))
    wanted = min(n, math.ceil(int(settings.items) / per_segment))
    if settings.selection == "disagreement":
        if metric_scores is None:
            raise ValueError("selection by disagreement needs per-item metric scores")
        order = disagreement_order(metric_scores, evalset.seg_ids)
        chosen = set(order[:wanted])
        notes.append(f"{wanted} segment(s) with the highest metric disagreement (subset2evaluate's metric variance); "
                     "documents are not kept whole")
        return [i for i, s in enumerate(evalset.seg_ids) if s in chosen]
    by_doc: dict[str, list[int]] = {}
    for i, doc in enumerate(documents):
        by_doc.setdefault(doc, []).append(i)
    names = list(by_doc)
    random.Random(f"{settings.seed}:documents").shuffle(names)
    picked: list[int] = []
    for name in names:
        if len(picked) >= wanted:
            break
        picked += by_doc[name]
    if len(picked) > wanted:
        notes.append(f"{len(picked)} segments instead of {wanted}: documents are kept whole")
    return sorted(picked)


def plan_campaign(evalset: EvalSet, settings: CampaignSettings,
                  metric_scores: pd.DataFrame | None = None) -> CampaignPlan:
    """The campaign's plan for ``evalset`` (its source, systems, first reference, documents); the same inputs and
    seed give the same plan.

    Raises:
        ValueError: no system, no translation to judge, or ``disagreement`` without ``metric_scores``.
    """
    if not evalset.systems:
        raise ValueError("the data has no system translations to judge")
    notes: list[str] = []
    rng = random.Random(f"{settings.seed}:plan")
    keys: set[str] = set()

    def new_key() -> str:
        while (key := f"{rng.getrandbits(64):016x}") in keys:
            pass
        keys.add(key)
        return key

    documents = _documents(evalset)
    chosen = _select_segments(evalset, settings, documents, metric_scores, notes)
    ref = evalset.refs[0] if evalset.refs else None
    src = evalset.src
    units: dict[str, Unit] = {}
    items: dict[str, Item] = {}
    blocks: dict[tuple[str, str], list[str]] = {}  # (document, system or "") → item keys in segment order
    for i in chosen:
        seg_id, doc = evalset.seg_ids[i], documents[i]
        seg_units = []
        for system, hyps in evalset.systems.items():
            if hyps[i] is None:
                continue
            unit = Unit(new_key(), seg_id, doc, system, hyps[i])
            units[unit.key] = unit
            seg_units.append(unit.key)
        groups = [(u, units[u].system) for u in seg_units] if settings.protocol == "esa" else [(None, "")]
        for unit_key, system in groups:
            item = Item(new_key(), seg_id, doc, src[i] if src else None, ref[i] if ref else None,
                        (unit_key,) if unit_key else tuple(seg_units))
            if not item.units:
                continue
            items[item.key] = item
            block = (seg_id if settings.selection == "disagreement" and settings.items != "all" else doc, system)
            blocks.setdefault(block, []).append(item.key)
    if not items:
        raise ValueError("no translation to judge: every chosen segment lacks a system translation")
    queues = _assign(list(blocks.values()), [doc for doc, _system in blocks], settings, notes)
    per_annotator = _attention(queues, items, units, settings, new_key, notes)
    if src is None:
        notes.append("no source given: annotators see the reference instead (reference-based judgments)")
    return CampaignPlan(settings, units, items, per_annotator, show_reference=src is None, notes=tuple(notes))


def _assign(blocks: list[list[str]], groups: list[str], settings: CampaignSettings,
            notes: list[str]) -> list[list[list[str]]]:
    """Blocks (lists of item keys) → per annotator, their blocks in their shuffled order. The doubled share is
    chosen by ``groups`` (a block's document or segment): every system's block of a chosen group is doubled, so
    the doubled items are balanced over the systems as the selection is."""
    rng = random.Random(f"{settings.seed}:assign")
    order = list(range(len(blocks)))
    rng.shuffle(order)
    total = sum(len(b) for b in blocks)
    doubled: set[int] = set()
    if settings.double > 0 and settings.annotators < 2:
        notes.append("no item annotated twice: agreement needs at least two annotators")
    elif settings.double > 0:
        members: dict[str, list[int]] = {}
        for b in order:
            members.setdefault(groups[b], []).append(b)
        target, count = math.floor(settings.double * total + 0.5), 0
        for group in members.values():
            if count >= target:
                break
            doubled.update(group)
            count += sum(len(blocks[b]) for b in group)
    load = [0] * settings.annotators
    assigned: list[list[int]] = [[] for _ in range(settings.annotators)]
    for b in sorted(order, key=lambda b: -len(blocks[b])):  # stable: the shuffled order among equal sizes
        takers = sorted(range(settings.annotators), key=lambda a: (load[a], a))[: 2 if b in doubled else 1]
        for a in takers:
            load[a] += len(blocks[b])
            assigned[a].append(b)
    queues = []
    for a, mine in enumerate(assigned):
        random.Random(f"{settings.seed}:queue:{a}").shuffle(mine)
        queues.append([list(blocks[b]) for b in mine])
    if doubled:
        notes.append(f"{sum(len(blocks[b]) for b in doubled)} of {total} items annotated by two annotators")
    return queues


def _attention(queues: list[list[list[str]]], items: dict[str, Item], units: dict[str, Unit],
               settings: CampaignSettings, new_key, notes: list[str]) -> tuple[tuple[QueueEntry, ...], ...]:
    """Each annotator's queue with attention checks inserted (items and units added in place), as queue entries
    with the units' order shuffled per annotator."""
    out = []
    checks = 0
    for a, blocks in enumerate(queues):
        rng = random.Random(f"{settings.seed}:attention:{a}")
        regular = [(b, k) for b, block in enumerate(blocks) for k in block]
        eligible = [i for i, (_, k) in enumerate(regular) if any(can_damage(units[u].text) for u in items[k].units)]
        wanted = 0 if settings.attention == 0 or not eligible else max(1, math.floor(settings.attention * len(regular) + 0.5))
        inserted: dict[int, list[str]] = {}
        for b, k in (regular[i] for i in sorted(rng.sample(eligible, min(wanted, len(eligible))))):
            original = items[k]
            target = rng.choice([u for u in original.units if can_damage(units[u].text)])
            bad = damage(units[target].text, f"{settings.seed}:{a}:{target}")
            bad_unit = Unit(new_key(), original.seg_id, original.document, units[target].system, bad.text,
                            attention_of=target, damage=bad.kind)
            units[bad_unit.key] = bad_unit
            check = Item(new_key(), original.seg_id, original.document, original.source, original.reference,
                         tuple(bad_unit.key if u == target else u for u in original.units), annotator=a)
            items[check.key] = check
            inserted.setdefault(rng.randrange(b + 1, len(blocks) + 1), []).append(check.key)
            checks += 1
        entries = []
        for b in range(len(blocks) + 1):
            for k in inserted.get(b, []) + (blocks[b] if b < len(blocks) else []):
                order = list(items[k].units)
                rng.shuffle(order)
                entries.append(QueueEntry(k, tuple(order)))
        out.append(tuple(entries))
    if checks:
        notes.append(f"{checks} attention check(s): a translation damaged on purpose (words dropped or shuffled)")
    return tuple(out)


def queue_systems(plan: CampaignPlan) -> list[Mapping[str, int]]:
    """Per annotator, the number of regular units of each system in their queue (balance checks, reports)."""
    out = []
    for queue in plan.queues:
        counts: dict[str, int] = {}
        for entry in queue:
            if plan.items[entry.item].annotator is None:
                for u in entry.unit_order:
                    counts[plan.units[u].system] = counts.get(plan.units[u].system, 0) + 1
        out.append(counts)
    return out
