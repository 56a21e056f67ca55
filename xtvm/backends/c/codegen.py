"""tir → C99 source: one walk over each kernel, every spelling in a table (tinygrad's cstyle).

`CRenderer` owns the walk and the expression printer; a target (CUDA) subclasses it and
overrides only tables: the kernel prefix, `restrict`, type names, math spellings, loop pragmas,
memory-scope qualifiers, the barrier and the thread-index spelling.

The ABI is the LLVM backend's: `@k(%A: memref<4x?xf32>, %n: index)` is
`int32_t k(float *restrict A, int64_t n, int64_t A_dim1)`: a memref argument is a pointer to its
first element (row-major, contiguous), scalars are passed as themselves, then one `int64_t`
per dynamic dimension. It returns 0, or 1 with a message for `xtvm_last_error()`: the entry
runs the argument binder (`xtvm.runtime.binding`) and a heap buffer whose size overflows or
that malloc cannot give is an error (targets without a status, CUDA, keep `void`).
Pure scalar ops used once in their own block are inlined into their use; every other value
is a C variable named after the IR's name hint.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
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
    StridedLayoutAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xtvm.dialects import tir
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.symbols import check_symbol, quoted
from xtvm.ir.verify import MAX_BUFFER_BYTES, located_error
from xtvm.runtime.binding import (
    DimRef,
    binding_plan,
    entry_checks,
    kernel_arg_dims,
    printf_escape,
)
from xtvm.runtime.module import ERROR_BUFFER_BYTES, LAST_ERROR_SYMBOL

ERROR_TEXT = "xtvm_error_text"  # the library's last error message


class CodegenError(DiagnosticError):
    """A C-style backend cannot translate an op."""


def fail(op: Operation, message: str) -> CodegenError:
    """A located error at `op` (the tools show its source line)."""
    return CodegenError(located_error(op, message).diagnostics)


def dtype_key(typ: Attribute) -> str | None:
    """The table key of a scalar type: index, i1..i64, f16, f32, f64."""
    if isinstance(typ, IndexType):
        return "index"
    if isinstance(typ, IntegerType):
        return f"i{typ.width.data}"
    return {Float16Type: "f16", Float32Type: "f32", Float64Type: "f64"}.get(type(typ))


C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch "
    "typedef union unsigned void volatile while bool true false half main free malloc "
    "threadIdx blockIdx blockDim gridDim".split()
)

# Binary and unary ops: format strings over the operands ({0}, {1}); {t} is the result's C
# type, {u} the unsigned type of the first operand, {tu} the unsigned type of the result.
EXPRESSIONS: dict[type[Operation], str] = {
    arith.AddiOp: "({0} + {1})",
    arith.SubiOp: "({0} - {1})",
    arith.MuliOp: "({0} * {1})",
    arith.DivSIOp: "({0} / {1})",
    arith.RemSIOp: "({0} % {1})",
    arith.DivUIOp: "(({t})(({u}){0} / ({u}){1}))",
    arith.RemUIOp: "(({t})(({u}){0} % ({u}){1}))",
    arith.AndIOp: "({0} & {1})",
    arith.OrIOp: "({0} | {1})",
    arith.XOrIOp: "({0} ^ {1})",
    arith.ShLIOp: "({0} << {1})",
    arith.ShRSIOp: "({0} >> {1})",
    arith.ShRUIOp: "(({t})(({u}){0} >> {1}))",
    arith.AddfOp: "({0} + {1})",
    arith.SubfOp: "({0} - {1})",
    arith.MulfOp: "({0} * {1})",
    arith.DivfOp: "({0} / {1})",
    arith.NegfOp: "(-{0})",
    arith.MaxSIOp: "({0} > {1} ? {0} : {1})",
    arith.MinSIOp: "({0} < {1} ? {0} : {1})",
    arith.MaxUIOp: "(({u}){0} > ({u}){1} ? {0} : {1})",
    arith.MinUIOp: "(({u}){0} < ({u}){1} ? {0} : {1})",
    arith.MaximumfOp: "(({0} > {1} || {0} != {0}) ? {0} : {1})",
    arith.MinimumfOp: "(({0} < {1} || {0} != {0}) ? {0} : {1})",
    arith.FloorDivSIOp: "({0} / {1} - ({0} % {1} != 0 && ({0} % {1} < 0) != ({1} < 0)))",
    arith.CeilDivSIOp: "({0} / {1} + ({0} % {1} != 0 && ({0} % {1} < 0) == ({1} < 0)))",
    arith.CeilDivUIOp: "(({t})((({u}){0} + ({u}){1} - 1) / ({u}){1}))",
    arith.SelectOp: "({0} ? {1} : {2})",
    arith.IndexCastOp: "(({t}){0})",
    arith.ExtSIOp: "(({t}){0})",
    arith.TruncIOp: "(({t}){0})",
    arith.ExtUIOp: "(({t})({u}){0})",
    arith.SIToFPOp: "(({t}){0})",
    arith.UIToFPOp: "(({t})({u}){0})",
    arith.FPToSIOp: "(({t}){0})",
    arith.FPToUIOp: "(({t})({tu}){0})",
    arith.ExtFOp: "(({t}){0})",
    arith.TruncFOp: "(({t}){0})",
    xmath.AbsIOp: "({0} < 0 ? -{0} : {0})",
}

# Math functions: format strings where {s} is the C library's suffix of the element type.
MATH: dict[type[Operation], str] = {
    xmath.ExpOp: "exp{s}({0})",
    xmath.Exp2Op: "exp2{s}({0})",
    xmath.ExpM1Op: "expm1{s}({0})",
    xmath.LogOp: "log{s}({0})",
    xmath.Log2Op: "log2{s}({0})",
    xmath.Log10Op: "log10{s}({0})",
    xmath.Log1pOp: "log1p{s}({0})",
    xmath.SqrtOp: "sqrt{s}({0})",
    xmath.RsqrtOp: "(1 / sqrt{s}({0}))",
    xmath.SinOp: "sin{s}({0})",
    xmath.CosOp: "cos{s}({0})",
    xmath.TanOp: "tan{s}({0})",
    xmath.TanhOp: "tanh{s}({0})",
    xmath.AtanOp: "atan{s}({0})",
    xmath.ErfOp: "erf{s}({0})",
    xmath.FloorOp: "floor{s}({0})",
    xmath.CeilOp: "ceil{s}({0})",
    xmath.TruncOp: "trunc{s}({0})",
    xmath.RoundOp: "round{s}({0})",
    xmath.RoundEvenOp: "rint{s}({0})",
    xmath.AbsFOp: "fabs{s}({0})",
    xmath.PowFOp: "pow{s}({0}, {1})",
    xmath.CopySignOp: "copysign{s}({0}, {1})",
    xmath.FmaOp: "fma{s}({0}, {1}, {2})",
    arith.MaxnumfOp: "fmax{s}({0}, {1})",
    arith.MinnumfOp: "fmin{s}({0}, {1})",
}
LIBM_NAMES = frozenset(
    re.match(r"\(?(?:1 / )?(\w+)\{s\}", f).group(1) + s  # type: ignore[union-attr]
    for f in MATH.values()
    for s in ("", "f")
)

CMPI = {
    "eq": "({0} == {1})",
    "ne": "({0} != {1})",
    "slt": "({0} < {1})",
    "sle": "({0} <= {1})",
    "sgt": "({0} > {1})",
    "sge": "({0} >= {1})",
    "ult": "(({u}){0} < ({u}){1})",
    "ule": "(({u}){0} <= ({u}){1})",
    "ugt": "(({u}){0} > ({u}){1})",
    "uge": "(({u}){0} >= ({u}){1})",
}
# C's relations are false on NaN (ordered), except != (unordered).
CMPF = {
    "false": "false",
    "true": "true",
    "oeq": "({0} == {1})",
    "ogt": "({0} > {1})",
    "oge": "({0} >= {1})",
    "olt": "({0} < {1})",
    "ole": "({0} <= {1})",
    "one": "({0} < {1} || {0} > {1})",
    "ord": "({0} == {0} && {1} == {1})",
    "ueq": "!({0} < {1} || {0} > {1})",
    "ugt": "!({0} <= {1})",
    "uge": "!({0} < {1})",
    "ult": "!({0} >= {1})",
    "ule": "!({0} > {1})",
    "une": "({0} != {1})",
    "uno": "({0} != {0} || {1} != {1})",
}


@dataclass
class Buffer:
    """A memref in C: its name, dimensions (C expressions) and memory scope."""

    name: str
    dims: list[str]
    scope: str = ""
    heap: bool = False
    strides: list[str] | None = None  # a view's (memref.subview), else row-major

    def index(self, indices: Sequence[str]) -> str:
        """The linear index of `indices`."""
        if not indices:
            return "0"
        if self.strides is not None:
            return " + ".join(
                i if s == "1" else f"{i} * {s}" for i, s in zip(indices, self.strides, strict=True)
            )
        linear = indices[0]
        for position, (dim, index) in enumerate(zip(self.dims[1:], indices[1:], strict=True)):
            linear = f"{linear if position == 0 else f'({linear})'} * {dim} + {index}"
        return strip(linear)


def memref_type(typ: Attribute, where: Operation) -> MemRefType:
    if not isinstance(typ, MemRefType):
        raise fail(where, f"expected a memref, got {typ}")
    if not isinstance(typ.layout, NoneAttr) and "strided" in str(typ.layout):
        raise fail(where, f"C-style backends support contiguous memrefs only, got {typ}")
    return typ


def padded_strides(typ: Attribute) -> list[int] | None:
    """The strides of a static buffer allocated with padded rows (storage_align), else None."""
    if not isinstance(typ, MemRefType) or not isinstance(typ.layout, StridedLayoutAttr):
        return None
    strides = typ.layout.get_strides()
    offset = typ.layout.get_offset()
    shape = typ.get_shape()
    if offset != 0 or any(s is None for s in strides) or any(d < 0 for d in shape):
        return None
    return [int(s) for s in strides]  # type: ignore[arg-type]


def memory_scope(typ: MemRefType) -> str:
    space = typ.memory_space
    return space.data if isinstance(space, StringAttr) else ""


@dataclass
class FunctionState:
    """What the walk of one function has produced so far."""

    lines: list[str] = field(default_factory=list)
    depth: int = 1
    names: dict[SSAValue, str] = field(default_factory=dict)
    buffers: dict[SSAValue, Buffer] = field(default_factory=dict)
    constants: dict[SSAValue, object] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    heap: list[list[Buffer]] = field(default_factory=lambda: [[]])
    in_parallel: bool = False
    loop_scopes: list[int] = field(default_factory=list)  # len(heap) at each enclosing loop
    failed_flag: str | None = None  # set by a parallel iteration that fails
    unsynced: set[SSAValue] = field(default_factory=set)  # shared buffers written since a barrier


class CRenderer:
    """Renders the tir kernels of a module as C99; subclasses override the tables below."""

    language: ClassVar[str] = "C"
    prelude: ClassVar[tuple[str, ...]] = (
        "#include <math.h>",
        "#include <stdbool.h>",
        "#include <stdint.h>",
        "#include <stdlib.h>",
    )
    kernel_prefix: ClassVar[str] = ""
    restrict: ClassVar[str] = "restrict"
    types: ClassVar[dict[str, str]] = {
        "index": "int64_t",
        "i1": "bool",
        "i8": "int8_t",
        "i16": "int16_t",
        "i32": "int32_t",
        "i64": "int64_t",
        "f16": "_Float16",
        "f32": "float",
        "f64": "double",
    }
    unsigned: ClassVar[dict[str, str]] = {
        "index": "uint64_t",
        "i1": "bool",
        "i8": "uint8_t",
        "i16": "uint16_t",
        "i32": "uint32_t",
        "i64": "uint64_t",
    }
    expressions: ClassVar[dict[type[Operation], str]] = EXPRESSIONS
    math: ClassVar[dict[type[Operation], str]] = MATH
    math_suffix: ClassVar[dict[str, str]] = {"f16": "f", "f32": "f", "f64": ""}
    # (op, dtype) -> format string, where a target spells a function its own way
    math_overrides: ClassVar[dict[tuple[type[Operation], str], str]] = {}
    float_literal: ClassVar[dict[str, str]] = {"f16": "(({t}){v}f)", "f32": "{v}f", "f64": "{v}"}
    float_specials: ClassVar[dict[str, str]] = {
        "inf": "INFINITY",
        "-inf": "(-INFINITY)",
        "nan": "NAN",
    }
    loop_pragmas: ClassVar[dict[str, str]] = {
        "parallel": "#pragma omp parallel for",
        "vectorized": "#pragma omp simd",
        "unrolled": "#pragma GCC unroll 16",
    }
    scope_prefix: ClassVar[dict[str, str]] = {}
    barrier: ClassVar[str | None] = None
    thread_index: ClassVar[str | None] = None  # format of a tir.thread_index, {0} its tag
    stack_limit_bytes: ClassVar[int] = 64 * 1024
    heap_alloc: ClassVar[str | None] = "({t} *)malloc(sizeof({t}) * ({n}))"
    kernel_attribute: ClassVar[str | None] = None  # render only the functions marked so
    launch_bounds: ClassVar[str | None] = None  # format over a kernel's threads per block
    returns_status: ClassVar[bool] = True  # int32_t kernels: 0, or 1 with xtvm_last_error
    # a value's bits read as another type of its width ({s}: the source type), or None
    bit_cast: ClassVar[str | None] = "((union {{ {s} from; {t} to; }}){{ .from = {0} }}).to"

    # -- the module -------------------------------------------------------------------------

    def kernels(self, module: ModuleOp) -> list[func.FuncOp]:
        """The functions this target renders."""
        return [
            op
            for op in module.ops
            if isinstance(op, func.FuncOp)
            and (self.kernel_attribute is None or self.kernel_attribute in op.attributes)
        ]

    def render(self, module: ModuleOp) -> str:
        """The source of every kernel of `module`."""
        functions = self.kernels(module)
        out = [*self.prelude, ""]
        if self.returns_status:
            out += [
                "#include <stdio.h>",
                "",
                "/* The last error of a kernel (one buffer per library, as the LLVM backend's). */",
                f"static char {ERROR_TEXT}[{ERROR_BUFFER_BYTES}];",
                f"{self.kernel_prefix}const char *{LAST_ERROR_SYMBOL}(void) {{ "
                f"return {ERROR_TEXT}; }}",
                "",
            ]
        externs = self.extern_prototypes(functions)
        if externs:
            out += [*externs, ""]
        defined = [f for f in functions if f.body.blocks]
        calls = any(isinstance(op, func.CallOp) for f in defined for op in f.walk())
        prototypes = [self.signature(f) + ";" for f in functions if calls or not f.body.blocks]
        if prototypes:
            out += [*prototypes, ""]
        for function in defined:
            out += [*self.render_function(function), ""]
        return "\n".join(out).rstrip() + "\n"

    def extern_prototypes(self, functions: Sequence[func.FuncOp]) -> list[str]:
        """Prototypes of the functions tir.call_extern calls that no header declares."""
        seen: dict[str, str] = {}
        for function in functions:
            for op in function.walk():
                if isinstance(op, tir.CallExternOp) and op.packed is not None:
                    raise fail(
                        op,
                        f"tvm.tir.call_packed '{op.callee.data}' calls a Python function: "
                        "build for the llvm target, whose JIT can call it",
                    )
                if isinstance(op, tir.CallExternOp) and op.callee.data not in LIBM_NAMES:
                    callee = self.symbol(op.callee.data, "extern function", op)
                    ret = self.ctype(op.res[0].type, op) if op.res else "void"
                    args = ", ".join(self.argument_type(a.type, op) for a in op.args) or "void"
                    seen.setdefault(callee, f"{ret} {callee}({args});")
        return list(seen.values())

    def signature(self, function: func.FuncOp, state: FunctionState | None = None) -> str:
        """`void name(T *restrict A, ..., int64_t A_dim1)`, naming the arguments in `state`."""
        if function.function_type.outputs.data:
            raise fail(function, "tir kernels return their results through buffers, not values")
        state = state or FunctionState()
        inputs = function.function_type.inputs.data
        block_args: Sequence[SSAValue | None] = (
            function.body.block.args if function.body.blocks else [None] * len(inputs)
        )
        params: list[str] = []
        dynamic: list[str] = []
        for position, (typ, arg) in enumerate(zip(inputs, block_args, strict=True)):
            hint = (arg.name_hint if arg is not None else None) or f"arg{position}"
            name = self.fresh(state, hint)
            if isinstance(typ, MemRefType):
                memref_type(typ, function)
                element = self.ctype(typ.element_type, function)
                params.append(f"{element} *{self.restrict} {name}")
                dims = [str(d) for d in typ.get_shape()]
                for i, d in enumerate(typ.get_shape()):
                    if d < 0:
                        dims[i] = self.fresh(state, f"{name}_dim{i}")
                        dynamic.append(f"int64_t {dims[i]}")
                if arg is not None:
                    state.buffers[arg] = Buffer(name, dims)
            else:
                params.append(f"{self.ctype(typ, function)} {name}")
                if arg is not None:
                    state.names[arg] = name
        prefix = self.function_prefix(function)
        name = self.symbol(function.sym_name.data, "function name", function, defined=True)
        return f"{prefix}{name}({', '.join(params + dynamic) or 'void'})"

    def function_prefix(self, function: func.FuncOp) -> str:
        """What precedes a function's name: qualifiers, `void`, launch bounds."""
        threads = block_threads(function)
        result = "int32_t " if self.returns_status else "void "
        if self.launch_bounds is None or threads is None:
            return self.kernel_prefix + result
        return self.kernel_prefix + result + self.launch_bounds.format(threads) + " "

    def render_function(self, function: func.FuncOp) -> list[str]:
        state = FunctionState()
        header = self.signature(function, state)
        state.lines.append(header + " {")
        if self.returns_status:
            self.bind_arguments(state, function)
        self.emit_block(state, function.body.block)
        self.free_heap(state, state.heap[0])
        if state.lines[-1].strip() in ("return;", "return 0;"):
            state.lines.pop()
        if self.returns_status:
            self.line(state, "return 0;")
        if state.failed_flag is not None:
            state.lines.insert(1, f"  int {state.failed_flag} = 0;")
        state.lines.append("}")
        return state.lines

    # -- errors -----------------------------------------------------------------------------

    def fail_unless(
        self, state: FunctionState, condition: str, message: str, values: Sequence[str] = ()
    ) -> None:
        """Go on where `condition` holds; else report `message` (printf, `%lld` per value)
        and leave with status 1. In a parallel loop, whose iterations cannot return, the
        iteration flags the failure and stops; the kernel returns 1 after the loop."""
        if not self.returns_status:
            return
        arguments = "".join(f", (long long)({v})" for v in values)
        report = f"snprintf({ERROR_TEXT}, sizeof {ERROR_TEXT}, {c_literal(message)}{arguments});"
        self.line(state, f"if (!({condition})) {{")
        state.depth += 1
        self.line(state, report)
        self.leave_with_error(state)
        state.depth -= 1
        self.line(state, "}")

    def leave_with_error(self, state: FunctionState) -> None:
        """Free the live heap buffers and return 1 (in a parallel loop: those of this
        iteration, flag the failure and go to the next iteration)."""
        if state.in_parallel and state.loop_scopes:
            if state.failed_flag is None:
                state.failed_flag = self.fresh(state, "failed")
            for scope in state.heap[state.loop_scopes[-1] :]:
                for buffer in scope:
                    self.line(state, f"free({buffer.name});")
            self.line(state, "#pragma omp atomic write")
            self.line(state, f"{state.failed_flag} = 1;")
            self.line(state, "continue;")
            return
        for scope in state.heap:
            for buffer in scope:
                self.line(state, f"free({buffer.name});")
        self.line(state, "return 1;")

    def bind_arguments(self, state: FunctionState, function: func.FuncOp) -> None:
        """The argument binder at the kernel's entry (see `xtvm.runtime.binding`)."""
        block = function.body.block
        names = [a.name_hint or f"arg{k}" for k, a in enumerate(block.args)]
        kernel = function.sym_name.data
        plan = binding_plan(kernel_arg_dims(function))

        def value(ref: DimRef) -> str:
            arg = block.args[ref.arg]
            if ref.dim is None:
                return state.names[arg]
            return state.buffers[arg].dims[ref.dim]

        for actual, wanted, message, shown in entry_checks(
            kernel, names, plan, value, c_size_op, str
        ):
            if wanted is None:
                condition = f"{actual} >= 0"
            else:
                condition = f"(int64_t)({actual}) == (int64_t)({wanted})"
            self.fail_unless(state, condition, message, shown)

    # -- helpers ----------------------------------------------------------------------------

    def argument_type(self, typ: Attribute, where: Operation) -> str:
        """The C type of an extern call's argument: a buffer is a pointer to its elements."""
        if isinstance(typ, MemRefType):
            return self.ctype(typ.element_type, where) + " *"
        return self.ctype(typ, where)

    def ctype(self, typ: Attribute, where: Operation) -> str:
        key = dtype_key(typ)
        if key is None or key not in self.types:
            raise fail(where, f"the {self.language} backend has no type for {typ}")
        return self.types[key]

    def symbol(self, name: str, what: str, where: Operation, defined: bool = False) -> str:
        """`name` as a symbol of the generated source: a C identifier, else a located error."""
        what = f"the {self.language} backend's {what}"
        return check_symbol(name, what, where, CodegenError, defined)

    def fresh(self, state: FunctionState, hint: str | None) -> str:
        """A new C identifier from a name hint (any character outside [A-Za-z0-9_] becomes
        `_`)."""
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint or "v") or "v"
        if base[0].isdigit():
            base = "v" + base
        name, count = base, 0
        while name in state.used or name in C_KEYWORDS or (hint is None and count == 0):
            name = f"{base}{count}"
            count += 1
        state.used.add(name)
        return name

    def line(self, state: FunctionState, text: str) -> None:
        state.lines.append("  " * state.depth + text)

    def get(self, state: FunctionState, value: SSAValue, where: Operation) -> str:
        if value in state.names:
            return state.names[value]
        raise fail(where, "value used before it is defined (or a buffer used as a scalar)")

    def buffer(self, state: FunctionState, value: SSAValue, where: Operation) -> Buffer:
        if value not in state.buffers:
            raise fail(where, "memref used before it is defined")
        return state.buffers[value]

    def bind(self, state: FunctionState, op: Operation, result: SSAValue, expression: str) -> None:
        """Name `result`: inline when used once in its own block, else a C variable."""
        uses = list(result.uses)
        if (
            len(uses) == 1
            and uses[0].operation.parent_block() is op.parent_block()
            and not isinstance(op, memref.LoadOp | tir.CallExternOp)
        ):
            state.names[result] = expression
            return
        name = self.fresh(state, result.name_hint)
        self.line(state, f"{self.ctype(result.type, op)} {name} = {strip(expression)};")
        state.names[result] = name

    def literal(self, value: object, typ: Attribute, op: Operation) -> str:
        key = dtype_key(typ)
        t = self.ctype(typ, op)
        if key is not None and key.startswith("f"):
            number = float(value)  # type: ignore[arg-type]
            if math.isnan(number) or math.isinf(number):
                special = "nan" if math.isnan(number) else ("inf" if number > 0 else "-inf")
                return self.float_specials[special].format(t=t)
            text = str(np.float32(number)) if key in ("f16", "f32") else repr(number)
            if "." not in text and "e" not in text:
                text += ".0"
            return self.float_literal[key].format(v=text, t=t)
        integer = int(value)  # type: ignore[call-overload]
        if key == "i1":
            return "true" if integer else "false"
        if integer == -(2**63):
            return "(-9223372036854775807LL - 1)"
        return f"{integer}LL" if abs(integer) >= 2**31 else str(integer)

    def format(self, template: str, op: Operation, args: Sequence[str]) -> str:
        result = op.results[0].type if op.results else None
        first = op.operands[0].type if op.operands else None
        fields = {
            "t": self.ctype(result, op) if result is not None else "",
            "u": self.unsigned.get(dtype_key(first) or "", "") if first is not None else "",
            "tu": self.unsigned.get(dtype_key(result) or "", "") if result is not None else "",
        }
        return template.format(*args, **fields)

    def free_heap(self, state: FunctionState, buffers: list[Buffer]) -> None:
        for buffer in buffers:
            self.line(state, f"free({buffer.name});")
        buffers.clear()

    # -- the walk ---------------------------------------------------------------------------

    def emit_block(self, state: FunctionState, block: Block) -> list[str]:
        """Emit `block`'s ops; the values its scf.yield yields, if any."""
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                return [self.get(state, v, op) for v in op.operands]
            if isinstance(op, tir.YieldOp):
                return []
            if self.barrier:
                self.synchronize(state, op)
            self.emit_op(state, op)
        return []

    def emit_op(self, state: FunctionState, op: Operation) -> None:
        if type(op) in self.expressions:
            args = [self.get(state, v, op) for v in op.operands]
            self.bind(state, op, op.results[0], self.format(self.expressions[type(op)], op, args))
            return
        if type(op) in self.math:
            key = dtype_key(op.results[0].type) or ""
            args = [self.get(state, v, op) for v in op.operands]
            template = self.math_overrides.get((type(op), key))
            if template is None:
                if key not in self.math_suffix:
                    raise fail(op, f"'{op.name}' on {op.results[0].type} has no math function")
                template = self.math[type(op)].replace("{s}", self.math_suffix[key])
            self.bind(state, op, op.results[0], self.format(template, op, args))
            return
        method = getattr(self, "emit_" + op.name.replace(".", "_"), None)
        if method is None:
            raise fail(op, f"the {self.language} backend cannot translate '{op.name}'")
        method(state, op)

    def synchronize(self, state: FunctionState, op: Operation) -> None:
        """A barrier before `op` if it reads a shared buffer written since the last one."""
        nested = list(op.walk())
        if any(isinstance(n, memref.LoadOp) and n.memref in state.unsynced for n in nested):
            self.line(state, self.barrier or "")
            state.unsynced.clear()
        state.unsynced.update(
            n.memref for n in nested if isinstance(n, memref.StoreOp) and is_shared(n.memref)
        )

    # -- ops --------------------------------------------------------------------------------

    def emit_arith_constant(self, state: FunctionState, op: arith.ConstantOp) -> None:
        value = op.value
        if not isinstance(value, IntegerAttr | FloatAttr):
            raise fail(op, f"the {self.language} backend cannot materialize the constant {value}")
        state.constants[op.result] = value.value.data
        state.names[op.result] = self.literal(value.value.data, op.result.type, op)

    def emit_arith_cmpi(self, state: FunctionState, op: arith.CmpiOp) -> None:
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        args = [self.get(state, op.lhs, op), self.get(state, op.rhs, op)]
        self.bind(state, op, op.result, self.format(CMPI[predicate], op, args))

    def emit_arith_bitcast(self, state: FunctionState, op: arith.BitcastOp) -> None:
        """Integers of one width changing signedness (int32 <-> uint32): C converts them
        modulo 2**width; ui and signless integers share a C type here. Between a float and
        an integer (`tir.reinterpret`), the bits go through a union (`bit_cast`)."""
        args = [self.get(state, op.input, op)]
        if all(isinstance(t, IntegerType) for t in (op.input.type, op.result.type)):
            self.bind(state, op, op.result, self.format("(({t}){0})", op, args))
            return
        if self.bit_cast is None:
            types = f"{op.input.type} to {op.result.type}"
            raise fail(op, f"the {self.language} backend cannot translate '{op.name}' of {types}")
        source = self.ctype(op.input.type, op)
        self.bind(state, op, op.result, self.format(self.bit_cast.replace("{s}", source), op, args))

    def emit_arith_cmpf(self, state: FunctionState, op: arith.CmpfOp) -> None:
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        args = [self.get(state, op.lhs, op), self.get(state, op.rhs, op)]
        self.bind(state, op, op.result, self.format(CMPF[predicate], op, args))

    def emit_tir_for(self, state: FunctionState, op: tir.ForOp) -> None:
        kind = op.kind.data
        pragma = None if kind == "parallel" and state.in_parallel else self.loop_pragmas.get(kind)
        lower = self.get(state, op.lower_bound, op)
        upper = self.get(state, op.upper_bound, op)
        iv = self.fresh(state, op.induction_variable.name_hint or "i")
        state.names[op.induction_variable] = iv
        if pragma:
            self.line(state, pragma)
        self.line(state, f"for (int64_t {iv} = {strip(lower)}; {iv} < {strip(upper)}; ++{iv}) {{")
        outer = state.in_parallel
        state.in_parallel = outer or kind == "parallel"
        state.loop_scopes.append(len(state.heap))
        self.emit_body(state, op.body.block)
        state.loop_scopes.pop()
        state.in_parallel = outer
        self.line(state, "}")
        if kind == "parallel" and not outer and state.failed_flag is not None:
            self.line(state, f"if ({state.failed_flag}) {{")  # its message stands
            state.depth += 1
            self.leave_with_error(state)
            state.depth -= 1
            self.line(state, "}")

    def emit_body(self, state: FunctionState, block: Block) -> list[str]:
        """A nested block: deeper indentation, its own heap buffers freed at its end."""
        state.depth += 1
        state.heap.append([])
        yielded = self.emit_block(state, block)
        self.free_heap(state, state.heap.pop())
        state.depth -= 1
        return yielded

    def emit_scf_for(self, state: FunctionState, op: scf.ForOp) -> None:
        iv_arg, *carried = op.body.block.args
        names = []
        for arg, init, result in zip(carried, op.iter_args, op.results, strict=True):
            name = self.fresh(state, arg.name_hint or result.name_hint)
            self.line(
                state, f"{self.ctype(arg.type, op)} {name} = {strip(self.get(state, init, op))};"
            )
            state.names[arg] = state.names[result] = name
            names.append(name)
        iv = self.fresh(state, iv_arg.name_hint or "i")
        state.names[iv_arg] = iv
        lb, ub, step = (strip(self.get(state, v, op)) for v in (op.lb, op.ub, op.step))
        t = self.ctype(iv_arg.type, op)
        self.line(state, f"for ({t} {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
        state.depth += 1
        state.loop_scopes.append(len(state.heap))
        state.heap.append([])
        yielded = self.emit_block(state, op.body.block)
        self.assign(state, op, names, yielded, carried)
        self.free_heap(state, state.heap.pop())
        state.loop_scopes.pop()
        state.depth -= 1
        self.line(state, "}")

    def assign(
        self,
        state: FunctionState,
        op: Operation,
        names: Sequence[str],
        values: Sequence[str],
        typed: Sequence[SSAValue],
    ) -> None:
        """`names = values` as a parallel assignment (through temporaries when it matters)."""
        pairs = [(n, v) for n, v in zip(names, values, strict=True) if n != v]
        if len(pairs) > 1:
            temps = []
            for (name, value), arg in zip(pairs, typed, strict=False):
                temp = self.fresh(state, f"{name}_next")
                self.line(state, f"{self.ctype(arg.type, op)} {temp} = {strip(value)};")
                temps.append((name, temp))
            pairs = temps
        for name, value in pairs:
            self.line(state, f"{name} = {strip(value)};")

    def emit_scf_if(self, state: FunctionState, op: scf.IfOp) -> None:
        names = []
        for result in op.results:
            name = self.fresh(state, result.name_hint)
            self.line(state, f"{self.ctype(result.type, op)} {name};")
            names.append(name)
        self.line(state, f"if ({strip(self.get(state, op.cond, op))}) {{")
        for index, region in enumerate((op.true_region, op.false_region)):
            if not region.blocks or (index and not list(region.block.ops)[:-1] and not names):
                continue
            if index:
                self.line(state, "} else {")
            state.depth += 1
            state.heap.append([])
            yielded = self.emit_block(state, region.block)
            self.assign(state, op, names, yielded, list(op.results))
            self.free_heap(state, state.heap.pop())
            state.depth -= 1
        self.line(state, "}")
        for result, name in zip(op.results, names, strict=True):
            state.names[result] = name

    def emit_memref_load(self, state: FunctionState, op: memref.LoadOp) -> None:
        buffer = self.buffer(state, op.memref, op)
        index = buffer.index([self.get(state, i, op) for i in op.indices])
        self.bind(state, op, op.res, f"{buffer.name}[{index}]")

    def emit_memref_store(self, state: FunctionState, op: memref.StoreOp) -> None:
        buffer = self.buffer(state, op.memref, op)
        index = buffer.index([self.get(state, i, op) for i in op.indices])
        self.line(state, f"{buffer.name}[{index}] = {strip(self.get(state, op.value, op))};")

    def emit_memref_alloc(self, state: FunctionState, op: memref.AllocOp) -> None:
        strides = padded_strides(op.memref.type)
        typ = op.memref.type if strides else memref_type(op.memref.type, op)
        assert isinstance(typ, MemRefType)
        element = self.ctype(typ.element_type, op)
        scope = memory_scope(typ)
        dynamic = iter(strip(self.get(state, v, op)) for v in op.dynamic_sizes)
        dims = [str(d) if d >= 0 else next(dynamic) for d in typ.get_shape()]
        name = self.fresh(state, op.memref.name_hint or "buf")
        buffer = Buffer(name, dims, scope, strides=[str(s) for s in strides] if strides else None)
        state.buffers[op.memref] = buffer
        shape = typ.get_shape()
        if all(d >= 0 for d in shape):
            count = max(math.prod(shape), 1)
            if strides:  # the span of the padded rows
                count = 1 + sum((d - 1) * s for d, s in zip(shape, strides, strict=True))
            size = count * max(1, typ.element_type.bitwidth // 8)  # type: ignore[attr-defined]
            if scope or size <= self.stack_limit_bytes:
                prefix = self.scope_prefix.get(scope, "")
                self.line(state, f"{prefix}{element} {name}[{count}];")
                return
        if scope or self.heap_alloc is None:
            raise fail(op, f"the {self.language} backend cannot allocate {typ} here")
        element_bytes = max(1, typ.element_type.bitwidth // 8)  # type: ignore[attr-defined]
        static_bytes = element_bytes * math.prod(d for d in shape if d >= 0)
        if static_bytes > MAX_BUFFER_BYTES:  # the verifier refuses these; hand-built IR may not
            raise fail(op, f"{typ} needs {static_bytes} bytes, more than {MAX_BUFFER_BYTES}")
        where = printf_escape(f"{state_function(op)}: buffer '{op.memref.name_hint or name}'")
        dynamic_dims = [dims[i] for i, d in enumerate(shape) if d < 0]
        if dynamic_dims and self.returns_status:
            # Its size in bytes; a product that overflows (or a negative size) is an error.
            size = self.fresh(state, f"{name}_bytes")
            self.line(state, f"uint64_t {size} = {static_bytes}ULL;")
            for dim in dynamic_dims:
                self.fail_unless(
                    state,
                    f"!__builtin_mul_overflow({size}, (uint64_t)({strip(dim)}), &{size}) && "
                    f"{size} <= {MAX_BUFFER_BYTES}ULL",
                    f"{where}: its size overflows",
                )
            count_text = f"{size} / sizeof({element})"
        else:
            count_text = " * ".join(dims) or "1"
        allocation = self.heap_alloc.format(t=element, n=count_text)
        self.line(state, f"{element} *{self.restrict} {name} = {allocation};")
        self.fail_unless(state, f"{name} != NULL", f"{where}: out of memory")
        buffer.heap = True
        state.heap[-1].append(buffer)

    emit_memref_alloca = emit_memref_alloc

    def emit_memref_dealloc(self, state: FunctionState, op: memref.DeallocOp) -> None:
        buffer = self.buffer(state, op.memref, op)
        for scope in state.heap:
            if buffer in scope:
                scope.remove(buffer)
                self.line(state, f"free({buffer.name});")

    def emit_memref_dim(self, state: FunctionState, op: memref.DimOp) -> None:
        buffer = self.buffer(state, op.source, op)
        if op.index not in state.constants:
            raise fail(op, "memref.dim needs a constant dimension index")
        state.names[op.result] = buffer.dims[int(state.constants[op.index])]  # type: ignore[call-overload]

    def emit_func_return(self, state: FunctionState, op: func.ReturnOp) -> None:
        if op.operands:
            raise fail(op, "tir kernels return their results through buffers, not values")
        for scope in state.heap:
            for buffer in scope:
                self.line(state, f"free({buffer.name});")
        self.line(state, "return 0;" if self.returns_status else "return;")

    def emit_func_call(self, state: FunctionState, op: func.CallOp) -> None:
        args: list[str] = []
        dynamic: list[str] = []
        for value in op.arguments:
            if isinstance(value.type, MemRefType):
                buffer = self.buffer(state, value, op)
                args.append(buffer.name)
                dynamic += [buffer.dims[i] for i, d in enumerate(value.type.get_shape()) if d < 0]
            else:
                args.append(strip(self.get(state, value, op)))
        if op.results:
            raise fail(op, "tir kernels return their results through buffers, not values")
        callee = self.symbol(op.callee.string_value(), "callee", op)
        call = f"{callee}({', '.join(args + dynamic)})"
        if not self.returns_status:
            self.line(state, f"{call};")
            return
        self.line(state, f"if ({call} != 0) {{")  # its message stands
        state.depth += 1
        self.leave_with_error(state)
        state.depth -= 1
        self.line(state, "}")

    def emit_memref_subview(self, state: FunctionState, op: memref.SubviewOp) -> None:
        """A pointer to a region's first element, with the region's sizes and strides (a
        rank-reducing view drops its leading unit dimensions)."""
        source = self.buffer(state, op.source, op)
        lists = []
        for static, dynamic in (
            (op.static_offsets, op.offsets),
            (op.static_sizes, op.sizes),
            (op.static_strides, op.strides),
        ):
            values = iter(self.get(state, v, op) for v in dynamic)  # kept parenthesized
            lists.append(
                [str(v) if v != DYNAMIC_INDEX else next(values) for v in static.get_values()]
            )
        offsets, sizes, steps = lists
        strides = source.strides or row_major_strides(source.dims)
        scaled = [s if k == "1" else f"({s}) * {k}" for s, k in zip(strides, steps, strict=True)]
        typ = op.result.type
        assert isinstance(typ, MemRefType)
        dropped = len(sizes) - typ.get_num_dims()
        name = self.fresh(state, op.result.name_hint or f"{source.name}_view")
        element = self.ctype(typ.element_type, op)
        self.line(state, f"{element} *{name} = {source.name} + {source.index(offsets)};")
        state.buffers[op.result] = Buffer(
            name, sizes[dropped:], source.scope, strides=scaled[dropped:]
        )

    def emit_tir_call_extern(self, state: FunctionState, op: tir.CallExternOp) -> None:
        """A buffer argument is passed as the address of its first element."""
        args = ", ".join(
            self.buffer(state, a, op).name
            if isinstance(a.type, MemRefType)
            else strip(self.get(state, a, op))
            for a in op.args
        )
        call = f"{self.symbol(op.callee.data, 'extern function', op)}({args})"
        if op.res:
            self.bind(state, op, op.res[0], call)
        else:
            self.line(state, call + ";")

    def emit_tir_thread_index(self, state: FunctionState, op: tir.ThreadIndexOp) -> None:
        if self.thread_index is None:
            raise fail(op, f"the {self.language} backend has no GPU thread indices")
        if op.thread.data not in tir.GPU_AXES:
            raise fail(op, f"unknown GPU thread index {quoted(op.thread.data)}")
        state.names[op.result] = self.thread_index.format(op.thread.data)


def c_literal(text: str) -> str:
    """`text` as a C string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def c_size_op(op: str, a: str, b: str) -> str:
    """A binder expression's operator on int64_t sizes (floor division, as te's)."""
    if op in ("add", "sub", "mul"):
        symbol = {"add": "+", "sub": "-", "mul": "*"}[op]
        return f"((int64_t)({a}) {symbol} (int64_t)({b}))"
    divisor = f"((int64_t)({b}) == 0 ? 1 : (int64_t)({b}))"
    quotient = f"((int64_t)({a}) / {divisor})"
    remainder = f"((int64_t)({a}) % {divisor})"
    adjust = f"({remainder} != 0 && (({remainder} < 0) != ({divisor} < 0)))"
    if op == "floordiv":
        return f"({quotient} - {adjust})"
    return f"({remainder} + ({adjust} ? {divisor} : 0))"


def state_function(op: Operation) -> str:
    """The name of the kernel `op` is in."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if isinstance(parent, func.FuncOp) else "kernel"


def row_major_strides(dims: Sequence[str]) -> list[str]:
    strides = ["1"]
    for dim in reversed(dims[1:]):
        strides.insert(0, dim if strides[0] == "1" else f"{strides[0]} * {dim}")
    return strides


def imported_sources(module: ModuleOp) -> list[str]:
    """The C sources loops carry as `pragma_import_c` (TVM's `s[C].pragma(x, "import_c",
    source)`): compiled with the kernels, which may call the functions they define."""
    sources: list[str] = []
    for op in module.walk():
        if isinstance(op, tir.ForOp) and op.annotations is not None:
            source = op.annotations.data.get("pragma_import_c")
            if isinstance(source, StringAttr) and source.data not in sources:
                sources.append(source.data)
    return sources


def block_threads(function: func.FuncOp) -> int | None:
    """Threads per block of a tir-split-host-device kernel, when static."""
    info = function.attributes.get("tir.kernel")
    threads = getattr(info, "data", {}).get("threads") if info is not None else None
    if threads is None:
        return None
    if not isinstance(threads, DenseArrayBase):
        raise fail(function, f"tir.kernel's threads must be an array<i64: ...>, got {threads}")
    extents = threads.get_values()
    return math.prod(extents) if all(isinstance(e, int) and e > 0 for e in extents) else None


def is_shared(value: SSAValue) -> bool:
    return isinstance(value.type, MemRefType) and memory_scope(value.type) == "shared"


def strip(expression: str) -> str:
    """`expression` without one pair of enclosing parentheses, where they enclose it all."""
    if not (expression.startswith("(") and expression.endswith(")")):
        return expression
    depth = 0
    for position, char in enumerate(expression):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and position < len(expression) - 1:
            return expression
    return expression[1:-1]


def render_c(module: ModuleOp) -> str:
    """The C99 source of the tir kernels of `module`."""
    return CRenderer().render(module)
