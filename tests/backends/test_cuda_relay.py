"""relay.build(mod, target="cuda"): every TOPI op and a small CNN lowered with the default GPU
schedules; the tir after host/device split run by the tir interpreter (each tir.launch runs its
kernel once per thread) against the relay interpreter, and every emitted kernel compiled with
`nvcc -ptx` (skipped without nvcc). Runs on a GPU are marked `cuda`."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

import xtvm as tvm
from xtvm import relay as relay_api
from xtvm.api.relay.build_cuda import CUDAGraphExecutorFactory, lower_for_cuda
from xtvm.api.relay.build_module import BuildError
from xtvm.backends.cuda import build_cuda
from xtvm.dialects import relay, tir
from xtvm.runtime import tir_interpreter
from xtvm.runtime.cuda import CUDAModule, NoGPUError
from xtvm.runtime.relay_interpreter import evaluate


def load_relay_cases() -> ModuleType:
    """The per-op relay cases of the convert-relay-to-te tests (one source of truth)."""
    path = Path(__file__).parents[1] / "passes" / "test_convert_relay_to_te.py"
    spec = importlib.util.spec_from_file_location("relay_to_te_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


CASES = load_relay_cases()
OP_CASES = {
    f"{op.name.removeprefix('relay.')}-{case.name}": case
    for op, cases in CASES.CASES.items()
    for case in cases[:2]
}
RNG = np.random.default_rng(11)


@functools.cache
def lowered(case_id: str) -> tuple[ModuleOp, ModuleOp, CUDAModule]:
    """(@main as graph, tir after host/device split, the built CUDA module) of one op case."""
    case = OP_CASES[case_id]
    main, kernels = lower_for_cuda(CASES.function(case.inputs, case.build))
    return ModuleOp([main.clone()]), kernels, build_cuda(kernels.clone())


def assert_close(got: list[np.ndarray], expected: list[np.ndarray], rtol: float) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)
        else:
            np.testing.assert_array_equal(g, e)


def compile_ptx(sources: dict[str, str], tmp_path: Path) -> None:
    """Compile many CUDA sources with one `nvcc -ptx`: each in a namespace of its own (kernel
    names repeat across them), the includes once."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: the CUDA source is not compiled")
    parts = ["#include <cuda_fp16.h>", "#include <stdint.h>"]
    for k, source in enumerate(sources.values()):
        body = re.sub(r"^#include .*$", "", source, flags=re.M).replace('extern "C" ', "")
        parts.append(f"namespace case{k} {{\n{body}\n}}")
    path = tmp_path / "kernels.cu"
    path.write_text("\n".join(parts))
    result = subprocess.run(
        ["nvcc", "-ptx", str(path), "-o", str(tmp_path / "kernels.ptx")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]


# ---------------------------------------------------------------------------------------------
# Every op: interpreted tir against the relay interpreter; nvcc on all kernels


@pytest.mark.parametrize("case_id", list(OP_CASES))
def test_op_kernels_match_relay_interpreter(case_id: str) -> None:
    case = OP_CASES[case_id]
    inputs = case.arrays()
    expected = evaluate(CASES.function(case.inputs, case.build), inputs, params=case.params)
    graph, kernels, lib = lowered(case_id)
    source = lib.imported_modules[0].get_source()
    # Each host function is a program of launches the GPU runtime can run.
    assert all(p.unsupported is None for p in lib.programs.values()), lib.programs
    # Every host function launches kernels; no thread-bound loop is left on the host.
    hosts = [
        f for f in kernels.ops if isinstance(f, func.FuncOp) and "tir.kernel" not in f.attributes
    ]
    assert all(any(isinstance(o, tir.LaunchOp) for o in f.walk()) for f in hosts)
    assert not any(
        isinstance(o, tir.ForOp) and o.kind.data == "thread_binding" for o in kernels.walk()
    )
    assert ("__global__" in source) == bool(hosts)
    got = CASES.run_graph(graph, tir_interpreter.compile_module(kernels), inputs, case.params)
    assert_close(got, expected, case.rtol if case.rtol > 1e-5 else 1e-4)


def test_every_op_kernel_compiles_with_nvcc(tmp_path: Path) -> None:
    sources = {c: lowered(c)[2].imported_modules[0].get_source() for c in OP_CASES}
    compile_ptx(sources, tmp_path)


# ---------------------------------------------------------------------------------------------
# A small CNN through relay.build


def small_cnn() -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """conv(3→4, 3x3, pad 1) → batch norm → relu → max pool 2x2 → flatten → dense(→5)."""

    def build(g: Any, x: SSAValue) -> SSAValue:
        y = CASES.conv_bn_relu(g, x, "conv", 4)
        y = g(relay.MaxPool2dOp(y, pool_size=(2, 2), strides=(2, 2)))
        y = g(relay.BatchFlattenOp(y))
        w = g.param("fc.weight", (5, 4 * 3 * 4))
        return g(relay.BiasAddOp(g(relay.DenseOp(y, w)), g.param("fc.bias", (5,))))

    module = CASES.function([CASES.f32(1, 3, 7, 9)], build)
    params = {
        "conv.weight": RNG.standard_normal((4, 3, 3, 3)).astype("float32"),
        "fc.weight": RNG.standard_normal((5, 48)).astype("float32"),
        "fc.bias": RNG.standard_normal(5).astype("float32"),
    }
    return module, params


def run_graph_json(graph_json: str, kernels: ModuleOp, params: dict[str, Any], **inputs: Any):
    """A graph executor over the tir interpreter: TVM graph JSON, kernels run as interpreted tir."""
    graph = json.loads(graph_json)
    call = tir_interpreter.compile_module(kernels)
    shapes, dtypes = graph["attrs"]["shape"][1], graph["attrs"]["dltype"][1]
    entries = [np.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    row_ptr = graph["node_row_ptr"]
    for nid, node in enumerate(graph["nodes"]):
        if node["op"] == "null":
            entries[row_ptr[nid]][...] = {**params, **inputs}[node["name"]]
            continue
        args = [entries[row_ptr[n] + i] for n, i, _ in node["inputs"]]
        call(node["attrs"]["func_name"], *args, *entries[row_ptr[nid] : row_ptr[nid + 1]])
    return [entries[row_ptr[n] + i] for n, i, _ in graph["heads"]]


def test_small_cnn_relay_build_cuda(tmp_path: Path) -> None:
    module, params = small_cnn()
    x = RNG.standard_normal((1, 3, 7, 9)).astype("float32")
    expected = evaluate(module, [x], params=params)
    factory = relay_api.build(module, target="cuda", params=params)
    assert isinstance(factory, CUDAGraphExecutorFactory)
    graph_json, lib, weights = factory
    source = lib.imported_modules[0].get_source()
    assert source.count("__global__") >= 3 and "threadIdx.x" in source
    # conv2d and dense read their operands from shared-memory tiles
    assert "__shared__ float" in source and "__syncthreads();" in source
    assert factory.kernels is not None
    hosts = [
        f
        for f in factory.kernels.ops
        if isinstance(f, func.FuncOp) and "tir.kernel" not in f.attributes
    ]
    assert {f.sym_name.data for f in hosts} == set(lib.programs)  # type: ignore[attr-defined]
    got = run_graph_json(graph_json, factory.kernels, weights, x=x)
    assert_close(got, expected, 1e-4)
    compile_ptx({"cnn": source}, tmp_path)


def test_cuda_factory_without_a_gpu_is_a_clear_error() -> None:
    if tvm.cuda(0).exist:
        pytest.skip("a GPU exists here")
    module, params = small_cnn()
    factory = relay_api.build(module, target="cuda", params=params)
    with pytest.raises(NoGPUError, match="no CUDA GPU"):
        factory["default"](tvm.cuda(0))
    with pytest.raises(BuildError, match=r"runs on tvm\.cuda"):
        factory["default"](tvm.cpu(0))
    with pytest.raises(NoGPUError, match="no CUDA GPU"):
        factory.lib[next(iter(factory.lib.programs))]  # type: ignore[attr-defined]
    with pytest.raises(NoGPUError, match="no CUDA GPU"):
        tvm.nd.array(np.zeros(3, "float32"), tvm.cuda(0))


# ---------------------------------------------------------------------------------------------
# On a GPU


@pytest.mark.cuda
def test_device_array_round_trip() -> None:
    x = RNG.standard_normal((7, 13)).astype("float32")
    a = tvm.nd.array(x, tvm.cuda(0))
    assert a.shape == (7, 13) and a.dtype == "float32"
    np.testing.assert_array_equal(a.numpy(), x)
    b = tvm.nd.empty((7, 13), "float32", tvm.cuda(0))
    b.copyfrom(a)
    np.testing.assert_array_equal(b.numpy(), x)


@pytest.mark.cuda
def test_small_cnn_runs_on_the_gpu() -> None:
    from xtvm.contrib import graph_executor

    module, params = small_cnn()
    x = RNG.standard_normal((1, 3, 7, 9)).astype("float32")
    expected = evaluate(module, [x], params=params)
    factory = relay_api.build(module, target="cuda", params=params)
    runner = graph_executor.GraphModule(factory["default"](tvm.cuda(0)))
    runner.set_input("x", x)
    runner.run()
    np.testing.assert_allclose(runner.get_output(0).numpy(), expected[0], rtol=1e-4, atol=1e-4)


@pytest.mark.cuda
@pytest.mark.parametrize("case_id", list(OP_CASES))
def test_op_runs_on_the_gpu(case_id: str) -> None:
    case = OP_CASES[case_id]
    inputs = case.arrays()
    expected = evaluate(CASES.function(case.inputs, case.build), inputs, params=case.params)
    graph, _, lib = lowered(case_id)
    got = CASES.run_graph(graph, lambda name, *a: lib[name](*a), inputs, case.params)
    assert_close(got, expected, 1e-3)
