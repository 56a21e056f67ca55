"""TVM's `relay.backend.te_compiler`: `get()` is the compiler that lowers relay functions to
kernels, and `get().clear()` forgets what it lowered so that the next build lowers afresh.

`relay.build` in xtvm keeps no lowered functions between builds (each build lowers its module
from the start; compiled objects are cached on disk by their content, which cannot go stale),
so there is nothing held in memory for `clear` to drop: after it, as in TVM, the next build
lowers every function again.
"""

from __future__ import annotations


class TECompiler:
    """The lowering of relay functions to kernels, as `relay.build` runs it."""

    def clear(self) -> None:
        """Forget lowered functions: xtvm keeps none between builds, so none are left."""


_COMPILER = TECompiler()


def get() -> TECompiler:
    """The compiler `relay.build` uses."""
    return _COMPILER
