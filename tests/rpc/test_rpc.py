"""RPC: kernels and a relay model run in remote sessions (direct, through a tracker, local)
against numpy and local results, and the server's safety rules: confined uploads, bounded and
well-formed messages, the key, and kernels that crash ending only their own session; the same
tests for the C device server (tests/rpc/test_device.py runs it emulated)."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay, rpc
from xtvm.contrib import cc, graph_executor, utils
from xtvm.driver.aot import export_aot
from xtvm.rpc.device import build_device_server
from xtvm.rpc.protocol import MAGIC, PREFIX, Limits
from xtvm.testing.rpc import (
    CRASHING_LIBRARY,
    check_buffer_views,
    check_kernels,
    check_scalar_kernels,
    ends_with_error,
    raw_session,
    small_cnn,
    write_kernel_libraries,
)

RNG = np.random.default_rng(7)
KEY = "test-key"


@pytest.fixture(scope="module")
def tracker() -> Iterator[rpc.Tracker]:
    with rpc.Tracker(port=0) as running:
        yield running


@dataclass(frozen=True)
class DeviceServer:
    """The C device server (xtvm-rpc-device) built for this machine, on `port`."""

    port: int


Served = rpc.Server | DeviceServer


@pytest.fixture(scope="module", params=["python", "device"])
def server(
    request: pytest.FixtureRequest,
    tracker: rpc.Tracker,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Served]:
    """The Python server, then the device server: both must pass every test of the protocol."""
    if request.param == "python":
        with rpc.Server(port=0, key=KEY, tracker=("127.0.0.1", tracker.port)) as running:
            yield running
        return
    binary = build_device_server(tmp_path_factory.mktemp("device") / "xtvm-rpc-device")
    command = [str(binary), "--port", "0", "--key", KEY, "--tracker", f"127.0.0.1:{tracker.port}"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    match = re.search(r"listening on [\d.]+:(\d+)", process.stdout.readline())
    try:
        assert match is not None
        yield DeviceServer(int(match.group(1)))
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test libraries of `xtvm.testing.rpc` (linked with `cc.create_shared`)."""
    return write_kernel_libraries(tmp_path_factory.mktemp("rpc"), "llvm", cc.create_shared)


def test_kernels_run_remotely(server: Served, kernels: Path) -> None:
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        check_kernels(remote, kernels, RNG)
        # Arguments the kernel's signature refuses are an error of the call, not the session.
        dev = remote.cpu(0)
        a = tvm.nd.array(np.zeros(4, "float32"), dev)
        wrong = tvm.nd.array(np.zeros(5, "float32"), dev)
        with pytest.raises(rpc.RPCError, match="ArgumentError"):
            remote.load_module("add.so")["add"](a, a, wrong)
        b = tvm.nd.array(np.ones(4, "float32"), dev)
        b.copyfrom(np.full(4, 3, "float32"))
        remote.load_module("add.so")["add"](a, b, b)
        np.testing.assert_array_equal(b.numpy(), np.full(4, 3, "float32"))


def test_scalar_arguments_and_many_arguments(server: Served, kernels: Path) -> None:
    """Float, double and integer scalars, and a call of over 64 argument values; scalars
    that do not fit their parameter are refused, not wrapped."""
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        check_scalar_kernels(remote, kernels, RNG)
        axpby = remote.load_module("scalars.so")["axpby"]
        dev = remote.cpu(0)
        x = tvm.nd.array(np.ones(3, "float32"), dev)
        with pytest.raises(
            rpc.RPCError, match=r"ArgumentError.*\(b\).*300 is out of range for int8"
        ):
            axpby(x, x, 1.0, 1.0, 1, 300, 0)
        with pytest.raises(rpc.RPCError, match=r"ArgumentError.*\(k\).*integer"):
            axpby(x, x, 1.0, 1.0, 1.5, 1, 0)
        with pytest.raises(rpc.RPCError, match=r"ArgumentError.*\(alpha\)"):
            axpby(x, x, "one", 1.0, 1, 1, 0)
        axpby(x, x, 2.0, 0.5, 1, 1, 0)  # the session goes on
        np.testing.assert_array_equal(x.numpy(), [4.5, 4.5, 4.5])


