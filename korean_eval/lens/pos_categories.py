"""Sejong/Kiwi part-of-speech tags → the Korean lens's error categories (docs/design.md §8).

The tags are Kiwi's, which extend the 21st Century Sejong Project's tag set (kiwipiepy 0.24.1 documentation,
"태그 목록" (tag list), https://bab2min.github.io/kiwipiepy/ — also ``kiwipiepy/documentation.md`` in the installed
package). Kiwi may append ``-R`` / ``-I`` (regular / irregular conjugation) to ``VV``, ``VA``, ``VX`` and ``XSA``;
:func:`base_tag` strips it, so ``걷/VV-I`` and ``걷/VV`` are one morpheme here.

Every tag belongs to exactly one category and one subcategory (:data:`TAG_CATEGORIES`):

=================  ===================================================================================
category           subcategories (tags)
=================  ===================================================================================
``content``        noun (NNG NNP NNB NR NP), predicate (VV VA VX VCP VCN), modifier (MM MAG MAJ),
                   interjection (IC), root (XR)
``particle``       case (JKS JKC JKG JKO JKB JKV JKQ), auxiliary (JX), conjunctive (JC)
``ending``         prefinal (EP; split by form into ``prefinal:honorific`` 시/으시, ``prefinal:tense``
                   었/았/였/었었/겠/더, ``prefinal:other``), final (EF), connective (EC), nominal/adnominal
                   (ETN ETM)
``affix``          prefix (XPN), suffix (XSN XSV XSA XSM)
``foreign_number`` latin (SL), hanja (SH), number (SN)
``punctuation``    punctuation (SF SP SS SSO SSC SE SO SW SB)
``other``          unanalysable (UN), web (W_URL W_EMAIL W_HASHTAG W_MENTION W_SERIAL W_EMOJI), Kiwi's own
                   tags (Z_CODA Z_SIOT USER0…USER4) and any tag not listed
=================  ===================================================================================
"""

from __future__ import annotations

CATEGORIES: tuple[str, ...] = ("content", "particle", "ending", "affix", "foreign_number", "punctuation", "other")
"""The categories in display order."""

CATEGORY_LABELS: dict[str, str] = {
    "content": "content morphemes",
    "particle": "particles (josa)",
    "ending": "endings (eomi)",
    "affix": "derivational affixes",
    "foreign_number": "foreign script & numbers",
    "punctuation": "punctuation",
    "other": "other",
}

_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("content", "noun", ("NNG", "NNP", "NNB", "NR", "NP")),
    ("content", "predicate", ("VV", "VA", "VX", "VCP", "VCN")),
    ("content", "modifier", ("MM", "MAG", "MAJ")),
    ("content", "interjection", ("IC",)),
    ("content", "root", ("XR",)),
    ("particle", "case", ("JKS", "JKC", "JKG", "JKO", "JKB", "JKV", "JKQ")),
    ("particle", "auxiliary", ("JX",)),
    ("particle", "conjunctive", ("JC",)),
    ("ending", "prefinal", ("EP",)),
    ("ending", "final", ("EF",)),
    ("ending", "connective", ("EC",)),
    ("ending", "nominal/adnominal", ("ETN", "ETM")),
    ("affix", "prefix", ("XPN",)),
    ("affix", "suffix", ("XSN", "XSV", "XSA", "XSM")),
    ("foreign_number", "latin", ("SL",)),
    ("foreign_number", "hanja", ("SH",)),
    ("foreign_number", "number", ("SN",)),
    ("punctuation", "punctuation", ("SF", "SP", "SS", "SSO", "SSC", "SE", "SO", "SW", "SB")),
    ("other", "unanalysable", ("UN",)),
    ("other", "web", ("W_URL", "W_EMAIL", "W_HASHTAG", "W_MENTION", "W_SERIAL", "W_EMOJI")),
    ("other", "kiwi", ("Z_CODA", "Z_SIOT", "USER0", "USER1", "USER2", "USER3", "USER4")),
)

TAG_CATEGORIES: dict[str, tuple[str, str]] = {tag: (cat, sub) for cat, sub, tags in _GROUPS for tag in tags}
"""Base tag → (category, subcategory); the prefinal endings are split further by form (:func:`classify`)."""

HONORIFIC_PREFINAL: frozenset[str] = frozenset({"시", "으시"})
"""Forms of the subject-honorific prefinal ending -(으)시- as Kiwi writes them (셨 is analysed 시 + 었)."""

TENSE_PREFINAL: frozenset[str] = frozenset({"었", "았", "였", "었었", "았었", "겠", "더"})
"""Forms of the tense/aspect/modality prefinal endings (past 었, future/conjecture 겠, retrospective 더)."""

SUBCATEGORIES: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys(
        (cat, f"prefinal:{part}" if sub == "prefinal" else sub)
        for cat, sub, _tags in _GROUPS
        for part in (("honorific", "tense", "other") if sub == "prefinal" else ("",))
    )
)
"""Every (category, subcategory) in display order (prefinal endings as three subcategories)."""


def base_tag(tag: str) -> str:
    """``VV-I`` → ``VV``: the tag without Kiwi's conjugation suffix (``-R`` regular / ``-I`` irregular)."""
    return tag.split("-", 1)[0]


def classify(form: str, tag: str) -> tuple[str, str]:
    """(category, subcategory) of one morpheme; unknown tags are ``("other", "kiwi")``."""
    cat, sub = TAG_CATEGORIES.get(base_tag(tag), ("other", "kiwi"))
    if sub == "prefinal":
        if form in HONORIFIC_PREFINAL:
            return cat, "prefinal:honorific"
        return cat, "prefinal:tense" if form in TENSE_PREFINAL else "prefinal:other"
    return cat, sub


def is_content(tag: str) -> bool:
    """Whether a morpheme of this tag is a content morpheme (nouns, predicates, modifiers, interjections, roots)."""
    return TAG_CATEGORIES.get(base_tag(tag), ("other", ""))[0] == "content"
