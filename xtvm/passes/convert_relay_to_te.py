"""`convert-relay-to-te`: every primitive relay function becomes one scheduled te kernel.

TVM's LowerTE: the ops of a fused function (`func.func private @fused_... attributes
{primitive}`, made by relay-fuse-ops) are composed as te computes through the operator
strategy table (`xtvm.topi.strategy`, one TOPI compute per relay op class), then scheduled
for the target: injective stages that are not outputs are inlined into their consumers
(`compute_inline`), and every other stage gets the schedule its op's strategy gives for the
target (a register tile for conv2d and dense, parallel outer loops for reductions and
injective stages on llvm; block/thread bindings on cuda). An op with no strategy row, or an
element type te cannot compute in (bf16), is a located error ("failed to legalize operation
'relay.foo'"), never skipped. Unsigned tensors (`tensor<4xui8>`) are te "uint8" tensors.

The kernel keeps the function's name and takes its tensors; what the rest of the flow needs:

- Tuple-typed arguments and results are flattened into tensors (a kernel returns tensors
  only); call sites unpack arguments with `relay.tuple_get_item` and rebuild results with
  `relay.tuple`.
- Constants: a splat `relay.const` (one value everywhere) is read as that constant, with no
  buffer. Any other `relay.const`, and any `relay.param` inside the function, is hoisted: it
  becomes a kernel argument after the function's own, and each call site passes a copy of it,
  as TVM's graph executor lifts constants of lowered functions into params.
- A kernel output that is an input or a constant gets a copy stage (kernels return computed
  tensors).
- Functions that are structurally identical (same ops, properties and types; hoisted constants
  may differ in value) share one kernel, as TVM's compile-engine cache does: later call sites
  call the first kernel and the duplicate function goes.
- A relay op outside any primitive function (e.g. `@main` without relay-fuse-ops) is first
  outlined into a primitive function of its own; one whose results nobody reads goes.
  Functions claimed by an external `compiler` are left alone.

`@main` stays a relay function: params, constants, tuples and `func.call`s of the kernels,
whose types are those of the te kernels. It is the graph a graph executor runs (TVM's main
calling its lowered functions): one node per call, a buffer per call result of its tensor
type, each kernel called with its inputs then its output buffers once convert-te-to-tir has
made it destination-passing (convert-te-to-tir then rewrites the calls to pass buffers;
`relay.build` takes `@main` as the graph before that and lowers the kernels on their own).

    func.func private @fused_add_exp(%x: tensor<4xf32>) -> tensor<4xf32> attributes {primitive}
      { relay.add %x, %one ... relay.exp ... }

becomes

    func.func private @fused_add_exp(%x: tensor<4xf32>) -> tensor<4xf32> {
      %T_add = te.compute "T_add" {...}     // inlined into T_exp
      %T_exp = te.compute "T_exp" {...}
      te.schedule { te.compute_inline "T_add"  te.vectorize "T_exp" {axis = "i0"} }
      func.return %T_exp : tensor<4xf32>
    }
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, TupleType, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm import te
from xtvm.dialects import relay
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.ir.verify import located_error
from xtvm.passes.relay_fuse_ops import fused_name, outline_group, sort_block, unique_name
from xtvm.te.expr import ComputeOp
from xtvm.te.lower import sanitize, schedule_to_module
from xtvm.te.schedule import post_order_ops
from xtvm.te.stmt import ExternOp
from xtvm.topi import elementwise
from xtvm.topi.dispatch import schedule_tuned, schedule_tuned_kernel
from xtvm.topi.schedule import DEFAULT, TARGETS, buffered_transposes
from xtvm.topi.strategy import STRUCTURAL, Strategy, Value, strategy_for
from xtvm.topi.tensor import Filled, TensorLike

# ---------------------------------------------------------------------------------------------
# Types


def leaf_types(typ: Attribute) -> list[TensorType]:
    """The tensor types of a tensor or (nested) tuple type, in order."""
    if isinstance(typ, TupleType):
        return [leaf for field_type in typ.types.data for leaf in leaf_types(field_type)]
    assert isinstance(typ, TensorType)
    return [typ]


def te_dtype(typ: TensorType, where: Operation) -> str:
    """The te dtype of a tensor type's elements ("uint8" for ui8); bf16 elements are errors."""
    elem = typ.get_element_type()
    try:
        dtype = numpy_dtype(elem)
    except ValueError:
        dtype = None
    if dtype is None:
        raise located_error(
            where, f"failed to legalize operation '{where.name}': no te lowering for {elem}"
        )
    return "bool" if dtype.kind == "b" else dtype.name


