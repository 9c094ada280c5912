"""Lists of texts pickled as one UTF-8 buffer, for the arguments of tasks sent to worker processes.

Why: CPython stores, inside a non-ASCII ``str``, a UTF-8 copy of it the first time anything asks for its UTF-8
form, and keeps it as long as the string lives (``PyUnicode_AsUTF8AndSize``). Pickling a ``str`` asks for it. So
sending a level's token strings to the workers made every one of them about 2.5× larger in the main process for
the rest of the run (Korean: 2 bytes per character, plus 3 for the copy) — hundreds of MB on a WMT-sized set.
``str.encode`` makes new bytes and leaves the string as it was; :class:`PackedTexts` pickles through it.

A :class:`PackedTexts` is a ``list`` (used as one where the task runs in the calling process) of texts, ``None``s,
or tuples of texts and ``None``s (a segment's references); it is unpickled as a plain ``list`` equal to it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TextItem = str | None | tuple[str | None, ...]
_SINGLE = -1  # width of an item that is a text (or None), not a tuple
_NONE = -1  # byte length of a None


class PackedTexts(list):
    """A list of :data:`TextItem` that pickles as UTF-8 bytes (module docstring)."""

    def __reduce__(self):
        return (unpack_texts, pack_texts(self))


def packable(value: object) -> bool:
    """Whether ``value`` is a non-empty list of texts, ``None``s or tuples of them (what :class:`PackedTexts`
    holds)."""
    if not isinstance(value, list) or not value or isinstance(value, PackedTexts):
        return False
    for item in value:
        if isinstance(item, tuple):
            if not all(t is None or isinstance(t, str) for t in item):
                return False
        elif item is not None and not isinstance(item, str):
            return False
    return True


def pack_texts(items: Sequence[TextItem]) -> tuple[bytes, bytes, bytes]:
    """(item widths, text lengths in characters, the UTF-8 bytes of all texts joined) as bytes;
    :func:`unpack_texts` inverts it. A width is ``-1`` for a text or ``None``, the tuple's size otherwise; a length
    is ``-1`` for ``None``. The texts are joined and encoded at once (``str.join`` and ``str.encode`` leave the
    strings as they were)."""
    widths: list[int] = []
    texts: list[str | None] = []
    for item in items:
        if isinstance(item, tuple):
            widths.append(len(item))
            texts.extend(item)
        else:
            widths.append(_SINGLE)
            texts.append(item)
    lengths = [_NONE if t is None else len(t) for t in texts]
    joined = "".join(t for t in texts if t is not None).encode("utf-8", "surrogatepass")
    return (np.asarray(widths, dtype=np.int64).tobytes(), np.asarray(lengths, dtype=np.int64).tobytes(), joined)


def unpack_texts(widths: bytes, lengths: bytes, blob: bytes) -> list[TextItem]:
    """The list :func:`pack_texts` packed."""
    whole = blob.decode("utf-8", "surrogatepass")
    texts: list[str | None] = []
    at = 0
    for size in np.frombuffer(lengths, dtype=np.int64).tolist():
        if size == _NONE:
            texts.append(None)
        else:
            texts.append(whole[at : at + size])
            at += size
    shape = np.frombuffer(widths, dtype=np.int64).tolist()
    if all(width == _SINGLE for width in shape):
        return texts
    out: list[TextItem] = []
    k = 0
    for width in shape:
        if width == _SINGLE:
            out.append(texts[k])
            k += 1
        else:
            out.append(tuple(texts[k : k + width]))
            k += width
    return out
