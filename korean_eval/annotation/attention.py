"""Attention checks: a translation damaged on purpose, whose score must fall clearly below the original's.

The check follows Appraise's quality-control items for Direct Assessment (Graham et al. 2013, "Continuous
Measurement Scales in Human Evaluation of Machine Translation", LAW; Graham et al. 2017, "Can machine translation
systems be evaluated by the crowd alone?", NLE; WMT's "BAD references"): a real translation is degraded so that
any attentive annotator scores it lower than the same translation undamaged; an annotator whose damaged items are
not scored clearly lower is not reading. Here the damage is one of two, both pure and reproducible from a seed:

* ``drop``: a contiguous run of ⌈n/3⌉ of the n whitespace words (Korean eojeol) removed (of a one-word
  translation, the first or the last half of its characters);
* ``shuffle``: the words put in a random order that differs from the original, every word kept.

"Clearly below" is a score at least :data:`CLEAR_MARGIN` points (of 0–100) under the same annotator's score of the
original (:func:`attention_passed`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

__all__ = ["CLEAR_MARGIN", "DAMAGE_KINDS", "Damaged", "attention_passed", "can_damage", "damage"]

#: The damage kinds, in the order a seed chooses between them.
DAMAGE_KINDS: tuple[str, ...] = ("drop", "shuffle")

#: Points (of the 0–100 ESA score) by which a damaged translation's score must fall below its original's.
CLEAR_MARGIN = 10.0


@dataclass(frozen=True)
class Damaged:
    """A damaged translation: its text and the damage done (``drop`` or ``shuffle``)."""

    text: str
    kind: str


def can_damage(text: str) -> bool:
    """Whether :func:`damage` can damage ``text`` visibly: at least two words, or one word of two characters."""
    words = text.split()
    return len(words) >= 2 or (len(words) == 1 and len(words[0]) >= 2)


def damage(text: str, seed: int | str, kind: str | None = None) -> Damaged:
    """``text`` damaged on purpose, deterministically for a given ``seed``.

    Args:
        text: the translation (words = whitespace-separated tokens, eojeol in Korean).
        seed: any int or string; the same seed gives the same damage.
        kind: ``drop`` or ``shuffle``; None lets the seed choose. ``shuffle`` of a text whose words cannot be put
            in another order (one word, or all words equal) becomes ``drop``.

    Returns:
        The damaged text (words joined by single spaces) and the damage done; always different from ``text``.

    Raises:
        ValueError: ``text`` cannot be damaged (:func:`can_damage` is false) or ``kind`` is unknown.
    """
    if not can_damage(text):
        raise ValueError(f"cannot damage {text!r}: it needs two words or a word of two characters")
    rng = random.Random(f"damage:{seed}")
    chosen = kind if kind is not None else rng.choice(DAMAGE_KINDS)
    if chosen not in DAMAGE_KINDS:
        raise ValueError(f"unknown damage {chosen!r}; use one of {', '.join(DAMAGE_KINDS)}")
    words = text.split()
    if chosen == "shuffle" and len(set(words)) >= 2:
        return Damaged(_shuffled(words, rng), "shuffle")
    return Damaged(_dropped(words, rng), "drop")


def _shuffled(words: list[str], rng: random.Random) -> str:
    """The words in a random order other than the original one (at least two distinct words)."""
    order = list(words)
    while order == words:
        rng.shuffle(order)
    return " ".join(order)


def _dropped(words: list[str], rng: random.Random) -> str:
    """A contiguous run of ⌈n/3⌉ of n ≥ 2 words removed; of one word, half of its characters."""
    if len(words) == 1:
        word = words[0]
        half = math.ceil(len(word) / 2)
        return word[half:] if rng.random() < 0.5 else word[: len(word) - half]
    run = math.ceil(len(words) / 3)
    start = rng.randrange(len(words) - run + 1)
    return " ".join(words[:start] + words[start + run:])


def attention_passed(original_score: float, damaged_score: float, margin: float = CLEAR_MARGIN) -> bool:
    """Whether an annotator scored a damaged translation clearly below its original: ``damaged ≤ original − margin``."""
    return damaged_score <= original_score - margin
