"""`tvm.lower` and `tvm.build`: a te schedule lowered to tir, or compiled (from a schedule or an
already lowered module) into a runtime module."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp

from xtvm.driver.relay_graph import ModuleLike, module_of
from xtvm.passes.tir_tensorize import lower_schedule
from xtvm.runtime.module import Module
from xtvm.te.expr import Tensor, Var
from xtvm.te.schedule import Schedule

CPU_TARGETS = ("llvm", "cpu")
SOURCE_TARGETS = ("c", "cuda")


def lower(
    s: Schedule,
    args: Sequence[Tensor | Var],
    name: str = "main",
    binds: object = None,
    simple_mode: bool = False,
) -> ModuleOp:
    """The tir kernel of schedule `s`, its buffers the arguments in order (`tvm.lower`)."""
    if binds:
        raise ValueError("lower: binds are not supported")
    return lower_schedule(s, args, name)


def build(
    inputs: Schedule | ModuleLike,
    args: Sequence[Tensor] | None = None,
    target: str | None = "llvm",
    name: str = "default_function",
) -> Module:
    """Compile `inputs` for `target`: `f = tvm.build(s, [A, B, C], "llvm", name="mm")`.

    The result is called as `f(a, b, c)` (its entry function) or `f["mm"](a, b, c)` on numpy
    or `tvm.nd` arrays, outputs written in place.
    """
    if isinstance(inputs, Schedule):
        if args is None:
            raise ValueError("build: a schedule needs its argument tensors, build(s, [A, B, C])")
        module = lower(inputs, args, name=name)
    elif isinstance(inputs, ModuleOp) or hasattr(inputs, "xdsl"):
        module = module_of(inputs)
    else:
        raise TypeError(f"build: expected a schedule or a module, got {type(inputs).__name__}")
    kind = (target or "llvm").split()[0]
    if kind in SOURCE_TARGETS:
        return build_source(module, kind, name)
    if kind not in CPU_TARGETS:
        raise ValueError(f"build: unknown target '{target}' (targets: llvm, c, cuda)")
    optimize_cpu_tir(module)
    return compile_cpu(module, target, name)


def optimize_cpu_tir(module: ModuleOp) -> None:
    """The tir passes `build` runs on a kernel for a CPU target, in place: the final loops,
    from which `compile_cpu` emits LLVM IR (a tuner compares candidates by them)."""
    import warnings

    from xtvm.driver.relay_graph import TIR_PASSES, run_passes
    from xtvm.passes.tir_unroll import TirUnrollPass
    from xtvm.passes.tir_vectorize import VectorizeRemark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeRemark)  # such loops stay scalar: correct
        run_passes(module, [*TIR_PASSES, TirUnrollPass()])


def compile_cpu(module: ModuleOp, target: str | None, name: str) -> Module:
    """The runtime module of a tir module `optimize_cpu_tir` has run on, its entry `name`."""
    from xtvm.backends.llvm import build_module

    compiled = build_module(module, target)
    if name in compiled.signatures:
        compiled.entry_name = name
    return compiled


def build_source(module: ModuleOp, kind: str, name: str) -> Module:
    """Compile for a C-style source target (`c`, `cuda`): tir passes, then that backend."""
    from xtvm.driver.relay_graph import run_passes
    from xtvm.passes.tir_loop_partition import TirLoopPartitionPass
    from xtvm.passes.tir_simplify import TirSimplifyPass

    # no tir-vectorize: the C compiler vectorizes the loops marked `omp simd`
    run_passes(module, [TirSimplifyPass(), TirLoopPartitionPass(), TirSimplifyPass()])
    if kind == "c":
        from xtvm.backends.c import build_c

        compiled = build_c(module)
    else:
        from xtvm.backends.cuda import build_cuda

        compiled = build_cuda(module)
    if name in compiled.signatures:
        compiled.entry_name = name
    return compiled
