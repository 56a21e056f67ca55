"""TVM's `relay.backend`: the `Runtime` and `Executor` descriptions `relay.build` takes, and
`te_compiler`, the handle on its cache of lowered functions."""

from xtvm.api.relay.backend import te_compiler
from xtvm.api.relay.backend.runtime import Executor, Runtime

__all__ = ["Executor", "Runtime", "te_compiler"]
