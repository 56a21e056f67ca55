"""Relay expressions to the relay dialect and back.

To the dialect: a `Function` becomes a `func.func` whose body holds one xDSL op per expression
node, in dependency order. A `Tuple` stays virtual (a list of values) until something needs it
as one value, so a function whose body is a tuple returns several results and
`TupleGetItem` of a tuple picks the field without an op. `compiler_begin`/`compiler_end`
annotations become the `compiler` attribute on the annotated op. A `Call` of a `Function`
outlines the callee as a private module function.

From the dialect: each op of a function body becomes an expression node; a call with several
results is read as a tuple-typed call whose uses are `TupleGetItem`s, and a function returning
several values has a `Tuple` body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.dialects.builtin import (
    TupleType as XTupleType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.api.relay.annotated_regions import annotation_of, find_regions
from xtvm.api.relay.expr import (
    COMPILER_BEGIN,
    COMPILER_END,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Op,
    ParamRef,
    Tuple,
    TupleGetItem,
    Var,
    function_type,
    post_order,
)
from xtvm.api.relay.ty import TensorType, from_xdsl
from xtvm.dialects import relay as dialect
from xtvm.passes.relay_annotate_target import FROM_IF_ATTR
from xtvm.passes.relay_merge_compiler_regions import REGION_ATTR
from xtvm.passes.relay_partition_graph import OUTPUT_ATTR
from xtvm.te.expr import IntImm

# TVM's function attribute keys and the func.func attributes the relay passes use.
FUNCTION_ATTRS = {
    "Compiler": "compiler",
    "Primitive": "primitive",
    "global_symbol": "global_symbol",
    "Inline": "inline",
}
PRIVATE_KEYS = ("Compiler", "Primitive")


class ConversionError(ValueError):
    """An expression has no relay-dialect form, or an op has no expression form."""


Value = SSAValue | list["Value"]


def ssa_name(name: str) -> str | None:
    """`name` as a valid SSA name hint (invalid characters become `_`), None if empty."""
    if not name:
        return None
    cleaned = re.sub(r"[^A-Za-z0-9_$.-]", "_", name)
    return f"v{cleaned}" if cleaned[0].isdigit() else cleaned


# ---------------------------------------------------------------------------------------------
# Function attributes


def attrs_to_xdsl(attrs: Mapping[str, object]) -> dict[str, Attribute]:
    result: dict[str, Attribute] = {}
    for key, value in attrs.items():
        name = FUNCTION_ATTRS.get(key, key)
        if name == "primitive":
            if value:
                result[name] = UnitAttr()
        elif isinstance(value, Attribute):
            result[name] = value
        elif isinstance(value, str):
            result[name] = StringAttr(value)
        elif isinstance(value, bool | int):
            result[name] = IntegerAttr(int(value), i64)
        elif isinstance(value, IntImm):  # TVM writes `with_attr("Inline", tir.IntImm(...))`
            result[name] = IntegerAttr(int(value.value), i64)
        else:
            raise ConversionError(f"function attribute {key}={value!r} has no IR form")
    return result


def attrs_from_xdsl(attributes: Mapping[str, Attribute]) -> dict[str, object]:
    tvm_keys = {v: k for k, v in FUNCTION_ATTRS.items()}
    result: dict[str, object] = {}
    for name, attr in attributes.items():
        if name in ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"):
            continue
        key = tvm_keys.get(name, name)
        if isinstance(attr, UnitAttr):
            result[key] = 1
        elif isinstance(attr, StringAttr):
            result[key] = attr.data
        elif isinstance(attr, IntegerAttr):
            result[key] = attr.value.data
        else:
            result[key] = attr
    return result


# ---------------------------------------------------------------------------------------------
# Expressions to the dialect


def lowering_children(expr: Expr) -> list[Expr]:
    """What must be lowered before `expr`: nested functions are lowered on their own."""
    if isinstance(expr, Call):  # a composed op's call is its expression (over its args)
        return [expr.lowered] if expr.lowered is not None else list(expr.args)
    if isinstance(expr, Tuple):
        return list(expr.fields)
    if isinstance(expr, TupleGetItem):
        return [expr.tuple_value]
    if isinstance(expr, Let):
        return [expr.value, expr.body]
    if isinstance(expr, If):
        return [expr.cond, expr.true_branch, expr.false_branch]
    return []


class FunctionLowering:
    """Lowers one `Function` into a `func.func`."""

    def __init__(
        self, signatures: Mapping[str, FunctionType], outline: Callable[[Function], str]
    ) -> None:
        self.signatures = signatures
        self.outline = outline
        self.values: dict[int, Value] = {}
        self.lets: dict[int, Expr] = {}
        self.block = Block()
        self.ends = 0
        """compiler_end annotations lowered so far: a region's outputs keep their order."""

    def lower(self, name: str, fn: Function, private: bool = False) -> func.FuncOp:
        fn.checked_type  # type errors surface here, before any IR is built  # noqa: B018
        self.block = Block(arg_types=[p.checked_type.to_xdsl() for p in fn.params])
        for param, arg in zip(fn.params, self.block.args, strict=True):
            arg.name_hint = ssa_name(param.name_hint)
            self.values[id(param)] = arg
        order = post_order(fn.body, lowering_children)
        self.lets = {id(e.var): e.value for e in order if isinstance(e, Let)}
        regions = find_regions(order, lowering_children) if any(map(annotation_of, order)) else None
        for node in order:
            first_new = len(self.block.ops)
            self.values[id(node)] = self.node(node)
            region = regions.region_of(node) if regions is not None else None
            if region is not None and annotation_of(node) is None:
                for op in list(self.block.ops)[first_new:]:
                    op.attributes["compiler"] = StringAttr(region[0])
                    # An op read back from the IR keeps the region it was given then.
                    op.attributes.setdefault(REGION_ATTR, IntegerAttr(region[1], i64))
        results = self.flatten(self.values[id(fn.body)])
        self.block.add_op(func.ReturnOp(*results))
        attributes = attrs_to_xdsl(fn.attrs)
        function = func.FuncOp(
            name,
            FunctionType.from_lists([a.type for a in self.block.args], [r.type for r in results]),
            Region(self.block),
            "private" if private or any(k in fn.attrs for k in PRIVATE_KEYS) else None,
        )
        function.attributes.update(attributes)
        lost = [p.name_hint != a.name_hint for p, a in zip(fn.params, self.block.args, strict=True)]
        if any(lost):  # xDSL drops a `_0` suffix of a name hint: the exact name is kept aside
            function.arg_attrs = ArrayAttr(
                [
                    DictionaryAttr(
                        {dialect.INPUT_NAME_ATTR: StringAttr(p.name_hint)} if kept else {}
                    )
                    for p, kept in zip(fn.params, lost, strict=True)
                ]
            )
        return function

    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def one(self, value: Value) -> SSAValue:
        """`value` as a single SSA value: a virtual tuple becomes a `relay.tuple` op."""
        if isinstance(value, SSAValue):
            return value
        return self.add(dialect.TupleOp(*[self.one(v) for v in value])).results[0]

    def flatten(self, value: Value) -> list[SSAValue]:
        """A function's results: a virtual tuple returns its fields."""
        return [self.one(v) for v in value] if isinstance(value, list) else [value]

    def node(self, expr: Expr) -> Value:
        if isinstance(expr, Var):
            if id(expr) in self.values:
                return self.values[id(expr)]
            if id(expr) in self.lets:
                return self.values[id(self.lets[id(expr)])]
            raise ConversionError(f"free variable %{expr.name_hint}: make it a function parameter")
        if isinstance(expr, Constant):
            return self.add(dialect.ConstOp(expr.data.numpy())).results[0]
        if isinstance(expr, ParamRef):
            return self.add(dialect.ParamOp(expr.name, expr.type_annotation.to_xdsl())).results[0]
        if isinstance(expr, Tuple):
            return [self.values[id(f)] for f in expr.fields]
        if isinstance(expr, TupleGetItem):
            base = self.values[id(expr.tuple_value)]
            if isinstance(base, list):
                return base[expr.index]
            return self.add(dialect.TupleGetItemOp(base, expr.index)).results[0]
        if isinstance(expr, Let):
            return self.values[id(expr.body)]
        if isinstance(expr, Call):
            return self.call(expr)
        if isinstance(expr, If):
            cond = self.one(self.values[id(expr.cond)])
            return self.select(
                cond, self.values[id(expr.true_branch)], self.values[id(expr.false_branch)]
            )
        kind = "a function value" if isinstance(expr, Function | GlobalVar) else type(expr).__name__
        raise ConversionError(f"{kind} cannot be lowered to the relay dialect here")

    def select(self, cond: SSAValue, then: Value, other: Value) -> Value:
        """`relay.where` of each tensor field of two values of one type."""
        if isinstance(then, list) or isinstance(then.type, XTupleType):
            fields_then = then if isinstance(then, list) else self.fields(then)
            fields_other = other if isinstance(other, list) else self.fields(self.one(other))
            return [self.select(cond, t, o) for t, o in zip(fields_then, fields_other, strict=True)]
        select = dialect.WhereOp(cond, then, self.one(other))
        select.attributes[FROM_IF_ATTR] = UnitAttr()
        return self.add(select).results[0]

    def fields(self, value: SSAValue) -> list[Value]:
        count = len(value.type.types.data)  # type: ignore[attr-defined]
        return [self.add(dialect.TupleGetItemOp(value, i)).results[0] for i in range(count)]

    def call(self, call: Call) -> Value:
        if call.lowered is not None:
            return self.values[id(call.lowered)]
        args = [self.values[id(a)] for a in call.args]
        if isinstance(call.op, Op):
            if call.op.name == COMPILER_BEGIN:
                return args[0]
            if call.op.name == COMPILER_END:
                # A tuple stays virtual: its fields are the region's outputs.
                for value in args[0] if isinstance(args[0], list) else [args[0]]:
                    owner = self.one(value).owner
                    if isinstance(owner, dialect.RelayOp | func.CallOp):
                        owner.attributes["compiler"] = call.attrs.properties["compiler"]
                        owner.attributes.setdefault(OUTPUT_ATTR, IntegerAttr(self.ends, i64))
                    self.ends += 1
                return args[0]
            assert call.op.op_class is not None
            op = call.op.op_class.create(
                operands=[self.one(a) for a in args],
                properties=call.attrs.properties,
                result_types=[call.checked_type.to_xdsl()],
                attributes=call.annotations,
            )
            return self.add(op).results[0]
        if isinstance(call.op, Function):
            callee = self.outline(call.op)
        elif isinstance(call.op, GlobalVar):
            callee = call.op.name_hint
        else:
            raise ConversionError(f"cannot call {call.op!r}")
        signature = self.signatures.get(callee)
        if signature is None and isinstance(call.op, GlobalVar) and call.op.type_annotation:
            signature = call.op.type_annotation.to_xdsl()  # defined later (mutual recursion)
        if signature is None:
            raise ConversionError(f"call of @{callee}, which is not in the module")
        op = self.add(
            func.CallOp(callee, [self.one(a) for a in args], list(signature.outputs.data))
        )
        results = list(op.results)
        return results[0] if len(results) == 1 else list(results)


