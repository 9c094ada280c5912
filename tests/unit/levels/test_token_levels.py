"""Every token level, on the study's example pair and on hostile text (real tokenizers, no mocks)."""

import os
import subprocess
import sys
from pathlib import Path

import jamo
import pandas as pd
import pytest

from korean_eval.levels.registry import (
    KIWI_MODEL_FILES,
    LEVEL_NAMES,
    SpmLevel,
    get_level,
    level_availability,
    level_table,
)
from tests.support.helpers import STUDY, require

ROOT = Path(__file__).resolve().parents[3]

# Study column → our level. These match today's library versions token for token.
EXACT = {"CV": "jamo", "Syllable": "char", "Hannanum": "hannanum", "Kkma": "kkma", "Okt": "okt", "Komoran": "komoran", "Mecab": "mecab"}
HOSTILE = ["", "   ", "@user 😀 漢字 ㅋㅋ ᄀᄀ ꥠ", "a" * 10_000, "모델\u200b레온", "tab\there", "!!!???...", "١٢٣ 𝔘𝔫𝔦"]


@pytest.fixture(scope="module")
def example():
    path = require(STUDY / "tokenizer_examples.tsv")
    return pd.read_csv(path, sep="\t", keep_default_na=False).iloc[0]


@pytest.mark.parametrize("column", list(EXACT))
@pytest.mark.parametrize("side", ["Ref", "Hyp"])
def test_levels_reproduce_the_study_example(example, column, side):
    expected = example[f"{side}_{column}"].split()
    if column == "CV":  # the study printed conjoining jamo; docs/design.md §3 uses compatibility jamo (j2hcj)
        expected = [jamo.j2hcj(t) for t in expected]
    assert get_level(EXACT[column]).tokenize_one(example[side]) == expected


def test_kiwi_on_the_study_example(example):
    # The released Kiwi column holds only the first token ("모델"); Kiwi 0.24 lemmatises endings, e.g. 했다 → 하 었 다.
    tokens = get_level("kiwi").tokenize_one(example["Ref"])
    assert tokens[0] == example["Ref_Kiwi"] == "모델"
    assert ["유지", "하", "었", "다", "."] == tokens[-5:]
    # Kiwi is a morpheme level: more tokens than words, fewer than characters
    assert len(example["Ref"].split()) < len(tokens) < len(get_level("char").tokenize_one(example["Ref"]))


def test_spm_on_the_study_example(example):
    # The study's SentencePiece model is not released; ours is trained on the references. Stable: pieces cover
    # exactly the non-space characters, and no piece contains the ▁ marker.
    level = SpmLevel(vocab_size=200).fit([example["Ref"], example["Hyp"]])
    pieces = level.tokenize_one(example["Hyp"])
    assert "".join(pieces) == "".join(example["Hyp"].split())
    assert all("\u2581" not in p and p for p in pieces)


def test_registry_lists_every_level_with_family_and_version():
    rows = {r["level"]: r for r in level_table()}
    assert set(rows) == set(LEVEL_NAMES)
    assert rows["khaiii"]["available"] == "no" and "PyPI" in rows["khaiii"]["reason"]
    assert {rows[n]["family"] for n in rows} == {"word", "morpheme", "subword", "character", "jamo"}
    for name in ("word", "mecab", "kiwi", "okt", "komoran", "kkma", "hannanum", "char", "jamo"):
        assert level_availability(name) == (True, ""), name
        assert rows[name]["version"].startswith(name)


def _model_folder_without(tmp_path: Path, left_out: str) -> Path:
    """A copy of kiwipiepy_model's folder (symbolic links to its files) without ``left_out``."""
    import kiwipiepy_model

    source = Path(kiwipiepy_model.get_model_path())
    folder = tmp_path / f"model-without-{left_out}"
    folder.mkdir()
    for path in source.iterdir():
        if path.is_file() and path.name != left_out:
            (folder / path.name).symlink_to(path)
    return folder


@pytest.mark.parametrize("left_out", KIWI_MODEL_FILES)
def test_kiwi_listed_as_unavailable_without_a_model_file_kiwi_needs(tmp_path, monkeypatch, left_out):
    """The availability check loads no model (tokenizers.kiwi_install_problem): it must still report a broken
    install, naming the missing file. (That Kiwi refuses to start without each of these files was found by removing
    them in turn; a file it no longer needs would, once gone from the model, fail test_registry… below.)"""
    import kiwipiepy_model

    folder = _model_folder_without(tmp_path, left_out)
    monkeypatch.setattr(kiwipiepy_model, "get_model_path", lambda: str(folder))
    ok, reason = get_level("kiwi").availability()
    assert not ok and left_out in reason and str(folder) in reason
    (folder / left_out).write_bytes(b"")
    ok, reason = get_level("kiwi").availability()
    assert not ok and left_out in reason


