"""Running korean-eval's command line in the tests: options for a fast run, and three short reference lines with
two systems' outputs written as text files; the one ``error: …`` line a refusal prints."""

from __future__ import annotations

from pathlib import Path

#: Options of a fast run: one level, one metric, no resampling, no cache, nothing printed but errors.
FAST = ["--levels", "char", "--metrics", "bleu", "--bootstrap", "0", "--spa-permutations", "0", "--no-cache",
        "--quiet", "--jobs", "1"]
REF = ["가나다 라마", "바사 아자차", "카타 파하"]
SYSTEMS = {"a": ["가나다 라마", "바사 아자", "카 파하"], "b": ["가나 라마바", "사 아자차", "카타 파"]}


def write_texts(folder: Path) -> tuple[Path, dict[str, Path]]:
    """:data:`REF` and :data:`SYSTEMS` written into ``folder`` (made here): the reference's path, each system's."""
    folder.mkdir(parents=True, exist_ok=True)
    ref = folder / "ref.txt"
    ref.write_text("\n".join(REF) + "\n", encoding="utf-8")
    systems = {}
    for name, lines in SYSTEMS.items():
        systems[name] = folder / f"{name}.txt"
        systems[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ref, systems


def error_line(capsys) -> str:
    """The one ``error:`` line on stderr (asserts there is exactly one and no traceback)."""
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]
