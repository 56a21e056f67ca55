"""The tir dialect: TVM's loop-level IR, what a te schedule lowers to.

A tir kernel is a `func.func` over buffers (memrefs); element accesses are `memref.load`/
`memref.store`, scalar arithmetic is arith/math, guards are `scf.if`, intermediate buffers
are `memref.alloc` whose memory space names their scope (`memref<16xf32, "shared">`). tir
adds only what upstream dialects do not say:

- `tir.for`: a loop with a *kind* (serial, parallel, vectorized, unrolled, or bound to a GPU
  thread axis), which later passes and backends honour;

      tir.for %i = %c0 to %c64 parallel {
        ...
      }
      tir.for %tx = %c0 to %c32 thread_binding "threadIdx.x" {
        ...
      }

- `tir.call_extern`: a call of a function the target provides (math library, accelerator
  intrinsic), by name: `%y = tir.call_extern "expf"(%x) : (f32) -> f32`.

Vector code is upstream's `vector` dialect; a read whose lanes step along one outer dimension
of a buffer (a transposing copy, a gather) is a `vector.transfer_read` with the permutation map
`(d0, ..., dn) -> (dk)` (`transposed_read`, `read_dimension`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lark import Token
from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    IndexType,
    StringAttr,
    SymbolRefAttr,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from xtvm.ir.context import SyntaxExtension
from xtvm.ir.parser import IRBuilder, PendingArg, decode_string

LOOP_KINDS = ("serial", "parallel", "vectorized", "unrolled", "thread_binding")
GPU_AXES = (
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
)
THREAD_TAGS = (
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread",
)

# The largest step between lanes that tir-vectorize turns into one contiguous load and a
# shuffle; default schedules (xtvm/topi) keep strided axes within it.
MAX_LOAD_STRIDE = 4


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The end of a `tir.for` body (elided in the custom syntax)."""

    name = "tir.yield"
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ForOp)))
    assembly_format = "attr-dict"


@irdl_op_definition
class ForOp(IRDLOperation):
    """A loop over [lower_bound, upper_bound) with unit step and a kind."""

    name = "tir.for"
    lower_bound = operand_def(IndexType)
    upper_bound = operand_def(IndexType)
    kind = prop_def(StringAttr)
    thread = opt_prop_def(StringAttr)
    annotations = opt_prop_def(DictionaryAttr)
    body = region_def("single_block")
    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        lower_bound: SSAValue | Operation,
        upper_bound: SSAValue | Operation,
        kind: str = "serial",
        thread: str | None = None,
        body: Region | None = None,
        annotations: dict[str, Attribute] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"kind": StringAttr(kind)}
        if thread is not None:
            props["thread"] = StringAttr(thread)
        if annotations:
            props["annotations"] = DictionaryAttr(annotations)
        super().__init__(
            operands=[lower_bound, upper_bound],
            properties=props,
            regions=[body or Region(Block(arg_types=[IndexType()]))],
        )

    @property
    def induction_variable(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in LOOP_KINDS:
            raise VerifyException(
                f"'{self.name}' op kind must be one of {', '.join(LOOP_KINDS)}, got '{kind}'"
            )
        if (kind == "thread_binding") != (self.thread is not None):
            raise VerifyException(
                f"'{self.name}' op names a thread exactly when its kind is thread_binding"
            )
        if self.thread is not None and self.thread.data not in THREAD_TAGS:
            raise VerifyException(
                f"'{self.name}' op thread must be one of {', '.join(THREAD_TAGS)}, "
                f"got '{self.thread.data}'"
            )
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException(f"'{self.name}' op body must take one index argument")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.induction_variable)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lower_bound)
        printer.print_string(" to ")
        printer.print_ssa_value(self.upper_bound)
        printer.print_string(" " + self.kind.data)
        if self.thread is not None:
            printer.print_string(" ")
            printer.print_attribute(self.thread)
        printer.print_string(" ")
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_empty_block=False,
            print_block_terminators=False,
        )
        if self.annotations is not None:
            printer.print_string(" annotations ")
            printer.print_attribute(self.annotations)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class CallExternOp(IRDLOperation):
    """A call of a function the target provides, by name (libm, an accelerator intrinsic).

    With `packed` (TVM's `tvm.tir.call_packed`), the callee is a function registered with
    `tvm.register_func`, called through the packed ABI: `packed` lists the arguments' types
    as written (buffers keep their shapes when later passes flatten them; `"handle"` for a raw
    data pointer), the call returns an i32 status (0 for success).
    """

    name = "tir.call_extern"
    callee = prop_def(StringAttr)
    packed = opt_prop_def(ArrayAttr)
    args = var_operand_def()
    res = var_result_def()
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        callee: str,
        args: list[SSAValue],
        result_types: list[Attribute] | None = None,
        packed: Sequence[Attribute] | None = None,
    ) -> None:
        properties: dict[str, Attribute] = {"callee": StringAttr(callee)}
        if packed is not None:
            properties["packed"] = ArrayAttr(packed)
        super().__init__(operands=[args], result_types=[result_types or []], properties=properties)

    def verify_(self) -> None:
        if len(self.res) > 1:
            raise VerifyException(f"'{self.name}' op returns at most one value")
        if self.packed is not None and len(self.packed.data) != len(self.args):
            raise VerifyException(f"'{self.name}' op packed lists one type per argument")


