"""tir → LLVM IR with llvmlite: one walk over each kernel, one table row per op.

The ABI of a generated kernel `@k(%A: memref<4x?xf32>, %n: index)` is the C function
`int32_t k(float *A, int64_t n, int64_t A_dim1)`: a memref argument is a pointer to its first
element (row-major, contiguous; arguments are `noalias`, as TVM's are `restrict`), followed by
one `int64_t` per dynamic dimension; scalars are passed as themselves. It returns 0, or 1 after
leaving a message that `const char *xtvm_last_error(void)` returns (one buffer per library):
the entry checks the dynamic dimensions as the argument binder does (`xtvm.runtime.binding`:
every use of a symbolic size agrees, none is negative), and a heap buffer whose size overflows
or that `aligned_alloc` cannot give is an error, not a wrap or a crash.

Loops: `serial`, `vectorized` and `unrolled` loops become plain counted loops (LLVM's loop
vectorizer and unroller take it from there; `tir-vectorize`/`tir-unroll` do it explicitly);
a `parallel` loop is outlined into a function over a chunk of its iterations and run by
xtvm's thread pool (`xtvm_parallel_for`, `xtvm/runtime/threads.py`), whose thread count
`XTVM_NUM_THREADS` sets; a parallel loop nested in another runs serially in its thread.
Thread-bound loops run serially on the CPU. Buffers a kernel allocates live on the stack
when small, on the heap otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llb
from llvmlite import ir
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xtvm.backends.llvm.power import pow_f32, power_by_constant, splat_value
from xtvm.backends.llvm.vector_math import (
    VectorFunction,
    erf_f32,
    exp_f32,
    is_f32_vector,
    splat,
    tanh_f32,
)
from xtvm.dialects import tir
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.symbols import check_symbol
from xtvm.ir.verify import MAX_BUFFER_BYTES, located_error
from xtvm.runtime.binding import (
    BindingPlan,
    binding_plan,
    entry_checks,
    kernel_arg_dims,
    printf_escape,
)
from xtvm.runtime.module import ERROR_BUFFER_BYTES, LAST_ERROR_SYMBOL
from xtvm.runtime.packed_call import HANDLE, PackedCall, check_packed_name
from xtvm.runtime.registry import get_global_func

STACK_LIMIT_BYTES = 64 * 1024  # intermediate buffers up to this size are allocas
RELEASE_SYMBOL = "xtvm_release_buffers"  # frees the kernels' cached heap buffers


class CodegenError(DiagnosticError):
    """The LLVM backend cannot translate an op."""


def fail(op: Operation, message: str) -> CodegenError:
    """A located error at `op` (the tools show its source line)."""
    return CodegenError(located_error(op, message).diagnostics)


# ---------------------------------------------------------------------------------------------
# Types


def llvm_type(typ: Attribute, where: Operation | None = None) -> ir.Type:
    """The LLVM type of a scalar or vector builtin type (`index` is i64)."""
    if isinstance(typ, IndexType):
        return ir.IntType(64)
    if isinstance(typ, IntegerType):
        return ir.IntType(typ.width.data)
    if isinstance(typ, Float32Type):
        return ir.FloatType()
    if isinstance(typ, Float64Type):
        return ir.DoubleType()
    if isinstance(typ, Float16Type):
        return ir.HalfType()
    if isinstance(typ, VectorType):
        shape = typ.get_shape()
        if len(shape) != 1:
            raise TypeError(f"only 1-d vectors are supported, got {typ}")
        return ir.VectorType(llvm_type(typ.element_type), shape[0])
    message = f"the LLVM backend has no type for {typ}"
    if where is not None:
        raise fail(where, message)
    raise TypeError(message)


def memory_type(typ: ir.Type) -> ir.Type:
    """How a value of `typ` is stored: bools take a byte each, as in numpy (i1 vectors packed
    in bits would not match)."""
    if isinstance(typ, ir.VectorType) and typ.element == ir.IntType(1):
        return ir.VectorType(ir.IntType(8), typ.count)
    return ir.IntType(8) if typ == ir.IntType(1) else typ


def load_value(
    b: ir.IRBuilder, address: ir.Value, typ: ir.Type, align: int | None = None
) -> ir.Value:
    stored = memory_type(typ)
    if stored != typ:
        address = b.bitcast(address, stored.as_pointer())
    value = b.load(address, align=align)
    return b.trunc(value, typ) if stored != typ else value


def store_value(
    b: ir.IRBuilder, value: ir.Value, address: ir.Value, align: int | None = None
) -> None:
    stored = memory_type(value.type)
    if stored != value.type:
        value = b.zext(value, stored)
        address = b.bitcast(address, stored.as_pointer())
    b.store(value, address, align=align)


def is_float(typ: ir.Type) -> bool:
    if isinstance(typ, ir.VectorType):
        typ = typ.element
    return isinstance(typ, ir.FloatType | ir.DoubleType | ir.HalfType)


def element_of(typ: Attribute) -> Attribute:
    return typ.element_type if isinstance(typ, VectorType) else typ


def mangle(typ: ir.Type) -> str:
    """LLVM's overload suffix of a type: f32, i64, v8f32."""
    if isinstance(typ, ir.VectorType):
        return f"v{typ.count}{mangle(typ.element)}"
    if isinstance(typ, ir.IntType):
        return f"i{typ.width}"
    return {ir.FloatType: "f32", ir.DoubleType: "f64", ir.HalfType: "f16"}[type(typ)]


I64 = ir.IntType(64)
I32 = ir.IntType(32)
I8_PTR = ir.IntType(8).as_pointer()
F64 = ir.DoubleType()


@dataclass
class Buffer:
    """A memref value: pointer to its first element and its dimensions (i64 values)."""

    pointer: ir.Value
    dims: list[ir.Value]
    element: ir.Type
    strides: list[ir.Value] | None = None  # a view's (memref.subview), else row-major
    # On the stack (a small memref.alloc, such as a register tile): accessed by plain loads and
    # stores only, which LLVM promotes to registers and forwards.
    on_stack: bool = False

    def offset(self, builder: ir.IRBuilder, indices: Sequence[ir.Value]) -> ir.Value:
        """The linear index of `indices`."""
        if not indices:
            return ir.Constant(I64, 0)
        if self.strides is not None:
            terms = [builder.mul(i, s) for i, s in zip(indices, self.strides, strict=True)]
            linear = terms[0]
            for term in terms[1:]:
                linear = builder.add(linear, term)
            return linear
        linear = indices[0]
        for dim, index in zip(self.dims[1:], indices[1:], strict=True):
            linear = builder.add(builder.mul(linear, dim), index)
        return linear

    def address(self, builder: ir.IRBuilder, indices: Sequence[ir.Value]) -> ir.Value:
        return builder.gep(self.pointer, [self.offset(builder, indices)], inbounds=True)

    def all_strides(self, builder: ir.IRBuilder) -> list[ir.Value]:
        if self.strides is not None:
            return list(self.strides)
        strides: list[ir.Value] = [ir.Constant(I64, 1)]
        for dim in reversed(self.dims[1:]):
            strides.insert(0, builder.mul(strides[0], dim))
        return strides


def memref_type(typ: Attribute, where: Operation) -> MemRefType:
    if not isinstance(typ, MemRefType):
        raise fail(where, f"expected a memref, got {typ}")
    if not isinstance(typ.layout, NoneAttr) and "strided" in str(typ.layout):
        raise fail(where, f"the LLVM backend supports contiguous memrefs only, got {typ}")
    return typ


def signature_types(function: func.FuncOp) -> list[ir.Type]:
    """The LLVM parameter types of a kernel: see the module docstring for the ABI."""
    types: list[ir.Type] = []
    dynamic: list[ir.Type] = []
    for typ in function.function_type.inputs.data:
        if isinstance(typ, MemRefType):
            types.append(memory_type(llvm_type(typ.element_type, function)).as_pointer())
            dynamic.extend(I64 for d in typ.get_shape() if d < 0)
        else:
            types.append(llvm_type(typ, function))
    return types + dynamic


def size_constant(value: int) -> ir.Value:
    return ir.Constant(I64, value)


# ---------------------------------------------------------------------------------------------
# The walk


Rule = Callable[["FunctionEmitter", Any], None]
RULES: dict[type[Operation], Rule] = {}


def rule(*op_types: type[Operation]) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for op_type in op_types:
            RULES[op_type] = fn
        return fn

    return register


