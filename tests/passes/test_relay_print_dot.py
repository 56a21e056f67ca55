"""relay-print-dot: DOT on stderr or in a file, the IR unchanged, unwritable paths reported."""

from __future__ import annotations

import pytest

from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.printer import print_ir
from xtvm.passes.relay_print_dot import RelayPrintDotPass
from xtvm.testing.passes import CTX, run

TEXT = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = relay.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = relay.nn.relu %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
"""


def test_graph_goes_to_stderr_and_ir_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    module = CTX.parse(TEXT)
    before = print_ir(module, CTX)
    run(module, RelayPrintDotPass())
    assert print_ir(module, CTX) == before
    dot = capsys.readouterr().err
    assert dot.startswith('digraph "main" {') and dot.rstrip().endswith("}")
    # Two arguments, two ops and the return; four edges into ops plus one into the return.
    assert dot.count("shape=ellipse") == 3 and dot.count("shape=box") == 2
    assert dot.count(" -> ") == 4


def test_graph_written_to_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "g.dot"
    run(CTX.parse(TEXT), RelayPrintDotPass(output=str(target)))
    assert 'label="add\\n2x3xf32"' in target.read_text()


def test_unwritable_output_is_a_diagnostic(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DiagnosticError, match="cannot write"):
        RelayPrintDotPass(output=str(tmp_path / "missing" / "g.dot")).apply(
            CTX.xdsl_context, CTX.parse(TEXT)
        )
