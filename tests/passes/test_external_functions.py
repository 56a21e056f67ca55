"""Host relay passes leave functions claimed by an external codegen untouched."""

from __future__ import annotations

import pytest

from xtvm.dialects.registry import default_context
from xtvm.ir.printer import print_ir
from xtvm.passes import all_passes

EXTERNAL = """
func.func private @tvmgen_default_ccompiler_main_0(%a: tensor<4xf32>) -> tensor<4xf32>
    attributes {compiler = "ccompiler"} {
  %dead = relay.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %x = relay.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = relay.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = relay.const dense<1.0> : tensor<4xf32>
  %d = relay.const dense<2.0> : tensor<4xf32>
  %cd = relay.add %c, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %z = relay.multiply %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w = relay.nn.dropout %z : (tensor<4xf32>) -> tensor<4xf32>
  %r = relay.add %w, %cd : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "name", ["relay-cse", "relay-dce", "relay-fold-constant", "relay-simplify-inference"]
)
def test_external_function_is_skipped(name: str) -> None:
    ctx = default_context()
    module = ctx.parse(EXTERNAL)
    before = print_ir(module, ctx)
    all_passes()[name]()().apply(ctx.xdsl_context, module)
    assert print_ir(module, ctx) == before


def test_host_function_is_transformed() -> None:
    ctx = default_context()
    module = ctx.parse(EXTERNAL.replace('attributes {compiler = "ccompiler"}', ""))
    before = print_ir(module, ctx)
    all_passes()["relay-dce"]()().apply(ctx.xdsl_context, module)
    assert "relay.exp" in before and "relay.exp" not in print_ir(module, ctx)
