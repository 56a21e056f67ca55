"""relay.build and the graph executor: compiled graphs against the relay interpreter and
onnxruntime, the graph JSON, memory planning, and the errors a caller can cause."""

from __future__ import annotations

import itertools
import json
import mmap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.contrib import graph_executor
from xtvm.driver.relay_build import lower_for_build
from xtvm.runtime.call_list import CallList, call_runner
from xtvm.runtime.graph_executor import (
    GraphExecutor,
    GraphInputError,
    load_factory,
    plan_memory,
)
from xtvm.runtime.ndarray import (
    ALLOC_ALIGNMENT,
    HUGE_PAGE_BYTES,
    advise_huge_pages,
    storage_arena,
)
from xtvm.testing.onnx_models import light_model
from xtvm.testing.relay import interpret

RNG = np.random.default_rng(3)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def conv_bn_relu_net() -> tuple[tvm.IRModule, dict[str, np.ndarray]]:
    """Two conv-bn-relu blocks, a residual add, pooling and a dense head; weights as vars."""
    x = relay.var("x", shape=(1, 4, 9, 11))
    names = ["w1", "g1", "b1", "m1", "v1", "w2", "dense_w"]
    shapes = [(8, 4, 3, 3), (8,), (8,), (8,), (8,), (8, 8, 3, 3), (5, 8)]
    ws = {n: relay.var(n, shape=s) for n, s in zip(names, shapes, strict=True)}
    y = relay.nn.conv2d(x, ws["w1"], padding=(1, 1))
    y = relay.nn.batch_norm(y, ws["g1"], ws["b1"], ws["m1"], ws["v1"])[0]
    y = relay.nn.relu(y)
    z = relay.nn.relu(relay.nn.conv2d(y, ws["w2"], padding=(1, 1))) + y
    h = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(z))
    out = relay.nn.dense(h, ws["dense_w"])
    mod = tvm.IRModule.from_expr(relay.Function([x, *ws.values()], out))
    params = {n: rand(*s) for n, s in zip(names, shapes, strict=True)}
    params["v1"] = np.abs(params["v1"]) + 0.5
    return mod, params


def test_conv_net_matches_the_interpreter() -> None:
    mod, params = conv_bn_relu_net()
    x = rand(1, 4, 9, 11)
    lib = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(lib["default"](tvm.cpu(0)))
    module.set_input("x", x)
    module.run()
    assert module.get_num_outputs() == 1
    expected = interpret(mod, {}, x, *params.values())
    np.testing.assert_allclose(module.get_output(0).numpy(), expected[0], rtol=1e-4, atol=1e-4)
    # params are folded into the kernels' constants: only x stays an input by name
    graph = json.loads(lib.graph_json)
    assert graph["nodes"][0] == {"op": "null", "name": "x", "inputs": []}
    assert all(n["op"] == "null" for n in (graph["nodes"][i] for i in graph["arg_nodes"]))


