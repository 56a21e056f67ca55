"""`tvm.ir.save_json` / `load_json` of tensor expressions, in TVM's JSON node-graph format.

The format is TVM's: `{"root": i, "nodes": [...], "b64ndarrays": [], "attrs": {...}}`, each node
`{"type_key": ..., "attrs": {name: string}}` (an `Array` holds `"data": [indices]`, a `Map`
`"keys"` and `"data"`), references written as node indices in strings and node 0 the null node.
What is written: tensors, placeholder/compute/scan operations (a compute's attributes as
TVM's Map of IntImm/FloatImm/strings/arrays, read back as the plain Python values xtvm keeps,
arrays as tuples), iteration variables, ranges, variables, constants, arithmetic, comparisons,
selects, casts, intrinsic calls, tensor reads and reductions by `te.sum`/`prod`/`max`/`min`
(as TVM's `tir.CommReducer` of that operator).

Reading builds the same objects back and trusts nothing: the text is bounded in size, every
node is checked for its type key, its fields and the kinds of the nodes it points at, and a
reference cycle or a nesting deeper than MAX_DEPTH is refused. Nothing is evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from xtvm.ir.errors import TVMError
from xtvm.te.expr import (
    Binary,
    Call,
    Cast,
    ClampedSelect,
    Compare,
    ComputeOp,
    Const,
    Equality,
    FloatImm,
    IntImm,
    IterVar,
    Operation,
    PlaceholderOp,
    PrimExpr,
    Range,
    Read,
    Reduce,
    ScanOp,
    Select,
    Tensor,
    Var,
)

MAX_BYTES = 64 << 20
MAX_NODES = 1 << 20
MAX_DEPTH = 150  # nodes on one path from the root; the reader recurses
TVM_VERSION = "0.13.0"

BINARY = {
    "add": "tir.Add",
    "sub": "tir.Sub",
    "mul": "tir.Mul",
    "div": "tir.Div",
    "truncmod": "tir.Mod",
    "floordiv": "tir.FloorDiv",
    "floormod": "tir.FloorMod",
    "and": "tir.And",
    "or": "tir.Or",
}
COMPARE = {
    "eq": "tir.EQ",
    "ne": "tir.NE",
    "lt": "tir.LT",
    "le": "tir.LE",
    "gt": "tir.GT",
    "ge": "tir.GE",
}
CALLS = {"max": "tir.Max", "min": "tir.Min"}  # te.max(a, b) is TVM's Max node
REDUCERS = {"sum": "tir.Add", "prod": "tir.Mul", "max": "tir.Max", "min": "tir.Min"}


class JSONGraphError(TVMError, ValueError):
    """Text that is not a tensor expression graph in TVM's JSON format."""


# ---------------------------------------------------------------------------------------------
# Writing


