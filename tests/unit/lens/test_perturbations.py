"""Each perturbation kind, applied to at least 50 sentences, changes exactly what it says — checked here by
re-analysing the result with Kiwi and comparing with the original, independently of the library's own check — and is
deterministic for a seed (docs/design.md §8). Sentences: the sample's 120 references and the speech-level tests'
hand-written sentences (tests/support/speech_level_sentences.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import pytest

from korean_eval.inputs.sample import load_sample
from korean_eval.lens.analysis import analyse
from korean_eval.lens.perturb import KINDS, perturbation_table
from korean_eval.lens.speech_level import honorific_count, speech_level
from tests.support.speech_level_sentences import LABELLED

SEED = 20261123
PARTICLES_WITHIN = {("이", "JKS"): "JX", ("가", "JKS"): "JX", ("은", "JX"): "JKS", ("는", "JX"): "JKS",
                    ("에", "JKB"): "JKB", ("에서", "JKB"): "JKB"}
PARTICLES_ACROSS = {("을", "JKO"): "JKB", ("를", "JKO"): "JKB", ("에", "JKB"): "JKO", ("에서", "JKB"): "JKO",
                    ("이", "JKS"): "JKO", ("가", "JKS"): "JKO", ("의", "JKG"): "JKB"}
SUBJECT_TOPIC_OBJECT = {"JKS": {"이", "가"}, "JX": {"은", "는"}, "JKO": {"을", "를"}}


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    return list(dict.fromkeys(load_sample().refs[0] + [s for s, _ in LABELLED]))


@pytest.fixture(scope="module")
def table(sentences):
    return perturbation_table([str(i) for i in range(len(sentences))], sentences, list(KINDS), SEED)


def pairs_of(table, kind):
    rows = table[(table["kind"] == kind) & table["applied"]]
    assert len(rows) >= 50, f"{kind} applied to only {len(rows)} sentences"
    analyses = analyse(list(rows["reference"]) + list(rows["perturbed"]))
    return [(r, p, analyses[r], analyses[p]) for r, p in zip(rows["reference"], rows["perturbed"], strict=True)]


def keys(analysis):
    return [(m.form, m.tag.split("-")[0]) for m in analysis]


def one_position_differs(old, new):
    """The index of the only position where two equal-length sequences differ, else None."""
    if len(old) != len(new):
        return None
    diff = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return diff[0] if len(diff) == 1 else None


def words(text):
    return text.split()


def bodies(ref, new):
    """Both texts without the reference's sentence-final punctuation, which ``new`` must end with too."""
    body = ref.rstrip()
    while body and unicodedata.category(body[-1])[0] in "PS":
        body = body[:-1]
    tail = ref[len(body) :]
    assert new.endswith(tail), (ref, new)
    return body, new[: len(new) - len(tail)]


@pytest.mark.parametrize(("kind", "swaps"), [("particle_within", PARTICLES_WITHIN), ("particle_across", PARTICLES_ACROSS)])
def test_particle_swaps_change_one_particle_into_its_partner(table, kind, swaps):
    for ref, new, a, b in pairs_of(table, kind):
        i = one_position_differs(keys(a), keys(b))
        assert i is not None, (ref, new)
        old, changed = keys(a)[i], keys(b)[i]
        assert old in swaps and changed[1] == swaps[old], (ref, new, old, changed)
        if changed[1] in SUBJECT_TOPIC_OBJECT:
            assert changed[0] in SUBJECT_TOPIC_OBJECT[changed[1]]
        assert re.sub(r"\S+", "w", ref) == re.sub(r"\S+", "w", new)  # same spacing pattern: one eojeol changed


def test_speech_level_changes_only_the_final_ending_to_another_level(table):
    for ref, new, a, b in pairs_of(table, "speech_level"):
        i = one_position_differs(keys(a), keys(b))
        assert i is not None and keys(a)[i][1] == "EF" and keys(b)[i][1] == "EF", (ref, new)
        assert all(t.startswith("S") for _f, t in keys(a)[i + 1 :]), (ref, new)  # the segment's final ending
        assert speech_level(b) != speech_level(a) and "other" not in (speech_level(a), speech_level(b)), (ref, new)