def mapping(name: str) -> set[int]:
    """The processes of this machine that have a file called `name` mapped (a library)."""
    found = set()
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            if name in maps.read_text():
                found.add(int(maps.parent.name))
        except (OSError, ValueError):
            pass  # gone, or not ours
    return found


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="no /proc")
def test_freed_modules_are_unloaded(server: Served, kernels: Path, tmp_path: Path) -> None:
    """Freeing a module and all made from it unloads the library; `remove` deletes the
    file."""
    mod, params = small_cnn(RNG)
    relay.build(mod, target="llvm", params=params).export_library(tmp_path / "cnn.so")
    tag = uuid.uuid4().hex
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        remote.upload(kernels / "add.so", f"add-{tag}.so")
        remote.upload(tmp_path / "cnn.so", f"cnn-{tag}.so")
        dev = remote.cpu(0)
        data = tvm.nd.array(RNG.standard_normal((1, 3, 12, 12)).astype("float32"))
        for _ in range(2):  # unloaded, then loaded and run again
            module = remote.load_module(f"add-{tag}.so")
            add = module["add"]
            a = tvm.nd.array(np.ones(4, "float32"), dev)
            add(a, a, a)
            graph = graph_executor.GraphModule(remote.load_module(f"cnn-{tag}.so")["default"](dev))
            graph.run(data=data)
            out = graph.get_output(0)
            [session] = mapping(f"cnn-{tag}.so")  # the session's process
            assert mapping(f"add-{tag}.so") == {session}
            del module, add, graph
            assert mapping(f"cnn-{tag}.so")  # `out` refers to the executor's buffer
            assert abs(float(out.numpy().sum()) - 1) < 1e-5
            del out
            np.testing.assert_array_equal(a.numpy(), [2, 2, 2, 2])  # sends the queued free
            assert not mapping(f"add-{tag}.so") and not mapping(f"cnn-{tag}.so")
            # (A library whose thread pool started workers would stay: they run its code. This
            # small CNN's kernels run serially, so it goes.)
        remote.remove(f"add-{tag}.so")
        with pytest.raises(rpc.RPCError, match=r"FileNotFoundError.*no file"):
            remote.load_module(f"add-{tag}.so")
        with pytest.raises(rpc.RPCError, match="FileNotFoundError"):
            remote.remove(f"add-{tag}.so")


def test_modules_per_session_are_bounded(server: Served, kernels: Path) -> None:
    """At most 64 modules are loaded at once in a session; freeing some makes room, and the
    refusal ends only the request."""
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        remote.upload(kernels / "add.so")
        modules = [remote.load_module("add.so") for _ in range(Limits().max_modules)]
        with pytest.raises(rpc.RPCError, match=r"SessionLimitError: 64 modules are loaded"):
            remote.load_module("add.so")
        del modules[:2]
        add = remote.load_module("add.so")["add"]
        a = tvm.nd.array(np.ones(2, "float32"), remote.cpu(0))
        add(a, a, a)
        np.testing.assert_array_equal(a.numpy(), [2, 2])


def test_kernels_run_through_the_tracker(tracker: rpc.Tracker, server: Served, kernels: Path):
    client = rpc.connect_tracker("127.0.0.1", tracker.port)
    with client.request(KEY, priority=1, session_timeout=60, timeout=30) as remote:
        check_kernels(remote, kernels, RNG)
    summary = client.summary()
    # (the other kind of server may still be listed while the tracker notices it has gone)
    assert (KEY, server.port) in [(s["key"], s["port"]) for s in summary["servers"]]
    assert KEY in client.text_summary()
    with pytest.raises(rpc.RPCError, match="no server of key 'other'"):
        client.request("other", timeout=0.5, max_retry=1)


def test_local_session_runs_kernels(kernels: Path) -> None:
    with rpc.LocalSession() as remote:
        check_kernels(remote, kernels, RNG)


