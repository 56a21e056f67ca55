"""TVM's relay passes (`relay.transform`): each runs the xtvm pass of the same meaning on a copy
of the module's IR, verifies the result, and returns a new `IRModule`.

| TVM                       | xtvm pass                      |
|---------------------------|--------------------------------|
| InferType                 | relay-infer-types              |
| AnnotateSpans             | (none: nothing to annotate)    |
| Inline                    | relay-inline                   |
| FoldConstant              | relay-fold-constant            |
| SimplifyInference         | relay-simplify-inference       |
| SimplifyExpr              | relay-simplify-expr            |
| CanonicalizeOps           | relay-canonicalize-ops         |
| FoldScaleAxis             | relay-fold-scale-axis          |
| FuseOps(fuse_opt_level)   | relay-fuse-ops{max-depth=...}  |
| DeadCodeElimination       | relay-dce                      |
| EliminateCommonSubexpr    | relay-cse                      |
| ConvertLayout             | relay-convert-layout{layout=}  |
| AlterOpLayout             | relay-alter-op-layout          |
| AnnotateTarget(targets)   | relay-annotate-target{targets} |
| MergeCompilerRegions      | relay-merge-compiler-regions   |
| PartitionGraph            | relay-partition-graph          |

`function_pass` turns a Python function or class into a pass over each relay function of a
module (functions outlined for an external codegen are skipped, as in TVM).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.passes import ModulePass as XdslModulePass
from xdsl.utils.exceptions import PassFailedException, VerifyException

from xtvm.api.ir_module import IRModule, api_context
from xtvm.api.relay.expr import Call, Expr, Function, GlobalVar, post_order
from xtvm.api.relay.expr_functor import ExprMutator, bind
from xtvm.api.relay.ty import Type
from xtvm.api.transform import (
    ModulePass,
    Pass,
    PassContext,
    PassInfo,
    Sequential,
    make_pass_decorator,
)
from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.verify import verify_diagnostics

__all__ = [
    "AlterOpLayout",
    "AnnotateSpans",
    "AnnotateTarget",
    "CanonicalizeOps",
    "ConvertLayout",
    "DeadCodeElimination",
    "EliminateCommonSubexpr",
    "FoldConstant",
    "FoldScaleAxis",
    "FunctionPass",
    "FuseOps",
    "InferType",
    "InferTypeLocal",
    "Inline",
    "MergeCompilerRegions",
    "PartitionGraph",
    "RemoveUnusedFunctions",
    "Sequential",
    "SimplifyExpr",
    "SimplifyInference",
    "function_pass",
]


class PassError(RuntimeError):
    """A pass failed, or left IR that does not verify."""


class RelayPass(Pass):
    """A TVM pass name bound to an xtvm pass over the relay dialect."""

    def __init__(self, tvm_name: str, opt_level: int, make: Callable[[], XdslModulePass]):
        self.info = PassInfo(opt_level, tvm_name)
        self.make = make

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        result = mod.copy()
        self.run_on(result, self.make())
        return result

    def run_on(self, result: IRModule, xdsl_pass: XdslModulePass) -> None:
        """Apply `xdsl_pass` to `result`'s IR in place and verify what it leaves."""
        try:
            xdsl_pass.apply(api_context().xdsl_context, result.xdsl)
        except (DiagnosticError, PassFailedException, VerifyException) as exc:
            raise PassError(f"{self.info.name}: {exc}") from None
        diagnostics = verify_diagnostics(result.xdsl, {})
        if diagnostics:
            messages = "\n".join(str(d) for d in diagnostics)
            raise PassError(f"{self.info.name} produced invalid IR:\n{messages}")


def _pass(name: str, **options: Any) -> Callable[[], XdslModulePass]:
    """A factory of the registered xtvm pass `name` with `options`."""
    from xtvm.passes import all_passes

    def make() -> XdslModulePass:
        return all_passes()[name]()(**options)

    return make


