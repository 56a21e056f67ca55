"""The C device RPC server (xtvm/runtime/c, built by `xtvm-rpc-device`), native and emulated
with qemu-user for aarch64, riscv64 and armv7: cross-compiled TE kernels and a relay CNN run
through the client API against numpy and the relay interpreter, and the server keeps the
Python server's safety rules (confined uploads, bounded and well-formed messages, the key, a
crashing kernel ending only its session).

An architecture skips where its cross compiler, sysroot or qemu is missing (gcc-<triple>,
qemu-user).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import xtvm as tvm
from xtvm import autotvm, relay, rpc
from xtvm.contrib import cc, graph_executor
from xtvm.driver.aot import export_aot
from xtvm.rpc.protocol import MAGIC, PREFIX
from xtvm.runtime.module import export_linker
from xtvm.testing.rpc import (
    CRASHING_LIBRARY,
    check_buffer_views,
    check_kernels,
    check_scalar_kernels,
    ends_with_error,
    frame,
    raw_session,
    small_cnn,
    write_kernel_libraries,
)
from xtvm.tools.rpc_device import main as rpc_device_main

RNG = np.random.default_rng(11)


@dataclass(frozen=True)
class Arch:
    """A device architecture: its triple, LLVM target and how to run its programs here."""

    name: str
    triple: str | None  # None: this machine
    target: str
    qemu: str | None

    @property
    def compiler(self) -> str:
        return f"{self.triple}-gcc" if self.triple else "gcc"

    @property
    def sysroot(self) -> Path | None:
        return Path(f"/usr/{self.triple}") if self.triple else None

    def missing(self) -> str | None:
        """What this machine lacks to test the architecture, or None."""
        if shutil.which(self.compiler) is None:
            return f"no {self.compiler}"
        if self.qemu and shutil.which(self.qemu) is None:
            return f"no {self.qemu}"
        if self.sysroot and not self.sysroot.is_dir():
            return f"no {self.sysroot}"
        return None

    def command(self, binary: Path) -> list[str]:
        """How to start `binary` of this architecture here."""
        if self.qemu is None:
            return [str(binary)]
        return [self.qemu, "-L", str(self.sysroot), str(binary)]

    def linker(self) -> object:
        return cc.cross_compiler(self.compiler) if self.triple else None


ARCHES = [
    Arch("native", None, "llvm", None),
    Arch("aarch64", "aarch64-linux-gnu", "llvm -mtriple=aarch64-linux-gnu", "qemu-aarch64"),
    Arch("riscv64", "riscv64-linux-gnu", "llvm -mtriple=riscv64-linux-gnu", "qemu-riscv64"),
    Arch("armv7", "arm-linux-gnueabihf", "llvm -mtriple=armv7l-linux-gnueabihf", "qemu-arm"),
]


@dataclass
class Device:
    """A device server running (emulated) on loopback, registered with the tracker."""

    arch: Arch
    port: int
    key: str
    tracker_port: int
    libraries: Path

    def connect(self, key: str | None = None) -> rpc.RPCSession:
        return rpc.connect("127.0.0.1", self.port, key=self.key if key is None else key)


@pytest.fixture(scope="module")
def tracker() -> Iterator[rpc.Tracker]:
    with rpc.Tracker(port=0) as running:
        yield running


@pytest.fixture(scope="module", params=ARCHES, ids=[a.name for a in ARCHES])
def device(
    request: pytest.FixtureRequest, tracker: rpc.Tracker, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Device]:
    arch: Arch = request.param
    reason = arch.missing()
    if reason:
        pytest.skip(reason)
    directory = tmp_path_factory.mktemp(f"device-{arch.name}")
    binary = directory / "xtvm-rpc-device"
    triple = ["--triple", arch.triple] if arch.triple else []
    assert rpc_device_main([*triple, "-o", str(binary)]) == 0
    key = f"device-{arch.name}"
    command = arch.command(binary)
    command += ["--port", "0", "--key", key, "--tracker", f"127.0.0.1:{tracker.port}"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on [\d.]+:(\d+)", line)
    try:
        assert match, f"no port in {line!r}"
        yield Device(arch, int(match.group(1)), key, tracker.port, build_libraries(arch, directory))
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0


def test_the_tool_reports_a_missing_cross_compiler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "server"
    assert rpc_device_main(["--triple", "nonexistent-linux-gnu", "-o", str(output)]) == 1
    assert "no C compiler 'nonexistent-linux-gnu-gcc'" in capsys.readouterr().err
    assert not output.exists()


def build_libraries(arch: Arch, directory: Path) -> Path:
    """The test libraries of `xtvm.testing.rpc` for the device, and `crash.so`."""
    write_kernel_libraries(directory, arch.target, arch.linker())  # type: ignore[arg-type]
    source = directory / "crash.c"
    source.write_text(CRASHING_LIBRARY)
    subprocess.run(
        [arch.compiler, "-shared", "-fPIC", "-o", str(directory / "crash.so"), str(source)],
        check=True,
    )
    return directory


def test_kernels_run_on_the_device(device: Device) -> None:
    client = rpc.connect_tracker("127.0.0.1", device.tracker_port)
    with client.request(device.key, session_timeout=120, timeout=60) as remote:
        check_kernels(remote, device.libraries, RNG)
        assert remote.download("add.so") == (device.libraries / "add.so").read_bytes()
        add = remote.load_module("add.so")
        matmul = remote.load_module("matmul.so")
        dev = remote.cpu(0)
        a = tvm.nd.array(np.zeros(1000, "float32"), dev)
        b = tvm.nd.array(np.zeros(1000, "float32"), dev)
        c = tvm.nd.empty((1000,), "float32", dev)
        out = tvm.nd.empty((16, 8), "float32", dev)
        # Arguments the signature refuses fail the call, not the session.
        short = tvm.nd.array(np.zeros(5, "float32"), dev)
        with pytest.raises(rpc.RPCError, match=r"ArgumentError.*'n'"):
            add["add"](a, b, short)
        with pytest.raises(rpc.RPCError, match=r"ArgumentError.*expected float32\[16, 24\]"):
            matmul["matmul"](out, out, out)
        with pytest.raises(rpc.RPCError, match="AttributeError"):
            add["nope"]
        b.copyfrom(np.full(1000, 2, "float32"))
        add["add"](b, b, c)
        np.testing.assert_array_equal(c.numpy(), np.full(1000, 4, "float32"))


def test_scalars_and_many_arguments_on_the_device(device: Device) -> None:
    """Float scalars and calls of over 64 values reach the kernel by the device's C ABI."""
    with device.connect() as remote:
        check_scalar_kernels(remote, device.libraries, RNG)


