"""xtvm's process-wide registries, so that tests can snapshot, compare and restore them.

Registration is global (TVM's `register_op_attr`, `register_func`, codegens, accel targets,
tensor intrinsics, storage scopes, lowering rules): a test that registers something and does
not take it back changes what every later test sees, and the suite then passes or fails by
test order. `tests/conftest.py` snapshots every table here around each test and each test
module, restores them, and fails the test that left one changed.

Some modules register at import (the dnnl codegen claims its ops when imported), so what a
snapshot holds would depend on which modules earlier tests happened to import;
`import_all` imports every xtvm module first, making those registrations part of the baseline.
"""

from __future__ import annotations

import importlib
import pkgutil
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Registry:
    """A module-level dict or set that registration functions fill."""

    module: str
    attribute: str

    @property
    def name(self) -> str:
        return f"{self.module}.{self.attribute}"

    def table(self) -> dict[Any, Any] | set[Any]:
        return getattr(importlib.import_module(self.module), self.attribute)

    def snapshot(self) -> dict[Any, Any] | frozenset[Any]:
        """A copy of the table (dict values that are dicts copied too: codegen -> op -> f)."""
        table = self.table()
        if isinstance(table, set):
            return frozenset(table)
        return {k: dict(v) if isinstance(v, dict) else v for k, v in table.items()}

    def restore(self, saved: dict[Any, Any] | frozenset[Any]) -> None:
        """Put the table back as `saved`, in place (other modules hold the same object)."""
        table = self.table()
        table.clear()
        if isinstance(table, set):
            table.update(saved)
        else:
            assert isinstance(saved, dict)
            table.update({k: dict(v) if isinstance(v, dict) else v for k, v in saved.items()})


REGISTRIES: tuple[Registry, ...] = (
    # TVM's op attributes: codegen -> op name -> predicate (relay-annotate-target).
    Registry("xtvm.passes.byoc_targets", "_TABLE"),
    # Global functions (`register_func`), `relay.ext.<codegen>` among them.
    Registry("xtvm.runtime.registry", "_REGISTRY"),
    # External codegens by `compiler` name.
    Registry("xtvm.backends.external", "_CODEGENS"),
    # The accel codegen's offload default and per-target runtime sources.
    Registry("xtvm.backends.external.accel", "_OFFLOAD"),
    Registry("xtvm.backends.external.accel", "_RUNTIMES"),
    # Loaded accel targets, their tensor intrinsics and storage scopes.
    Registry("xtvm.target.accel", "TARGETS"),
    Registry("xtvm.te.intrinsic_registry", "_INTRINSICS"),
    Registry("xtvm.dialects.te", "MEMORY_SCOPES"),
    # Functions a `tir.call_extern` may name in the tir interpreter.
    Registry("xtvm.runtime.tir_interpreter", "EXTERN_FUNCTIONS"),
    # Per-op rules that decorators fill at import: evaluation, layout, codegen, bounds, TOPI
    # strategies, ONNX converters, and the pass table.
    Registry("xtvm.runtime.relay_interpreter", "RULES"),
    Registry("xtvm.passes.relay_convert_layout", "RULES"),
    Registry("xtvm.backends.llvm.codegen", "RULES"),
    Registry("xtvm.passes.tir_bounds", "RULES"),
    Registry("xtvm.topi.strategy", "STRATEGIES"),
    Registry("xtvm.frontends.onnx.converters", "CONVERTERS"),
    # Auto-scheduler workloads by name (`auto_scheduler.register_workload`).
    Registry("xtvm.tuning.auto_scheduler.workload_registry", "WORKLOADS"),
    Registry("xtvm.passes", "OWN_PASSES"),
    Registry("xtvm.passes", "UPSTREAM_PASSES"),
)

Snapshot = dict[str, dict[Any, Any] | frozenset[Any]]


def import_all() -> None:
    """Import every xtvm module, so that registrations done at import are all done now."""
    import xtvm

    for info in pkgutil.walk_packages(xtvm.__path__, "xtvm."):
        importlib.import_module(info.name)


def snapshot() -> Snapshot:
    return {r.name: r.snapshot() for r in REGISTRIES}


def restore(saved: Snapshot) -> None:
    for registry in REGISTRIES:
        registry.restore(saved[registry.name])


def equivalent(a: object, b: object) -> bool:
    """Whether two registered values are the same: identical, equal, or functions with the
    same code and the same captured values (a predicate registered again as a fresh
    `lambda _op: True` is the same registration)."""
    if a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equivalent(a[k], b[k]) for k in a)
    if isinstance(a, types.FunctionType) and isinstance(b, types.FunctionType):
        cells_a = tuple(c.cell_contents for c in a.__closure__ or ())
        cells_b = tuple(c.cell_contents for c in b.__closure__ or ())
        return (
            a.__code__ is b.__code__
            and a.__defaults__ == b.__defaults__
            and len(cells_a) == len(cells_b)
            and all(equivalent(x, y) for x, y in zip(cells_a, cells_b, strict=True))
        )
    try:
        return bool(a == b)
    except Exception:
        return False


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs between two snapshots, one line per registry and key."""
    lines = []
    for name, old in before.items():
        new = after[name]
        if isinstance(old, frozenset):
            assert isinstance(new, frozenset)
            lines += [f"{name}: added {k!r}" for k in sorted(new - old, key=repr)]
            lines += [f"{name}: removed {k!r}" for k in sorted(old - new, key=repr)]
            continue
        assert isinstance(new, dict)
        for key in sorted(old.keys() | new.keys(), key=repr):
            if key not in old:
                lines.append(f"{name}: added {key!r}")
            elif key not in new:
                lines.append(f"{name}: removed {key!r}")
            elif isinstance(old[key], dict) and isinstance(new[key], dict):
                inner = changes({f"{name}[{key!r}]": old[key]}, {f"{name}[{key!r}]": new[key]})
                lines += inner
            elif not equivalent(old[key], new[key]):
                lines.append(f"{name}: changed {key!r}")
    return lines


@contextmanager
def preserved() -> Iterator[Snapshot]:
    """Restore every registry on exit to what it was on entry (for code that registers for a
    while: a test, a fixture, one fuzz case)."""
    saved = snapshot()
    try:
        yield saved
    finally:
        restore(saved)