class Writer:
    """Numbers the nodes of a graph as they are first met; shared objects are written once."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = [{"type_key": ""}]
        self.index: dict[int, int] = {}
        self.itervar_index: dict[int, int] = {}
        self.keep: list[object] = []  # keeps ids stable while writing

    def add(self, node: dict[str, Any]) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def node(self, key: object, type_key: str, fill: Callable[[], dict[str, str]]) -> str:
        """The index of `key`'s node, written by `fill` (its attrs) when first met."""
        if id(key) in self.index:
            return str(self.index[id(key)])
        at = self.add({"type_key": type_key})
        self.index[id(key)] = at
        self.keep.append(key)
        self.nodes[at]["attrs"] = fill()
        return str(at)

    def array(self, items: list[str]) -> str:
        return str(self.add({"type_key": "Array", "data": [int(i) for i in items]}))

    def string(self, value: str) -> str:
        return str(self.add({"type_key": "runtime.String", "repr_str": value}))

    def empty_map(self) -> str:
        return str(self.add({"type_key": "Map", "keys": [], "data": []}))

    def value(self, obj: object) -> str:
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, Operation):
            return self.operation(obj)
        if isinstance(obj, Range):
            return self.range(obj)
        if isinstance(obj, PrimExpr):
            return self.expr(obj)
        if isinstance(obj, list | tuple):
            return self.array([self.value(v) for v in obj])
        raise TVMError(f"save_json: cannot write a {type(obj).__name__}")

    def tensor(self, t: Tensor) -> str:
        return self.node(
            t,
            "Tensor",
            lambda: {
                "shape": self.array([self.expr(d) for d in t.shape]),
                "dtype": t.dtype,
                "op": self.operation(t.op),
                "value_index": str(t.value_index),
            },
        )

    def operation(self, op: Operation) -> str:
        common = lambda: {  # noqa: E731
            "name": op.name,
            "tag": getattr(op, "tag", ""),
            "attrs": self.attrs(op),
        }
        if isinstance(op, PlaceholderOp):
            return self.node(
                op,
                "te.PlaceholderOp",
                lambda: (
                    common()
                    | {"shape": self.array([self.expr(d) for d in op.shape]), "dtype": op.dtype}
                ),
            )
        if isinstance(op, ComputeOp):
            return self.node(
                op,
                "te.ComputeOp",
                lambda: (
                    common()
                    | {
                        "axis": self.array([self.itervar(a) for a in op.axis]),
                        "reduce_axis": self.array([self.itervar(a) for a in op.reduce_axis]),
                        "body": self.array([self.expr(b) for b in op.bodies]),
                    }
                ),
            )
        if isinstance(op, ScanOp):
            return self.node(
                op,
                "te.ScanOp",
                lambda: (
                    common()
                    | {
                        "scan_axis": self.itervar(op.scan_axis),
                        "init": self.array([self.tensor(t) for t in op.init]),
                        "update": self.array([self.tensor(t) for t in op.update]),
                        "state_placeholder": self.array(
                            [self.tensor(t) for t in op.state_placeholder]
                        ),
                        "inputs": self.array([]),
                        "spatial_axis_": self.array([]),
                    }
                ),
            )
        raise TVMError(f"save_json: cannot write a {type(op).__name__} (an extern or hybrid op)")

    def attrs(self, op: Operation) -> str:
        """A compute's attributes as TVM's Map: numbers as IntImm/FloatImm, strings, arrays."""
        attrs = getattr(op, "attrs", None) or {}
        keys = list(attrs)
        if not all(isinstance(k, str) for k in keys):
            raise TVMError(f"save_json: attribute names of '{op.name}' must be strings")
        data = [int(self.attr(attrs[k], f"{op.name}.{k}")) for k in keys]
        return str(self.add({"type_key": "Map", "keys": keys, "data": data}))

    def attr(self, value: object, where: str) -> str:
        if value is None:
            return "0"
        if isinstance(value, bool):
            return self.expr(IntImm("bool", value))
        if isinstance(value, int):
            return self.expr(IntImm("int64" if abs(value) >= 1 << 31 else "int32", value))
        if isinstance(value, float):
            return self.expr(FloatImm("float32", value))
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, list | tuple):
            return self.array([self.attr(v, where) for v in value])
        if isinstance(value, PrimExpr):
            return self.expr(value)
        raise TVMError(f"save_json: attribute {where} is a {type(value).__name__}")

    def range(self, r: Range) -> str:
        return self.node(
            r,
            "Range",
            lambda: {"min": self.expr(r.min), "extent": self.expr(r.extent), "span": "0"},
        )

    def itervar(self, iv: IterVar) -> str:
        """An IterVar's node; the IterVar object is also its own variable, a node apart."""
        if id(iv) in self.itervar_index:
            return str(self.itervar_index[id(iv)])
        at = self.add({"type_key": "tir.IterVar"})
        self.itervar_index[id(iv)] = at
        self.keep.append(iv)
        self.nodes[at]["attrs"] = {
            "dom": self.range(iv.dom),
            "var": self.var(iv),
            "iter_type": str(iv.iter_type),
            "thread_tag": iv.thread_tag,
            "span": "0",
        }
        return str(at)

    def var(self, v: Var | IterVar) -> str:
        return self.node(
            v,
            "tir.Var",
            lambda: {"name": v.name, "dtype": v.dtype, "type_annotation": "0", "span": "0"},
        )

    def expr(self, e: object) -> str:
        if isinstance(e, int):
            e = IntImm("int32", e)
        if not isinstance(e, PrimExpr):
            raise TVMError(f"save_json: cannot write a {type(e).__name__} as an expression")
        if isinstance(e, IterVar | Var):
            return self.var(e)
        if isinstance(e, Const):
            key = "FloatImm" if e.dtype.startswith(("float", "bfloat")) else "IntImm"
            value = repr(float(e.value)) if key == "FloatImm" else str(int(e.value))
            return self.node(e, key, lambda: {"dtype": e.dtype, "value": value, "span": "0"})
        if isinstance(e, Binary) and e.op in BINARY:
            return self.binary(e, BINARY[e.op], e.a, e.b)
        if isinstance(e, Compare) and e.op in COMPARE:
            return self.binary(e, COMPARE[e.op], e.a, e.b)
        if isinstance(e, Call) and e.name in CALLS and len(e.args) == 2:
            return self.binary(e, CALLS[e.name], *e.args)
        if isinstance(e, Select) and not isinstance(e, ClampedSelect):
            return self.node(
                e,
                "tir.Select",
                lambda: {
                    "dtype": e.dtype,
                    "condition": self.expr(e.condition),
                    "true_value": self.expr(e.true_value),
                    "false_value": self.expr(e.false_value),
                    "span": "0",
                },
            )
        if isinstance(e, Cast):
            return self.node(
                e, "tir.Cast", lambda: {"dtype": e.dtype, "value": self.expr(e.value), "span": "0"}
            )
        if isinstance(e, Call):
            return self.node(
                e,
                "tir.Call",
                lambda: {
                    "dtype": e.dtype,
                    "op": str(self.add({"type_key": "Op", "global_key": f"tir.{e.name}"})),
                    "args": self.array([self.expr(a) for a in e.args]),
                    "span": "0",
                },
            )
        if isinstance(e, Read):
            return self.node(
                e,
                "tir.ProducerLoad",
                lambda: {
                    "dtype": e.dtype,
                    "producer": self.tensor(e.tensor),
                    "indices": self.array([self.expr(i) for i in e.indices]),
                    "span": "0",
                },
            )
        if isinstance(e, Reduce):
            return self.node(e, "tir.Reduce", lambda: self.reduce(e))
        raise TVMError(f"save_json: cannot write the expression {type(e).__name__}")

    def binary(self, e: PrimExpr, key: str, a: PrimExpr, b: PrimExpr) -> str:
        return self.node(
            e,
            key,
            lambda: {"dtype": e.dtype, "a": self.expr(a), "b": self.expr(b), "span": "0"},
        )

    def reduce(self, e: Reduce) -> dict[str, str]:
        if not isinstance(e.combiner, str) or e.combiner not in REDUCERS or len(e.sources) != 1:
            raise TVMError(
                "save_json: only reductions by te.sum, te.prod, te.max and te.min can be written"
            )
        from xtvm.te.expr import IDENTITY

        x, y = Var("x", e.dtype), Var("y", e.dtype)
        result = self.add(
            {
                "type_key": REDUCERS[e.combiner],
                "attrs": {"dtype": e.dtype, "a": self.var(x), "b": self.var(y), "span": "0"},
            }
        )
        identity = Const(IDENTITY[e.combiner](e.dtype), e.dtype)
        combiner = self.add(
            {
                "type_key": "tir.CommReducer",
                "attrs": {
                    "lhs": self.array([self.var(x)]),
                    "rhs": self.array([self.var(y)]),
                    "result": self.array([str(result)]),
                    "identity_element": self.array([self.expr(identity)]),
                    "span": "0",
                },
            }
        )
        return {
            "dtype": e.dtype,
            "combiner": str(combiner),
            "source": self.array([self.expr(e.source)]),
            "init": self.array([] if e.init is None else [self.expr(e.init)]),
            "axis": self.array([self.itervar(a) for a in e.axes]),
            "condition": self.expr(IntImm("bool", 1)),
            "value_index": str(e.value_index),
            "span": "0",
        }


