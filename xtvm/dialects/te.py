"""The te dialect: TVM's tensor expressions, *what* to compute, and schedules, *how*.

A te kernel is a `func.func` over tensors. Each `te.compute` defines one tensor element-wise:
its region receives one `index` per dimension and yields the element, reading other tensors
with `te.read`; scalar arithmetic is arith/math. A reduction is a `te.reduce` yielded by the
compute body (TVM's rule: a reduction is the whole body), whose region receives the reduce
axes and yields the value to combine.

    %C = te.compute "C" {
    ^bb0(%i: index, %j: index):
      %s = te.reduce "sum" {
      ^bb0(%k: index):
        %a = te.read %A[%i, %k] : tensor<64x32xf32> -> f32
        %b = te.read %B[%k, %j] : tensor<32x48xf32> -> f32
        %p = arith.mulf %a, %b : f32
        te.yield %p : f32
      } {axis_names = ["k"], extents = array<i64: 32>} : f32
      te.yield %s : f32
    } {axis_names = ["i", "j"]} : tensor<64x48xf32>

Schedules are IR too: a `te.schedule` region in the kernel holds primitives naming stages
(the compute's name) and axes (the compute's `axis_names`, then the names primitives create),
applied in order by `convert-te-to-tir`:

    te.schedule {
      te.split "C" {axis = "i", factor = 8 : i64, outer = "i.outer", inner = "i.inner"}
      te.reorder "C" {order = ["i.outer", "j", "i.inner"]}
      te.parallel "C" {axis = "i.outer"}
    }
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import HasParent, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

COMBINERS = ("sum", "max", "min", "prod")
THREAD_TAGS = (
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread",
)


def names_attr(names: Sequence[str]) -> ArrayAttr[StringAttr]:
    return ArrayAttr([StringAttr(n) for n in names])


def names_of(attr: ArrayAttr[StringAttr]) -> list[str]:
    return [a.data for a in attr.data]


def body_block(arg_count: int) -> Block:
    return Block(arg_types=[IndexType()] * arg_count)


def check_body(op: Operation, region: Region, names: ArrayAttr[StringAttr], what: str) -> None:
    """A single block with one `index` argument per named axis, yielding one scalar."""
    if len(region.blocks) != 1:
        raise VerifyException(f"'{op.name}' op body must have one block")
    block = region.block
    axis_names = names_of(names)
    if len(block.args) != len(axis_names):
        raise VerifyException(
            f"'{op.name}' op has {len(axis_names)} {what} names but its body takes "
            f"{len(block.args)} arguments"
        )
    if any(not isinstance(a.type, IndexType) for a in block.args):
        raise VerifyException(f"'{op.name}' op body arguments must be of type index")
    if len(set(axis_names)) != len(axis_names):
        raise VerifyException(f"'{op.name}' op {what} names must be unique: {axis_names}")
    last = block.last_op
    if not isinstance(last, YieldOp) or len(last.values) != 1:
        raise VerifyException(f"'{op.name}' op body must end with a te.yield of one value")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The value a te.compute or te.reduce body produces."""

    name = "te.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation) -> None:
        super().__init__(operands=[list(values)])


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """A tensor defined element by element: `C[i, j] = body(i, j)`."""

    name = "te.compute"
    result = result_def(TensorType)
    stage_name = prop_def(StringAttr, prop_name="name")
    axis_names = prop_def(ArrayAttr[StringAttr])
    tag = opt_prop_def(StringAttr)
    body = region_def("single_block")

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$name $body attr-dict `:` type($result)"

    def __init__(
        self,
        name: str,
        result_type: TensorType,
        axis_names: Sequence[str],
        body: Region | None = None,
        tag: str | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name),
            "axis_names": names_attr(axis_names),
        }
        if tag:
            props["tag"] = StringAttr(tag)
        super().__init__(
            result_types=[result_type],
            properties=props,
            regions=[body or Region(body_block(len(axis_names)))],
        )

    @property
    def axes(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    def reduction(self) -> ReduceOp | None:
        """The te.reduce the body yields, if this is a reduction."""
        last = self.body.block.last_op
        if isinstance(last, YieldOp) and last.values:
            owner = last.values[0].owner
            if isinstance(owner, ReduceOp):
                return owner
        return None

    def verify_(self) -> None:
        typ = self.result.type
        assert isinstance(typ, TensorType)
        if not typ.has_static_shape():
            raise VerifyException(f"'{self.name}' op result must have a static shape, got {typ}")
        check_body(self, self.body, self.axis_names, "axis")
        if len(self.axis_names.data) != typ.get_num_dims():
            raise VerifyException(
                f"'{self.name}' op has {len(self.axis_names.data)} axes for a "
                f"{typ.get_num_dims()}-d result"
            )
        value = self.body.block.last_op.operands[0]  # type: ignore[union-attr]
        if value.type != typ.get_element_type():
            raise VerifyException(
                f"'{self.name}' op body yields {value.type}, the result element type is "
                f"{typ.get_element_type()}"
            )
        for op in self.body.block.ops:
            if isinstance(op, ReduceOp) and op is not self.reduction():
                raise VerifyException(
                    f"'{self.name}' op: a te.reduce must be the value the body yields"
                )


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """A commutative reduction over reduce axes: `sum(body(k) for k in range(extent))`."""

    name = "te.reduce"
    result = result_def()
    combiner = prop_def(StringAttr)
    extents = prop_def(DenseArrayBase)
    axis_names = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")
    traits = traits_def(HasParent(ComputeOp))

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$combiner $body attr-dict `:` type($result)"

    def __init__(
        self,
        combiner: str,
        extents: Sequence[int],
        axis_names: Sequence[str],
        result_type: Attribute,
        body: Region | None = None,
    ) -> None:
        super().__init__(
            result_types=[result_type],
            properties={
                "combiner": StringAttr(combiner),
                "extents": DenseArrayBase.from_list(i64, list(extents)),
                "axis_names": names_attr(axis_names),
            },
            regions=[body or Region(body_block(len(axis_names)))],
        )

    @property
    def extent_values(self) -> tuple[int, ...]:
        return tuple(self.extents.get_values())  # type: ignore[arg-type]

    def verify_(self) -> None:
        if self.combiner.data not in COMBINERS:
            raise VerifyException(
                f"'{self.name}' op combiner must be one of {', '.join(COMBINERS)}, "
                f"got '{self.combiner.data}'"
            )
        check_body(self, self.body, self.axis_names, "reduce axis")
        if len(self.extent_values) != len(self.axis_names.data):
            raise VerifyException(f"'{self.name}' op needs one extent per reduce axis")
        if any(e < 1 for e in self.extent_values):
            raise VerifyException(f"'{self.name}' op extents must be positive")
        value = self.body.block.last_op.operands[0]  # type: ignore[union-attr]
        if value.type != self.result.type:
            raise VerifyException(
                f"'{self.name}' op body yields {value.type}, the result is {self.result.type}"
            )


@irdl_op_definition
class ReadOp(IRDLOperation):
    """One element of a tensor: `A[i, k]`."""

    name = "te.read"
    tensor = operand_def(TensorType)
    indices = var_operand_def(IndexType)
    result = result_def()
    assembly_format = "$tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($result)"

    def __init__(self, tensor: SSAValue | Operation, indices: Sequence[SSAValue]) -> None:
        value = SSAValue.get(tensor)
        assert isinstance(value.type, TensorType)
        super().__init__(
            operands=[value, list(indices)], result_types=[value.type.get_element_type()]
        )

    def verify_(self) -> None:
        typ = self.tensor.type
        assert isinstance(typ, TensorType)
        if len(self.indices) != typ.get_num_dims():
            raise VerifyException(
                f"'{self.name}' op reads a {typ.get_num_dims()}-d tensor with "
                f"{len(self.indices)} indices"
            )
        if self.result.type != typ.get_element_type():
            raise VerifyException(
                f"'{self.name}' op result type {self.result.type} differs from the element "
                f"type {typ.get_element_type()}"
            )


# ---------------------------------------------------------------------------------------------
# Schedules


@irdl_op_definition
class ScheduleOp(IRDLOperation):
    """The schedule of the kernel it sits in: primitives applied in order."""

    name = "te.schedule"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    assembly_format = "$body attr-dict"

    def __init__(self, primitives: Sequence[Operation] = ()) -> None:
        super().__init__(regions=[Region(Block(list(primitives)))])


class PrimitiveOp(IRDLOperation):
    """A schedule primitive acting on stage `stage` (a te.compute's name)."""

    stage = prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$stage attr-dict"
    traits = traits_def(HasParent(ScheduleOp))

    def __init__(self, stage: str, **props: Attribute) -> None:
        super().__init__(properties={"stage": StringAttr(stage), **props})


@irdl_op_definition
class SplitOp(PrimitiveOp):
    """Split `axis` into `outer` and `inner` by an inner `factor` or an outer `nparts`."""

    name = "te.split"
    axis = prop_def(StringAttr)
    factor = opt_prop_def(IntegerAttr)
    nparts = opt_prop_def(IntegerAttr)
    outer = prop_def(StringAttr)
    inner = prop_def(StringAttr)

    def verify_(self) -> None:
        if (self.factor is None) == (self.nparts is None):
            raise VerifyException(f"'{self.name}' op needs exactly one of factor and nparts")
        amount = self.factor or self.nparts
        assert amount is not None
        if amount.value.data < 1:
            raise VerifyException(f"'{self.name}' op factor/nparts must be positive")


@irdl_op_definition
class ReorderOp(PrimitiveOp):
    """Put axes in the given relative order (outermost first)."""

    name = "te.reorder"
    order = prop_def(ArrayAttr[StringAttr])


@irdl_op_definition
class FuseOp(PrimitiveOp):
    """Fuse consecutive axes (outermost first) into one axis `fused`."""

    name = "te.fuse"
    axes = prop_def(ArrayAttr[StringAttr])
    fused = prop_def(StringAttr)


class AxisAnnotationOp(PrimitiveOp):
    """Mark the loop of `axis` with a kind."""

    KIND: ClassVar[str]
    axis = prop_def(StringAttr)


@irdl_op_definition
class ParallelOp(AxisAnnotationOp):
    name = "te.parallel"
    KIND: ClassVar[str] = "parallel"


@irdl_op_definition
class VectorizeOp(AxisAnnotationOp):
    name = "te.vectorize"
    KIND: ClassVar[str] = "vectorized"


@irdl_op_definition
class UnrollOp(AxisAnnotationOp):
    name = "te.unroll"
    KIND: ClassVar[str] = "unrolled"


@irdl_op_definition
class BindOp(PrimitiveOp):
    """Bind the loop of `axis` to a GPU thread axis."""

    name = "te.bind"
    axis = prop_def(StringAttr)
    thread = prop_def(StringAttr)

    def verify_(self) -> None:
        if self.thread.data not in THREAD_TAGS:
            raise VerifyException(
                f"'{self.name}' op thread must be one of {', '.join(THREAD_TAGS)}, "
                f"got '{self.thread.data}'"
            )


@irdl_op_definition
class ComputeInlineOp(PrimitiveOp):
    """Inline the stage into its consumers: it gets no buffer and no loops."""

    name = "te.compute_inline"


@irdl_op_definition
class ComputeRootOp(PrimitiveOp):
    """Compute the stage at the root, in its own loop nest (the default)."""

    name = "te.compute_root"


def properties_of(**values: object) -> Mapping[str, Attribute]:
    """Python values as primitive properties: str -> StringAttr, int -> i64, lists of str."""
    props: dict[str, Attribute] = {}
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, str):
            props[key] = StringAttr(value)
        elif isinstance(value, int):
            props[key] = IntegerAttr(value, i64)
        elif isinstance(value, list | tuple):
            props[key] = names_attr([str(v) for v in value])
        else:
            raise TypeError(f"no property form for {value!r}")
    return props


Te = Dialect(
    "te",
    [
        # Compute definitions
        ComputeOp,
        ReduceOp,
        ReadOp,
        YieldOp,
        # Schedules
        ScheduleOp,
        SplitOp,
        ReorderOp,
        FuseOp,
        ParallelOp,
        VectorizeOp,
        UnrollOp,
        BindOp,
        ComputeInlineOp,
        ComputeRootOp,
    ],
    [],
)
