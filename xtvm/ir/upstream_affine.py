"""Custom syntax of the affine dialect: the ops xDSL prints by hand, and MLIR's affine.if.

The rules live in upstream_affine.lark. Subscripts (`%m[%i + 1, %j * 2]`) are affine expressions
of SSA values, built bottom-up as small tuples and turned into the op's map once the list is
complete: every distinct value becomes a symbol, numbered in order of first appearance, which is
the map xDSL's reader builds, so both readers give the same IR. affine.for and affine.if get the
`affine.yield` their printed form leaves out (MLIR's SingleBlockImplicitTerminator).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Token
from xdsl.dialects import affine
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineExpr, AffineMap, AffineSymExpr

from xtvm.ir.context import SyntaxExtension
from xtvm.ir.parser import IRBuilder, PendingArg, decode_string
from xtvm.ir.upstream import declare_loop_args

INDEX = IndexType()

# ------------------------------------------------------------------ expressions of SSA values

# An expression as parsed: ("const", int), ("value", Token), ("neg", e) or (op, lhs, rhs).
Expr = tuple[Any, ...]

BINARY: dict[str, Callable[[AffineExpr, AffineExpr], AffineExpr]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "ceildiv": lambda a, b: a.ceil_div(b),
    "mod": lambda a, b: a % b,
}


def affine_const(b: IRBuilder, children: list[Any]) -> Expr:
    text = str(children[0])
    if text.startswith("-"):  # xDSL reads `-3` as the negation of 3
        return ("neg", ("const", int(text[1:])))
    return ("const", int(text))


def affine_value(b: IRBuilder, children: list[Any]) -> Expr:
    return ("value", children[0])


def affine_neg(b: IRBuilder, children: list[Any]) -> Expr:
    return ("neg", children[0])


def binary(kind: str) -> Callable[[IRBuilder, list[Any]], Expr]:
    def build(b: IRBuilder, children: list[Any]) -> Expr:
        lhs, *_keyword, rhs = children
        return (kind, lhs, rhs)

    return build


affine_add = binary("add")
affine_sub = binary("sub")
affine_mul = binary("mul")
affine_floordiv = binary("floordiv")
affine_ceildiv = binary("ceildiv")
affine_mod = binary("mod")


def affine_symbol(b: IRBuilder, children: list[Any]) -> Expr:
    return ("symbol", children[-1])


@dataclass
class Operands:
    """The values of a subscript list, numbered in order of first appearance: as dimensions
    and symbols where some are written `symbol(%x)` (MLIR's form), else all as symbols (the
    map xDSL's reader builds)."""

    mlir_form: bool
    dims: dict[str, Token] = field(default_factory=dict)
    symbols: dict[str, Token] = field(default_factory=dict)

    def use(self, b: IRBuilder, token: Token, symbol: bool) -> AffineExpr:
        name = str(token)
        if self.mlir_form and not symbol:
            if name in self.symbols:
                raise b.error(token, f"'{name}' is used both as a dimension and as a symbol")
            self.dims.setdefault(name, token)
            return AffineExpr.dimension(list(self.dims).index(name))
        if name in self.dims:
            raise b.error(token, f"'{name}' is used both as a dimension and as a symbol")
        self.symbols.setdefault(name, token)
        return AffineExpr.symbol(list(self.symbols).index(name))


def to_affine(b: IRBuilder, expr: Expr, operands: Operands) -> AffineExpr:
    """The AffineExpr of `expr`, its values numbered by `operands`."""
    kind = expr[0]
    if kind == "const":
        return AffineExpr.constant(expr[1])
    if kind in ("value", "symbol"):
        return operands.use(b, expr[1], kind == "symbol")
    if kind == "neg":
        return -to_affine(b, expr[1], operands)
    lhs = to_affine(b, expr[1], operands)
    rhs = to_affine(b, expr[2], operands)
    try:
        return BINARY[kind](lhs, rhs)
    except (ValueError, ZeroDivisionError) as exc:
        raise b.error(first_token(expr), f"invalid affine expression: {exc}") from None


def first_token(expr: Expr) -> Token | None:
    if expr[0] in ("value", "symbol"):
        return expr[1]
    for part in expr[1:]:
        if isinstance(part, tuple):
            token = first_token(part)
            if token is not None:
                return token
    return None


def affine_subscripts(b: IRBuilder, children: list[Any]) -> tuple[AffineMap, list[SSAValue]]:
    exprs = [c for c in children if c is not None]
    operands = Operands(any(uses_symbol(e) for e in exprs))
    results = tuple(to_affine(b, e, operands) for e in exprs)
    uses = [*operands.dims.values(), *operands.symbols.values()]
    amap = AffineMap(len(operands.dims), len(operands.symbols), results)
    return amap, [b.resolve(t, INDEX) for t in uses]


def uses_symbol(expr: Expr) -> bool:
    """Whether `expr` writes a value as `symbol(%x)`."""
    if expr[0] == "symbol":
        return True
    return any(isinstance(part, tuple) and uses_symbol(part) for part in expr[1:])


def memref_type(b: IRBuilder, token: Token, typ: Attribute) -> MemRefType:
    if not isinstance(typ, MemRefType):
        raise b.error(token, f"'{token}' op expects a memref type, got '{typ}'")
    return typ


def affine_load(b: IRBuilder, children: list[Any]) -> Operation:
    token, memref, (amap, indices), typ = children
    typ = memref_type(b, token, typ)
    op = affine.LoadOp(b.resolve(memref, typ), indices, AffineMapAttr(amap), typ.get_element_type())
    return b.record(op, token)


def affine_store(b: IRBuilder, children: list[Any]) -> Operation:
    token, value, memref, (amap, indices), typ = children
    typ = memref_type(b, token, typ)
    op = affine.StoreOp(
        b.resolve(value, typ.get_element_type()),
        b.resolve(memref, typ),
        indices,
        AffineMapAttr(amap),
    )
    return b.record(op, token)


def vector_type(b: IRBuilder, token: Token, typ: Attribute) -> VectorType:
    if not isinstance(typ, VectorType):
        raise b.error(token, f"'{token}' op expects a vector type, got '{typ}'")
    return typ


def affine_vector_load(b: IRBuilder, children: list[Any]) -> Operation:
    token, memref, (amap, indices), typ, vec = children
    typ, vec = memref_type(b, token, typ), vector_type(b, token, vec)
    op = affine.VectorLoadOp(b.resolve(memref, typ), indices, AffineMapAttr(amap), vec)
    return b.record(op, token)


def affine_vector_store(b: IRBuilder, children: list[Any]) -> Operation:
    token, value, memref, (amap, indices), typ, vec = children
    typ, vec = memref_type(b, token, typ), vector_type(b, token, vec)
    op = affine.VectorStoreOp(
        b.resolve(value, vec), b.resolve(memref, typ), indices, AffineMapAttr(amap)
    )
    return b.record(op, token)


# ------------------------------------------------------------------ maps with operands


def affine_map_operands(b: IRBuilder, children: list[Any]) -> tuple[list[Token], list[Token]]:
    dims, symbols = children
    return (dims or [], symbols or [])


def map_operands(
    b: IRBuilder,
    token: Token,
    attr: Attribute,
    operands: tuple[list[Token], list[Token]],
    kind: type[AffineMapAttr] | type[AffineSetAttr] = AffineMapAttr,
) -> list[SSAValue]:
    """The operands of an affine map (or set) applied to `(dims)[symbols]`, checked against it."""
    noun = "map" if kind is AffineMapAttr else "set"
    if not isinstance(attr, kind):
        raise b.error(token, f"'{token}' op expects an affine {noun}, got '{attr}'")
    dims, symbols = operands
    data = attr.data
    if (len(dims), len(symbols)) != (data.num_dims, data.num_symbols):
        raise b.error(
            token,
            f"'{token}' op {noun} has {data.num_dims} dimensions and {data.num_symbols} "
            f"symbols, but {len(dims)} and {len(symbols)} operands are given",
        )
    return [b.resolve(t, INDEX) for t in [*dims, *symbols]]


def affine_apply(b: IRBuilder, children: list[Any]) -> Operation:
    token, attr, operands = children
    values = map_operands(b, token, attr, operands)
    op_type = affine.ApplyOp if str(token) == "affine.apply" else affine.MinOp
    return b.record(op_type(values, attr), token)


# ------------------------------------------------------------------ affine.for and affine.if


def affine_bound_constant(b: IRBuilder, children: list[Any]) -> tuple[Any, ...]:
    return (AffineMapAttr(AffineMap.constant_map(int(children[0]))), [])


def affine_bound_value(b: IRBuilder, children: list[Any]) -> tuple[Any, ...]:
    symbol = AffineMapAttr(AffineMap(0, 1, (AffineExpr.symbol(0),)))
    return (symbol, [b.resolve(children[0], INDEX)])


def affine_bound_map(b: IRBuilder, children: list[Any]) -> tuple[Any, ...]:
    return (children[0], children[1])  # checked by the head, which knows the op's token


def affine_lower_bound(b: IRBuilder, children: list[Any]) -> tuple[Any, ...]:
    return (children[0] is not None, *children[1])


def affine_upper_bound(b: IRBuilder, children: list[Any]) -> tuple[Any, ...]:
    return (children[0] is not None, *children[1])


def bound(
    b: IRBuilder, token: Token, parsed: tuple[Any, ...], keyword: str
) -> tuple[AffineMapAttr, list[SSAValue]]:
    """The map and operands of one loop bound, `keyword` (max/min) required for several results."""
    used_keyword, attr, operands = parsed
    if isinstance(operands, list):  # a constant or a value, already resolved
        return attr, operands
    values = map_operands(b, token, attr, operands)
    if len(attr.data.results) > 1 and not used_keyword:
        raise b.error(
            token, f"loop bound affine map with multiple results requires '{keyword}' prefix"
        )
    return attr, values


def affine_iter_arg(b: IRBuilder, children: list[Any]) -> tuple[Token, Token]:
    return (children[0], children[1])


def affine_iter_args(b: IRBuilder, children: list[Any]) -> tuple[list[Any], list[Attribute]]:
    *pairs, types = children
    return (pairs, types)


def affine_one_type(b: IRBuilder, children: list[Any]) -> list[Attribute]:
    return [children[0]]


def affine_type_list(b: IRBuilder, children: list[Any]) -> list[Attribute]:
    return children[0] or []


def affine_for_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, indvar, lower_bound, upper_bound, step, iter_args = children
    lower, lower_values = bound(b, token, lower_bound, "max")
    upper, upper_values = bound(b, token, upper_bound, "min")
    if step is not None and int(step) < 0:
        raise b.error(step, "expected step to be representable as a positive signed integer")
    inits, types = declare_loop_args(b, token, indvar, INDEX, iter_args)
    return {
        "token": token,
        "bounds": (lower_values, upper_values, lower, upper),
        "step": 1 if step is None else int(step),
        "inits": inits,
        "types": types,
    }


def with_yield(region: Region | None) -> Region:
    """`region` with one block ending in affine.yield, which the custom forms leave out."""
    if region is None or not region.blocks:
        region = Region(Block())
    block = region.blocks[-1]
    if not isinstance(block.last_op, affine.YieldOp):
        block.add_op(affine.YieldOp.get())
    return region


def affine_for(b: IRBuilder, children: list[Any]) -> Operation:
    head, region, attrs = children
    lower_values, upper_values, lower, upper = head["bounds"]
    if len(region.blocks) > 1:
        raise b.error(head["token"], "'affine.for' op expects a single-block region")
    op = affine.ForOp.from_region(
        lower_values,
        upper_values,
        head["inits"],
        head["types"],
        lower,
        upper,
        with_yield(region),
        head["step"],
    )
    op.attributes |= attrs or {}
    return b.record(op, head["token"])


# MLIR's arith::AtomicRMWKind, the reductions affine.parallel names
REDUCTIONS = frozenset(
    "addf addi assign maximumf maxs maxu minimumf mins minu mulf muli ori andi maxnumf minnumf"
    "".split()
)


def affine_parallel_bound(b: IRBuilder, children: list[Any]) -> tuple[Token | None, list[Expr]]:
    if isinstance(children[0], Token) and children[0].type in ("AFFINE_MAX", "AFFINE_MIN"):
        return (children[0], children[1:])
    return (None, children)


def affine_parallel_bounds(b: IRBuilder, children: list[Any]) -> list[Any]:
    return children


def affine_parallel_steps(b: IRBuilder, children: list[Any]) -> list[Token]:
    return children


def affine_parallel_reduce(b: IRBuilder, children: list[Any]) -> tuple[list[Token], list[Any]]:
    *kinds, types = children
    return (kinds, types)


def parallel_bounds(
    b: IRBuilder, token: Token, bounds: list[tuple[Token | None, list[Expr]]], keyword: str
) -> tuple[AffineMapAttr, Attribute, list[SSAValue]]:
    """The map, the groups (results per loop) and the operands of affine.parallel's lower or
    upper bounds, `keyword` (max/min) the only one allowed before a group."""
    exprs = [e for _, group in bounds for e in group]
    operands = Operands(True)
    for used, _ in bounds:
        if used is not None and str(used) != keyword:
            raise b.error(used, f"expected '{keyword}' before a group of bounds, got '{used}'")
    results = tuple(to_affine(b, e, operands) for e in exprs)
    amap = AffineMap(len(operands.dims), len(operands.symbols), results)
    uses = [*operands.dims.values(), *operands.symbols.values()]
    groups = DenseIntOrFPElementsAttr.from_list(
        VectorType(i32, (len(bounds),)), [len(group) for _, group in bounds]
    )
    return AffineMapAttr(amap), groups, [b.resolve(t, INDEX) for t in uses]


def affine_parallel_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, *ivs, lower, upper, steps, reduce = children
    if len(lower) != len(ivs) or len(upper) != len(ivs):
        raise b.error(
            token,
            f"'affine.parallel' op has {len(ivs)} induction variables but "
            f"{len(lower)} lower and {len(upper)} upper bounds",
        )
    steps = steps or [None] * len(ivs)
    if len(steps) != len(ivs):
        raise b.error(token, f"'affine.parallel' op has {len(ivs)} loops but {len(steps)} steps")
    for step in steps:
        if step is not None and int(step) <= 0:
            raise b.error(step, "'affine.parallel' op steps must be positive")
    kinds, types = reduce if reduce is not None else ([], [])
    names = []
    for kind in kinds:
        name = decode_string(kind)
        if name not in REDUCTIONS:
            raise b.error(
                kind, f"unknown reduction '{name}' (one of {', '.join(sorted(REDUCTIONS))})"
            )
        names.append(name)
    if len(names) != len(types):
        raise b.error(
            token, f"'affine.parallel' op has {len(names)} reductions but {len(types)} result types"
        )
    lower_map, lower_groups, lower_values = parallel_bounds(b, token, lower, "max")
    upper_map, upper_groups, upper_values = parallel_bounds(b, token, upper, "min")
    b.set_entry_args([PendingArg(iv, INDEX) for iv in ivs])
    properties = {
        "reductions": ArrayAttr([StringAttr(n) for n in names]),
        "lowerBoundsMap": lower_map,
        "lowerBoundsGroups": lower_groups,
        "upperBoundsMap": upper_map,
        "upperBoundsGroups": upper_groups,
        "steps": ArrayAttr([IntegerAttr(1 if s is None else int(s), i64) for s in steps]),
    }
    return {
        "token": token,
        "operands": [*lower_values, *upper_values],
        "types": types,
        "properties": properties,
    }


def affine_parallel(b: IRBuilder, children: list[Any]) -> Operation:
    head, region, attrs = children
    if len(region.blocks) > 1:
        raise b.error(head["token"], "'affine.parallel' op expects a single-block region")
    op = affine.ParallelOp.create(
        operands=head["operands"],
        result_types=head["types"],
        properties=head["properties"],
        attributes=attrs or {},
        regions=[with_yield(region)],
    )
    return b.record(op, head["token"])


def affine_if(b: IRBuilder, children: list[Any]) -> Operation:
    token, condition, operands, types, then_region, else_region, attrs = children
    values = map_operands(b, token, condition, operands, AffineSetAttr)
    for region in (then_region, else_region):
        if region is not None and len(region.blocks) > 1:
            raise b.error(token, "'affine.if' op expects single-block regions")
    op = affine.IfOp.create(
        operands=values,
        result_types=types or [],
        properties={"condition": condition},
        attributes=attrs or {},
        regions=[
            with_yield(then_region),
            Region() if else_region is None else with_yield(else_region),
        ],
    )
    return b.record(op, token)


CALLBACKS = {
    name: fn for name, fn in globals().items() if name.startswith("affine_") and callable(fn)
}


# ------------------------------------------------------------------ printing


def symbols_in_order(exprs: Sequence[AffineExpr]) -> list[int]:
    """The symbol positions of `exprs` (without dimensions) in the order the printer writes
    them, left operand first."""
    order: list[int] = []

    def walk(expr: AffineExpr) -> None:
        if isinstance(expr, AffineSymExpr):
            order.append(expr.position)
        elif isinstance(expr, AffineBinaryOpExpr):
            walk(expr.lhs)
            walk(expr.rhs)

    for expr in exprs:
        walk(expr)
    return order


def subscripts_printable(amap: AffineMap, indices: Sequence[SSAValue]) -> bool:
    """Whether `%m[...]` written from `amap` reads back as `amap`: no dimensions, and the
    symbols are distinct values appearing first in the order 0, 1, 2, ..."""
    if amap.num_dims or amap.num_symbols != len(indices) or len(set(indices)) != len(indices):
        return False
    first = list(dict.fromkeys(symbols_in_order(amap.results)))
    return first == list(range(amap.num_symbols))


def printable_affine(op: Operation) -> bool:
    """Whether `op`'s custom form (xDSL's printer) keeps everything it holds."""
    if isinstance(op, affine.LoadOp | affine.StoreOp | affine.VectorLoadOp | affine.VectorStoreOp):
        return (
            not op.attributes
            and set(op.properties) == {"map"}
            and isinstance(op.memref.type, MemRefType)
            and subscripts_printable(op.map.data, op.indices)
        )
    if isinstance(op, affine.ApplyOp | affine.MinOp):
        return not op.attributes and set(op.properties) == {"map"}
    if isinstance(op, affine.ForOp):
        blocks = op.body.blocks
        if len(blocks) != 1 or set(op.properties) - FOR_PROPERTIES:
            return False
        if op.step.type != INDEX:
            return False
        last = blocks[0].last_op
        if op.inits:
            return True
        return isinstance(last, affine.YieldOp) and not last.operands and not last.attributes
    return True


FOR_PROPERTIES = {"lowerBoundMap", "upperBoundMap", "step", "operandSegmentSizes"}


AFFINE_SYNTAX = SyntaxExtension.from_file(
    Path(__file__).with_name("upstream_affine.lark"),
    CALLBACKS,
    custom_ops=[
        affine.ApplyOp,
        affine.MinOp,
        affine.LoadOp,
        affine.StoreOp,
        affine.VectorLoadOp,
        affine.VectorStoreOp,
        affine.ForOp,
        affine.IfOp,
    ],
    printable=printable_affine,
)
