"""Reading mt-metrics-eval score files (``human-scores/*.score``, ``metric-scores/*/*.score``; docs/design.md §4).

Format (mt-metrics-eval 0.0.3, README "Specification"; ``data.py`` ``ReadScoreFile``, ``ReadDomainScoreFile``,
``EvalSet.CheckScores``): one score per line, fields separated by any whitespace (tabs in the WMT files) —
``SYSNAME SCORE``, or ``DOMAIN SYSNAME SCORE`` in a ``domain``-level file; ``None`` is a missing score. A ``seg``
file holds, for every system, one score per segment in segment order (mt-metrics-eval collects each system's
lines in file order, so the systems' lines may interleave; WMT files hold one block per system); a ``doc`` file one
per document in the order of the documents file; a ``sys`` file one per system; a ``domain`` file one per domain
and system.

The file is decoded like every input (:func:`korean_eval.inputs.text_files.read_text_lines`). Refused with file and line
(:class:`~korean_eval.inputs.text_files.InputError`): a blank line, a line with another number of fields, a system without an
output in ``system-outputs/``, an unknown domain, a system with too many or too few scores, a score given twice.
A ``None`` or a value that is no finite number (:func:`korean_eval.inputs.table_reader.read_number`) is kept as a missing entry
with its reason, for the caller to exclude and count.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from korean_eval.inputs.table_reader import read_number
from korean_eval.inputs.text_files import InputError, identifier, read_text_lines

__all__ = ["MISSING", "ScoreEntry", "ScoreFileData", "read_score_file"]

#: How mt-metrics-eval writes a missing score.
MISSING = "None"


@dataclass(frozen=True)
class ScoreEntry:
    """One score: its value (None when missing, ``problem`` says why) and its line in the file (1-based)."""

    value: float | None
    line: int
    problem: str = ""


@dataclass
class ScoreFileData:
    """A score file read: per system, its entries in file order; for a ``domain`` file, per system the entry of
    each domain (``by_domain``); ``notes`` on decoding."""

    name: str
    level: str
    entries: dict[str, list[ScoreEntry]] = field(default_factory=dict)
    by_domain: dict[str, dict[str, ScoreEntry]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def values(self) -> list[float]:
        """Every present value (for the direction rule)."""
        rows = [e for es in self.entries.values() for e in es]
        rows += [e for per in self.by_domain.values() for e in per.values()]
        return [e.value for e in rows if e.value is not None]


def _entry(token: str, line: int) -> ScoreEntry:
    if token == MISSING:
        return ScoreEntry(None, line, "None (no score)")
    cell = read_number(token)
    if cell.value is None or not math.isfinite(cell.value) or cell.decimal_comma:
        return ScoreEntry(None, line, cell.problem or f"not a finite number ({token[:20]!r})")
    return ScoreEntry(cell.value, line)


def read_score_file(
    data: bytes, name: str, level: str, systems: Collection[str], expected: int, domains: Sequence[str] = ()
) -> ScoreFileData:
    """Read one score file of ``level`` (see the module docstring).

    ``systems``: the names in ``system-outputs/`` (any other name is refused); ``expected``: scores per system —
    segments (``seg``), documents (``doc``) or 1 (``sys``); ``domains``: the domains of the documents file
    (``domain`` level). Systems absent from the file are simply absent from the result.
    """
    doc = read_text_lines(data, name)
    out = ScoreFileData(name, level, notes=list(doc.notes))
    fields = 3 if level == "domain" else 2
    form = "DOMAIN SYSNAME SCORE" if level == "domain" else "SYSNAME SCORE"
    last_line: dict[str, int] = {}
    for number, text in enumerate(doc.lines, start=1):
        parts = text.split()
        if not parts:
            raise InputError(name, f"blank line; every line is {form}", line=number)
        if len(parts) != fields:
            raise InputError(name, f"{len(parts)} field(s); every line of a {level}-level file is {form}", line=number)
        system = identifier(parts[-2])
        if system not in systems:
            raise InputError(name, f"unknown system {system!r}: no system-outputs file of that name", line=number)
        entry = _entry(parts[-1], number)
        if level == "domain":
            _add_domain_entry(out, parts[0], system, entry, domains, name)
            continue
        got = out.entries.setdefault(system, [])
        if len(got) == expected:
            what = "score" if level == "sys" else f"{level}-level scores"
            raise InputError(name, f"system {system!r} has more than {expected} {what} (one per "
                             f"{_unit(level)} expected)", line=number)
        got.append(entry)
        last_line[system] = number
    for system, got in out.entries.items():
        if len(got) != expected:
            raise InputError(name, f"system {system!r} has {len(got)} {level}-level score(s), expected {expected} "
                             f"(one per {_unit(level)}); its last one is on this line", line=last_line[system])
    return out


def _unit(level: str) -> str:
    return {"seg": "segment of the source", "doc": "document of the documents file", "sys": "system"}[level]


def _add_domain_entry(
    out: ScoreFileData, domain: str, system: str, entry: ScoreEntry, domains: Sequence[str], name: str
) -> None:
    if domain not in domains:
        known = ", ".join(domains) or "none (no documents file)"
        raise InputError(name, f"unknown domain {domain!r}; the documents file's domains are {known}", line=entry.line)
    per = out.by_domain.setdefault(system, {})
    if domain in per:
        raise InputError(name, f"system {system!r} has domain {domain!r} twice (first on line {per[domain].line})",
                         line=entry.line)
    per[domain] = entry
