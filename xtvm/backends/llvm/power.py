"""pow as inline LLVM IR: cheap exact forms for constant exponents, a vector pow of float32.

`llvm.pow` on a vector becomes one call to libm's `powf` per lane (LLVM has no vector pow on
x86), so Inception's local response normalization, x / (k + a * sum) ** 0.75, spent 3 of its
14 ms in scalar calls at 5 % of the memory roofline. Two forms replace it:

- a constant exponent that is a multiple of 1/4 with |y| <= 4 becomes multiplications and
  square roots in double precision, rounded once to float32 (scalar or vector): x ** n by
  repeated squaring, x ** (n + 1/2) = sqrt(x ** (2n + 1)), x ** 0.5 = sqrt(x) in float32,
  x ** 0.25 = sqrt(sqrt(x)) and x ** 0.75 = sqrt(x sqrt(x)) with the inner sqrt in float32,
  1 / (...) for a negative exponent. x / x ** 0.75 ran at 0.38 ns an element so, 0.55 with
  both square roots in double, 0.19 with both in float32 (2.2 ulp off), 3.4 with libm's powf.
  Integer and half-integer powers are correctly rounded but for a double rounding (<= 0.5 ulp
  in the tests), the odd quarters within 1 ulp (the inner sqrt's rounding, halved by the outer
  one), with no overflow or underflow on the way. The bases a square root gets wrong (-0 and
  -inf: sqrt gives -0 and NaN where pow gives +0 or +inf) are selected to pow's values.
- any other float32 vector pow is exp2(y * log2|x|) computed in double precision (a log2 of
  relative error below 1e-13 from the atanh series, an exp2 by a degree-10 polynomial), then
  rounded once to float32: correctly rounded but for a double rounding, subnormal bases and
  results included. C99's special cases follow by selects: pow(x, +-0) = pow(1, y) = 1 (NaN
  too), pow(-1, +-inf) = 1, a negative finite base to a non-integer power is NaN, an odd
  integer power keeps the base's sign (-0 and -inf included); zeros and infinities fall out
  of log2's -inf and +inf.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from xtvm.backends.llvm.vector_math import horner, splat

# Intrinsic(name, type, arity) -> the intrinsic `name` overloaded on `type`.
TypedIntrinsic = Callable[[str, ir.Type, int], ir.Function]
F64 = ir.DoubleType()

MAX_CONSTANT_EXPONENT = 4.0  # x ** 7 (for y = 3.5) of a float32 x still fits a double
SQRT2 = math.sqrt(2.0)
LOG2E = 1.4426950408889634
# log(m) = 2 atanh(s) = s * P(s^2), s = (m - 1) / (m + 1), |s| <= 0.1716 for m in
# [sqrt(1/2), sqrt(2)); P's terms 2 / (2k + 1), highest degree first (error < 4e-14).
LOG_SERIES = tuple(2.0 / (2 * k + 1) for k in reversed(range(8)))
# 2^f = sum of (f ln2)^k / k! for |f| <= 1/2, highest degree first (error < 1e-11).
EXP2_SERIES = tuple(math.log(2.0) ** k / math.factorial(k) for k in reversed(range(11)))
EXP2_LIMIT = 200.0  # 2^+-200 is past float32's range yet a normal double
ROUNDING_SHIFTER = 6755399441055744.0  # 1.5 * 2^52: k + this holds the integer k in its low bits
EXPONENT_SHIFTER = 4503599627370496.0  # 2^52: its bits | e (e < 2^52) is the double 2^52 + e


def constant(typ: ir.Type, value: float | int) -> ir.Constant:
    """`value` as a constant of `typ`, splatted over a vector's lanes."""
    return splat(typ, value) if isinstance(typ, ir.VectorType) else ir.Constant(typ, value)


def splat_value(value: ir.Value) -> float | None:
    """The float a constant scalar, or a constant vector of one value in every lane, holds."""
    if not isinstance(value, ir.Constant):
        return None
    lanes = value.constant if isinstance(value.constant, list) else [value]
    numbers = {lane.constant if isinstance(lane, ir.Constant) else None for lane in lanes}
    if len(numbers) != 1:
        return None
    (only,) = numbers
    return float(only) if isinstance(only, int | float) else None


