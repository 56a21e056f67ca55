"""AnnotateTarget on a function kept as an expression (references, a let-bound closure):
annotated as TVM annotates it, and still computing the same values."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.api.relay.expr import COMPILER_BEGIN, COMPILER_END, Call, post_order
from xtvm.passes.byoc_targets import register_op_attr, unregister_target


@pytest.fixture
def exp_target() -> Iterator[str]:
    register_op_attr("exp", "target.exp_only", True)
    yield "exp_only"
    unregister_target("exp_only")


def counter_module() -> tvm.IRModule:
    """@main(x) = let r = ref(x); r := exp(!r); !r + x (a reference cell)."""
    x = relay.var("x", shape=(3,))
    r = relay.var("r")
    body = relay.Let(
        r,
        relay.RefCreate(x),
        relay.Let(
            relay.var("_"),
            relay.RefWrite(r, relay.exp(relay.RefRead(r))),
            relay.add(relay.RefRead(r), x),
        ),
    )
    return tvm.IRModule.from_expr(relay.Function([x], body))


def annotations(mod: tvm.IRModule) -> list[tuple[str, str]]:
    return [
        (node.op.name.split(".")[-1], node.attrs.properties["compiler"].data)
        for node in post_order(mod["main"])
        if isinstance(node, Call) and node.op.name in (COMPILER_BEGIN, COMPILER_END)
    ]


@pytest.mark.parametrize("non_call", [False, True])
def test_a_function_with_references_is_annotated_and_runs_the_same(
    exp_target: str, non_call: bool
) -> None:
    mod = counter_module()
    assert mod.is_interpreted("main")
    annotated = relay.transform.AnnotateTarget(exp_target, non_call)(mod)
    found = annotations(annotated)
    assert ("compiler_begin", exp_target) in found and ("compiler_end", exp_target) in found
    # `add` is the host's: a default region, which the references join when asked to
    assert ("compiler_begin", "default") in found
    refs_annotated = sum(1 for a in found if a == ("compiler_end", "default")) > 1
    assert refs_annotated == non_call
    x = np.array([0.0, 1.0, -2.0], "float32")
    for m in (mod, annotated):
        got = relay.create_executor(mod=m).evaluate()(x).numpy()
        np.testing.assert_allclose(got, np.exp(x) + x, rtol=1e-6)
