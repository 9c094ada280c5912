"""The backend stays pure: no module of ``korean_eval`` imports Streamlit or the dashboard (``app``, ``launcher``,
``ui``, ``pages``), anywhere in the module — the dashboard depends on the backend, never the other way round."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "korean_eval"
DASHBOARD = {"streamlit", "app", "launcher", "ui", "pages"}


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_backend_module_imports_streamlit_or_the_dashboard(path):
    bad = [(line, name) for line, name in _imported(ast.parse(path.read_text(), str(path)))
           if name.split(".")[0] in DASHBOARD]
    assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"
