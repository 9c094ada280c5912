"""Speech level (상대 높임법) of a segment's final ending, and the subject honorific -(으)시- (docs/design.md §8).

The final ending is the last morpheme of the segment once trailing punctuation and symbols (tags ``S*``) are set
aside: an ``EF`` (final ending), an ``EC`` (a connective ending closing the sentence, as in 가는데. / "가자"), or the
auxiliary particle 요 after an ending (먹고요). Its form, as Kiwi writes it, decides (Standard Korean Language
Dictionary, 표준국어대사전, for the assignment of endings to speech levels):

* ``formal`` 합쇼체 (하십시오체): forms ending in 니다, 니까, 시오, 디다, 디까 (-ㅂ니다/-습니다, -ㅂ니까/-습니까,
  -(으)십시오, -ㅂ디다);
* ``polite`` 해요체: forms ending in 요 (-어요, -에요/-예요, -세요, -네요, -는데요, -ㄹ게요 …) or 죠 (= -지요), and the
  particle 요 after an ending;
* ``other``: 하오체 (-ㅂ시다, -오, -소, -구려), the nominal endings of notices (-ㅁ/-음, -기), a segment that ends
  without any ending (a noun phrase, a headline) and an empty segment;
* ``plain`` 해체·해라체: every other final ending (-다, -ㄴ다/-는다, -라, -자, -냐, -니, -어/-아, -야, -지, -네, -군,
  -ㄹ게, -는데 …).

Honorific: the segment has the subject honorific when any prefinal ending is 시/으시 (셨 is analysed 시 + 었) or a
final ending starts with the fused -(으)세요/-(으)셔요/-(으)십시-.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from korean_eval.lens.analysis import Analysis, Morpheme
from korean_eval.lens.pos_categories import HONORIFIC_PREFINAL, base_tag

SPEECH_LEVELS: tuple[str, ...] = ("formal", "polite", "plain", "other")
"""Speech levels in display order."""

SPEECH_LEVEL_LABELS: dict[str, str] = {
    "formal": "합쇼체 (formal)",
    "polite": "해요체 (polite)",
    "plain": "해체·해라체 (plain)",
    "other": "other",
}

_FORMAL_ENDS = ("니다", "니까", "시오", "디다", "디까")
_HAO_ENDS = ("ᆸ시다", "읍시다")
_HAO_FORMS = frozenset({"오", "소", "구려", "우"})
_NOMINAL_FORMS = frozenset({"ᆷ", "음", "기"})
_HONORIFIC_FINAL_STARTS = ("세요", "으세요", "셔요", "으셔요", "십시", "으십시")


def final_ending(analysis: Analysis) -> Morpheme | None:
    """The morpheme that ends the segment's last sentence (see the module docstring), or None when the segment ends
    in something that is not an ending (a noun, an adverb, nothing)."""
    body = list(analysis)
    while body and base_tag(body[-1].tag).startswith("S"):
        body.pop()
    if not body:
        return None
    last = body[-1]
    if last.tag in ("EF", "EC"):
        return last
    if last.tag == "JX" and last.form == "요" and len(body) > 1 and body[-2].tag in ("EF", "EC"):
        return last
    return None


def ending_level(form: str) -> str:
    """The speech level of a final ending's form (see the module docstring); the particle 요 counts as ``polite``."""
    if form.endswith(_HAO_ENDS) or form in _HAO_FORMS or form in _NOMINAL_FORMS:
        return "other"
    if form.endswith(_FORMAL_ENDS):
        return "formal"
    if form.endswith(("요", "죠")):
        return "polite"
    return "plain"


def speech_level(analysis: Analysis) -> str:
    """The segment's speech level: :func:`ending_level` of its :func:`final_ending`, ``other`` without one."""
    ending = final_ending(analysis)
    return "other" if ending is None else ending_level(ending.form)


def honorific_count(analysis: Analysis) -> int:
    """How many subject-honorific markers the segment has (prefinal 시/으시, fused -(으)세요/-(으)십시-)."""
    return sum(
        (m.tag == "EP" and m.form in HONORIFIC_PREFINAL) or (m.tag == "EF" and m.form.startswith(_HONORIFIC_FINAL_STARTS))
        for m in analysis
    )


def segment_table(pairs: pd.DataFrame, analyses: Mapping[str, Analysis]) -> pd.DataFrame:
    """Per (system, segment): ``system, seg_id, ref_level, hyp_level, agree, ref_honorific, hyp_honorific,
    honorific_mismatch`` (honorific: the marker present at all; mismatch: present in one of the two only).

    ``pairs``: ``system, seg_id, hyp, ref`` (:func:`korean_eval.lens.run.pair_table`)."""
    ref = [analyses[t] for t in pairs["ref"]]
    hyp = [analyses[t] for t in pairs["hyp"]]
    out = pd.DataFrame(
        {
            "system": pairs["system"].to_numpy(),
            "seg_id": pairs["seg_id"].to_numpy(),
            "ref_level": [speech_level(a) for a in ref],
            "hyp_level": [speech_level(a) for a in hyp],
            "ref_honorific": [honorific_count(a) > 0 for a in ref],
            "hyp_honorific": [honorific_count(a) > 0 for a in hyp],
        }
    )
    out.insert(4, "agree", out["ref_level"] == out["hyp_level"])
    out["honorific_mismatch"] = out["ref_honorific"] != out["hyp_honorific"]
    return out


def system_table(segments: pd.DataFrame, systems: Sequence[str]) -> pd.DataFrame:
    """Per system: ``segments``, ``agree`` (segments whose hypothesis has the reference's speech level),
    ``agreement`` = agree / segments, ``honorific_mismatch`` (segments) and its ``honorific_mismatch_rate``."""
    grouped = segments.groupby("system", sort=False)
    out = pd.DataFrame(
        {
            "segments": grouped.size(),
            "agree": grouped["agree"].sum(),
            "honorific_mismatch": grouped["honorific_mismatch"].sum(),
        }
    ).reindex(list(systems), fill_value=0)
    out.insert(2, "agreement", out["agree"] / out["segments"].where(out["segments"] > 0))
    out["honorific_mismatch_rate"] = out["honorific_mismatch"] / out["segments"].where(out["segments"] > 0)
    return out.rename_axis("system").reset_index()


def confusion_table(segments: pd.DataFrame, systems: Sequence[str]) -> pd.DataFrame:
    """Per system, every (reference level, hypothesis level) with its number of segments (zeros included):
    ``system, ref_level, hyp_level, segments``."""
    full = pd.MultiIndex.from_product([list(systems), SPEECH_LEVELS, SPEECH_LEVELS], names=["system", "ref_level", "hyp_level"])
    counts = segments.groupby(["system", "ref_level", "hyp_level"]).size()
    return counts.reindex(full, fill_value=0).rename("segments").reset_index()