@dataclass
class ModuleEmitter:
    """Translates a module of tir kernels; holds the LLVM module and shared declarations."""

    module: ir.Module
    target_data: Any
    functions: dict[str, ir.Function] = field(default_factory=dict)
    outlined: int = 0
    # `tvm.tir.call_packed` sites: generated symbol -> what its callback receives
    packed_calls: dict[str, PackedCall] = field(default_factory=dict)
    cache_sites: list[ir.GlobalVariable] = field(default_factory=list)

    def declare(self, name: str, ret: ir.Type, args: Sequence[ir.Type]) -> ir.Function:
        existing = self.module.globals.get(name)
        if isinstance(existing, ir.Function):
            return existing
        return ir.Function(self.module, ir.FunctionType(ret, list(args)), name)

    def aligned_alloc(self) -> ir.Function:
        return self.declare("aligned_alloc", I8_PTR, [I64, I64])

    def error_buffer(self) -> ir.GlobalVariable:
        """The library's last error message, and `xtvm_last_error()` that returns it.

        One buffer per library, not per thread: the JIT cannot allocate thread-local
        storage. Concurrent failing calls may see each other's message; status codes stay
        exact.
        """
        existing = self.module.globals.get(f"{LAST_ERROR_SYMBOL}.text")
        if isinstance(existing, ir.GlobalVariable):
            return existing
        typ = ir.ArrayType(ir.IntType(8), ERROR_BUFFER_BYTES)
        text = ir.GlobalVariable(self.module, typ, f"{LAST_ERROR_SYMBOL}.text")
        text.linkage = "internal"
        text.initializer = ir.Constant(typ, None)
        reader = ir.Function(self.module, ir.FunctionType(I8_PTR, []), LAST_ERROR_SYMBOL)
        b = ir.IRBuilder(reader.append_basic_block("entry"))
        b.ret(b.bitcast(text, I8_PTR))
        return text

    def report(self, b: ir.IRBuilder, message: str, values: Sequence[ir.Value]) -> None:
        """Format `message` (printf, `%lld` per i64 of `values`) into the error buffer."""
        text = self.error_buffer()
        data = bytearray(message.encode()) + b"\0"
        typ = ir.ArrayType(ir.IntType(8), len(data))
        constant = ir.GlobalVariable(self.module, typ, self.module.get_unique_name("xtvm.error"))
        constant.linkage = "private"
        constant.global_constant = True
        constant.initializer = ir.Constant(typ, data)
        snprintf = self.module.globals.get("snprintf")
        if not isinstance(snprintf, ir.Function):
            snprintf = ir.Function(
                self.module, ir.FunctionType(I32, [I8_PTR, I64, I8_PTR], var_arg=True), "snprintf"
            )
        arguments = [b.bitcast(text, I8_PTR), ir.Constant(I64, ERROR_BUFFER_BYTES)]
        b.call(snprintf, [*arguments, b.bitcast(constant, I8_PTR), *values])

    def cached_buffer(
        self, b: ir.IRBuilder, size: ir.Value
    ) -> tuple[ir.Value, tuple[ir.Value, ir.Value]]:
        """A heap block of `size` bytes from a cache of its own allocation site.

        A fixed-size buffer a kernel allocates on every call (a padded input, winograd
        tiles) would otherwise come from malloc each time; glibc serves large blocks with
        fresh mmaps, and faulting their pages in cost more than the kernel's work (a 1.8 MB
        buffer: 0.65 -> 2.6 ms). The site keeps its block for later calls; a call finding
        it taken (the kernel running on another thread at the same time) allocates its own.
        `xtvm_release_buffers`, run as a static destructor, frees the blocks.
        Returns the pointer and (busy flag, whether the cached block was taken).
        """
        site = len(self.cache_sites)
        cache = ir.GlobalVariable(self.module, I8_PTR, f"xtvm.buffer.{site}")
        cache.linkage = "internal"
        cache.initializer = ir.Constant(I8_PTR, None)
        busy = ir.GlobalVariable(self.module, I32, f"xtvm.buffer.{site}.busy")
        busy.linkage = "internal"
        busy.initializer = ir.Constant(I32, 0)
        self.cache_sites.append(cache)
        alloc = self.aligned_alloc()
        taken = b.atomic_rmw("xchg", busy, ir.Constant(I32, 1), "acquire")
        free = b.icmp_unsigned("==", taken, ir.Constant(I32, 0))
        with b.if_else(free) as (from_cache, fresh):
            with from_cache:
                held = b.load(cache)
                with b.if_then(b.icmp_unsigned("==", held, ir.Constant(I8_PTR, None))):
                    b.store(b.call(alloc, [ir.Constant(I64, 64), size]), cache)
                cached_block = b.load(cache)
                cached_end = b.block
            with fresh:
                fresh_block = b.call(alloc, [ir.Constant(I64, 64), size])
                fresh_end = b.block
        pointer = b.phi(I8_PTR)
        pointer.add_incoming(cached_block, cached_end)
        pointer.add_incoming(fresh_block, fresh_end)
        return pointer, (busy, free)

    def finish(self) -> None:
        """Define `xtvm_release_buffers` (freeing the site caches) as a static destructor."""
        if not self.cache_sites:
            return
        release = ir.Function(self.module, ir.FunctionType(ir.VoidType(), []), RELEASE_SYMBOL)
        b = ir.IRBuilder(release.append_basic_block("entry"))
        free = self.declare("free", ir.VoidType(), [I8_PTR])
        for cache in self.cache_sites:
            b.call(free, [b.load(cache)])
            b.store(ir.Constant(I8_PTR, None), cache)
        b.ret_void()
        entry = ir.LiteralStructType([I32, release.type, I8_PTR])
        table = ir.GlobalVariable(self.module, ir.ArrayType(entry, 1), "llvm.global_dtors")
        table.linkage = "appending"
        table.initializer = ir.Constant(
            ir.ArrayType(entry, 1),
            [ir.Constant(entry, [ir.Constant(I32, 65535), release, ir.Constant(I8_PTR, None)])],
        )

    def intrinsic(
        self, name: str, overloads: Sequence[ir.Type], arity: int = 1, ret: ir.Type | None = None
    ) -> ir.Function:
        """The LLVM intrinsic `name` overloaded on `overloads` (mangled as LLVM does).

        Its `arity` parameters have the first overload's type, as does its result unless
        `ret` says otherwise.
        """
        mangled = ".".join([name, *(mangle(t) for t in overloads)])
        operand = overloads[0]
        return self.declare(mangled, ret or operand, [operand] * arity)


