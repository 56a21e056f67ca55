"""The reference interpreter of tir: runs tir kernels on numpy arrays.

A tir kernel is a `func.func` over memrefs made of tir loops, memref loads/stores, scf guards
and arith/math scalar code. The interpreter translates each function once into Python source
(one statement per op, one Python `for` per loop) and runs that: an order of magnitude faster
than walking the IR per element, and still a plain, obviously-correct model of the semantics
that every lowering and backend is checked against. Every loop kind runs serially.

Scalars follow the IR's types: integers (and `index`) are Python ints wrapped to their width
(signed, or in [0, 2**width) for unsigned types such as `ui8`, as numpy holds them), floats
are numpy scalars of their precision (f32 arithmetic stays f32), `i1` is bool. An op the
interpreter does not know is an error naming it and its location, never skipped.
`tir.call_extern` calls libm's functions or one registered with `tvm.register_func`; a buffer
argument (a `memref.subview` of a region, as tir-tensorize binds them) is a numpy view.

    run(module, "kernel", a, b, c)   # buffers in argument order; outputs are written in place
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xtvm.dialects import tir
from xtvm.ir.numpy_types import is_unsigned, numpy_dtype


class TirInterpreterError(Exception):
    """A tir function could not be run."""


def location_of(op: Operation) -> str:
    loc = op.location
    line = getattr(loc, "line", None)
    if line is None:
        return ""
    return f" at {loc.filename.data}:{line.data}:{loc.column.data}"  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------
# Scalar helpers the generated code calls


def wrap(value: int, bits: int) -> int:
    """`value` as a signed `bits`-wide integer (two's complement wrap-around)."""
    if bits == 1:
        return value & 1
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def unsigned(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def div_trunc(a: int, b: int) -> int:
    """Integer division rounding toward zero (arith.divsi)."""
    if b == 0:
        raise TirInterpreterError("integer division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def rem_trunc(a: int, b: int) -> int:
    return a - b * div_trunc(a, b)


def cmpf(predicate: str, a: Any, b: Any) -> bool:
    unordered = bool(np.isnan(a) or np.isnan(b))
    if predicate == "false":
        return False
    if predicate == "true":
        return True
    if predicate == "ord":
        return not unordered
    if predicate == "uno":
        return unordered
    relation = predicate[1:]
    result = {
        "eq": a == b,
        "ne": a != b,
        "lt": a < b,
        "le": a <= b,
        "gt": a > b,
        "ge": a >= b,
    }[relation]
    if predicate[0] == "o":
        return bool(result) and not unordered
    return bool(result) or unordered


def erf(x: Any) -> Any:
    """The error function of a scalar, or elementwise of a vector (numpy has none)."""
    if isinstance(x, np.ndarray):
        return np.vectorize(math.erf, otypes=[x.dtype])(x)
    return type(x)(math.erf(float(x)))


def round_half_away(x: Any) -> Any:
    """C's `round` and `math.round`: halves away from zero (numpy's `round` takes them to even)."""
    whole = np.trunc(x)
    with np.errstate(invalid="ignore"):  # inf - inf: the infinity itself is the answer
        # x - trunc(x) is exact, where floor(|x| + 0.5) rounds 0.49999997 up.
        return whole + np.copysign(np.abs(x - whole) >= 0.5, x)


def as_unsigned(a: np.ndarray) -> np.ndarray:
    """A signed integer vector read as unsigned (arith's unsigned ops on vectors)."""
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "i" else a


def div_trunc_vector(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.any(b == 0):
        raise TirInterpreterError("integer division by zero")
    return (np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)).astype(a.dtype)


def cmpf_vector(predicate: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([cmpf(predicate, x, y) for x, y in zip(a, b, strict=True)])


def reduce_vector(kind: str, vector: np.ndarray, acc: Any) -> Any:
    """vector.reduction: combine the lanes in order, then the accumulator if there is one."""
    combine = REDUCTIONS[kind]
    result = vector[0]
    for lane in vector[1:]:
        result = combine(result, lane)
    if acc is not None:
        result = combine(acc, result)
    return int(result) if vector.dtype.kind in "iub" else vector.dtype.type(result)


REDUCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "minsi": min,
    "maxsi": max,
    "minui": min,
    "maxui": max,
    "minnumf": np.fmin,
    "maxnumf": np.fmax,
    "minimumf": np.minimum,
    "maximumf": np.maximum,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}


def launch_grid(
    kernel: Callable[..., Any],
    args: Sequence[Any],
    blocks: Sequence[int],
    threads: Sequence[int],
    thread: dict[str, int],
) -> None:
    """tir.launch: run `kernel` once per thread of the grid, blocks outermost, x fastest.

    A kernel with barriers (`__syncthreads`, a `yield` here) runs its block's threads in
    lockstep: each thread up to the next barrier, then the next thread; the block's "shared"
    buffers are one per block (kept in `thread["shared"]`)."""
    block_axes = [(f"blockIdx.{a}", n) for a, n in zip("xyz", blocks, strict=False)][::-1]
    thread_axes = [(f"threadIdx.{a}", n) for a, n in zip("xyz", threads, strict=False)][::-1]
    lockstep = inspect.isgeneratorfunction(kernel)
    for block in itertools.product(*(range(n) for _, n in block_axes)):
        thread.update(zip((t for t, _ in block_axes), block, strict=True))
        thread["shared"] = {}
        running = []
        for point in itertools.product(*(range(n) for _, n in thread_axes)):
            thread.update(zip((t for t, _ in thread_axes), point, strict=True))
            if not lockstep:
                kernel(*args)
                continue
            running.append((dict(thread), kernel(*args)))
        while running:
            waiting = []
            for indices, steps in running:
                thread.update(indices)
                if next(steps, StopIteration) is not StopIteration:
                    waiting.append((indices, steps))
            running = waiting


def shared_buffer(thread: dict[str, Any], key: int, shape: tuple[int, ...], dtype: Any) -> Any:
    """The running block's buffer of a "shared" allocation (one per block, not per thread)."""
    buffers = thread.setdefault("shared", {})
    if key not in buffers:
        buffers[key] = np.empty(shape, dtype)
    return buffers[key]


def row_major_window(array: np.ndarray, indices: tuple[int, ...], lanes: int) -> np.ndarray:
    """The `lanes` elements of a row-major buffer from `indices` on, as a writable view: a
    vector that runs past the end of its row reads on into the next (tir-vectorize's loops
    over whole rows of a plane)."""
    *outer, last = indices
    if last + lanes <= array.shape[-1]:
        return array[(*outer, slice(last, last + lanes))]
    if not array.flags.c_contiguous:
        raise TirInterpreterError("a vector across rows of a buffer that is not row-major")
    offset = 0
    for index, dim in zip(indices, array.shape, strict=True):
        offset = offset * dim + index
    flat = array.reshape(-1)
    if offset < 0 or offset + lanes > flat.size:
        raise TirInterpreterError(
            f"a vector of {lanes} lanes at {list(indices)} runs out of its buffer"
        )
    return flat[offset : offset + lanes]


HELPERS: dict[str, Any] = {
    "np": np,
    "row_major_window": row_major_window,
    "wrap": wrap,
    "unsigned": unsigned,
    "div_trunc": div_trunc,
    "rem_trunc": rem_trunc,
    "cmpf": cmpf,
    "erf": erf,
    "round_half_away": round_half_away,
    "as_unsigned": as_unsigned,
    "div_trunc_vector": div_trunc_vector,
    "cmpf_vector": cmpf_vector,
    "reduce_vector": reduce_vector,
    "launch_grid": launch_grid,
    "shared_buffer": shared_buffer,
    "TirInterpreterError": TirInterpreterError,
}

# Functions a `tir.call_extern` may name: the C math library's, as the backends provide.
EXTERN_FUNCTIONS: dict[str, Callable[..., Any]] = {}
for _name, _fn in {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "fabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "pow": np.power,
    "erf": erf,
    "log2": np.log2,
    "log10": np.log10,
    "round": round_half_away,
    "trunc": np.trunc,
    "fmax": np.fmax,
    "fmin": np.fmin,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log1p": np.log1p,
    "tan": np.tan,
    "atan": np.arctan,
    "atan2": np.arctan2,
    "acos": np.arccos,
    "asin": np.arcsin,
    "acosh": np.arccosh,
    "asinh": np.arcsinh,
    "atanh": np.arctanh,
    "cosh": np.cosh,
    "sinh": np.sinh,
    "cbrt": np.cbrt,
    "copysign": np.copysign,
    "rint": np.rint,
    "fma": lambda a, b, c: a * b + c,
}.items():
    EXTERN_FUNCTIONS[_name] = _fn
    EXTERN_FUNCTIONS[_name + "f"] = _fn


# ---------------------------------------------------------------------------------------------
# Translation to Python

INT_BINARY = {
    arith.AddiOp: "{a} + {b}",
    arith.SubiOp: "{a} - {b}",
    arith.MuliOp: "{a} * {b}",
    arith.FloorDivSIOp: "{a} // {b}",
    arith.CeilDivSIOp: "-((-{a}) // {b})",
    arith.DivSIOp: "div_trunc({a}, {b})",
    arith.RemSIOp: "rem_trunc({a}, {b})",
    arith.DivUIOp: "{ua} // {ub}",
    arith.RemUIOp: "{ua} % {ub}",
    arith.CeilDivUIOp: "-((-{ua}) // {ub})",
    arith.MaxSIOp: "max({a}, {b})",
    arith.MinSIOp: "min({a}, {b})",
    arith.MaxUIOp: "max({ua}, {ub})",
    arith.MinUIOp: "min({ua}, {ub})",
    arith.AndIOp: "{a} & {b}",
    arith.OrIOp: "{a} | {b}",
    arith.XOrIOp: "{a} ^ {b}",
    arith.ShLIOp: "{a} << {b}",
    arith.ShRSIOp: "{a} >> {b}",
    arith.ShRUIOp: "{ua} >> {b}",
}
FLOAT_BINARY = {
    arith.AddfOp: "{a} + {b}",
    arith.SubfOp: "{a} - {b}",
    arith.MulfOp: "{a} * {b}",
    arith.DivfOp: "{a} / {b}",
    arith.MaximumfOp: "np.maximum({a}, {b})",
    arith.MinimumfOp: "np.minimum({a}, {b})",
    arith.MaxnumfOp: "np.fmax({a}, {b})",
    arith.MinnumfOp: "np.fmin({a}, {b})",
    xmath.PowFOp: "np.power({a}, {b})",
    xmath.CopySignOp: "np.copysign({a}, {b})",
    xmath.Atan2Op: "np.arctan2({a}, {b})",
}
FLOAT_UNARY = {
    arith.NegfOp: "-{a}",
    xmath.ExpOp: "np.exp({a})",
    xmath.Exp2Op: "np.exp2({a})",
    xmath.ExpM1Op: "np.expm1({a})",
    xmath.LogOp: "np.log({a})",
    xmath.Log2Op: "np.log2({a})",
    xmath.Log10Op: "np.log10({a})",
    xmath.Log1pOp: "np.log1p({a})",
    xmath.SqrtOp: "np.sqrt({a})",
    xmath.RsqrtOp: "{one} / np.sqrt({a})",
    xmath.TanhOp: "np.tanh({a})",
    xmath.SinOp: "np.sin({a})",
    xmath.CosOp: "np.cos({a})",
    xmath.TanOp: "np.tan({a})",
    xmath.AtanOp: "np.arctan({a})",
    xmath.ErfOp: "erf({a})",
    xmath.FloorOp: "np.floor({a})",
    xmath.CeilOp: "np.ceil({a})",
    xmath.TruncOp: "np.trunc({a})",
    xmath.RoundOp: "round_half_away({a})",
    xmath.RoundEvenOp: "np.rint({a})",
    xmath.AbsFOp: "np.abs({a})",
    xmath.AcosOp: "np.arccos({a})",
    xmath.AsinOp: "np.arcsin({a})",
    xmath.AcoshOp: "np.arccosh({a})",
    xmath.AsinhOp: "np.arcsinh({a})",
    xmath.AtanhOp: "np.arctanh({a})",
    xmath.CoshOp: "np.cosh({a})",
    xmath.SinhOp: "np.sinh({a})",
    xmath.CbrtOp: "np.cbrt({a})",
}
CMPI = {
    "eq": "{a} == {b}",
    "ne": "{a} != {b}",
    "slt": "{a} < {b}",
    "sle": "{a} <= {b}",
    "sgt": "{a} > {b}",
    "sge": "{a} >= {b}",
    "ult": "{ua} < {ub}",
    "ule": "{ua} <= {ub}",
    "ugt": "{ua} > {ub}",
    "uge": "{ua} >= {ub}",
}


# Integer ops on vectors: numpy arrays of the element dtype wrap on their own.
VECTOR_INT_BINARY = {
    arith.AddiOp: "{a} + {b}",
    arith.SubiOp: "{a} - {b}",
    arith.MuliOp: "{a} * {b}",
    arith.FloorDivSIOp: "{a} // {b}",
    arith.CeilDivSIOp: "-((-{a}) // {b})",
    arith.DivSIOp: "div_trunc_vector({a}, {b})",
    arith.RemSIOp: "np.fmod({a}, {b})",
    arith.DivUIOp: "(as_unsigned({a}) // as_unsigned({b})).astype({a}.dtype)",
    arith.RemUIOp: "(as_unsigned({a}) % as_unsigned({b})).astype({a}.dtype)",
    arith.MaxSIOp: "np.maximum({a}, {b})",
    arith.MinSIOp: "np.minimum({a}, {b})",
    arith.MaxUIOp: "np.maximum(as_unsigned({a}), as_unsigned({b})).astype({a}.dtype)",
    arith.MinUIOp: "np.minimum(as_unsigned({a}), as_unsigned({b})).astype({a}.dtype)",
    arith.AndIOp: "{a} & {b}",
    arith.OrIOp: "{a} | {b}",
    arith.XOrIOp: "{a} ^ {b}",
    arith.ShLIOp: "{a} << {b}",
    arith.ShRSIOp: "{a} >> {b}",
    arith.ShRUIOp: "(as_unsigned({a}) >> as_unsigned({b})).astype({a}.dtype)",
}
CASTS = (
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.TruncIOp,
    arith.SIToFPOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.FPToSIOp,
    arith.FPToUIOp,
)


def bits_of(typ: Attribute) -> int | None:
    """The width integers of `typ` wrap at; None for index (unbounded in the model)."""
    if isinstance(typ, IntegerType):
        return typ.width.data
    return None


def wrapped(text: str, typ: Attribute) -> str:
    """The integer `text` computes, wrapped to `typ`: signed for signless integers, in
    [0, 2**bits) for unsigned ones (as numpy holds them); index values stay unbounded."""
    bits = bits_of(typ)
    if bits is None:
        return text
    return f"{'unsigned' if is_unsigned(typ) else 'wrap'}({text}, {bits})"


def is_integer(typ: Attribute) -> bool:
    return isinstance(typ, IntegerType | IndexType)


def dtype_name(typ: Attribute) -> str:
    return f"np.{numpy_dtype(typ).name}"


@dataclass
class Translator:
    """Writes one function as Python source: `def f(arg0, arg1, ...)`."""

    functions: dict[str, str]
    prefix: str
    names: dict[SSAValue, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    constants: dict[str, Any] = field(default_factory=dict)

    def name(self, value: SSAValue) -> str:
        if value not in self.names:
            self.names[value] = f"v{len(self.names)}"
        return self.names[value]

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def function(self, function: func.FuncOp) -> str:
        block = function.body.block
        params = ", ".join(self.name(a) for a in block.args)
        self.emit(0, f"def {self.functions[function.sym_name.data]}({params}):")
        self.block(block, 1)
        self.emit(1, "return None")
        return "\n".join(self.lines)

    def block(self, block: Block, depth: int, results: Sequence[SSAValue] = ()) -> None:
        self.emit(depth, "pass")
        for op in block.ops:
            self.op(op, depth, results)

    # -- ops -------------------------------------------------------------------------------

    def op(self, op: Operation, depth: int, results: Sequence[SSAValue]) -> None:
        if isinstance(op, tir.ForOp):
            iv = self.name(op.induction_variable)
            lower, upper = self.name(op.lower_bound), self.name(op.upper_bound)
            self.emit(depth, f"for {iv} in range({lower}, {upper}):")
            self.block(op.body.block, depth + 1)
            return
        if isinstance(op, tir.YieldOp):
            return
        if isinstance(op, scf.ForOp):
            self.scf_for(op, depth)
            return
        if isinstance(op, scf.IfOp):
            self.emit(depth, f"if {self.name(op.cond)}:")
            self.block(op.true_region.block, depth + 1, op.results)
            if op.false_region.blocks:
                self.emit(depth, "else:")
                self.block(op.false_region.block, depth + 1, op.results)
            return
        if isinstance(op, scf.YieldOp):
            for target, value in zip(results, op.operands, strict=True):
                self.emit(depth, f"{self.name(target)} = {self.name(value)}")
            return
        if isinstance(op, func.ReturnOp):
            values = ", ".join(self.name(v) for v in op.operands)
            self.emit(depth, f"return ({values},)" if op.operands else "return None")
            return
        expression = self.expression(op)
        if expression is None:
            if isinstance(op, memref.StoreOp):
                indices = self.indices(op.indices)
                self.emit(depth, f"{self.name(op.memref)}[{indices}] = {self.name(op.value)}")
                return
            if isinstance(op, tir.LaunchOp):
                self.emit(depth, self.launch(op))
                return
            if isinstance(op, vector.StoreOp):
                target = self.vector_slice(op.base, op.indices, op.vector.type)
                self.emit(depth, f"{target}[:] = {self.name(op.vector)}")
                return
            if isinstance(op, memref.DeallocOp):
                return
            if isinstance(op, tir.CallExternOp) and op.callee.data == "__syncthreads":
                self.emit(depth, "yield")  # the block's other threads run up to here first
                return
            if isinstance(op, tir.CallExternOp) and not op.res:
                self.emit(depth, self.call_extern(op))
                return
            message = f"the tir interpreter cannot run '{op.name}'"
            raise TirInterpreterError(message + location_of(op))
        if len(op.results) == 1:
            self.emit(depth, f"{self.name(op.results[0])} = {expression}")
        else:
            targets = ", ".join(self.name(r) for r in op.results)
            self.emit(depth, f"{targets}, = {expression}" if targets else expression)

    def scf_for(self, op: scf.ForOp, depth: int) -> None:
        iv, *carried = op.body.block.args
        for arg, init in zip(carried, op.iter_args, strict=True):
            self.emit(depth, f"{self.name(arg)} = {self.name(init)}")
        bounds = ", ".join(self.name(v) for v in (op.lb, op.ub, op.step))
        self.emit(depth, f"for {self.name(iv)} in range({bounds}):")
        self.block(op.body.block, depth + 1, carried)
        for result, arg in zip(op.results, carried, strict=True):
            self.emit(depth, f"{self.name(result)} = {self.name(arg)}")

    def indices(self, values: Sequence[SSAValue]) -> str:
        return ", ".join(self.name(v) for v in values) if values else "()"

    def constant(self, value: Any) -> str:
        name = f"{self.prefix}_k{len(self.constants)}"
        self.constants[name] = value
        return name

    def call_extern(self, op: tir.CallExternOp) -> str:
        callee = op.callee.data
        fn = EXTERN_FUNCTIONS.get(callee)
        if fn is None:
            from xtvm.runtime.registry import get_global_func

            fn = get_global_func(callee, allow_missing=True)
        if fn is None:
            message = f"tir.call_extern of unknown function '{callee}'"
            raise TirInterpreterError(message + location_of(op))
        args = ", ".join(self.name(a) for a in op.args)
        call = f"{self.constant(fn)}({args})"
        if op.res:
            return f"{dtype_name(op.res[0].type)}({call})"
        return call

    def launch(self, op: tir.LaunchOp) -> str:
        kernel = op.kernel.string_value()
        if kernel not in self.functions:
            raise TirInterpreterError(f"launch of unknown kernel @{kernel}" + location_of(op))
        args, blocks, threads = (
            "".join(f"{self.name(v)}, " for v in values)
            for values in (op.args, op.blocks, op.threads)
        )
        return f"launch_grid({self.functions[kernel]}, ({args}), ({blocks}), ({threads}), THREAD)"

    def transposed_slice(self, op: vector.TransferReadOp) -> str:
        """`base[i, ..., k:k + lanes, ..., j]`: what a read along one dimension touches."""
        dim = tir.read_dimension(op)
        if dim is None:
            raise TirInterpreterError("only an unmasked transfer_read along one dimension runs")
        assert isinstance(op.result.type, VectorType)
        lanes = op.result.type.get_shape()[-1]
        names = [self.name(i) for i in op.indices]
        names[dim] = f"{names[dim]}:{names[dim]} + {lanes}"
        return f"{self.name(op.source)}[{', '.join(names)}]"

    def vector_slice(self, base: SSAValue, indices: Sequence[SSAValue], typ: Attribute) -> str:
        """`base[i, ..., j:j + lanes]`: the elements a 1-d vector load or store touches."""
        assert isinstance(typ, VectorType)
        lanes = typ.get_shape()[-1]
        names = [self.name(i) for i in indices]
        return f"row_major_window({self.name(base)}, ({', '.join(names)},), {lanes})"

    def vector_expression(self, op: Operation) -> str | None:
        """An op producing or reducing a vector: numpy arrays of the element dtype."""
        operands = [self.name(v) for v in op.operands]
        result_type = op.results[0].type if op.results else None
        if isinstance(op, vector.LoadOp):
            return f"np.array({self.vector_slice(op.base, op.indices, op.result.type)})"
        if isinstance(op, vector.TransferReadOp):
            return f"np.array({self.transposed_slice(op)})"
        if isinstance(op, vector.ShuffleOp):
            a, b = operands
            return f"np.concatenate(({a}, {b}))[{list(op.mask.get_values())}]"
        if isinstance(op, vector.BroadcastOp):
            typ = op.vector.type
            shape = tuple(typ.get_shape())
            return f"np.full({shape}, {operands[0]}, {dtype_name(typ.element_type)})"
        if isinstance(op, vector.ReductionOp):
            acc = operands[1] if len(operands) > 1 else "None"
            return f"reduce_vector({op.kind.data.value!r}, {operands[0]}, {acc})"
        if isinstance(op, vector.FMAOp):
            a, b, c = operands
            return f"{a} * {b} + {c}"
        if not isinstance(result_type, VectorType):
            return None
        element = dtype_name(result_type.element_type)
        if type(op) in VECTOR_INT_BINARY:
            a, b = operands
            return VECTOR_INT_BINARY[type(op)].format(a=a, b=b)  # type: ignore[index]
        if type(op) in FLOAT_BINARY:
            a, b = operands
            return FLOAT_BINARY[type(op)].format(a=a, b=b)  # type: ignore[index]
        if type(op) in FLOAT_UNARY:
            one = f"{element}(1)"
            return FLOAT_UNARY[type(op)].format(a=operands[0], one=one)  # type: ignore[index]
        if isinstance(op, arith.CmpiOp):
            a, b = operands
            predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            ua, ub = f"as_unsigned({a})", f"as_unsigned({b})"
            return CMPI[predicate].format(a=a, b=b, ua=ua, ub=ub)
        if isinstance(op, arith.CmpfOp):
            predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            return f"cmpf_vector({predicate!r}, {operands[0]}, {operands[1]})"
        if isinstance(op, arith.SelectOp):
            return f"np.where({operands[0]}, {operands[1]}, {operands[2]})"
        if isinstance(op, CASTS):
            return f"{operands[0]}.astype({element})"
        if isinstance(op, arith.ExtUIOp | arith.UIToFPOp):
            return f"as_unsigned({operands[0]}).astype({element})"
        if isinstance(op, arith.BitcastOp):
            return f"{operands[0]}.view({element})"
        if isinstance(op, xmath.AbsIOp):
            return f"np.abs({operands[0]})"
        if isinstance(op, xmath.FmaOp):
            a, b, c = operands
            return f"{a} * {b} + {c}"
        if isinstance(op, xmath.FPowIOp):
            return f"np.power({operands[0]}, {operands[1]}.astype({element}))"
        return None

    def expression(self, op: Operation) -> str | None:
        operands = op.operands
        result_type = op.results[0].type if op.results else None
        if isinstance(result_type, VectorType) or any(
            isinstance(v.type, VectorType) for v in operands
        ):
            if not isinstance(op, arith.ConstantOp):
                return self.vector_expression(op)
        if isinstance(op, arith.ConstantOp):
            return self.literal(op.value, result_type)
        if type(op) in INT_BINARY and result_type is not None:
            a, b = (self.name(v) for v in operands)
            bits = bits_of(result_type)
            ua = f"unsigned({a}, {bits})" if bits else a
            ub = f"unsigned({b}, {bits})" if bits else b
            text = INT_BINARY[type(op)].format(a=a, b=b, ua=ua, ub=ub)  # type: ignore[index]
            return wrapped(text, result_type)
        if type(op) in FLOAT_BINARY:
            a, b = (self.name(v) for v in operands)
            return FLOAT_BINARY[type(op)].format(a=a, b=b)  # type: ignore[index]
        if type(op) in FLOAT_UNARY and result_type is not None:
            one = f"{dtype_name(result_type)}(1)"
            return FLOAT_UNARY[type(op)].format(a=self.name(operands[0]), one=one)  # type: ignore[index]
        if isinstance(op, xmath.AbsIOp):
            return f"abs({self.name(operands[0])})"
        if isinstance(op, xmath.FPowIOp) and result_type is not None:
            base, power = self.name(op.lhs), self.name(op.rhs)
            return f"np.power({base}, {dtype_name(result_type)}({power}))"
        if isinstance(op, xmath.FmaOp):
            a, b, c = (self.name(v) for v in operands)
            return f"{a} * {b} + {c}"
        if isinstance(op, arith.CmpiOp):
            a, b = self.name(op.lhs), self.name(op.rhs)
            bits = bits_of(op.lhs.type) or 64
            predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            return CMPI[predicate].format(
                a=a, b=b, ua=f"unsigned({a}, {bits})", ub=f"unsigned({b}, {bits})"
            )
        if isinstance(op, arith.CmpfOp):
            predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            return f"cmpf({predicate!r}, {self.name(op.lhs)}, {self.name(op.rhs)})"
        if isinstance(op, arith.SelectOp):
            c, t, f = (self.name(v) for v in operands)
            return f"({t} if {c} else {f})"
        if (
            isinstance(
                op,
                arith.IndexCastOp | arith.ExtSIOp | arith.TruncIOp,
            )
            and result_type is not None
        ):
            return wrapped(f"int({self.name(operands[0])})", result_type)
        if isinstance(op, arith.ExtUIOp) and result_type is not None:
            source_bits = bits_of(operands[0].type) or 64
            return f"unsigned(int({self.name(operands[0])}), {source_bits})"
        if isinstance(op, arith.SIToFPOp | arith.ExtFOp | arith.TruncFOp) and result_type:
            return f"{dtype_name(result_type)}({self.name(operands[0])})"
        if isinstance(op, arith.UIToFPOp) and result_type is not None:
            source_bits = bits_of(operands[0].type) or 64
            value = f"unsigned(int({self.name(operands[0])}), {source_bits})"
            return f"{dtype_name(result_type)}({value})"
        if isinstance(op, arith.FPToSIOp | arith.FPToUIOp) and result_type is not None:
            return wrapped(f"int({self.name(operands[0])})", result_type)
        if (
            isinstance(op, arith.BitcastOp)
            and result_type is not None
            and is_integer(op.input.type)
            and is_integer(result_type)
        ):
            return wrapped(self.name(operands[0]), result_type)  # int32 <-> uint32
        if isinstance(op, arith.BitcastOp) and result_type is not None:  # tir.reinterpret
            source = dtype_name(op.input.type)
            bits = f"{source}({self.name(operands[0])}).view({dtype_name(result_type)})"
            return f"int({bits})" if is_integer(result_type) else bits
        if isinstance(op, memref.LoadOp):
            load = f"{self.name(op.memref)}[{self.indices(op.indices)}]"
            return f"int({load})" if is_integer(op.res.type) else load
        if isinstance(op, memref.DimOp):
            return f"{self.name(op.source)}.shape[{self.name(op.index)}]"
        if isinstance(op, memref.SubviewOp):
            return self.subview(op)
        if isinstance(op, memref.AllocOp | memref.AllocaOp):
            typ = op.memref.type
            assert isinstance(typ, MemRefType)
            if not typ.has_static_shape():
                raise TirInterpreterError(
                    f"'{op.name}' of a dynamic shape is not supported" + location_of(op)
                )
            shape, dtype = tuple(typ.get_shape()), dtype_name(typ.element_type)
            space = typ.memory_space
            if isinstance(space, StringAttr) and space.data == "shared":
                return f"shared_buffer(THREAD, {id(op)}, {shape}, {dtype})"
            return f"np.empty({shape}, {dtype})"
        if isinstance(op, tir.CallExternOp) and op.res:
            return self.call_extern(op)
        if isinstance(op, tir.ThreadIndexOp):
            return f"THREAD[{op.thread.data!r}]"
        if isinstance(op, func.CallOp):
            callee = op.callee.string_value()
            if callee not in self.functions:
                raise TirInterpreterError(f"call of unknown function @{callee}" + location_of(op))
            args = ", ".join(self.name(a) for a in op.arguments)
            return f"{self.functions[callee]}({args})"
        return None

    def subview(self, op: memref.SubviewOp) -> str:
        """The numpy view of a region; a rank-reducing subview drops its leading unit dims."""
        parts: list[list[str]] = []
        for static, dynamic in (
            (op.static_offsets, op.offsets),
            (op.static_sizes, op.sizes),
            (op.static_strides, op.strides),
        ):
            values = iter(self.name(v) for v in dynamic)
            parts.append(
                [str(v) if v != DYNAMIC_INDEX else next(values) for v in static.get_values()]
            )
        result = op.result.type
        assert isinstance(result, MemRefType)
        dropped = len(parts[0]) - result.get_num_dims()
        slices = []
        for dim, (offset, size, stride) in enumerate(zip(*parts, strict=True)):
            if dim < dropped:
                slices.append(offset)
            else:
                slices.append(f"{offset}:{offset} + {size} * {stride}:{stride}")
        return f"{self.name(op.source)}[{', '.join(slices)}]"

    def literal(self, value: Attribute, typ: Attribute | None) -> str:
        if isinstance(value, IntegerAttr):
            number = value.value.data
            return str(bool(number & 1)) if bits_of(value.type) == 1 else str(number)
        if isinstance(value, FloatAttr):
            number = float(value.value.data)
            text = repr(number) if math.isfinite(number) else f"float('{number}')"
            return f"{dtype_name(value.type)}({text})"
        if isinstance(value, DenseIntOrFPElementsAttr):
            array = np.array(value.get_values(), dtype=numpy_dtype(value.get_element_type()))
            return self.constant(array.reshape(value.get_shape()))
        raise TirInterpreterError(f"constant {value} is not supported")


# ---------------------------------------------------------------------------------------------
# Entry points


@dataclass
class CompiledModule:
    """The Python translation of a module's functions, callable by name."""

    namespace: dict[str, Any]
    functions: dict[str, str]
    signatures: dict[str, func.FuncOp]

    def __call__(self, name: str, *arrays: np.ndarray) -> tuple[Any, ...] | None:
        function = self.signatures.get(name)
        if function is None:
            known = ", ".join(self.signatures)
            raise TirInterpreterError(f"no function @{name} (functions: {known})")
        check_arguments(function, arrays)
        return self.namespace[self.functions[name]](*arrays)


def check_arguments(function: func.FuncOp, arrays: Sequence[Any]) -> None:
    inputs = function.function_type.inputs.data
    name = function.sym_name.data
    if len(arrays) != len(inputs):
        raise TirInterpreterError(f"@{name} takes {len(inputs)} arguments, got {len(arrays)}")
    for position, (array, typ) in enumerate(zip(arrays, inputs, strict=True)):
        if isinstance(typ, MemRefType):
            if not isinstance(array, np.ndarray):
                raise TirInterpreterError(f"@{name} argument {position}: expected a numpy array")
            expected_dtype = numpy_dtype(typ.element_type)
            shape = tuple(typ.get_shape())
            dims_match = len(shape) == array.ndim and all(
                e < 0 or e == a for e, a in zip(shape, array.shape, strict=True)
            )
            if array.dtype != expected_dtype or not dims_match:
                raise TirInterpreterError(
                    f"@{name} argument {position}: expected {expected_dtype}{list(shape)}, "
                    f"got {array.dtype}{list(array.shape)}"
                )


def compile_module(module: ModuleOp) -> CompiledModule:
    """Translate every function with a body in `module` to Python."""
    functions = [f for f in module.walk() if isinstance(f, func.FuncOp) and f.body.blocks]
    names = {f.sym_name.data: f"fn_{i}" for i, f in enumerate(functions)}
    namespace: dict[str, Any] = dict(HELPERS)
    namespace["THREAD"] = {}  # the running thread's indices, set by tir.launch
    for function in functions:
        translator = Translator(names, names[function.sym_name.data])
        source = translator.function(function)
        namespace.update(translator.constants)
        exec(compile(source, f"<tir @{function.sym_name.data}>", "exec"), namespace)
    return CompiledModule(namespace, names, {f.sym_name.data: f for f in functions})


def run(module: ModuleOp, name: str, *arrays: np.ndarray) -> tuple[Any, ...] | None:
    """Run function `name` of `module` on `arrays` (outputs are written in place)."""
    return compile_module(module)(name, *arrays)


def random_arguments(function: func.FuncOp, rng: np.random.Generator) -> list[Any]:
    """Random arguments for `function`: normal floats, small integers, small positive scalars.

    What a pass test runs a kernel on before and after the pass; integer elements stay in
    [-8, 8) so that index arithmetic on loaded values stays in bounds-checkable ranges.
    """
    arguments: list[Any] = []
    for typ in function.function_type.inputs.data:
        if isinstance(typ, MemRefType):
            if not typ.has_static_shape():
                raise TirInterpreterError(f"no random buffer of dynamic shape {typ}")
            dtype, shape = numpy_dtype(typ.element_type), tuple(typ.get_shape())
            if dtype.kind == "f":
                arguments.append(rng.standard_normal(shape).astype(dtype))
            elif dtype.kind == "b":
                arguments.append(rng.integers(0, 2, shape).astype(dtype))
            else:
                low = 0 if dtype.kind == "u" else -8
                arguments.append(rng.integers(low, 8, shape).astype(dtype))
        elif is_integer(typ):
            arguments.append(int(rng.integers(1, 8)))
        else:
            arguments.append(numpy_dtype(typ).type(rng.standard_normal()))
    return arguments
