"""Checks of the command line before any file is opened or any score computed (docs/design.md §4).

Each check raises :class:`InputError` whose "file" part is the option at fault, so the CLI prints one line such as
``error: --seed: must be between 0 and 4294967295 (numpy's seed range), got -1`` and exits with status 2:

- :func:`check_option_combinations`: two options where one would silently be ignored (``--table`` with ``--ref``;
  ``--human`` with ``--judgments``; ``--mtme`` with any other text, human or score input; ``--sys`` without
  ``--ref``; ``--lp`` without ``--mtme`` …), named both.
- :func:`check_mqm_weights`: ``--mqm-weights`` parsed (:func:`korean_eval.inputs.spans.weights.parse_weights`).
- :func:`check_run_numbers`: numeric options out of range (``--bootstrap`` < 0, ``--jobs`` < 1, ``--seed`` outside
  0 … 2**32−1, …).
- :func:`check_names`: ``--levels``/``--metrics`` entries unknown or named twice; :func:`check_level_names`:
  ``--levels``, where ``all`` (the study's grid) must stand alone.
- :func:`check_regular_file` / :func:`check_input_files`: an input path that exists but is not a regular file (named
  pipe, socket, device, directory) is refused by name with ``os.stat`` — never opened, so a FIFO cannot block.
- :func:`sys_dir_files`: the ``*.txt`` files of ``--sys-dir`` (checked as above) and a note naming the skipped ones.
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from korean_eval.inputs.spans.weights import parse_weights
from korean_eval.inputs.text_files import InputError
from korean_eval.levels.registry import ALL_LEVELS, check_all_alone, level_names

SEED_MAX = 2**32 - 1
"""The largest seed numpy's legacy ``RandomState`` accepts (seeds are 0 … 2**32−1)."""

CONFLICTING_OPTIONS: tuple[tuple[str, str], ...] = (
    ("table", "ref"),
    ("table", "sys"),
    ("table", "sys_dir"),
    ("human", "judgments"),
    ("human_from_table", "human"),
    ("human_from_table", "judgments"),
    *(("ratings", other) for other in ("human", "human_from_table", "judgments")),
    *(("mtme", other) for other in ("table", "ref", "sys", "sys_dir", "human", "human_from_table", "judgments", "scores",
                                    "ratings")),
    ("no_mtme_metrics", "mtme_metrics"),
    ("no_mtme_metrics", "lower_is_better"),
)
"""Pairs of ``run`` options (argparse destinations) that cannot be given together: one would be ignored."""

REQUIRED_WITH: tuple[tuple[str, str], ...] = (
    ("sys", "ref"),
    ("sys_dir", "ref"),
    ("table_cols", "table"),
    ("human_from_table", "table"),
    ("human_cols", "human"),
    ("scores_cols", "scores"),
    ("lower_is_better", "scores|mtme"),
    ("human_direction", "human|human_from_table|judgments|mtme|ratings"),
    ("mqm_weights", "ratings|mtme"),
    ("ratings_seg_offset", "ratings"),
    ("lp", "mtme"),
    ("mtme_set", "mtme"),
    ("mtme_ref", "mtme"),
    ("mtme_human", "mtme"),
    ("mtme_refs_as_systems", "mtme"),
    ("mtme_metrics", "mtme"),
    ("no_mtme_metrics", "mtme"),
    ("rater_col", "judgments"),
    ("system_col", "judgments"),
    ("item_cols", "judgments"),
    ("score_cols", "judgments"),
    ("drop_first", "judgments"),
    ("iqr", "judgments"),
    ("no_fences", "judgments"),
    ("no_zscore", "judgments"),
    ("average_repeats", "judgments"),
    ("flag_outlier_systems", "judgments"),
    ("outlier_threshold", "judgments"),
)
"""(option, the option it needs — or one of several, separated by ``|``): without it, the first would be ignored."""


_FLAGS_OF_OTHER_NAME = {"average_repeats": "--no-average-repeats"}


def option_name(dest: str) -> str:
    """``"sys_dir"`` → ``"--sys-dir"`` (the flag that sets an argparse destination)."""
    return _FLAGS_OF_OTHER_NAME.get(dest) or "--" + dest.replace("_", "-")


def _given(args: argparse.Namespace, dest: str) -> bool:
    return getattr(args, dest, None) not in (None, [], "")


