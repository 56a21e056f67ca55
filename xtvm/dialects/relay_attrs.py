"""Relay op properties read as Python values: TVM's `call.attrs` (`attrs.strides`).

Integer lists read as tuples, strings as str, bools as bool, numbers as int or float.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, i1
from xdsl.ir import Attribute


def python_value(attr: Attribute) -> object:
    """A property as a plain Python value: int lists as tuples, strings, numbers."""
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr) and attr.type == i1:
        return bool(attr.value.data)
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.value.data
    return attr


class Attrs(Mapping[str, Any]):
    """A call's attributes: read as Python values by key or by name (`attrs.strides`).

    The xDSL properties behind them are `properties`; integer lists read as tuples, strings as
    str, numbers as int or float.
    """

    def __init__(self, properties: Mapping[str, Attribute] | None = None) -> None:
        self._properties = dict(properties or {})

    @property
    def properties(self) -> dict[str, Attribute]:
        return dict(self._properties)

    def __getitem__(self, key: str) -> Any:
        return python_value(self._properties[key])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            known = ", ".join(sorted(self._properties)) or "none"
            raise AttributeError(f"no attribute '{name}' (attributes: {known})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._properties)

    def __len__(self) -> int:
        return len(self._properties)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attrs) and self._properties == other._properties

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._properties)))

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}={self[k]!r}" for k in self._properties) + "}"
