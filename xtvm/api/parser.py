"""`tvm.parser`: TVM's Relay text format read into an IRModule."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.expr import Expr


def parse(
    source: str,
    source_name: str = "from_string",
    init_module: IRModule | None = None,
    init_meta_table: object = None,
) -> IRModule:
    """An IRModule from Relay text (`#[version = "0.0.5"]`, `def @main(...) { ... }`); with
    `init_module`, the text extends it."""
    from xtvm.api.relay.text import parse as parse_relay_text

    return parse_relay_text(source, source_name, init_module, init_meta_table)  # type: ignore[arg-type]


def parse_expr(source: str, source_name: str = "from_string") -> Expr:
    """An expression from Relay text (`free_var %x: ...;` declarations, then the expression)."""
    from xtvm.api.relay.text import parse_expr as parse_relay_expr

    return parse_relay_expr(source, source_name)


fromtext = parse
