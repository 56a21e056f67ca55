"""TVM's Relay text format printed from relay expressions: `expr.astext()`, `mod.astext()`.

What TVM 0.13 prints, and what `tvm.parser.parse` / `relay.parse_expr` (xtvm/api/relay/text.py)
read back: a version header, `def @f(%x: Tensor[(1, 3), float32]) -> ... { ... }` per function,
calls bound to `%0`, `%1`, ... with `/* ty=... */` comments, `let`, `if (...) {...} else {...}`,
and an expression's free variables declared by `free_var`. Constants that are not scalars have
no literal syntax; they print as TVM's `meta[relay.Constant][i]` references.
"""

from __future__ import annotations

import inspect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from functools import cache

import numpy as np
from xdsl.dialects.builtin import BFloat16Type
from xdsl.ir import TypeAttribute

from xtvm.api.relay import op_attrs
from xtvm.api.relay.adt import (
    Constructor,
    Match,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    RefCreate,
    RefRead,
    RefWrite,
    TypeData,
)
from xtvm.api.relay.expr import (
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
    has_type,
    post_order,
)
from xtvm.api.relay.metadata import SECTION, encode_section
from xtvm.api.relay.ty import FuncType, RefType, TensorType, TupleType, Type, TypeCall
from xtvm.ir.numpy_types import numpy_dtype
from xtvm.te.expr import Var as TeVar

VERSION = '#[version = "0.0.5"]'


# operators whose TVM form takes a tuple of tensors, which xtvm's call holds as its arguments
TUPLE_OPERAND_OPS = frozenset({"concatenate"})


# attributes TVM's attrs declare without a default (a pool's window): its printer shows them
# whatever their value, where the Python builder has a default for them
NO_DEFAULT_ATTRS = frozenset({"pool_size"})


@cache
def default_attrs(op_name: str) -> dict[str, str]:
    """The text of each default attribute value of the operator `op_name`'s API function: as
    TVM's printer, a call shows only the attributes that differ from their defaults."""
    from xtvm.api.relay.op_table import operator_table  # its op modules load this printer

    fn = operator_table().get(op_name)
    if fn is None:
        return {}
    params = inspect.signature(fn).parameters.values()
    return {
        p.name: value_text(p.default)
        for p in params
        if p.default is not p.empty and p.name not in NO_DEFAULT_ATTRS
    }


CONV_OPS = frozenset({"nn.conv1d", "nn.conv2d", "qnn.conv2d", "nn.conv3d"})
CONV_TRANSPOSE_OPS = frozenset(
    {"nn.conv1d_transpose", "nn.conv2d_transpose", "nn.conv3d_transpose"}
)


def conv_weight_attrs(call: Call) -> dict[str, object]:
    """`channels` and `kernel_size` of a convolution call, which xtvm's op keeps in its
    weight's type: TVM prints them (an untyped weight reads back only with them). A
    transposed convolution's weight holds the output channels of one group."""
    weight = call.args[1]
    default = "IOHW" if call.op.name in CONV_TRANSPOSE_OPS else "OIHW"  # type: ignore[attr-defined]
    layout = str(call.attrs.get("kernel_layout", default))
    typ = weight.checked_type if has_type(weight) else None
    if not isinstance(typ, TensorType) or len(layout) != len(typ.shape) or "O" not in layout:
        return {}
    dims = [int(d) if isinstance(d, int) or hasattr(d, "value") else None for d in typ.shape]
    spatial = [dims[layout.index(a)] for a in "DHW" if a in layout]
    channels = dims[layout.index("O")]
    if channels is None or not spatial or None in spatial:
        return {}
    if call.op.name in CONV_TRANSPOSE_OPS:  # type: ignore[attr-defined]
        channels *= int(call.attrs.get("groups", 1))
    return {"channels": channels, "kernel_size": tuple(spatial)}


