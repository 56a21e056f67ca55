"""TVM's runtime containers as Python values: `ShapeTuple`, `String` and `Map`, which
executors return (`get_input_info`) and scripts test for with `isinstance`. Each is the
built-in type it stands for, so it compares and hashes as that type."""

from __future__ import annotations

import abc
from typing import Any

__all__ = ["ADT", "Map", "ShapeTuple", "String"]


class ADT(abc.ABC):  # noqa: B024  (a type to test values against, nothing to implement)
    """A tuple value (TVM's `ADT`): executors return a relay tuple as a Python tuple, so
    `isinstance(value, ADT)` holds for tuples."""


ADT.register(tuple)


class ShapeTuple(tuple[int, ...]):
    """A shape: a tuple of ints (TVM's `ShapeTuple([1, 3])`)."""

    def __new__(cls, shape: Any = ()) -> ShapeTuple:
        dims = tuple(int(getattr(d, "value", d)) for d in shape)
        if any(d < 0 for d in dims):
            raise ValueError(f"ShapeTuple: negative dimension in {list(dims)}")
        return super().__new__(cls, dims)


class String(str):
    """A string (TVM's runtime `String`)."""

    __slots__ = ()


class Map(dict[Any, Any]):
    """A mapping (TVM's `Map`): a dict."""