@pytest.mark.parametrize(
    ("channels", "groups", "size"),
    [
        (136, 4, 9),  # 34 per group: tiles of 17 rows
        (112, 4, 14),  # 28 per group: 14 rows
        (64, 2, 6),  # 32 per group: 16 rows
        (20, 4, 7),  # 5 per group: no row tile divides, a guarded tile of 8
        (24, 24, 8),  # depthwise
        (544, 4, 7),  # whole 7x7 planes: vectors of 16 across rows, a 1-lane tail
        (12, 3, 5),  # whole 5x5 planes: 16 + 9 lanes
        (32, 2, 4),  # one vector per plane
    ],
)
def test_grouped_conv2d_matches_the_interpreter(channels: int, groups: int, size: int) -> None:
    # Grouped convolutions stay NCHW; their register tiles lie within one group.
    x = relay.var("x", shape=(1, channels, size, size))
    w = relay.var("w", shape=(channels, channels // groups, 1, 1))
    y = relay.nn.relu(relay.nn.conv2d(x, w, groups=groups))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], y))
    data, weight = rand(1, channels, size, size), rand(channels, channels // groups, 1, 1)
    module = graph_executor.GraphModule(
        relay.build(mod, target="llvm", params={"w": weight})["default"](tvm.cpu(0))
    )
    module.run(x=data)
    (expected,) = interpret(mod, {}, data, weight)
    np.testing.assert_allclose(module.get_output(0).numpy(), expected, rtol=1e-4, atol=1e-4)


def test_grouped_conv2d_on_a_small_plane_runs_whole_planes() -> None:
    # ShuffleNet's 7x7 stage: 1x1 grouped conv2d, a scale and shift, a residual add and relu.
    # Each channel's 49 outputs are three 16-lane vectors and one lane, not 7-lane rows.
    x = relay.var("x", shape=(1, 64, 7, 7))
    w = relay.const(rand(64, 16, 1, 1))
    scale, shift = relay.const(rand(64, 1, 1)), relay.const(rand(64, 1, 1))
    y = relay.nn.conv2d(x, w, groups=4) * scale + shift
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.nn.relu(y + x)))
    data = rand(1, 64, 7, 7)
    module = graph_executor.GraphModule(relay.build(mod, target="llvm")["default"](tvm.cpu(0)))
    module.run(x=data)
    (expected,) = interpret(mod, {}, data)
    np.testing.assert_allclose(module.get_output(0).numpy(), expected, rtol=1e-4, atol=1e-4)
    _, kernels = lower_for_build(mod)
    text = str(kernels)
    assert "vector<16xf32>" in text and "vector<7xf32>" not in text


@pytest.mark.parametrize("channels", [20, 80])
def test_nhwc_pools_match_the_interpreter(channels: int) -> None:
    # Channels-last pools accumulate a vector of channels in a register tile per output pixel
    # (over 64 channels, in tiles of 16), with an elementwise tail and without one.
    x = relay.var("x", shape=(1, 9, 7, channels))
    pooled = [
        relay.nn.max_pool2d(x, (3, 3), (2, 2), padding=(1, 1), layout="NHWC"),
        relay.nn.relu(relay.nn.avg_pool2d(x, (2, 2), (1, 1), layout="NHWC")),
        relay.nn.global_avg_pool2d(x, layout="NHWC"),
    ]
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.Tuple(pooled)))
    data = rand(1, 9, 7, channels)
    module = graph_executor.GraphModule(relay.build(mod, target="llvm")["default"](tvm.cpu(0)))
    module.run(x=data)
    for k, expected in enumerate(interpret(mod, {}, data)):
        np.testing.assert_allclose(module.get_output(k).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_tuple_outputs_unpacking_and_create() -> None:
    x = relay.var("x", shape=(3, 5))
    w = relay.param("w", (3, 5))
    a = relay.exp(x) * w
    b = relay.nn.softmax(a)
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.Tuple([b, relay.sum(a, axis=1)])))
    params = {"w": rand(3, 5)}
    graph_json, lib, built_params = relay.build(mod, "llvm", params=params)
    graph = json.loads(graph_json)
    ops = [n for n in graph["nodes"] if n["op"] == "tvm_op"]
    assert ops and {"func_name", "num_inputs", "num_outputs", "flatten_data"} <= set(
        ops[0]["attrs"]
    )
    assert graph["node_row_ptr"][-1] == len(graph["attrs"]["shape"][1])
    module = graph_executor.create(graph_json, lib, tvm.cpu())
    module.set_input(**built_params)
    x_value = rand(3, 5)
    module.run(x=x_value)
    expected = interpret(mod, params, x_value)
    assert module.get_num_outputs() == 2
    for i, e in enumerate(expected):
        np.testing.assert_allclose(module.get_output(i).numpy(), e, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(module.get_input("x").numpy(), x_value)


def test_unbound_weight_is_a_graph_input_set_by_index() -> None:
    x = relay.var("x", shape=(4, 6))
    w = relay.var("w", shape=(6,))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.tanh(x + w) * relay.const(2.0)))
    module = graph_executor.GraphModule(relay.build(mod)["default"](tvm.cpu()))
    xv, wv = rand(4, 6), rand(6)
    module.set_input(0, xv)
    module.set_input("w", tvm.nd.array(wv))
    module.run()
    np.testing.assert_allclose(module.get_output(0).numpy(), np.tanh(xv + wv) * 2, rtol=1e-5)


