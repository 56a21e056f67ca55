"""The device RPC server: the C runtime of `xtvm/runtime/c/` built into one binary.

`build_device_server("aarch64-linux-gnu", "xtvm-rpc-device")` compiles the runtime (modules,
kernel calls, the graph executor) and the RPC server on it with `aarch64-linux-gnu-gcc`; the
binary needs only libc, libdl and libm on the device, and serves the protocol of
docs/rpc-protocol.md as `python -m xtvm.exec.rpc_server` does:

    xtvm-rpc-device --host H --port P [--key K] [--tracker H:P] [--max-sessions N]

Libraries it loads are those `export_library` writes for the device's triple (linked with
`contrib.cc.cross_compiler("aarch64-linux-gnu-gcc")`); they need the device's libgomp.
"""

from __future__ import annotations

from pathlib import Path

from xtvm.backends.toolchain import CompileError, run_c_compiler

SOURCE_DIR = Path(__file__).resolve().parent.parent / "runtime" / "c"
SOURCES = ("json.c", "runtime.c", "rpc_server.c")
FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra")


class DeviceBuildError(CompileError):
    """The device server could not be compiled (a missing cross compiler, a failed build)."""


def compiler_for(triple: str | None) -> str | None:
    """The C compiler for `triple` (`<triple>-gcc`); None for the host's (`$CC`, gcc)."""
    if triple in (None, "", "host", "native"):
        return None
    return f"{triple}-gcc"


def build_device_server(
    output: str | Path, triple: str | None = None, compiler: str | None = None
) -> Path:
    """Compile the device server for `triple` (None: this machine) into `output`."""
    output = Path(output)
    sources = [str(SOURCE_DIR / name) for name in SOURCES]
    arguments = [*FLAGS, "-o", str(output), *sources, "-ldl", "-lm"]
    run_c_compiler(arguments, str(output), DeviceBuildError, compiler or compiler_for(triple))
    return output