@irdl_op_definition
class ThreadIndexOp(IRDLOperation):
    """The index of the running GPU block or thread along one axis, inside a kernel.

    `%tx = tir.thread_index "threadIdx.x"`: what a thread-bound loop's variable becomes once
    tir-split-host-device outlines the loop nest into a kernel run once per thread.
    """

    name = "tir.thread_index"
    thread = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$thread attr-dict"

    def __init__(self, thread: str) -> None:
        super().__init__(properties={"thread": StringAttr(thread)}, result_types=[IndexType()])

    def verify_(self) -> None:
        if self.thread.data not in GPU_AXES:
            raise VerifyException(
                f"'{self.name}' op thread must be one of {', '.join(GPU_AXES)}, "
                f"got '{self.thread.data}'"
            )


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """Run a kernel function once per thread of a grid of blocks (x, y, z extents each).

    `tir.launch @k(%A, %s) blocks(%c4, %c1, %c1) threads(%c32, %c1, %c1) : memref<64xf32>, f32`
    """

    name = "tir.launch"
    kernel = prop_def(SymbolRefAttr)
    args = var_operand_def()
    blocks = var_operand_def(IndexType)
    threads = var_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$kernel `(` $args `)` `blocks` `(` $blocks `)` `threads` `(` $threads `)` "
        "attr-dict (`:` type($args)^)?"
    )

    def __init__(
        self,
        kernel: str,
        args: Sequence[SSAValue],
        blocks: Sequence[SSAValue],
        threads: Sequence[SSAValue],
    ) -> None:
        super().__init__(
            operands=[args, blocks, threads], properties={"kernel": SymbolRefAttr(kernel)}
        )

    def verify_(self) -> None:
        for what, dims in (("blocks", self.blocks), ("threads", self.threads)):
            if not 1 <= len(dims) <= 3:
                raise VerifyException(
                    f"'{self.name}' op takes 1 to 3 {what} extents (x, y, z), got {len(dims)}"
                )
        callee = SymbolTable.lookup_symbol(self, self.kernel)
        if callee is None:
            raise VerifyException(
                f"'{self.name}' op kernel @{self.kernel.string_value()} is not defined"
            )
        kind = getattr(callee, "function_type", None)
        if kind is None or list(kind.inputs) != list(self.args.types) or kind.outputs.data:
            raise VerifyException(
                f"'{self.name}' op argument types ({', '.join(map(str, self.args.types))}) "
                f"do not match kernel @{self.kernel.string_value()} of type {kind}"
            )


def transposed_read(
    buffer: SSAValue, indices: Sequence[SSAValue], dim: int, padding: SSAValue, typ: VectorType
) -> vector.TransferReadOp:
    """`typ`'s lanes read from `buffer` at `indices`, stepping by one along dimension `dim`."""
    rank = len(indices)
    return vector.TransferReadOp(
        buffer,
        indices,
        padding,
        typ,
        ArrayAttr([BoolAttr(True, i1)]),
        AffineMapAttr(AffineMap(rank, 0, (AffineExpr.dimension(dim),))),
    )


def read_dimension(op: vector.TransferReadOp) -> int | None:
    """The dimension an unmasked `transposed_read` steps along; None for other reads."""
    results = op.permutation_map.data.results
    if len(results) != 1 or op.mask is not None:
        return None
    return getattr(results[0], "position", None)


# ---------------------------------------------------------------------------------------------
# Custom syntax of tir.for (its printer above writes exactly what these rules read)


def tir_for_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, indvar, lower, upper, kind, thread = children
    index = IndexType()
    if str(kind) not in LOOP_KINDS:
        raise b.error(kind, f"unknown loop kind '{kind}' (kinds: {', '.join(LOOP_KINDS)})")
    b.set_entry_args([PendingArg(indvar, index)])
    return {
        "token": token,
        "bounds": (b.resolve(lower, index), b.resolve(upper, index)),
        "kind": str(kind),
        "thread": None if thread is None else decode_string(thread),
    }


def tir_for(b: IRBuilder, children: list[Any]) -> Operation:
    head, region, annotations, attrs = children
    if region is None or not region.blocks:
        region = Region(Block(arg_types=[IndexType()]))
    block = region.blocks[-1]
    if not isinstance(block.last_op, YieldOp):
        block.add_op(YieldOp())
    op = ForOp(*head["bounds"], kind=head["kind"], thread=head["thread"], body=region)
    if annotations:
        op.properties["annotations"] = DictionaryAttr(dict(annotations))
    op.attributes.update(attrs or {})
    token: Token = head["token"]
    return b.record(op, token)


TIR_SYNTAX = SyntaxExtension.from_file(
    Path(__file__).with_name("tir.lark"),
    {"tir_for_head": tir_for_head, "tir_for": tir_for},
    custom_ops=[ForOp],
)

Tir = Dialect("tir", [ForOp, YieldOp, CallExternOp, ThreadIndexOp, LaunchOp], [])