def test_params_bind_main_arguments_as_constants() -> None:
    # TVM's bind_params_by_name: a weight given in params is folded into the kernels (its
    # NHWC transform happens at build time), and it is no longer a graph input.
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.var("w", shape=(4, 4, 3, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.conv2d(x, w, padding=(1, 1))))
    xv, wv = rand(1, 4, 8, 8), rand(4, 4, 3, 3)
    factory = relay.build(mod, params={"w": wv})
    graph = json.loads(factory.graph_json)
    inputs = [n["name"] for n in graph["nodes"] if n["op"] == "null"]
    assert "w" not in inputs and "w" not in factory.params
    kernels = [n["attrs"]["func_name"] for n in graph["nodes"] if n["op"] == "tvm_op"]
    assert "fused_nn_conv2d" in kernels and len(kernels) == 3  # data in, conv, data out
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=xv)
    reference = relay.create_executor(mod=mod).evaluate()(xv, wv).numpy()
    np.testing.assert_allclose(module.get_output(0).numpy(), reference, rtol=1e-4, atol=1e-5)


def test_wrong_input_shape_names_the_input() -> None:
    mod, params = conv_bn_relu_net()
    module = graph_executor.GraphModule(relay.build(mod, params=params)["default"](tvm.cpu()))
    with pytest.raises(GraphInputError, match=r"input 'x': expected shape \[1, 4, 9, 11\]"):
        module.set_input("x", rand(1, 4, 9, 10))
    with pytest.raises(GraphInputError, match="graph has no input 'y'"):
        module.run(y=rand(1))


def test_run_refuses_inputs_and_weights_without_a_value() -> None:
    x = relay.var("x", shape=(4, 6))
    w = relay.var("w", shape=(6,))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.tanh(x + w)))
    module = graph_executor.GraphModule(relay.build(mod)["default"](tvm.cpu()))
    with pytest.raises(GraphInputError, match=r"graph inputs without a value: 'x', 'w'"):
        module.run()
    module.set_input("x", rand(4, 6))
    with pytest.raises(GraphInputError, match=r"graph input without a value: 'w' \(call"):
        module.run()
    module.set_input("w", rand(6))
    module.run()


def test_wrong_input_dtype_is_refused_not_cast() -> None:
    """The runtime's executor takes its input dtypes only (TVM's `GraphModule` converts, see
    tests/api/test_input_conversion.py)."""
    x = relay.var("x", shape=(2, 3))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.tanh(x)))
    module = relay.build(mod)["default"](tvm.cpu())
    with pytest.raises(
        GraphInputError, match="input 'x': expected element type float32, got float64"
    ):
        module.set_input("x", np.ones((2, 3)))
    with pytest.raises(GraphInputError, match="expected element type float32, got int32"):
        module.set_input("x", tvm.nd.array(np.ones((2, 3), np.int32)))
    with pytest.raises(GraphInputError, match="expected element type float32, got <U1"):
        module.set_input("x", [["a"] * 3] * 2)
    module.set_input("x", [[0.5] * 3] * 2)  # a Python list takes the input's type
    module.run()
    np.testing.assert_allclose(module.get_output(0).numpy(), np.tanh(np.full((2, 3), 0.5)), 1e-6)


