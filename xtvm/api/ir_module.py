"""`IRModule`: TVM's module of named functions, backed by an xDSL `builtin.module`.

The xDSL module (`mod.xdsl`) is the truth: passes run on it and printing shows it. Reading
`mod["main"]` gives the function as a relay expression, and `mod["main"] = fn` lowers an
expression into the module, replacing a function of the same name. Passes return new modules
and leave their input unchanged, as in TVM.

Type definitions (`mod[List] = relay.TypeData(...)`) and the functions that have no form in
the relay dialect (those with type parameters, algebraic data types, references or function
values) are kept beside it, as relay expressions: the interpreter (`create_executor`) runs
them, passes carry them over unchanged, and `relay.build` refuses them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

from xtvm.dialects.registry import shared_context
from xtvm.ir.context import IRContext
from xtvm.ir.errors import TVMError
from xtvm.ir.printer import print_ir
from xtvm.passes.relay_annotate_target import COMPOSITE_ATTR

STD_DIR = Path(__file__).parent / "relay" / "std"


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
        self._cache: dict[str, tuple[func.FuncOp, Function]] = {}
        self._type_defs: dict[str, TypeData] = {}
        self._high: dict[str, Function] = {}  # functions with no relay-dialect form
        self._imported: frozenset[str] = frozenset()  # standard library files
        self.attrs: dict[str, object] = {}  # TVM's module attributes ("executor", ...)
        for header, data in (type_definitions or {}).items():
            self[header] = data  # type: ignore[index]
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
        mod = IRModule(self._module.clone())
        mod._type_defs = dict(self._type_defs)
        mod._high = dict(self._high)
        mod._imported = self._imported
        mod.attrs = dict(self.attrs)
        return mod

    def with_attr(self, key: str, value: object) -> IRModule:
        """A copy of this module with attribute `key` set to `value` (passes keep it)."""
        mod = self.copy()
        mod.attrs[key] = value
        return mod

    def get_attr(self, key: str) -> object:
        """The module attribute `key`, or None."""
        return self.attrs.get(key)

    @property
    def has_interpreted(self) -> bool:
        """Whether some function has no relay-dialect form (only the interpreter runs it)."""
        return bool(self._high)

    def import_from_std(self, file_to_import: str) -> None:
        """Add the definitions of a file of xtvm's Relay standard library ("prelude.rly",
        "nat.rly", "gradient.rly", "core.rly") that this module lacks, as TVM's
        `import_from_std`."""
        path = STD_DIR / file_to_import
        if path.name != file_to_import or path.suffix != ".rly" or not path.is_file():
            known = ", ".join(sorted(p.name for p in STD_DIR.glob("*.rly")))
            raise ValueError(f"no standard library file '{file_to_import}' (known: {known})")
        if file_to_import in self._imported:
            return
        if file_to_import not in ("prelude.rly", "core.rly"):
            self.import_from_std("prelude.rly")  # the others build on it
        merged = HOOKS["parse"](path.read_text(), file_to_import, self)
        self._module = merged._module
        self._cache.clear()
        self._type_defs, self._high = merged._type_defs, merged._high
        self._imported = self._imported | {file_to_import}

    def is_interpreted(self, name: str) -> bool:
        """Whether function @name is kept as an expression (see `has_interpreted`)."""
        return name in self._high

    # -- type definitions -------------------------------------------------------------------

    def _add_type(self, header: GlobalTypeVar, data: TypeData) -> None:
        if data.header != header:
            raise ValueError(f"type definition of {data.header} stored under {header}")
        self._type_defs[header.name_hint] = data

    def get_global_type_var(self, name: str) -> GlobalTypeVar:
        if name not in self._type_defs:
            raise ValueError(f'cannot find global type var "{name}" in the module')
        return self._type_defs[name].header

    def get_global_type_vars(self) -> list[GlobalTypeVar]:
        return [data.header for data in self._type_defs.values()]

    @property
    def type_definitions(self) -> TypeDefinitions:
        return TypeDefinitions({d.header: d for d in self._type_defs.values()})

    def get_type(self, name: str) -> tuple[object, ...]:
        """The type named `name` and its constructors, as TVM's `IRModule.get_type`."""
        data = self._type_defs.get(name)
        if data is None:
            raise ValueError(f'no type "{name}" in the module')
        return (data.header, *data.constructors)

    def get_constructor(self, tag: int) -> Constructor:
        for data in self._type_defs.values():
            for constructor in data.constructors:
                if constructor.tag == tag:
                    return constructor
        raise ValueError(f"no constructor with tag {tag} in the module")

    def constructors(self) -> dict[str, Constructor]:
        return {c.name_hint: c for d in self._type_defs.values() for c in d.constructors}

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
        if isinstance(key, GlobalTypeVar):
            return key.name_hint in self._type_defs
        name = self._name(key)
        return name in self._high or self._function_op(name) is not None

    def __getitem__(self, key: str | GlobalVar) -> Function:
        if isinstance(key, GlobalTypeVar):
            if key.name_hint not in self._type_defs:
                raise KeyError(f"no type {key.name_hint} in the module")
            return self._type_defs[key.name_hint]  # type: ignore[return-value]
        name = self._name(key)
        if name in self._high:
            return self._high[name]
        op = self._function_op(name)
        if op is None:
            raise KeyError(f"no function @{name} in the module")
        if is_tir_function(op):
            raise TVMError(
                f"@{name} is a tir function (what tvm.lower gives): xtvm keeps it in its tir "
                "dialect, not as TVM's PrimFunc nodes; print(mod) shows it and tvm.build(mod) "
                "compiles it"
            )
        cached = self._cache.get(name)
        if cached is None or cached[0] is not op:
            globals_ = {gv.name_hint: gv for gv in self.get_global_vars()}
            cached = (op, raise_function(op, globals_, self._local_functions()))
            self._cache[name] = cached
        return cached[1]

    def __setitem__(self, key: str | GlobalVar, fn: Expr) -> None:
        if isinstance(key, GlobalTypeVar) or isinstance(fn, TypeData):
            if not (isinstance(key, GlobalTypeVar) and isinstance(fn, TypeData)):
                raise TypeError("a type definition is stored as mod[GlobalTypeVar] = TypeData")
            self._add_type(key, fn)
            return
        if not isinstance(fn, Function):
            raise TypeError(f"a module holds functions, got {type(fn).__name__}")
        if isinstance(key, GlobalVar) and key.type_annotation is None:
            key.type_annotation = declared_type(fn)  # a recursive call's type
        name = self._name(key)
        if needs_interpreter(fn) or self._calls_interpreted(fn):
            self._add_interpreted(name, fn)
        else:
            self._high.pop(name, None)
            self._lower(name, fn)
        if isinstance(key, GlobalVar) and key.type_annotation is None:
            key.type_annotation = fn.checked_type  # calls of `key` built later are typed

    def remove(self, key: str | GlobalVar) -> None:
        """Take function `key` out of the module (TVM's `IRModule.remove`)."""
        name = self._name(key)
        if name not in self:
            raise KeyError(f"no function @{name} in the module")
        if self._high.pop(name, None) is None:
            self._module.body.block.erase_op(self._function_op(name))  # type: ignore[arg-type]
        self._cache.pop(name, None)

    def update_func(self, var: GlobalVar, fn: Function) -> None:
        self[var] = fn

    def _calls_interpreted(self, fn: Function) -> bool:
        return any(
            isinstance(node, GlobalVar) and node.name_hint in self._high
            for node in post_order(fn, with_callees)
        )

    def _add_interpreted(self, name: str, fn: Function) -> None:
        """Keep `fn` as an expression: its calls of other globals are typed from the module."""
        own = declared_type(fn)
        for node in post_order(fn):
            if isinstance(node, GlobalVar) and node.type_annotation is None:
                if node.name_hint == name:
                    node.type_annotation = own
                elif node.name_hint in self:
                    node.type_annotation = self[node.name_hint].checked_type  # type: ignore[assignment]
        old = self._function_op(name)
        if old is not None:
            self._module.body.block.erase_op(old)
            self._cache.pop(name, None)
        self._high[name] = fn
        try:
            fn.checked_type  # noqa: B018  (ill-typed functions are refused here)
        except Exception:
            del self._high[name]
            raise

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

    def _add(self, name: str | GlobalVar, fn: Function, update: bool = False) -> None:
        self[name] = fn

    @property
    def functions(self) -> dict[GlobalVar, Function]:
        return {gv: self[gv] for gv in self.get_global_vars()}

    def items(self) -> Iterator[tuple[GlobalVar, Function]]:
        return iter(self.functions.items())

    def get_global_var(self, name: str) -> GlobalVar:
        if name in self._high:
            return GlobalVar(name, self._high[name].checked_type)  # type: ignore[arg-type]
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
            GlobalVar(
                op.sym_name.data, None if is_tir_function(op) else function_type(op.function_type)
            )
            for op in self._module.ops
            if isinstance(op, func.FuncOp) and not is_literal(op)
        ] + [self.get_global_var(name) for name in self._high]

    # -- text --------------------------------------------------------------------------------

    def astext(self, show_meta_data: bool = True) -> str:
        """TVM's Relay text of this module (`def @main(...) { ... }`); `str(mod)` is the IR.

        A module of tir kernels (what `tvm.lower` returns) has no Relay text: its IR is shown.
        """
        try:
            functions = list(self.items())
        except (TypeError, ConversionError, TVMError):
            return print_ir(self._module, api_context())
        printer = TextPrinter()
        printer.show_meta_data = show_meta_data
        return printer.module(
            ((gv.name_hint, fn) for gv, fn in functions), list(self._type_defs.values())
        )

    def __str__(self) -> str:
        """xtvm's IR; a module with type definitions or functions the IR has no form for
        shows its Relay text, the only form that holds all of it."""
        if self._type_defs or self._high:
            return self.astext()
        return print_ir(self._module, api_context())

    def __repr__(self) -> str:
        names = ", ".join(f"@{gv.name_hint}" for gv in self.get_global_vars())
        return f"IRModule({names})"


