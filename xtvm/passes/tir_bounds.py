"""Integer bounds and linear forms of tir index expressions, for the tir passes.

tir index arithmetic is built from loop variables whose ranges the `tir.for` bounds give, and
constants; `Bounds.of(value)` gives an interval that holds every value `value` takes (TVM's
`arith::ConstIntBound`), `Bounds.decide(cmpi)` the outcome of a comparison when those
intervals settle it, and `linear_form(value)` writes an expression as `sum(coeff * atom) +
constant` so that a pass can see which multiples of a loop variable it holds. Only `index` and
integer values are analysed; anything else (a loaded value, a float) has no bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import tir
from xtvm.ir.numpy_types import is_unsigned


@dataclass(frozen=True)
class Interval:
    """The closed range [lo, hi] of an integer value."""

    lo: int
    hi: int

    @property
    def constant(self) -> int | None:
        return self.lo if self.lo == self.hi else None

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.lo + other.lo, self.hi + other.hi)

    def __sub__(self, other: Interval) -> Interval:
        return Interval(self.lo - other.hi, self.hi - other.lo)

    def __mul__(self, other: Interval) -> Interval:
        products = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return Interval(min(products), max(products))

    def union(self, other: Interval) -> Interval:
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def constant_value(value: SSAValue) -> int | None:
    """The integer an `arith.constant` of integer or index type defines, else None."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        if isinstance(op.value.type, IntegerType) and op.value.type.width.data == 1:
            return None  # i1 is a boolean, not a number here
        return op.value.value.data
    return None


def index_constant(value: int) -> arith.ConstantOp:
    """An `index` constant named as convert-te-to-tir names them (`%c4`, `%c_minus1`)."""
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    op.result.name_hint = f"c{value}" if value >= 0 else f"c_minus{-value}"
    return op


