"""`tir-lower-intrinsics`: math ops without a machine instruction become libm calls.

A CPU has instructions (LLVM intrinsics) for sqrt, fabs, floor, ceil and fma, but not for exp,
log, tanh, erf, pow, the trigonometric functions and the rest of `math`: those become
`tir.call_extern` of the C math library, `expf` for f32 and `exp` for f64 (TVM's
`tvm.intrin.rule.llvm.*` and `.c.*` lowering rules). f16 operands are computed in f32 (there is
no libm for them) and truncated back. `keep=` names the libm functions that stay math ops (by
default the five with instructions); `math.rsqrt` becomes `1 / sqrt`, `math.fpowi` a `pow` of
the converted exponent. Ops on vectors stay: a backend lowers them with its vector math library.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xtvm.dialects import tir

# math op -> the double-precision libm function computing it ("f" appended for f32).
LIBM: dict[type[Operation], str] = {
    xmath.AbsFOp: "fabs",
    xmath.AcosOp: "acos",
    xmath.AcoshOp: "acosh",
    xmath.AsinOp: "asin",
    xmath.AsinhOp: "asinh",
    xmath.AtanOp: "atan",
    xmath.Atan2Op: "atan2",
    xmath.AtanhOp: "atanh",
    xmath.CbrtOp: "cbrt",
    xmath.CeilOp: "ceil",
    xmath.CopySignOp: "copysign",
    xmath.CosOp: "cos",
    xmath.CoshOp: "cosh",
    xmath.ErfOp: "erf",
    xmath.ExpOp: "exp",
    xmath.Exp2Op: "exp2",
    xmath.ExpM1Op: "expm1",
    xmath.FloorOp: "floor",
    xmath.FmaOp: "fma",
    xmath.LogOp: "log",
    xmath.Log10Op: "log10",
    xmath.Log1pOp: "log1p",
    xmath.Log2Op: "log2",
    xmath.PowFOp: "pow",
    xmath.RoundOp: "round",
    xmath.RoundEvenOp: "rint",  # rounds to nearest even in the default rounding mode
    xmath.SinOp: "sin",
    xmath.SinhOp: "sinh",
    xmath.SqrtOp: "sqrt",
    xmath.TanOp: "tan",
    xmath.TanhOp: "tanh",
    xmath.TruncOp: "trunc",
}
WITH_INSTRUCTIONS = ("sqrt", "fabs", "floor", "ceil", "fma")


def libm_name(function: str, typ: Attribute) -> str | None:
    """The libm function for `function` on scalars of `typ` (None: not a libm scalar type)."""
    if isinstance(typ, Float32Type):
        return function + "f"
    if isinstance(typ, Float64Type):
        return function
    return None


@dataclass
class LowerToLibmCall(RewritePattern):
    """Replace a scalar math op by the `tir.call_extern` of its libm function."""

    keep: frozenset[str]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        function = LIBM.get(type(op))
        if function is None or function in self.keep or len(op.results) != 1:
            return
        typ = op.results[0].type
        if isinstance(typ, Float16Type):
            wide = [arith.ExtFOp(v, Float32Type()) for v in op.operands]
            call = tir.CallExternOp(function + "f", [w.result for w in wide], [Float32Type()])
            rewriter.replace(op, [*wide, call, arith.TruncFOp(call.res[0], typ)])
            return
        name = libm_name(function, typ)
        if name is not None:
            rewriter.replace(op, tir.CallExternOp(name, list(op.operands), [typ]))


class ExpandRsqrt(RewritePattern):
    """`math.rsqrt x` -> `1 / math.sqrt x` (libm has no rsqrt)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xmath.RsqrtOp, rewriter: PatternRewriter) -> None:
        typ = op.result.type
        if libm_name("", typ) is None and not isinstance(typ, Float16Type):
            return
        one = arith.ConstantOp(FloatAttr(1.0, typ))  # type: ignore[arg-type]
        root = xmath.SqrtOp(op.operand)
        rewriter.replace(op, [one, root, arith.DivfOp(one.result, root.result)])


class ExpandFpowi(RewritePattern):
    """`math.fpowi x, n` -> `math.powf x, float(n)` (libm's pow takes a float exponent)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xmath.FPowIOp, rewriter: PatternRewriter) -> None:
        typ = op.result.type
        if libm_name("", typ) is None and not isinstance(typ, Float16Type):
            return
        exponent = arith.SIToFPOp(op.rhs, typ)
        rewriter.replace(op, [exponent, xmath.PowFOp(op.lhs, exponent.result)])


@dataclass(frozen=True)
class TirLowerIntrinsicsPass(ModulePass):
    """Lower math ops without a machine instruction to libm calls (tir.call_extern).

    `%y = math.exp %x : f32` becomes `%y = tir.call_extern "expf"(%x) : (f32) -> f32`;
    `math.sqrt` stays unless `keep=` leaves it out.
    """

    name = "tir-lower-intrinsics"
    keep: tuple[str, ...] = WITH_INSTRUCTIONS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [ExpandRsqrt(), ExpandFpowi(), LowerToLibmCall(frozenset(self.keep))]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