def check_option_combinations(args: argparse.Namespace) -> None:
    """Refuse option pairs of :data:`CONFLICTING_OPTIONS` given together and options of :data:`REQUIRED_WITH`
    given without the option they need (the message names both)."""
    for first, second in CONFLICTING_OPTIONS:
        if _given(args, first) and _given(args, second):
            raise InputError(option_name(first), f"cannot be combined with {option_name(second)} "
                             f"({option_name(second)} would be ignored); give one of them")
    for option, needed in REQUIRED_WITH:
        alternatives = needed.split("|")
        if _given(args, option) and not any(_given(args, n) for n in alternatives):
            names = " or ".join(option_name(n) for n in alternatives)
            raise InputError(option_name(option), f"needs {names} (without it, {option_name(option)} would be ignored)")


def check_run_numbers(args: argparse.Namespace) -> None:
    """Range checks of the numeric options of ``run`` (and of ``profile``, which has some of them; each message names
    its option)."""
    bounds = (("bootstrap", 0), ("spa_permutations", 0), ("ar_trials", 0), ("spm_vocab", 1), ("jobs", 1))
    for dest, low in bounds:
        value = getattr(args, dest, None)
        if value is not None and value < low:
            raise InputError(option_name(dest), f"must be {low} or more, got {value}")
    if not 0 <= args.seed <= SEED_MAX:
        raise InputError("--seed", f"must be between 0 and {SEED_MAX} (numpy's seed range), got {args.seed}")


def check_mqm_weights(args: argparse.Namespace) -> None:
    """``--mqm-weights`` must parse (InputError naming the option and the bad item)."""
    spec = getattr(args, "mqm_weights", None)
    if spec is not None:
        try:
            parse_weights(spec)
        except ValueError as err:
            raise InputError("--mqm-weights", str(err)) from None


def check_names(option: str, names: Sequence[str], known: Sequence[str], what: str) -> None:
    """Refuse a name of ``names`` not in ``known`` (``unknown <what> 'x'; <what>s are …``) or named twice."""
    seen: set[str] = set()
    for name in names:
        if name not in known:
            raise InputError(option, f"unknown {what} {name!r}; {what}s are {', '.join(known)}")
        if name in seen:
            raise InputError(option, f"{what} {name!r} is named twice; name each {what} once")
        seen.add(name)


def check_level_names(option: str | None) -> None:
    """``--levels``: known level names, each once, or ``all`` alone (InputError naming the option)."""
    names = [t.strip() for t in (option or "").split(",") if t.strip()]
    check_names("--levels", names, (*level_names(), ALL_LEVELS), "token level")
    try:
        check_all_alone(names)
    except ValueError as err:
        raise InputError("--levels", str(err)) from None


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((kind for test, kind in kinds if test(mode)), "not a regular file")


def check_regular_file(path: str | os.PathLike[str], option: str) -> None:
    """Refuse ``path`` when it exists but is not a regular file (after following symlinks), without opening it.

    A missing path passes: the reader reports it as not found.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise InputError(str(path), f"{option} names {_file_kind(mode)}, not a regular file; refused without reading it")


def system_spec_path(spec: str) -> str:
    """The file of a ``--sys`` value: ``NAME=FILE`` → ``FILE``; a bare ``FILE`` → itself."""
    name, sep, path = spec.partition("=")
    return path if sep else spec


def _input_paths(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """(path, option) for every input file named on the command line (``run`` or ``qc``)."""
    for dest in ("ref", "sys", "table", "human", "judgments", "scores", "spm_model", "ratings"):
        value = getattr(args, dest, None)
        for item in value if isinstance(value, list) else [value] if value else []:
            yield (system_spec_path(item) if dest == "sys" else item), option_name(dest)


def check_input_files(args: argparse.Namespace) -> None:
    """:func:`check_regular_file` for every input file option of ``args``; ``--mtme`` may also be a directory."""
    for path, option in _input_paths(args):
        check_regular_file(path, option)
    folder = getattr(args, "mtme", None)
    if folder and not Path(folder).is_dir():
        check_regular_file(folder, "--mtme")


def sys_dir_files(directory: str) -> tuple[list[Path], str | None]:
    """The ``*.txt`` files of a ``--sys-dir`` directory (sorted) and a note naming the other entries skipped.

    Raises :class:`InputError` when the directory is missing or a ``*.txt`` entry is not a regular file.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(directory, "system directory not found")
    chosen = sorted(folder.glob("*.txt"))
    for path in chosen:
        check_regular_file(path, "--sys-dir")
    taken = set(chosen)
    skipped = sorted(p.name for p in folder.iterdir() if p not in taken)
    note = f"--sys-dir {directory}: skipped: {', '.join(skipped)} (not *.txt)" if skipped else None
    return chosen, note