@dataclass
class FunctionEmitter:
    """Emits one LLVM function's body from tir ops."""

    owner: ModuleEmitter
    function: ir.Function
    builder: ir.IRBuilder
    values: dict[SSAValue, Any] = field(default_factory=dict)
    in_parallel: bool = False
    heap: list[ir.Value] = field(default_factory=list)
    # In a parallel loop's outlined function: where it records a failure for its caller.
    failed_flag: ir.Value | None = None
    kernel: str = ""  # the tir kernel's name (errors name it, not an outlined function)
    # Raw pointers of buffers from a site cache: (the site's busy flag, whether this call
    # holds the cached block).
    cached: dict[ir.Value, tuple[ir.Value, ir.Value]] = field(default_factory=dict)

    # -- values ----------------------------------------------------------------------------

    def get(self, value: SSAValue) -> Any:
        if value in self.values:
            return self.values[value]
        owner = value.owner
        if isinstance(owner, Operation):
            raise fail(owner, "value used before it is defined")
        raise CodegenError.at(None, f"block argument {value.name_hint or ''} used out of scope")

    def set(self, value: SSAValue, result: Any) -> None:
        auto_named = isinstance(result, ir.NamedValue) and result.name.startswith(".")
        if auto_named and value.name_hint:
            result.name = value.name_hint
        self.values[value] = result

    def free_heap(self) -> None:
        """Free the heap buffers still live (at a return)."""
        for pointer in self.heap:
            self.release(pointer)
        self.heap.clear()

    def release(self, pointer: ir.Value) -> None:
        """Give a heap buffer back: its site's cache when it holds that (`owned`), else free."""
        raw = pointer.operands[0] if isinstance(pointer, ir.CastInstr) else pointer
        owned = self.cached.get(raw)
        free = self.owner.declare("free", ir.VoidType(), [I8_PTR])
        if owned is None:
            self.builder.call(free, [self.builder.bitcast(pointer, I8_PTR)])
            return
        busy, flag = owned
        with self.builder.if_else(flag) as (cached, fresh):
            with cached:
                store = self.builder.store_atomic(ir.Constant(I32, 0), busy, "release", 4)
                assert store is not None
            with fresh:
                self.builder.call(free, [raw])

    # -- errors ----------------------------------------------------------------------------

    def check(self, ok: ir.Value, message: str = "", values: Sequence[ir.Value] = ()) -> None:
        """Go on where `ok` holds; else report `message` (if any) and leave with an error."""
        b = self.builder
        failed = self.function.append_basic_block("error")
        passed = self.function.append_basic_block("ok")
        b.cbranch(ok, passed, failed)
        b.position_at_end(failed)
        if message:
            self.owner.report(b, message, values)
        self.leave_with_error()
        b.position_at_end(passed)

    def leave_with_error(self) -> None:
        """Free the live heap buffers and return an error status (an outlined parallel body
        records it for the kernel, which returns it after the loop)."""
        for pointer in self.heap:
            self.release(pointer)
        if self.failed_flag is not None:
            self.builder.store(ir.Constant(I32, 1), self.failed_flag)
            self.builder.ret_void()
        else:
            self.builder.ret(ir.Constant(I32, 1))

    def bind_arguments(self, plan: BindingPlan, names: Sequence[str], dims: Any) -> None:
        """The argument binder at the kernel's entry (see `xtvm.runtime.binding`)."""
        checks = entry_checks(self.function.name, names, plan, dims, self.size_op, size_constant)
        for actual, wanted, message, shown in checks:
            if wanted is None:
                holds = self.builder.icmp_signed(">=", actual, ir.Constant(I64, 0))
            else:
                holds = self.builder.icmp_signed("==", actual, wanted)
            self.check(holds, message, shown)

    def size_op(self, op: str, a: ir.Value, b: ir.Value) -> ir.Value:
        """A binder expression's operator on i64 sizes (floor division, as te's)."""
        builder = self.builder
        if op == "add":
            return builder.add(a, b)
        if op == "sub":
            return builder.sub(a, b)
        if op == "mul":
            return builder.mul(a, b)
        zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
        divisor = builder.select(builder.icmp_signed("==", b, zero), one, b)  # no trap on 0
        quotient, remainder = builder.sdiv(a, divisor), builder.srem(a, divisor)
        adjust = builder.and_(
            builder.icmp_signed("!=", remainder, zero),
            builder.icmp_signed(
                "!=",
                builder.icmp_signed("<", remainder, zero),
                builder.icmp_signed("<", divisor, zero),
            ),
        )
        if op == "floordiv":
            return builder.sub(quotient, builder.zext(adjust, I64))
        return builder.add(remainder, builder.select(adjust, divisor, zero))

    # -- blocks ----------------------------------------------------------------------------

    def emit_block(self, block: Block) -> list[Any]:
        """Emit `block`'s ops; the values its terminator yields (scf.yield) if any."""
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                return [self.get(v) for v in op.operands]
            if isinstance(op, tir.YieldOp):
                return []
            emit = RULES.get(type(op))
            if emit is None:
                raise fail(op, f"the LLVM backend cannot translate '{op.name}'")
            emit(self, op)
        return []

    def entry_alloca(self, typ: ir.Type, count: int = 1, name: str = "") -> ir.Value:
        """A stack slot in the function's entry block (so loops do not grow the stack)."""
        with self.builder.goto_entry_block():
            entry = self.function.entry_basic_block
            if entry.instructions:
                self.builder.position_before(entry.instructions[0])
            size = ir.Constant(I64, count)
            slot = self.builder.alloca(typ, size=size if count != 1 else None, name=name)
            slot.align = 64 if count != 1 else slot.align
            return slot

    def counted_loop(
        self,
        lower: ir.Value,
        upper: ir.Value,
        step: ir.Value,
        name: str,
        body: Callable[[ir.Value, list[ir.Value]], list[ir.Value]],
        carried: Sequence[ir.Value] = (),
    ) -> list[ir.Value]:
        """`for iv in range(lower, upper, step)` carrying values; returns their final values."""
        b = self.builder
        preheader = b.block
        header = self.function.append_basic_block(f"{name}.header")
        body_block = self.function.append_basic_block(f"{name}.body")
        exit_block = self.function.append_basic_block(f"{name}.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(lower.type, name=name)
        iv.add_incoming(lower, preheader)
        phis = []
        for value in carried:
            phi = b.phi(value.type)
            phi.add_incoming(value, preheader)
            phis.append(phi)
        b.cbranch(b.icmp_signed("<", iv, upper), body_block, exit_block)
        b.position_at_end(body_block)
        next_values = body(iv, phis)
        latch = b.block
        iv_next = b.add(iv, step, name=f"{name}.next")
        b.branch(header)
        iv.add_incoming(iv_next, latch)
        for phi, value in zip(phis, next_values, strict=True):
            phi.add_incoming(value, latch)
        b.position_at_end(exit_block)
        return phis


# -- loops ------------------------------------------------------------------------------------


@rule(tir.ForOp)
def emit_tir_for(e: FunctionEmitter, op: tir.ForOp) -> None:
    if op.kind.data == "parallel" and not e.in_parallel:
        emit_parallel(e, op)
        return
    lower, upper = e.get(op.lower_bound), e.get(op.upper_bound)
    name = op.induction_variable.name_hint or "i"

    def body(iv: ir.Value, _: list[ir.Value]) -> list[ir.Value]:
        e.values[op.induction_variable] = iv
        e.emit_block(op.body.block)
        return []

    e.counted_loop(lower, upper, ir.Constant(I64, 1), name, body)


@rule(scf.ForOp)
def emit_scf_for(e: FunctionEmitter, op: scf.ForOp) -> None:
    iv_arg, *carried_args = op.body.block.args
    lower, upper, step = e.get(op.lb), e.get(op.ub), e.get(op.step)
    if lower.type != I64:
        raise fail(op, "the LLVM backend supports scf.for over index only")

    def body(iv: ir.Value, phis: list[ir.Value]) -> list[ir.Value]:
        e.values[iv_arg] = iv
        for arg, phi in zip(carried_args, phis, strict=True):
            e.values[arg] = phi
        return e.emit_block(op.body.block)

    finals = e.counted_loop(
        lower, upper, step, iv_arg.name_hint or "i", body, [e.get(v) for v in op.iter_args]
    )
    for result, value in zip(op.results, finals, strict=True):
        e.set(result, value)


@rule(scf.IfOp)
def emit_scf_if(e: FunctionEmitter, op: scf.IfOp) -> None:
    b = e.builder
    cond = e.get(op.cond)
    then_block = e.function.append_basic_block("if.then")
    else_block = e.function.append_basic_block("if.else")
    merge = e.function.append_basic_block("if.end")
    b.cbranch(cond, then_block, else_block)
    incoming: list[tuple[list[ir.Value], ir.Block]] = []
    for block, region in ((then_block, op.true_region), (else_block, op.false_region)):
        b.position_at_end(block)
        values = e.emit_block(region.block) if region.blocks else []
        incoming.append((values, b.block))
        b.branch(merge)
    b.position_at_end(merge)
    for position, result in enumerate(op.results):
        phi = b.phi(llvm_type(result.type, op))
        for values, block in incoming:
            phi.add_incoming(values[position], block)
        e.set(result, phi)


@rule(scf.WhileOp)
def emit_scf_while(e: FunctionEmitter, op: scf.WhileOp) -> None:
    """A while loop without carried values (ir_builder's `while_loop`): the `before`
    region computes the condition, checked before each run of the `after` region."""
    if op.arguments or op.results:
        raise fail(op, "the LLVM backend supports scf.while without carried values only")
    b = e.builder
    header = e.function.append_basic_block("while.cond")
    body = e.function.append_basic_block("while.body")
    done = e.function.append_basic_block("while.end")
    b.branch(header)
    b.position_at_end(header)
    for inner in op.before_region.block.ops:
        if isinstance(inner, scf.ConditionOp):
            b.cbranch(e.get(inner.condition), body, done)
            break
        emit = RULES.get(type(inner))
        if emit is None:
            raise fail(inner, f"the LLVM backend cannot translate '{inner.name}'")
        emit(e, inner)
    b.position_at_end(body)
    e.emit_block(op.after_region.block)
    b.branch(header)
    b.position_at_end(done)


def captured_values(op: Operation) -> list[SSAValue]:
    """SSA values used inside `op`'s regions but defined outside it, in first-use order."""
    inside: set[SSAValue] = set()
    for nested in op.walk():
        inside.update(nested.results)
        for region in nested.regions:
            for block in region.blocks:
                inside.update(block.args)
    seen: dict[SSAValue, None] = {}
    for nested in op.walk():
        if nested is op:
            continue
        for operand in nested.operands:
            if operand not in inside:
                seen.setdefault(operand, None)
    return list(seen)


def emit_parallel(e: FunctionEmitter, op: tir.ForOp) -> None:
    """Outline the loop's body into `void body(void *captures, i64 begin, i64 end)` over a
    chunk of its iterations, run by xtvm's thread pool (`xtvm_parallel_for`,
    `xtvm/runtime/c/threadpool.c`): the pool hands out chunks to whichever threads run, so a
    thread whose core another process holds does not hold up the loop."""
    owner, b = e.owner, e.builder
    captures = captured_values(op)
    fields: list[ir.Value] = []
    layout: list[tuple[SSAValue, list[int]]] = []
    for value in captures:
        current = e.get(value)
        if isinstance(current, Buffer):
            dynamic = [i for i, d in enumerate(current.dims) if not isinstance(d, ir.Constant)]
            layout.append((value, dynamic))
            fields.append(current.pointer)
            fields.extend(current.dims[i] for i in dynamic)
        elif isinstance(current, ir.Constant):
            layout.append((value, []))
        else:
            layout.append((value, []))
            fields.append(current)
    fields.append(ir.Constant(I32, 0))  # set by a thread that fails (out of memory)
    struct = ir.LiteralStructType([f.type for f in fields])
    slot = e.entry_alloca(struct, name="captures")
    for position, value in enumerate(fields):
        b.store(value, b.gep(slot, [ir.Constant(I32, 0), ir.Constant(I32, position)]))

    owner.outlined += 1
    name = f"{e.function.name}_parallel_{owner.outlined}"
    chunk_type = ir.FunctionType(ir.VoidType(), [I8_PTR, I64, I64])
    outlined = ir.Function(owner.module, chunk_type, name)
    outlined.linkage = "internal"
    outlined.attributes.add("nounwind")
    inner = FunctionEmitter(owner, outlined, ir.IRBuilder(outlined.append_basic_block("entry")))
    inner.in_parallel = True
    inner.kernel = e.kernel
    ib = inner.builder
    data = ib.bitcast(outlined.args[0], struct.as_pointer())

    def load(position: int) -> ir.Value:
        return ib.load(ib.gep(data, [ir.Constant(I32, 0), ir.Constant(I32, position)]))

    failed_position = ir.Constant(I32, len(fields) - 1)
    inner.failed_flag = ib.gep(data, [ir.Constant(I32, 0), failed_position])
    position = 0
    for value, dynamic in layout:
        current = e.get(value)
        if isinstance(current, Buffer):
            pointer = load(position)
            position += 1
            dims = list(current.dims)
            for i in dynamic:
                dims[i] = load(position)
                position += 1
            if current.strides is not None and not all(
                isinstance(v, ir.Constant) for v in current.strides
            ):
                raise fail(op, "a view with variable strides is used inside this parallel loop")
            inner.values[value] = Buffer(
                pointer, dims, current.element, current.strides, current.on_stack
            )
        elif isinstance(current, ir.Constant):
            inner.values[value] = current
        else:
            inner.values[value] = load(position)
            position += 1

    def body(iv: ir.Value, _: list[ir.Value]) -> list[ir.Value]:
        inner.values[op.induction_variable] = iv
        inner.emit_block(op.body.block)
        return []

    begin, end = outlined.args[1], outlined.args[2]
    inner.counted_loop(
        begin, end, ir.Constant(I64, 1), op.induction_variable.name_hint or "i", body
    )
    inner.free_heap()
    ib.ret_void()

    launch = owner.declare("xtvm_parallel_for", ir.VoidType(), [outlined.type, I8_PTR, I64, I64])
    lower, upper = e.get(op.lower_bound), e.get(op.upper_bound)
    b.call(launch, [outlined, b.bitcast(slot, I8_PTR), lower, upper])
    failed = b.load(b.gep(slot, [ir.Constant(I32, 0), failed_position]))
    e.check(b.icmp_unsigned("==", failed, ir.Constant(I32, 0)))


# -- memory -----------------------------------------------------------------------------------


@rule(memref.LoadOp)
def emit_load(e: FunctionEmitter, op: memref.LoadOp) -> None:
    buffer: Buffer = e.get(op.memref)
    address = buffer.address(e.builder, [e.get(i) for i in op.indices])
    e.set(op.res, load_value(e.builder, address, llvm_type(op.res.type, op)))


@rule(memref.StoreOp)
def emit_store(e: FunctionEmitter, op: memref.StoreOp) -> None:
    buffer: Buffer = e.get(op.memref)
    address = buffer.address(e.builder, [e.get(i) for i in op.indices])
    store_value(e.builder, e.get(op.value), address)


@rule(memref.AllocOp, memref.AllocaOp)
def emit_alloc(e: FunctionEmitter, op: memref.AllocOp | memref.AllocaOp) -> None:
    typ = memref_type(op.memref.type, op)
    element = memory_type(llvm_type(typ.element_type, op))
    dynamic = iter(e.get(v) for v in op.dynamic_sizes)
    dims = [ir.Constant(I64, d) if d >= 0 else next(dynamic) for d in typ.get_shape()]
    shape = typ.get_shape()
    element_bytes = max(1, element.get_abi_size(e.owner.target_data))
    name = op.memref.name_hint or "buf"
    where = printf_escape(f"{e.kernel or e.function.name}: buffer '{name}'")
    if all(d >= 0 for d in shape):
        count = math.prod(shape)
        size = count * element_bytes
        if size > MAX_BUFFER_BYTES:  # the verifier refuses these; hand-built IR may not
            raise fail(op, f"{typ} needs {size} bytes, more than {MAX_BUFFER_BYTES}")
        if size <= STACK_LIMIT_BYTES:
            slot = e.entry_alloca(element, max(count, 1), name=name)
            e.set(op.memref, Buffer(slot, dims, element, on_stack=True))
            return
    b = e.builder
    # Its size in bytes, an error where a product overflows (unsigned: a negative size too).
    static_bytes = element_bytes * math.prod(d for d in shape if d >= 0)
    if static_bytes > MAX_BUFFER_BYTES:
        raise fail(op, f"{typ} needs {static_bytes} bytes, more than {MAX_BUFFER_BYTES}")
    bytes_value: ir.Value = ir.Constant(I64, static_bytes)
    multiply = e.owner.intrinsic(
        "llvm.umul.with.overflow", [I64], 2, ir.LiteralStructType([I64, ir.IntType(1)])
    )
    for dim in dims:
        if isinstance(dim, ir.Constant):
            continue
        product = b.call(multiply, [bytes_value, dim])
        e.check(b.not_(b.extract_value(product, 1)), f"{where}: its size overflows")
        bytes_value = b.extract_value(product, 0)
    if not isinstance(bytes_value, ir.Constant):
        e.check(
            b.icmp_unsigned("<=", bytes_value, ir.Constant(I64, MAX_BUFFER_BYTES)),
            f"{where}: %llu bytes is too large",
            [bytes_value],
        )
    # aligned_alloc wants a multiple of the alignment.
    rounded = b.and_(b.add(bytes_value, ir.Constant(I64, 63)), ir.Constant(I64, ~63))
    if all(d >= 0 for d in shape):
        raw, owned = e.owner.cached_buffer(b, rounded)
        e.cached[raw] = owned
    else:
        raw = b.call(e.owner.aligned_alloc(), [ir.Constant(I64, 64), rounded])
    e.check(
        b.icmp_unsigned("!=", raw, ir.Constant(I8_PTR, None)),
        f"{where}: out of memory allocating %llu bytes",
        [rounded],
    )
    pointer = b.bitcast(raw, element.as_pointer(), name=name)
    e.heap.append(pointer)
    e.set(op.memref, Buffer(pointer, dims, element))


@rule(memref.DeallocOp)
def emit_dealloc(e: FunctionEmitter, op: memref.DeallocOp) -> None:
    buffer: Buffer = e.get(op.memref)
    if buffer.pointer in e.heap:
        e.heap.remove(buffer.pointer)
        e.release(buffer.pointer)


@rule(memref.DimOp)
def emit_dim(e: FunctionEmitter, op: memref.DimOp) -> None:
    buffer: Buffer = e.get(op.source)
    index = e.get(op.index)
    if not isinstance(index, ir.Constant):
        raise fail(op, "memref.dim needs a constant dimension index")
    e.set(op.result, buffer.dims[int(index.constant)])


# -- calls and returns ------------------------------------------------------------------------


@rule(func.ReturnOp)
def emit_return(e: FunctionEmitter, op: func.ReturnOp) -> None:
    e.free_heap()
    if op.operands:
        raise fail(op, "tir kernels return their results through buffers, not values")
    e.builder.ret(ir.Constant(I32, 0))


@rule(func.CallOp)
def emit_call(e: FunctionEmitter, op: func.CallOp) -> None:
    callee = e.owner.functions.get(op.callee.string_value())
    if callee is None:
        raise fail(op, f"call of unknown function @{op.callee.string_value()}")
    args: list[ir.Value] = []
    dynamic: list[ir.Value] = []
    for value in op.arguments:
        current = e.get(value)
        if isinstance(current, Buffer):
            args.append(current.pointer)
            typ = value.type
            assert isinstance(typ, MemRefType)
            dynamic.extend(current.dims[i] for i, d in enumerate(typ.get_shape()) if d < 0)
        else:
            args.append(current)
    status = e.builder.call(callee, args + dynamic)
    e.check(e.builder.icmp_signed("==", status, ir.Constant(I32, 0)))  # its message stands


@rule(memref.SubviewOp)
def emit_subview(e: FunctionEmitter, op: memref.SubviewOp) -> None:
    """A view of a region of a buffer: its first element's address, sizes and strides (a
    rank-reducing view drops its leading unit dimensions)."""
    source: Buffer = e.get(op.source)
    b = e.builder
    lists = []
    for static, dynamic in (
        (op.static_offsets, op.offsets),
        (op.static_sizes, op.sizes),
        (op.static_strides, op.strides),
    ):
        values = iter(e.get(v) for v in dynamic)
        lists.append(
            [
                ir.Constant(I64, v) if v != DYNAMIC_INDEX else next(values)
                for v in static.get_values()
            ]
        )
    offsets, sizes, steps = lists
    strides = [b.mul(s, k) for s, k in zip(source.all_strides(b), steps, strict=True)]
    result = op.result.type
    assert isinstance(result, MemRefType)
    dropped = len(sizes) - result.get_num_dims()
    pointer = source.address(b, offsets)
    e.set(
        op.result,
        Buffer(pointer, sizes[dropped:], source.element, strides[dropped:], source.on_stack),
    )


@rule(tir.CallExternOp)
def emit_call_extern(e: FunctionEmitter, op: tir.CallExternOp) -> None:
    """A buffer argument is passed as the address of its first element."""
    if op.packed is not None:
        emit_call_packed(e, op, op.packed)
        return
    args = [a.pointer if isinstance(a, Buffer) else a for a in (e.get(v) for v in op.args)]
    ret = llvm_type(op.res[0].type, op) if op.res else ir.VoidType()
    name = op.callee.data
    if get_global_func(name, allow_missing=True) is None:  # those are bound to their callbacks
        what = "the LLVM backend's extern function (not one registered with tvm.register_func)"
        check_symbol(name, what, op, CodegenError)
    callee = e.owner.declare(name, ret, [a.type for a in args])
    result = e.builder.call(callee, args)
    if op.res:
        e.set(op.res[0], result)


def emit_call_packed(e: FunctionEmitter, op: tir.CallExternOp, declared: ArrayAttr) -> None:
    """A call of a function registered with `tvm.register_func` (`xtvm.runtime.packed_call`):
    a generated symbol the JIT binds to its callback, taking buffers as data pointers,
    integers as i64 and floats as double; a failure fails the kernel."""
    name = op.callee.data
    try:
        check_packed_name(name)
    except ValueError as error:
        raise fail(op, str(error)) from None
    args: list[ir.Value] = []
    kinds: list[tuple[tuple[int, ...], str] | str] = []
    b = e.builder
    for value, typ in zip((e.get(v) for v in op.args), declared.data, strict=True):
        if isinstance(value, Buffer) and typ == StringAttr(HANDLE):
            args.append(b.bitcast(value.pointer, I8_PTR))
            kinds.append(HANDLE)
        elif isinstance(value, Buffer):
            if not isinstance(typ, MemRefType) or any(d < 0 for d in typ.get_shape()):
                raise fail(op, f"call_packed '{name}': buffers must have static shapes")
            args.append(b.bitcast(value.pointer, I8_PTR))
            kinds.append((tuple(typ.get_shape()), str(numpy_dtype(typ.element_type))))
        elif isinstance(value.type, ir.IntType):
            wide = value if value.type.width == 64 else b.sext(value, I64)
            args.append(wide if value.type.width > 1 else b.zext(value, I64))
            kinds.append("int")
        elif isinstance(value.type, ir.FloatType | ir.DoubleType | ir.HalfType):
            args.append(value if isinstance(value.type, ir.DoubleType) else b.fpext(value, F64))
            kinds.append("float")
        else:
            raise fail(op, f"call_packed '{name}': cannot pass a value of type {value.type}")
    symbol = f"xtvm_call_packed_{len(e.owner.packed_calls)}"
    e.owner.packed_calls[symbol] = PackedCall(name, tuple(kinds))
    callee = e.owner.declare(symbol, I32, [a.type for a in args])
    status = b.call(callee, args)
    e.check(b.icmp_signed("==", status, ir.Constant(I32, 0)), f"call_packed '{name}' failed")
    if op.res:
        e.set(op.res[0], status)


# -- scalar arithmetic ------------------------------------------------------------------------


@rule(arith.ConstantOp)
def emit_constant(e: FunctionEmitter, op: arith.ConstantOp) -> None:
    value = op.value
    typ = llvm_type(op.result.type, op)
    if isinstance(value, IntegerAttr | FloatAttr):
        e.values[op.result] = ir.Constant(typ, value.value.data)
    elif isinstance(value, DenseIntOrFPElementsAttr) and isinstance(typ, ir.VectorType):
        values = list(value.get_values())
        if len(values) == 1:
            values = values * typ.count
        e.values[op.result] = ir.Constant(typ, [ir.Constant(typ.element, v) for v in values])
    else:
        raise fail(op, f"the LLVM backend cannot materialize the constant {value}")


INT_BINARY: dict[type[Operation], str] = {
    arith.AddiOp: "add",
    arith.SubiOp: "sub",
    arith.MuliOp: "mul",
    arith.DivSIOp: "sdiv",
    arith.DivUIOp: "udiv",
    arith.RemSIOp: "srem",
    arith.RemUIOp: "urem",
    arith.AndIOp: "and_",
    arith.OrIOp: "or_",
    arith.XOrIOp: "xor",
    arith.ShLIOp: "shl",
    arith.ShRSIOp: "ashr",
    arith.ShRUIOp: "lshr",
}
FLOAT_BINARY: dict[type[Operation], str] = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
}
FLOAT_INTRINSIC_BINARY: dict[type[Operation], str] = {
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
    xmath.CopySignOp: "llvm.copysign",
}
FLOAT_INTRINSIC_UNARY: dict[type[Operation], str] = {
    xmath.Exp2Op: "llvm.exp2",
    xmath.LogOp: "llvm.log",
    xmath.Log2Op: "llvm.log2",
    xmath.Log10Op: "llvm.log10",
    xmath.SqrtOp: "llvm.sqrt",
    xmath.SinOp: "llvm.sin",
    xmath.CosOp: "llvm.cos",
    xmath.FloorOp: "llvm.floor",
    xmath.CeilOp: "llvm.ceil",
    xmath.TruncOp: "llvm.trunc",
    xmath.RoundOp: "llvm.round",
    xmath.RoundEvenOp: "llvm.roundeven",
    xmath.AbsFOp: "llvm.fabs",
}
# Math functions LLVM has no intrinsic for: the C library's, by element type.
LIBM_UNARY: dict[type[Operation], str] = {
    xmath.TanOp: "tan",
    xmath.AtanOp: "atan",
    xmath.ExpM1Op: "expm1",
    xmath.Log1pOp: "log1p",
}
MAX_MIN_INT: dict[type[Operation], tuple[str, bool]] = {
    arith.MaxSIOp: (">", True),
    arith.MinSIOp: ("<", True),
    arith.MaxUIOp: (">", False),
    arith.MinUIOp: ("<", False),
}