def quarters_of(y: float) -> tuple[int, int] | None:
    """|y| as (whole, quarters): whole + quarters / 4, when y is a constant the cheap form
    covers (a multiple of 1/4, |y| <= MAX_CONSTANT_EXPONENT, not 0)."""
    if not math.isfinite(y) or y == 0 or abs(y) > MAX_CONSTANT_EXPONENT or (4 * y) % 1:
        return None
    count = int(abs(4 * y))
    return count // 4, count % 4


def power_by_constant(
    b: ir.IRBuilder, x: ir.Value, y: float, intrinsic: TypedIntrinsic
) -> ir.Value | None:
    """x ** y for float32 `x` (scalar or vector) and the constant `y` by multiplications and
    square roots (see the module's docstring); None if `y` has no such form (`quarters_of`)
    or `x` is not float32; 1 for y = 0, as pow gives even for NaN."""
    typ = x.type
    element = typ.element if isinstance(typ, ir.VectorType) else typ
    if not isinstance(element, ir.FloatType):
        return None
    if y == 0:
        return constant(typ, 1.0)
    parts = quarters_of(y)
    if parts is None:
        return None
    whole, quarters = parts
    wide = ir.VectorType(ir.DoubleType(), typ.count) if isinstance(typ, ir.VectorType) else F64
    base = b.fpext(x, wide)

    def sqrt(value: ir.Value) -> ir.Value:
        return b.call(intrinsic("llvm.sqrt", value.type, 1), [value])

    if quarters == 2 and y == 0.5:  # sqrt rounds once, in float32
        product = b.fpext(sqrt(x), wide)
    elif quarters == 2:  # x ** (n + 1/2) = sqrt(x ** (2n + 1))
        product = sqrt(integer_power(b, base, 2 * whole + 1))
    else:
        # x ** 1/4 = sqrt(sqrt(x)) and x ** 3/4 = sqrt(x sqrt(x)), the inner sqrt in float32
        # (its error halves under the outer one), x sqrt(x) exact in double
        root = b.fpext(sqrt(x), wide)
        product = sqrt(root if quarters == 1 else b.fmul(base, root)) if quarters else None
        if whole:
            power = integer_power(b, base, whole)
            product = power if product is None else b.fmul(power, product)
    assert product is not None
    if y < 0:
        product = b.fdiv(constant(wide, 1.0), product)
    result = b.fptrunc(product, typ)
    if quarters:  # sqrt(-0) = -0 and sqrt(-inf) = NaN; pow gives +0 / +inf (or their inverse)
        zero, infinity = (0.0, math.inf) if y > 0 else (math.inf, 0.0)
        result = b.select(b.fcmp_ordered("==", x, constant(typ, 0.0)), constant(typ, zero), result)
        at_minus_infinity = b.fcmp_ordered("==", x, constant(typ, -math.inf))
        result = b.select(at_minus_infinity, constant(typ, infinity), result)
    return result


def integer_power(b: ir.IRBuilder, x: ir.Value, n: int) -> ir.Value:
    """x ** n for n >= 1 by repeated squaring (n = 4: (x x)(x x), two roundings)."""
    result: ir.Value | None = None
    square = x
    while n:
        if n & 1:
            result = square if result is None else b.fmul(result, square)
        n >>= 1
        if n:
            square = b.fmul(square, square)
    assert result is not None
    return result