def attr_texts(call: Call) -> list[tuple[str, str]]:
    """The attributes TVM prints for an operator call, as (name, text): its attribute node's
    fields that are required or not at their default, in TVM's order (xtvm/api/relay/
    op_attrs.py), then any xtvm keeps beyond them; for an op without TVM's node described,
    those that differ from its builder's defaults."""
    callee = call.op.name  # type: ignore[union-attr]
    attrs = dict(call.attrs if has_type(call) else (call.kwargs or {}))
    if (callee in CONV_OPS or callee in CONV_TRANSPOSE_OPS) and call.tvm_attrs is None:
        attrs |= conv_weight_attrs(call)  # an untyped weight reads back only with them
    values = attrs | (call.tvm_attrs or {})
    fields = op_attrs.printed(callee, values)
    if fields is None:
        defaults = default_attrs(callee)
        texts = {k: value_text(v) for k, v in attrs.items()}
        return [(k, t) for k, t in texts.items() if defaults.get(k) != t]
    known = set(op_attrs.attr_names(callee))
    extra = [(k, v) for k, v in attrs.items() if k not in known]
    return [(k, value_text(v)) for k, v in fields + extra]


# The size variables the text being printed names (`meta[tir.SizeVar][i]`); None outside a
# printer's run, where a size variable prints as `?`.
SIZE_VARS: ContextVar[list[TeVar] | None] = ContextVar("size_vars", default=None)


def dim_text(d: object) -> str:
    """A dimension: its value, `meta[tir.SizeVar][i]` for a `te.size_var` (as TVM prints
    one), `?` for `relay.Any()`."""
    if isinstance(d, int):
        return str(d)
    table = SIZE_VARS.get()
    if not isinstance(d, TeVar) or table is None:
        return "?"
    index = next((k for k, v in enumerate(table) if v is d), None)
    if index is None:
        index = len(table)
        table.append(d)
    return f"meta[tir.SizeVar][{index}]"


def type_text(typ: Type) -> str:
    if isinstance(typ, TensorType):
        if not typ.shape:
            return str(typ.dtype)
        dims = ", ".join(dim_text(d) for d in typ.shape)
        return f"Tensor[({dims}), {typ.dtype}]"
    if isinstance(typ, TupleType):
        fields = [type_text(t) for t in typ.fields]
        return f"({fields[0]},)" if len(fields) == 1 else f"({', '.join(fields)})"
    if isinstance(typ, FuncType):
        args = ", ".join(type_text(t) for t in typ.arg_types)
        params = f"[{', '.join(map(str, typ.type_params))}]" if typ.type_params else ""
        return f"fn {params}({args}) -> {type_text(typ.ret_type)}"
    if isinstance(typ, TypeCall):
        args = ", ".join(type_text(t) for t in typ.args)
        return f"{typ.func.name_hint}[{args}]" if typ.args else typ.func.name_hint
    if isinstance(typ, RefType):
        return f"ref({type_text(typ.value)})"
    return str(typ)


def type_data_text(data: TypeData) -> str:
    """`type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}` as TVM prints a definition."""
    params = f"[{', '.join(map(str, data.type_vars))}]" if data.type_vars else ""
    constructors = [
        c.name_hint + (f"({', '.join(type_text(t) for t in c.inputs)})" if c.inputs else "")
        for c in data.constructors
    ]
    body = "".join(f"\n  {c}," for c in constructors)
    return f"type {data.header.name_hint}{params} {{{body}\n}}"


def dataflow_children(expr: Expr) -> list[Expr]:
    """The operands printed in the same scope as `expr` (not inside a function, let or if)."""
    if isinstance(expr, Call):
        return list(expr.args)
    if isinstance(expr, Tuple):
        return list(expr.fields)
    if isinstance(expr, TupleGetItem):
        return [expr.tuple_value]
    return []


def printed_children(expr: Expr) -> Sequence[Expr]:
    """The operands written in `expr`'s text (a variable's bound value is not)."""
    return () if isinstance(expr, Var) else expr.children()


