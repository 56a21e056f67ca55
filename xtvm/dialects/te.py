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

`te.tensorize "C" {axis = "i.inner", intrin = "gemm8x8x8"}` computes the loops from `i.inner`
inward with a tensor intrinsic (tir-tensorize replaces them with its call).

`te.compute_at "B" {parent = "C", axis = "i.outer"}` computes stage B inside a loop of its
consumer C, over the region of B that C reads there.

The cache primitives create stages, so they take the cached tensor as an operand and define
the cache's tensor (TVM's `s.cache_read` returns it too); later primitives name the new stage:

    %AA = te.cache_read %A {name = "A.shared", scope = "shared", readers = ["C"]} : tensor<8xf32>
    %CC = te.cache_write %C {name = "C.local", scope = "local"} : tensor<8xf32>

The cache stage of `cache_read` has axes `ax0, ax1, ...` (TVM's names); that of `cache_write`
has the written stage's axes suffixed `.c` and its reduce axes, and the written stage becomes
a copy out of it with its own axis names. A scope is TVM's storage scope (`global`, `shared`,
`local`, `warp`, optionally tagged: `shared.dyn`); targets add theirs with
`register_memory_scope`.

Symbolic shapes: a tensor type may have `?` dimensions. A kernel binds each shape variable to
an extent of one of its tensor arguments (`%n = te.dim %A, 0 : tensor<?x4xf32>`, TVM's buffer
binding) or takes it as an `index` argument. A te.compute with `?` dimensions lists their
extents as operands, in order; so does a te.reduce for its extents written -1:

    %B = te.compute "B" (%n) { ... } {axis_names = ["i", "j"]} : tensor<?x4xf32>
    %s = te.reduce "sum" (%m) { ... } {extents = array<i64: -1>, axis_names = ["k"]} : f32
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedRegionSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import HasParent, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects.tir import THREAD_TAGS  # te.bind names the thread axes tir loops bind to

COMBINERS = ("sum", "max", "min", "prod")
DYNAMIC_EXTENT = -1  # a te.reduce extent given by a size operand
# TVM's storage scopes; a scope may carry a tag after a dot (`shared.dyn`, `local.fragment`).
MEMORY_SCOPES: set[str] = {"global", "shared", "local", "warp"}


def register_memory_scope(scope: str) -> None:
    """Let cache stages use `scope` (and `scope.<tag>`): how a target declares its memories."""
    MEMORY_SCOPES.add(scope)


def is_memory_scope(scope: str) -> bool:
    """Whether `scope` is a known scope or a tagged form of one."""
    return any(scope == known or scope.startswith(known + ".") for known in MEMORY_SCOPES)


def names_attr(names: Sequence[str]) -> ArrayAttr[StringAttr]:
    return ArrayAttr([StringAttr(n) for n in names])


def names_of(attr: ArrayAttr[StringAttr]) -> list[str]:
    return [a.data for a in attr.data]


def body_block(arg_count: int) -> Block:
    return Block(arg_types=[IndexType()] * arg_count)


def check_body(
    op: Operation, region: Region, names: ArrayAttr[StringAttr], what: str, values: int = 1
) -> None:
    """A single block with one `index` argument per named axis, yielding `values` scalars."""
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
    if not isinstance(last, YieldOp) or len(last.values) != values:
        count = "one value" if values == 1 else f"{values} values"
        raise VerifyException(f"'{op.name}' op body must end with a te.yield of {count}")