# Imported last: the relay package imports this module, and finds IRModule defined already.
from xtvm.api.relay.adt import (  # noqa: E402
    Constructor,
    Match,
    RefCreate,
    RefRead,
    RefWrite,
    TypeData,
)
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
    Op,
    Tuple,
    Var,
    function_type,
    has_type,
    post_order,
)
from xtvm.api.relay.text_printer import TextPrinter  # noqa: E402
from xtvm.api.relay.ty import (  # noqa: E402
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
)


class TypeDefinitions(dict):  # type: ignore[type-arg]
    """`mod.type_definitions`: a mapping whose `items()` is a list, as TVM's Map gives."""

    def items(self) -> list[tuple[GlobalTypeVar, TypeData]]:  # type: ignore[override]
        return list(super().items())


def dialect_type(typ: Type) -> bool:
    """Whether `typ` has a relay-dialect form: tensors and tuples of them."""
    if isinstance(typ, TupleType):
        return all(dialect_type(f) for f in typ.fields)
    return isinstance(typ, TensorType)


def is_tir_function(op: func.FuncOp) -> bool:
    """A function of buffers (memrefs): a lowered tir kernel, not a relay function."""
    return any(isinstance(t, MemRefType) for t in op.function_type.inputs.data)


def needs_interpreter(fn: Function) -> bool:
    """Whether `fn` uses what the relay dialect has no form for: type parameters, ADTs,
    references, values of function, ADT or reference type."""
    if fn.type_params:
        return True
    typ = fn.checked_type
    assert isinstance(typ, FuncType)
    if not all(plain(t) for t in (*typ.arg_types, typ.ret_type)):
        return True
    for node in post_order(fn, with_callees):
        if isinstance(node, Match | Constructor | RefCreate | RefRead | RefWrite):
            return True
        if isinstance(node, Function) and (
            node.type_params or (node is not fn and not callee_only(fn, node))
        ):
            return True
        if isinstance(node, Var) and not plain(node.checked_type):
            return True
        if isinstance(node, Call) and not isinstance(node.op, Op | Function | GlobalVar):
            return True  # a call of a computed function value (a variable, an If, ...)
        if isinstance(node, Call) and isinstance(node.op, Op) and node.op.registered_from_python:
            return True  # no dialect op; it type-checks and the interpreter says why it can't run
    return False


