"""TVM's `relay.testing.temp_op_attr.TempOpAttr`: an operator attribute set for a `with` block
and restored after it.

Two kinds of attribute exist in xtvm: a BYOC codegen's support predicate (`target.<codegen>`),
and the legalization hooks (`FTVMLegalize`, `FTVMQnnLegalize`). xtvm legalizes no operator for
its target, which is what a hook returning None asks for; so such a hook is accepted when it
returns None, and any other is refused with a TVMError rather than ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any

from xtvm.ir.errors import TVMError
from xtvm.passes import byoc_targets

LEGALIZE_KEYS = ("FTVMLegalize", "FTVMQnnLegalize")


class TempOpAttr:
    """`with TempOpAttr("nn.conv2d", "target.dnnl", predicate): ...`"""

    def __init__(self, op_name: str, attr_key: str, attr_value: Callable[..., Any] | bool) -> None:
        self.op_name = op_name
        self.attr_key = attr_key
        self.attr_value = attr_value
        self.saved: Any = None

    def __enter__(self) -> TempOpAttr:
        if self.attr_key in LEGALIZE_KEYS:
            hook = self.attr_value
            if not callable(hook) or hook(None, [], []) is not None:
                raise TVMError(
                    f"{self.attr_key} of {self.op_name}: xtvm legalizes no operator, so only a "
                    "hook that returns None (keep the op) can be set"
                )
            return self
        if not self.attr_key.startswith("target."):
            raise TVMError(f"TempOpAttr: unknown operator attribute '{self.attr_key}'")
        table = byoc_targets._TABLE.get(byoc_targets.codegen_of(self.attr_key), {})
        self.saved = table.get(self.op_name)
        byoc_targets.register_op_attr(self.op_name, self.attr_key, self.attr_value)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.attr_key in LEGALIZE_KEYS:
            return
        table = byoc_targets._TABLE.setdefault(byoc_targets.codegen_of(self.attr_key), {})
        if self.saved is None:
            table.pop(self.op_name, None)
        else:
            table[self.op_name] = self.saved
