"""Error-span readers (korean_eval.inputs.spans): mt-metrics-eval .seg.rating, Google's MQM TSV, ESA; MQM weights; offsets
that do not fit; attaching to an EvalSet (docs/design.md §4, "Error spans"). Fixtures are written here."""

from __future__ import annotations

import json

import pytest

from korean_eval.inputs.spans.attach import attach_ratings
from korean_eval.inputs.spans.mqm_tsv import read_mqm_tsv
from korean_eval.inputs.spans.reading import group_name, read_ratings
from korean_eval.inputs.spans.weights import DEFAULT_WEIGHTS, parse_weights
from korean_eval.inputs.text_files import InputError
from korean_eval.model.evalset import evalset_from_texts

REF = ["나는 학교에 간다.", "오늘 날씨가 좋다.", "그는 책을 읽었다."]
HYPS = {
    "sysA": ["나는 학교에 간다.", "오늘 날씨 좋다.", "그는 책을 읽는다."],
    "sysB": ["나 학교 간다", "오늘은 날씨가 좋네요.", "He read a book."],
}


def evalset():
    return evalset_from_texts(
        [("ref.txt", "\n".join(REF).encode())],
        [(f"{k}.txt", "\n".join(v).encode()) for k, v in HYPS.items()],
        src=("src.txt", b"I go to school.\nThe weather is nice today.\nHe read a book.\n"),
    )


def rating(errors: list[dict], **extra) -> str:
    return json.dumps({"errors": errors, **extra}, ensure_ascii=False)


def err(start, end, severity, category, **kw) -> dict:
    return {"start": start, "end": end, "severity": severity, "category": category, **kw}


def rating_file(lines: list[tuple]) -> bytes:
    return "\n".join("\t".join(map(str, line)) for line in lines).encode() + b"\n"


# ------------------------------------------------------------------------------------------------------ weights


def test_published_weights_most_specific_match_and_cap():
    w = parse_weights(None)
    assert w.weight("Major", "Accuracy/Mistranslation") == 5
    assert w.weight("Minor", "Accuracy/Mistranslation") == 1
    assert w.weight("Minor", "Fluency/Punctuation") == 0.1
    assert w.weight("minor", "fluency/punctuation") == 0.1
    assert w.weight("Major", "Non-translation!") == 25 and w.weight("Major", "Non-translation") == 25
    assert w.weight("Neutral", "Other") == 0 and w.cap == 25
    assert "Major=5" not in w.signature() and "major=5" in w.signature() and w.signature().endswith("|cap:25")
    assert parse_weights(DEFAULT_WEIGHTS) == w


def test_user_weights_and_bad_specs():
    w = parse_weights("Major:10,Minor:2 cap:none")
    assert w.weight("Major", "x") == 10 and w.cap is None
    for bad, part in (("Major", "not KEY:WEIGHT"), ("Major:x", "not a number"), ("Major:-1", "≥ 0"), ("cap:3", "no severity")):
        with pytest.raises(ValueError, match=part):
            parse_weights(bad)


# ----------------------------------------------------------------------------------------- mt-metrics-eval files


def test_rating_file_scores_equal_a_hand_computation():
    data = rating_file([
        ("sysA", rating([]), "r1"),
        ("sysA", rating([err(3, 5, "Major", "Accuracy/Omission"), err(8, 9, "Minor", "Fluency/Punctuation")]), "r1"),
        ("sysA", rating([err(7, 10, "Minor", "Fluency/Grammar")]), "r2"),
        ("sysB", rating([err(0, 2, "Major", "Fluency/Grammar"), err(3, 5, "Major", "Accuracy/Omission")]), "r2"),
        ("sysB", "None"),
        ("sysB", rating([err(0, 15, "Major", "Non-translation!"), err(0, 2, "Minor", "Fluency/Spelling")]), "r1"),
    ])
    es = evalset()
    read = read_ratings(data, "en-ko.mqm.seg.rating", es.n_segments)
    assert read.group == "mqm" and len(read.judgments) == 5
    attach_ratings(es, [read])
    penalties = {(r.system, r.seg_id): r.score_raw for r in es.human_ratings.itertuples()}
    assert penalties == pytest.approx({("sysA", "0"): 0.0, ("sysA", "1"): 5.1, ("sysA", "2"): 1.0,
                                       ("sysB", "0"): 10.0, ("sysB", "2"): 25.0})  # 25 + 1 capped at 25
    human = es.human.set_index(["system", "seg_id"])
    assert human.loc[("sysA", "1"), "score"] == pytest.approx(-5.1) and es.human_lower_is_better
    assert set(es.human_ratings["rater"]) == {"r1", "r2"} and "mqm-weights:" in es.human_note
    assert len(es.spans) == 7 and set(es.spans["side"]) == {"target"}


def test_rating_file_offsets_that_do_not_fit_are_counted_not_dropped():
    data = rating_file([
        ("sysA", rating([err(0, 99, "Minor", "Fluency/Grammar")])),
        ("sysA", rating([err(3, 2, "Minor", "Fluency/Grammar")])),
        ("sysA", rating([err(0, 2, "Minor", "Accuracy/Mistranslation", is_source_error=True)])),
    ])
    es = evalset()
    attach_ratings(es, [read_ratings(data, "ratings.rating", es.n_segments)])
    assert es.spans["fits"].tolist() == [False, False, True]
    assert es.human_ratings["score_raw"].tolist() == [1.0, 1.0, 1.0]  # kept in the scores
    note = next(n for n in es.report.notes if "offsets that do not fit" in n)
    assert "do not fit the text: 2 (lines 1, 2;" in note


