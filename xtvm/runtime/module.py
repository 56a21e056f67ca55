"""Compiled modules: named kernels callable on numpy arrays or `tvm.nd` arrays.

A `Module` holds machine code (a JIT engine or a loaded shared library) and the signature of
each kernel, taken from its tir function: buffer dtypes and shapes (static dimensions checked
at call time, dynamic ones passed to the kernel from the arrays, see the LLVM backend's ABI)
and scalar types. `export_library("k.so")` writes a shared library that carries the signatures
with it, so `load_module("k.so")` gives the same callable module in a process without the IR;
it also reads the libraries of `export_aot` (their kernels, and the entry point they add).
"""

from __future__ import annotations

import _ctypes
import ctypes
import json
import statistics
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func, memref, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue

from xtvm.ir.numpy_types import numpy_dtype
from xtvm.runtime.binding import (
    Dim,
    binding_plan,
    evaluate,
    int_op,
    kernel_arg_dims,
    message_variables,
    mismatch_message,
)
from xtvm.runtime.ndarray import NDArray

METADATA_SYMBOL = "xtvm_module_metadata"
# What relay.build's exported library embeds besides its kernels (the graph executor reads them).
GRAPH_SYMBOL = "xtvm_graph_json"
PARAMS_SYMBOL = "xtvm_graph_params"
PARAMS_SIZE_SYMBOL = "xtvm_graph_params_size"
# What an AOT library (xtvm.driver.aot) exports: its entry point and the JSON describing it.
MODEL_RUN_SYMBOL = "xtvm_model_run"
MODEL_METADATA_SYMBOL = "xtvm_model_metadata"
# The generated libraries' message of the last kernel error (`const char *xtvm_last_error(void)`).
LAST_ERROR_SYMBOL = "xtvm_last_error"
ERROR_BUFFER_BYTES = 512  # the size of the buffer holding that message (longer ones are cut)
STATUS_KEY = "#status"  # in the metadata: the functions that return a status (no C name)


# The linker `export_library(path, fcompile)` was given (TVM's `fcompile`, e.g.
# `contrib.cc.cross_compiler("aarch64-linux-gnu-gcc")`): called as
# `fcompile(output, objects, options=[...])`; None links with the system C compiler.
EXPORT_LINKER: ContextVar[Callable[..., object] | None] = ContextVar("EXPORT_LINKER", default=None)


@contextmanager
def export_linker(fcompile: Callable[..., object] | None) -> Iterator[None]:
    """Link the shared libraries written inside the block with `fcompile`; the default linker
    if it is None or False (TVM's `export_library(path, fcompile=False)`)."""
    token = EXPORT_LINKER.set(fcompile or None)
    try:
        yield
    finally:
        EXPORT_LINKER.reset(token)


class ArgumentError(ValueError):
    """A kernel was called with arguments that do not match its signature."""


@dataclass(frozen=True)
class Param:
    """One kernel parameter: a buffer (dtype, shape with None for dynamic dims) or a scalar.

    `dims` says what a buffer's dynamic dimensions are (variables, expressions: see
    `xtvm.runtime.binding`), `var` which variable a scalar is, `writes` whether the kernel may
    write the buffer (a read-only array is refused for it).
    """

    name: str
    dtype: str
    shape: tuple[int | None, ...] | None  # None: a scalar
    dims: tuple[Dim | None, ...] | None = None
    var: str | None = None
    writes: bool = True

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "dtype": self.dtype, "shape": self.shape}
        if self.dims is not None:
            data["dims"] = self.dims
        if self.var is not None:
            data["var"] = self.var
        if not self.writes:
            data["writes"] = False
        return data

    @staticmethod
    def from_json(data: dict[str, Any]) -> Param:
        shape, dims = data["shape"], data.get("dims")
        return Param(
            data["name"],
            data["dtype"],
            None if shape is None else tuple(shape),
            None if dims is None else tuple(dims),
            data.get("var"),
            data.get("writes", True),
        )


# Ops that only read a buffer operand; any other use of a kernel's buffer may write it.
READING_OPS = (memref.LoadOp, memref.DimOp, vector.LoadOp, vector.TransferReadOp)
VIEW_OPS = (
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
)


def may_write(value: SSAValue) -> bool:
    """Whether some use of the buffer `value` (or of a view of it) may write it."""
    for use in value.uses:
        op = use.operation
        if isinstance(op, READING_OPS):
            continue
        if isinstance(op, memref.CopyOp) and op.operands[use.index] is op.source:
            continue
        if isinstance(op, VIEW_OPS) and op.results:
            if any(may_write(r) for r in op.results):
                return True
            continue
        return True
    return False


