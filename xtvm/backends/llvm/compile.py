"""From a tir module to machine code: LLVM IR, the O3 pipeline, then a JIT engine, an object
file, assembly or a shared library linked with the system compiler.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import tempfile
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import llvmlite.binding as llb
from llvmlite import ir
from xdsl.dialects.builtin import ModuleOp

from xtvm.backends.llvm.codegen import RELEASE_SYMBOL, emit_module
from xtvm.backends.llvm.target import LLVMTarget, initialize_llvm
from xtvm.backends.packed import write_packed
from xtvm.backends.toolchain import cached_object, link_shared
from xtvm.runtime.module import (
    EXPORT_LINKER,
    LAST_ERROR_SYMBOL,
    METADATA_SYMBOL,
    Module,
    metadata_json,
    signatures_of,
)
from xtvm.runtime.packed_call import PackedCall, bind_packed_calls
from xtvm.runtime.threads import POOL_SOURCE, pool_runtime


class LinkError(RuntimeError):
    """The system compiler could not link a shared library."""


def optimize(module: llb.ModuleRef, machine: llb.TargetMachine, opt_level: int) -> None:
    """Run LLVM's standard pipeline for `opt_level` (vectorization and unrolling at 2-3)."""
    options = llb.create_pipeline_tuning_options(speed_level=opt_level)
    options.loop_vectorization = opt_level >= 2
    options.slp_vectorization = opt_level >= 2
    options.loop_unrolling = opt_level >= 2
    builder = llb.create_pass_builder(machine, options)
    builder.getModulePassManager().run(module, builder)


JIT_LOCK = threading.Lock()


def release_buffers(engine: llb.ExecutionEngine, address: int) -> None:
    """Free the cached heap buffers of `engine`'s kernels (before the engine itself goes)."""
    ctypes.CFUNCTYPE(None)(address)()
    del engine  # held until here: the function lives in the engine's memory


@dataclass
class CompiledLLVM:
    """An optimized LLVM module and, once asked for, its JIT engine."""

    target: LLVMTarget
    ir_text: str
    module: llb.ModuleRef
    machine: llb.TargetMachine
    callbacks: dict[str, object] = field(default_factory=dict, repr=False)
    metadata: str | None = None  # the signatures embedded as `xtvm_module_metadata`
    # What the functions `tvm.tir.call_packed` called raised, by name (for the error message)
    packed_errors: dict[str, str] = field(default_factory=dict, repr=False)
    _engine: llb.ExecutionEngine | None = field(default=None, init=False, repr=False)

    def address(self, name: str) -> int:
        """The address of function `name` in the JIT (compiling on first use; a lock keeps
        threads creating executors at once from making two engines of one module)."""
        with JIT_LOCK:
            return self._address(name)

    def _address(self, name: str) -> int:
        if self._engine is None:
            if any(f.name == "xtvm_parallel_for" for f in self.module.functions):
                pool_runtime()  # only parallel code needs the pool (and a C compiler for it)
            engine = llb.create_mcjit_compiler(self.module, self.machine)
            engine.finalize_object()
            self._engine = engine
            release = engine.get_function_address(RELEASE_SYMBOL)
            if release:
                # The kernels' cached buffers go with the engine (a shared library frees
                # them as a static destructor).
                weakref.finalize(self, release_buffers, engine, release)
        return self._engine.get_function_address(name)

    def llvm_ir(self) -> str:
        return str(self.module)

    def assembly(self) -> str:
        return self.machine.emit_assembly(self.module)

    def object_code(self) -> bytes:
        return self.machine.emit_object(self.module)

    def export_library(
        self,
        path: str | Path,
        extra_objects: Sequence[Path] = (),
        libraries: Sequence[str] = (),
    ) -> None:
        """Link the object code into a shared library (with libm and its own copy of the
        thread pool, `runtime/c/threadpool.c`), with the kernels' packed entries
        (`xtvm.backends.packed`), `extra_objects` and `-l` of each of `libraries`."""
        if any(k.startswith("packed ") for k in self.callbacks):
            raise LinkError(
                "a kernel calling tvm.tir.call_packed (a Python function) cannot be exported "
                "to a library: it runs in this process's JIT only",
            )
        with tempfile.TemporaryDirectory() as tmp:
            obj = Path(tmp) / "module.o"
            obj.write_bytes(self.object_code())
            sources = [*write_packed(Path(tmp), self.metadata), POOL_SOURCE]
            flags = ("-O2", "-fPIC", "-pthread")
            if EXPORT_LINKER.get() is None:  # the system compiler: objects from the cache
                sources = [cached_object(s, flags, LinkError) for s in sources]
            inputs = [obj, *extra_objects, *sources]
            link_shared(Path(path), inputs, libraries, flags=flags, error=LinkError)


