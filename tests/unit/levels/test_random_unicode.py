"""Property-based tests (hypothesis) over random Unicode: tokenizers and the input loader never crash or lose text."""

from __future__ import annotations

import jamo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_eval.inputs.text_files import InputError, clean_segment, split_lines
from korean_eval.levels.registry import get_level
from korean_eval.model.evalset import evalset_from_texts

HANGUL = st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3)
KOREANISH = st.text(
    alphabet=st.one_of(HANGUL, st.characters(codec="utf-8", exclude_categories=("Cs",)), st.sampled_from(" .,!?@#😀漢字ㄱㅏ")),
    max_size=60,
)
FAST_LEVELS = ["word", "mecab", "kiwi", "char", "jamo", "okt", "komoran", "hannanum"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(texts=st.lists(KOREANISH, min_size=1, max_size=5))
def test_every_tokenizer_survives_random_unicode(texts):
    texts = [clean_segment(t)[0] for t in texts]
    for name in FAST_LEVELS:
        result = get_level(name).tokenize(texts)
        assert len(result.tokens) == len(texts)
        for tokens in result.tokens:
            assert all(tok and not any(c.isspace() for c in tok) for tok in tokens), (name, tokens)


@SETTINGS
@given(text=st.text(alphabet=st.one_of(HANGUL, st.just(" ")), max_size=40))
def test_jamo_of_hangul_round_trips(text):
    tokens = get_level("jamo").tokenize_one(text)
    syllables = [c for c in text if not c.isspace()]
    pos = 0
    for syllable in syllables:
        n = len(jamo.h2j(syllable))
        letters = tokens[pos : pos + n]
        conjoining = [jamo.hcj_to_jamo(letters[0], "lead"), jamo.hcj_to_jamo(letters[1], "vowel")]
        if n == 3:
            conjoining.append(jamo.hcj_to_jamo(letters[2], "tail"))
        assert jamo.j2h(*conjoining) == syllable
        pos += n
    assert pos == len(tokens)


@SETTINGS
@given(text=KOREANISH)
def test_char_tokens_are_the_non_space_characters(text):
    assert "".join(get_level("char").tokenize_one(text)) == "".join(text.split())


@SETTINGS
@given(lines=st.lists(KOREANISH.filter(lambda t: "\n" not in t and "\r" not in t), min_size=1, max_size=6),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp949"]), end=st.sampled_from(["\n", "\r\n", "\r"]))
def test_loader_round_trips_or_refuses_cleanly(lines, encoding, end):
    raw = end.join(lines) + end
    try:
        data = raw.encode(encoding)
    except UnicodeEncodeError:
        return  # not representable in this encoding: nothing to test
    try:
        ev = evalset_from_texts([("ref.txt", data)], [("sys.txt", data)])
    except InputError as err:
        assert err.file in ("ref.txt", "sys.txt") and str(err).startswith(err.file)
        return
    expected = [clean_segment(line)[0] for line in split_lines(raw)[0]]
    assert ev.refs[0] == expected and ev.systems["sys"] == expected