def test_relay_model_runs_remotely(server: Served) -> None:
    mod, params = small_cnn(RNG)
    lib = relay.build(mod, target="llvm", params=params)
    temp = utils.tempdir()
    path = temp.relpath("cnn.so")
    lib.export_library(path)
    data = RNG.standard_normal((1, 3, 12, 12)).astype("float32")
    reference = local_reference(lib)
    expected = reference(data)
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        remote.upload(path)
        rlib = remote.load_module("cnn.so")
        dev = remote.cpu(0)
        module = graph_executor.GraphModule(rlib["default"](dev))
        module.set_input("data", tvm.nd.array(data))
        module.run()
        out = module.get_output(0)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
        assert out.shape == (1, 5) and abs(float(out.numpy().sum()) - 1) < 1e-5
        shapes, dtypes = module.get_input_info()
        assert (shapes, dtypes) == graph_executor.GraphModule(lib["default"]()).get_input_info()
        assert shapes["data"] == (1, 3, 12, 12) and dtypes["data"] == "float32"
        assert module.get_num_outputs() == 1
        timing = module.module.time_evaluator("run", dev, number=3, repeat=2)()
        assert len(timing.results) == 2 and timing.mean > 0
        check_buffer_views(module, reference, RNG)
    temp.remove()
    assert not os.path.exists(path)


def local_reference(factory: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The output of `factory`'s graph for `data`, run in this process."""
    local = graph_executor.GraphModule(factory["default"](tvm.cpu(0)))

    def run(data: np.ndarray) -> np.ndarray:
        local.set_input("data", data)
        local.run()
        return local.get_output(0).numpy()

    return run


def test_aot_model_runs_remotely(server: Served, tmp_path: Path) -> None:
    """An `export_aot` library runs on either server through the graph executor interface."""
    mod, params = small_cnn(RNG)
    factory = relay.build(mod, target="llvm", params=params)
    export_aot(factory, tmp_path / "aot.so")
    reference = local_reference(factory)
    data = RNG.standard_normal((1, 3, 12, 12)).astype("float32")
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        remote.upload(tmp_path / "aot.so")
        rlib = remote.load_module("aot.so")
        assert "default" in rlib.functions
        dev = remote.cpu(0)
        module = graph_executor.GraphModule(rlib["default"](dev))
        assert module.get_input_info() == ({"data": (1, 3, 12, 12)}, {"data": "float32"})
        with pytest.raises(rpc.RPCError, match=r"GraphInputError.*'data'"):
            module.run()
        with pytest.raises(rpc.RPCError, match=r"GraphInputError.*expected shape"):
            module.set_input("data", tvm.nd.array(data[:, :2]))
        module.set_input("data", tvm.nd.array(data))
        module.run()
        np.testing.assert_allclose(module.get_output(0).numpy(), reference(data), rtol=1e-5)
        assert module.get_num_outputs() == 1
        timing = module.module.time_evaluator("run", dev, number=3, repeat=2)()
        assert len(timing.results) == 2 and timing.mean > 0
        check_buffer_views(module, reference, RNG)


# ---------------------------------------------------------------------------------------------
# Safety


@pytest.mark.parametrize("name", ["../escape.so", "/tmp/abs.so", "a/b.so", "x\0y", "..", ".hidden"])
def test_upload_names_that_escape_are_refused(name: str, tmp_path: Path) -> None:
    with rpc.LocalSession() as remote:
        directory = remote.transport.directory  # type: ignore[union-attr]
        with pytest.raises(rpc.RPCError, match="refused file name"):
            remote.upload(b"payload", name)
        assert remote.transport is None  # the session has ended
        assert not (directory.parent / "escape.so").exists()
    assert not Path("/tmp/abs.so").exists()


def test_upload_name_refused_by_the_server(server: Served) -> None:
    remote = rpc.connect("127.0.0.1", server.port, key=KEY)
    with pytest.raises(rpc.RPCError, match=r"refused file name.*session has ended"):
        remote.upload(b"payload", "../../escape.so")
    with pytest.raises(rpc.RPCError, match="the session has ended"):
        remote.cpu(0).empty_array((2,), "float32")


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (b"GET / HTTP/1.1\r\n\r\n", "not an xtvm RPC message"),
        (PREFIX.pack(MAGIC, 1 << 30, 0), "header of 1073741824 bytes exceeds"),
        (PREFIX.pack(MAGIC, 2, 1 << 40), "body of 1099511627776 bytes exceeds"),
        (PREFIX.pack(MAGIC, 2, 0) + b"[]", "header must be a JSON object"),
        (PREFIX.pack(MAGIC, 4, 0) + b"\xff\xfe{}", "header is not JSON"),
        (PREFIX.pack(MAGIC, 15, 0) + b'{"kind":"nope"}', "unknown message kind"),
    ],
)
def test_malformed_messages_end_only_their_session(
    server: Served, kernels: Path, message: bytes, error: str
) -> None:
    sock = raw_session(server.port, KEY)
    sock.sendall(message)
    ends_with_error(sock, error)
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:  # the server goes on
        a = tvm.nd.array(np.arange(3, dtype="float32"), remote.cpu(0))
        np.testing.assert_array_equal(a.numpy(), [0, 1, 2])


