"""xtvm's thread pool (`runtime/c/threadpool.c`): parallel loops give numpy's numbers at any
thread count, from several Python threads at once, with a core taken, and in an exported
library; `relay.build` runs small kernels serially and keeps large ones parallel."""

from __future__ import annotations

import ctypes
import itertools
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, te
from xtvm.runtime.loader import load_module
from xtvm.runtime.threads import get_num_threads, num_threads, set_num_threads

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def restore_thread_count() -> Iterator[None]:
    yield
    set_num_threads(num_threads())


def parallel_kernel(rows: int, cols: int) -> tvm.runtime.Module:
    """B[i, j] = sum_k A[i, k] * (k + j) over rows in parallel (each row's work differs in
    nothing, so any chunk the pool gives a thread must land in its own rows)."""
    A = te.placeholder((rows, cols), name="A")
    k = te.reduce_axis((0, cols), name="k")
    B = te.compute(
        (rows, cols), lambda i, j: te.sum(A[i, k] * (k + j).astype("float32"), axis=k), name="B"
    )
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    return tvm.build(s, [A, B], "llvm", name="rows")


def expected(a: np.ndarray) -> np.ndarray:
    cols = a.shape[1]
    return a @ (np.arange(cols)[:, None] + np.arange(cols)[None, :]).astype(np.float32)


def run(f: tvm.runtime.Module, a: np.ndarray) -> np.ndarray:
    b = tvm.nd.empty(a.shape)
    f(tvm.nd.array(a), b)
    return b.numpy()


@pytest.mark.parametrize("rows", [1, 2, 3, 17, 1000])
@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_parallel_loop_matches_numpy_at_any_thread_count(rows: int, threads: int) -> None:
    """Fewer rows than threads, rows not a multiple of the chunk, more threads than cores."""
    f = parallel_kernel(rows, 9)
    a = RNG.standard_normal((rows, 9)).astype(np.float32)
    set_num_threads(threads)
    assert get_num_threads() == threads
    for _ in range(3):  # the pool's threads are reused from one loop to the next
        np.testing.assert_allclose(run(f, a), expected(a), rtol=1e-5, atol=1e-4)


ChunkBody = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