def leaves(value: Value) -> list[TensorLike]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


# ---------------------------------------------------------------------------------------------
# Which constants a function hoists, and when two functions make the same kernel


SPLAT_BLOCK = 1 << 16  # elements of a constant compared at a time


def splat_value(op: relay.ConstOp) -> float | int | bool | None:
    """The one value of a constant holding it everywhere, else None."""
    # a view, compared a block at a time: a 154 MB weight is not copied, nor compared whole
    flat = relay.numpy_from_dense(op.value, copy=False).reshape(-1)
    if flat.size == 0:
        return None
    first = flat[0]
    for start in range(0, flat.size, SPLAT_BLOCK):
        if not bool(np.all(flat[start : start + SPLAT_BLOCK] == first)):
            return None
    return first.item()


@dataclass
class Plan:
    """What lowering a primitive function needs before any te is built.

    `key` is equal for functions that lower to the same kernel; `hoisted` are the constants and
    params that become kernel arguments, in order; `splats` the constants read as a value.
    """

    key: Hashable
    hoisted: list[Operation] = field(default_factory=list)
    splats: dict[Operation, float | int | bool] = field(default_factory=dict)


def hashable(attr: Attribute) -> Hashable:
    """`attr` itself, or its text where it holds a list (a tuple type built from one)."""
    try:
        hash(attr)
    except TypeError:
        return str(attr)
    return attr


def plan(function: func.FuncOp) -> Plan:
    """The constants `function` hoists and reads as values, and its key: its ops in order,
    each with its properties, result types and operands, where arguments and hoisted
    constants are numbered alike as the kernel's arguments (so a weight that is a constant in
    one function and an argument of another still gives one kernel)."""
    block = function.body.block
    result = Plan(key=None)
    for op in block.ops:
        if isinstance(op, relay.ConstOp) and (value := splat_value(op)) is not None:
            result.splats[op] = value
        elif isinstance(op, relay.ConstOp | relay.ParamOp):
            result.hoisted.append(op)
    kernel_args = [*block.args, *(op.results[0] for op in result.hoisted)]
    numbering: dict[SSAValue, Hashable] = {v: ("arg", k) for k, v in enumerate(kernel_args)}
    entries: list[Hashable] = [tuple(hashable(v.type) for v in kernel_args)]
    for op in block.ops:
        if op in result.splats:
            detail: Hashable = ("splat", hashable(op.results[0].type), result.splats[op])
        elif op.results and op.results[0] in numbering:
            continue  # hoisted: an argument
        else:
            properties = tuple((k, hashable(v)) for k, v in sorted(op.properties.items()))
            detail = (op.name, properties, tuple(hashable(t) for t in op.result_types))
        entries.append((detail, tuple(numbering[v] for v in op.operands)))
        for k, r in enumerate(op.results):
            numbering[r] = ("op", len(entries), k)
    result.key = tuple(entries)
    return result


# ---------------------------------------------------------------------------------------------
# One primitive function as a te kernel