def test_oversized_tensor_descriptor_is_refused(server: Served) -> None:
    sock = raw_session(server.port, KEY)
    header = b'{"kind":"alloc","descriptor":{"dtype":"float64","shape":[65536,65536,65536]}}'
    sock.sendall(PREFIX.pack(MAGIC, len(header), 0) + header)
    ends_with_error(sock, "exceeds")


def test_wrong_key_is_refused(server: Served) -> None:
    with pytest.raises(rpc.RPCError, match="wrong key"):
        rpc.connect("127.0.0.1", server.port, key="guess")
    with pytest.raises(rpc.RPCError, match="wrong key"):
        rpc.connect("127.0.0.1", server.port)
    rpc.connect("127.0.0.1", server.port, key=KEY).close()


def test_a_crashing_kernel_ends_only_its_session(server: Served, tmp_path: Path) -> None:
    source = tmp_path / "crash.c"
    source.write_text(CRASHING_LIBRARY)
    library = tmp_path / "crash.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", library, source], check=True)
    remote = rpc.connect("127.0.0.1", server.port, key=KEY)
    remote.upload(library)
    crash = remote.load_module("crash.so")["crash"]
    with pytest.raises(rpc.RPCError, match=r"killed by SIGSEGV.*session has ended"):
        crash(tvm.nd.array(np.zeros(4, "float32"), remote.cpu(0)))
    with rpc.connect("127.0.0.1", server.port, key=KEY) as again:
        a = tvm.nd.array(np.ones(2, "float32"), again.cpu(0))
        np.testing.assert_array_equal(a.numpy(), [1, 1])


def test_remote_kernels_take_remote_arrays(server: Served, kernels: Path) -> None:
    with rpc.connect("127.0.0.1", server.port, key=KEY) as remote:
        remote.upload(kernels / "add.so")
        add = remote.load_module("add.so")["add"]
        x = np.zeros(3, "float32")
        with pytest.raises(TypeError, match="remote arrays"):
            add(x, x, x)


# ---------------------------------------------------------------------------------------------
# The commands


def start(*args: str) -> tuple[subprocess.Popen[str], int]:
    """Start `python -m xtvm.exec.<args>` and read the port it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", *args], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on [\d.]+:(\d+)", line)
    if match is None:
        process.kill()
        process.wait()
        raise AssertionError(f"no port in {line!r}")
    return process, int(match.group(1))


def test_commands_serve_and_report(kernels: Path) -> None:
    tracker, tracker_port = start("xtvm.exec.rpc_tracker", "--host", "127.0.0.1", "--port", "0")
    try:
        server, _ = start(
            "xtvm.exec.rpc_server", "--port", "0", "--key", "cli", "--tracker",
            f"127.0.0.1:{tracker_port}",
        )  # fmt: skip
        try:
            client = rpc.connect_tracker("127.0.0.1", tracker_port)
            with client.request("cli", timeout=60) as remote:
                check_kernels(remote, kernels, RNG)
            query = subprocess.run(
                [sys.executable, "-m", "xtvm.exec.query_rpc_tracker", "--port", str(tracker_port)],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert query.returncode == 0 and re.search(r"127\.0\.0\.1:\d+\s+cli\s", query.stdout)
        finally:
            server.terminate()
            assert server.wait(timeout=30) == 0
    finally:
        tracker.terminate()
        assert tracker.wait(timeout=30) == 0


def test_frame_layout() -> None:
    """The prefix is magic, header length (u32) and body length (u64), big-endian."""
    assert PREFIX.pack(MAGIC, 3, 5) == b"XRPC" + struct.pack(">I", 3) + struct.pack(">Q", 5)
