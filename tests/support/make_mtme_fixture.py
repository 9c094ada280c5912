"""A small English→Korean test set in mt-metrics-eval's layout, written into a temporary directory for the tests.

    write_fixture(tmp_path)            # → tmp_path/wmt24 (the test-set folder)
    zip_folder(tmp_path)               # → bytes of a .zip holding wmt24/...

Texts: the first :data:`N_SEGMENTS` segments of the bundled sample (``sample_data/``): its source, its reference
as ``refA``, the sample's strongest system as a second reference ``refB``, and five MT systems (four of the
sample's, plus ``sys_mix`` taking sys_literal's even and sys_weak's odd lines, and one ``[No translation
supplied]`` line); copies of both references in ``system-outputs/`` as mt-metrics-eval ships them. Documents: 5
documents in 2 domains (``news``: 18 segments, ``speech``: 18). Human scores (simulated from the texts):
``mqm`` — error penalties as counted (≥ 0, lower is better: the eojeol of the reference and the hypothesis not in
both), with ``None`` for every 7th (system, segment) pair, at seg, sys (:func:`mqm_system_scores`, not the mean of the
segment penalties) and domain level (likewise the domain's mean + 0.5 × position); ``esa`` — 100 − 4 × penalty (higher is better), seg level with other ``None`` entries. Metric scores: seg
level ``COMET-22-refA`` (higher is better), ``MetricX-24-refA`` (penalties ≥ 0, lower is better) and ``BLEU-refB``
(computed with refB), sys level ``COMET-22-refA``; reference-based metrics have no scores for the reference they
used, as in the WMT files. Everything is deterministic; nothing is downloaded.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data"
LP = "en-ko"
N_SEGMENTS = 36
#: document → (domain, number of segments), in segment order
DOCUMENTS: tuple[tuple[str, str, int], ...] = (
    ("n1", "news", 8), ("n2", "news", 6), ("n3", "news", 4), ("s1", "speech", 10), ("s2", "speech", 8),
)
MT_SYSTEMS: tuple[str, ...] = ("sys_josa", "sys_literal", "sys_mix", "sys_order", "sys_weak")
REFERENCES: tuple[str, ...] = ("refA", "refB")
NO_TRANSLATION_AT = ("sys_weak", 5)  # (system, segment) written as "[No translation supplied]"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[:N_SEGMENTS]


def texts() -> tuple[list[str], dict[str, list[str]], dict[str, list[str]]]:
    """(source, references by name, MT system outputs by name), as written (before the missing line)."""
    src = _lines(SAMPLE / "src.txt")
    refs = {"refA": _lines(SAMPLE / "ref.txt"), "refB": _lines(SAMPLE / "systems" / "sys_strong.txt")}
    systems = {name: _lines(SAMPLE / "systems" / f"{name}.txt") for name in ("sys_josa", "sys_literal", "sys_order", "sys_weak")}
    systems["sys_mix"] = [systems["sys_literal"][i] if i % 2 == 0 else systems["sys_weak"][i] for i in range(N_SEGMENTS)]
    return src, refs, dict(sorted(systems.items()))


def penalty(hyp: str, ref: str) -> float:
    """The simulated MQM penalty: eojeol in exactly one of reference and hypothesis."""
    return float(len(set(hyp.split()) ^ set(ref.split())))


def all_outputs() -> dict[str, list[str]]:
    """Every file of system-outputs/: the MT systems and the reference copies."""
    _, refs, systems = texts()
    return {**systems, **refs}


def mqm_penalties() -> dict[str, list[float | None]]:
    """Per system (incl. the reference copies), the seg-level MQM penalties with None for every 7th pair."""
    refs = texts()[1]
    out = {}
    for k, (name, hyps) in enumerate(all_outputs().items()):
        out[name] = [None if (i + k) % 7 == 3 else penalty(h, refs["refA"][i]) for i, h in enumerate(hyps)]
    out[NO_TRANSLATION_AT[0]][NO_TRANSLATION_AT[1]] = None
    return out


def mqm_system_scores() -> dict[str, float]:
    """The sys-level MQM file: the mean of the present penalties plus 0.5 × the system's position in the file (as
    if raters had also counted document-level errors), so that it differs from the mean of the segment scores."""
    return {name: _mean(values) + 0.5 * k for k, (name, values) in enumerate(mqm_penalties().items())}


def esa_scores() -> dict[str, list[float | None]]:
    refs = texts()[1]
    return {
        name: [None if (i + 2 * k) % 9 == 1 else 100.0 - 4.0 * penalty(h, refs["refA"][i]) for i, h in enumerate(hyps)]
        for k, (name, hyps) in enumerate(all_outputs().items())
    }


def domains() -> list[str]:
    return [domain for _, domain, n in DOCUMENTS for _ in range(n)]


def _score_lines(scores: dict[str, list[float | None]]) -> str:
    return "".join(f"{name}\t{'None' if v is None else repr(v)}\n" for name, values in scores.items() for v in values)


def _mean(values: list[float | None]) -> float:
    present = [v for v in values if v is not None]
    return sum(present) / len(present)


def _metric_scores(ref: str, scale: float, offset: float) -> dict[str, list[float]]:
    """offset + scale × penalty against ``ref`` (+ a small deterministic wobble), for every output but ``ref``."""
    refs = texts()[1]
    return {
        name: [round(offset + scale * penalty(h, refs[ref][i]) + ((i * 7 + k) % 5) * 0.01, 4) for i, h in enumerate(hyps)]
        for k, (name, hyps) in enumerate(all_outputs().items())
        if name != ref
    }


def write_fixture(root: Path, test_set: str = "wmt24") -> Path:
    """Write the test set into ``root/test_set`` and return that folder."""
    src, refs, _ = texts()
    base = root / test_set
    for folder in ("sources", "documents", "references", f"system-outputs/{LP}", "human-scores", f"metric-scores/{LP}"):
        (base / folder).mkdir(parents=True, exist_ok=True)
    (base / "sources" / f"{LP}.txt").write_text("\n".join(src) + "\n", encoding="utf-8")
    docs = [f"{domain}\t{doc}" for doc, domain, n in DOCUMENTS for _ in range(n)]
    (base / "documents" / f"{LP}.docs").write_text("\n".join(docs) + "\n", encoding="utf-8")
    for name, lines in refs.items():
        (base / "references" / f"{LP}.{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, lines in all_outputs().items():
        lines = list(lines)
        if name == NO_TRANSLATION_AT[0]:
            lines[NO_TRANSLATION_AT[1]] = "[No translation supplied]"
        (base / "system-outputs" / LP / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    mqm = mqm_penalties()
    human = base / "human-scores"
    (human / f"{LP}.mqm.seg.score").write_text(_score_lines(mqm), encoding="utf-8")
    (human / f"{LP}.mqm.sys.score").write_text(_score_lines({n: [v] for n, v in mqm_system_scores().items()}), encoding="utf-8")
    by_domain = "".join(
        f"{d}\t{n}\t{_mean([v for v, dd in zip(values, domains(), strict=True) if dd == d]) + 0.5 * k!r}\n"
        for k, (n, values) in enumerate(mqm.items()) for d in ("news", "speech")
    )
    (human / f"{LP}.mqm.domain.score").write_text(by_domain, encoding="utf-8")
    (human / f"{LP}.esa.seg.score").write_text(_score_lines(esa_scores()), encoding="utf-8")
    metrics = base / "metric-scores" / LP
    comet = _metric_scores("refA", -0.03, 0.95)
    (metrics / "COMET-22-refA.seg.score").write_text(_score_lines(comet), encoding="utf-8")
    (metrics / "COMET-22-refA.sys.score").write_text(_score_lines({n: [_mean(v)] for n, v in comet.items()}), encoding="utf-8")
    (metrics / "MetricX-24-refA.seg.score").write_text(_score_lines(_metric_scores("refA", 0.5, 0.1)), encoding="utf-8")
    (metrics / "BLEU-refB.seg.score").write_text(_score_lines(_metric_scores("refB", -2.0, 60.0)), encoding="utf-8")
    return base


def zip_folder(root: Path) -> bytes:
    """Every file under ``root`` in a zip archive (paths relative to ``root``)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(root).as_posix())
    return buf.getvalue()
