"""The README for a first-time user: at most 200 lines, and its Python example runs as written on the bundled sample.

The example is run in a subprocess from a temporary directory holding a copy of ``sample_data/`` (the README runs it
from the repository root), so everything it writes (``out/``) lands in the test's ``tmp_path``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 200
MAX_EXAMPLE_LINES = 10


def python_examples(text: str) -> list[str]:
    """The README's fenced ``python`` code blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES} (detail goes to docs/)"


def test_readme_python_example_runs_as_written(tmp_path):
    examples = python_examples(README.read_text(encoding="utf-8"))
    assert examples, "README.md shows no ```python example"
    example = examples[0]
    assert len(example.splitlines()) <= MAX_EXAMPLE_LINES, example
    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
        "PYTHONDONTWRITEBYTECODE": "1",  # nothing written into the checkout
    }
    done = subprocess.run(
        [sys.executable, "-"], input=example, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    for system in ("sys_strong", "sys_weak"):
        assert system in done.stdout
    written = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"system_scores.csv", "segment_scores.csv", "correlations.csv", "significance.csv"} <= written
