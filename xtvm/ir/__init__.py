"""The text format: lark grammar, parser to xDSL IR, printer, diagnostics, context.

As `tvm.ir` it also offers TVM's names `structural_equal`, `assert_structural_equal`,
`register_op_attr` and `IRModule`, which the package `xtvm` adds on first use
(`PACKAGE_NAMES` in xtvm/__init__.py): they live in higher layers. `DictAttrs` and
`make_node` live here (attrs.py).
"""

from xtvm.ir.attrs import DictAttrs, make_node

__all__ = ["DictAttrs", "make_node"]