def signature_of(function: func.FuncOp) -> list[Param]:
    arg_dims = kernel_arg_dims(function)
    body = function.body.block.args if function.body.blocks else None
    params: list[Param] = []
    for position, (typ, dims) in enumerate(
        zip(function.function_type.inputs.data, arg_dims, strict=True)
    ):
        name = (body[position].name_hint if body else None) or f"arg{position}"
        if isinstance(typ, MemRefType):
            shape = tuple(d if d >= 0 else None for d in typ.get_shape())
            symbolic = None
            if isinstance(dims, list) and any(
                d is not None and not isinstance(d, int) for d in dims
            ):
                symbolic = tuple(d if s is None else None for d, s in zip(dims, shape, strict=True))
            writes = body is None or may_write(body[position])
            params.append(
                Param(name, numpy_dtype(typ.element_type).name, shape, symbolic, writes=writes)
            )
        else:
            var = dims if isinstance(dims, str) else None
            params.append(Param(name, numpy_dtype(typ).name, None, var=var))
    return params


def signatures_of(module: ModuleOp) -> dict[str, list[Param]]:
    """The kernels a tir module defines and their parameters (each is callable by name)."""
    return {
        f.sym_name.data: signature_of(f)
        for f in module.ops
        if isinstance(f, func.FuncOp) and f.body.blocks
    }


CTYPES = {
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
    "int64": ctypes.c_int64,
    "int32": ctypes.c_int32,
    "int16": ctypes.c_int16,
    "int8": ctypes.c_int8,
    "uint8": ctypes.c_uint8,
    "bool": ctypes.c_bool,
}


def as_numpy(value: Any) -> Any:
    if isinstance(value, NDArray):
        return value._data  # the storage itself: outputs are written in place
    return value


def scalar_argument(where: str, dtype: str, arg: Any) -> Any:
    """`arg` for a scalar parameter of `dtype`: a number of its kind (an integer for an integer
    type, any real for a float type) within its range; never wrapped or truncated."""
    kind = np.dtype(dtype).kind
    if kind == "f":
        if isinstance(arg, int | float | np.integer | np.floating):
            return float(arg)
        raise ArgumentError(f"{where}: expected a {dtype} scalar, got {type(arg).__name__}")
    if not isinstance(arg, int | np.integer):
        raise ArgumentError(f"{where}: expected an integer scalar ({dtype}), got {arg!r:.40}")
    low, high = (0, 1) if kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
    if not low <= arg <= high:
        raise ArgumentError(f"{where}: {arg} is out of range for {dtype}")
    return int(arg)


class KernelError(RuntimeError):
    """A compiled kernel returned an error status (out of memory, a size that overflows, or
    arguments its own checks refused)."""