@dataclass
class KernelBuilder:
    """Composes one primitive function's ops as te computes and schedules them."""

    function: func.FuncOp
    plan: Plan
    target: str
    arguments: list[te.Tensor] = field(default_factory=list)
    hoisted: dict[Operation, te.Tensor] = field(default_factory=dict)
    owners: dict[int, Strategy] = field(default_factory=dict)  # id(te ComputeOp) -> its op's
    names: set[str] = field(default_factory=set)  # placeholder and stage names taken

    def build(self) -> func.FuncOp:
        """The te kernel: arguments (tuples flattened), then hoisted constants; results
        flattened; named as the function and private."""
        block = self.function.body.block
        for op in block.ops:  # element types first, so that errors name the op
            for typ in [*op.operand_types, *op.result_types]:
                for leaf in leaf_types(typ) if isinstance(typ, TensorType | TupleType) else []:
                    te_dtype(leaf, op)
        env: dict[SSAValue, Value] = {}
        for k, arg in enumerate(block.args):
            env[arg] = self.placeholders(arg.type, arg.name_hint or f"p{k}")
        returned: list[Value] = []
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                returned = [env[v] for v in op.operands]
                continue
            env[op.results[0]] = self.lower(op, [env[v] for v in op.operands])
        outputs = self.outputs([leaf for v in returned for leaf in leaves(v)])
        if not outputs:
            name = self.function.sym_name.data
            raise located_error(
                self.function, f"primitive function '@{name}' returns no tensor: nothing to compute"
            )
        self.name_stages(outputs)
        args = [*self.arguments, *(self.hoisted[op] for op in self.plan.hoisted)]
        name = self.function.sym_name.data
        schedule = schedule_tuned_kernel(
            name,
            args,
            outputs,
            self.target,
            lambda: self.schedule(outputs),
            len(self.plan.hoisted),
        )
        if schedule is None:
            schedule = self.schedule(outputs)
        module = schedule_to_module(schedule, [*args, *outputs], name)
        kernel = module.body.block.first_op
        assert isinstance(kernel, func.FuncOp)
        kernel.detach()
        kernel.sym_visibility = StringAttr("private")
        kernel.location = self.function.location
        return kernel

    def placeholder(self, typ: TensorType, hint: str, where: Operation) -> te.Tensor:
        name = unique_name(sanitize(hint), self.names)
        return te.placeholder(typ.get_shape(), te_dtype(typ, where), name)

    def placeholders(self, typ: Attribute, hint: str) -> Value:
        """The placeholders of an argument: one, or a tuple of them for a tuple argument."""
        if isinstance(typ, TupleType):
            return tuple(self.placeholders(t, f"{hint}_{k}") for k, t in enumerate(typ.types.data))
        assert isinstance(typ, TensorType)
        tensor = self.placeholder(typ, hint, self.function)
        self.arguments.append(tensor)
        return tensor

    def lower(self, op: Operation, inputs: Sequence[Value]) -> Value:
        """The te value of `op`'s result, given the te values of its operands."""
        if op in self.plan.splats:
            typ = op.results[0].type
            assert isinstance(typ, TensorType)
            return Filled(tuple(typ.get_shape()), te_dtype(typ, op), self.plan.splats[op])
        if isinstance(op, relay.ConstOp | relay.ParamOp):
            hint = op.param_name.data if isinstance(op, relay.ParamOp) else "constant"
            tensor = self.placeholder(op.result.type, op.result.name_hint or hint, op)  # type: ignore[arg-type]
            self.hoisted[op] = tensor
            return tensor
        if isinstance(op, relay.TupleOp):
            return tuple(inputs)
        if isinstance(op, relay.TupleGetItemOp):
            return inputs[0][op.index.value.data]  # type: ignore[index]
        strategy = strategy_for(op) if isinstance(op, relay.RelayOp) else None
        if strategy is None or len(op.results) != 1:
            raise located_error(op, f"failed to legalize operation '{op.name}'")
        tensors = [v for v in inputs if not isinstance(v, tuple)]
        if len(tensors) != len(inputs):
            raise located_error(op, f"failed to legalize operation '{op.name}': tuple operand")
        value = strategy.compute(op, tensors)  # type: ignore[arg-type]
        self.check(op, value)
        self.claim(value, strategy)
        return value

    def check(self, op: Operation, value: Value) -> None:
        """The compute's results have the op's result types (a TOPI bug otherwise)."""
        expected = leaf_types(op.results[0].type)
        got = leaves(value)
        for typ, tensor in zip(expected, got, strict=False):
            shape = tuple(int(d) for d in tensor.shape)  # type: ignore[arg-type]
            if shape != typ.get_shape() or tensor.dtype != te_dtype(typ, op):
                raise located_error(
                    op,
                    f"internal error: the compute of '{op.name}' gives {tensor.dtype}{list(shape)}"
                    f", the op's type is {typ}",
                )
        if len(expected) != len(got):
            raise located_error(op, f"internal error: the compute of '{op.name}' has wrong arity")

    def claim(self, value: Value, strategy: Strategy) -> None:
        """Record `strategy` as the owner of the stages its compute just made."""
        pending = [t.op for t in leaves(value) if isinstance(t, te.Tensor)]
        while pending:
            compute = pending.pop()
            if not isinstance(compute, ComputeOp) or id(compute) in self.owners:
                continue
            self.owners[id(compute)] = strategy
            pending.extend(t.op for t in compute.input_tensors)

    def outputs(self, returned: Sequence[TensorLike]) -> list[te.Tensor]:
        """The kernel's outputs: computed tensors, each once (copies where needed)."""
        outputs: list[te.Tensor] = []
        for value in returned:
            computed = isinstance(value, te.Tensor) and isinstance(value.op, ComputeOp)
            if not computed or any(value is o for o in outputs):
                value = elementwise.copy(value)
            outputs.append(value)  # type: ignore[arg-type]
        return outputs

    def name_stages(self, outputs: Sequence[te.Tensor]) -> None:
        """Make stage names unique in the kernel: `T_add`, `T_add_1`, ..."""
        for op in post_order_ops([t.op for t in outputs]):
            if isinstance(op, ComputeOp):
                op.name = unique_name(op.name, self.names)

    def schedule(self, outputs: Sequence[te.Tensor]) -> te.Schedule:
        """Inline injective intermediates; schedule every other stage by its op's strategy."""
        s = te.create_schedule([t.op for t in outputs])
        output_ops = {id(t.op) for t in outputs}
        # an extern stage reads whole buffers: it and what it reads stay at the root
        buffered = {id(stage.op) for stage in s.stages if isinstance(stage.op, ExternOp)}
        buffered |= {
            id(t.op)
            for stage in s.stages
            if isinstance(stage.op, ExternOp)
            for t in stage.op.input_tensors
        }
        if self.target.split()[0] == "llvm":
            buffered |= {id(t.op) for t in buffered_transposes(s.stages)}
        for stage in s.stages:
            kept = id(stage.op) in output_ops or id(stage.op) in buffered
            if not kept and not stage.op.reduce_axis:
                stage.compute_inline()
        for stage in s.stages:
            if isinstance(stage.op, ExternOp):  # its statements are its schedule
                continue
            if stage.attach == "inline" or schedule_tuned(s, stage.op.output(0), self.target):
                continue
            owner = self.owners.get(id(stage.op))
            schedules = owner.schedules if owner is not None else DEFAULT
            schedules[self.target.split()[0]](s, stage.op.output(0))
        return s