def test_memory_plan_reuses_buffers_of_dead_intermediates() -> None:
    """A chain a → b → c → d of same-size tensors needs two intermediate buffers, not three."""

    def node(name: str, inputs: list[int]) -> dict:
        attrs = {"func_name": name, "num_inputs": "1", "num_outputs": "1", "flatten_data": "0"}
        return {"op": "tvm_op", "name": name, "attrs": attrs, "inputs": [[i, 0, 0] for i in inputs]}

    nodes = [{"op": "null", "name": "x", "inputs": []}]
    nodes += [node(f"f{k}", [k]) for k in range(4)]
    graph = {
        "nodes": nodes,
        "arg_nodes": [0],
        "heads": [[4, 0, 0]],
        "attrs": {"shape": ["list_shape", [[16, 16]] * 5], "dltype": ["list_str", ["float32"] * 5]},
        "node_row_ptr": list(range(6)),
    }
    plan = plan_memory(graph)
    assert plan.storage_ids[1] != plan.storage_ids[2]
    assert plan.storage_ids[3] == plan.storage_ids[1]  # f0's output is dead once f1 ran
    assert plan.storage_ids[4] not in plan.storage_ids[:4]  # the output keeps its own buffer
    assert plan.saved_bytes == 16 * 16 * 4


def mapping_flags(address: int) -> list[str] | None:
    """The VmFlags of the mapping holding `address` (None: no /proc/self/smaps)."""
    smaps = Path("/proc/self/smaps")
    if not smaps.exists():
        return None
    inside = False
    for line in smaps.read_text().splitlines():
        first = line.split()[0]
        if "-" in first and ":" not in first:
            low, high = (int(x, 16) for x in first.split("-"))
            inside = low <= address < high
        elif inside and first == "VmFlags:":
            return line.split()[1:]
    return None


def test_storage_arena_is_one_huge_page_aligned_allocation() -> None:
    """The graph executor's buffers lie in one allocation: each on a cache line, none
    overlapping, the whole starting on a huge page and advised for transparent huge pages
    (weights read at every run stop paying a TLB miss per 4 KB page). Whether the kernel then
    backs it by huge pages depends on its free memory, so the advice is what is checked: the
    mapping's `hg` flag (MADV_HUGEPAGE)."""
    sizes = [3 << 20, 5, 0, 1 << 20, 100]
    pieces = storage_arena(sizes)
    assert [p.nbytes for p in pieces] == sizes
    starts = [p.ctypes.data for p in pieces]
    assert all(a % ALLOC_ALIGNMENT == 0 for a in starts)
    assert starts[0] % HUGE_PAGE_BYTES == 0
    spans = sorted((a, a + n) for a, n in zip(starts, sizes, strict=True) if n)
    assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans))
    assert all(p.base is pieces[0].base for p in pieces)
    setting = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not setting.exists() or "[never]" in setting.read_text():
        pytest.skip("no transparent huge pages on this system")
    flags = mapping_flags(starts[0])
    if flags is None:
        pytest.skip("no /proc/self/smaps")
    assert "hg" in flags


def test_advise_huge_pages_marks_the_mapping() -> None:
    """advise_huge_pages itself sets MADV_HUGEPAGE on memory numpy did not allocate (numpy
    advises its own allocations of 4 MB and more, which would hide a broken call)."""
    setting = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not setting.exists() or "[never]" in setting.read_text():
        pytest.skip("no transparent huge pages on this system")
    region = mmap.mmap(-1, 2 * HUGE_PAGE_BYTES)
    buffer = np.frombuffer(region, np.uint8)
    before = mapping_flags(buffer.ctypes.data)
    if before is None:
        pytest.skip("no /proc/self/smaps")
    assert "hg" not in before
    assert advise_huge_pages(buffer)
    assert "hg" in (mapping_flags(buffer.ctypes.data) or [])
    del buffer
    region.close()


