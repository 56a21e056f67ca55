"""The text format: lark grammar, parser to xDSL IR, printer, diagnostics, context.

As `tvm.ir` it also offers TVM's names, loaded on first use: `structural_equal`,
`assert_structural_equal`, `register_op_attr`, `IRModule`.
"""

from __future__ import annotations

import importlib
from typing import Any

TVM_NAMES = {
    "structural_equal": "xtvm.api.structural_equal",
    "assert_structural_equal": "xtvm.api.structural_equal",
    "register_op_attr": "xtvm.passes.byoc_targets",
    "IRModule": "xtvm.api.ir_module",
}


def __getattr__(name: str) -> Any:
    if name in TVM_NAMES:
        return getattr(importlib.import_module(TVM_NAMES[name]), name)
    raise AttributeError(f"module 'xtvm.ir' has no attribute '{name}'")
