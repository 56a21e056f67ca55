"""exp, tanh and erf of float32 vectors as inline LLVM IR.

LLVM has no vector exp, tanh or erf of its own on x86: `llvm.exp` on a vector becomes one call
to libm's `expf` per lane, and tanh and erf are a libm call per lane, so an elementwise sigmoid,
tanh, softmax or GELU ran 5 to 40 times slower than numpy. exp and tanh are the classic Cephes
approximations, erf is fitted for this module; all in vector registers with fused multiply-adds:

- exp: x = n ln2 + r with n = rint(x / ln2) and |r| <= ln2 / 2 (ln2 in two parts, so that r is
  exact), exp(r) by a degree-6 polynomial, and 2^n applied in two halves so that results down
  to the smallest subnormal and up to overflow come out right;
- tanh: for |x| < 0.625 an odd polynomial (no cancellation near 0), else
  1 - 2 / (exp(2|x|) + 1) with x's sign;
- erf: for |x| < 1, x + x P(x^2); for 1 <= |x| < 3.92, 1 - exp(-x^2) Q(|x| - 2.5) with x's
  sign, Q a fit of exp(x^2) erfc(x) weighted so that its error stays under 0.1 ulp of the
  result; from 3.92 on erf rounds to +-1. Polynomials of degree 6 and 8 (near-minimax fits in
  double precision, coefficients rounded to float32).

All stay within 2 ulp of the correctly rounded result over the whole float range (the tests
check against double precision), and keep the IEEE special values: exp(-inf) = 0,
exp(+inf) = inf, tanh(+-inf) = erf(+-inf) = +-1, tanh(-0) = erf(-0) = -0, NaN in gives NaN out.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

# Intrinsic(name, arity) -> the intrinsic overloaded on the vector type being computed.
Intrinsic = Callable[[str, int], ir.Function]
# f(builder, x, intrinsic) -> the function of the float32 vector x.
VectorFunction = Callable[[ir.IRBuilder, ir.Value, Intrinsic], ir.Value]

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
ERF_SMALL = 1.0  # below this |x|, erf is x + x * P(x^2)
ERF_SMALL_POLYNOMIAL = (  # highest degree first; P(0) = 2 / sqrt(pi) - 1
    7.853952e-05,
    -0.00080102234,
    0.0051883315,
    -0.026853815,
    0.112835854,
    -0.37612626,
    0.12837917,
)
ERF_CENTER = 2.5  # Q is a polynomial in |x| - ERF_CENTER
ERF_LARGE_POLYNOMIAL = (  # highest degree first; exp(x^2) erfc(x) on [1, 3.92]
    0.00010684379,
    0.00022506586,
    0.0005433258,
    -0.0006611164,
    0.0023025025,
    -0.008132254,
    0.024914624,
    -0.074342184,
    0.2108076,
)
ERF_ONE = 3.92  # from here on erf(x) rounds to 1 in float32


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

    # Below EXP_LOWEST the result is 0: the last factor is 0 there rather than 2^-75, whose
    # product underflows (on AMD Zen each such multiply costs a microcode assist: a softmax
    # under a causal mask, half its inputs -3.4e38, ran 2x slower).
    last = b.select(
        b.fcmp_ordered(">", x, splat(typ, EXP_LOWEST)), power_of_two(rest), splat(typ, 0.0)
    )
    result = b.fmul(b.fmul(y, power_of_two(half)), last)
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


def erf_f32(b: ir.IRBuilder, x: ir.Value, intrinsic: Intrinsic) -> ir.Value:
    """erf of the float32 vector `x`."""
    typ = x.type
    fma, minnum = intrinsic("llvm.fma", 3), intrinsic("llvm.minnum", 2)
    magnitude = b.call(intrinsic("llvm.fabs", 1), [x])
    x2 = b.fmul(x, x)
    small = b.call(fma, [x, horner(b, fma, x2, ERF_SMALL_POLYNOMIAL), x])  # keeps -0
    clamped = b.call(minnum, [magnitude, splat(typ, ERF_ONE)])  # no inf * 0 below
    q = horner(b, fma, b.fsub(clamped, splat(typ, ERF_CENTER)), ERF_LARGE_POLYNOMIAL)
    e = exp_f32(b, b.fneg(b.fmul(clamped, clamped)), intrinsic)
    one = splat(typ, 1.0)
    large = b.call(fma, [b.fneg(e), q, one])
    large = b.select(b.fcmp_ordered("<", magnitude, splat(typ, ERF_ONE)), large, one)
    large = b.call(intrinsic("llvm.copysign", 2), [large, x])
    value = b.select(b.fcmp_ordered("<", magnitude, splat(typ, ERF_SMALL)), small, large)
    return b.select(b.fcmp_unordered("uno", x, x), x, value)
