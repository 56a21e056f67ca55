"""Loading accelerator targets: a file of `accel.target` ops registered by name, its memories
made te storage scopes and its intrinsics tensor intrinsics."""

from __future__ import annotations

from pathlib import Path

from xtvm.dialects import te
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.target.accel import TARGETS, AccelTarget, check_names, parse_targets
from xtvm.target.tensorize import register_target_intrinsics


def register(target: AccelTarget) -> None:
    """Make `target` known by name; its memories become te storage scopes, its intrinsics
    tensor intrinsics (`s[C].tensorize(axis, "name")`).

    Loading the same file again replaces the target; another definition of a registered name
    is an error.
    """
    check_names(target)
    known = TARGETS.get(target.name)
    if known is not None and known.source != target.source:
        raise DiagnosticError.at(
            None,
            f"accel target '{target.name}' is already registered (from {known.source or 'Python'})",
        )
    for scope in target.memories:
        te.register_memory_scope(scope)
    TARGETS[target.name] = target
    register_target_intrinsics(target)


def load_all(path: str | Path) -> list[AccelTarget]:
    """Register every target of a file of accel IR."""
    file = Path(path).resolve()
    targets = []
    for op in parse_targets(path):
        target = AccelTarget.from_op(op, file.parent)
        target.source = file
        register(target)
        targets.append(target)
    return targets


def load(path: str | Path) -> AccelTarget:
    """Register the target of a file holding one `accel.target`, and return it."""
    targets = load_all(path)
    if len(targets) != 1:
        names = ", ".join(t.name for t in targets)
        raise DiagnosticError.at(
            None, f"target file '{path}' holds {len(targets)} targets ({names}); use load_all"
        )
    return targets[0]
