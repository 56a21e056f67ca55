"""`relay.build`: a relay module compiled into kernels plus the graph that calls them.

TVM's `relay.build` runs the graph-level passes, lowers every fused function to a kernel and
turns `@main` into graph JSON for the graph executor. Here: relay-simplify-inference,
relay-fold-constant (after binding the given params as constants), relay-fuse-ops and
convert-relay-to-te; the te kernels move to a module of their own, go through
convert-te-to-tir and the tir passes, and are compiled by the LLVM backend. `@main` (now only
params, constants, tuples and `func.call`s of kernels) is walked into graph JSON: a `null`
node per input, weight and constant, a `tvm_op` node per call, and the constants join params.

    graph_json, lib, params = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(relay.build(mod, "llvm")["default"](tvm.cpu()))
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xtvm.driver.relay_external import build_external
from xtvm.driver.relay_graph import (  # noqa: F401  (relay.build's names for them)
    TIR_PASSES,
    BuildError,
    HasModule,
    ModuleLike,
    bind_params,
    checked_main,
    constant_for,
    graph_factory,
    graph_of,
    inline_global_calls,
    module_of,
    run_passes,
    split_kernels,
)
from xtvm.passes import tir_serialize_parallel
from xtvm.passes.convert_relay_to_te import ConvertRelayToTePass
from xtvm.passes.convert_te_to_tir import ConvertTeToTirPass
from xtvm.passes.relay_alter_dense_layout import RelayAlterDenseLayoutPass
from xtvm.passes.relay_alter_op_layout import RelayAlterOpLayoutPass
from xtvm.passes.relay_combine_layer_norm import RelayCombineLayerNormPass
from xtvm.passes.relay_combine_parallel_dense import RelayCombineParallelDensePass
from xtvm.passes.relay_convert_layout import RelayConvertLayoutPass
from xtvm.passes.relay_fold_constant import RelayFoldConstantPass
from xtvm.passes.relay_fuse_ops import RelayFuseOpsPass
from xtvm.passes.relay_qnn_canonicalize import RelayQnnCanonicalizePass
from xtvm.passes.relay_simplify_inference import RelaySimplifyInferencePass
from xtvm.passes.relay_split_to_slices import RelaySplitToSlicesPass
from xtvm.passes.tir_vectorize import VectorizeRemark
from xtvm.runtime.graph_executor import GraphExecutorFactory
from xtvm.runtime.module import Module, metadata_json, signatures_of
from xtvm.topi.schedule import VECTOR_LANES

FOLD_MAX_GROWTH = 4  # Winograd's kernel transform: 3x3 -> 6x6
NHWC_MIN_CHANNELS = 4


# ---------------------------------------------------------------------------------------------
# The driver


def lower_for_build(
    mod: ModuleLike,
    params: Mapping[str, Any] | None = None,
    target: str = "llvm",
    *,
    release_params: bool = False,
) -> tuple[func.FuncOp, ModuleOp]:
    """@main as a graph of kernel calls and the kernels as tir (the module is not changed)."""
    module = lower_to_te(mod, params, target, release_params=release_params)
    main, kernels = split_kernels(module)
    lower_kernels(kernels)
    return main, kernels


def lower_kernels(kernels: ModuleOp) -> None:
    """Lower scheduled te kernels to the tir that relay.build compiles, in place (also what a
    tuner builds of a model's kernel, so that it times the code the model will run)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeRemark)
        serialize = tir_serialize_parallel.TirSerializeParallelPass(
            tir_serialize_parallel.MIN_PARALLEL_WORK  # read now: benchmarks/threads.py sets it
        )
        # The kernels' schedules are xtvm's own: parallel loops too small for the thread pool
        # run serially (a user's `tvm.build` keeps the parallel loops it asked for).
        run_passes(kernels, [ConvertTeToTirPass(), *TIR_PASSES, serialize])


def lower_to_te(
    mod: ModuleLike,
    params: Mapping[str, Any] | None = None,
    target: str = "llvm",
    *,
    release_params: bool = False,
) -> ModuleOp:
    """A copy of the module with @main calling its kernels as scheduled te (what AutoTVM's
    task extraction needs: the kernels' schedules, not their tir). With `release_params`,
    `params` (a dict) is emptied once its weights are bound: see `build`."""
    module = module_of(mod).clone()
    checked_main(module)
    inline_global_calls(module)
    bound = {k: np.asarray(getattr(v, "_data", v)) for k, v in (params or {}).items()}
    if release_params:
        assert isinstance(params, dict)
        params.clear()
    # released, the weights' only owners are `bound` and then the module's constants
    bind_params(module, bound, consume=release_params)
    del bound
    kind = target.split()[0]
    # On the CPU, conv2d runs NHWC: its schedule vectorizes output channels, which stay
    # contiguous at any stride (NCHW vectorizes columns, strided loads when the stride is 2).
    # Grouped conv2d, with few channels per group, stay NCHW (a depthwise one converts where
    # its data is NHWC already: MobileNet's blocks run NHWC throughout), and so does a
    # conv2d of fewer than NHWC_MIN_CHANNELS input channels (an RGB image) whose output
    # channels do not fill whole vectors: NHWC would pay a transform of the input for a tile
    # of half vectors (shufflenet's 24 channels), where 64 channels pay it back.
    # Their constant kernels are then packed into the register tile's blocks of channels.
    cpu = kind in ("llvm", "cpu")
    run_passes(
        module,
        [
            # the CPU runs nn.layer_norm as one kernel (cpu_layer_norm), spelt out or not
            *([RelayCombineLayerNormPass()] if cpu else []),
            RelayQnnCanonicalizePass(),  # TVM's QNN Legalize and CanonicalizeOps
            RelaySimplifyInferencePass(layer_norm=not cpu),
            *(
                [
                    RelayConvertLayoutPass(
                        "NHWC",
                        grouped=False,
                        depthwise=True,
                        min_channels=NHWC_MIN_CHANNELS,
                        out_block=VECTOR_LANES,
                    )
                ]
                if cpu
                else []
            ),
            # Weights are constants now: fold their transforms whatever their size, but not
            # an expansion of a small constant into a large one (it is computed in its kernel).
            # (and a transposed weight is left to relay-alter-dense-layout on the CPU)
            RelayFoldConstantPass(max_growth=FOLD_MAX_GROWTH, keep_weight_transposes=cpu),
            *(
                [
                    RelayCombineParallelDensePass(),
                    RelayAlterOpLayoutPass(),
                    RelayAlterDenseLayoutPass(),
                    RelaySplitToSlicesPass(),  # GPT-2's Q/K/V parts fuse into their readers
                ]
                if cpu
                else []
            ),
            RelayFuseOpsPass(),
            ConvertRelayToTePass(target),
        ],
    )
    return module


def build(
    mod: ModuleLike,
    target: str | None = "llvm",
    params: Mapping[str, Any] | None = None,
    *,
    release_params: bool = False,
    **_: Any,
) -> GraphExecutorFactory:
    """Compile `mod` for `target`: `graph_json, lib, params = relay.build(mod, "llvm", params)`.

    With `release_params` the caller hands its weights over: `params` (a dict) is emptied as
    they are bound into the module, whose constants are then their only owners, so that a
    weight a pass replaces (transposed, padded, concatenated) is freed at once rather than
    held beside its new layout until the build returns (xtvm-compile: GPT-2's peak memory
    from 2.07x its weights to 1.69x)."""
    from xtvm.backends.llvm import compile_module
    from xtvm.backends.llvm.compile import jit_last_error

    target = target or "llvm"
    checked_main(module_of(mod))
    if target.split()[0] == "cuda":
        from xtvm.driver.relay_build_cuda import build_cuda

        return build_cuda(mod, target, params)
    if target.split()[0] == "c":
        from xtvm.driver.relay_build_c import build_c_graph

        module = lower_to_te(mod, params, "llvm", release_params=release_params)  # CPU schedules
        return build_c_graph(module, build_external(mod, "llvm"), params)
    if target.split()[0] not in ("llvm", "cpu"):
        raise BuildError(f"relay.build: unknown target '{target}' (targets: llvm, c, cuda)")
    external = build_external(mod, target)
    main, kernels = lower_for_build(mod, params, target, release_params=release_params)
    graph, constants = graph_of(main)
    signatures = signatures_of(kernels)
    status = set(signatures)  # the kernels return a status, external functions nothing
    if external is not None:
        signatures |= external.signatures
        symbols = {name: f.symbol for name, f in external.by_function.items()}
        for node in graph["nodes"]:
            if node["op"] == "tvm_op" and node["name"] in symbols:
                node["attrs"]["func_name"] = symbols[node["name"]]
    compiled = compile_module(kernels, target, metadata_json(signatures, status))

    def source(fmt: str) -> str:
        if fmt in ("ll", "llvm", ""):
            return compiled.llvm_ir()
        if fmt in ("asm", "s"):
            return compiled.assembly()
        raise ValueError(f"unknown source format '{fmt}' (known: ll, asm)")

    def address(name: str) -> int:
        if external is not None and name in external.signatures:
            return external.library.module._address(name)
        return compiled.address(name)

    def export_kernels(path: Path, extra_objects: list[Path] | None = None) -> None:
        if external is None:
            compiled.export_library(path, extra_objects or ())
            return
        with tempfile.TemporaryDirectory(prefix="xtvm-export-") as tmp:
            objects = [*(extra_objects or []), *external.library.write_objects(Path(tmp))]
            compiled.export_library(path, objects, external.library.libraries)

    lib = Module(
        signatures,
        address,
        keepalive=compiled,
        source=source,
        exporter=export_kernels,
        status=status,
        last_error=jit_last_error(compiled),
    )
    if external is not None:
        lib.imported_modules.append(external.library.module)

    return graph_factory(
        graph,
        constants,
        lib,
        params,
        export_kernels,
        kernels,
        None if external is None else external.library,
    )
