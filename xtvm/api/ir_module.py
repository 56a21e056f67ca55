"""`IRModule`: TVM's module of named functions, backed by an xDSL `builtin.module`.

The xDSL module (`mod.xdsl`) is the truth: passes run on it and printing shows it. Reading
`mod["main"]` gives the function as a relay expression, and `mod["main"] = fn` lowers an
expression into the module, replacing a function of the same name. Passes return new modules
and leave their input unchanged, as in TVM.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xtvm.dialects.registry import shared_context
from xtvm.ir.context import IRContext
from xtvm.ir.printer import print_ir
from xtvm.passes.relay_annotate_target import COMPOSITE_ATTR


def is_literal(function: func.FuncOp) -> bool:
    """Whether TVM holds `function` as a function literal where it is called: a composite or a
    fused (primitive) function; a partitioned function is primitive too, but global."""
    attributes = function.attributes
    return COMPOSITE_ATTR in attributes or (
        "primitive" in attributes and "compiler" not in attributes
    )


def api_context() -> IRContext:
    """The IR context the Python API prints, parses and runs passes with."""
    return shared_context()


class IRModule:
    """A module of relay functions: `mod["main"] = relay.Function(...)`, `print(mod)`."""

    def __init__(
        self,
        functions: Mapping[str | GlobalVar, Function] | ModuleOp | None = None,
        type_definitions: Mapping[object, object] | None = None,
    ) -> None:
        if type_definitions:
            raise ValueError("relay type definitions (ADTs) are not supported")
        self._cache: dict[str, tuple[func.FuncOp, Function]] = {}
        if isinstance(functions, ModuleOp):
            self._module = functions
        else:
            self._module = ModuleOp([])
            for key, fn in (functions or {}).items():
                self[key] = fn

    @staticmethod
    def from_expr(
        expr: Expr,
        functions: Mapping[str | GlobalVar, Function] | None = None,
        type_defs: Mapping[object, object] | None = None,
    ) -> IRModule:
        """A module whose `main` is `expr` (a function, or an expression over its free vars)."""
        from xtvm.api.relay.analysis import free_vars

        mod = IRModule(functions, type_defs)
        mod["main"] = expr if isinstance(expr, Function) else Function(free_vars(expr), expr)
        return mod

    @property
    def xdsl(self) -> ModuleOp:
        """The xDSL module behind this one (shared, not a copy)."""
        return self._module

    def copy(self) -> IRModule:
        return IRModule(self._module.clone())

    # -- functions by name ------------------------------------------------------------------

    def _function_op(self, name: str) -> func.FuncOp | None:
        for op in self._module.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == name:
                return op
        return None

    @staticmethod
    def _name(key: str | GlobalVar) -> str:
        return key.name_hint if isinstance(key, GlobalVar) else key

    def __contains__(self, key: str | GlobalVar) -> bool:
        return self._function_op(self._name(key)) is not None

    def __getitem__(self, key: str | GlobalVar) -> Function:
        name = self._name(key)
        op = self._function_op(name)
        if op is None:
            raise KeyError(f"no function @{name} in the module")
        cached = self._cache.get(name)
        if cached is None or cached[0] is not op:
            globals_ = {gv.name_hint: gv for gv in self.get_global_vars()}
            cached = (op, raise_function(op, globals_, self._local_functions()))
            self._cache[name] = cached
        return cached[1]

    def __setitem__(self, key: str | GlobalVar, fn: Expr) -> None:
        if not isinstance(fn, Function):
            raise TypeError(f"a module holds functions, got {type(fn).__name__}")
        if isinstance(key, GlobalVar) and key.type_annotation is None:
            key.type_annotation = declared_type(fn)  # a recursive call's type
        self._lower(self._name(key), fn)
        if isinstance(key, GlobalVar) and key.type_annotation is None:
            key.type_annotation = fn.checked_type  # calls of `key` built later are typed

    def update_func(self, var: GlobalVar, fn: Function) -> None:
        self[var] = fn

    def _lower(self, name: str, fn: Function, private: bool = False) -> str:
        signatures = module_signatures(self._module)
        own = declared_type(fn)
        if own is not None:  # the function may call itself
            signatures[name] = own.to_xdsl()  # type: ignore[assignment]
        for node in post_order(fn):
            if isinstance(node, Call) and isinstance(node.op, GlobalVar):
                sig = signatures.get(node.op.name_hint)
                if sig is not None and node.op.type_annotation is None:
                    node.op.type_annotation = function_type(sig)
        lifted = 0

        def outline(callee: Function) -> str:
            nonlocal lifted
            symbol = callee.attrs.get("global_symbol")
            base = symbol if isinstance(symbol, str) else f"{name}_lifted"
            unique = base
            while unique in signatures:
                lifted += 1
                unique = f"{base}_{lifted}"
            self._lower(unique, callee, private=True)
            signatures.update(module_signatures(self._module))
            return unique

        new = lower_function(name, fn, signatures, outline, private)
        old = self._function_op(name)
        if old is None:
            self._module.body.block.add_op(new)
        else:
            self._module.body.block.insert_op_before(new, old)
            self._module.body.block.erase_op(old)
        self._cache.pop(name, None)
        return name

    @property
    def functions(self) -> dict[GlobalVar, Function]:
        return {gv: self[gv] for gv in self.get_global_vars()}

    def items(self) -> Iterator[tuple[GlobalVar, Function]]:
        return iter(self.functions.items())

    def get_global_var(self, name: str) -> GlobalVar:
        op = self._function_op(name)
        if op is None:
            raise ValueError(f'cannot find global var "{name}" in the module')
        return GlobalVar(name, function_type(op.function_type))

    def _local_functions(self) -> dict[str, func.FuncOp]:
        """The composite functions (MergeComposite's) and the fused ones (FuseOps's, TVM's
        `Primitive` functions not for an external codegen): function literals in TVM,
        outlined in xtvm's IR, so they are not global functions of the module."""
        return {
            op.sym_name.data: op
            for op in self._module.ops
            if isinstance(op, func.FuncOp) and is_literal(op)
        }

    def get_global_vars(self) -> list[GlobalVar]:
        return [
            GlobalVar(op.sym_name.data, function_type(op.function_type))
            for op in self._module.ops
            if isinstance(op, func.FuncOp) and not is_literal(op)
        ]

    # -- text --------------------------------------------------------------------------------

    def astext(self, show_meta_data: bool = True) -> str:
        """TVM's Relay text of this module (`def @main(...) { ... }`); `str(mod)` is the IR.

        A module of tir kernels (what `tvm.lower` returns) has no Relay text: its IR is shown.
        """
        try:
            functions = list(self.items())
        except (TypeError, ConversionError):
            return print_ir(self._module, api_context())
        return TextPrinter().module((gv.name_hint, fn) for gv, fn in functions)

    def __str__(self) -> str:
        return print_ir(self._module, api_context())

    def __repr__(self) -> str:
        names = ", ".join(f"@{gv.name_hint}" for gv in self.get_global_vars())
        return f"IRModule({names})"


