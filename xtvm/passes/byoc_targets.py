"""Which relay ops an external codegen claims: TVM's `target.<codegen>` op attributes.

Bring-your-own-codegen starts with a table: for each codegen, the ops it can run, each with a
predicate that may look at the op's attributes and argument types. TVM keeps the table as op
attributes (`tvm.ir.register_op_attr("nn.conv2d", "target.dnnl", fn)`); so do we, keyed by TVM's
op name (`relay.nn.conv2d` is `"nn.conv2d"`) and by codegen name. `relay-annotate-target` asks
`supported_targets` which codegens claim an op.

A predicate receives an `OpView` (`.attrs`, `.args` with `.shape` and `.dtype`, `.op` for the
xDSL op itself) and returns whether the codegen takes that op. The module registers one demo
codegen, `ccompiler`, claiming add, subtract and multiply as TVM's C codegen example does
(`offload_to_ccompiler` in `xtvm.backends.external.ccompiler` lets it claim more).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import overload

from xdsl.dialects.builtin import (
    TensorType,
    TupleType,
)
from xdsl.ir import Attribute, Operation

from xtvm.dialects.relay_attrs import Attrs
from xtvm.ir.numpy_types import numpy_dtype

TARGET_PREFIX = "target."


@dataclass(frozen=True)
class ArgInfo:
    """The type of one argument or result: a tensor's shape and dtype, or a tuple's fields."""

    shape: tuple[int, ...] = ()
    dtype: str = ""
    fields: tuple[ArgInfo, ...] = ()

    @property
    def checked_type(self) -> ArgInfo:
        """Itself, so that TVM's spelling `arg.checked_type.shape` works too."""
        return self

    @staticmethod
    def of(typ: Attribute) -> ArgInfo:
        if isinstance(typ, TupleType):
            return ArgInfo(fields=tuple(ArgInfo.of(t) for t in typ.types.data))
        if isinstance(typ, TensorType):
            return ArgInfo(tuple(typ.get_shape()), str(numpy_dtype(typ.get_element_type())))
        return ArgInfo()


@dataclass(frozen=True)
class OpView:
    """What a predicate sees of a relay op: TVM's `Call` node, `expr.attrs` and `expr.args`."""

    op: Operation
    attrs: Attrs = field(init=False)
    args: tuple[ArgInfo, ...] = field(init=False)
    results: tuple[ArgInfo, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attrs", Attrs(self.op.properties))
        object.__setattr__(self, "args", tuple(ArgInfo.of(t) for t in self.op.operand_types))
        object.__setattr__(self, "results", tuple(ArgInfo.of(t) for t in self.op.result_types))

    @property
    def checked_type(self) -> ArgInfo:
        """The type of the op's (first) result, as TVM's `call.checked_type`."""
        return self.results[0]

    @property
    def op_name(self) -> str:
        return tvm_op_name(self.op)


Predicate = Callable[[OpView], bool]

# codegen -> TVM op name -> predicate. Which codegen wins an op claimed by several is decided by
# the order of `targets` given to the annotator, not by registration order.
_TABLE: dict[str, dict[str, Predicate]] = {}


def tvm_op_name(op: Operation) -> str:
    """TVM's name of a relay op: `relay.nn.conv2d` is `nn.conv2d`."""
    return op.name.removeprefix("relay.")


def codegen_of(attr_key: str) -> str:
    if not attr_key.startswith(TARGET_PREFIX) or len(attr_key) == len(TARGET_PREFIX):
        raise ValueError(f"op attribute key must be 'target.<codegen>', got '{attr_key}'")
    return attr_key.removeprefix(TARGET_PREFIX)


@overload
def register_op_attr(op_name: str, attr_key: str) -> Callable[[Predicate], Predicate]: ...
@overload
def register_op_attr(op_name: str, attr_key: str, value: Predicate | bool) -> None: ...
def register_op_attr(
    op_name: str, attr_key: str, value: Predicate | bool | None = None
) -> Callable[[Predicate], Predicate] | None:
    """Register that codegen `attr_key` ("target.<codegen>") supports op `op_name`.

    `value` is a predicate on an `OpView` or a constant bool. Without `value` this is a
    decorator, as `@tvm.ir.register_op_attr("nn.conv2d", "target.dnnl")` is. A second
    registration of the same op and codegen replaces the first.
    """
    codegen = codegen_of(attr_key)

    def register(predicate: Predicate | bool) -> Predicate:
        check: Predicate = (lambda _op: predicate) if isinstance(predicate, bool) else predicate
        _TABLE.setdefault(codegen, {})[op_name] = check
        return check

    if value is None:
        return register
    register(value)
    return None


def unregister_target(codegen: str) -> None:
    """Forget every op registered for `codegen` (tests register and clean up their own)."""
    _TABLE.pop(codegen, None)


def registered_targets() -> list[str]:
    return list(_TABLE)


def is_supported(op: Operation, codegen: str) -> bool:
    """Whether `codegen` claims `op`: a predicate is registered for its name and accepts it."""
    predicate = _TABLE.get(codegen, {}).get(tvm_op_name(op))
    return predicate is not None and bool(predicate(OpView(op)))


def supported_targets(op: Operation, targets: Sequence[str] | None = None) -> list[str]:
    """The codegens among `targets` (default: all registered ones) that claim `op`, in order."""
    return [t for t in (_TABLE if targets is None else targets) if is_supported(op, t)]


# TVM's C codegen example (`src/relay/backend/contrib/codegen_c`): elementwise arithmetic. The
# codegen itself (xtvm.backends.external.ccompiler) lowers any op with a TOPI strategy;
# `offload_to_ccompiler` there widens this table.
CCOMPILER_DEFAULT_OPS = ("add", "subtract", "multiply")
for _name in CCOMPILER_DEFAULT_OPS:
    register_op_attr(_name, "target.ccompiler", True)