def lower_function(
    name: str,
    fn: Function,
    signatures: Mapping[str, FunctionType],
    outline: Callable[[Function], str] | None = None,
    private: bool = False,
) -> func.FuncOp:
    """`fn` as `func.func @name`; `signatures` are those of the module functions it calls."""

    def no_outline(_fn: Function) -> str:
        raise ConversionError("calls of function values need a module to outline them into")

    return FunctionLowering(signatures, outline or no_outline).lower(name, fn, private)


# ---------------------------------------------------------------------------------------------
# The dialect to expressions


def wrap_annotated(call: Call, compiler: str) -> Expr:
    """TVM's AnnotateTarget form: `compiler_end(op(compiler_begin(arg)...))`."""
    from xtvm.api.relay.op.annotation import compiler_begin, compiler_end

    call.args = [compiler_begin(a, compiler) for a in call.args]
    return compiler_end(call, compiler)


def raise_function(
    function: func.FuncOp,
    globals_: Mapping[str, GlobalVar],
    locals_: Mapping[str, func.FuncOp] | None = None,
    exprs: dict[Operation, Expr] | None = None,
) -> Function:
    """The expression form of a relay `func.func`; a call of one of `locals_` (the composite
    functions, which TVM keeps as function literals) reads back as a call of the literal.
    `exprs`, when given, receives each op's expression."""
    locals_ = locals_ or {}
    block = function.body.block
    exact = dialect.input_names(function) if function.arg_attrs is not None else None
    params = [
        Var(exact[i] if exact else arg.name_hint or f"p{i}", from_xdsl(arg.type))
        for i, arg in enumerate(block.args)
    ]
    values: dict[SSAValue, Expr] = dict(zip(block.args, params, strict=True))
    body: Expr | None = None
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            fields = [values[v] for v in op.operands]
            body = fields[0] if len(fields) == 1 else Tuple(fields)
            break
        args = [values[v] for v in op.operands]
        if isinstance(op, dialect.ConstOp):
            expr: Expr = Constant(dialect.numpy_from_dense(op.value))
        elif isinstance(op, dialect.ParamOp):
            typ = from_xdsl(op.result.type)
            assert isinstance(typ, TensorType)
            expr = ParamRef(op.param_name.data, typ)
        elif isinstance(op, dialect.TupleOp):
            expr = Tuple(args)
        elif isinstance(op, dialect.TupleGetItemOp):
            expr = TupleGetItem(args[0], op.index.value.data)
        elif isinstance(op, dialect.RelayOp):
            annotations = {k: v for k, v in op.attributes.items() if k != "compiler"}
            call = Call(Op.of(type(op)), args, op.properties, annotations=annotations)
            call._checked = from_xdsl(op.result_types[0])
            compiler = op.attributes.get("compiler")
            expr = wrap_annotated(call, compiler.data) if isinstance(compiler, StringAttr) else call
        elif isinstance(op, func.CallOp):
            callee = op.callee.root_reference.data
            local = locals_.get(callee)
            if local is not None and local is not function:
                expr = Call(raise_function(local, globals_, locals_), args)
            else:
                expr = Call(globals_.get(callee) or GlobalVar(callee), args)
            compiler = op.attributes.get("compiler")
            if isinstance(compiler, StringAttr) and len(op.results) == 1:
                expr = wrap_annotated(expr, compiler.data)  # a composite function's call
            if len(op.results) != 1:
                for i, result in enumerate(op.results):
                    values[result] = TupleGetItem(expr, i)
                continue
        else:
            raise ConversionError(f"'{op.name}' has no relay expression form")
        values[op.results[0]] = expr
        if exprs is not None:
            exprs[op] = expr
    if body is None:
        raise ConversionError(f"@{function.sym_name.data} has no func.return")
    attrs = attrs_from_xdsl(function.attributes)
    typ = function_type(function.function_type)
    return Function(params, body, typ.ret_type, attrs=attrs)


# ---------------------------------------------------------------------------------------------
# Text


def module_signatures(module: ModuleOp) -> dict[str, FunctionType]:
    return {op.sym_name.data: op.function_type for op in module.ops if isinstance(op, func.FuncOp)}
