"""Relay's type variables, algebraic data types and references end to end: types inferred
by unification, values computed by the interpreter (`create_executor`) and checked against
Python, the prelude's text read back, and clear errors for ill-typed or unknown input."""

from __future__ import annotations

import numpy as np
import pytest
from xtvm.relay.prelude import Prelude
from xtvm.relay.testing import count, make_nat_expr

import xtvm as tvm
from xtvm import relay

SEMVER = '#[version = "0.0.5"]\n'


def run(mod: tvm.IRModule, *args: object) -> object:
    return relay.create_executor("debug", mod=mod).evaluate()(*args)


def to_python(p: Prelude, value: object) -> list[int]:
    """A List of int32 scalars as a Python list."""
    items = []
    while value.tag == p.cons.tag:  # type: ignore[attr-defined]
        items.append(int(value.fields[0].numpy()))  # type: ignore[attr-defined]
        value = value.fields[1]  # type: ignore[attr-defined]
    assert value.tag == p.nil.tag  # type: ignore[attr-defined]
    return items


def make_list(p: Prelude, values: list[int]) -> relay.Expr:
    result = p.nil()
    for v in reversed(values):
        result = p.cons(relay.const(v), result)
    return result


@pytest.fixture
def prelude() -> Prelude:
    return Prelude()


def test_prelude_list_functions(prelude: Prelude) -> None:
    p, mod = prelude, prelude.mod
    values = [3, 1, 4, 1, 5]
    xs = make_list(p, values)
    x = relay.var("x", "int32")
    double = relay.Function([x], x * relay.const(2))
    odd = relay.Function([x], relay.not_equal(relay.floor_mod(x, relay.const(2)), relay.const(0)))
    a, b = relay.var("a", "int32"), relay.var("b", "int32")
    minus = relay.Function([a, b], a - b)
    mod["main"] = relay.Function(
        [],
        relay.Tuple(
            [
                p.length(xs),
                p.sum(xs),
                p.nth(xs, relay.const(2)),
                p.map(double, xs),
                p.rev(xs),
                p.filter(odd, xs),
                p.update(xs, relay.const(1), relay.const(9)),
                p.concat(xs, xs),
                p.foldl(minus, relay.const(0), xs),
                p.foldr(minus, relay.const(0), xs),
                p.hd(xs),
            ]
        ),
    )
    out = run(mod)
    assert int(out[0].numpy()) == len(values)
    assert int(out[1].numpy()) == sum(values)
    assert int(out[2].numpy()) == values[2]
    assert to_python(p, out[3]) == [2 * v for v in values]
    assert to_python(p, out[4]) == values[::-1]
    assert to_python(p, out[5]) == [v for v in values if v % 2]
    assert to_python(p, out[6]) == [3, 9, 4, 1, 5]
    assert to_python(p, out[7]) == values + values
    assert int(out[8].numpy()) == 0 - 3 - 1 - 4 - 1 - 5  # ((((0-3)-1)-4)-1)-5
    assert int(out[9].numpy()) == 3 - (1 - (4 - (1 - (5 - 0))))
    assert int(out[10].numpy()) == 3


def test_polymorphic_functions_and_type_args(prelude: Prelude) -> None:
    mod = prelude.mod
    f = relay.var("f", "float32")
    body = relay.Tuple([prelude.id(f), prelude.id(relay.const(7))])
    mod["main"] = relay.Function([f], body)
    typ = mod["main"].checked_type
    assert typ.ret_type == relay.TupleType(
        [relay.scalar_type("float32")] * 0
        + [
            relay.scalar_type("float32"),
            relay.scalar_type("int32"),
        ]
    )
    assert mod["main"].body.fields[1].type_args == [relay.scalar_type("int32")]
    out = run(mod, np.float32(2.5))
    assert float(out[0].numpy()) == 2.5 and int(out[1].numpy()) == 7


def test_higher_order_iterate_and_closures(prelude: Prelude) -> None:
    mod = prelude.mod
    x = relay.var("x", "int32")
    step = relay.var("step", "int32")
    add_step = relay.Function([x], x + step)  # captures %step
    y = relay.var("y", "int32")
    mod["main"] = relay.Function([step, y], prelude.iterate(add_step, relay.const(4))(y))
    assert int(run(mod, np.int32(3), np.int32(10)).numpy()) == 10 + 4 * 3