def Inline() -> Pass:
    """Inline the global functions marked `Inline` into their callers (TVM's InlineGlobals)."""
    return InlinePass("InlineGlobals", 1, _pass("relay-inline"))


class InlinePass(RelayPass):
    """relay-inline over the relay dialect, then the same inlining in the functions kept as
    expressions (a call of an `If` that picks a function, ...): a call of a marked function
    becomes its body on the arguments (an external codegen's, a call of its literal), a marked
    function used as a value becomes its literal, and a marked function that was used and no
    longer is leaves the module."""

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        result = super().transform_module(mod, ctx)
        interpreted = [gv for gv, _ in result.items() if result.is_interpreted(gv.name_hint)]
        if not interpreted:
            return result
        marked = {
            gv.name_hint: fn
            for gv, fn in result.items()
            if _inline_mark(fn) and not _calls(fn, gv.name_hint)
        }
        used_before = {name for gv, _ in result.items() for name in _globals_of(result, gv)}
        for gv in interpreted:
            result[gv] = _GlobalInliner(marked).visit(result[gv])
        still_used = {name for gv, _ in result.items() for name in _globals_of(result, gv)}
        for name in marked:
            if name in used_before and name not in still_used:
                result.remove(name)
        return result


def _inline_mark(fn: Function) -> bool:
    mark = fn.attrs.get("Inline")
    return bool(int(getattr(mark, "value", mark) or 0))


def _calls(fn: Function, name: str) -> bool:
    from xtvm.api.ir_module import with_callees  # set once ir_module has loaded

    return any(
        isinstance(n, GlobalVar) and n.name_hint == name for n in post_order(fn, with_callees)
    )


def _globals_of(mod: IRModule, gv: GlobalVar) -> set[str]:
    """The global functions that function `gv` of `mod` names (calls or values)."""
    from xtvm.api.ir_module import with_callees  # set once ir_module has loaded

    fn = mod[gv]
    return {n.name_hint for n in post_order(fn, with_callees) if isinstance(n, GlobalVar)}


def RemoveUnusedFunctions(entry_functions: Sequence[str] | None = None) -> Pass:
    """Remove the global functions that the entry functions (["main"] unless given) neither
    call nor name, directly or through the functions they reach."""
    entries = ["main"] if entry_functions is None else [str(e) for e in entry_functions]

    def transform(mod: IRModule, ctx: PassContext) -> IRModule:
        result = mod.copy()
        known = {gv.name_hint: gv for gv in result.get_global_vars()}
        reached: set[str] = set()
        todo = [e for e in entries if e in known]
        while todo:
            name = todo.pop()
            if name in reached:
                continue
            reached.add(name)
            todo.extend(n for n in _globals_of(result, known[name]) if n in known)
        for name in known:
            if name not in reached:
                result.remove(name)
        return result

    return ModulePass(transform, PassInfo(1, "RemoveUnusedFunctions"))


class _GlobalInliner(ExprMutator):
    def __init__(self, marked: Mapping[str, Function]) -> None:
        super().__init__()
        self.marked = marked

    def visit_call(self, call: Call) -> Expr:
        if isinstance(call.op, GlobalVar) and call.op.name_hint in self.marked:
            fn = self.marked[call.op.name_hint]
            args = [self.visit(a) for a in call.args]
            if "Compiler" in fn.attrs:  # TVM keeps an external codegen's function whole
                return Call(fn, args, call.attrs, call._type_args, call.span, call.annotations)
            return self.visit(bind(fn.body, dict(zip(fn.params, args, strict=True))))
        return super().visit_call(call)

    def visit_global_var(self, gv: GlobalVar) -> Expr:
        return self.marked.get(gv.name_hint, gv)


def InferType() -> Pass:
    return RelayPass("InferType", 0, _pass("relay-infer-types"))


def InferTypeLocal(expr: Expr) -> Type:
    """The type of one expression, without a module (TVM's `InferTypeLocal`)."""
    return expr.checked_type