def interpreted(mod: tvm.IRModule, params: dict[str, np.ndarray]) -> Callable[..., np.ndarray]:
    """The model's output for `data` by the relay interpreter."""
    run = relay.create_executor("debug", mod=mod, params=params).evaluate()
    return lambda data: run(data).numpy()


def test_relay_model_runs_on_the_device(device: Device, tmp_path: Path) -> None:
    mod, params = small_cnn(RNG)
    data = RNG.standard_normal((1, 3, 12, 12)).astype("float32")
    reference = interpreted(mod, params)
    expected = reference(data)
    path = tmp_path / "cnn.so"
    relay.build(mod, target=device.arch.target, params=params).export_library(
        path, device.arch.linker()
    )
    with device.connect() as remote:
        remote.upload(path)
        rlib = remote.load_module("cnn.so")
        assert "default" in rlib.functions
        dev = remote.cpu(0)
        module = graph_executor.GraphModule(rlib["default"](dev))
        with pytest.raises(rpc.RPCError, match=r"GraphInputError.*'data'"):
            module.run()
        module.set_input("data", tvm.nd.array(data))
        module.run()
        out = module.get_output(0)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
        shapes, dtypes = module.get_input_info()
        assert shapes["data"] == (1, 3, 12, 12) and dtypes["data"] == "float32"
        assert module.get_num_outputs() == 1
        np.testing.assert_array_equal(module.get_input("data").numpy(), data)
        with pytest.raises(rpc.RPCError, match=r"GraphInputError.*expected shape \[1, 3, 12, 12\]"):
            module.set_input("data", tvm.nd.array(data[:, :2]))
        timing = module.module.time_evaluator("run", dev, number=2, repeat=2)()
        assert len(timing.results) == 2 and timing.mean > 0
        check_buffer_views(module, reference, RNG)