def test_every_buffer_starts_on_a_cache_line() -> None:
    """Inputs, weights and intermediates (of odd byte sizes too) start on 64-byte boundaries,
    so that a kernel's vector loads never straddle two cache lines; the results still match."""
    mod, params = conv_bn_relu_net()
    factory = relay.build(mod, target="llvm", params=params)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    entries = module.module.entries
    assert all(e.ctypes.data % ALLOC_ALIGNMENT == 0 for e in entries)
    x = rand(1, 4, 9, 11)
    module.set_input("x", x)
    module.run()
    (expected,) = interpret(mod, {}, x, *params.values())
    np.testing.assert_allclose(module.get_output(0).numpy(), expected, rtol=1e-4, atol=1e-4)


def test_export_library_round_trip(tmp_path: Path) -> None:
    mod, params = conv_bn_relu_net()
    factory = relay.build(mod, params=params)
    path = tmp_path / "net.so"
    factory.export_library(path)
    loaded = load_factory(path)
    lib = tvm.runtime.load_module(path)  # TVM's way: lib["default"](dev)
    x = rand(1, 4, 9, 11)
    outputs = []
    for f in (factory, loaded, lib):
        module = graph_executor.GraphModule(f["default"](tvm.cpu()))
        module.run(x=x)
        outputs.append(module.get_output(0).numpy())
    np.testing.assert_array_equal(outputs[0], outputs[1])
    np.testing.assert_array_equal(outputs[0], outputs[2])


def test_default_of_a_kernel_library_is_a_clear_error(tmp_path: Path) -> None:
    a = te.placeholder((4,), name="a")
    b = te.compute((4,), lambda i: a[i] * 2.0, name="b")
    path = tmp_path / "k.so"
    tvm.build(te.create_schedule(b.op), [a, b], "llvm", name="twice").export_library(path)
    with pytest.raises(AttributeError, match="module has no function 'default'"):
        tvm.runtime.load_module(path)["default"]


# ---------------------------------------------------------------------------------------------
# ONNX models (random weights) against onnxruntime


@pytest.mark.parametrize("name", ["squeezenet", pytest.param("shufflenet", marks=pytest.mark.slow)])
def test_onnx_light_model_matches_onnxruntime(name: str) -> None:
    ort = pytest.importorskip("onnxruntime")
    from xtvm.api.relay.frontend import from_onnx

    model, data, x = light_model(name, RNG)
    mod, params = from_onnx(model)
    module = graph_executor.GraphModule(relay.build(mod, params=params)["default"](tvm.cpu()))
    module.set_input(data, x)
    module.run()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {data: x})[0]
    got = module.get_output(0).numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4 * np.abs(expected).max())
    assert module.module.plan.saved_bytes > 0


def test_build_keeps_a_large_expansion_of_a_small_constant_as_an_op() -> None:
    """relay.build folds weight transforms of any size, but a broadcast of a row into a tensor
    past the fold limit stays in its kernel: a few bytes of model never become a large constant
    in the library's params."""
    shape = (1100, 1000)  # past relay-fold-constant's default 2**20 elements
    x = relay.var("x", shape=shape)
    row = np.arange(shape[1], dtype="float32")
    filled = relay.broadcast_to(relay.const(row), shape)
    factory = relay.build(tvm.IRModule.from_expr(relay.Function([x], x * filled)), target="llvm")
    assert all(np.asarray(v.numpy()).size < 1 << 20 for v in factory.get_params().values())
    assert len(factory.lib.get_source()) < 1 << 20  # nor a constant in the code
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    data = np.random.default_rng(0).standard_normal(shape).astype("float32")
    module.set_input(x=data)
    module.run()
    np.testing.assert_allclose(module.get_output(0).numpy(), data * row, rtol=1e-6)