def AnnotateSpans() -> Pass:
    """TVM's AnnotateSpans gives each node the location of its printed text. xtvm's relay
    expressions keep no spans (the IR's own ops carry their locations), so the module is
    returned as it is."""
    return ModulePass(lambda mod, _ctx: mod, PassInfo(0, "AnnotateSpans"))


def FoldConstant(fold_qnn: bool = False) -> Pass:
    """Evaluate calls whose arguments are all constants; quantized ops only with `fold_qnn`."""
    return RelayPass("FoldConstant", 2, _pass("relay-fold-constant", fold_qnn=fold_qnn))


def SimplifyInference() -> Pass:
    return RelayPass("SimplifyInference", 0, _pass("relay-simplify-inference"))


def SimplifyExpr() -> Pass:
    """Consecutive constant adds, reshapes of reshapes, no-op reshapes and transposes (the
    rewrites of TVM's SimplifyExpr that relay-simplify-expr does)."""
    return RelayPass("SimplifyExpr", 0, _pass("relay-simplify-expr"))


def CanonicalizeOps() -> Pass:
    return RelayPass("CanonicalizeOps", 3, _pass("relay-canonicalize-ops"))


def FoldScaleAxis() -> Pass:
    return RelayPass("FoldScaleAxis", 3, _pass("relay-fold-scale-axis"))


def AlterOpLayout() -> Pass:
    """Pack NHWC conv2d's constant kernels for the CPU register tile (after ConvertLayout)."""
    return RelayPass("AlterOpLayout", 3, _pass("relay-alter-op-layout"))


def DeadCodeElimination(inline_once: bool = False, ignore_impurity: bool = False) -> Pass:
    """Remove calls and bindings nothing uses. `inline_once` inlines nothing: xtvm's relay
    dialect has no let bindings (a value used once is already in place), and a function kept
    as an expression (a closure) is left as it is."""
    return RelayPass("DeadCodeElimination", 1, _pass("relay-dce"))


def EliminateCommonSubexpr(fskip: Callable[[Expr], bool] | None = None) -> Pass:
    """Merge calls that compute the same value; a call `fskip(call)` accepts is left alone."""
    return CsePass(fskip)


class CsePass(RelayPass):
    """relay-cse, told which ops `fskip` accepts: it is asked about each call's expression."""

    def __init__(self, fskip: Callable[[Expr], bool] | None) -> None:
        super().__init__("EliminateCommonSubexpr", 3, _pass("relay-cse"))
        self.fskip = fskip

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        if self.fskip is None:
            return super().transform_module(mod, ctx)
        from xtvm.api.relay.convert import ConversionError, raise_function
        from xtvm.passes.external_functions import host_functions
        from xtvm.passes.relay_cse import RelayCsePass

        result = mod.copy()
        globals_ = {gv.name_hint: gv for gv in result.get_global_vars()}
        exprs: dict[Any, Expr] = {}
        for function in host_functions(result.xdsl):
            try:
                raise_function(function, globals_, result._local_functions(), exprs)
            except ConversionError:
                continue  # not a relay function: relay-cse merges nothing in it either
        fskip = self.fskip
        skipped = {id(op) for op, expr in exprs.items() if isinstance(expr, Call) and fskip(expr)}
        self.run_on(result, RelayCsePass(skip=lambda op: id(op) in skipped))
        return result


class FuseOpsPass(RelayPass):
    """FuseOps: `fuse_opt_level` -1 follows the PassContext; level 0 fuses nothing (every op
    becomes its own primitive function), as in TVM. Tensor constants are passed to the fused
    functions as arguments unless `relay.FuseOps.link_params` (or the module's executor's
    `link-params`) says to link them in, as in TVM."""

    def __init__(self, fuse_opt_level: int) -> None:
        super().__init__("FuseOps", 0, _pass("relay-fuse-ops"))
        self.fuse_opt_level = fuse_opt_level

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        level = ctx.opt_level if self.fuse_opt_level == -1 else self.fuse_opt_level
        depth = 1 if level == 0 else int(ctx.config.get("relay.FuseOps.max_depth", 256))
        executor = mod.attrs.get("executor")
        link = bool(getattr(executor, "attrs", {}).get("link-params", False))
        link = bool(ctx.config.get("relay.FuseOps.link_params", link))
        self.make = _pass("relay-fuse-ops", max_depth=depth, link_params=link)
        return super().transform_module(mod, ctx)