def test_aot_model_runs_on_the_device(device: Device, tmp_path: Path) -> None:
    """An AOT library (export_aot) runs through the same graph executor interface."""
    mod, params = small_cnn(RNG)
    data = RNG.standard_normal((1, 3, 12, 12)).astype("float32")
    reference = interpreted(mod, params)
    expected = reference(data)
    factory = relay.build(mod, target=device.arch.target, params=params)
    with export_linker(device.arch.linker()):  # type: ignore[arg-type]
        export_aot(factory, tmp_path / "aot.so")
    with device.connect() as remote:
        remote.upload(tmp_path / "aot.so")
        rlib = remote.load_module("aot.so")
        assert "default" in rlib.functions
        module = graph_executor.GraphModule(rlib["default"](remote.cpu(0)))
        assert module.get_input_info() == ({"data": (1, 3, 12, 12)}, {"data": "float32"})
        module.set_input("data", tvm.nd.array(data))
        module.run()
        np.testing.assert_allclose(module.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)
        check_buffer_views(module, reference, RNG)


def test_rpc_runner_tunes_on_the_device(device: Device, tmp_path: Path) -> None:
    """autotvm measures candidates built for the device's target on the device."""
    task = autotvm.task.create("matmul.llvm", args=(16, 16, 16), target=device.arch.target)
    linker = device.arch.linker()
    option = autotvm.measure_option(
        builder=autotvm.LocalBuilder(build_func=linker or "default"),  # type: ignore[arg-type]
        runner=autotvm.RPCRunner(
            device.key, "127.0.0.1", device.tracker_port, number=2, repeat=2, timeout=60
        ),
    )
    log = tmp_path / "tune.log"
    tuner = autotvm.GridSearchTuner(task)
    tuner.tune(n_trial=2, measure_option=option, callbacks=[autotvm.callback.log_to_file(log)])
    records = list(autotvm.record.load_from_file(log))
    # The 2 trials, then the re-check of the best against the default on the device: none
    # when the default is the best, else a chosen and a rejected record.
    trials = [r for r in records if not r[1].verdict]
    verdicts = sorted(r[1].verdict for r in records if r[1].verdict)
    assert len(trials) == 2 and verdicts in ([], ["chosen", "rejected"])
    for _, result in trials:
        assert result.error_no == 0, result.error_msg
        assert len(result.costs) == 2 and all(c > 0 for c in result.costs)


def test_rpc_runner_reports_a_missing_device(tmp_path: Path) -> None:
    library = tmp_path / "candidate.so"  # the runner removes it once measured
    library.write_bytes(b"")
    runner = autotvm.RPCRunner("no-such-key", "127.0.0.1", 1, timeout=1)
    result = runner.run_one(autotvm.measure.BuildResult(str(library), [[[2], "float32"]]))
    assert result.error_no == autotvm.MeasureErrorNo.RUNTIME_DEVICE and result.error_msg
    assert not library.exists()


# ---------------------------------------------------------------------------------------------
# Safety


