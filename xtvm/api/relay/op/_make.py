"""TVM's `relay.op._make`: the operator constructors by name (`_make.add(x, y)`); in xtvm
these are the Python builders of `relay.op`."""

from __future__ import annotations

from typing import Any

from xtvm.api.relay.op import annotation, image, nn, reduce, tensor, transform, vision


def __getattr__(name: str) -> Any:
    for namespace in (tensor, transform, reduce, nn, image, vision, annotation):
        builder = getattr(namespace, name, None)
        if callable(builder) and not name.startswith("_"):
            return builder
    raise AttributeError(f"relay.op._make has no constructor '{name}'")
