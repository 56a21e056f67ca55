"""Accelerator targets read from `accel` IR, and the registry of the loaded ones.

`load(FILE)` parses and verifies a file of `accel.target` ops (errors are located diagnostics),
turns each into an `AccelTarget` (plain data the backend and the schedules read), registers its
memories as te storage scopes and its intrinsics as tensor intrinsics, and returns it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from xtvm.dialects import accel
from xtvm.ir.diagnostics import DiagnosticError, SourceFile
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.symbols import check_symbol, quoted
from xtvm.ir.verify import located_error, verify_or_raise


@dataclass(frozen=True)
class Memory:
    """An on-chip memory: `size` bytes, buffers aligned to `align` bytes, of `dtype` elements."""

    name: str
    size: int
    align: int
    element_type: Attribute
    dtype: str

    @property
    def element_bytes(self) -> int:
        return accel.element_bytes(self.element_type)


@dataclass(frozen=True)
class Dma:
    """`function(dst, src, rows, cols, dst_stride, src_stride)` copying into (`load`) or out of
    (`store`) memory `scope`."""

    function: str
    direction: str
    scope: str


@dataclass(frozen=True)
class Intrinsic:
    """A tensor intrinsic: its semantics (the `accel.intrin` op), scopes and extern functions."""

    name: str
    body: str
    reset: str | None
    update: str | None
    in_scopes: tuple[str, ...]
    out_scopes: tuple[str, ...]
    op: accel.IntrinOp

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(f for f in (self.body, self.reset, self.update) if f is not None)


@dataclass
class AccelTarget:
    """An accelerator as the compiler sees it; `header` is resolved against the target file."""

    name: str
    memories: dict[str, Memory]
    dmas: dict[tuple[str, str], Dma]
    intrinsics: dict[str, Intrinsic]
    header: Path | None = None
    source: Path | None = None
    op: accel.TargetOp | None = field(default=None, repr=False)

    def dma(self, direction: str, scope: str) -> Dma | None:
        return self.dmas.get((direction, scope))

    @property
    def functions(self) -> set[str]:
        """Every extern function the target provides (its header declares them)."""
        names = {d.function for d in self.dmas.values()}
        for intrinsic in self.intrinsics.values():
            names.update(intrinsic.functions)
        return names

    @staticmethod
    def from_op(op: accel.TargetOp, directory: Path | None = None) -> AccelTarget:
        memories = {
            m.memory_name.data: Memory(
                m.memory_name.data,
                m.size.value.data,
                m.align.value.data,
                m.element_type,
                str(numpy_dtype(m.element_type)),
            )
            for m in op.memories()
        }
        dmas: dict[tuple[str, str], Dma] = {}
        intrinsics: dict[str, Intrinsic] = {}
        for child in op.body.block.ops:
            if isinstance(child, accel.DmaOp):
                dma = Dma(child.function.data, child.direction.data, child.scope.data)
                dmas[(dma.direction, dma.scope)] = dma
            elif isinstance(child, accel.IntrinOp):
                intrinsics[child.intrin_name.data] = Intrinsic(
                    child.intrin_name.data,
                    child.body_fn.data,
                    None if child.reset_fn is None else child.reset_fn.data,
                    None if child.update_fn is None else child.update_fn.data,
                    tuple(accel.names_of(child.in_scopes)),
                    tuple(accel.names_of(child.out_scopes)),
                    child,
                )
        header = None
        if op.header is not None:
            header = Path(op.header.data)
            if directory is not None and not header.is_absolute():
                header = directory / header
        return AccelTarget(op.sym_name.data, memories, dmas, intrinsics, header, None, op)


TARGETS: dict[str, AccelTarget] = {}


def check_names(target: AccelTarget) -> None:
    """Refuse a target whose names could not be written into C as they are: the generated code
    names its scratchpads `<target>_<memory>` and calls its DMA and intrinsic functions, and
    includes its header. Errors are located at the op declaring the name, when there is one."""
    ops: dict[str, Operation] = {}
    if target.op is not None:
        for op in target.op.body.block.ops:
            if isinstance(op, accel.MemoryOp):
                ops.setdefault(f"memory {op.memory_name.data}", op)
            elif isinstance(op, accel.DmaOp):
                ops.setdefault(f"function {op.function.data}", op)
            elif isinstance(op, accel.IntrinOp):
                for fn in (op.body_fn, op.reset_fn, op.update_fn):
                    if fn is not None:
                        ops.setdefault(f"function {fn.data}", op)
    check_symbol(target.name, "accel target name", target.op)
    for memory in target.memories:
        where = ops.get(f"memory {memory}", target.op)
        check_symbol(memory, "accel memory name", where)
    for function in sorted(target.functions):
        check_symbol(function, "accel function name", ops.get(f"function {function}", target.op))
    header = str(target.header) if target.header is not None else ""
    if any(c in '"<>' or not c.isprintable() for c in header):
        message = f"accel target header path {quoted(header)} cannot be written in an #include"
        if target.op is None:
            raise DiagnosticError.at(None, message)
        raise located_error(target.op, message)


def get_target(name: str) -> AccelTarget:
    """A loaded target by name."""
    if name not in TARGETS:
        known = ", ".join(sorted(TARGETS)) or "none loaded"
        raise KeyError(f"unknown accel target '{name}' (targets: {known})")
    return TARGETS[name]


def registered_targets() -> list[str]:
    return sorted(TARGETS)


def parse_targets(path: str | Path) -> list[accel.TargetOp]:
    """The verified `accel.target` ops of a file; errors are located diagnostics."""
    from xtvm.dialects.registry import default_context

    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        message = f"cannot open target file '{path}': {exc.strerror}"
        raise DiagnosticError.at(None, message) from None
    source = SourceFile(str(path), text)
    module = default_context().parse(text, str(path))
    verify_or_raise(module, {source.name: source})
    assert isinstance(module, ModuleOp)
    ops = [op for op in module.ops if isinstance(op, accel.TargetOp)]
    if not ops:
        raise DiagnosticError.at(None, f"target file '{path}' holds no accel.target")
    return ops