def test_kiwi_that_cannot_load_its_model_is_unavailable_not_whitespace_tokens(monkeypatch):
    """A model that is installed but fails to load: tokenising raises naming the reason (every sentence falling
    back to whitespace tokens would be a silent wrong result)."""
    from korean_eval.levels import registry as tokenizers
    def broken():
        raise OSError("Cannot open required file: default.dict")

    monkeypatch.setattr(tokenizers, "kiwi_analyzer", broken)
    level = get_level("kiwi")
    assert level.availability() == (True, "") and not level.start()[0]
    with pytest.raises(RuntimeError, match="'kiwi' is unavailable: kiwipiepy cannot start: Cannot open required"):
        level.tokenize(["모델 레온"])


@pytest.mark.parametrize("name", [n for n in LEVEL_NAMES if n not in ("khaiii",)])
def test_hostile_text_never_crashes(name):
    level = SpmLevel(vocab_size=100).fit(["모델 레온 데임은 활보했다.", "오늘 날씨가 좋다."]) if name == "spm" else get_level(name)
    result = level.tokenize(HOSTILE)
    assert len(result.tokens) == len(HOSTILE)
    for tokens in result.tokens:
        assert all(t and not any(c.isspace() for c in t) for t in tokens)
    assert result.tokens[0] == [] and result.tokens[1] == []


def test_each_distinct_text_tokenised_once():
    calls = []
    level = get_level("char")
    original = level._tokenize_batch
    level._tokenize_batch = lambda texts: calls.append(list(texts)) or original(texts)
    level.tokenize(["가나", "다", "가나", "다", "라"])
    assert calls == [["가나", "다", "라"]]


def test_jamo_round_trips_hangul():
    text = "한국어 문장을 자모로 나눕니다 값 닭 읊"
    tokens = get_level("jamo").tokenize_one(text)
    assert jamo.j2h(*jamo.hcj_to_jamo("ㄱ", "lead"), jamo.hcj_to_jamo("ㅏ", "vowel")) == "가"
    assert len(tokens) == sum(len(jamo.h2j(c)) for c in text if not c.isspace())


def test_spm_is_deterministic_and_loads_supplied_model():
    refs = ["모델 레온 데임은 아무도 밟지 않은 것처럼 캣워크를 활보했다."] * 3 + ["오늘 날씨가 좋다."]
    a, b = SpmLevel(300).fit(refs), SpmLevel(300).fit(refs)
    assert a.version() == b.version()
    c = SpmLevel(model=a._model_bytes)
    assert c.tokenize_one(refs[0]) == a.tokenize_one(refs[0])
    # a supplied model is named by its own piece count, not by the (unused) vocabulary setting
    assert "-unigram-v300-" in a.version() and "-model-" not in a.version()
    assert f"-model-{a.piece_count()}p-" in c.version() and "-v4000-" not in c.version()
    assert c.version().rsplit("-", 1)[1] == a.version().rsplit("-", 1)[1]  # the same model hash
    with pytest.raises(ValueError, match="SentencePiece"):
        SpmLevel(model=b"not a model")


def test_a_process_whose_thread_analysed_with_konlpy_exits(tmp_path):
    """A thread that starts KoNLPy's JVM and ends (a Streamlit script thread does) must not hold up the exit:
    JPype's exit waits for every thread attached to the JVM (korean_eval.levels.konlpy.leave_jvm). Without the
    detach this process hung in ``DestroyJavaVM`` every time (3 of 3 with Okt, 3 of 3 with Hannanum)."""
    if not level_availability("hannanum")[0]:
        pytest.skip("no JVM for KoNLPy")
    code = ("import threading\n"
            "from korean_eval.levels.registry import get_level\n"
            "out = []\n"
            "thread = threading.Thread(target=lambda: out.append(get_level('hannanum').tokenize(['국민은 평등하다.'])),"
            " daemon=True)\n"
            "thread.start()\nthread.join()\nprint(out[0].tokens)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "국민" in result.stdout
