"""relay.build(mod, target="cuda"): every TOPI op and a small CNN lowered with the default GPU
schedules; the tir after host/device split run by the tir interpreter (each tir.launch runs its
kernel once per thread, a block's threads in lockstep at barriers) against the relay
interpreter, and every emitted kernel compiled with `nvcc -ptx` (skipped without nvcc).
Shared-memory products and convolutions get sizes with several blocks and partial tiles. The
CUDA runtime runs against a stand-in driver (launches interpreted); runs on a GPU are marked
`cuda` and skip with "no CUDA GPU" elsewhere."""

from __future__ import annotations

import ctypes
import functools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

import xtvm as tvm
from xtvm import relay as relay_api
from xtvm import te
from xtvm.backends.cuda import build_cuda
from xtvm.backends.cuda.codegen import split_if_needed
from xtvm.dialects import relay, tir
from xtvm.driver.relay_build import BuildError
from xtvm.driver.relay_build_cuda import CUDAGraphExecutorFactory, lower_for_cuda
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.runtime import tir_interpreter
from xtvm.runtime.cuda import CUDAModule, NoGPUError
from xtvm.runtime.relay_interpreter import evaluate
from xtvm.testing import load_file

# The per-op relay cases of the convert-relay-to-te tests (one source of truth).
CASES = load_file(
    "relay_to_te_cases", Path(__file__).parents[1] / "passes" / "test_convert_relay_to_te.py"
)
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


# Data-dependent vision ops are serial loops on the host (TVM's CPU ir_builder form); the CUDA
# runtime refuses their host program by name instead of running it.
HOST_LOOP_OPS = (
    "vision.roi_align",
    "vision.roi_pool",
    "vision.get_valid_counts",
    "vision.non_max_suppression",
    "vision.multibox_transform_loc",
    "vision.proposal",
    "vision.all_class_non_max_suppression",
)


@pytest.mark.parametrize("case_id", list(OP_CASES))
def test_op_kernels_match_relay_interpreter(case_id: str) -> None:
    case = OP_CASES[case_id]
    inputs = case.arrays()
    expected = evaluate(CASES.function(case.inputs, case.build), inputs, params=case.params)
    graph, kernels, lib = lowered(case_id)
    if any(case_id.startswith(f"{op}-") for op in HOST_LOOP_OPS):
        reasons = [p.unsupported for p in lib.programs.values()]
        assert reasons and all(r and r.startswith("host code") for r in reasons), reasons
        return
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
        if node["attrs"]["func_name"] == "__nop":  # a reshape: the input's buffer
            entries[row_ptr[nid]] = args[0].reshape(entries[row_ptr[nid]].shape)
            continue
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
    assert "__shared__ __align__(16) float" in source and "__syncthreads();" in source
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
    with pytest.raises(NotImplementedError, match="export_library of a cuda build"):
        factory.export_library("model.so")


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

    def run() -> list[np.ndarray]:
        return CASES.run_graph(graph, lambda name, *a: lib[name](*a), inputs, case.params)

    if any(case_id.startswith(f"{op}-") for op in HOST_LOOP_OPS):
        # Refused by name at the first call, not run wrongly.
        with pytest.raises(NotImplementedError, match=r"cannot run 'fused_vision_\w+' on a GPU"):
            run()
        return
    got = run()
    assert_close(got, expected, 1e-3)


# ---------------------------------------------------------------------------------------------
# The runtime's driver calls, against a stand-in for libcuda


