"""TVM's `Runtime("cpp")` and `Executor("graph")`: which runtime and executor a build is for.

xtvm builds for one C++-free runtime and the graph (or AOT) executor, so these only record the
choice; `relay.build` accepts them as TVM's does. An unknown name is refused, as TVM refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xtvm.ir.errors import TVMError

RUNTIMES = ("cpp", "crt")
EXECUTORS = ("graph", "aot")


class _Described:
    """A name from `known` and its options, compared and printed as TVM's are."""

    kind = ""
    known: tuple[str, ...] = ()

    def __init__(self, name: str, options: Mapping[str, Any] | None = None) -> None:
        if name not in self.known:
            raise TVMError(
                f"{self.kind} '{name}' is not registered (known: {', '.join(self.known)})"
            )
        self.name = name
        self.attrs = dict(options or {})

    def __getitem__(self, key: str) -> Any:
        return self.attrs[key]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.name, self.attrs) == (other.name, other.attrs)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.attrs))))

    def __repr__(self) -> str:
        options = "".join(f" --{k}={v}" for k, v in self.attrs.items())
        return f"{self.name}{options}"


class Runtime(_Described):
    """`Runtime("cpp")` or `Runtime("crt", {"system-lib": True})`."""

    kind = "Runtime"
    known = RUNTIMES


class Executor(_Described):
    """`Executor("graph")` or `Executor("aot")`."""

    kind = "Executor"
    known = EXECUTORS