class PackedFunc:
    """A compiled kernel: `f(a, b, c)` on arrays, outputs written in place (TVM's calling style).

    Before each call the arguments are checked against the signature: counts, dtypes, ranks,
    static dimensions, layout, writability of the buffers the kernel writes, and agreement of
    every use of a symbolic dimension (TVM's argument binder). A kernel that `returns_status`
    (those of the LLVM and C backends) returns 0 or an error code, which raises `KernelError`
    with the message the kernel left in its library's `xtvm_last_error`.
    """

    def __init__(
        self,
        name: str,
        params: Sequence[Param],
        address: int,
        keepalive: object,
        returns_status: bool = False,
        last_error: Callable[[], str] | None = None,
    ) -> None:
        self.name = name
        self.params = list(params)
        self._keepalive = keepalive
        self.returns_status = returns_status
        self._last_error = last_error
        argtypes: list[Any] = []
        dynamic: list[Any] = []
        for param in self.params:
            if param.shape is None:
                argtypes.append(CTYPES[param.dtype])
            else:
                argtypes.append(ctypes.c_void_p)
                dynamic.extend(ctypes.c_int64 for d in param.shape if d is None)
        restype = ctypes.c_int32 if returns_status else None
        self._raw = ctypes.CFUNCTYPE(restype, *argtypes, *dynamic)(address)
        self._plan = binding_plan(
            [p.var if p.shape is None else (p.dims or p.shape) for p in self.params]
        )

    def _function(self, *args: Any) -> None:
        """Call the kernel on converted arguments; an error status raises `KernelError`."""
        self.check(self._raw(*args))

    def check(self, status: int | None) -> None:
        """Raise `KernelError` for an error status the raw call (`_raw`) returned: a caller
        running many kernels (the graph executor) calls `_raw` itself, one Python call less."""
        if self.returns_status and status:
            detail = self._last_error() if self._last_error else ""
            raise KernelError(detail or f"{self.name}: the kernel failed with status {status}")

    def __call__(self, *args: Any) -> None:
        self._function(*self.convert(args))

    def convert(self, args: Sequence[Any]) -> list[Any]:
        """The C arguments of a call, after checking counts, dtypes, shapes, layout,
        writability and the agreement of symbolic dimensions."""
        if len(args) != len(self.params):
            raise ArgumentError(
                f"{self.name} takes {len(self.params)} arguments "
                f"({', '.join(p.name for p in self.params)}), got {len(args)}"
            )
        values: list[Any] = []
        dynamic: list[int] = []
        arrays: list[Any] = []
        for position, (param, arg) in enumerate(zip(self.params, args, strict=True)):
            arg = as_numpy(arg)
            arrays.append(arg)
            where = f"{self.name}: argument {position} ({param.name})"
            if param.shape is None:
                values.append(scalar_argument(where, param.dtype, arg))
                continue
            if not isinstance(arg, np.ndarray):
                raise ArgumentError(f"{where}: expected an array, got {type(arg).__name__}")
            expected = [("?" if d is None else d) for d in param.shape]
            if (
                arg.dtype != np.dtype(param.dtype)
                or arg.ndim != len(param.shape)
                or any(
                    d is not None and d != a for d, a in zip(param.shape, arg.shape, strict=True)
                )
            ):
                raise ArgumentError(
                    f"{where}: expected {param.dtype}{expected}, got {arg.dtype}{list(arg.shape)}"
                )
            if not arg.flags.c_contiguous:
                raise ArgumentError(f"{where}: the array must be C-contiguous")
            if param.writes and not arg.flags.writeable:
                raise ArgumentError(
                    f"{where}: the kernel writes this argument, but the array is read-only"
                )
            values.append(arg.ctypes.data)
            dynamic.extend(a for d, a in zip(param.shape, arg.shape, strict=True) if d is None)
        self.check_dimensions(arrays)
        return values + dynamic

    def check_dimensions(self, arrays: Sequence[Any]) -> None:
        """Every use of a symbolic dimension agrees with the argument that binds it."""

        def value(ref: Any) -> int:
            arg = arrays[ref.arg]
            return int(arg) if ref.dim is None else int(arg.shape[ref.dim])

        plan = self._plan
        variables = {name: value(ref) for name, ref in plan.bindings.items()}
        for check in plan.checks:
            actual = value(check.ref)
            wanted = evaluate(check.expected, variables.__getitem__, int_op, int)
            if actual == wanted:
                continue
            names = [p.name for p in self.params]
            text = mismatch_message(self.name, names, plan, check)
            shown = [actual, wanted, *(variables[v] for v in message_variables(check))]
            raise ArgumentError(text.replace("%lld", "%d") % tuple(shown))


@dataclass
class BenchmarkResult:
    """Seconds per call for each repeat (TVM's `time_evaluator` result)."""

    results: list[float]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.results)

    @property
    def median(self) -> float:
        return statistics.median(self.results)

    @property
    def min(self) -> float:
        return min(self.results)

    @property
    def max(self) -> float:
        return max(self.results)

    @property
    def std(self) -> float:
        return statistics.pstdev(self.results)

    def __str__(self) -> str:
        ms = [r * 1e3 for r in self.results]
        return (
            f"Execution time summary:\n mean (ms)   median (ms)    max (ms)     min (ms)     std"
            f" (ms)\n {statistics.fmean(ms):10.4f} {statistics.median(ms):12.4f} "
            f"{max(ms):11.4f} {min(ms):11.4f} {statistics.pstdev(ms):11.4f}"
        )


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "thread": time.thread_time}