# Imported last: the relay package imports this module, and finds IRModule defined already.
from xtvm.api.relay.convert import (  # noqa: E402
    ConversionError,
    lower_function,
    module_signatures,
    raise_function,
)
from xtvm.api.relay.expr import (  # noqa: E402
    HOOKS,
    Call,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    function_type,
    has_type,
    post_order,
)
from xtvm.api.relay.text_printer import TextPrinter  # noqa: E402
from xtvm.api.relay.ty import FuncType, Type  # noqa: E402


def declared_type(fn: Function) -> FuncType | None:
    """The type of `fn` before its recursive calls are typed: typed parameters and the declared
    return type, else the type of a base case (a branch of an `If` that needs no recursion)."""
    if any(p.type_annotation is None for p in fn.params):
        return None
    ret = fn.ret_type if fn.ret_type is not None else base_case_type(fn.body)
    if ret is None:
        return None
    return FuncType([p.type_annotation for p in fn.params], ret)  # type: ignore[misc]


def base_case_type(expr: Expr) -> Type | None:
    """The type of the first branch that types without the function's own type."""
    while isinstance(expr, Let):
        expr = expr.body
    if isinstance(expr, If):
        for branch in (expr.true_branch, expr.false_branch):
            typ = base_case_type(branch)
            if typ is not None:
                return typ
        return None
    return expr.checked_type if has_type(expr) else None


def expr_text(expr: Expr) -> str:
    """TVM's Relay text of `expr`: a function as `fn`, any other expression after `free_var`
    declarations of its free variables."""
    return TextPrinter().expression(expr)


HOOKS["text"] = expr_text
HOOKS["module"] = lambda expr: IRModule.from_expr(expr).xdsl
