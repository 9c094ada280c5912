"""KoNLPy's analyzers as token levels (Okt, Komoran, Kkma, Hannanum: ``.morphs(text)``; they need a JVM), and
Khaiii, listed but unavailable (docs/design.md §3)."""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Sequence

from korean_eval.token_level import TokenLevel


def jvm_status() -> tuple[bool, str]:
    """Whether KoNLPy can start its JVM here, with the reason when not."""
    try:
        import jpype  # noqa: F401
        import konlpy  # noqa: F401
    except ImportError as err:
        return False, f"KoNLPy or JPype is not installed ({err})"
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        return False, "no Java runtime found (install a JDK, e.g. `apt-get install default-jdk-headless`, or set JAVA_HOME)"
    try:
        import jpype

        if not jpype.isJVMStarted():
            jpype.getDefaultJVMPath()
    except Exception as err:  # noqa: BLE001
        return False, f"no usable JVM: {err}"
    return True, ""


class KonlpyLevel(TokenLevel):
    """A KoNLPy analyzer (``.morphs``); needs a JVM."""

    family, library = "morpheme", "konlpy"
    analyzer: str = ""

    def availability(self) -> tuple[bool, str]:
        return jvm_status()

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        tagger = _konlpy_tagger(self.analyzer)
        return [self._morphs(tagger, t) for t in texts]

    @staticmethod
    def _morphs(tagger, text: str) -> list[str]:
        return tagger.morphs(text) if text.strip() else []

    def _tokenize_one(self, text: str) -> list[str]:
        return self._morphs(_konlpy_tagger(self.analyzer), text)


@functools.cache
def _konlpy_tagger(analyzer: str):
    import konlpy.tag

    return getattr(konlpy.tag, analyzer)()


def _konlpy_level(level: str, analyzer: str, text: str) -> type[KonlpyLevel]:
    return type(
        f"{analyzer}Level",
        (KonlpyLevel,),
        {"name": level, "label": f"{analyzer} (KoNLPy)", "analyzer": analyzer, "description": text},
    )


OktLevel = _konlpy_level("okt", "Okt", "KoNLPy Okt (Open Korean Text) .morphs")
KomoranLevel = _konlpy_level("komoran", "Komoran", "KoNLPy Komoran .morphs")
KkmaLevel = _konlpy_level("kkma", "Kkma", "KoNLPy Kkma .morphs (slow analyzer)")
HannanumLevel = _konlpy_level("hannanum", "Hannanum", "KoNLPy Hannanum .morphs")


class KhaiiiLevel(TokenLevel):
    name, family, label = "khaiii", "morpheme", "Khaiii"
    description = "Kakao's Khaiii morphological analyzer"

    def availability(self) -> tuple[bool, str]:
        return False, "khaiii is not published on PyPI (it builds from source with CMake and downloads resources), so it cannot be installed from the package registries"

