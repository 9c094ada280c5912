"""Error-span ratings of short Korean texts given on the command line: a reference, three systems' outputs (written as
text files by :func:`texts`) and a Google MQM TSV rating two of the systems (:func:`google_tsv`)."""

from __future__ import annotations

from pathlib import Path

#: Options of a fast run with ratings: one level, one metric, a short bootstrap, no cache, nothing printed but errors.
FAST = ["--levels", "char", "--metrics", "chrf", "--bootstrap", "30", "--spa-permutations", "10", "--jobs", "1",
        "--no-cache", "--quiet"]
REF = ["나는 학교에 간다.", "오늘 날씨가 좋다.", "그는 책을 읽었다.", "비가 온다."]
HYPS = {"sysA": ["나는 학교에 간다.", "오늘 날씨 좋다.", "그는 책을 읽는다.", "비 온다."],
        "sysB": ["나 학교 간다", "오늘은 날씨가 좋네요.", "He read a book.", "비가 온다."],
        "sysC": ["학교 간다", "날씨 좋다", "책 읽었다", "비."]}


def texts(tmp_path: Path) -> list[str]:
    """:data:`REF` and :data:`HYPS` written into ``tmp_path``; the arguments of ``korean-eval run`` that read them."""
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    args = ["--ref", str(tmp_path / "ref.txt")]
    for name, lines in HYPS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        args += ["--sys", f"{name}={tmp_path / f'{name}.txt'}"]
    return args


#: The systems the TSV rates (the command line's texts also have sysC, not rated).
RATED_HYPS = {name: HYPS[name] for name in ("sysA", "sysB")}
#: The sources of the TSV's rows.
SRC = ["I go to school.", "The weather is nice today.", "He read a book.", "It is raining."]
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
#: (system, 0-based segment, marked target, category, severity): one error or a no-error row per item.
ERRORS = [
    ("sysA", 0, "나는 학교에 간다.", "No-error", "No-error"),
    ("sysA", 1, "오늘 <v>날씨</v> 좋다.", "Accuracy/Omission", "Major"),
    ("sysA", 2, "그는 책을 <v>읽는다</v>.", "Fluency/Grammar", "Minor"),
    ("sysA", 3, "<v>비</v> 온다.", "Fluency/Grammar", "Minor"),
    ("sysB", 0, "<v>나</v> 학교 간다", "Fluency/Grammar", "Minor"),
    ("sysB", 1, "오늘은 날씨가 <v>좋네요</v>.", "Style/Register", "Minor"),
    ("sysB", 2, "He read a book.", "Non-translation!", "Major"),
    ("sysB", 3, "비가 온다.", "No-error", "No-error"),
]


def google_tsv(rows=ERRORS, first: int = 1) -> bytes:
    """Google's MQM TSV: seg_id numbered from ``first`` (Google's files: 1)."""
    lines = [f"{s}\tnews\t1\t{i + first}\trater1\t{SRC[i]}\t{t}\t{c}\t{v}\n" for s, i, t, c, v in rows]
    return (HEADER + "".join(lines)).encode()