def time_function(
    call: Callable[[], object],
    number: int = 10,
    repeat: int = 1,
    min_repeat_ms: float = 0,
    clock: str = "wall",
    flush: Callable[[], object] | None = None,
) -> BenchmarkResult:
    """Seconds per call: `repeat` measurements of `number` calls (more if under min_repeat_ms).
    `clock="thread"` counts the calling thread's CPU time, not the time it waited for a core:
    on a shared machine, what a kernel run on that thread alone (one thread) costs. `flush`,
    called untimed before each call, evicts the caches: each call then reads its inputs and
    weights from memory, as a kernel does inside a model (TVM's `enable_cpu_cache_flush`)."""
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock '{clock}' ({', '.join(CLOCKS)})")
    now = CLOCKS[clock]
    call()  # warm up: first-touch of memory, lazy JIT
    results: list[float] = []
    for _ in range(repeat):
        count = number
        while True:
            elapsed = 0.0
            if flush is None:
                start = now()
                for _ in range(count):
                    call()
                elapsed = now() - start
            for _ in range(count if flush is not None else 0):
                flush()
                start = now()
                call()
                elapsed += now() - start
            if elapsed * 1e3 >= min_repeat_ms or min_repeat_ms <= 0:
                break
            count *= 2
        results.append(elapsed / count)
    return BenchmarkResult(results)


class Module:
    """Compiled kernels by name: `m["mm"](a, b, c)`, `m.time_evaluator("mm", dev)`."""

    def __init__(
        self,
        signatures: dict[str, list[Param]],
        address: Callable[[str], int],
        keepalive: object = None,
        source: Callable[[str], str] | None = None,
        exporter: Callable[[Path], None] | None = None,
        type_key: str = "llvm",
        status: Collection[str] = (),
        last_error: Callable[[], str] | None = None,
        object_code: Callable[[], bytes] | None = None,
    ) -> None:
        self.signatures = signatures
        self._object_code = object_code
        self.status_functions = frozenset(status)  # these return 0 or an error code
        self._last_error = last_error
        self._address = address
        self._keepalive = keepalive
        self._source = source
        self._exporter = exporter
        self._functions: dict[str, PackedFunc] = {}
        self.type_key = type_key
        self.imported_modules: list[Module] = []

    entry_name: str | None = None
    graph_library: Path | None = None  # a loaded library that embeds a relay.build graph
    model_metadata: str | None = None  # an AOT library's inputs and outputs (JSON)
    # What `lib["default"]` gives for such a library (set by xtvm/runtime/loader.py).
    default_factory: Callable[[], Any] | None = None
    # The weights relay.build bound, by graph input name: a graph executor created on this
    # library starts with them (as on a TVM library built with link-params).
    linked_params: Mapping[str, Any] | None = None

    def __call__(self, *args: Any) -> None:
        """Call the entry function (the only one, or the one `build` was asked to name)."""
        name = self.entry_name or (
            next(iter(self.signatures)) if len(self.signatures) == 1 else None
        )
        if name is None:
            raise ValueError("module has several functions: call one by name, m['name'](...)")
        self.get_function(name)(*args)

    def get_function(self, name: str) -> PackedFunc:
        if name not in self._functions:
            if name not in self.signatures:
                known = ", ".join(sorted(self.signatures)) or "none"
                raise AttributeError(f"module has no function '{name}' (functions: {known})")
            params = self.signatures[name]
            # The function keeps the code alive, not this module: no cycle through the cache,
            # so a module goes (and a loaded library with it) when its last user does.
            self._functions[name] = PackedFunc(
                name,
                params,
                self._address(name),
                (self._keepalive, self.imported_modules),
                returns_status=name in self.status_functions,
                last_error=self._last_error,
            )
        return self._functions[name]

    def __getitem__(self, name: str) -> Any:
        """`lib["name"]` is a kernel; `lib["default"]` of a library that `relay.build`'s
        factory exported creates its graph executor, as TVM's `lib["default"](dev)` does."""
        if name == "default" and name not in self.signatures and self.default_factory:
            return self.default_factory()
        return self.get_function(name)

    def __contains__(self, name: str) -> bool:
        return name in self.signatures

    def time_evaluator(
        self,
        name: str,
        dev: object = None,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: float = 0,
        clock: str = "wall",
        flush: Callable[[], object] | None = None,
    ) -> Callable[..., BenchmarkResult]:
        """A function that times `name` called with its arguments: `repeat` results of the
        mean seconds over `number` calls (kernels called directly, their arguments converted
        once)."""
        function = self.get_function(name)

        def evaluate(*args: Any) -> BenchmarkResult:
            if not isinstance(function, PackedFunc):  # an executor's function ("run")
                return time_function(lambda: function(*args), number, repeat, min_repeat_ms)
            converted = function.convert(args)
            raw = function._function
            return time_function(
                lambda: raw(*converted), number, repeat, min_repeat_ms, clock, flush
            )

        return evaluate

    def get_source(self, fmt: str = "ll") -> str:
        """The generated code: LLVM IR (`ll`) or assembly (`asm`/`s`)."""
        if self._source is None:
            raise ValueError("this module was loaded from a library and has no source")
        return self._source(fmt)

    def save(self, path: str | Path, fmt: str = "") -> None:
        """Write the code to `path`: an object file (`.o`, which `contrib.cc.create_shared`
        links into a library `load_module` reads), LLVM IR (`.ll`) or assembly (`.s`)."""
        fmt = fmt or Path(path).suffix.lstrip(".")
        if fmt in ("o", "obj"):
            if self._object_code is None:
                raise ValueError("this module has no object code to save")
            Path(path).write_bytes(self._object_code())
            return
        Path(path).write_text(self.get_source("asm" if fmt == "s" else fmt))

    def export_library(
        self, path: str | Path, fcompile: Callable[..., object] | None = None, **_: object
    ) -> None:
        """Write a shared library that `load_module` reads back, linked by `fcompile` if given
        (`contrib.cc.create_shared`, `contrib.cc.cross_compiler(...)`)."""
        if self._exporter is None:
            raise ValueError("this module cannot be exported")
        with export_linker(fcompile):
            self._exporter(Path(path))

    def __repr__(self) -> str:
        return f"Module({self.type_key}: {', '.join(sorted(self.signatures))})"


