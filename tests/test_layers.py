"""The package's layering holds: no import cycle and no upward import (xtvm/testing/layers.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from xtvm.testing.layers import (
    LAYERS,
    ImportGraph,
    cycles,
    import_graph,
    layer_of,
    package_dir,
    upward_imports,
)


@pytest.fixture(scope="module")
def graph() -> ImportGraph:
    return import_graph(package_dir())


def test_no_import_cycles(graph: ImportGraph) -> None:
    assert cycles(graph) == []


def test_no_upward_imports(graph: ImportGraph) -> None:
    assert upward_imports(graph) == []


def test_every_folder_has_a_layer(graph: ImportGraph) -> None:
    for module in graph.files:
        layer_of(module)  # KeyError names a folder missing from LAYERS


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "xtvm"


def test_the_check_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    package = write(
        tmp_path,
        {
            "xtvm/__init__.py": "",
            "xtvm/ir/__init__.py": "",
            "xtvm/ir/a.py": "from xtvm.ir.b import f\n",
            "xtvm/ir/b.py": "def f():\n    from xtvm.ir import a\n",
        },
    )
    assert cycles(import_graph(package)) == [["xtvm.ir.a", "xtvm.ir.b"]]


def test_the_check_finds_upward_imports_lazy_relative_and_by_name(tmp_path: Path) -> None:
    package = write(
        tmp_path,
        {
            "xtvm/__init__.py": "",
            "xtvm/runtime/__init__.py": "",
            "xtvm/runtime/m.py": (
                "import importlib\n"
                "def f():\n"
                "    from ..api import nd\n"
                "    return importlib.import_module('xtvm.driver.build')\n"
            ),
            "xtvm/api/__init__.py": "",
            "xtvm/api/nd.py": "from xtvm.runtime import m\n",
            "xtvm/driver/__init__.py": "",
            "xtvm/driver/build.py": "",
        },
    )
    found = import_graph(package)
    assert upward_imports(found) == [
        ("xtvm.runtime.m", "xtvm.api.nd"),
        ("xtvm.runtime.m", "xtvm.driver.build"),
    ]
    assert cycles(found) == [["xtvm.api.nd", "xtvm.runtime.m"]]


def test_layers_match_the_folders_on_disk() -> None:
    root = package_dir()
    folders = {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in package_dir().glob("*.py") if p.stem != "__init__"}
    declared = {name for layer in LAYERS for name in layer}
    assert folders | modules == declared
    # every module parses: the check reads them all
    for path in package_dir().rglob("*.py"):
        ast.parse(path.read_text())