# On a te kernel: for each argument of its tir kernel, which of (the te kernel's arguments,
# then its results) it is, when that is not the same order (`tvm.build(s, [A, C, n])`).
ARG_ORDER_ATTR = "te.arg_order"


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
    sizes = var_operand_def(IndexType)
    result = result_def(TensorType)
    stage_name = prop_def(StringAttr, prop_name="name")
    axis_names = prop_def(ArrayAttr[StringAttr])
    tag = opt_prop_def(StringAttr)
    body = region_def("single_block")

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$name (` ` `(` $sizes^ `)`)? $body attr-dict `:` type($result)"

    def __init__(
        self,
        name: str,
        result_type: TensorType,
        axis_names: Sequence[str],
        body: Region | None = None,
        tag: str | None = None,
        sizes: Sequence[SSAValue] = (),
    ) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name),
            "axis_names": names_attr(axis_names),
        }
        if tag:
            props["tag"] = StringAttr(tag)
        super().__init__(
            operands=[list(sizes)],
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
        dynamic = sum(1 for d in typ.get_shape() if d < 0)
        if len(self.sizes) != dynamic:
            raise VerifyException(
                f"'{self.name}' op has {len(self.sizes)} size operands for the {dynamic} "
                f"dynamic dimensions of {typ}"
            )
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
class ScanOp(IRDLOperation):
    """A recurrence over the first dimension (TVM's `te.scan`): each result `k` is
    `init_k` for the first rows, then row `t` is row `t` of the body's `k`-th yielded tensor.

    The body's block arguments are the states (the results as the body reads them, rows
    before `t` only); its te.compute ops are the stages computed once per `t` (the update
    stages and those between the states and them), whose first axis is `t`.

        %S = "te.scan"(%init, %m, %n) ({
        ^bb0(%state: tensor<?x?xf32>):
          %u = te.compute "update" (%m, %n) { ... te.read %state[%t1, %i] ... } : ...
          te.yield %u : tensor<?x?xf32>
        }) {name = "scan", operandSegmentSizes = array<i32: 1, 2>} : (...) -> tensor<?x?xf32>
    """

    name = "te.scan"
    inits = var_operand_def(TensorType)
    sizes = var_operand_def(IndexType)
    outs = var_result_def(TensorType)
    stage_name = prop_def(StringAttr, prop_name="name")
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(),)

    def __init__(
        self,
        name: str,
        inits: Sequence[SSAValue],
        result_types: Sequence[TensorType],
        sizes: Sequence[SSAValue] = (),
    ) -> None:
        super().__init__(
            operands=[list(inits), list(sizes)],
            result_types=[list(result_types)],
            properties={"name": StringAttr(name)},
            regions=[Region(Block(arg_types=list(result_types)))],
        )

    def verify_(self) -> None:
        block = self.body.block
        if [a.type for a in block.args] != [r.type for r in self.outs]:
            raise VerifyException(f"'{self.name}' op body must take one state per result")
        if len(self.inits) != len(self.outs):
            raise VerifyException(f"'{self.name}' op needs one init per result")
        last = block.last_op
        if not isinstance(last, YieldOp) or len(last.values) != len(self.outs):
            raise VerifyException(
                f"'{self.name}' op body must end with a te.yield of one update per result"
            )
        dynamic = sum(1 for r in self.outs for d in r.type.get_shape() if d < 0)  # type: ignore[attr-defined]
        if len(self.sizes) != dynamic:
            raise VerifyException(
                f"'{self.name}' op has {len(self.sizes)} size operands for {dynamic} dynamic "
                "dimensions of its results"
            )