def save_json(node: object) -> str:
    """`node` (a te tensor, operation, iteration variable or expression) as TVM's JSON."""
    writer = Writer()
    try:
        root = writer.value(node)
    except RecursionError:
        raise TVMError("save_json: the expression nests too deeply to write") from None
    graph = {
        "root": int(root),
        "nodes": writer.nodes,
        "b64ndarrays": [],
        "attrs": {"tvm_version": TVM_VERSION},
    }
    return json.dumps(graph, indent=2)


# ---------------------------------------------------------------------------------------------
# Reading


class Reader:
    """Builds the objects of a node graph, each node once, refusing anything malformed."""

    def __init__(self, nodes: list[Any]) -> None:
        self.nodes = nodes
        self.built: dict[int, object] = {}
        self.open: set[int] = set()
        self.itervars: dict[int, IterVar] = {}  # var node -> the IterVar declaring it

    def fail(self, message: str) -> JSONGraphError:
        return JSONGraphError(f"load_json: {message}")

    def raw(self, index: object) -> tuple[int, dict[str, Any]]:
        try:
            at = int(index)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise self.fail(f"a node reference {index!r} is not an index") from None
        if not 0 < at < len(self.nodes) or not isinstance(self.nodes[at], dict):
            raise self.fail(f"node reference {at} is out of range")
        return at, self.nodes[at]

    def field(self, node: dict[str, Any], name: str) -> str:
        attrs = node.get("attrs")
        if not isinstance(attrs, dict) or not isinstance(attrs.get(name), str):
            raise self.fail(f"a '{node.get('type_key')}' node has no field '{name}'")
        return attrs[name]

    def build(self, index: object, depth: int = 0) -> object:
        at, node = self.raw(index)
        if at in self.built:
            return self.built[at]
        if at in self.open:
            raise self.fail(f"node {at} refers to itself")
        if depth > MAX_DEPTH:
            raise self.fail(f"the graph nests deeper than {MAX_DEPTH} nodes")
        self.open.add(at)
        value = self.make(at, node, depth + 1)
        self.open.discard(at)
        self.built[at] = value
        return value

    def child(
        self, node: dict[str, Any], name: str, depth: int, kind: type | tuple[type, ...]
    ) -> Any:
        value = self.build(self.field(node, name), depth)
        if not isinstance(value, kind):
            raise self.fail(
                f"field '{name}' of a '{node['type_key']}' node is a {type(value).__name__}"
            )
        return value

    def items(
        self, node: dict[str, Any], name: str, depth: int, kind: type | tuple[type, ...]
    ) -> list[Any]:
        values = self.child(node, name, depth, list)
        if not all(isinstance(v, kind) for v in values):
            raise self.fail(f"field '{name}' of a '{node['type_key']}' node holds a wrong kind")
        return values

    def number(self, node: dict[str, Any], name: str) -> int:
        text = self.field(node, name)
        try:
            return int(text)
        except ValueError:
            raise self.fail(f"field '{name}' of a '{node['type_key']}' is not an integer") from None

    def make(self, at: int, node: dict[str, Any], depth: int) -> object:
        key = node.get("type_key")
        if key == "Array":
            data = node.get("data", [])
            if not isinstance(data, list):
                raise self.fail("an Array node's data is not a list")
            return [self.build(i, depth) for i in data]
        if key == "Map":
            keys, data = node.get("keys", []), node.get("data", [])
            if not isinstance(keys, list) or not isinstance(data, list) or len(keys) != len(data):
                raise self.fail("a Map node's keys and data differ")
            if not all(isinstance(k, str) for k in keys):
                raise self.fail("only maps with string keys can be read")
            return {
                k: None if str(v) == "0" else self.build(v, depth)
                for k, v in zip(keys, data, strict=True)
            }
        if key == "runtime.String":
            return str(node.get("repr_str", ""))
        if key in ("IntImm", "FloatImm"):
            dtype = self.field(node, "dtype")
            text = self.field(node, "value")
            try:
                if key == "IntImm":
                    return IntImm(dtype, int(text))
                return FloatImm(dtype, float(text))
            except (ValueError, TypeError, OverflowError, TVMError) as err:
                raise self.fail(f"a {key} is malformed: {err}") from None
        if key in ("tir.Var", "tir.SizeVar"):
            return Var(self.field(node, "name"), self.dtype(node))
        if key == "Range":
            return Range(self.extent(node, "min", depth), self.extent(node, "extent", depth))
        if key == "tir.IterVar":
            return self.itervar(node, depth)
        if key == "Tensor":
            op = self.child(node, "op", depth, Operation)
            k = self.number(node, "value_index")
            if not 0 <= k < len(op.outputs):
                raise self.fail(f"a tensor's value_index {k} is out of range")
            shape = self.items(node, "shape", depth, PrimExpr)
            tensor = op.outputs[k]
            if len(shape) != tensor.ndim or self.dtype(node) != tensor.dtype:
                raise self.fail(f"tensor {tensor.name}'s shape or dtype differs from its op's")
            return tensor
        if key == "te.PlaceholderOp":
            shape = tuple(self.extent_of(d) for d in self.items(node, "shape", depth, PrimExpr))
            self.child(node, "attrs", depth, dict)
            return PlaceholderOp(self.field(node, "name"), shape, self.dtype(node))
        if key == "te.ComputeOp":
            axis = self.items(node, "axis", depth, IterVar)
            self.items(node, "reduce_axis", depth, IterVar)
            body = self.items(node, "body", depth, PrimExpr)
            attrs = {k: self.plain(v) for k, v in self.child(node, "attrs", depth, dict).items()}
            if not body:
                raise self.fail("a compute has no body")
            name, tag = self.field(node, "name"), self.field(node, "tag")
            return ComputeOp(name, tag, axis, body, attrs)
        if key == "te.ScanOp":
            parts = [self.items(node, n, depth, Tensor) for n in ("init", "update")]
            states = self.items(node, "state_placeholder", depth, Tensor)
            if not states or not all(len(p) == len(states) for p in parts):
                raise self.fail("a scan's init, update and states differ in number")
            return ScanOp(self.field(node, "name"), self.field(node, "tag"), *parts, states)
        if key == "tir.ProducerLoad":
            tensor = self.child(node, "producer", depth, Tensor)
            indices = self.items(node, "indices", depth, PrimExpr)
            if len(indices) != tensor.ndim:
                raise self.fail(f"a read of {tensor.name} has {len(indices)} indices")
            return Read(tensor, tuple(indices))
        if key == "tir.Reduce":
            return self.reduce(node, depth)
        return self.expression(key, node, depth)

    def plain(self, value: object) -> object:
        """An attribute as xtvm keeps it: constants as Python numbers, arrays as tuples (as
        TOPI's `workload`s are: hashable)."""
        if isinstance(value, Const):
            return value.value
        if isinstance(value, list):
            return tuple(self.plain(v) for v in value)
        if value is None or isinstance(value, str | PrimExpr):
            return value
        raise self.fail(f"an attribute is a {type(value).__name__}")

    def dtype(self, node: dict[str, Any]) -> str:
        from xtvm.te.expr import dtype_name

        try:
            return dtype_name(self.field(node, "dtype"))
        except (TVMError, ValueError, TypeError) as err:
            raise self.fail(f"a dtype is malformed: {err}") from None

    def extent(self, node: dict[str, Any], name: str, depth: int) -> int | PrimExpr:
        return self.extent_of(self.child(node, name, depth, PrimExpr))

    def extent_of(self, value: PrimExpr) -> int | PrimExpr:
        if isinstance(value, IntImm):
            return int(value.value)
        if not value.dtype.startswith(("int", "uint")):
            raise self.fail(f"an extent has dtype {value.dtype}")
        return value

    def itervar(self, node: dict[str, Any], depth: int) -> IterVar:
        dom = self.child(node, "dom", depth, Range)
        var_at, var_node = self.raw(self.field(node, "var"))
        if var_node.get("type_key") not in ("tir.Var", "tir.SizeVar"):
            raise self.fail("an IterVar's var is not a variable")
        if var_at in self.built or var_at in self.itervars:
            raise self.fail("two IterVars declare one variable")
        if not self.dtype(var_node).startswith(("int", "uint")):
            raise self.fail("an IterVar's var is not an integer")
        iter_type = self.number(node, "iter_type")
        if not 0 <= iter_type <= IterVar.Tensorized:
            raise self.fail(f"iter_type {iter_type} is unknown")
        iv = IterVar(
            dom.extent, self.field(var_node, "name"), iter_type, self.field(node, "thread_tag")
        )
        iv.dom = dom
        self.built[var_at] = iv  # the body reads the axis through its var
        self.itervars[var_at] = iv
        return iv

    def expression(self, key: object, node: dict[str, Any], depth: int) -> PrimExpr:
        try:
            for table, make in (
                (BINARY, Binary),
                (COMPARE, lambda op, a, b: (Equality if op in ("eq", "ne") else Compare)(op, a, b)),
            ):
                for op, name in table.items():
                    if key == name:
                        a = self.child(node, "a", depth, PrimExpr)
                        return make(op, a, self.child(node, "b", depth, PrimExpr))
            for op, name in CALLS.items():
                if key == name:
                    args = (self.child(node, n, depth, PrimExpr) for n in ("a", "b"))
                    return Call(op, tuple(args))
            if key == "tir.Select":
                return Select(
                    self.child(node, "condition", depth, PrimExpr),
                    self.child(node, "true_value", depth, PrimExpr),
                    self.child(node, "false_value", depth, PrimExpr),
                )
            if key == "tir.Cast":
                return Cast(self.dtype(node), self.child(node, "value", depth, PrimExpr))
            if key == "tir.Call":
                _, op = self.raw(self.field(node, "op"))
                name = op.get("global_key") or op.get("repr_str") or ""
                if op.get("type_key") != "Op" or not str(name).startswith("tir."):
                    raise self.fail(f"a call's op {name!r} is not a tir intrinsic")
                return Call(
                    str(name).removeprefix("tir."), tuple(self.items(node, "args", depth, PrimExpr))
                )
        except (TypeError, TVMError) as err:
            if isinstance(err, JSONGraphError):
                raise
            raise self.fail(f"a '{key}' node is ill-typed: {err}") from None
        raise self.fail(f"nodes of type '{key}' cannot be read")

    def reduce(self, node: dict[str, Any], depth: int) -> Reduce:
        _, comm = self.raw(self.field(node, "combiner"))
        if comm.get("type_key") != "tir.CommReducer":
            raise self.fail("a reduction's combiner is not a tir.CommReducer")
        lhs = self.items(comm, "lhs", depth, Var)
        rhs = self.items(comm, "rhs", depth, Var)
        result = self.items(comm, "result", depth, PrimExpr)
        identity = self.items(comm, "identity_element", depth, PrimExpr)
        combiner = next(
            (
                name
                for name in REDUCERS
                if len(lhs) == len(rhs) == len(result) == len(identity) == 1
                and self.combines(result[0], name, lhs[0], rhs[0])
            ),
            None,
        )
        if combiner is None:
            raise self.fail("only reductions by sum, prod, max and min can be read")
        axes = self.items(node, "axis", depth, IterVar)  # first: the source reads their vars
        sources = self.items(node, "source", depth, PrimExpr)
        init = self.items(node, "init", depth, PrimExpr)
        k = self.number(node, "value_index")
        if len(sources) != 1 or k != 0 or len(init) > 1 or not axes:
            raise self.fail("a reduction's sources, init, axes or value_index are malformed")
        condition = self.child(node, "condition", depth, PrimExpr)
        if not (isinstance(condition, IntImm) and condition.value):
            raise self.fail("a reduction's condition must be true (xtvm selects in its source)")
        return Reduce(combiner, sources[0], tuple(axes), init=init[0] if init else None)

    @staticmethod
    def combines(result: PrimExpr, name: str, x: Var, y: Var) -> bool:
        if name in ("sum", "prod"):
            op = "add" if name == "sum" else "mul"
            return isinstance(result, Binary) and result.op == op and (result.a, result.b) == (x, y)
        return isinstance(result, Call) and result.name == name and result.args == (x, y)


def load_json(text: str) -> object:
    """The tensor-expression object that `save_json` wrote as `text`; anything else, or
    anything malformed, is a JSONGraphError (a TVMError)."""
    if not isinstance(text, str):
        raise JSONGraphError(f"load_json: expected a string, got {type(text).__name__}")
    if len(text) > MAX_BYTES:
        raise JSONGraphError("load_json: the text is too large")
    try:
        graph = json.loads(text)
    except ValueError as err:
        raise JSONGraphError(f"load_json: not JSON: {err}") from None
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list):
        raise JSONGraphError("load_json: not a TVM node graph (no 'nodes' list)")
    nodes = graph["nodes"]
    if len(nodes) > MAX_NODES:
        raise JSONGraphError("load_json: too many nodes")
    if graph.get("b64ndarrays"):
        raise JSONGraphError("load_json: arrays in a tensor expression graph cannot be read")
    try:
        return Reader(nodes).build(graph.get("root"))
    except RecursionError:
        raise JSONGraphError("load_json: the graph nests too deeply") from None
