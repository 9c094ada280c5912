"""The bundled sample evaluation set (``sample_data/``): the default data of the CLI examples and the dashboard.

Its human scores are simulated (see ``sample_data/README.md``); every screen that shows them says so.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from korean_eval.inputs.tables import attach_human
from korean_eval.model.evalset import EvalSet, evalset_from_texts

_PACKAGE = Path(__file__).resolve().parents[1]
# an installed copy has the sample inside the package (pyproject.toml: korean_eval.sample_data); a checkout beside it
SAMPLE_DIR = _PACKAGE / "sample_data" if (_PACKAGE / "sample_data").is_dir() else _PACKAGE.parent / "sample_data"
SAMPLE_NOTE = "Sample data: human scores are SIMULATED from the errors each system makes (sample_data/README.md)."


def sample_files(directory: Path = SAMPLE_DIR) -> dict[str, object]:
    """Paths of the sample files: ``ref``, ``systems`` (sorted list), ``human``, ``src`` (may be None)."""
    src = directory / "src.txt"
    return {
        "ref": directory / "ref.txt",
        "systems": sorted((directory / "systems").glob("*.txt")),
        "human": directory / "human.tsv",
        "src": src if src.exists() else None,
    }


def load_sample(directory: Path = SAMPLE_DIR) -> EvalSet:
    """Load the sample set with its (simulated) human scores."""
    files = sample_files(directory)
    ref = files["ref"]
    src = files["src"]
    evalset = evalset_from_texts(
        [(ref.name, ref.read_bytes())],
        [(p.name, p.read_bytes()) for p in files["systems"]],
        src=(src.name, src.read_bytes()) if src else None,
    )
    human = files["human"]
    attach_human(evalset, human.read_bytes(), human.name)
    evalset.human_note = SAMPLE_NOTE
    return evalset


@functools.lru_cache(maxsize=1)
def shared_sample() -> EvalSet:
    """The bundled sample (:func:`load_sample`), loaded once for the whole process and shared: the dashboard's, which
    never changes it (a caller that would must load its own with :func:`load_sample`)."""
    return load_sample()


def sample_segments(indices: Sequence[int], directory: Path = SAMPLE_DIR) -> EvalSet:
    """The sample set (:func:`load_sample`) restricted to the segments at ``indices``, in that order: their ids,
    references, sources, every system's hypotheses and their human scores (e.g. a quick evaluation on part of it)."""
    sample = load_sample(directory)
    seg_ids = [sample.seg_ids[i] for i in indices]
    human = sample.human[sample.human["seg_id"].isin(set(seg_ids))].reset_index(drop=True)
    return EvalSet(
        seg_ids=seg_ids,
        refs=[[stream[i] for i in indices] for stream in sample.refs],
        systems={name: [hyps[i] for i in indices] for name, hyps in sample.systems.items()},
        human=human,
        src=[sample.src[i] for i in indices] if sample.src is not None else None,
        human_note=sample.human_note,
    )

