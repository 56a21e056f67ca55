"""TVM's `relay.vm`: xtvm has no Relay virtual machine; each name says so with a `TVMError`.

Programs with control flow and recursion run with `relay.create_executor` (the relay
interpreter evaluates only the branch an `If` takes); dataflow programs compile with
`relay.build` and run on the graph executor.
"""

from __future__ import annotations

from typing import NoReturn

from xtvm.ir.errors import TVMError

MESSAGE = (
    "xtvm has no Relay VM: run the module with relay.create_executor(kind, mod).evaluate() "
    "or compile it with relay.build and run it with the graph executor"
)


def compile(*args: object, **kwargs: object) -> NoReturn:
    raise TVMError(MESSAGE)


class VirtualMachine:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TVMError(MESSAGE)


class Executable:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TVMError(MESSAGE)