def test_references_count_in_a_loop() -> None:
    """A counter in a reference cell, incremented by a recursive loop: the writes are seen."""
    mod = tvm.relay.parse(
        SEMVER
        + """
        def @loop(%r: ref(int32), %n: int32) -> int32 {
          if (%n == 0) {
            ref_read(%r)
          } else {
            %0 = ref_read(%r);
            ref_write(%r, %0 + %n);
            @loop(%r, %n - 1)
          }
        }
        def @main(%n: int32) -> int32 {
          @loop(ref(0), %n)
        }
        """
    )
    assert int(run(mod, np.int32(10)).numpy()) == sum(range(11))
    text = mod.astext()
    assert "ref_write(" in text and "ref(int32)" in text
    tvm.ir.assert_structural_equal(tvm.relay.parse(text), mod)


def test_nat(prelude: Prelude) -> None:
    mod = prelude.mod
    mod.import_from_std("nat.rly")
    add = mod.get_global_var("nat_add")
    double = mod.get_global_var("nat_double")
    mod["main"] = relay.Function(
        [], double(add(make_nat_expr(prelude, 2), make_nat_expr(prelude, 3)))
    )
    assert count(prelude, run(mod)) == 10


def test_match_tuple_patterns_and_wildcards() -> None:
    mod = tvm.relay.parse(
        SEMVER
        + """
        type Shape { Circle(float32), Rect(float32, float32), Empty }
        def @area(%s: Shape) -> float32 {
          match (%s) {
            Circle(%r) => 3f * %r * %r,
            Rect(%w, %h) => %w * %h,
            _ => 0f,
          }
        }
        def @main(%a: float32, %b: float32) {
          %0 = (@area(Circle(%a)), @area(Rect(%a, %b)), @area(Empty));
          match ((%a, %b)) {
            (%u, %v) => (%0.0 + %0.1 + %0.2, %u - %v),
          }
        }
        """
    )
    out = run(mod, np.float32(2), np.float32(5))
    np.testing.assert_allclose(out[0].numpy(), 3 * 2 * 2 + 2 * 5)
    np.testing.assert_allclose(out[1].numpy(), -3)


def test_prelude_text_round_trip(prelude: Prelude) -> None:
    prelude.mod.import_from_std("nat.rly")
    prelude.mod.import_from_std("gradient.rly")
    text = prelude.mod.astext()
    assert "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}" in text
    assert "def @map[A, B](%f: fn (A) -> B, %xs: List[A]) -> List[B]" in text
    tvm.ir.assert_structural_equal(tvm.relay.parse(text), prelude.mod)


# ---------------------------------------------------------------------------------------------
# Errors


def test_ill_typed_match_is_a_clear_type_error() -> None:
    mod = tvm.IRModule()
    p = Prelude(mod)
    x = relay.var("x", p.l(relay.scalar_type("int32")))
    bad = relay.Match(
        x, [relay.Clause(relay.PatternConstructor(p.some, [relay.PatternWildcard()]), x)]
    )
    with pytest.raises(
        relay.RelayTypeError,
        match=r"pattern Some: type mismatch, Option\[_\] vs List\[Tensor\[\(\), int32\]\]",
    ):
        mod["main"] = relay.Function([x], bad)
    arity = relay.Match(x, [relay.Clause(relay.PatternConstructor(p.cons, []), x)])
    with pytest.raises(relay.RelayTypeError, match="2 fields, the pattern 0"):
        relay.Function([x], arity).checked_type  # noqa: B018
    clauses = [
        relay.Clause(relay.PatternConstructor(p.nil), relay.const(0)),
        relay.Clause(relay.PatternWildcard(), relay.const(1.0)),
    ]
    with pytest.raises(relay.RelayTypeError, match="the clauses of a match"):
        relay.Match(x, clauses).checked_type  # noqa: B018


def test_unknown_constructor_and_type_in_text() -> None:
    with pytest.raises(tvm.error.DiagnosticError, match="unknown constructor Cons"):
        tvm.relay.parse(SEMVER + "def @f(%x: int32) { match (%x) { Cons(_, _) => 0 } }")
    with pytest.raises(tvm.error.DiagnosticError, match="unknown type Lst"):
        tvm.relay.parse(SEMVER + "type List[A] { Nil } def @f(%x: Lst[int32]) { %x }")
    with pytest.raises(tvm.error.DiagnosticError, match="takes 1 type argument"):
        tvm.relay.parse(SEMVER + "type List[A] { Nil } def @f(%x: List[int32, int32]) { %x }")
    with pytest.raises(tvm.error.DiagnosticError, match="type mismatch"):
        tvm.relay.parse(SEMVER + "type B { C(int32) } def @f() { C(1f) }")