def FuseOps(fuse_opt_level: int = -1) -> Pass:
    return FuseOpsPass(fuse_opt_level)


def ConvertLayout(desired_layouts: Mapping[str, Sequence[str]]) -> Pass:
    """Convert conv2d (and the layout-sensitive ops around it) to one data layout.

    `desired_layouts` is TVM's `{"nn.conv2d": ["NHWC", "default"]}`; the kernel layout follows
    the data layout (HWIO for NHWC, OIHW for NCHW).
    """
    layouts = {next(iter(v)) for v in desired_layouts.values()}
    if len(layouts) != 1:
        raise ValueError(f"ConvertLayout: one data layout for every op, got {sorted(layouts)}")
    for op, (data, *kernel) in desired_layouts.items():
        allowed = {"NHWC": ("HWIO", "default"), "NCHW": ("OIHW", "default")}.get(data)
        if allowed is None or (kernel and kernel[0] not in allowed):
            raise ValueError(f"ConvertLayout: {op}: unsupported layouts {[data, *kernel]}")
    return RelayPass("ConvertLayout", 3, _pass("relay-convert-layout", layout=layouts.pop()))


def AnnotateTarget(targets: str | Sequence[str], include_non_call_ops: bool = True) -> Pass:
    """Annotate ops for the first of `targets` whose predicate accepts them; a target with no
    registered predicate claims nothing, as in TVM."""
    from xtvm.passes.byoc_targets import registered_targets

    names = [targets] if isinstance(targets, str) else list(targets)

    def make() -> XdslModulePass:
        known = registered_targets()
        return _pass(
            "relay-annotate-target",
            targets=tuple(n for n in names if n in known),
            composite_targets=tuple(n for n in names if n not in known),
        )()

    return AnnotateTargetPass("AnnotateTarget", 0, make, names, include_non_call_ops)


class AnnotateTargetPass(RelayPass):
    """relay-annotate-target over the relay dialect, then the same annotation of the functions
    kept as expressions (with references or function values: annotate_target.py)."""

    def __init__(
        self,
        tvm_name: str,
        opt_level: int,
        make: Callable[[], XdslModulePass],
        targets: Sequence[str],
        include_non_call_ops: bool,
    ) -> None:
        super().__init__(tvm_name, opt_level, make)
        self.targets = list(targets)
        self.include_non_call_ops = include_non_call_ops

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        from xtvm.api.relay.annotate_target import annotate_function
        from xtvm.passes.byoc_targets import registered_targets

        result = super().transform_module(mod, ctx)
        known = registered_targets()
        targets = [t for t in self.targets if t in known]
        for gv, fn in list(result.items()):
            if result.is_interpreted(gv.name_hint):
                result[gv] = annotate_function(fn, targets, self.include_non_call_ops)
        return result


def MergeCompilerRegions() -> Pass:
    return RelayPass("MergeCompilerRegions", 0, _pass("relay-merge-compiler-regions"))


