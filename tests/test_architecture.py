"""The package's shape: its layers hold (import-linter), no two modules import each other in a cycle, and the
"where things live" map in CONTRIBUTING (both languages) names exactly the layers, in their order."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[1]
CONTRIBUTING = {"en": REPO / "CONTRIBUTING.md", "zh": REPO / "CONTRIBUTING.zh.md"}


def layers() -> list[list[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def test_the_import_contracts_hold():
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports"))], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_two_modules_import_each_other_in_a_cycle():
    graph = grimp.build_graph("handbook")
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(importer=imported, imported=module):
                cycles.append((module, imported))
    assert cycles == []


def test_every_subpackage_sits_in_a_layer():
    packages = {f"handbook.{p.name}" for p in (REPO / "handbook").iterdir() if (p / "__init__.py").is_file()}
    assert packages == {name for layer in layers() for name in layer}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_contributing_map_names_the_layers_in_order(lang):
    text = CONTRIBUTING[lang].read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`handbook/[^|]+)\|", text, re.M)
    mapped = [[name.replace("/", ".") for name in re.findall(r"`(handbook/\w+)`", row)] for row in rows]
    assert mapped == layers()


@pytest.mark.slow
def test_help_and_validate_import_neither_renderers_nor_graphviz():
    probe = (
        "import sys, contextlib, io\n"
        "from handbook.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        "    main(['validate'])\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('handbook.render', 'handbook.diagrams', 'graphviz', 'mkdocs')))\n"
        "print(bad)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def private_names_used_across_modules(package: Path) -> list[str]:
    """``from handbook.x import _name`` and ``x._name`` on an imported handbook module, in every module."""
    import ast

    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handbook"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.module}.{alias.name}")
                    modules.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_name():
    assert private_names_used_across_modules(REPO / "handbook") == []
    assert private_names_used_across_modules(REPO / "hooks") == []
