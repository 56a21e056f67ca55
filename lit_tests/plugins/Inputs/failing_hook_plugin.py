"""A plugin whose hook raises (it registers something that is not a pass); plugin.mlir expects
an error at the line of the hook that raised, not a traceback."""

from __future__ import annotations


def xtvm_plugin(registry: object) -> None:
    registry.register_pass(42)  # type: ignore[attr-defined]