class PartitionGraphPass(RelayPass):
    """PartitionGraph; annotated ops that MergeCompilerRegions did not group are a region
    each, as TVM partitions every annotated call on its own."""

    def __init__(self) -> None:
        super().__init__("PartitionGraph", 0, _pass("relay-partition-graph"))

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        from xdsl.dialects.builtin import IntegerAttr, i64
        from xdsl.ir import Operation

        from xtvm.passes.relay_annotate_target import COMPILER_ATTR, DEFAULT_COMPILER, compiler_of
        from xtvm.passes.relay_merge_compiler_regions import REGION_ATTR

        mod = mod.copy()
        for function in mod.xdsl.ops:
            ops = list(function.walk())
            used = [
                a.value.data
                for o in ops
                if isinstance(a := o.attributes.get(REGION_ATTR), IntegerAttr)
            ]
            next_id = max(used, default=-1) + 1
            for op in ops:
                if COMPILER_ATTR not in op.attributes or REGION_ATTR in op.attributes:
                    continue
                if compiler_of(op) == DEFAULT_COMPILER or not (
                    op.name.startswith("relay.") or op.name == "func.call"
                ):
                    continue
                producer = op.operands[0].owner if op.operands else None
                if (
                    op.name == "relay.tuple_get_item"
                    and isinstance(producer, Operation)
                    and compiler_of(producer) == compiler_of(op)
                    and REGION_ATTR in producer.attributes
                ):
                    op.attributes[REGION_ATTR] = producer.attributes[REGION_ATTR]
                    continue
                op.attributes[REGION_ATTR] = IntegerAttr(next_id, i64)
                next_id += 1
        before = {gv.name_hint for gv in mod.get_global_vars()}
        result = super().transform_module(mod, ctx)
        for gv in result.get_global_vars():
            if gv.name_hint not in before:
                optimize_external(result, gv)
        return result


def optimize_external(mod: IRModule, gv: GlobalVar) -> None:
    """Run the codegen's `relay.ext.<compiler>.optimize` (a registered function from module
    to module, as in TVM) on a partitioned function, which keeps its attributes."""
    from xtvm.runtime.registry import get_global_func

    fn = mod[gv]
    compiler = fn.attrs.get("Compiler")
    optimize = get_global_func(f"relay.ext.{compiler}.optimize", allow_missing=True)
    if optimize is None:
        return
    alone = InferType()(IRModule.from_expr(Function(fn.params, fn.body, fn.ret_type)))
    optimized = optimize(alone)
    if not isinstance(optimized, IRModule):
        raise TypeError(f"relay.ext.{compiler}.optimize returned {type(optimized).__name__}")
    new = optimized["main"]
    mod[gv] = Function(new.params, new.body, new.ret_type, attrs=fn.attrs)


def PartitionGraph(mod_name: str = "default", bind_constants: bool = True) -> Pass:
    if mod_name != "default":
        raise ValueError("PartitionGraph: only mod_name='default' is supported")
    return PartitionGraphPass()


# ---------------------------------------------------------------------------------------------
# Passes written in Python


class FunctionPass(Pass):
    """A pass applying `function(func, mod, ctx) -> func` to each relay function."""

    def __init__(
        self, function: Callable[[Function, IRModule, PassContext], Function], info: PassInfo
    ) -> None:
        self.function = function
        self.info = info

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        result = mod.copy()
        for gv in mod.get_global_vars():
            fn = mod[gv]
            if "Compiler" in fn.attrs:
                continue
            new = self.function(fn, mod, ctx)
            if not isinstance(new, Function):
                raise TypeError(f"{self.info.name} returned {type(new).__name__}, not a Function")
            if new is not fn:
                result[gv] = new
        return result


def MergeComposite(pattern_table: Sequence[tuple[Any, ...]]) -> Pass:
    """Merge each instance of a table's pattern into a call of a function with the attribute
    `Composite` = its name; `(name, pattern[, check])` entries are tried in order."""
    from xtvm.api.relay.dataflow_pattern import partition

    def merge(fn: Function, mod: IRModule, ctx: PassContext) -> Function:
        for entry in pattern_table:
            name, pattern, *rest = entry
            check = rest[0] if rest else (lambda _e: True)
            fn = partition(pattern, fn, {"Composite": name}, check)  # type: ignore[assignment]
        return fn

    return FunctionPass(merge, PassInfo(0, "MergeComposite"))


function_pass = make_pass_decorator(FunctionPass, "transform_function")
"""`@relay.transform.function_pass(opt_level=...)` on `f(func, mod, ctx)` or on a class with
`transform_function(self, func, mod, ctx)`."""
