"""The package's layering, checked: every import points down, and no module is in a cycle.

Each folder of `xtvm/` is one layer (`LAYERS`, lowest first). A module may import modules of
its own layer or of layers below it; imports inside functions count the same as top-level
ones (a lazy import is still a dependency), and so does a string naming a module of the
package (what `importlib.import_module` would load). `python -m xtvm.testing.layers` prints
the import graph's figures and every violation; tests/test_layers.py keeps both at zero.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Lowest first. A folder (or top-level module) missing here is an error, so a new folder
# has to be placed deliberately.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("ir",),
    ("dialects",),
    ("runtime",),
    ("te",),
    ("topi",),
    ("passes",),
    ("target",),
    ("backends",),
    ("driver",),
    ("frontends",),
    ("rpc",),
    ("tuning",),
    ("api",),
    ("contrib",),
    ("exec", "onnx_backend", "testing", "tools"),
)


@dataclass
class ImportGraph:
    """Modules of the package (dotted names) and the package modules each one imports."""

    files: dict[str, Path]
    edges: dict[str, set[str]] = field(default_factory=dict)


def modules(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under `package_dir`."""
    found: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported(
    module: str, path: Path, node: ast.Import | ast.ImportFrom, files: dict[str, Path]
) -> Iterator[str]:
    """The names an import statement depends on: `from p import m` is the module `p.m` when
    there is one, else `p` itself."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([node.module] if node.module else [])])
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base


def import_graph(package_dir: Path) -> ImportGraph:
    """The graph of imports between the package's modules, function-level imports included."""
    graph = ImportGraph(modules(package_dir))
    for module, path in graph.files.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value in graph.files and "." in node.value and node.value != module:
                    targets.add(node.value)
                continue
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in _imported(module, path, node, graph.files):
                while name and name not in graph.files:
                    name = name.rpartition(".")[0]
                if name and name != module:
                    targets.add(name)
        graph.edges[module] = targets
    return graph


def cycles(graph: ImportGraph) -> list[list[str]]:
    """The strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph.files:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.edges[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer_of(module: str) -> int:
    """The layer index of a module. The package itself (TVM's names on first use: `tvm.relay`,
    `tvm.cpu`) is in the top layer, with the tools."""
    parts = module.split(".")
    if len(parts) == 1:
        return len(LAYERS) - 1
    for rank, folders in enumerate(LAYERS):
        if parts[1] in folders:
            return rank
    raise KeyError(f"{module}: its folder {parts[1]!r} is in no layer of xtvm.testing.layers")


def upward_imports(graph: ImportGraph) -> list[tuple[str, str]]:
    """(importer, imported) pairs where the imported module sits in a higher layer."""
    return sorted(
        (module, target)
        for module, targets in graph.edges.items()
        for target in targets
        if layer_of(target) > layer_of(module)
    )


def package_dir() -> Path:
    """The `xtvm` package directory this module belongs to."""
    return Path(__file__).resolve().parents[1]


def main() -> int:
    graph = import_graph(package_dir())
    found = cycles(graph)
    upward = upward_imports(graph)
    edges = sum(len(targets) for targets in graph.edges.values())
    print(f"{len(graph.files)} modules, {edges} import edges")
    print(f"{sum(map(len, found))} modules in {len(found)} import cycles")
    for component in found:
        print(f"  cycle of {len(component)}: {', '.join(component)}")
    print(f"{len(upward)} upward imports")
    for module, target in upward:
        print(f"  {module} -> {target}")
    return 1 if found or upward else 0


if __name__ == "__main__":
    sys.exit(main())
