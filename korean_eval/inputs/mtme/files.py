"""Read-only access to a folder in mt-metrics-eval's layout, on disk or inside a zip archive (docs/design.md §4).

A :class:`FileTree` lists the regular files under its root as POSIX paths relative to it and reads one file at a
time; nothing is ever extracted or written. Two kinds:

* :class:`DirTree` — a directory (the command line's ``--mtme DIR``); symbolic links to directories are not
  followed, every file is read through :func:`korean_eval.inputs.text_files.read_input_file` (200 MB limit).
* :class:`ZipTree` — a ``.zip`` archive held in memory (the dashboard's upload, or ``--mtme FILE.zip``). The archive
  is refused with the member at fault when a member's path could leave the archive's root (absolute, a drive
  letter, a ``..`` component, a NUL), is a symbolic link, is encrypted or is named twice; macOS resource entries
  (``__MACOSX/``, ``._*``) are ignored. Reads are bounded: a member may not inflate beyond
  :data:`korean_eval.inputs.text_files.MAX_FILE_BYTES`, and all members read from one archive together beyond
  ``max_total_bytes`` (default the same 200 MB), whatever sizes the archive declares (zip bombs).
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Protocol

from korean_eval.inputs.text_files import MAX_FILE_BYTES, InputError, read_input_file

__all__ = ["DirTree", "FileTree", "ZipTree", "open_tree"]

#: The most members an archive may have (a layout folder of a WMT test set has a few hundred).
MAX_ZIP_MEMBERS = 50_000


class FileTree(Protocol):
    """Regular files under a root, by relative POSIX path."""

    label: str

    def files(self) -> list[str]:
        """Every regular file, sorted."""
        ...

    def read(self, path: str) -> bytes:
        """The bytes of one listed file (InputError naming it when it cannot be read or is too big)."""
        ...


class DirTree:
    """A directory on disk."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        if not self.root.is_dir():
            raise InputError(str(root), "mt-metrics-eval folder not found (give a directory or a .zip file)")
        self.label = str(root)

    def files(self) -> list[str]:
        found = []
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            dirs.sort()
            for name in names:
                path = Path(folder) / name
                try:
                    regular = stat.S_ISREG(path.stat().st_mode)
                except OSError:
                    continue
                if regular:
                    found.append(path.relative_to(self.root).as_posix())
        return sorted(found)

    def read(self, path: str) -> bytes:
        return read_input_file(self.root / path, "mt-metrics-eval")[1]


def _member_path(info: zipfile.ZipInfo, archive: str) -> str | None:
    """The safe relative path of a zip member, None for a directory or a macOS resource entry; InputError for a
    member that is unsafe (see the module docstring)."""
    raw = info.filename
    name = raw.replace("\\", "/")
    if "\x00" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise InputError(archive, f"member {raw[:80]!r} has an absolute path; refused (nothing was extracted)")
    parts = PurePosixPath(name).parts
    if ".." in parts:
        raise InputError(archive, f"member {raw[:80]!r} points outside the archive ('..'); refused")
    if info.is_dir():
        return None
    if stat.S_ISLNK(info.external_attr >> 16):
        raise InputError(archive, f"member {raw[:80]!r} is a symbolic link; refused")
    if info.flag_bits & 0x1:
        raise InputError(archive, f"member {raw[:80]!r} is encrypted; upload an archive without a password")
    if "__MACOSX" in parts or parts[-1].startswith("._") or parts[-1] == ".DS_Store":
        return None
    return "/".join(p for p in parts if p not in ("", "."))


class ZipTree:
    """A zip archive in memory (see the module docstring for what is refused)."""

    def __init__(self, data: bytes, name: str, max_total_bytes: int = MAX_FILE_BYTES):
        self.label = name
        self.max_total_bytes = max_total_bytes
        self.read_bytes = 0
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, ValueError, OSError) as err:
            raise InputError(name, f"not a readable zip archive ({err})") from None
        if len(infos) > MAX_ZIP_MEMBERS:
            raise InputError(name, f"archive has {len(infos):,} members; at most {MAX_ZIP_MEMBERS:,} are accepted")
        self._members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            path = _member_path(info, name)
            if path is None:
                continue
            if path in self._members:
                raise InputError(name, f"member {path!r} appears twice in the archive; refused")
            self._members[path] = info

    def files(self) -> list[str]:
        return sorted(self._members)

    def read(self, path: str) -> bytes:
        info = self._members.get(path)
        if info is None:
            raise InputError(f"{self.label}: {path}", "file not found in the archive")
        limit = min(MAX_FILE_BYTES, self.max_total_bytes - self.read_bytes)
        try:
            with self._zip.open(info) as member:
                data = member.read(limit + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as err:
            raise InputError(f"{self.label}: {path}", f"cannot be read from the archive ({err})") from None
        if len(data) > limit:
            if limit == MAX_FILE_BYTES:
                problem = f"inflates beyond {MAX_FILE_BYTES / 1e6:.0f} MB, the limit of one file; refused"
            else:
                problem = f"the files read from this archive would exceed {self.max_total_bytes / 1e6:.0f} MB together; refused"
            raise InputError(f"{self.label}: {path}", problem)
        self.read_bytes += len(data)
        return data


def open_tree(path: str | os.PathLike[str]) -> FileTree:
    """A directory as a :class:`DirTree`; a regular file (a ``.zip`` archive) as a :class:`ZipTree`."""
    p = Path(path)
    if p.is_dir():
        return DirTree(p)
    if not p.exists():
        raise InputError(str(path), "not found; give a directory in mt-metrics-eval's layout or a .zip of one")
    name, data = read_input_file(p, "mt-metrics-eval archive")
    if not data.startswith(b"PK"):
        raise InputError(name, "--mtme needs a directory in mt-metrics-eval's layout or a .zip archive of one")
    return ZipTree(data, name)
