"""Helpers for pass tests: lit files' cases, passes run with the verifier after each, op
counts."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtvm.dialects.registry import default_context
from xtvm.ir.printer import print_ir
from xtvm.ir.verify import verify_diagnostics

CTX = default_context()


def lit_cases(path: Path) -> list[str]:
    """The `// -----` pieces of the lit file `path` (each case of a pass's lit file)."""
    return path.read_text().split("// -----")


def run(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    """Apply `passes` in order; the module must verify after each (its text on failure)."""
    for p in passes:
        p.apply(CTX.xdsl_context, module)
        assert verify_diagnostics(module, {}) == [], print_ir(module, CTX)
    return module


def count(module: ModuleOp, op_type: type) -> int:
    """How many ops of `op_type` the module holds, nested ones included."""
    return sum(isinstance(op, op_type) for op in module.walk())


def assert_same_tir_behaviour(
    before: ModuleOp, after: ModuleOp, rtol: float = 1e-6, atol: float = 0.0, seed: int = 0
) -> None:
    """Every function of `before` writes the same buffers in `after`, on random inputs.

    Both run on the tir interpreter; floating-point warnings are silenced (a log of a
    negative input is NaN on both sides, and NaN compares equal in assert_allclose).
    """
    import numpy as np
    from xdsl.dialects import func

    from xtvm.runtime.tir_interpreter import compile_module, random_arguments

    rng = np.random.default_rng(seed)
    reference, result = compile_module(before), compile_module(after)
    for function in before.walk():
        if not isinstance(function, func.FuncOp) or not function.body.blocks:
            continue
        name = function.sym_name.data
        expected = random_arguments(function, rng)
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in expected]
        with np.errstate(all="ignore"):
            reference(name, *expected)
            result(name, *actual)
        for e, a in zip(expected, actual, strict=True):
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=f"@{name}")


def kernel_argument_shapes(kernels: ModuleOp) -> list[tuple[int, ...]]:
    """The shapes of every argument of the kernels in `kernels` (what relay.build passes)."""
    return [
        tuple(arg.type.get_shape())  # type: ignore[attr-defined]
        for f in kernels.body.block.ops
        for arg in f.body.block.args  # type: ignore[attr-defined]
    ]