@dataclass
class EntryConstants:
    """The `index` constants leading a function's entry block; a missing one is added there."""

    function: func.FuncOp
    values: dict[int, SSAValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Only the leading constants dominate every use; later ones may follow a use.
        for op in self.function.body.block.ops:
            if not isinstance(op, arith.ConstantOp):
                break
            value = constant_value(op.result)
            if value is not None and isinstance(op.result.type, IndexType):
                self.values.setdefault(value, op.result)

    def __call__(self, value: int) -> SSAValue:
        if value not in self.values:
            op = index_constant(value)
            Rewriter.insert_op(op, InsertPoint.at_start(self.function.body.block))
            self.values[value] = op.result
        return self.values[value]


def is_index_like(typ: Attribute) -> bool:
    """index and signless integers; unsigned ones (`ui8`) are data with their own wrap-around,
    never folded (an arith.constant cannot hold them)."""
    if isinstance(typ, IntegerType):
        return typ.width.data > 1 and not is_unsigned(typ)
    return isinstance(typ, IndexType)


def fits(interval: Interval, typ: Attribute) -> bool:
    """Whether `interval` lies in the signed range of `typ` (index is treated as unbounded)."""
    if not isinstance(typ, IntegerType):
        return True
    half = 1 << (typ.width.data - 1)
    return -half <= interval.lo and interval.hi < half


def loop_of(arg: BlockArgument) -> tir.ForOp | scf.ForOp | None:
    """The loop whose induction variable `arg` is."""
    op = arg.block.parent_op()
    if isinstance(op, tir.ForOp | scf.ForOp) and arg.index == 0:
        return op
    return None


# Predicates of arith.cmpi as (relation, unsigned); `decide` applies them to intervals.
CMPI_PREDICATES = {
    0: ("eq", False),
    1: ("ne", False),
    2: ("lt", False),
    3: ("le", False),
    4: ("gt", False),
    5: ("ge", False),
    6: ("lt", True),
    7: ("le", True),
    8: ("gt", True),
    9: ("ge", True),
}


@dataclass
class Bounds:
    """Interval analysis of integer SSA values, memoized for one unchanged piece of IR.

    Create one per rewrite: the memo is only valid while the IR it looked at stays as it was.
    """

    memo: dict[SSAValue, Interval | None] = field(default_factory=dict)

    def of(self, value: SSAValue) -> Interval | None:
        if value not in self.memo:
            self.memo[value] = None  # a cycle (none in SSA, but be safe) has no bounds
            interval = self.compute(value)
            if interval is not None and not fits(interval, value.type):
                interval = None  # the value may wrap around
            self.memo[value] = interval
        return self.memo[value]

    def compute(self, value: SSAValue) -> Interval | None:
        if not is_index_like(value.type):
            return None
        if isinstance(value, BlockArgument):
            return self.induction_variable(value)
        op = value.owner
        assert isinstance(op, Operation)
        if (c := constant_value(value)) is not None:
            return Interval(c, c)
        rule = RULES.get(type(op))
        return rule(self, op) if rule is not None else None

    def induction_variable(self, arg: BlockArgument) -> Interval | None:
        loop = loop_of(arg)
        if isinstance(loop, tir.ForOp):
            lower, upper = self.of(loop.lower_bound), self.of(loop.upper_bound)
        elif isinstance(loop, scf.ForOp) and (step := constant_value(loop.step)) and step > 0:
            lower, upper = self.of(loop.lb), self.of(loop.ub)
        else:
            return None
        if lower is None or upper is None:
            return None
        # A loop that never runs binds nothing; any interval holds vacuously.
        return Interval(lower.lo, max(lower.lo, upper.hi - 1))

    def operands(self, op: Operation) -> tuple[Interval, Interval] | None:
        lhs, rhs = self.of(op.operands[0]), self.of(op.operands[1])
        return None if lhs is None or rhs is None else (lhs, rhs)

    def decide(self, op: arith.CmpiOp) -> bool | None:
        """The outcome of `op` if the bounds of its operands settle it."""
        pair = self.operands(op)
        if pair is None:
            return None
        (a, b), (relation, unsigned) = pair, CMPI_PREDICATES[op.predicate.value.data]
        if unsigned and (a.lo < 0 or b.lo < 0):
            return None  # negative values compare as huge unsigned ones
        if relation in ("gt", "ge"):
            a, b, relation = b, a, "lt" if relation == "gt" else "le"
        if relation == "lt":
            return True if a.hi < b.lo else False if a.lo >= b.hi else None
        if relation == "le":
            return True if a.hi <= b.lo else False if a.lo > b.hi else None
        if a.constant is not None and a.constant == b.constant:
            return relation == "eq"
        if a.hi < b.lo or b.hi < a.lo:
            return relation == "ne"
        return None


def _binary(combine: Callable[[Interval, Interval], Interval | None]):
    def rule(bounds: Bounds, op: Operation) -> Interval | None:
        pair = bounds.operands(op)
        return None if pair is None else combine(*pair)

    return rule


def _by_positive_constant(combine: Callable[[Interval, int], Interval | None]):
    """A rule for division-like ops, known only when the divisor is a positive constant."""

    def rule(bounds: Bounds, op: Operation) -> Interval | None:
        lhs, divisor = bounds.of(op.operands[0]), constant_value(op.operands[1])
        if lhs is None or divisor is None or divisor <= 0:
            return None
        return combine(lhs, divisor)

    return rule


def _floor_div(a: Interval, c: int) -> Interval:
    return Interval(a.lo // c, a.hi // c)


def _remainder(a: Interval, c: int, signed: bool) -> Interval | None:
    if a.lo >= 0:
        return a if a.hi < c else Interval(0, c - 1)
    if not signed:
        return None
    return Interval(-(c - 1), c - 1) if a.hi >= 0 else Interval(-(c - 1), 0)


def _nonnegative(combine: Callable[[Interval, Interval], Interval]):
    def rule(a: Interval, b: Interval) -> Interval | None:
        return combine(a, b) if a.lo >= 0 and b.lo >= 0 else None

    return rule


def _select(bounds: Bounds, op: Operation) -> Interval | None:
    assert isinstance(op, arith.SelectOp)
    a, b = bounds.of(op.lhs), bounds.of(op.rhs)
    return None if a is None or b is None else a.union(b)


def _cast(bounds: Bounds, op: Operation) -> Interval | None:
    return bounds.of(op.operands[0])


def _min(a: Interval, b: Interval) -> Interval:
    return Interval(min(a.lo, b.lo), min(a.hi, b.hi))


def _max(a: Interval, b: Interval) -> Interval:
    return Interval(max(a.lo, b.lo), max(a.hi, b.hi))


RULES: dict[type[Operation], Callable[[Bounds, Operation], Interval | None]] = {
    arith.AddiOp: _binary(Interval.__add__),
    arith.SubiOp: _binary(Interval.__sub__),
    arith.MuliOp: _binary(Interval.__mul__),
    arith.FloorDivSIOp: _by_positive_constant(_floor_div),
    arith.DivSIOp: _by_positive_constant(
        lambda a, c: Interval(trunc_div(a.lo, c), trunc_div(a.hi, c))
    ),
    arith.DivUIOp: _by_positive_constant(lambda a, c: _floor_div(a, c) if a.lo >= 0 else None),
    arith.CeilDivSIOp: _by_positive_constant(lambda a, c: Interval(-(-a.lo // c), -(-a.hi // c))),
    arith.CeilDivUIOp: _by_positive_constant(
        lambda a, c: Interval(-(-a.lo // c), -(-a.hi // c)) if a.lo >= 0 else None
    ),
    arith.RemSIOp: _by_positive_constant(lambda a, c: _remainder(a, c, signed=True)),
    arith.RemUIOp: _by_positive_constant(lambda a, c: _remainder(a, c, signed=False)),
    arith.MinSIOp: _binary(_min),
    arith.MaxSIOp: _binary(_max),
    arith.MinUIOp: _binary(_nonnegative(_min)),
    arith.MaxUIOp: _binary(_nonnegative(_max)),
    arith.SelectOp: _select,
    arith.IndexCastOp: _cast,
    arith.ExtSIOp: _cast,
}


# ---------------------------------------------------------------------------------------------
# Linear forms


@dataclass
class LinearForm:
    """`sum(coeff * atom) + constant` over SSA values that are not sums or scaled values."""

    terms: dict[SSAValue, int] = field(default_factory=dict)
    constant: int = 0

    def scaled(self, factor: int) -> LinearForm:
        return LinearForm(
            {v: c * factor for v, c in self.terms.items() if c * factor},
            self.constant * factor,
        )

    def plus(self, other: LinearForm) -> LinearForm:
        terms = dict(self.terms)
        for value, coeff in other.terms.items():
            terms[value] = terms.get(value, 0) + coeff
            if not terms[value]:
                del terms[value]
        return LinearForm(terms, self.constant + other.constant)


def linear_form(value: SSAValue) -> LinearForm:
    """`value` as a linear form: sums, differences and products by constants are unfolded."""
    if (c := constant_value(value)) is not None:
        return LinearForm({}, c)
    op = value.owner
    if isinstance(value.type, IndexType) and isinstance(op, arith.AddiOp | arith.SubiOp):
        rhs = linear_form(op.rhs)
        return linear_form(op.lhs).plus(rhs if isinstance(op, arith.AddiOp) else rhs.scaled(-1))
    if isinstance(value.type, IndexType) and isinstance(op, arith.MuliOp):
        if (c := constant_value(op.rhs)) is not None:
            return linear_form(op.lhs).scaled(c)
        if (c := constant_value(op.lhs)) is not None:
            return linear_form(op.rhs).scaled(c)
    return LinearForm({value: 1}, 0)


def form_bounds(form: LinearForm, bounds: Bounds) -> Interval | None:
    total = Interval(form.constant, form.constant)
    for value, coeff in form.terms.items():
        interval = bounds.of(value)
        if interval is None:
            return None
        total = total + interval * Interval(coeff, coeff)
    return total


def depends_on(value: SSAValue, variable: SSAValue, memo: dict[SSAValue, bool]) -> bool:
    """Whether `value` may change with `variable` (ops with regions are assumed to)."""
    if value is variable:
        return True
    if value not in memo:
        memo[value] = True  # no cycles in SSA; this only guards the recursion
        if isinstance(value, BlockArgument):
            loop = loop_of(value)
            operands = [loop.lower_bound, loop.upper_bound] if isinstance(loop, tir.ForOp) else []
            memo[value] = loop is None or any(depends_on(v, variable, memo) for v in operands)
        else:
            op = value.owner
            assert isinstance(op, Operation)
            memo[value] = bool(op.regions) or any(
                depends_on(v, variable, memo) for v in op.operands
            )
    return memo[value]


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined in a region of `op` (so it varies with `op`'s iterations)."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    while block is not None:
        parent = block.parent_op()
        if parent is op:
            return True
        block = parent.parent_block() if parent is not None else None
    return False