def test_rating_file_bad_lines():
    es = evalset()
    with pytest.raises(InputError, match=r"line 1: 4 tab-separated field"):
        read_ratings(b"sysA\tNone\tr\tx\n", "f.rating", 3)
    with pytest.raises(InputError, match="has 2 rating line"):
        read_ratings(b"sysA\tNone\nsysA\tNone\n", "f.rating", 3)
    data = rating_file([("sysA", "{bad"), ("sysA", rating([{"start": "a", "end": 2}])),
                        ("sysA", rating([err(0, 1, "Critical", "x")]))])
    attach_ratings(es, [read_ratings(data + rating_file([("sysB", rating([]))] * 3), "f.rating", 3)])
    reasons = {(e.line, e.reason.split(" (")[0]) for e in es.report.excluded}
    assert (1, "rating is not valid JSON") in reasons and (2, "error start is not an integer") in reasons
    assert any(line == 3 and "severity 'Critical' has no weight" in r for line, r in reasons)


def test_group_names():
    assert group_name("en-ko.esa-human1.seg.rating") == "esa-human1" and group_name("my_mqm.tsv") == "my_mqm"


# --------------------------------------------------------------------------------------------- Google's MQM TSV

TSV_HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def tsv(rows: list[tuple]) -> bytes:
    return (TSV_HEADER + "".join("\t".join(r) + "\n" for r in rows)).encode()


def test_mqm_tsv_offsets_on_the_text_without_markers():
    data = tsv([
        ("sysA", "d", "1", "1", "r1", "The weather is nice today.", "오늘 <v>날씨</v> 좋다.", "Accuracy/Omission", "Major"),
        ("sysA", "d", "1", "1", "r1", "The weather is nice today.", "오늘 날씨 좋다<v>.</v>", "Fluency/Punctuation", "Minor"),
        ("sysA", "d", "1", "1", "r2", "The weather is <v>nice</v> today.", "오늘 날씨 좋다.", "Accuracy/Source", "Minor"),
        ("sysA", "d", "0", "0", "r1", "I go to school.", "나는 학교에 간다.", "No-error", "No-error"),
        ("sysB", "d", "2", "2", "r1", "He read a book.", "He read a book.", "Non-translation!", "Major"),
        ("sysB", "d", "0", "0", "r1", "I go to school.", "나 <v>학교</v> 간다", "Fluency/Grammar", "Minor"),
        ("sysB", "d", "0", "0", "r2", "I go", "<v>나</v> <v>학교</v>", "Fluency/Grammar", "Minor"),
    ])
    read = read_mqm_tsv(data, "mqm.tsv")
    assert [(e.start, e.end, e.side) for e in read.spans()][:3] == [(3, 5, "target"), (8, 9, "target"), (15, 19, "source")]
    assert read.excluded == [(8, "2 <v> and 2 </v> marker(s); one marked span per row")]
    es = evalset()
    attach_ratings(es, [read])
    raw = {(r.system, r.seg_id, r.rater): r.score_raw for r in es.human_ratings.itertuples()}
    assert raw == pytest.approx({("sysA", "1", "r1"): 5.1, ("sysA", "1", "r2"): 1.0, ("sysA", "0", "r1"): 0.0,
                                 ("sysB", "2", "r1"): 25.0, ("sysB", "0", "r1"): 1.0})
    merged = es.human.set_index(["system", "seg_id"])
    assert merged.loc[("sysA", "1"), "score_raw"] == pytest.approx(3.05)  # mean over the two raters
    assert es.spans["fits"].tolist() == [True, True, True, None, True]


def test_mqm_tsv_text_that_differs_from_the_hypothesis_does_not_fit():
    data = tsv([("sysA", "d", "1", "1", "r1", "x", "오늘 <v>하늘</v> 좋다.", "Accuracy/Mistranslation", "Major")])
    es = evalset()
    attach_ratings(es, [read_mqm_tsv(data, "mqm.tsv")])
    assert es.spans["fits"].tolist() == [False]


def test_mqm_tsv_needs_its_columns():
    with pytest.raises(InputError, match="not an MQM TSV: no column"):
        read_mqm_tsv(b"system\tseg_id\tcategory\nA\t1\tx\n", "m.tsv")


# -------------------------------------------------------------------------------------------------------- ESA


def test_esa_table_and_esa_rating_file():
    es = evalset()
    table = ("system\tseg_id\trater\tscore\terrors\n"
             f"sysA\t0\tr1\t90\t[]\nsysA\t1\tr1\t70\t{json.dumps([err(3, 5, 'major', None)])}\n"
             "sysB\t0\tr1\tx\t\nsysB\t1\tr1\t40\tnot json\n").encode()
    read = read_ratings(table, "esa.tsv", 3)
    assert read.kind == "esa" and [j.score for j in read.judgments] == [90, 70]
    assert [r.split(" (")[0] for _, r in read.excluded] == ["score: not a finite number", "errors is not valid JSON"]
    attach_ratings(es, [read])
    assert not es.human_lower_is_better and es.human.set_index(["system", "seg_id"]).loc[("sysA", "1"), "score"] == 70
    assert es.spans["fits"].tolist() == [True]
    data = rating_file([("sysA", rating([], score=80)), ("sysA", rating([], score=60)), ("sysA", "None")])
    es = evalset()
    attach_ratings(es, [read_ratings(data, "en-ko.esa.seg.rating", 3)])
    assert es.human["score"].tolist() == [80, 60]


def test_mqm_and_esa_are_not_merged():
    es = evalset()
    mqm = read_ratings(rating_file([("sysA", rating([]))] * 3), "a.rating", 3)
    esa = read_ratings(b"system,seg_id,score\nsysA,0,50\n", "b.csv", 3)
    with pytest.raises(InputError, match="cannot be merged"):
        attach_ratings(es, [mqm, esa])