def scalar_text(value: np.ndarray) -> str:
    """A scalar constant as a typed literal: `1f`, `2i64`, `True`, `0.5f16`."""
    dtype = value.dtype
    item = value.item()
    if dtype == np.bool_:
        return "True" if item else "False"
    if dtype.kind == "f":
        if math.isinf(item) or math.isnan(item):
            return f"{'-' if item < 0 else ''}{'inf' if math.isinf(item) else 'nan'}f"
        suffix = "" if dtype == np.float32 else str(dtype.itemsize * 8)
        return f"{float(item)!r}".removesuffix(".0") + f"f{suffix}"
    suffix = {np.dtype("int32"): ""}.get(
        dtype, f"{'u' if dtype.kind == 'u' else 'i'}{dtype.itemsize * 8}"
    )
    return f"{int(item)}{suffix}"


def value_text(value: object) -> str:
    """An attribute value as the parser reads it."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if value is None:
        return "None"
    if isinstance(value, BFloat16Type):
        return '"bfloat16"'
    if isinstance(value, TypeAttribute):  # a dtype attribute (cast's), as its TVM name
        return value_text(numpy_dtype(value).name)
    if hasattr(value, "value") and not isinstance(value, int | float):
        return value_text(value.value)  # a tir.IntImm function attribute
    return repr(value)


class TextPrinter:
    """Prints one module or expression; variable names stay unique across it."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.taken: set[str] = set()
        self.counter = 0
        self.meta: list[Constant] = []
        self.meta_index: dict[int, int] = {}
        self.size_vars: list[TeVar] = []  # the shapes' size variables, in order of appearance
        self.show_meta_data = True  # end with the `#[metadata]` section the references name
        # a module is printed type-checked, as after TVM's InferType: constants and each
        # body's result carry their `/* ty= */` too (a bare expression's do not)
        self.typed = False
        self.uses: Counter[int] = Counter()  # references to each node, by id

    def count_uses(self, root: Expr) -> None:
        """Count the references to each node under `root`: a tuple referenced twice is bound
        to a `%n` once, as TVM prints it (one referenced once is written in place)."""
        for node in post_order(root, printed_children):
            self.uses.update(id(c) for c in printed_children(node))

    def var(self, v: Var) -> str:
        name = self.names.get(id(v))
        if name is None:
            # TVM's identifiers: letters, digits, `_`, and `/` past the first character
            base = re.sub(r"[^A-Za-z0-9_/]", "_", v.name_hint).lstrip("/") or "v"
            base = f"v{base}" if base[0].isdigit() else base
            name, n = f"%{base}", 0
            while name in self.taken:
                n += 1
                name = f"%{base}{n}"
            self.taken.add(name)
            self.names[id(v)] = name
        return name

    def declaration(self, v: Var) -> str:
        typ = v.type_annotation
        return self.var(v) + (f": {type_text(typ)}" if typ is not None else "")

    # -- modules and functions --------------------------------------------------------------

    def module(
        self, functions: Iterable[tuple[str, Function]], types: Sequence[TypeData] = ()
    ) -> str:
        token = SIZE_VARS.set(self.size_vars)
        try:
            return self._module(functions, types)
        finally:
            SIZE_VARS.reset(token)

    def _module(self, functions: Iterable[tuple[str, Function]], types: Sequence[TypeData]) -> str:
        parts = [VERSION]
        for data in types:
            parts += [type_data_text(data), ""]
        self.typed = True
        for name, fn in functions:
            self.taken, self.counter = set(), 0  # names are per function, as TVM prints them
            self.count_uses(fn)
            parts.append(f"def @{name}{self.signature(fn)} {{\n{self.body(fn.body, {}, '  ')}\n}}")
            parts.append("")
        return self.with_metadata("\n".join(parts).rstrip() + "\n")

    def with_metadata(self, text: str) -> str:
        """`text` followed by the metadata section of the constants and size variables it
        references."""
        if not (self.meta or self.size_vars) or not self.show_meta_data:
            return text
        section = encode_section(self.meta, self.size_vars)
        return f"{text.rstrip()}\n\n{SECTION}\n{section}\n"

    def signature(self, fn: Function) -> str:
        params = f"[{', '.join(map(str, fn.type_params))}]" if fn.type_params else ""
        items = [self.declaration(p) for p in fn.params]
        items += [f"{k}={value_text(v)}" for k, v in fn.attrs.items()]
        ret = fn.ret_type
        if ret is None and all(p.type_annotation is not None for p in fn.params):
            ret = fn.body.checked_type if has_type(fn.body) else None
        arrow = f" -> {type_text(ret)}" if ret is not None else ""
        return f"{params}({', '.join(items)})" + arrow

    def expression(self, expr: Expr) -> str:
        """TVM's `expr.astext()`: the version, `free_var` lines, then the expression."""
        from xtvm.api.relay.analysis import free_vars

        token = SIZE_VARS.set(self.size_vars)
        try:
            return self._expression(expr, free_vars)
        finally:
            SIZE_VARS.reset(token)

    def _expression(self, expr: Expr, free_vars: Callable[[Expr], list[Var]]) -> str:
        self.count_uses(expr)
        lines = [VERSION]
        lines += [f"free_var {self.declaration(v)};" for v in free_vars(expr)]
        lines.append(self.body(expr, {}, ""))
        return self.with_metadata("\n".join(lines))

    # -- bodies ------------------------------------------------------------------------------

    def body(self, expr: Expr, outer: Mapping[int, str], indent: str) -> str:
        """The statements computing `expr` and then `expr` itself, in a scope that sees `outer`."""
        lines: list[str] = []
        names = dict(outer)
        # Bindings first, operands before users, so that printing never recurses deeply.
        for node in post_order(expr, dataflow_children):
            if node is not expr and isinstance(node, Call | TupleGetItem):
                self.expr(node, names, lines, indent)
        result = self.expr(expr, names, lines, indent, root=True)
        if isinstance(expr, Call):
            result += self.type_comment(expr)
        return "\n".join([*lines, indent + result])

    def type_comment(self, expr: Expr) -> str:
        """` /* ty=... */` for an expression of a type-checked module, else nothing."""
        return f" /* ty={type_text(expr.checked_type)} */" if self.typed and has_type(expr) else ""

    def bind(
        self, expr: Expr, text: str, names: dict[int, str], lines: list[str], indent: str
    ) -> str:
        name = f"%{self.counter}"
        self.counter += 1
        lines.append(f"{indent}{name} = {text}{self.type_comment(expr)};")
        names[id(expr)] = name
        return name

    def expr(
        self, e: Expr, names: dict[int, str], lines: list[str], indent: str, root: bool = False
    ) -> str:
        if id(e) in names:
            return names[id(e)]
        if isinstance(e, Var):
            return self.var(e)
        if isinstance(e, GlobalVar):
            return f"@{e.name_hint}"
        if isinstance(e, Constant):
            data = e.data.numpy()
            if data.shape == ():
                return scalar_text(data) + self.type_comment(e)
            for name, fill in (("zeros", 0), ("ones", 1)):
                if data.size and bool((data == fill).all()):  # as TVM's op, which reads back
                    return f'{name}(shape={value_text(list(data.shape))}, dtype="{data.dtype}")'
            if id(e) not in self.meta_index:  # a constant used twice is one entry, as in TVM
                self.meta_index[id(e)] = len(self.meta)
                self.meta.append(e)
            return f"meta[relay.Constant][{self.meta_index[id(e)]}]"
        if isinstance(e, ParamRef):
            return f'param["{e.name}"]'
        if isinstance(e, Tuple):
            fields = [self.expr(f, names, lines, indent) for f in e.fields]
            text = f"({fields[0]},)" if len(fields) == 1 else f"({', '.join(fields)})"
            shared = self.uses[id(e)] > 1 and not root
            return self.bind(e, text, names, lines, indent) if shared else text
        if isinstance(e, TupleGetItem):
            text = f"{self.expr(e.tuple_value, names, lines, indent)}.{e.index}"
            return text if root else self.bind(e, text, names, lines, indent)
        if isinstance(e, Let) and not root:  # an operand: its bindings stay in parentheses
            inner = self.body(e, names, indent + "  ")
            return self.bind(e, f"(\n{inner}\n{indent})", names, lines, indent)
        if isinstance(e, Let):
            value = self.expr(e.value, names, lines, indent)
            lines.append(f"{indent}let {self.declaration(e.var)} = {value};")
            return self.expr(e.body, names, lines, indent, root)
        if isinstance(e, If):
            cond = self.expr(e.cond, names, lines, indent)
            inner = indent + "  "
            then = self.body(e.true_branch, names, inner)
            other = self.body(e.false_branch, names, inner)
            text = f"if ({cond}) {{\n{then}\n{indent}}} else {{\n{other}\n{indent}}}"
            return text if root else self.bind(e, text, names, lines, indent)
        if isinstance(e, Function):
            body = self.body(e.body, names, indent + "  ")
            return f"fn {self.signature(e)} {{\n{body}\n{indent}}}"
        if isinstance(e, Call):
            return self.call(e, names, lines, indent, root)
        if isinstance(e, Constructor):
            return e.name_hint
        if isinstance(e, RefCreate | RefRead | RefWrite):
            operands = ", ".join(self.expr(c, names, lines, indent) for c in e.children())
            kind = {RefCreate: "ref", RefRead: "ref_read", RefWrite: "ref_write"}[type(e)]
            text = f"{kind}({operands})"
            return text if root else self.bind(e, text, names, lines, indent)
        if isinstance(e, Match):
            data = self.expr(e.data, names, lines, indent)
            inner = indent + "  "
            clauses = [
                f"{inner}{self.pattern(c.lhs)} => {{\n{self.body(c.rhs, names, inner + '  ')}"
                f"\n{inner}}},"
                for c in e.clauses
            ]
            keyword = "match" if e.complete else "match?"
            text = f"{keyword} ({data}) {{\n" + "\n".join(clauses) + f"\n{indent}}}"
            return text if root else self.bind(e, text, names, lines, indent)
        raise TypeError(f"cannot print {type(e).__name__} as Relay text")

    def pattern(self, p: Pattern) -> str:
        if isinstance(p, PatternVar):
            return self.declaration(p.var)
        if isinstance(p, PatternConstructor):
            subs = ", ".join(self.pattern(q) for q in p.patterns)
            return f"{p.constructor.name_hint}({subs})" if p.patterns else p.constructor.name_hint
        if isinstance(p, PatternTuple):
            return f"({', '.join(self.pattern(q) for q in p.patterns)})"
        return "_"

    def call(
        self, e: Call, names: dict[int, str], lines: list[str], indent: str, root: bool
    ) -> str:
        args = [self.expr(a, names, lines, indent) for a in e.args]
        if isinstance(e.op, Op) and e.op.name in TUPLE_OPERAND_OPS:
            # TVM's operator takes one tuple; xtvm's call holds its fields
            args = [f"({args[0]},)" if len(args) == 1 else f"({', '.join(args)})"]
        if isinstance(e.op, Op):
            callee = e.op.name
            args += [f"{k}={t}" for k, t in attr_texts(e)]
        else:
            callee = self.expr(e.op, names, lines, indent)
            if isinstance(e.op, Constructor) and not args:
                return callee  # a constant constructor: `Nil`
            if isinstance(e.op, Function):  # a called function literal is bound, as in TVM
                callee = self.bind(e.op, callee, names, lines, indent)
        text = f"{callee}({', '.join(args)})"
        return text if root else self.bind(e, text, names, lines, indent)
