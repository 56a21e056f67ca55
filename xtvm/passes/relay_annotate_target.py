"""`relay-annotate-target`: mark each relay op with the external codegen that will run it.

The first of TVM's three BYOC steps (AnnotateTarget, MergeCompilerRegions, PartitionGraph).
TVM wraps every supported call in `compiler_begin`/`compiler_end` annotation ops; here the
annotation is a discardable attribute on the op itself, `compiler = "<codegen>"`, with
`compiler = "default"` for relay ops that stay on the host. Attributes keep the IR of the
function unchanged in shape, so every other pass and the interpreter still read it as is.

Which codegen claims an op is asked of the `byoc_targets` table, in the order of `targets`: the
first codegen whose predicate accepts the op wins. `relay.const` and `relay.param` are inputs,
not computations, and get no annotation. A `relay.tuple_get_item` follows the codegen of the
tuple it reads, a `relay.tuple` the codegen shared by all its fields (else `default`), as
TVM's AnnotateTarget does.

A call of a composite function (TVM's `Composite` attribute, `<codegen>.<pattern>`) is one
unit: the call is annotated with the codegen its name starts with, the function is left as is.

An op already annotated for a codegen (by an earlier run) keeps its annotation.
Functions that already carry a `compiler` attribute were outlined for a codegen by
`relay-partition-graph`; they belong to that codegen and are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects import relay
from xtvm.ir.verify import located_error
from xtvm.passes.byoc_targets import registered_targets, supported_targets

COMPILER_ATTR = "compiler"
"""On a relay op: the codegen that runs it. On a func.func: the codegen it was outlined for."""

FROM_IF_ATTR = "from_if"
"""On a relay.where: the select an `If` of the API was lowered to."""

DEFAULT_COMPILER = "default"
"""The `compiler` of relay ops left to the host."""

COMPOSITE_ATTR = "Composite"
"""On a func.func: the pattern it was merged from (`dnnl.conv2d_relu`), TVM's `Composite`."""


def is_external(f: func.FuncOp) -> bool:
    """Whether `f` was outlined for an external codegen; BYOC passes leave such functions alone."""
    return COMPILER_ATTR in f.attributes


def compiler_of(op: Operation) -> str:
    """The codegen an op is annotated with; `default` when it has no annotation."""
    attr = op.attributes.get(COMPILER_ATTR)
    return attr.data if isinstance(attr, StringAttr) else DEFAULT_COMPILER


def producer_compiler(value: SSAValue) -> str:
    owner = value.owner
    return compiler_of(owner) if isinstance(owner, Operation) else DEFAULT_COMPILER


def choose_compiler(op: relay.RelayOp, targets: Sequence[str]) -> str | None:
    """The codegen for `op`, `default` for the host, None for ops that stay unannotated."""
    if isinstance(op, relay.ConstOp | relay.ParamOp):
        return None
    if isinstance(op, relay.WhereOp) and FROM_IF_ATTR in op.attributes:
        return None  # an If: TVM annotates its branches, not the If itself
    if isinstance(op, relay.TupleGetItemOp):
        return producer_compiler(op.tuple)
    if isinstance(op, relay.TupleOp):
        fields = {producer_compiler(v) for v in op.fields}
        return fields.pop() if len(fields) == 1 else DEFAULT_COMPILER
    claimed = supported_targets(op, targets)
    return claimed[0] if claimed else DEFAULT_COMPILER


def annotate_composite_call(
    call: func.CallOp, functions: Mapping[str, func.FuncOp], targets: Sequence[str]
) -> None:
    """Annotate a call of a composite function (`Composite = "dnnl.conv2d_relu"`, what
    MergeComposite makes) with the codegen its name starts with, if that is one of `targets`."""
    callee = functions.get(call.callee.root_reference.data)
    composite = callee.attributes.get(COMPOSITE_ATTR) if callee is not None else None
    if not isinstance(composite, StringAttr) or compiler_of(call) != DEFAULT_COMPILER:
        return
    target = composite.data.split(".")[0]
    call.attributes[COMPILER_ATTR] = StringAttr(target if target in targets else DEFAULT_COMPILER)


@dataclass(frozen=True)
class RelayAnnotateTargetPass(ModulePass):
    """Annotate each relay op with the first of `targets` whose predicate accepts it.

    `relay.add %x, %y` becomes `relay.add %x, %y {compiler = "ccompiler"}` under
    `targets=ccompiler`; unsupported ops get `{compiler = "default"}`.
    """

    name = "relay-annotate-target"

    targets: tuple[str, ...] = ()
    """Codegen names, highest priority first (`targets=dnnl,ccompiler`)."""

    composite_targets: tuple[str, ...] = ()
    """Further codegens that claim only the calls of their composite functions (they need no
    registered predicates: TVM's AnnotateTarget of a target known by its patterns alone)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = registered_targets()
        for target in self.targets:
            if target not in known:
                names = ", ".join(f"'{t}'" for t in known) or "none"
                raise located_error(op, f"unknown target '{target}' (registered: {names})")
        functions = {f.sym_name.data: f for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        for f in functions.values():
            if is_external(f) or COMPOSITE_ATTR in f.attributes:
                continue  # a composite function is annotated as one unit, where it is called
            for inner in f.body.walk():
                if isinstance(inner, func.CallOp):
                    claimants = (*self.targets, *self.composite_targets)
                    annotate_composite_call(inner, functions, claimants)
                if not isinstance(inner, relay.RelayOp):
                    continue
                if compiler_of(inner) != DEFAULT_COMPILER:
                    continue  # claimed by an earlier run: kept, as TVM keeps its annotations
                compiler = choose_compiler(inner, self.targets)
                if compiler is None:
                    continue
                inner.attributes[COMPILER_ATTR] = StringAttr(compiler)