@pytest.mark.parametrize(("lower", "upper"), [(0, 1), (0, 2), (3, 10), (0, 100), (-7, 1000)])
@pytest.mark.parametrize("threads", [2, 3, 5])
def test_each_thread_has_its_own_slice_of_a_loop(lower: int, upper: int, threads: int) -> None:
    """The pool cuts a loop into one slice per thread (the iterations a thread runs at every
    launch, unless another took them over): its chunks cover every iteration once and none
    crosses from one slice into the next."""
    from xtvm.runtime.threads import pool_runtime

    chunks: list[tuple[int, int]] = []
    lock = threading.Lock()

    def body(_: int | None, begin: int, end: int) -> None:
        with lock:
            chunks.append((begin, end))

    callback = ChunkBody(body)
    set_num_threads(threads)
    launch = pool_runtime().xtvm_parallel_for
    launch.argtypes = [ChunkBody, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
    launch.restype = None
    for _ in range(3):
        chunks.clear()
        launch(callback, None, lower, upper)
        covered = sorted(chunks)
        assert covered[0][0] == lower and covered[-1][1] == upper
        assert all(a[1] == b[0] for a, b in itertools.pairwise(covered))
        total, team = upper - lower, min(threads, upper - lower)
        cuts = {lower + t * total // team for t in range(1, team)}
        assert not any(begin < cut < end for begin, end in covered for cut in cuts)


def test_parallel_loops_launched_from_several_threads_at_once() -> None:
    """A thread launching while the pool is busy runs its loop itself: every result right."""
    f = parallel_kernel(300, 16)
    inputs = [RNG.standard_normal((300, 16)).astype(np.float32) for _ in range(4)]
    set_num_threads(2)
    results: dict[int, list[np.ndarray]] = {}

    def work(index: int) -> None:
        results[index] = [run(f, inputs[index]) for _ in range(20)]

    workers = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for index, outputs in results.items():
        for got in outputs:
            np.testing.assert_allclose(got, expected(inputs[index]), rtol=1e-5, atol=1e-4)
    assert len(results) == 4


def test_parallel_loop_with_a_core_taken() -> None:
    """Another process spinning on a core: the loops still finish, with the right numbers."""
    f = parallel_kernel(500, 32)
    a = RNG.standard_normal((500, 32)).astype(np.float32)
    core = max(os.sched_getaffinity(0))
    spinner = subprocess.Popen(
        [sys.executable, "-c", "while True: pass"],
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
    )
    try:
        set_num_threads(2)
        for _ in range(50):
            np.testing.assert_allclose(run(f, a), expected(a), rtol=1e-5, atol=1e-4)
    finally:
        spinner.kill()
        spinner.wait()


def test_exported_library_runs_on_its_own_pool(tmp_path: Path) -> None:
    """An exported library carries the pool; loading it registers it, so set_num_threads
    reaches it."""
    f = parallel_kernel(200, 8)
    path = tmp_path / "rows.so"
    f.export_library(str(path))
    loaded = load_module(path)
    a = RNG.standard_normal((200, 8)).astype(np.float32)
    from xtvm.runtime.threads import POOLS

    [get_count] = [g for lib, (_, g) in POOLS.items() if Path(lib._name) == path.resolve()]
    for threads in (3, 1, 2):
        set_num_threads(threads)
        assert get_count() == threads
        np.testing.assert_allclose(run(loaded, a), expected(a), rtol=1e-5, atol=1e-4)


def test_thread_count_comes_from_the_environment() -> None:
    """XTVM_NUM_THREADS in a fresh process, for every thread of it (the count is
    process-wide)."""
    script = (
        "import threading; from xtvm.runtime.threads import get_num_threads; "
        "counts = [get_num_threads()]; "
        "t = threading.Thread(target=lambda: counts.append(get_num_threads())); "
        "t.start(); t.join(); print(*counts)"
    )
    env = os.environ | {"XTVM_NUM_THREADS": "3"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["3", "3"]


def add_model(shape: tuple[int, ...]) -> tuple[tvm.IRModule, np.ndarray, np.ndarray]:
    x = relay.var("x", shape=shape, dtype="float32")
    y = relay.var("y", shape=shape, dtype="float32")
    mod = tvm.IRModule.from_expr(relay.Function([x, y], relay.exp(x) + y))
    a, b = (RNG.standard_normal(shape).astype(np.float32) for _ in range(2))
    return mod, a, b


@pytest.mark.parametrize(
    ("shape", "parallel"),
    [((4, 16), False), ((2, 3, 5), False), ((768, 64), True), ((1024, 1024), True)],
)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_relay_build_forks_threads_only_for_large_kernels(
    shape: tuple[int, ...], parallel: bool, threads: int
) -> None:
    """The kernel of a small elementwise op runs on the caller alone (no launch of the pool
    in its code); a large one is run by the pool, as is exp(x) + y over 768 x 64 (an exp
    counts as the polynomial it is, not as one op). Both give numpy's numbers."""
    from xtvm.contrib import graph_executor

    mod, a, b = add_model(shape)
    factory = relay.build(mod, target="llvm")
    source = factory.get_lib().get_source()
    assert ("xtvm_parallel_for" in source) == parallel
    set_num_threads(threads)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=a, y=b)
    np.testing.assert_allclose(module.get_output(0).numpy(), np.exp(a) + b, rtol=1e-5, atol=1e-5)


def test_forked_child_runs_parallel_loops() -> None:
    """A child of fork() has none of the parent's workers: its loops still finish, right."""
    f = parallel_kernel(300, 8)
    a = RNG.standard_normal((300, 8)).astype(np.float32)
    set_num_threads(2)
    run(f, a)  # the parent's workers exist
    with warnings.catch_warnings():  # fork() of a threaded process warns; that is the point
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: exit 0 only with the right numbers
        code = 1
        try:
            if all(np.allclose(run(f, a), expected(a), rtol=1e-5, atol=1e-4) for _ in range(5)):
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_without_a_c_compiler_only_parallel_code_is_refused(tmp_path: Path) -> None:
    """The JIT builds the pool with the system compiler: without one, serial kernels still
    run and set_num_threads works; a parallel one is a clear error, not a crash."""
    script = (
        "import numpy as np, xtvm as tvm; from xtvm import te; "
        "from xtvm.runtime.threads import set_num_threads, get_num_threads; "
        "set_num_threads(2); assert get_num_threads() == 2; "
        "A = te.placeholder((64,), name='A'); C = te.compute((64,), lambda i: A[i] * 2.0); "
        "s = te.create_schedule(C.op); f = tvm.build(s, [A, C], 'llvm', name='k'); "
        "c = tvm.nd.empty((64,)); f(tvm.nd.array(np.ones(64, 'float32')), c); "
        "assert (c.numpy() == 2).all(); s[C].parallel(C.op.axis[0]); "
        "tvm.build(s, [A, C], 'llvm', name='p')(tvm.nd.array(np.ones(64, 'float32')), c)"
    )
    env = os.environ | {"CC": str(tmp_path / "no-cc"), "XTVM_CACHE_DIR": str(tmp_path / "c")}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"xtvm.runtime.threads.ThreadPoolError: no C compiler '{tmp_path / 'no-cc'}' to build "
        "xtvm's thread pool (set CC)"
    )


def test_every_stage_of_a_softmax_runs_on_the_pool() -> None:
    """GPT-2's attention softmax (12 heads of 64 x 64): its max, exp-sum and normalising
    loops are each parallel (the exp loops were serial when an exp of a vector of 64 counted
    as one op, and a plain sum of the same size stays serial); numpy's numbers at 2
    threads."""
    from xtvm.contrib import graph_executor

    x = relay.var("x", shape=(1, 12, 64, 64))
    factory = relay.build(
        tvm.IRModule.from_expr(relay.Function([x], relay.nn.softmax(x, axis=-1))), "llvm"
    )
    assert factory.get_lib().get_source().count("call void @xtvm_parallel_for") == 3
    y = relay.var("y", shape=(1, 12, 64, 64))
    plain = tvm.IRModule.from_expr(relay.Function([x, y], x + y))
    assert "xtvm_parallel_for" not in relay.build(plain, "llvm").get_lib().get_source()
    a = RNG.standard_normal((1, 12, 64, 64)).astype(np.float32)
    set_num_threads(2)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=a)
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(module.get_output(0).numpy(), e / e.sum(-1, keepdims=True), 1e-5)


def test_a_transposing_kernel_counts_one_load_per_gathered_lane() -> None:
    """GPT-2's K into heads, transposed (12 x 64 x 64, each vector of 64 gathered down a
    column): its loop runs on the pool; numpy's numbers at 2 threads."""
    from xtvm.contrib import graph_executor

    x = relay.var("x", shape=(1, 64, 768))
    heads = relay.transpose(relay.reshape(x, (1, 64, 12, 64)), (0, 2, 3, 1))
    y = relay.reshape(heads * relay.const(0.125), (12, 64, 64))
    factory = relay.build(tvm.IRModule.from_expr(relay.Function([x], y)), "llvm")
    assert "xtvm_parallel_for" in factory.get_lib().get_source()
    a = RNG.standard_normal((1, 64, 768)).astype(np.float32)
    set_num_threads(2)
    module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
    module.run(x=a)
    expected = (a.reshape(1, 64, 12, 64).transpose(0, 2, 3, 1) * 0.125).reshape(12, 64, 64)
    np.testing.assert_array_equal(module.get_output(0).numpy(), expected)