@irdl_op_definition
class ExternOp(IRDLOperation):
    """Tensors computed by statements (TVM's `te.extern`): the body receives one buffer per
    input, then one per result, and writes the results' buffers, usually by calling an
    extern or packed function.

        %C = "te.extern"(%A) ({
        ^bb0(%a: memref<8xf32>, %c: memref<8xf32>):
          tir.call_extern "my_func"(%a, %c) {packed = [...]} : (...) -> i32
          te.yield
        }) {name = "C"} : (tensor<8xf32>) -> tensor<8xf32>
    """

    name = "te.extern"
    ins = var_operand_def(TensorType)
    outs = var_result_def(TensorType)
    stage_name = prop_def(StringAttr, prop_name="name")
    body = region_def("single_block")

    def __init__(
        self,
        name: str,
        ins: Sequence[SSAValue],
        result_types: Sequence[TensorType],
        buffer_types: Sequence[Attribute],
    ) -> None:
        super().__init__(
            operands=[list(ins)],
            result_types=[list(result_types)],
            properties={"name": StringAttr(name)},
            regions=[Region(Block(arg_types=list(buffer_types)))],
        )

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != len(self.ins) + len(self.outs):
            raise VerifyException(f"'{self.name}' op body must take one buffer per tensor")
        for arg, tensor in zip(args, [*self.ins, *self.outs], strict=True):
            typ, want = arg.type, tensor.type
            assert isinstance(want, TensorType)
            if not isinstance(typ, MemRefType) or (
                typ.get_shape() != want.get_shape() or typ.element_type != want.element_type
            ):
                raise VerifyException(
                    f"'{self.name}' op buffer {typ} does not match its tensor {want}"
                )
        if any(d < 0 for r in self.outs for d in r.type.get_shape()):  # type: ignore[attr-defined]
            raise VerifyException(f"'{self.name}' op results must have static shapes")
        last = self.body.block.last_op
        if not isinstance(last, YieldOp) or last.values:
            raise VerifyException(f"'{self.name}' op body must end with an empty te.yield")


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """A commutative reduction over reduce axes: `sum(body(k) for k in range(extent))`."""

    name = "te.reduce"
    sizes = var_operand_def(IndexType)
    result = result_def()
    combiner = prop_def(StringAttr)
    extents = prop_def(DenseArrayBase)
    axis_names = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")
    combine = opt_region_def("single_block")
    """A custom reducer's (`te.comm_reducer`): `^bb0(%lhs, %rhs)` yields their combination."""
    identity = opt_prop_def(FloatAttr | IntegerAttr | ArrayAttr)
    """A custom reducer's identity element, a constant of the result type; of a tuple
    reducer (an argmax), one constant per value reduced together."""
    component = opt_prop_def(IntegerAttr)
    """Of a tuple reducer: which of the values reduced together is the result."""
    init = opt_region_def("single_block")
    """The value the reduction starts from in place of the identity (TVM's `init=`): a block
    of the enclosing compute's axes yielding one value of the result type."""
    traits = traits_def(HasParent(ComputeOp))

    irdl_options = (ParsePropInAttrDict(), AttrSizedRegionSegments(as_property=True))
    assembly_format = (
        "$combiner (` ` `(` $sizes^ `)`)? $body (`combine` $combine^)? (`init` $init^)? "
        "attr-dict `:` type($result)"
    )

    def __init__(
        self,
        combiner: str,
        extents: Sequence[int],
        axis_names: Sequence[str],
        result_type: Attribute,
        body: Region | None = None,
        sizes: Sequence[SSAValue] = (),
        combine: Region | None = None,
        identity: FloatAttr | IntegerAttr | ArrayAttr | None = None,
        component: int | None = None,
        init: Region | None = None,
    ) -> None:
        """`extents` holds DYNAMIC_EXTENT where the extent is the next of `sizes`; a custom
        `combiner` (any name but the built-in ones) has a `combine` region and an identity.

        A tuple reducer's body yields every value reduced together, its combine region takes
        the accumulated values then the new ones and yields the combinations, `identity` is
        an array of one constant per value and `component` picks the result among them."""
        super().__init__(
            operands=[list(sizes)],
            result_types=[result_type],
            properties={
                "combiner": StringAttr(combiner),
                "extents": DenseArrayBase.from_list(i64, list(extents)),
                "axis_names": names_attr(axis_names),
                **({} if identity is None else {"identity": identity}),
                **({} if component is None else {"component": IntegerAttr(component, i64)}),
            },
            regions=[
                body or Region(body_block(len(axis_names))),
                [] if combine is None else combine,
                [] if init is None else init,
            ],
        )

    @property
    def is_custom(self) -> bool:
        """Whether the combiner is a `te.comm_reducer`'s, given by the op's own regions."""
        return self.combine is not None

    @property
    def identities(self) -> list[Attribute]:
        """The identity of each value reduced together (one, but of a tuple reducer)."""
        if isinstance(self.identity, ArrayAttr):
            return list(self.identity.data)
        return [] if self.identity is None else [self.identity]

    @property
    def component_index(self) -> int:
        return 0 if self.component is None else self.component.value.data

    @property
    def value_types(self) -> list[Attribute]:
        """The types of the values reduced together."""
        if isinstance(self.identity, ArrayAttr):
            return [a.type for a in self.identity.data]  # type: ignore[attr-defined]
        return [self.result.type]

    @property
    def extent_values(self) -> tuple[int, ...]:
        return tuple(self.extents.get_values())  # type: ignore[arg-type]

    def verify_(self) -> None:
        if (self.combine is None) != (self.identity is None):
            raise VerifyException(
                f"'{self.name}' op needs both a combine region and an identity, or neither"
            )
        if self.combine is not None and self.identity is not None:
            self.verify_custom(self.combine, self.identity)
        elif self.combiner.data not in COMBINERS:
            raise VerifyException(
                f"'{self.name}' op combiner must be one of {', '.join(COMBINERS)} (or have "
                f"combine and identity regions), got '{self.combiner.data}'"
            )
        check_body(self, self.body, self.axis_names, "reduce axis", len(self.value_types))
        if len(self.extent_values) != len(self.axis_names.data):
            raise VerifyException(f"'{self.name}' op needs one extent per reduce axis")
        # An empty reduction (extent 0) is the combiner's identity, as in numpy and ONNX.
        if any(e < 0 and e != DYNAMIC_EXTENT for e in self.extent_values):
            raise VerifyException(f"'{self.name}' op extents must be non-negative (or -1: dynamic)")
        dynamic = self.extent_values.count(DYNAMIC_EXTENT)
        if len(self.sizes) != dynamic:
            raise VerifyException(
                f"'{self.name}' op has {len(self.sizes)} size operands for {dynamic} dynamic "
                "extents"
            )
        if self.init is not None and self.init.blocks:
            last = self.init.block.last_op
            if (
                len(self.value_types) != 1
                or self.init.block.args
                or not isinstance(last, YieldOp)
                or [v.type for v in last.values] != [self.result.type]
            ):
                raise VerifyException(
                    f"'{self.name}' op init region must take no arguments and yield one "
                    f"{self.result.type} (a reduction of one value)"
                )
        yielded = [v.type for v in self.body.block.last_op.operands]  # type: ignore[union-attr]
        if yielded != self.value_types:
            raise VerifyException(
                f"'{self.name}' op body yields ({', '.join(map(str, yielded))}), the values "
                f"reduced are ({', '.join(map(str, self.value_types))})"
            )

    def verify_custom(self, combine: Region, identity: Attribute) -> None:
        if isinstance(identity, ArrayAttr) and (
            not identity.data or not all(isinstance(a, FloatAttr | IntegerAttr) for a in identity)
        ):
            raise VerifyException(
                f"'{self.name}' op identity must be constants (one per value reduced)"
            )
        elems = self.value_types
        if isinstance(identity, ArrayAttr):
            if not 0 <= self.component_index < len(elems):
                raise VerifyException(
                    f"'{self.name}' op component {self.component_index} is not one of its "
                    f"{len(elems)} values"
                )
            if self.result.type != elems[self.component_index]:
                raise VerifyException(
                    f"'{self.name}' op result has type {self.result.type}, its component is "
                    f"{elems[self.component_index]}"
                )
        elif self.component is not None:
            raise VerifyException(f"'{self.name}' op has a component but reduces one value")
        elif identity.type != self.result.type:  # type: ignore[attr-defined]
            raise VerifyException(
                f"'{self.name}' op identity has type {identity.type}, the result is "  # type: ignore[attr-defined]
                f"{self.result.type}"
            )
        args = [a.type for a in combine.block.args]
        if args != [*elems, *elems]:
            raise VerifyException(
                f"'{self.name}' op combine region takes ({', '.join(map(str, elems * 2))}), "
                f"got ({', '.join(map(str, args))})"
            )
        last = combine.block.last_op
        if not isinstance(last, YieldOp) or [v.type for v in last.operands] != elems:
            raise VerifyException(
                f"'{self.name}' op combine region must yield ({', '.join(map(str, elems))})"
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


@irdl_op_definition
class DimOp(IRDLOperation):
    """The extent of dimension `dim` of a tensor: binds a shape variable (TVM's buffer binding).

    %n = te.dim %A, 0 : tensor<?x4xf32>
    """

    name = "te.dim"
    tensor = operand_def(TensorType)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)
    assembly_format = "$tensor `,` $dim attr-dict `:` type($tensor)"

    def __init__(self, tensor: SSAValue | Operation, dim: int) -> None:
        super().__init__(
            operands=[tensor], result_types=[IndexType()], properties={"dim": IntegerAttr(dim, i64)}
        )

    def verify_(self) -> None:
        typ = self.tensor.type
        assert isinstance(typ, TensorType)
        dim = self.dim.value.data
        if not 0 <= dim < typ.get_num_dims():
            raise VerifyException(
                f"'{self.name}' op dimension {dim} is out of range for {typ.get_num_dims()}-d {typ}"
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


@irdl_op_definition
class ComputeAtOp(PrimitiveOp):
    """Compute the stage inside loop `axis` of stage `parent`, over the region it needs there."""

    name = "te.compute_at"
    parent_stage = prop_def(StringAttr, prop_name="parent")
    axis = prop_def(StringAttr)


@irdl_op_definition
class StorageAlignOp(PrimitiveOp):
    """Pad the stride of the buffer dimension of root axis `axis` to `factor * k + offset`."""

    name = "te.storage_align"
    axis = prop_def(StringAttr)
    factor = prop_def(IntegerAttr)
    offset = prop_def(IntegerAttr)

    def verify_(self) -> None:
        factor, offset = self.factor.value.data, self.offset.value.data
        if factor < 1 or not 0 <= offset < factor:
            raise VerifyException(
                f"'{self.name}' op needs factor >= 1 and 0 <= offset < factor, got factor "
                f"{factor}, offset {offset}"
            )


@irdl_op_definition
class PragmaOp(PrimitiveOp):
    """Annotate the loop of `axis` with `pragma_<key> = value` (1 when no value is given)."""

    name = "te.pragma"
    axis = prop_def(StringAttr)
    key = prop_def(StringAttr)
    value = opt_prop_def(Attribute)


@irdl_op_definition
class TensorizeOp(PrimitiveOp):
    """Compute the loops of `axis` and those inside it with tensor intrinsic `intrin` (a name
    of the tensor-intrinsic registry, `te.register_tensor_intrin`)."""

    name = "te.tensorize"
    axis = prop_def(StringAttr)
    intrin = prop_def(StringAttr)


@irdl_op_definition
class SetScopeOp(PrimitiveOp):
    """Keep the stage's buffer in storage scope `scope` (TVM's `s[B].set_scope`)."""

    name = "te.set_scope"
    scope = prop_def(StringAttr)

    def verify_(self) -> None:
        check_scope(self, self.scope.data)


def check_scope(op: Operation, scope: str) -> None:
    if not is_memory_scope(scope):
        known = ", ".join(sorted(MEMORY_SCOPES))
        raise VerifyException(
            f"'{op.name}' op scope '{scope}' is not a known storage scope ({known}); a target "
            "declares its own with te.register_memory_scope"
        )


@irdl_op_definition
class CacheReadOp(IRDLOperation):
    """A stage `name` copying `tensor` into a `scope` buffer, read by `readers` instead of it.

    %AA = te.cache_read %A {name = "A.shared", scope = "shared", readers = ["C"]} : tensor<8xf32>
    """

    name = "te.cache_read"
    T: ClassVar = VarConstraint("T", base(TensorType))
    tensor = operand_def(T)
    result = result_def(T)
    stage_name = prop_def(StringAttr, prop_name="name")
    scope = prop_def(StringAttr)
    readers = prop_def(ArrayAttr[StringAttr])
    traits = traits_def(HasParent(ScheduleOp))

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tensor attr-dict `:` type($tensor)"

    def __init__(
        self, tensor: SSAValue | Operation, name: str, scope: str, readers: Sequence[str]
    ) -> None:
        value = SSAValue.get(tensor)
        super().__init__(
            operands=[value],
            result_types=[value.type],
            properties={
                "name": StringAttr(name),
                "scope": StringAttr(scope),
                "readers": names_attr(readers),
            },
        )

    def verify_(self) -> None:
        check_scope(self, self.scope.data)
        if not self.readers.data:
            raise VerifyException(f"'{self.name}' op needs at least one reader")


@irdl_op_definition
class CacheWriteOp(IRDLOperation):
    """A stage `name` computing `tensor`'s stage into a `scope` buffer; that stage copies it out.

    %CC = te.cache_write %C {name = "C.local", scope = "local"} : tensor<8xf32>
    """

    name = "te.cache_write"
    T: ClassVar = VarConstraint("T", base(TensorType))
    tensor = operand_def(T)
    result = result_def(T)
    stage_name = prop_def(StringAttr, prop_name="name")
    scope = prop_def(StringAttr)
    traits = traits_def(HasParent(ScheduleOp))

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tensor attr-dict `:` type($tensor)"

    def __init__(self, tensor: SSAValue | Operation, name: str, scope: str) -> None:
        value = SSAValue.get(tensor)
        super().__init__(
            operands=[value],
            result_types=[value.type],
            properties={"name": StringAttr(name), "scope": StringAttr(scope)},
        )

    def verify_(self) -> None:
        check_scope(self, self.scope.data)


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
        ScanOp,
        ExternOp,
        ReduceOp,
        ReadOp,
        YieldOp,
        DimOp,
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
        ComputeAtOp,
        StorageAlignOp,
        PragmaOp,
        TensorizeOp,
        SetScopeOp,
        CacheReadOp,
        CacheWriteOp,
    ],
    [],
)