def connect_when_free(device: Device, seconds: float = 60) -> rpc.RPCSession:
    """A new session, waiting while the server is at its session limit: ended sessions take a
    moment to exit, longer under emulation on a loaded machine."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return device.connect()
        except rpc.RPCError as error:
            if "busy" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_escaping_upload_names_end_the_session(device: Device) -> None:
    escape = f"xtvm-device-escape-{uuid.uuid4().hex}.so"
    for name in [f"../{escape}", f"/tmp/{escape}", "a/b.so", "x\0y", "..", ".hidden"]:
        remote = connect_when_free(device)
        with pytest.raises(rpc.RPCError, match=r"refused file name.*session has ended"):
            remote.upload(b"payload", name)
        with pytest.raises(rpc.RPCError, match="the session has ended"):
            remote.cpu(0).empty_array((2,), "float32")
    assert not (Path("/tmp") / escape).exists()


HUGE = b'{"kind":"alloc","descriptor":{"dtype":"float64","shape":[65536,65536,65536]}}'
SHORT = b'{"kind":"alloc","tensors":[{"dtype":"float32","shape":[2],"nbytes":8}]}'


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (b"GET / HTTP/1.1\r\n\r\n", "not an xtvm RPC message"),
        (PREFIX.pack(MAGIC, 1 << 30, 0), "header of 1073741824 bytes exceeds"),
        (PREFIX.pack(MAGIC, 2, 1 << 40), "body of 1099511627776 bytes exceeds"),
        (frame(b"[]"), "header must be a JSON object"),
        (frame(b"\xff\xfe{}"), "header is not JSON"),
        (frame(b'{"kind":"nope"}'), "unknown message kind"),
        (frame(b'{"kind":"call","args":5'), "header is not JSON"),
        (frame(b"[" * 100_000), "header is not JSON"),
        (frame(b'{"kind":"copy_from","array":12345}'), "no array"),
        (frame(b'{"kind":"call","function":1,"args":[{"int":1,"x":2}]}'), "one field"),
        (frame(b'{"kind":"call","function":1,"args":[{"array":"x"}]}'), "must be int"),
        (frame(HUGE), "exceeds"),
        (frame(SHORT, b"abc"), "do not match"),
    ],
    ids=[
        "http",
        "header",
        "body",
        "array",
        "utf8",
        "kind",
        "json",
        "deep",
        "handle",
        "arg",
        "argtype",
        "huge",
        "short",
    ],
)
def test_garbage_messages_end_only_their_session(
    device: Device, message: bytes, error: str
) -> None:
    sock = raw_session(device.port, device.key)
    sock.sendall(message)
    ends_with_error(sock, error)
    with device.connect() as remote:  # the server goes on
        a = tvm.nd.array(np.arange(3, dtype="float32"), remote.cpu(0))
        np.testing.assert_array_equal(a.numpy(), [0, 1, 2])


def test_session_timeout_ends_the_session(device: Device) -> None:
    remote = rpc.connect("127.0.0.1", device.port, key=device.key, session_timeout=1)
    time.sleep(1.5)
    with pytest.raises(rpc.RPCError, match="timed out"):
        remote.cpu(0).empty_array((2,), "float32")


def test_wrong_key_is_refused(device: Device) -> None:
    with pytest.raises(rpc.RPCError, match="wrong key"):
        device.connect(key="guess")
    device.connect().close()


def test_a_crashing_kernel_ends_only_its_session(device: Device) -> None:
    remote = device.connect()
    remote.upload(device.libraries / "crash.so")
    crash = remote.load_module("crash.so")["crash"]
    with pytest.raises(rpc.RPCError, match=r"killed by SIGSEGV.*session has ended"):
        crash(tvm.nd.array(np.zeros(4, "float32"), remote.cpu(0)))
    with device.connect() as again:
        a = tvm.nd.array(np.ones(2, "float32"), again.cpu(0))
        np.testing.assert_array_equal(a.numpy(), [1, 1])