class FakeDriver:
    """libcuda's calls used by xtvm.runtime.cuda, on host memory: device pointers are
    addresses in numpy buffers and a launch runs the kernel's tir in the tir interpreter, so
    the runtime's marshalling (pointers, kernel parameters, copies, fills) runs without a GPU."""

    def __init__(self, kernels: ModuleOp) -> None:
        self.compiled = tir_interpreter.compile_module(kernels)
        self.kernels = {
            f.sym_name.data: f
            for f in kernels.ops
            if isinstance(f, func.FuncOp) and "tir.kernel" in f.attributes
        }
        self.memory: dict[int, np.ndarray] = {}
        self.names: list[str] = []
        self.launches = 0
        self.memsets = 0

    @staticmethod
    def out(ref: Any, value: Any) -> int:
        ref._obj.value = value
        return 0

    def cuDeviceGetCount(self, count: Any) -> int:
        return self.out(count, 1)

    def cuDeviceGet(self, device: Any, ordinal: int) -> int:
        return self.out(device, ordinal)

    def cuDevicePrimaryCtxRetain(self, ctx: Any, device: Any) -> int:
        return self.out(ctx, 1)

    def cuCtxSetCurrent(self, ctx: Any) -> int:
        return 0

    def cuCtxSynchronize(self) -> int:
        return 0

    def cuDeviceGetAttribute(self, value: Any, attribute: int, device: int) -> int:
        return self.out(value, {75: 9, 76: 0}[attribute])

    def cuGetErrorName(self, status: int, name: Any) -> int:
        return self.out(name, b"CUDA_ERROR_FAKE")

    def cuMemAlloc_v2(self, pointer: Any, nbytes: int) -> int:
        buffer = np.zeros(nbytes + 256, np.uint8)
        address = (buffer.ctypes.data + 255) // 256 * 256
        self.memory[address] = buffer
        return self.out(pointer, address)

    def cuMemFree_v2(self, pointer: int) -> int:
        self.memory.pop(pointer)
        return 0

    def check_inside(self, pointer: int, nbytes: int) -> None:
        assert any(
            base <= pointer and pointer + nbytes <= base + buffer.nbytes - 256
            for base, buffer in self.memory.items()
        ), f"device range {pointer:#x}+{nbytes} is not allocated"

    def cuMemcpyHtoD_v2(self, device: int, host: Any, nbytes: int) -> int:
        self.check_inside(device, nbytes)
        ctypes.memmove(device, host, nbytes)
        return 0

    def cuMemcpyDtoH_v2(self, host: Any, device: int, nbytes: int) -> int:
        self.check_inside(device, nbytes)
        ctypes.memmove(host, device, nbytes)
        return 0

    def cuMemsetD32_v2(self, device: Any, value: Any, count: Any) -> int:
        self.check_inside(device.value, count.value * 4)
        target = (ctypes.c_uint32 * count.value).from_address(device.value)
        np.frombuffer(target, "<u4")[:] = value.value
        self.memsets += 1
        return 0

    def cuModuleLoadData(self, module: Any, image: Any) -> int:
        return self.out(module, 1)

    def cuModuleGetFunction(self, function: Any, module: Any, name: bytes) -> int:
        self.names.append(name.decode())
        return self.out(function, len(self.names))

    def cuLaunchKernel(self, function: Any, *args: Any) -> int:
        gx, gy, gz, tx, ty, tz, _shared, _stream, params, _extra = args
        name = self.names[function.value - 1]
        kernel = self.kernels[name]
        arrays = []
        for k, typ in enumerate(kernel.function_type.inputs.data):
            pointer = ctypes.cast(params[k], ctypes.POINTER(ctypes.c_uint64)).contents.value
            dtype, shape = np.dtype(numpy_dtype(typ.element_type)), tuple(typ.get_shape())
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            self.check_inside(pointer, nbytes)
            raw = (ctypes.c_uint8 * nbytes).from_address(pointer)
            arrays.append(np.frombuffer(raw, dtype).reshape(shape))
        compiled = self.compiled
        tir_interpreter.launch_grid(
            compiled.namespace[compiled.functions[name]],
            arrays,
            (gx, gy, gz),
            (tx, ty, tz),
            compiled.namespace["THREAD"],
        )
        self.launches += 1
        return 0


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Install a FakeDriver for the given tir kernels (call the fixture's value with them)."""
    from xtvm.runtime import cuda as runtime
    from xtvm.runtime import cuda_driver

    if tvm.cuda(0).exist:
        pytest.skip("a GPU exists here: the real driver is tested instead")

    def install(kernels: ModuleOp) -> FakeDriver:
        fake = FakeDriver(kernels)
        monkeypatch.setattr(cuda_driver, "driver", lambda: fake)
        monkeypatch.setattr(runtime, "compile_ptx", lambda source, device_id=0: b"// ptx\0")
        monkeypatch.setattr(cuda_driver, "PRIMARY_CONTEXTS", {})
        return fake

    return install


def test_cnn_graph_executor_through_the_driver_calls(fake_gpu: Any) -> None:
    from xtvm.contrib import graph_executor

    module, params = small_cnn()
    x = RNG.standard_normal((1, 3, 7, 9)).astype("float32")
    expected = evaluate(module, [x], params=params)
    factory = relay_api.build(module, target="cuda", params=params)
    assert factory.kernels is not None
    fake = fake_gpu(factory.kernels)
    assert tvm.cuda(0).exist
    runner = graph_executor.GraphModule(factory["default"](tvm.cuda(0)))
    runner.set_input("x", tvm.nd.array(x, tvm.cuda(0)))
    runner.run()
    np.testing.assert_allclose(runner.get_output(0).numpy(), expected[0], rtol=1e-4, atol=1e-4)
    assert fake.launches >= 5  # batch_flatten launches nothing: its node is a __nop
    # the initial values of conv2d's accumulation (dense accumulates in registers)
    assert fake.memsets >= 1
    # the same graph through graph_executor.create
    graph_json, lib, weights = factory
    again = graph_executor.create(graph_json, lib, tvm.cuda(0))
    again.set_input(**weights)
    again.run(x=x)
    np.testing.assert_allclose(again.get_output(0).numpy(), expected[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "case_id", ["nn.dense-wide", "sum-all", "nn.softmax-last_axis", "nn.conv2d-padding"]
)
def test_op_functions_through_the_driver_calls(case_id: str, fake_gpu: Any) -> None:
    """Host programs with temporaries, a reduction's initial value written by the host and
    numpy arguments copied to the device and back."""
    case = OP_CASES[case_id]
    inputs = case.arrays()
    expected = evaluate(CASES.function(case.inputs, case.build), inputs, params=case.params)
    graph, kernels, lib = lowered(case_id)
    fake_gpu(kernels)
    got = CASES.run_graph(graph, lambda name, *a: lib[name](*a), inputs, case.params)
    assert_close(got, expected, 1e-4)


def test_device_arrays_through_the_driver_calls(fake_gpu: Any) -> None:
    fake_gpu(ModuleOp([]))
    x = RNG.standard_normal((7, 13)).astype("float32")
    a = tvm.nd.array(x, tvm.cuda(0))
    np.testing.assert_array_equal(a.numpy(), x)
    b = tvm.nd.empty((7, 13), "float32", tvm.cuda(0)).copyfrom(a)
    np.testing.assert_array_equal(np.asarray(b), x)
    with pytest.raises(NoGPUError, match=r"cuda\(1\)"):
        tvm.nd.array(x, tvm.cuda(1))


# ---------------------------------------------------------------------------------------------
# Products and convolutions big enough for several blocks, K_TILE steps and partial tiles


def product_cases() -> dict[str, tuple[list[tuple[tuple[int, ...], str]], Any]]:
    f32 = CASES.f32
    return {
        # 66 rows: 16 x 4 per block, a second block 2 rows deep; k = 40: a partial second step
        "dense-66x40x37": ([f32(66, 40), f32(37, 40)], lambda g, x, w: g(relay.DenseOp(x, w))),
        "batch_matmul-2x33x20x17": (
            [f32(2, 33, 20), f32(2, 17, 20)],
            lambda g, x, y: g(relay.BatchMatmulOp(x, y)),
        ),
        # 6 input channels: a full and a partial 4-channel step; 99 pixels: two blocks
        "conv2d-6x9x11-pad1": (
            [f32(1, 6, 9, 11), f32(5, 6, 3, 3)],
            lambda g, x, w: g(relay.Conv2dOp(x, w, padding=(1, 1, 1, 1))),
        ),
        "conv2d-stride2": (
            [f32(2, 3, 9, 8), f32(4, 3, 3, 3)],
            lambda g, x, w: g(relay.Conv2dOp(x, w, strides=(2, 2))),
        ),
        # one input channel: no rc axis, the shared step is the kernel row
        "conv2d-one-channel": (
            [f32(1, 1, 9, 9), f32(4, 1, 3, 3)],
            lambda g, x, w: g(relay.Conv2dOp(x, w)),
        ),
        "conv2d-groups2": (
            [f32(1, 4, 9, 9), f32(6, 2, 3, 3)],
            lambda g, x, w: g(relay.Conv2dOp(x, w, groups=2)),
        ),
        # a vector times a matrix: one row of threads
        "dense-vector": ([f32(40), f32(37, 40)], lambda g, x, w: g(relay.DenseOp(x, w))),
        # full 128 x 128 register-tiled blocks and partial ones along rows, columns and k
        "dense-130x20x150": (
            [f32(130, 20), f32(150, 20)],
            lambda g, x, w: g(relay.DenseOp(x, w)),
        ),
        "matmul-131x9x129": (
            [f32(131, 9), f32(9, 129)],
            lambda g, x, w: g(relay.MatmulOp(x, w)),
        ),
        "batch_matmul-2x129x12x20": (
            [f32(2, 129, 12), f32(2, 20, 12)],
            lambda g, x, y: g(relay.BatchMatmulOp(x, y)),
        ),
    }


@pytest.mark.parametrize("name", list(product_cases()))
def test_shared_memory_products_match_relay_interpreter(name: str, tmp_path: Path) -> None:
    inputs_types, build = product_cases()[name]
    module = CASES.function(inputs_types, build)
    inputs = [RNG.standard_normal(s).astype(d) for s, d in inputs_types]
    expected = evaluate(module, inputs)
    main, kernels = lower_for_cuda(module)
    source = build_cuda(kernels.clone()).imported_modules[0].get_source()
    assert "__shared__ __align__(16) float" in source and source.count("__syncthreads();") >= 2
    if not name.startswith("conv2d"):  # each thread's outputs accumulate in registers
        assert re.search(r"\n +float \w+_local\[\d+\];", source), source
    graph = ModuleOp([main.clone()])
    got = CASES.run_graph(graph, tir_interpreter.compile_module(kernels), inputs, {})
    assert_close(got, expected, 1e-4)
    compile_ptx({name: source}, tmp_path)


@pytest.mark.parametrize("op", ["dense", "matmul"])
def test_product_register_tile_stays_in_registers(op: str, tmp_path: Path) -> None:
    """ptxas puts no array of a 256 x 256 x 64 product's kernel in local memory: every index
    of its register tile is a constant once unrolled (a tile's index less the tile's start
    simplified to the loop's), and it spills nothing."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found")
    f32 = CASES.f32
    types = [f32(256, 64), f32(256, 64) if op == "dense" else f32(64, 256)]
    relay_op = relay.DenseOp if op == "dense" else relay.MatmulOp
    _, kernels = lower_for_cuda(CASES.function(types, lambda g, x, w: g(relay_op(x, w))))
    source = build_cuda(kernels).imported_modules[0].get_source()
    path = tmp_path / "product.cu"
    path.write_text(source)
    command = ["nvcc", "-arch=sm_90", "-cubin", "-O3", "-Xptxas", "-v", str(path)]
    result = subprocess.run(
        [*command, "-o", str(tmp_path / "product.cubin")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in result.stderr


def test_ptx_for_the_device_architecture_and_for_a_newer_one() -> None:
    """nvcc compiles for the device's compute capability; one newer than nvcc knows falls
    back to nvcc's default PTX (which the driver JIT-compiles for the device)."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found")
    from xtvm.runtime.cuda import nvcc_ptx

    source = lowered("nn.dense-wide")[2].imported_modules[0].get_source()
    assert b".target sm_90" in nvcc_ptx(source, "compute_90")
    assert b".entry fused_nn_dense_kernel0" in nvcc_ptx(source, "compute_990")


# ---------------------------------------------------------------------------------------------
# A user's te schedule: TVM's GPU GEMM tutorial, cooperative fetching into shared memory


def tutorial_matmul(m: int, n: int, k_extent: int) -> tuple[te.Schedule, list[te.Tensor]]:
    A = te.placeholder((m, k_extent), name="A")
    B = te.placeholder((k_extent, n), name="B")
    k = te.reduce_axis((0, k_extent), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA, BB = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
    i, j = C.op.axis
    by, ii = s[C].split(i, factor=16)
    ty, yi = s[C].split(ii, factor=2)
    bx, ji = s[C].split(j, factor=16)
    tx, xi = s[C].split(ji, factor=2)
    ko, ki = s[C].split(C.op.reduce_axis[0], factor=8)
    s[C].reorder(by, bx, ko, ty, tx, yi, xi, ki)
    for axis, tag in ((by, "blockIdx.y"), (bx, "blockIdx.x"), (ty, "threadIdx.y")):
        s[C].bind(axis, te.thread_axis(tag))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    for copy in (AA, BB):
        s[copy].compute_at(s[C], ko)
        flat = s[copy].fuse(*s[copy].op.axis)
        _, inner = s[copy].split(flat, factor=64)
        cy, cx = s[copy].split(inner, factor=8)
        s[copy].bind(cy, te.thread_axis("threadIdx.y"))
        s[copy].bind(cx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


@pytest.mark.parametrize("shape", [(32, 32, 16), (19, 13, 11)])
def test_tutorial_shared_memory_matmul(shape: tuple[int, int, int], tmp_path: Path) -> None:
    m, n, k = shape
    s, args = tutorial_matmul(m, n, k)
    module = tvm.lower(s, args, name="mm").xdsl
    f = tvm.build(module.clone(), target="cuda", name="mm")
    source = f.imported_modules[0].get_source()
    assert "__shared__ __align__(16) float A_shared" in source
    if k % 8 == 0:  # one barrier before the two copies of a k step, one after them (the copy
        # of B reads no shared memory: none between them); else a partial step is peeled
        assert source.count("__syncthreads();") == 2
    (launch,) = f.launches  # type: ignore[attr-defined]
    assert launch.threads == (8, 8, 1)
    split_if_needed(module)
    a = RNG.standard_normal((m, k)).astype("float32")
    b = RNG.standard_normal((k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    tir_interpreter.compile_module(module)("mm", a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    compile_ptx({"mm": source}, tmp_path)


def copy_at_thread_loop(scope: str) -> tuple[te.Schedule, list[te.Tensor]]:
    """B = A * 2 over blocks of 32 threads, A copied into `scope` at B's thread loop by a
    loop bound to threadIdx.x again."""
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, scope, [B])
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AA].compute_at(s[B], tx)
    s[AA].bind(AA.op.axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_shared_copy_inside_its_threads_loop_is_the_whole_blocks(tmp_path: Path) -> None:
    """A shared stage computed at a thread loop holds what the whole block reads (bound
    inference relaxes it over the thread loops), and its copy loop bound to the same thread
    axis is shared out among the block's threads (one launch of 32 threads, not 32 x 32)."""
    s, args = copy_at_thread_loop("shared")
    module = tvm.lower(s, args, name="twice").xdsl
    f = tvm.build(module.clone(), target="cuda", name="twice")
    source = f.imported_modules[0].get_source()
    assert (
        "__shared__ __align__(16) float A_shared[32];" in source
        and source.count("__syncthreads();") >= 2
    )
    (launch,) = f.launches  # type: ignore[attr-defined]
    assert launch.threads == (32, 1, 1)
    split_if_needed(module)
    a = RNG.standard_normal(64).astype("float32")
    b = np.zeros(64, "float32")
    tir_interpreter.compile_module(module)("twice", a, b)
    np.testing.assert_allclose(b, a * 2, rtol=1e-6)
    compile_ptx({"twice": source}, tmp_path)


def test_thread_bound_again_inside_its_own_nest_is_an_error() -> None:
    """A thread's own ("local") copy bound to its thread axis again cannot be shared out."""
    s, args = copy_at_thread_loop("local")
    with pytest.raises(DiagnosticError, match=r"'threadIdx\.x' is bound again"):
        tvm.build(s, args, target="cuda", name="twice")