# ---------------------------------------------------------------------------------------------
# Call sites


def unpacked(value: SSAValue, call: func.CallOp) -> list[SSAValue]:
    """The tensors of `value`, tuple fields taken out before `call`."""
    if not isinstance(value.type, TupleType):
        return [value]
    fields: list[SSAValue] = []
    for k in range(len(value.type.types.data)):
        item = relay.TupleGetItemOp(value, k)
        Rewriter.insert_op(item, InsertPoint.before(call))
        fields.extend(unpacked(item.result, call))
    return fields


def repacked(typ: Attribute, results: list[SSAValue], after: list[Operation]) -> SSAValue:
    """The value of type `typ` rebuilt from the next of `results`; tuples made are appended
    to `after` in dependency order."""
    if not isinstance(typ, TupleType):
        return results.pop(0)
    fields = [repacked(t, results, after) for t in typ.types.data]
    # `typ` itself, not an equal type built anew: func.return compares types exactly.
    tuple_op = relay.TupleOp.create(operands=fields, result_types=[typ])
    after.append(tuple_op)
    return tuple_op.result


def rewrite_call(call: func.CallOp, kernel: str, hoisted: Sequence[Operation]) -> None:
    """Call `kernel` with flattened operands and the hoisted constants, repacking results."""
    operands = [leaf for value in call.arguments for leaf in unpacked(value, call)]
    for op in hoisted:
        copy = op.clone()
        Rewriter.insert_op(copy, InsertPoint.before(call))
        operands.append(copy.results[0])
    result_types = [leaf for r in call.results for leaf in leaf_types(r.type)]
    new = func.CallOp(kernel, operands, result_types)
    Rewriter.insert_op(new, InsertPoint.before(call))
    results = list(new.results)
    tuples: list[Operation] = []
    values = [repacked(r.type, results, tuples) for r in call.results]
    if tuples:
        Rewriter.insert_op(tuples, InsertPoint.after(new))
    for old, value in zip(call.results, values, strict=True):
        if old.name_hint and value.name_hint is None:
            value.name_hint = old.name_hint
        old.replace_all_uses_with(value)
    Rewriter.erase_op(call)
    for tuple_op in reversed(tuples):  # outer tuples first: their fields may be tuples
        fold_field_reads(tuple_op)


