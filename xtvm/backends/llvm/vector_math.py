"""exp and tanh of float32 vectors as inline LLVM IR.

LLVM has no vector exp or tanh of its own on x86: `llvm.exp` on a vector becomes one call to
libm's `expf` per lane, and tanh is a libm call per lane, so an elementwise sigmoid, tanh or
softmax ran 5 to 40 times slower than numpy. These are the classic Cephes approximations, in
vector registers and with fused multiply-adds:

- exp: x = n ln2 + r with n = rint(x / ln2) and |r| <= ln2 / 2 (ln2 in two parts, so that r is
  exact), exp(r) by a degree-6 polynomial, and 2^n applied in two halves so that results down
  to the smallest subnormal and up to overflow come out right;
- tanh: for |x| < 0.625 an odd polynomial (no cancellation near 0), else
  1 - 2 / (exp(2|x|) + 1) with x's sign.

Both stay within 2 ulp of the correctly rounded result over the whole float range (the tests
check against numpy in double precision), and keep the IEEE special values: exp(-inf) = 0,
exp(+inf) = inf, tanh(+-inf) = +-1, NaN in gives NaN out.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

# Intrinsic(name, arity) -> the intrinsic overloaded on the vector type being computed.
Intrinsic = Callable[[str, int], ir.Function]

LOG2E = 1.4426950408889634
LN2_HIGH, LN2_LOW = 0.693359375, -2.12194440e-4  # ln2 = high + low, high with few bits
EXP_LOWEST, EXP_HIGHEST = -104.0, 88.8  # past these exp is 0 (below subnormals) or inf
EXP_POLYNOMIAL = (  # exp(r) = 1 + r + r^2 * P(r), highest degree first
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)
TANH_SMALL = 0.625  # below this |x|, tanh is x + x^3 * P(x^2)
TANH_POLYNOMIAL = (  # highest degree first
    -5.70498872745e-3,
    2.06390887954e-2,
    -5.37397155531e-2,
    1.33314422036e-1,
    -3.33332819422e-1,
)


def is_f32_vector(typ: ir.Type) -> bool:
    return isinstance(typ, ir.VectorType) and isinstance(typ.element, ir.FloatType)


def splat(typ: ir.VectorType, value: float | int) -> ir.Constant:
    return ir.Constant(typ, [ir.Constant(typ.element, value)] * typ.count)


def horner(
    b: ir.IRBuilder, fma: ir.Function, x: ir.Value, coefficients: tuple[float, ...]
) -> ir.Value:
    """The polynomial with `coefficients` (highest degree first) at `x`."""
    typ = x.type
    result: ir.Value = splat(typ, coefficients[0])
    for c in coefficients[1:]:
        result = b.call(fma, [result, x, splat(typ, c)])
    return result


def exp_f32(b: ir.IRBuilder, x: ir.Value, intrinsic: Intrinsic) -> ir.Value:
    """exp of the float32 vector `x`."""
    typ = x.type
    ints = ir.VectorType(ir.IntType(32), typ.count)
    fma, rint = intrinsic("llvm.fma", 3), intrinsic("llvm.rint", 1)
    minnum, maxnum = intrinsic("llvm.minnum", 2), intrinsic("llvm.maxnum", 2)
    clamped = b.call(minnum, [b.call(maxnum, [x, splat(typ, EXP_LOWEST)]), splat(typ, EXP_HIGHEST)])
    n = b.call(rint, [b.fmul(clamped, splat(typ, LOG2E))])
    r = b.call(fma, [n, splat(typ, -LN2_HIGH), clamped])
    r = b.call(fma, [n, splat(typ, -LN2_LOW), r])
    r2 = b.fmul(r, r)
    p = horner(b, fma, r, EXP_POLYNOMIAL)
    y = b.fadd(b.call(fma, [p, r2, r]), splat(typ, 1.0))
    # 2^n as two powers of two, each a normal float for n in [-150, 128].
    whole = b.fptosi(n, ints)
    half = b.ashr(whole, splat(ints, 1))
    rest = b.sub(whole, half)

    def power_of_two(exponent: ir.Value) -> ir.Value:
        biased = b.shl(b.add(exponent, splat(ints, 127)), splat(ints, 23))
        return b.bitcast(biased, typ)

    result = b.fmul(b.fmul(y, power_of_two(half)), power_of_two(rest))
    is_nan = b.fcmp_unordered("uno", x, x)
    return b.select(is_nan, x, result)


def tanh_f32(b: ir.IRBuilder, x: ir.Value, intrinsic: Intrinsic) -> ir.Value:
    """tanh of the float32 vector `x`."""
    typ = x.type
    fma = intrinsic("llvm.fma", 3)
    magnitude = b.call(intrinsic("llvm.fabs", 1), [x])
    x2 = b.fmul(x, x)
    small = b.call(fma, [b.fmul(x, x2), horner(b, fma, x2, TANH_POLYNOMIAL), x])
    e = exp_f32(b, b.fadd(magnitude, magnitude), intrinsic)
    one = splat(typ, 1.0)
    large = b.fsub(one, b.fdiv(splat(typ, 2.0), b.fadd(e, one)))
    value = b.select(b.fcmp_ordered("<", magnitude, splat(typ, TANH_SMALL)), small, large)
    return b.call(intrinsic("llvm.copysign", 2), [value, x])  # x's sign, -0 included