def test_threads_sharing_a_graph_module_get_their_own_results() -> None:
    """Many threads calling set_input, run and get_output on one GraphModule each get the
    result of their own input (a weight set by the creating thread is seen by all)."""
    import threading

    x = relay.var("x", shape=(4, 32))
    w = relay.var("w", shape=(16, 32))
    mod = tvm.IRModule.from_expr(relay.Function([x, w], relay.nn.relu(relay.nn.dense(x, w))))
    module = graph_executor.GraphModule(relay.build(mod, target="llvm")["default"](tvm.cpu()))
    weight = rand(16, 32)
    module.set_input("w", weight)
    failures: list[str] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for step in range(40):
            data = rng.standard_normal((4, 32)).astype("float32")
            module.set_input("x", data)
            module.run()
            got = module.get_output(0).numpy()
            if not np.allclose(got, np.maximum(data @ weight.T, 0), rtol=1e-4, atol=1e-4):
                failures.append(f"thread {seed}, step {step}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_nd_arrays_are_aligned_like_graph_buffers() -> None:
    """`tvm.nd.array`/`tvm.nd.empty` hold ALLOC_ALIGNMENT-aligned storage, so kernels timed or
    run on them see the same alignment as the graph executor's buffers."""
    for shape, dtype in [((3, 5), "float32"), ((), "int64"), ((7,), "bool"), ((0, 4), "int8")]:
        values = (np.arange(int(np.prod(shape))) % 2).reshape(shape).astype(dtype)
        a = tvm.nd.array(values)
        e = tvm.nd.empty(shape, dtype)
        for array in (a, e):
            assert array._data.size == 0 or array._data.ctypes.data % ALLOC_ALIGNMENT == 0
            assert array._data.shape == shape and array._data.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(a.numpy(), values)


def test_a_kernel_error_status_stops_the_run_with_its_message() -> None:
    """run() calls each kernel's C function itself and checks the status it returns: an
    error raises KernelError with the kernel's message, in run() and in profile()."""
    import ctypes

    from xtvm.runtime.module import KernelError

    x = relay.var("x", shape=(4,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.exp(relay.nn.relu(x) + x)))
    module = graph_executor.GraphModule(relay.build(mod, "llvm")["default"](tvm.cpu()))
    module.set_input("x", np.ones(4, "float32"))
    executor = module._executor()
    _, args, kernel = executor.calls[0]
    failing = ctypes.CFUNCTYPE(ctypes.c_int32, *([ctypes.c_void_p] * len(args)))(lambda *_: 3)
    executor.calls[0] = (failing, args, kernel)
    executor.call_list = CallList(executor.calls)
    assert executor.call_list.native == (call_runner() is not None)
    kernel.returns_status, kernel._last_error = True, lambda: "kernel said no"
    with pytest.raises(KernelError, match="kernel said no"):
        module.run()
    with pytest.raises(KernelError, match="kernel said no"):
        executor.profile(1)


def test_profile_gives_the_mean_or_the_fastest_run_of_each_call() -> None:
    """A call slow once (as when another process takes its core) counts in the mean, not in
    the minimum; no runs at all is refused."""
    import ctypes
    import itertools
    import time

    x = relay.var("x", shape=(4,))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.exp(x)))
    module = graph_executor.GraphModule(relay.build(mod, "llvm")["default"](tvm.cpu()))
    module.set_input("x", np.ones(4, "float32"))
    executor = module._executor()
    raw, args, kernel = executor.calls[0]
    delays = itertools.cycle([0.05, 0.0, 0.0])  # one of any three calls in a row is slow

    def once_slow(*values: int) -> int:
        time.sleep(next(delays))
        return raw(*values)

    slow = ctypes.CFUNCTYPE(ctypes.c_int32, *([ctypes.c_void_p] * len(args)))(once_slow)
    executor.calls[0] = (slow, args, kernel)
    assert module.profile(3).seconds[0] >= 0.05 / 3
    assert module.profile(3, fastest=True).seconds[0] < 0.01
    with pytest.raises(ValueError, match="at least one run"):
        module.profile(0)