def with_callees(node: Expr) -> list[Expr]:
    """A node's children, the callee of a call included."""
    if isinstance(node, Call) and isinstance(node.op, Expr) and not isinstance(node.op, Function):
        return [*node.children(), node.op]
    return list(node.children())


def plain(typ: Type) -> bool:
    """A type with no type variables, ADTs, references, unknowns or functions."""
    if isinstance(typ, TupleType):
        return all(plain(f) for f in typ.fields)
    return not isinstance(typ, TypeVar | TypeCall | RefType | IncompleteType | FuncType)


def callee_only(fn: Function, inner: Function) -> bool:
    """Whether the function literal `inner` appears in `fn` only as the callee of calls (which
    the dialect outlines), not as a value."""
    for node in post_order(fn):
        if isinstance(node, Call) and inner in node.args:
            return False
        if isinstance(node, Tuple) and any(f is inner for f in node.fields):
            return False
        if isinstance(node, Let) and node.value is inner:
            return False
        if isinstance(node, If) and inner in (node.true_branch, node.false_branch):
            return False
    return fn.body is not inner


def declared_type(fn: Function) -> FuncType | None:
    """The type of `fn` before its recursive calls are typed: typed parameters and the declared
    return type, else the type of a base case (a branch of an `If` that needs no recursion)."""
    if any(p.type_annotation is None for p in fn.params):
        return None
    ret = fn.ret_type if fn.ret_type is not None else base_case_type(fn.body)
    if ret is None:
        return None
    return FuncType([p.type_annotation for p in fn.params], ret, fn.type_params)  # type: ignore[misc]


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


def expr_text(expr: Expr, show_meta_data: bool = True) -> str:
    """TVM's Relay text of `expr`: a function as `fn`, any other expression after `free_var`
    declarations of its free variables."""
    printer = TextPrinter()
    printer.show_meta_data = show_meta_data
    return printer.expression(expr)


HOOKS["text"] = expr_text
HOOKS["module"] = lambda expr: IRModule.from_expr(expr).xdsl
