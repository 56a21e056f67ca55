"""tiny_accel: an accelerator added to xtvm without editing xtvm.

Everything about the hardware is data or lives here: `tiny.mlir` describes the target (memories,
DMA, a 4x4x4 matmul intrinsic), `tiny_sim.c` simulates it, and this module registers them with
one hook that both loaders call:

    xtvm-opt --load-plugin examples/plugins/tiny_accel/tiny_accel/__init__.py ...
    pip install examples/plugins/tiny_accel       # then found through the `xtvm.plugins`
                                                  # entry point group, no flag needed

The hook loads the target (its scratchpads become storage scopes, its intrinsic a tensor
intrinsic), claims relay ops for `relay-annotate-target{targets=tiny}` with predicates, as
TVM's `target.<codegen>` op attributes do, and adds a small dialect: `tiny.fence`, a barrier
after which results of the accelerator are visible to the host.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition

from xtvm.passes.byoc_targets import OpView, register_op_attr

if TYPE_CHECKING:
    from xtvm.tools.opt import Plugins

HERE = Path(__file__).resolve().parent
TARGET_FILE = HERE / "tiny.mlir"
SIMULATOR = HERE / "tiny_sim.c"
BLOCK = 4


@irdl_op_definition
class FenceOp(IRDLOperation):
    """Wait until the accelerator has finished what was issued.

    `tiny.fence`
    """

    name = "tiny.fence"
    assembly_format = "attr-dict"


Tiny = Dialect("tiny", [FenceOp])


def dense_fits(call: OpView) -> bool:
    """nn.dense on f32 whose sizes are whole 4x4 tiles."""
    data, weight = call.args
    shapes = (*data.shape, *weight.shape)
    return data.dtype == "float32" and all(d % BLOCK == 0 for d in shapes)


def elementwise_f32(call: OpView) -> bool:
    return call.args[0].dtype == "float32"


def xtvm_plugin(registry: Plugins) -> None:
    """The hook xtvm calls: the target, the dialect and the op predicates."""
    registry.load_target(TARGET_FILE)
    registry.load_dialect(Tiny, None)
    register_op_attr("nn.dense", "target.tiny", dense_fits)
    register_op_attr("nn.relu", "target.tiny", elementwise_f32)