def multi_kernel_module() -> tuple[graph_executor.GraphModule, np.ndarray, np.ndarray]:
    """A graph of several kernels (conv, pool, dense, softmax, elementwise) and its inputs."""
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(6, 3, 3, 3))
    d = relay.var("d", shape=(4, 6))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y))
    out = relay.nn.softmax(relay.nn.dense(y, d)) * relay.exp(relay.nn.dense(y, d))
    mod = tvm.IRModule.from_expr(relay.Function([x, w, d], out))
    params = {"w": rand(6, 3, 3, 3), "d": rand(4, 6)}
    lib = relay.build(mod, target="llvm", params=params)
    return graph_executor.GraphModule(lib["default"](tvm.cpu())), rand(1, 3, 8, 8), rand(1, 3, 8, 8)


def python_loop(executor: GraphExecutor) -> None:
    """One run by calling each kernel from Python (what run() did before the native table)."""
    for raw, args, kernel in executor.calls:
        kernel.check(raw(*args))


def test_native_call_list_gives_the_python_loops_outputs() -> None:
    """run() walks the kernel calls in one native call; the outputs are bit for bit those of
    calling each kernel from Python, run after run with new inputs copied into the buffers."""
    if call_runner() is None:
        pytest.skip("no C compiler for the call runner")
    module, first, second = multi_kernel_module()
    executor = module._executor()
    assert len(executor.calls) >= 3
    assert executor.call_list.native
    assert [table is not None for _, table, _ in executor.call_list.segments] == [True]
    results = []
    for data in (first, second, first):
        module.set_input("x", data)
        python_loop(executor)
        expected = module.get_output(0).numpy().copy()
        executor.entries[executor.outputs[0]][...] = np.nan
        module.run()
        np.testing.assert_array_equal(module.get_output(0).numpy(), expected)
        results.append(expected)
    assert not np.array_equal(results[0], results[1])


def test_a_failing_kernel_in_the_native_table_stops_the_run_there() -> None:
    """A kernel in the middle of the table returning an error status raises its KernelError
    (the message it left) and the calls after it do not run, as from Python."""
    import ctypes

    from xtvm.runtime.module import KernelError

    module, data, _ = multi_kernel_module()
    module.set_input("x", data)
    executor = module._executor()
    ran: list[int] = []

    def recorder(position: int, status: int) -> Any:
        raw, args, _ = executor.calls[position]
        argtypes = [ctypes.c_void_p] * len(args)
        return ctypes.CFUNCTYPE(ctypes.c_int32, *argtypes)(
            lambda *a: ran.append(position) or raw(*a) or status
        )

    failing = len(executor.calls) // 2
    wrapped = [
        (recorder(i, 7 if i == failing else 0), args, kernel)
        for i, (_, args, kernel) in enumerate(executor.calls)
    ]
    kernel = wrapped[failing][2]
    kernel._last_error = lambda: f"{kernel.name}: bad input"
    executor.calls = wrapped
    executor.call_list = CallList(wrapped)
    assert executor.call_list.native == (call_runner() is not None)
    with pytest.raises(KernelError, match=f"^{kernel.name}: bad input$"):
        module.run()
    assert ran == list(range(failing + 1))


def test_without_a_c_compiler_the_calls_run_from_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With no C compiler to build the call runner, the executor runs each kernel from Python
    and gives the same outputs."""
    module, data, _ = multi_kernel_module()
    module.set_input("x", data)
    module.run()
    expected = module.get_output(0).numpy().copy()
    executor = module._executor()
    monkeypatch.setenv("CC", str(tmp_path / "no-cc"))
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    call_runner.cache_clear()
    try:
        assert call_runner() is None
        fallback = GraphExecutor(json.dumps(executor.graph), executor.lib)
    finally:
        call_runner.cache_clear()
    assert not fallback.call_list.native
    assert all(table is None for _, table, _ in fallback.call_list.segments)
    fallback.set_input("x", data)
    fallback.run()
    np.testing.assert_array_equal(fallback.get_output(0).numpy(), expected)