def log2_f64(b: ir.IRBuilder, x: ir.Value, intrinsic: TypedIntrinsic) -> ir.Value:
    """log2 of the double vector `x` >= 0 whose elements are normal, 0, inf or NaN (a float32
    widened): -inf at 0, inf at inf, NaN at NaN."""
    typ = x.type
    ints = ir.VectorType(ir.IntType(64), typ.count)
    fma = intrinsic("llvm.fma", typ, 3)
    bits = b.bitcast(x, ints)
    mantissa_bits = b.and_(bits, constant(ints, (1 << 52) - 1))
    m = b.bitcast(b.or_(mantissa_bits, constant(ints, 1023 << 52)), typ)  # in [1, 2)
    biased = b.bitcast(b.or_(b.lshr(bits, constant(ints, 52)), constant(ints, 0x4330 << 48)), typ)
    e = b.fsub(biased, constant(typ, EXPONENT_SHIFTER + 1023))
    above = b.fcmp_ordered(">", m, constant(typ, SQRT2))  # m to [sqrt(1/2), sqrt(2))
    m = b.select(above, b.fmul(m, constant(typ, 0.5)), m)
    e = b.select(above, b.fadd(e, constant(typ, 1.0)), e)
    s = b.fdiv(b.fsub(m, constant(typ, 1.0)), b.fadd(m, constant(typ, 1.0)))
    log_m = b.fmul(s, horner(b, fma, b.fmul(s, s), LOG_SERIES))
    value = b.call(fma, [log_m, constant(typ, LOG2E), e])
    value = b.select(b.fcmp_ordered("==", x, constant(typ, 0.0)), constant(typ, -math.inf), value)
    value = b.select(b.fcmp_ordered("==", x, constant(typ, math.inf)), x, value)
    return b.select(b.fcmp_unordered("uno", x, x), x, value)


def exp2_f64(b: ir.IRBuilder, t: ir.Value, intrinsic: TypedIntrinsic) -> ir.Value:
    """2^t of the double vector `t`, exact enough to round to float32 (t clamped to
    [-200, 200]: 0 and inf once rounded); NaN at NaN."""
    typ = t.type
    ints = ir.VectorType(ir.IntType(64), typ.count)
    fma = intrinsic("llvm.fma", typ, 3)
    clamped = b.call(intrinsic("llvm.maxnum", typ, 2), [t, constant(typ, -EXP2_LIMIT)])
    clamped = b.call(intrinsic("llvm.minnum", typ, 2), [clamped, constant(typ, EXP2_LIMIT)])
    k = b.call(intrinsic("llvm.rint", typ, 1), [clamped])
    p = horner(b, fma, b.fsub(clamped, k), EXP2_SERIES)
    shifted = b.bitcast(b.fadd(k, constant(typ, ROUNDING_SHIFTER)), ints)
    whole = b.sub(shifted, constant(ints, 0x4338 << 48))  # k as an integer
    scale = b.bitcast(b.shl(b.add(whole, constant(ints, 1023)), constant(ints, 52)), typ)
    return b.select(b.fcmp_unordered("uno", t, t), t, b.fmul(p, scale))


def pow_f32(b: ir.IRBuilder, x: ir.Value, y: ir.Value, intrinsic: TypedIntrinsic) -> ir.Value:
    """pow of the float32 vectors `x` and `y`, elementwise, with C99's special values."""
    typ = x.type
    wide = ir.VectorType(F64, typ.count)
    magnitude = b.fpext(b.call(intrinsic("llvm.fabs", typ, 1), [x]), wide)
    t = b.fmul(b.fpext(y, wide), log2_f64(b, magnitude, intrinsic))
    result = b.fptrunc(exp2_f64(b, t, intrinsic), typ)
    trunc = intrinsic("llvm.trunc", typ, 1)
    whole = b.call(trunc, [y])
    integral = b.fcmp_ordered("==", whole, y)  # +-inf counts as even
    half = b.fmul(y, constant(typ, 0.5))
    odd = b.and_(integral, b.fcmp_ordered("!=", b.call(trunc, [half]), half))
    result = b.select(odd, b.call(intrinsic("llvm.copysign", typ, 2), [result, x]), result)
    negative_finite = b.and_(
        b.fcmp_ordered("<", x, constant(typ, 0.0)), b.fcmp_ordered(">", x, constant(typ, -math.inf))
    )
    not_integral = b.fcmp_unordered("!=", whole, y)
    result = b.select(b.and_(negative_finite, not_integral), constant(typ, math.nan), result)
    one = constant(typ, 1.0)
    minus_one_to_infinity = b.and_(
        b.fcmp_ordered("==", x, constant(typ, -1.0)),
        b.fcmp_ordered("==", b.call(intrinsic("llvm.fabs", typ, 1), [y]), constant(typ, math.inf)),
    )
    ones = b.or_(
        b.or_(b.fcmp_ordered("==", y, constant(typ, 0.0)), b.fcmp_ordered("==", x, one)),
        minus_one_to_infinity,
    )
    return b.select(ones, one, result)