def compile_module(
    module: ModuleOp, target: str | LLVMTarget | None = None, metadata: str | None = None
) -> CompiledLLVM:
    """Translate and optimize the tir kernels of `module` for `target`.

    `metadata`, if given, is embedded as the C string `xtvm_module_metadata` (the kernel
    signatures a shared library carries for `load_module`).
    """
    initialize_llvm()
    llvm_target = LLVMTarget.parse(target)
    machine = llvm_target.machine()
    packed_calls: dict[str, PackedCall] = {}
    ir_module = emit_module(
        module, llvm_target.triple, str(machine.target_data), packed_calls=packed_calls
    )
    if metadata is not None:
        embed_string(ir_module, METADATA_SYMBOL, metadata)
    callbacks = bind_registered_functions(ir_module)
    packed_callbacks, packed_errors = bind_packed_calls(packed_calls, llb.add_symbol)
    callbacks.update({f"packed {k}": c for k, c in enumerate(packed_callbacks)})
    text = str(ir_module)
    parsed = llb.parse_assembly(text)
    parsed.verify()
    optimize(parsed, machine, llvm_target.opt_level)
    compiled = CompiledLLVM(llvm_target, text, parsed, machine, callbacks, metadata)
    compiled.packed_errors = packed_errors
    return compiled


CTYPES_OF: dict[str, object] = {
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "void": None,
}


def bind_registered_functions(module: ir.Module) -> dict[str, object]:
    """Make functions registered with `tvm.register_func` callable from the JIT code.

    Every external declaration whose name is in the global registry gets a C callback (scalar
    arguments and result) and its address as the symbol's definition: TVM's PackedFunc idea,
    prototype an operator in Python and call it from a kernel (`tir.call_extern "name"`).
    The callbacks must outlive the code: the compiled module keeps them.
    """
    from xtvm.runtime.registry import get_global_func

    callbacks: dict[str, object] = {}
    for function in module.functions:
        if not function.is_declaration or function.name.startswith("llvm."):
            continue
        python = get_global_func(function.name, allow_missing=True)
        if python is None:
            continue
        signature = function.function_type
        names = [str(signature.return_type), *(str(a) for a in signature.args)]
        if any(n not in CTYPES_OF for n in names):
            raise TypeError(
                f"registered function '{function.name}' is called with non-scalar types "
                f"({', '.join(names)}); only scalars cross into Python"
            )
        prototype = ctypes.CFUNCTYPE(*(CTYPES_OF[n] for n in names))
        callback = prototype(python)
        address = ctypes.cast(callback, ctypes.c_void_p).value
        llb.add_symbol(function.name, address)
        callbacks[function.name] = callback
    return callbacks


def embed_string(module: ir.Module, name: str, text: str) -> None:
    """A global `const char *name` pointing at `text`."""
    data = bytearray(text.encode()) + b"\0"
    array_type = ir.ArrayType(ir.IntType(8), len(data))
    chars = ir.GlobalVariable(module, array_type, f"{name}.chars")
    chars.initializer = ir.Constant(array_type, data)
    chars.global_constant = True
    chars.linkage = "private"
    pointer = ir.GlobalVariable(module, ir.IntType(8).as_pointer(), name)
    pointer.initializer = chars.bitcast(ir.IntType(8).as_pointer())
    pointer.global_constant = True


def jit_last_error(compiled: CompiledLLVM) -> Callable[[], str]:
    """The reader of the message a failing JIT kernel leaves (`xtvm_last_error`)."""

    def read() -> str:
        address = compiled.address(LAST_ERROR_SYMBOL)
        if not address:
            return ""
        text = ctypes.CFUNCTYPE(ctypes.c_char_p)(address)()
        message = (text or b"").decode(errors="replace")
        for callee, error in list(compiled.packed_errors.items()):
            if message == f"call_packed '{callee}' failed":
                message += f": {error}"
                del compiled.packed_errors[callee]
        return message

    return read


def build_module(module: ModuleOp, target: str | LLVMTarget | None = None) -> Module:
    """A runtime module of the public tir kernels in `module`, compiled for `target`; each
    kernel returns a status (see the codegen's ABI)."""
    signatures = signatures_of(module)
    compiled = compile_module(module, target, metadata_json(signatures, status=signatures))

    def source(fmt: str) -> str:
        if fmt in ("ll", "llvm", ""):
            return compiled.llvm_ir()
        if fmt in ("asm", "s"):
            return compiled.assembly()
        raise ValueError(f"unknown source format '{fmt}' (known: ll, asm)")

    return Module(
        signatures,
        compiled.address,
        keepalive=compiled,
        source=source,
        exporter=compiled.export_library,
        status=signatures,
        last_error=jit_last_error(compiled),
        object_code=compiled.object_code,
    )