def test_honorific_is_removed_or_added_once(table):
    for ref, new, a, b in pairs_of(table, "honorific"):
        before, after = honorific_count(a), honorific_count(b)
        assert after == before + (1 if before == 0 else -1), (ref, new)
        changed = (Counter(keys(a)) - Counter(keys(b))) + (Counter(keys(b)) - Counter(keys(a)))
        assert all(t in ("EP", "EF") for _f, t in changed) and changed.total() <= 2, (ref, new, changed)


def test_tense_adds_or_removes_one_past_marker(table):
    for ref, new, a, b in pairs_of(table, "tense"):
        past = Counter(keys(b))[("었", "EP")] - Counter(keys(a))[("었", "EP")]
        assert abs(past) == 1, (ref, new)
        rest = (Counter(keys(a)) - Counter(keys(b))) + (Counter(keys(b)) - Counter(keys(a)))
        del rest[("었", "EP")]
        assert all(t == "EF" for _f, t in rest) and rest.total() in (0, 2), (ref, new, rest)


def test_spacing_changes_one_space_and_nothing_else(table):
    for ref, new, _a, _b in pairs_of(table, "spacing"):
        assert re.sub(r"\s", "", ref) == re.sub(r"\s", "", new)
        assert abs(len(words(ref)) - len(words(new))) == 1, (ref, new)


def test_eojeol_swap_exchanges_two_adjacent_words(table):
    for ref, new, _a, _b in pairs_of(table, "eojeol_swap"):
        old_words, new_words = (words(body) for body in bodies(ref, new))
        diff = [i for i, (x, y) in enumerate(zip(old_words, new_words, strict=True)) if x != y]
        assert len(diff) == 2 and diff[1] == diff[0] + 1, (ref, new)
        assert old_words[diff[0]] == new_words[diff[1]] and old_words[diff[1]] == new_words[diff[0]]


def test_number_changes_one_digit_of_one_number(table):
    for ref, new, a, b in pairs_of(table, "number"):
        assert len(ref) == len(new)
        diff = [i for i, (x, y) in enumerate(zip(ref, new, strict=True)) if x != y]
        assert len(diff) == 1 and ref[diff[0]].isdigit() and new[diff[0]].isdigit(), (ref, new)
        i = one_position_differs(keys(a), keys(b))
        assert i is not None and keys(a)[i][1] == keys(b)[i][1] == "SN", (ref, new)


def test_drop_content_removes_one_eojeol_with_a_content_morpheme(table):
    for ref, new, _a, _b in pairs_of(table, "drop_content"):
        old_words, new_words = (words(body) for body in bodies(ref, new))
        assert len(new_words) == len(old_words) - 1, (ref, new)
        dropped = next(
            (w for i, w in enumerate(old_words) if old_words[:i] + old_words[i + 1 :] == new_words), None
        )
        assert dropped is not None, (ref, new)
        assert any(m.tag[0] in "NVM" or m.tag in ("IC", "XR") for m in analyse([dropped])[dropped]), dropped


def test_negation_inserts_an_before_the_final_predicate(table):
    for ref, new, a, b in pairs_of(table, "negation"):
        old_forms, new_forms = [m.form for m in a], [m.form for m in b]
        inserted = [i for i, m in enumerate(b) if m.form == "안" and m.tag == "MAG" and new_forms[:i] + new_forms[i + 1 :] == old_forms]
        assert inserted, (ref, new)
        assert any(m.tag.split("-")[0] in ("VV", "VA") for m in b[inserted[0] + 1 :]), (ref, new)


def test_perturbations_are_deterministic_for_a_seed_and_change_with_it(sentences, table):
    again = perturbation_table([str(i) for i in range(len(sentences))], sentences, list(KINDS), SEED)
    assert again.equals(table)
    other = perturbation_table([str(i) for i in range(len(sentences))], sentences, list(KINDS), SEED + 1)
    assert (other["perturbed"].fillna("") != table["perturbed"].fillna("")).sum() > 100
    assert (other["applied"] == table["applied"]).mean() > 0.9  # the seed picks among candidates, not whether


def test_every_segment_is_counted_applied_or_with_a_reason(table, sentences):
    assert len(table) == len(KINDS) * len(sentences)
    assert (table["applied"] == table["perturbed"].notna()).all()
    assert (table.loc[~table["applied"], "reason"].str.len() > 0).all()
    assert (table.loc[table["applied"], "reason"] == "").all()
    assert not table[table["kind"] == "number"]["applied"].all()  # sentences without a number cannot take it
