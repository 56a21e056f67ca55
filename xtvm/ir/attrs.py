"""TVM's `tvm.ir.DictAttrs` and `tvm.ir.make_node`: attribute dictionaries built by type key,
as scripts build a function's attributes (`make_node("DictAttrs", Primitive=1)`)."""

from __future__ import annotations

from typing import Any

from xtvm.ir.errors import TVMError


class DictAttrs(dict[str, Any]):
    """A function's attributes: a dict whose keys also read as attributes (`attrs.Primitive`)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"DictAttrs has no key '{name}'") from None


def make_node(type_key: str, **fields: Any) -> DictAttrs:
    """The node of type `type_key` with `fields`; only attribute dictionaries are made here
    (xtvm's IR nodes have Python constructors, not a reflection registry)."""
    if type_key == "DictAttrs":
        return DictAttrs(fields)
    raise TVMError(
        f"make_node: type '{type_key}' cannot be made by key in xtvm (only 'DictAttrs'); "
        "use the node's Python constructor"
    )
