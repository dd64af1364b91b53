"""The top-level modules' imports (import-linter, run by .ci/run with the contracts in pyproject.toml, takes
packages only): the page and the CLI talk to the judge, never to the detectors, rules or renderer directly."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = {"ui", "judge", "ledger", "vision", "calibration", "scoring", "geometry", "synth", "core", "components",
           "tools", "tests"}


def _imports(path: Path) -> list[tuple[str, str]]:
    """(project package imported, enclosing top-level function or "") for every import in a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for top in tree.body:
        where = top.name if isinstance(top, ast.FunctionDef) else ""
        for node in ast.walk(top):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            out += [(n.split(".")[0], where) for n in names if n.split(".")[0] in PRODUCT]
    return out


def test_the_page_imports_only_ui_judge_ledger_core():
    used = {pkg for pkg, _ in _imports(ROOT / "app.py")}
    assert used <= {"ui", "judge", "ledger", "core"}, used


def test_the_cli_uses_the_renderer_only_to_render_and_bench():
    found = _imports(ROOT / "cli.py")
    assert {pkg for pkg, _ in found} <= {"judge", "ledger", "calibration", "core", "synth"}
    assert {where for pkg, where in found if pkg == "synth"} <= {"cmd_render", "cmd_bench"}
