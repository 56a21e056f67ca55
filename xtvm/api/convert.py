"""`tvm.runtime.convert`: Python values as TVM objects, as TVM's FFI converts arguments.

Numbers become `IntImm`/`FloatImm` (int32, float32, bool), lists and tuples lists of
converted values, dicts dicts; expressions, tensors, strings and other objects stay as they
are (xtvm has no `Array`/`Map`/`String` containers: Python's own serve).
"""

from __future__ import annotations

from xtvm.te.expr import const


def convert(value: object) -> object:
    if isinstance(value, bool | int | float):
        return const(value)
    if isinstance(value, list | tuple):
        return [convert(v) for v in value]
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    return value


convert_to_object = convert