def fold_field_reads(tuple_op: Operation) -> None:
    """Read the fields of a rebuilt tuple directly where a `relay.tuple_get_item` took them;
    the tuple goes when nothing else reads it."""
    for use in list(tuple_op.results[0].uses):
        item = use.operation
        if isinstance(item, relay.TupleGetItemOp):
            field_value = tuple_op.operands[item.index.value.data]
            if item.result.name_hint and field_value.name_hint is None:
                field_value.name_hint = item.result.name_hint
            item.result.replace_all_uses_with(field_value)
            Rewriter.erase_op(item)
    if not tuple_op.results[0].uses:
        Rewriter.erase_op(tuple_op)


# ---------------------------------------------------------------------------------------------
# The pass


RESHAPES = (relay.ReshapeOp, relay.SqueezeOp, relay.ExpandDimsOp, relay.BatchFlattenOp)


def reshape_only(function: func.FuncOp) -> bool:
    """A function of one tensor in and one out that only reshapes: its kernel copies the
    elements in order, so a graph may give its output the input's buffer and run nothing
    (marked `reshape_only`, TVM's `relay.reshape_only`)."""
    body = list(function.body.block.ops)
    return (
        len(function.args) == 1
        and len(function.function_type.outputs) == 1
        and len(body) > 1
        and all(isinstance(op, RESHAPES) for op in body[:-1])
    )


def is_primitive(function: func.FuncOp) -> bool:
    """A fused function of relay ops to lower to a kernel; an external codegen's function (a
    partitioned one is `primitive` too, as in TVM) goes to its codegen instead."""
    return (
        "primitive" in function.attributes
        and "compiler" not in function.attributes
        and bool(function.body.blocks)
    )


def outline_stray_ops(module: ModuleOp) -> None:
    """Give every relay op outside a primitive function one of its own (not in functions
    an external compiler claims)."""
    functions = [f for f in module.ops if isinstance(f, func.FuncOp)]
    taken = {f.sym_name.data for f in functions}
    for function in functions:
        if is_primitive(function) or "compiler" in function.attributes:
            continue
        if len(function.body.blocks) != 1:
            continue
        block = function.body.block
        for op in reversed(list(block.ops)):  # later ops first: what only they read dies too
            if isinstance(op, relay.RelayOp) and not any(r.uses for r in op.results):
                Rewriter.erase_op(op)  # pure and unread: it would be a kernel with no output
        stray = [
            op
            for op in block.ops
            if isinstance(op, relay.RelayOp) and not isinstance(op, STRUCTURAL)
        ]
        for op in stray:
            outline_group([op], unique_name(fused_name([op]), taken), function)
        if stray:
            sort_block(block)


@dataclass(frozen=True)
class ConvertRelayToTePass(ModulePass):
    """Lower primitive relay functions to te kernels scheduled by the op strategy table.

    `func.func private @fused_nn_conv2d_nn_relu(...) attributes {primitive}` becomes a te
    kernel of the same name: `te.compute` stages (conv2d, relu), a `te.schedule` for the target.
    """

    name = "convert-relay-to-te"

    target: str = "llvm"
    """The target whose default schedules are used: llvm, cuda or generic."""

    def __post_init__(self) -> None:
        if self.target.split()[0] not in TARGETS:
            known = ", ".join(TARGETS)
            raise ValueError(f"unknown target '{self.target}' (known: {known})")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        outline_stray_ops(op)
        calls: dict[str, list[func.CallOp]] = {}
        for nested in op.walk():
            if isinstance(nested, func.CallOp):
                calls.setdefault(nested.callee.string_value(), []).append(nested)
        kernels: dict[Hashable, str] = {}
        for function in [f for f in op.ops if isinstance(f, func.FuncOp) and is_primitive(f)]:
            name = function.sym_name.data
            function_plan = plan(function)
            kernel = kernels.get(function_plan.key)
            if kernel is None:
                built = KernelBuilder(function, function_plan, self.target).build()
                if reshape_only(function):
                    built.attributes["reshape_only"] = UnitAttr()
                Rewriter.insert_op(built, InsertPoint.before(function))
                kernel = kernels[function_plan.key] = name
            for call in calls.get(name, []):
                rewrite_call(call, kernel, function_plan.hoisted)
            Rewriter.erase_op(function)