def metadata_json(signatures: dict[str, list[Param]], status: Collection[str] = ()) -> str:
    """The signatures a library embeds; `status` names the functions returning a status."""
    data: dict[str, Any] = {n: [p.to_json() for p in ps] for n, ps in signatures.items()}
    data[STATUS_KEY] = sorted(status)
    return json.dumps(data)


def library_last_error(library: ctypes.CDLL) -> Callable[[], str] | None:
    """The reader of a loaded library's last kernel error message (None if it has none)."""
    address = symbol_address(library, LAST_ERROR_SYMBOL)
    if not address:
        return None
    function = ctypes.CFUNCTYPE(ctypes.c_char_p)(address)
    return lambda: (function() or b"").decode(errors="replace")


def load_library(path: str | Path) -> Module:
    """A module from a shared library written by `export_library` (its kernels; a graph it
    embeds is noted in `graph_library`, which `loader.load_module` turns into `lib["default"]`)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such library: {path}")
    from xtvm.runtime.threads import openmp_runtime, register_pool

    openmp_runtime()  # before a library that links it (oneDNN's runtime) loads it unset
    library = ctypes.CDLL(str(path.resolve()))
    if symbol_address(library, "xtvm_set_num_threads"):
        register_pool(library)  # its own copy of the thread pool
    model = symbol_text(library, MODEL_METADATA_SYMBOL)
    text = symbol_text(library, METADATA_SYMBOL)
    if text is None and model is None:
        raise ValueError(f"{path} was not written by xtvm's export_library")
    data = json.loads(text or "{}")
    status = data.pop(STATUS_KEY, [])
    signatures = {n: [Param.from_json(p) for p in ps] for n, ps in data.items()}

    def address(name: str) -> int:
        found = symbol_address(library, name)
        if not found:
            raise AttributeError(f"{path}: no symbol '{name}'")
        return found

    module = Module(
        signatures,
        address,
        keepalive=library,
        status=status,
        last_error=library_last_error(library),
    )
    if has_symbol(library, GRAPH_SYMBOL):
        module.graph_library = path
    if model is not None:
        module.model_metadata = model
    return module


def symbol_address(library: ctypes.CDLL, name: str) -> int:
    """The address of `name` in a loaded library, 0 if it has none. (Not `library[name]` or
    `getattr`: ctypes' function objects by name refer to themselves and to the library, a
    cycle that keeps the library loaded until the next collection.)"""
    try:
        return int(_ctypes.dlsym(library._handle, name))  # type: ignore[attr-defined]
    except OSError:
        return 0


def has_symbol(library: ctypes.CDLL, name: str) -> bool:
    """Whether a loaded library defines `name`."""
    return symbol_address(library, name) != 0


def symbol_text(library: ctypes.CDLL, name: str) -> str | None:
    """The C string `const char *name` of a loaded library; None if it has no such symbol."""
    try:
        text = ctypes.c_char_p.in_dll(library, name).value
    except ValueError:
        return None
    return (text or b"").decode()
