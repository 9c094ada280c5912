"""KoNLPy's analyzers as token levels (Okt, Komoran, Kkma, Hannanum: ``.morphs(text)``; they need a JVM), and
Khaiii, listed but unavailable (docs/design.md §3)."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Sequence

from korean_eval.levels.base import TokenLevel


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
    large_model, shared_runtime = True, "jvm"  # a JVM of ≈ 0.45 GB, started once per process for all four
    analyzer: str = ""

    def availability(self) -> tuple[bool, str]:
        return jvm_status()

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        tagger = _konlpy_tagger(self.analyzer)
        try:
            return [self._morphs(tagger, t) for t in texts]
        finally:
            leave_jvm()

    @staticmethod
    def _morphs(tagger, text: str) -> list[str]:
        return tagger.morphs(text) if text.strip() else []

    def _tokenize_one(self, text: str) -> list[str]:
        try:
            return self._morphs(_konlpy_tagger(self.analyzer), text)
        finally:
            leave_jvm()


def leave_jvm() -> None:
    """Detach the calling thread from KoNLPy's JVM unless it is the main thread.

    JPype attaches every thread that calls Java, and the thread that starts the JVM stays attached; at the
    interpreter's exit JPype destroys the JVM, which waits for every attached thread to leave — forever for a
    thread that has ended (a Streamlit script thread, a worker thread), so the process would hang at exit in
    ``DestroyJavaVM``. A detached thread is attached again by its next call."""
    import jpype

    if threading.current_thread() is not threading.main_thread() and jpype.isJVMStarted():
        jpype.java.lang.Thread.detach()


@functools.cache
def _konlpy_tagger(analyzer: str):
    import konlpy.tag

    return getattr(konlpy.tag, analyzer)()


def _konlpy_level(level: str, analyzer: str, text: str, cost: tuple[float, float]) -> type[KonlpyLevel]:
    return type(
        f"{analyzer}Level",
        (KonlpyLevel,),
        {"name": level, "label": f"{analyzer} (KoNLPy)", "analyzer": analyzer, "description": text,
         "tokenize_cost": cost},
    )


OktLevel = _konlpy_level("okt", "Okt", "KoNLPy Okt (Open Korean Text) .morphs", (8.67, 235.86))
KomoranLevel = _konlpy_level("komoran", "Komoran", "KoNLPy Komoran .morphs", (15.11, 149.46))
KkmaLevel = _konlpy_level("kkma", "Kkma", "KoNLPy Kkma .morphs (slow analyzer)", (32.75, 2093.63))
HannanumLevel = _konlpy_level("hannanum", "Hannanum", "KoNLPy Hannanum .morphs", (1.65, 347.96))


class KhaiiiLevel(TokenLevel):
    name, family, label = "khaiii", "morpheme", "Khaiii"
    in_study = False  # not installable from the package registries: listed, never run
    description = "Kakao's Khaiii morphological analyzer"

    def availability(self) -> tuple[bool, str]:
        return False, "khaiii is not published on PyPI (it builds from source with CMake and downloads resources), so it cannot be installed from the package registries"

