"""TVM's relay Python API over xtvm's relay dialect: `from xtvm import relay`.

Build programs with `relay.var`, `relay.const` and the operators (`relay.add`,
`relay.nn.conv2d`, ...), wrap them in `relay.Function`, put them in an `IRModule`, transform
them with `relay.transform` and run them with `relay.create_executor`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xtvm.api.ir_module import IRModule
from xtvm.api.relay import (
    analysis,
    dataflow_pattern,
    expr_functor,
    frontend,
    op,
    transform,
    type_infer,
)
from xtvm.api.relay.adt import (
    Clause,
    Constructor,
    Match,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    TypeData,
)
from xtvm.api.relay.executor import create_executor
from xtvm.api.relay.expr import (
    Attrs,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    ParamRef,
    RelayTypeError,
    Tuple,
    TupleGetItem,
    Var,
    const,
    var,
)
from xtvm.api.relay.expr_functor import ExprFunctor, ExprMutator, ExprVisitor, bind
from xtvm.api.relay.op import *  # noqa: F403  (TVM exposes every operator at relay.*)
from xtvm.api.relay.op import annotation, image, nn, vision
from xtvm.api.relay.scope_builder import ScopeBuilder
from xtvm.api.relay.ty import (
    Any,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
    scalar_type,
)
from xtvm.backends.external import resolve_global
from xtvm.runtime.registry import add_resolver

# `tvm.get_global_func("relay.ext.dnnl")` finds the codegen before anything has loaded it.
add_resolver(resolve_global)


def param(name: str, shape: Sequence[int], dtype: str = "float32") -> ParamRef:
    """A weight by reference (`relay.param["name"]` in the IR), bound from params at run time."""
    return ParamRef(name, TensorType(shape, dtype))


def fromtext(
    text: str,
    source_name: str = "from_string",
    init_module: IRModule | None = None,
    init_meta_table: Mapping[str, Sequence[object]] | None = None,
) -> IRModule:
    """An IRModule from TVM's Relay text format (`def @main(%x: Tensor[...]) { ... }`);
    `meta[relay.Constant][i]` references name its `#[metadata]` section or `init_meta_table`."""
    from xtvm.api.relay.text import parse

    return parse(text, source_name, init_module, init_meta_table)


def parse(
    text: str,
    source_name: str = "from_string",
    init_module: IRModule | None = None,
    init_meta_table: Mapping[str, Sequence[object]] | None = None,
) -> IRModule:
    """`relay.parse`: an IRModule from TVM's Relay text, as `tvm.parser.parse`."""
    return fromtext(text, source_name, init_module, init_meta_table)


def parse_expr(text: str, source_name: str = "from_string") -> Expr:
    """`relay.parse_expr`: an expression from TVM's Relay text (what `expr.astext()` prints)."""
    from xtvm.api.relay.text import parse_expr as parse_relay_expr

    return parse_relay_expr(text, source_name)


__all__ = [
    "Any",
    "Clause",
    "Constructor",
    "GlobalTypeVar",
    "IncompleteType",
    "Match",
    "Pattern",
    "PatternConstructor",
    "PatternTuple",
    "PatternVar",
    "PatternWildcard",
    "RefCreate",
    "RefRead",
    "RefType",
    "RefWrite",
    "TypeCall",
    "TypeData",
    "TypeVar",
    "type_infer",
    "Attrs",
    "Call",
    "Constant",
    "Expr",
    "ExprFunctor",
    "ExprMutator",
    "ExprVisitor",
    "FuncType",
    "Function",
    "GlobalVar",
    "IRModule",
    "If",
    "Let",
    "ParamRef",
    "RelayTypeError",
    "ScopeBuilder",
    "TensorType",
    "Tuple",
    "TupleGetItem",
    "TupleType",
    "Var",
    "Type",
    "analysis",
    "annotation",
    "bind",
    "build",
    "const",
    "dataflow_pattern",
    "create_executor",
    "expr_functor",
    "fromtext",
    "frontend",
    "image",
    "nn",
    "op",
    "param",
    "parse",
    "parse_expr",
    "scalar_type",
    "transform",
    "var",
    "vision",
    *op.__all__,
]


# As TVM's relay.op.contrib does on import: the `target.dnnl` predicates are registered, so
# AnnotateTarget("dnnl") claims what DNNL supports.
from xtvm.api.relay.op.contrib import dnnl as _dnnl  # noqa: E402, F401


def build(*args: object, **kwargs: object) -> object:
    """`relay.build(mod, target=, params=)`: see `xtvm.driver.relay_build.build`.

    Imported on first use: the compiler passes it runs import the TE API, which imports
    this package.
    """
    from xtvm.api.relay.build_module import build as build_module

    return build_module(*args, **kwargs)


def __getattr__(name: str) -> object:
    """`relay.backend`, `relay.build_module`, `relay.testing`, `relay.qnn` and `relay.vm`
    (which says there is no VM), imported on first use as `build` is."""
    if name in ("backend", "build_module", "testing", "vm", "prelude", "qnn"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'xtvm.relay' has no attribute '{name}'")


# The Relay text parser, which `IRModule.import_from_std` reaches through `expr.HOOKS`; and
# `relay.expr`, which in TVM also holds the reference expressions (adt.py defines them).
from xtvm.api.relay import expr as _expr  # noqa: E402
from xtvm.api.relay import text as _text  # noqa: E402, F401

_expr.RefCreate, _expr.RefRead, _expr.RefWrite = RefCreate, RefRead, RefWrite  # type: ignore[attr-defined]
