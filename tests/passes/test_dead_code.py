"""xtvm.passes.dead_code decides as xDSL's dead-code checks do, stopping at the first effect."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from xdsl import traits
from xdsl.ir import Operation
from xdsl.traits import is_side_effect_free
from xdsl.transforms import dead_code_elimination as xdsl_dce

import xtvm as tvm
from xtvm import relay
from xtvm.dialects.registry import default_context
from xtvm.driver.relay_build import lower_for_build
from xtvm.passes import dead_code

CTX = default_context()

LOOPS = """
func.func @f(%A: memref<8xf32>, %B: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tir.for %i = %c0 to %c8 serial {
    %x = memref.load %A[%i] : memref<8xf32>
    tir.for %j = %c0 to %c8 serial {
      %y = memref.load %B[%j] : memref<8xf32>
    }
  }
  tir.for %i = %c0 to %c8 serial {
    %t = memref.alloca() : memref<8xf32>
    memref.store %zero, %t[%i] : memref<8xf32>
  }
  tir.for %i = %c0 to %c8 serial {
    tir.for %j = %c0 to %c8 serial {
      memref.store %zero, %A[%j] : memref<8xf32>
    }
  }
  tir.for %i = %c0 to %c8 serial {
    %c = arith.cmpi ult, %i, %c8 : index
    scf.if %c {
      memref.store %zero, %B[%i] : memref<8xf32>
    }
    scf.if %c {
      %z = memref.load %B[%i] : memref<8xf32>
    }
  }
  func.return
}
"""


def same_decisions(ops: list[Operation]) -> None:
    for op in ops:
        assert dead_code.is_trivially_dead(op) == xdsl_dce.is_trivially_dead(op), op.name
        assert dead_code.would_be_trivially_dead(op) == xdsl_dce.would_be_trivially_dead(op)
        assert dead_code.side_effect_free(op) == is_side_effect_free(op), op.name


def test_loop_nests_decided_as_xdsl_decides() -> None:
    """An scf.if of loads only is dead, one storing is live; a tir.for never is (its
    terminator's effects are unknown)."""
    ops = list(CTX.parse(LOOPS).walk())
    same_decisions(ops)
    branches = [dead_code.is_trivially_dead(op) for op in ops if op.name == "scf.if"]
    assert branches == [False, True]
    assert not any(dead_code.is_trivially_dead(op) for op in ops if op.name == "tir.for")


def test_kernels_decided_as_xdsl_decides() -> None:
    """Every op of a small model's lowered kernels (loops, vector code, calls)."""
    x = relay.var("x", shape=(1, 8, 8, 4))
    w = relay.var("w", shape=(6, 4, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(relay.transpose(x, [0, 3, 1, 2]), w, padding=(1, 1)))
    y = relay.nn.softmax(relay.nn.batch_flatten(y))
    mod = tvm.IRModule.from_expr(relay.Function(relay.analysis.free_vars(y), y))
    _, kernels = lower_for_build(mod)
    ops = list(kernels.walk())
    assert sum(op.name == "tir.for" for op in ops) > 5
    same_decisions(ops)


def test_a_store_at_the_top_of_a_nest_ends_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop nest 40 deep whose outer body stores (first, and after the nest) is found live
    after looking at a few effect sets, not at all 40 levels (xDSL gathers the effects of
    the whole nest)."""
    depth = 40
    body = "memref.store %zero, %A[%c0] : memref<8xf32>\n"
    for _ in range(depth):
        body = f"tir.for %i = %c0 to %c8 serial {{\n{body}}}\n"
        body = f"{body}memref.store %zero, %A[%c0] : memref<8xf32>\n"
    text = (
        "func.func @f(%A: memref<8xf32>) {\n%c0 = arith.constant 0 : index\n"
        "%c8 = arith.constant 8 : index\n%zero = arith.constant 0.0 : f32\n"
        f"tir.for %o = %c0 to %c8 serial {{\n{body}}}\nfunc.return\n}}"
    )
    outer = next(op for op in CTX.parse(text).walk() if op.name == "tir.for")
    seen: list[Operation] = []
    effect_sets, get_effects = dead_code.effect_sets, traits.get_effects

    def counted(op: Operation) -> Iterator[object]:
        for effects in effect_sets(op):
            seen.append(op)
            yield effects

    def counted_effects(op: Operation) -> object:
        seen.append(op)
        return get_effects(op)

    monkeypatch.setattr(dead_code, "effect_sets", counted)
    monkeypatch.setattr(traits, "get_effects", counted_effects)  # xDSL's, per nested op
    assert not dead_code.is_trivially_dead(outer)
    assert len(seen) <= 3, len(seen)
    seen.clear()
    assert not xdsl_dce.is_trivially_dead(outer)
    assert len(seen) > depth  # xDSL's: the whole nest
