"""TVM's `relay.op.op`: the operator registry. xtvm's operators are declared in the relay
dialect; `register` adds one from Python (TVM's custom-op tests do), with a type relation
(`add_type_rel`) so that programs using it type-check. Such an operator has no
implementation: compiling or running it is a clear error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xtvm.api.relay.expr import Op
from xtvm.dialects.relay import OpPattern
from xtvm.ir.errors import TVMError

__all__ = [
    "OpPattern",
    "get",
    "register",
    "register_alter_op_layout",
    "register_compute",
    "register_pattern",
    "register_stateful",
    "register_strategy",
]


def get(op_name: str) -> Op:
    """The operator named `op_name`."""
    return Op.get(op_name)


def register(op_name: str, describe: str = "") -> Op:
    """A new operator named `op_name`; TVMError if the name is taken."""
    try:
        Op.get(op_name)
    except ValueError:
        op = Op(op_name, None)
        op.description = describe
        Op._registry[op_name] = op
        return op
    raise TVMError(f"Operator {op_name} is registered before")


def _python_op(op_name: str) -> Op:
    op = Op.get(op_name)
    if not op.registered_from_python:
        raise TVMError(f"operator {op_name} is declared in the relay dialect, not from Python")
    return op


def register_pattern(op_name: str, pattern: int, level: int = 10) -> None:
    """Record the fusion pattern of a Python-registered operator (it is never fused)."""
    _python_op(op_name).pattern = pattern  # type: ignore[attr-defined]


def register_stateful(op_name: str, stateful: bool, level: int = 10) -> None:
    _python_op(op_name).stateful = stateful  # type: ignore[attr-defined]


def _no_kernels(kind: str) -> Callable[..., Any]:
    def refuse(op_name: str, *args: Any, **kwargs: Any) -> Any:
        raise TVMError(
            f"register_{kind}({op_name!r}): xtvm's kernels come from its TOPI table; an operator "
            "registered from Python type-checks but has no implementation"
        )

    return refuse


register_compute = _no_kernels("compute")
register_strategy = _no_kernels("strategy")


def register_alter_op_layout(
    op_name: str, alter_layout: Callable[..., Any] | None = None, level: int = 10
) -> Any:
    """TVM's hook for AlterOpLayout. xtvm's AlterOpLayout packs conv2d/dense kernels itself
    and calls no Python function, so registering one is refused rather than ignored."""
    raise TVMError(
        f"register_alter_op_layout({op_name!r}): xtvm's AlterOpLayout lays kernels out itself "
        "and applies no Python alter-layout function"
    )


def unregister_new(before: set[str]) -> None:
    """Forget the operators registered from Python since `before` (names), so that tests
    leave no registrations behind."""
    for name in set(Op._registry) - before:
        if Op._registry[name].registered_from_python:
            del Op._registry[name]


def registered_names() -> set[str]:
    Op.get("add")  # the dialect's operators are listed on first use
    return set(Op._registry)