@rule(*INT_BINARY)
def emit_int_binary(e: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = (e.get(v) for v in op.operands)
    e.set(op.results[0], getattr(e.builder, INT_BINARY[type(op)])(lhs, rhs))


# A multiply and an add may fuse into one FMA (TVM's fp-contract=fast): twice the
# arithmetic throughput of the products at the heart of conv2d and dense, one rounding less.
CONTRACTIBLE = ("fadd", "fsub", "fmul")


@rule(*FLOAT_BINARY)
def emit_float_binary(e: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = (e.get(v) for v in op.operands)
    name = FLOAT_BINARY[type(op)]
    flags = ("contract",) if name in CONTRACTIBLE else ()
    e.set(op.results[0], getattr(e.builder, name)(lhs, rhs, flags=flags))


@rule(*FLOAT_INTRINSIC_BINARY)
def emit_float_intrinsic_binary(e: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = (e.get(v) for v in op.operands)
    fn = e.owner.intrinsic(FLOAT_INTRINSIC_BINARY[type(op)], [lhs.type], arity=2)
    # maximumf/minimumf: NaN propagates, but the order of -0 and +0 is left free (they
    # compare equal), which spares the sign tests that tripled a max pool's dependency chain.
    flags = ("nsz",) if isinstance(op, arith.MaximumfOp | arith.MinimumfOp) else ()
    e.set(op.results[0], e.builder.call(fn, [lhs, rhs], fastmath=flags))


@rule(*FLOAT_INTRINSIC_UNARY)
def emit_float_intrinsic_unary(e: FunctionEmitter, op: Operation) -> None:
    (x,) = (e.get(v) for v in op.operands)
    fn = e.owner.intrinsic(FLOAT_INTRINSIC_UNARY[type(op)], [x.type])
    e.set(op.results[0], e.builder.call(fn, [x]))


def libm_call(e: FunctionEmitter, op: Operation, name: str, x: ir.Value) -> ir.Value:
    """`name(x)` from libm, elementwise for vectors."""
    b = e.builder
    scalar = x.type.element if isinstance(x.type, ir.VectorType) else x.type
    suffix = {ir.FloatType: "f", ir.DoubleType: ""}.get(type(scalar))
    if suffix is None:
        raise fail(op, f"'{op.name}' on {scalar} has no C library function")
    fn = e.owner.declare(name + suffix, scalar, [scalar])
    if not isinstance(x.type, ir.VectorType):
        return b.call(fn, [x])
    result: ir.Value = ir.Constant(x.type, ir.Undefined)
    for lane in range(x.type.count):
        index = ir.Constant(I32, lane)
        result = b.insert_element(result, b.call(fn, [b.extract_element(x, index)]), index)
    return result


@rule(*LIBM_UNARY)
def emit_libm_unary(e: FunctionEmitter, op: Operation) -> None:
    e.set(op.results[0], libm_call(e, op, LIBM_UNARY[type(op)], e.get(op.operands[0])))


# Inline polynomials for float32 vectors, which LLVM would scalarize into a libm call per lane.
VECTOR_MATH: dict[type[Operation], VectorFunction] = {
    xmath.ExpOp: exp_f32,
    xmath.TanhOp: tanh_f32,
    xmath.ErfOp: erf_f32,
}


@rule(*VECTOR_MATH)
def emit_vector_math(e: FunctionEmitter, op: Operation) -> None:
    """vector_math's polynomials on float32 vectors; `llvm.exp` or libm otherwise."""
    x = e.get(op.operands[0])
    if is_f32_vector(x.type):

        def intrinsic(name: str, arity: int) -> ir.Function:
            return e.owner.intrinsic(name, [x.type], arity=arity)

        value = VECTOR_MATH[type(op)](e.builder, x, intrinsic)
    elif isinstance(op, xmath.ExpOp):
        value = e.builder.call(e.owner.intrinsic("llvm.exp", [x.type]), [x])
    else:
        value = libm_call(e, op, "tanh" if isinstance(op, xmath.TanhOp) else "erf", x)
    e.set(op.results[0], value)


@rule(xmath.PowFOp)
def emit_pow(e: FunctionEmitter, op: xmath.PowFOp) -> None:
    """pow by a constant exponent as multiplications and square roots, a float32 vector pow
    inline (power.py); `llvm.pow` (libm's pow, a call per lane on a vector) otherwise."""
    x, y = e.get(op.lhs), e.get(op.rhs)

    def intrinsic(name: str, typ: ir.Type, arity: int) -> ir.Function:
        return e.owner.intrinsic(name, [typ], arity=arity)

    exponent = splat_value(y)
    value = None
    if exponent is not None:  # None where x is not float32 or y has no cheap form
        value = power_by_constant(e.builder, x, exponent, intrinsic)
    if value is None and is_f32_vector(x.type):
        value = pow_f32(e.builder, x, y, intrinsic)
    if value is None:
        value = e.builder.call(e.owner.intrinsic("llvm.pow", [x.type], arity=2), [x, y])
    e.set(op.result, value)


@rule(xmath.RsqrtOp)
def emit_rsqrt(e: FunctionEmitter, op: xmath.RsqrtOp) -> None:
    x = e.get(op.operand)
    root = e.builder.call(e.owner.intrinsic("llvm.sqrt", [x.type]), [x])
    one = ir.Constant(x.type, 1.0) if not isinstance(x.type, ir.VectorType) else splat(x.type, 1.0)
    e.set(op.result, e.builder.fdiv(one, root))


@rule(xmath.FmaOp)
def emit_fma(e: FunctionEmitter, op: xmath.FmaOp) -> None:
    a, b, c = (e.get(v) for v in op.operands)
    e.set(op.result, e.builder.call(e.owner.intrinsic("llvm.fma", [a.type], arity=3), [a, b, c]))


@rule(xmath.AbsIOp)
def emit_absi(e: FunctionEmitter, op: xmath.AbsIOp) -> None:
    x = e.get(op.operand)
    fn = e.owner.declare(f"llvm.abs.{mangle(x.type)}", x.type, [x.type, ir.IntType(1)])
    e.set(op.result, e.builder.call(fn, [x, ir.Constant(ir.IntType(1), 0)]))


@rule(arith.NegfOp)
def emit_negf(e: FunctionEmitter, op: arith.NegfOp) -> None:
    e.set(op.result, e.builder.fneg(e.get(op.operand)))


@rule(*MAX_MIN_INT)
def emit_max_min_int(e: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = (e.get(v) for v in op.operands)
    predicate, signed = MAX_MIN_INT[type(op)]
    compare = e.builder.icmp_signed if signed else e.builder.icmp_unsigned
    e.set(op.results[0], e.builder.select(compare(predicate, lhs, rhs), lhs, rhs))


@rule(arith.FloorDivSIOp, arith.CeilDivSIOp)
def emit_floor_ceil_div(e: FunctionEmitter, op: Operation) -> None:
    """Signed division rounding down (floordivsi) or up (ceildivsi): truncate, then adjust."""
    b = e.builder
    lhs, rhs = (e.get(v) for v in op.operands)
    quotient, remainder = b.sdiv(lhs, rhs), b.srem(lhs, rhs)
    zero = ir.Constant(lhs.type, 0)
    inexact = b.icmp_signed("!=", remainder, zero)
    same_sign = b.icmp_signed(
        "==", b.icmp_signed("<", remainder, zero), b.icmp_signed("<", rhs, zero)
    )
    if isinstance(op, arith.FloorDivSIOp):
        adjust = b.and_(inexact, b.not_(same_sign))
        result = b.sub(quotient, b.zext(adjust, lhs.type))
    else:
        adjust = b.and_(inexact, same_sign)
        result = b.add(quotient, b.zext(adjust, lhs.type))
    e.set(op.results[0], result)


@rule(arith.CeilDivUIOp)
def emit_ceil_div_unsigned(e: FunctionEmitter, op: arith.CeilDivUIOp) -> None:
    b = e.builder
    lhs, rhs = (e.get(v) for v in op.operands)
    one = ir.Constant(lhs.type, 1)
    e.set(op.result, b.udiv(b.add(lhs, b.sub(rhs, one)), rhs))


CMPI = {
    "eq": ("==", True),
    "ne": ("!=", True),
    "slt": ("<", True),
    "sle": ("<=", True),
    "sgt": (">", True),
    "sge": (">=", True),
    "ult": ("<", False),
    "ule": ("<=", False),
    "ugt": (">", False),
    "uge": (">=", False),
}
CMPF_RELATIONS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@rule(arith.CmpiOp)
def emit_cmpi(e: FunctionEmitter, op: arith.CmpiOp) -> None:
    predicate, signed = CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
    compare = e.builder.icmp_signed if signed else e.builder.icmp_unsigned
    e.set(op.result, compare(predicate, e.get(op.lhs), e.get(op.rhs)))


@rule(arith.CmpfOp)
def emit_cmpf(e: FunctionEmitter, op: arith.CmpfOp) -> None:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    lhs, rhs = e.get(op.lhs), e.get(op.rhs)
    b = e.builder
    if predicate in ("false", "true"):
        e.set(op.result, ir.Constant(ir.IntType(1), int(predicate == "true")))
        return
    if predicate in ("ord", "uno"):
        compare = b.fcmp_ordered if predicate == "ord" else b.fcmp_unordered
        e.set(op.result, compare(predicate, lhs, rhs))
        return
    compare = b.fcmp_ordered if predicate[0] == "o" else b.fcmp_unordered
    e.set(op.result, compare(CMPF_RELATIONS[predicate[1:]], lhs, rhs))


@rule(arith.SelectOp)
def emit_select(e: FunctionEmitter, op: arith.SelectOp) -> None:
    cond, lhs, rhs = (e.get(v) for v in op.operands)
    e.set(op.result, e.builder.select(cond, lhs, rhs))


def int_width(typ: ir.Type) -> int:
    scalar = typ.element if isinstance(typ, ir.VectorType) else typ
    return scalar.width


@rule(arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp)
def emit_int_cast(e: FunctionEmitter, op: Operation) -> None:
    x = e.get(op.operands[0])
    target = llvm_type(op.results[0].type, op)
    b = e.builder
    source_width, target_width = int_width(x.type), int_width(target)
    if source_width == target_width:
        result = x
    elif source_width > target_width:
        result = b.trunc(x, target)
    elif isinstance(op, arith.ExtUIOp):
        result = b.zext(x, target)
    else:
        result = b.sext(x, target)
    e.set(op.results[0], result)


FLOAT_CASTS: dict[type[Operation], str] = {
    arith.SIToFPOp: "sitofp",
    arith.UIToFPOp: "uitofp",
    arith.FPToSIOp: "fptosi",
    arith.FPToUIOp: "fptoui",
}


@rule(*FLOAT_CASTS)
def emit_float_cast(e: FunctionEmitter, op: Operation) -> None:
    x = e.get(op.operands[0])
    target = llvm_type(op.results[0].type, op)
    e.set(op.results[0], getattr(e.builder, FLOAT_CASTS[type(op)])(x, target))


@rule(arith.ExtFOp, arith.TruncFOp)
def emit_float_resize(e: FunctionEmitter, op: Operation) -> None:
    x = e.get(op.operands[0])
    target = llvm_type(op.results[0].type, op)
    if isinstance(op, arith.ExtFOp):
        e.set(op.results[0], e.builder.fpext(x, target))
        return
    source = x.type.element if isinstance(x.type, ir.VectorType) else x.type
    scalar = target.element if isinstance(target, ir.VectorType) else target
    if isinstance(source, ir.DoubleType) and isinstance(scalar, ir.HalfType):
        # f64 -> f16 has no instruction and would call compiler-rt's __truncdfhf2, which the
        # JIT does not provide: go through f32.
        via = (
            ir.VectorType(ir.FloatType(), x.type.count)
            if isinstance(x.type, ir.VectorType)
            else ir.FloatType()
        )
        x = e.builder.fptrunc(x, via)
    e.set(op.results[0], e.builder.fptrunc(x, target))


@rule(arith.BitcastOp)
def emit_bitcast(e: FunctionEmitter, op: arith.BitcastOp) -> None:
    e.set(op.result, e.builder.bitcast(e.get(op.input), llvm_type(op.result.type, op)))


# -- vectors (what tir-vectorize emits) -------------------------------------------------------


def vector_address(
    e: FunctionEmitter,
    op: Operation,
    memref_value: SSAValue,
    indices: Sequence[SSAValue],
    typ: ir.VectorType,
) -> tuple[ir.Value, int | None]:
    """The address of a vector access, and the width to access it at masked (None: plain)."""
    buffer: Buffer = e.get(memref_value)
    address = buffer.address(e.builder, [e.get(i) for i in indices])
    width = None if buffer.on_stack else masked_width(typ)
    return e.builder.bitcast(address, typ.as_pointer()), width


def masked_width(typ: ir.VectorType) -> int | None:
    """The power-of-two width a vector of 32- or 64-bit elements whose lane count is not one
    is accessed at, through a masked load or store (None for other vectors).

    LLVM splits a `<14 x float>` access into 8 + 4 + 2 lanes; one masked access of 16 lanes
    (AVX-512's mask registers) replaces the three, and touches no memory past the 14th lane.
    """
    count, element = typ.count, typ.element
    float_bits = {ir.FloatType: 32, ir.DoubleType: 64}.get(type(element))
    bits = element.width if isinstance(element, ir.IntType) else float_bits
    if bits not in (32, 64) or count < 3 or count & (count - 1) == 0:
        return None
    return 1 << (count - 1).bit_length()


def lane_mask(count: int, width: int) -> ir.Constant:
    return ir.Constant(ir.VectorType(ir.IntType(1), width), [1] * count + [0] * (width - count))


@rule(vector.LoadOp)
def emit_vector_load(e: FunctionEmitter, op: vector.LoadOp) -> None:
    typ = llvm_type(op.result.type, op)
    address, width = vector_address(e, op, op.base, op.indices, typ)
    align = memory_type(typ.element).get_abi_size(e.owner.target_data)
    if width is None:
        e.set(op.result, load_value(e.builder, address, typ, align))
        return
    b, wide = e.builder, ir.VectorType(typ.element, width)
    pointer = wide.as_pointer()
    masked_load = e.owner.declare(
        f"llvm.masked.load.{mangle(wide)}.p0",
        wide,
        [pointer, I32, ir.VectorType(ir.IntType(1), width), wide],
    )
    loaded = b.call(
        masked_load,
        [
            b.bitcast(address, pointer),
            ir.Constant(I32, align),
            lane_mask(typ.count, width),
            ir.Constant(wide, ir.Undefined),
        ],
    )
    lanes = ir.Constant(ir.VectorType(I32, typ.count), list(range(typ.count)))
    e.set(op.result, b.shuffle_vector(loaded, ir.Constant(wide, ir.Undefined), lanes))


@rule(vector.StoreOp)
def emit_vector_store(e: FunctionEmitter, op: vector.StoreOp) -> None:
    value = e.get(op.vector)
    address, width = vector_address(e, op, op.base, op.indices, value.type)
    align = memory_type(value.type.element).get_abi_size(e.owner.target_data)
    if width is None:
        store_value(e.builder, value, address, align)
        return
    b, wide = e.builder, ir.VectorType(value.type.element, width)
    pointer = wide.as_pointer()
    masked_store = e.owner.declare(
        f"llvm.masked.store.{mangle(wide)}.p0",
        ir.VoidType(),
        [wide, pointer, I32, ir.VectorType(ir.IntType(1), width)],
    )
    count = value.type.count
    lanes = ir.Constant(ir.VectorType(I32, width), list(range(count)) + [0] * (width - count))
    widened = b.shuffle_vector(value, ir.Constant(value.type, ir.Undefined), lanes)
    b.call(
        masked_store,
        [widened, b.bitcast(address, pointer), ir.Constant(I32, align), lane_mask(count, width)],
    )


@rule(vector.TransferReadOp)
def emit_transfer_read(e: FunctionEmitter, op: vector.TransferReadOp) -> None:
    """A read along one dimension (`permutation_map = (d0, ..., dn) -> (dk)`, what
    tir-vectorize makes of a transposing load): one gather, `vgatherdps` on AVX-512."""
    dim = tir.read_dimension(op)
    if dim is None:
        raise fail(op, "only an unmasked read along one dimension is supported")
    b = e.builder
    typ = llvm_type(op.result.type, op)
    buffer: Buffer = e.get(op.source)
    base = b.ptrtoint(buffer.address(b, [e.get(i) for i in op.indices]), I64)
    size = memory_type(typ.element).get_abi_size(e.owner.target_data)
    step = b.mul(buffer.all_strides(b)[dim], ir.Constant(I64, size))
    lanes = typ.count
    offsets = b.mul(
        broadcast_value(b, step, lanes), ir.Constant(ir.VectorType(I64, lanes), [*range(lanes)])
    )
    pointers = b.inttoptr(
        b.add(broadcast_value(b, base, lanes), offsets),
        ir.VectorType(typ.element.as_pointer(), lanes),
    )
    mask = lane_mask(lanes, lanes)
    gather = e.owner.declare(
        f"llvm.masked.gather.{mangle(typ)}.v{lanes}p0", typ, [pointers.type, I32, mask.type, typ]
    )
    undefined = ir.Constant(typ, ir.Undefined)
    e.set(op.result, b.call(gather, [pointers, ir.Constant(I32, size), mask, undefined]))


@rule(vector.ShuffleOp)
def emit_vector_shuffle(e: FunctionEmitter, op: vector.ShuffleOp) -> None:
    mask = ir.Constant(ir.VectorType(I32, len(op.mask.get_values())), op.mask.get_values())
    e.set(op.result, e.builder.shuffle_vector(e.get(op.v1), e.get(op.v2), mask))


@rule(vector.BroadcastOp)
def emit_vector_broadcast(e: FunctionEmitter, op: vector.BroadcastOp) -> None:
    typ = llvm_type(op.vector.type, op)
    source = e.get(op.source)
    if isinstance(source, ir.Constant):
        e.values[op.vector] = ir.Constant(typ, [source] * typ.count)
        return
    e.set(op.vector, broadcast_value(e.builder, source, typ.count))


def broadcast_value(b: ir.IRBuilder, value: ir.Value, lanes: int) -> ir.Value:
    """A vector of `lanes` copies of the scalar `value` (insertelement + zero shuffle)."""
    typ = ir.VectorType(value.type, lanes)
    undefined = ir.Constant(typ, ir.Undefined)
    single = b.insert_element(undefined, value, ir.Constant(I32, 0))
    return b.shuffle_vector(single, undefined, ir.Constant(ir.VectorType(I32, lanes), [0] * lanes))


# kind -> (float reduction intrinsic, int reduction intrinsic, combine the accumulator)
REDUCTIONS: dict[str, tuple[str | None, str | None]] = {
    "add": ("llvm.vector.reduce.fadd", "llvm.vector.reduce.add"),
    "mul": ("llvm.vector.reduce.fmul", "llvm.vector.reduce.mul"),
    "maxnumf": ("llvm.vector.reduce.fmax", None),
    "minnumf": ("llvm.vector.reduce.fmin", None),
    "maximumf": ("llvm.vector.reduce.fmaximum", None),
    "minimumf": ("llvm.vector.reduce.fminimum", None),
    "maxsi": (None, "llvm.vector.reduce.smax"),
    "minsi": (None, "llvm.vector.reduce.smin"),
    "maxui": (None, "llvm.vector.reduce.umax"),
    "minui": (None, "llvm.vector.reduce.umin"),
    "and": (None, "llvm.vector.reduce.and"),
    "or": (None, "llvm.vector.reduce.or"),
    "xor": (None, "llvm.vector.reduce.xor"),
}
COMBINE_SCALARS: dict[str, Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]] = {
    "add": lambda b, x, y: b.fadd(x, y) if is_float(x.type) else b.add(x, y),
    "mul": lambda b, x, y: b.fmul(x, y) if is_float(x.type) else b.mul(x, y),
    "and": lambda b, x, y: b.and_(x, y),
    "or": lambda b, x, y: b.or_(x, y),
    "xor": lambda b, x, y: b.xor(x, y),
    "maxsi": lambda b, x, y: b.select(b.icmp_signed(">", x, y), x, y),
    "minsi": lambda b, x, y: b.select(b.icmp_signed("<", x, y), x, y),
    "maxui": lambda b, x, y: b.select(b.icmp_unsigned(">", x, y), x, y),
    "minui": lambda b, x, y: b.select(b.icmp_unsigned("<", x, y), x, y),
}
COMBINE_INTRINSICS = {
    "maxnumf": "llvm.maxnum",
    "minnumf": "llvm.minnum",
    "maximumf": "llvm.maximum",
    "minimumf": "llvm.minimum",
}


@rule(vector.ReductionOp)
def emit_vector_reduction(e: FunctionEmitter, op: vector.ReductionOp) -> None:
    kind = op.kind.data.value
    values = e.get(op.vector)
    floating = is_float(values.type)
    names = REDUCTIONS.get(kind)
    name = None if names is None else names[0 if floating else 1]
    if name is None:
        raise fail(op, f"vector.reduction <{kind}> on {values.type} is not supported")
    b = e.builder
    element = values.type.element
    if floating and kind in ("add", "mul"):
        start = (
            e.get(op.acc)
            if op.acc is not None
            else ir.Constant(element, 0.0 if kind == "add" else 1.0)
        )
        fn = e.owner.declare(f"{name}.{mangle(values.type)}", element, [element, values.type])
        e.set(op.dest, b.call(fn, [start, values], fastmath=("reassoc",)))
        return
    total = b.call(e.owner.intrinsic(name, [values.type], ret=element), [values])
    if op.acc is not None:
        acc = e.get(op.acc)
        if kind in COMBINE_INTRINSICS:
            combine = e.owner.intrinsic(COMBINE_INTRINSICS[kind], [element], arity=2)
            total = b.call(combine, [acc, total])
        else:
            total = COMBINE_SCALARS[kind](b, acc, total)
    e.set(op.dest, total)


# ---------------------------------------------------------------------------------------------
# Module


def kernels_of(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp)]


def emit_module(
    module: ModuleOp,
    triple: str,
    data_layout: str,
    name: str = "xtvm",
    packed_calls: dict[str, PackedCall] | None = None,
) -> ir.Module:
    """The LLVM module of every `func.func` in `module` (bodies and declarations); its
    `tvm.tir.call_packed` sites go into `packed_calls` (their symbols are to be bound)."""
    llvm_module = ir.Module(name=name)
    llvm_module.triple = triple
    llvm_module.data_layout = data_layout
    owner = ModuleEmitter(llvm_module, llb.create_target_data(data_layout))
    functions = kernels_of(module)
    for function in functions:
        if function.function_type.outputs.data:
            raise fail(function, "tir kernels return their results through buffers, not values")
        typ = ir.FunctionType(I32, signature_types(function))
        name = function.sym_name.data
        check_symbol(name, "the LLVM backend's function name", function, CodegenError, True)
        llvm_function = ir.Function(llvm_module, typ, name)
        llvm_function.attributes.add("nounwind")
        owner.functions[function.sym_name.data] = llvm_function
    for function in functions:
        if function.body.blocks:
            emit_function(owner, function)
    owner.finish()
    if owner.packed_calls:
        if packed_calls is None:
            raise CodegenError.at(
                None, "this module calls tvm.tir.call_packed, which only the JIT binds"
            )
        packed_calls.update(owner.packed_calls)
    return llvm_module


def emit_function(owner: ModuleEmitter, function: func.FuncOp) -> None:
    llvm_function = owner.functions[function.sym_name.data]
    builder = ir.IRBuilder(llvm_function.append_basic_block("entry"))
    emitter = FunctionEmitter(owner, llvm_function, builder, kernel=function.sym_name.data)
    block = function.body.block
    params = iter(llvm_function.args)
    pending: list[tuple[SSAValue, Buffer, list[int]]] = []
    for arg in block.args:
        param = next(params)
        param.name = arg.name_hint or ""
        if isinstance(arg.type, MemRefType):
            typ = memref_type(arg.type, function)
            param.add_attribute("noalias")
            shape = typ.get_shape()
            dims: list[ir.Value] = [ir.Constant(I64, max(d, 0)) for d in shape]
            buffer = Buffer(param, dims, memory_type(llvm_type(typ.element_type, function)))
            emitter.values[arg] = buffer
            pending.append((arg, buffer, [i for i, d in enumerate(shape) if d < 0]))
        else:
            emitter.values[arg] = param
    for arg, buffer, dynamic in pending:
        for i in dynamic:
            param = next(params)
            param.name = f"{arg.name_hint or 'arg'}_dim{i}"
            buffer.dims[i] = param

    def dim_value(ref: Any) -> ir.Value:
        current = emitter.values[block.args[ref.arg]]
        if ref.dim is not None:
            return current.dims[ref.dim]
        return current if current.type == I64 else builder.sext(current, I64)

    names = [a.name_hint or f"arg{k}" for k, a in enumerate(block.args)]
    emitter.bind_arguments(binding_plan(kernel_arg_dims(function)), names, dim_value)
    emitter.emit_block(block)
    if not builder.block.is_terminated:
        emitter.free_heap()
        builder.ret(ir.Constant(I32, 0))