def test_incomplete_match_fails_at_run_time(prelude: Prelude) -> None:
    int32 = relay.scalar_type("int32")
    prelude.mod["main"] = relay.Function([], prelude.hd(prelude.nil()), int32)
    with pytest.raises(tvm.error.TVMError, match="no clause of the match covers the value Nil"):
        run(prelude.mod)


def test_ref_errors_and_build_refused() -> None:
    x = relay.var("x", "float32")
    r = relay.RefCreate(x)
    with pytest.raises(relay.RelayTypeError, match="ref_write of a value of another type"):
        relay.RefWrite(r, relay.const(1)).checked_type  # noqa: B018
    with pytest.raises(relay.RelayTypeError, match="ref_read of a non-reference"):
        relay.RefRead(x).checked_type  # noqa: B018
    mod = tvm.IRModule()
    mod["main"] = relay.Function([x], relay.RefRead(r))
    assert float(run(mod, np.float32(4)).numpy()) == 4
    with pytest.raises(tvm.error.TVMError, match=r"relay\.build: @main use"):
        relay.build(mod, target="llvm")


def test_unresolved_and_unknown_std() -> None:
    p = Prelude()
    with pytest.raises(relay.RelayTypeError, match="cannot infer the type"):
        relay.Function([], p.nil()).checked_type  # noqa: B018  (List of what?)
    with pytest.raises(ValueError, match="no standard library file"):
        p.mod.import_from_std("../secrets.rly")


def test_python_registered_operator_type_checks_but_does_not_run() -> None:
    from xtvm.relay.op import op as _op

    before = _op.registered_names()
    try:
        _op.register("test_adt_twice")
        _op.get("test_adt_twice").set_num_inputs(1)
        _op.get("test_adt_twice").add_type_rel("Identity")
        with pytest.raises(tvm.error.TVMError, match="registered before"):
            _op.register("test_adt_twice")
        x = relay.var("x", shape=(2,))
        call = relay.Call(_op.get("test_adt_twice"), [x])
        assert call.checked_type == relay.TensorType((2,))
        with pytest.raises(tvm.error.TVMError, match="takes 1 arguments, got 2"):
            relay.Call(_op.get("test_adt_twice"), [x, x]).checked_type  # noqa: B018
        mod = tvm.IRModule.from_expr(relay.Function([x], call))
        with pytest.raises(
            tvm.error.TVMError, match="registered from Python: it has no implementation"
        ):
            run(mod, np.zeros(2, "float32"))
    finally:
        _op.unregister_new(before)
    with pytest.raises(ValueError, match="unknown relay operator"):
        _op.get("test_adt_twice")


def test_mutator_rewrites_inside_match_and_refs(prelude: Prelude) -> None:
    """An ExprMutator reaches the clauses of a match and the operands of references."""
    mod = prelude.mod
    x = relay.var("x", "int32")
    xs = relay.var("xs", prelude.l(relay.scalar_type("int32")))
    h = relay.var("h")
    body = relay.Match(
        xs,
        [
            relay.Clause(
                relay.PatternConstructor(
                    prelude.cons, [relay.PatternVar(h), relay.PatternWildcard()]
                ),
                relay.RefRead(relay.RefCreate(h + relay.const(1))),
            ),
            relay.Clause(relay.PatternWildcard(), x),
        ],
    )

    class OneToTen(relay.ExprMutator):
        def visit_constant(self, const: relay.Constant) -> relay.Expr:
            return relay.const(10) if int(const.data.numpy()) == 1 else const

    f = relay.Function([x, xs], OneToTen().visit(body))
    mod["f"] = f
    call = mod.get_global_var("f")(relay.const(5), prelude.cons(relay.const(2), prelude.nil()))
    mod["main"] = relay.Function(
        [], relay.Tuple([call, mod.get_global_var("f")(relay.const(5), prelude.nil())])
    )
    out = run(mod)
    assert int(out[0].numpy()) == 12 and int(out[1].numpy()) == 5
    assert [v.name_hint for v in relay.analysis.free_vars(body)] == ["xs", "x"]


def test_references_are_in_relay_expr() -> None:
    """TVM's scripts build references from `relay.expr`, as from `relay`."""
    assert (relay.expr.RefCreate, relay.expr.RefRead, relay.expr.RefWrite) == (
        relay.RefCreate,
        relay.RefRead,
        relay.RefWrite,
    )
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        relay.expr.Nope  # noqa: B018
